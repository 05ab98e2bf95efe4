//! `--metrics-addr`: the real binary's endpoint scraped over HTTP. Frames on
//! pcap-file ports go through a table; its hits and misses, the process
//! metrics and the HTTP answers are checked. (Ports on veth with vrouter.p4
//! and the controller: controller/tests/vrouter/test_vr_metrics.py.)

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use serde_json::json;

/// `GET path` over a plain TCP connection: (status line, headers + body).
fn get(addr: &str, path: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).expect("connect to the metrics endpoint");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (status, rest) = text.split_once("\r\n").unwrap_or((&text, ""));
    (status.to_string(), rest.to_string())
}

/// The value of the sample `name{labels}` (labels as written in the text), if present.
fn sample(text: &str, name_and_labels: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name_and_labels)?.strip_prefix(' ')?.trim().parse().ok())
}

/// Runs program `p` on pcap-file ports 1 (fed `frames`) and 2 (empty) in
/// `dir`, with the metrics endpoint on a free port: (the switch, its address).
fn start_with_metrics(dir: &TempDir, p: &Prog, frames: &[Vec<u8>]) -> (Running, String) {
    std::fs::write(dir.0.join("p.json"), p.j.to_string()).unwrap();
    let mut w = p4switch::pcap::Writer::create(&dir.0.join("p1_in.pcap")).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64 + 1, f).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    p4switch::pcap::Writer::create(&dir.0.join("p2_in.pcap")).unwrap();
    let (sw, line) = Running::start(
        Command::new(switch_bin())
            .current_dir(&dir.0)
            .args(["--use-files", "0", "-i", "1@p1", "-i", "2@p2", "--metrics-addr", "127.0.0.1:0", "p.json"])
            .args(["--", "--grpc-server-addr", "127.0.0.1:0"]),
    );
    let addr = line.split("metrics on http://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_else(|| panic!("{line}")).to_string();
    (sw, addr)
}

/// The metrics text once `done` holds for it (the switch keeps serving
/// P4Runtime after its input), or after 10 s.
fn scrape_until(addr: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, text) = get(addr, "/metrics");
        assert_eq!(status, "HTTP/1.1 200 OK");
        if done(&text) || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn table_hits_misses_and_process_metrics_are_served_in_text_format() {
    let dir = TempDir::new("metrics");
    let mut p = Prog::new();
    p.action("MyIngress.forward", &[("port", 9)], vec![assign(fld("standard_metadata", "egress_spec"), rd(0))]);
    p.action("MyIngress.drop", &[], vec![mark_to_drop()]);
    p.table(
        0,
        "MyIngress.dmac",
        &[("exact", "ethernet", "dstAddr")],
        &["MyIngress.forward", "MyIngress.drop"],
        ("MyIngress.drop", vec![], true),
        vec![(json!([{"match_type": "exact", "key": "0x000000000001"}]), "MyIngress.forward", vec!["0x0002"], 1)],
        json!({"MyIngress.forward": null, "MyIngress.drop": null}),
        None,
    );
    p.init(0, "MyIngress.dmac");
    let frames: Vec<Vec<u8>> = [1, 1, 7, 1].into_iter().map(|dst| eth(mac(dst), mac(9), 0x0800, b"metrics")).collect();
    let (_sw, addr) = start_with_metrics(&dir, &p, &frames);
    // the 4 lookups
    let text = scrape_until(&addr, |text| {
        let hits = sample(text, r#"p4switch_table_hits_total{table="MyIngress.dmac"}"#).unwrap_or(0.0);
        let misses = sample(text, r#"p4switch_table_misses_total{table="MyIngress.dmac"}"#).unwrap_or(0.0);
        hits + misses >= 4.0
    });
    assert!(text.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{text}");
    assert_eq!(sample(&text, r#"p4switch_table_hits_total{table="MyIngress.dmac"}"#), Some(3.0), "{text}");
    assert_eq!(sample(&text, r#"p4switch_table_misses_total{table="MyIngress.dmac"}"#), Some(1.0), "{text}");
    assert!(text.contains("# TYPE p4switch_table_hits_total counter"), "{text}");
    assert!(sample(&text, "process_resident_memory_bytes").is_some_and(|v| v > 1e6), "{text}");
    assert!(sample(&text, "process_cpu_seconds_total").is_some(), "{text}");
    assert_eq!(sample(&text, "p4switch_p4runtime_packet_out_total"), Some(0.0), "{text}");
    // nothing learned in this program: every drop reason is there, at zero
    for reason in ["rate", "repeat", "unconfigured", "queue", "no_pipeline", "stream_full", "no_primary", "discarded"] {
        let name = format!(r#"p4switch_p4runtime_digest_drops_total{{reason="{reason}"}}"#);
        assert_eq!(sample(&text, &name), Some(0.0), "{text}");
    }
    // pcap-file ports have no port or queue metrics
    assert!(!text.contains("p4switch_port_"), "{text}");
    let (status, _) = get(&addr, "/other");
    assert_eq!(status, "HTTP/1.1 404 Not Found");
}

/// Issue 17: a program from the command line raises digests before any
/// controller set a P4Runtime pipeline: none can be configured, none is sent,
/// and each is counted (`reason="no_pipeline"`), not lost silently.
#[test]
fn digests_raised_before_a_p4runtime_pipeline_are_counted() {
    let dir = TempDir::new("metrics-digests");
    let mut p = Prog::new();
    p.action("MyIngress.learn", &[], vec![prim("generate_digest", vec![hexv("0x1"), hexv("0x1")]), set_port(2)]);
    p.j["field_lists"] = json!([{"id": 1, "name": "empty", "elements": []}]);
    p.j["learn_lists"] = json!([{"id": 1, "name": "learn_t", "elements": [fld("ethernet", "srcAddr")]}]);
    p.keyless(0, "MyIngress.t_learn", "MyIngress.learn", vec![], None);
    p.init(0, "MyIngress.t_learn");
    const FRAMES: u8 = 25;
    let frames: Vec<Vec<u8>> = (0..FRAMES).map(|i| eth(mac(1), mac(i), 0x0800, b"learn me")).collect();
    let (_sw, addr) = start_with_metrics(&dir, &p, &frames);
    let drops = |text: &str, reason: &str| sample(text, &format!(r#"p4switch_p4runtime_digest_drops_total{{reason="{reason}"}}"#));
    let text = scrape_until(&addr, |text| drops(text, "no_pipeline") == Some(FRAMES as f64));
    assert_eq!(drops(&text, "no_pipeline"), Some(FRAMES as f64), "{text}");
    for reason in ["rate", "repeat", "unconfigured", "queue", "stream_full", "no_primary", "discarded"] {
        assert_eq!(drops(&text, reason), Some(0.0), "{reason}: {text}");
    }
    assert_eq!(sample(&text, "p4switch_p4runtime_digest_entries_total"), Some(0.0), "{text}");
}

#[test]
fn a_busy_or_malformed_metrics_address_is_a_clear_error() {
    let dir = TempDir::new("metrics-busy");
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let o = output_within(Command::new(switch_bin()).current_dir(&dir.0).args(["--no-p4", "--metrics-addr", &addr, "--", "--grpc-server-addr", "127.0.0.1:0"]));
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("p4switch: error: cannot listen on {addr} for metrics: Address already in use")), "{err}");
    let o = output_within(Command::new(switch_bin()).current_dir(&dir.0).args(["--no-p4", "--metrics-addr", "9100", "--", "--no-grpc"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("p4switch: error: --metrics-addr 9100: invalid socket address"));
}
