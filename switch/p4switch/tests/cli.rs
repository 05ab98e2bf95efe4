//! The command line of the real binary: errors a user gets, captures, help.

mod common;

use std::process::Command;

use common::*;
use serde_json::json;

fn p4switch(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    output_within(Command::new(switch_bin()).current_dir(dir).args(args))
}

#[test]
fn bad_json_is_refused_with_the_json_path() {
    let dir = TempDir::new("badjson");
    let mut p = Prog::new();
    p.action("MyIngress.fwd", &[], vec![]);
    p.table(
        0,
        "MyIngress.t",
        &[("exact", "ethernet", "dstAddr")],
        &["MyIngress.fwd"],
        ("MyIngress.fwd", vec![], false),
        vec![],
        json!({"MyIngress.fwd": null}),
        None,
    );
    p.j["pipelines"][0]["tables"][0]["key"][0]["match_type"] = json!("foo");
    std::fs::write(dir.0.join("bad.json"), p.j.to_string()).unwrap();
    let o = p4switch(&dir.0, &["--no-grpc", "bad.json"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.json: pipelines[0].tables[0].key[0]"), "{err}");
    assert!(err.contains("foo"), "{err}");

    std::fs::write(dir.0.join("syntax.json"), "{\"header_types\": [").unwrap();
    let o = p4switch(&dir.0, &["--no-grpc", "syntax.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("syntax.json"));
}

#[test]
fn missing_files_and_interfaces_are_named() {
    let dir = TempDir::new("missing");
    let o = p4switch(&dir.0, &["--no-grpc", "nope.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope.json"));

    let o = p4switch(&dir.0, &["--no-p4", "-i", "1@h3-no-such-if", "--", "--no-grpc"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("h3-no-such-if"), "{err}");

    // --use-files with no input file for a port.
    std::fs::write(dir.0.join("p.json"), Prog::new().j.to_string()).unwrap();
    let o = p4switch(&dir.0, &["--use-files", "0", "-i", "1@p1", "p.json", "--", "--no-grpc"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("p1_in.pcap"), "{err}");
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let dir = TempDir::new("usage");
    let o = p4switch(&dir.0, &["--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown option --frobnicate"));
    let o = p4switch(&dir.0, &["--help"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("--grpc-server-addr"));
}

#[test]
fn pcap_option_captures_every_port_and_the_ready_line_is_printed() {
    let dir = TempDir::new("capture");
    let caps = dir.0.join("caps");
    std::fs::create_dir(&caps).unwrap();
    let p = Prog::new();
    std::fs::write(dir.0.join("p.json"), p.j.to_string()).unwrap();
    let f = eth(mac(2), mac(1), 0x0800, b"captured");
    let mut w = p4switch::pcap::Writer::create(&dir.0.join("p1_in.pcap")).unwrap();
    w.write(1, &f).unwrap();
    w.flush().unwrap();
    drop(w);
    p4switch::pcap::Writer::create(&dir.0.join("p0_in.pcap")).unwrap();
    let o = p4switch(
        &dir.0,
        &["--use-files", "0", "-i", "0@p0", "-i", "1@p1", "--pcap", caps.to_str().unwrap(), "p.json", "--", "--no-grpc"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("p4switch ready"), "{stdout}");
    let read = |name: &str| -> Vec<Vec<u8>> {
        p4switch::pcap::Reader::open(&caps.join(name)).unwrap().read_all().unwrap().into_iter().map(|r| r.data).collect()
    };
    assert_eq!(read("p1_in.pcap"), vec![f.clone()]);
    assert_eq!(read("p0_out.pcap"), vec![f]);
    assert!(read("p0_in.pcap").is_empty());
    assert!(read("p1_out.pcap").is_empty());
}

#[test]
fn debug_log_traces_each_packet_through_the_pipeline() {
    let mut p = Prog::new();
    p.action("MyIngress.to2", &[], vec![set_port(2)]);
    p.keyless(0, "MyIngress.send_to_2", "MyIngress.to2", vec![], None);
    p.init(0, "MyIngress.send_to_2");
    let f = eth(mac(2), mac(1), 0x0800, b"trace me");
    let r = run_with("trace", &p.j, &[1, 2], &[(1, f.clone())], &["--log-console", "-L", "debug"]);
    assert!(r.status.success(), "{}", r.stderr);
    assert_eq!(r.out[&2], vec![f]);
    for want in ["port 1 (p1) in: 60 bytes", "MyIngress.send_to_2", "MyIngress.to2", "port 2 out: 60 bytes"] {
        assert!(r.stdout.contains(want), "{want:?} missing from the log:\n{}", r.stdout);
    }
    // At the default level nothing per packet is logged.
    let r = run_with("notrace", &p.j, &[1, 2], &[(1, eth(mac(2), mac(1), 0x0800, b"quiet"))], &["--log-console"]);
    assert!(!r.stdout.contains("MyIngress.send_to_2"), "{}", r.stdout);
}
