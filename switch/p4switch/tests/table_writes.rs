//! P4Runtime writes at full rate while traffic crosses the switch: the
//! workers read the tables without locks (one snapshot pinned per batch), so
//! no frame may be lost or reordered and the writes keep flowing. Real
//! veths, the real generator (`p4gen`), a real gRPC client. Needs root.

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::netns::*;
use common::*;
use p4runtime_server::proto::p4::config::v1 as cfg;
use p4runtime_server::proto::p4::v1 as p4v1;
use serde_json::json;

const TABLE: u32 = 1;
const FORWARD: u32 = 10;
const DROP: u32 = 11;

/// Port 1 <-> port 2 through an exact table on the ingress port that the
/// controller fills (no const entries).
fn program() -> serde_json::Value {
    let mut p = Prog::new();
    p.action("MyIngress.forward", &[("port", 9)], vec![assign(fld("standard_metadata", "egress_spec"), rd(0))]);
    p.action("MyIngress.drop", &[], vec![mark_to_drop()]);
    p.table(
        0,
        "MyIngress.xconnect",
        &[("exact", "standard_metadata", "ingress_port")],
        &["MyIngress.forward", "MyIngress.drop"],
        ("MyIngress.drop", vec![], false),
        vec![],
        json!({"MyIngress.forward": null, "MyIngress.drop": null}),
        None,
    );
    p.init(0, "MyIngress.xconnect");
    p.j
}

fn p4info() -> cfg::P4Info {
    let pre = |id: u32, name: &str| Some(cfg::Preamble { id, name: name.into(), alias: name.rsplit('.').next().unwrap_or(name).into(), ..Default::default() });
    cfg::P4Info {
        tables: vec![cfg::Table {
            preamble: pre(TABLE, "MyIngress.xconnect"),
            match_fields: vec![cfg::MatchField {
                id: 1,
                name: "standard_metadata.ingress_port".into(),
                bitwidth: 9,
                r#match: Some(cfg::match_field::Match::MatchType(cfg::match_field::MatchType::Exact as i32)),
                ..Default::default()
            }],
            action_refs: vec![cfg::ActionRef { id: FORWARD, ..Default::default() }, cfg::ActionRef { id: DROP, ..Default::default() }],
            size: 4096,
            ..Default::default()
        }],
        actions: vec![
            cfg::Action { preamble: pre(FORWARD, "MyIngress.forward"), params: vec![cfg::action::Param { id: 1, name: "port".into(), bitwidth: 9, ..Default::default() }] },
            cfg::Action { preamble: pre(DROP, "MyIngress.drop"), params: vec![] },
        ],
        ..Default::default()
    }
}

fn canonical(v: u32) -> Vec<u8> {
    let b = v.to_be_bytes();
    let skip = b.iter().take(3).take_while(|&&x| x == 0).count();
    b[skip..].to_vec()
}

fn entry(port: u32, to: u32, kind: p4v1::update::Type) -> p4v1::Update {
    let e = p4v1::TableEntry {
        table_id: TABLE,
        r#match: vec![p4v1::FieldMatch {
            field_id: 1,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: canonical(port) })),
        }],
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                action_id: FORWARD,
                params: vec![p4v1::action::Param { param_id: 1, value: canonical(to) }],
            })),
        }),
        ..Default::default()
    };
    p4v1::Update { r#type: kind as i32, entity: Some(p4v1::Entity { entity: Some(p4v1::entity::Entity::TableEntry(e)) }) }
}

/// Connects as the primary controller, pushes the pipeline and the two
/// forwarding entries, signals `ready`, then inserts and deletes 100 other
/// entries per write request, as fast as the server answers, until `done`.
fn controller(ns: String, addr: String, json: String, ready: std::sync::mpsc::Sender<()>, done: Arc<AtomicBool>, writes: Arc<AtomicU64>) {
    runtime_in(&ns).block_on(async move {
        let mut primary = p4rt::Primary::with_pipeline(&addr, p4info(), json.into_bytes()).await;
        let c = &mut primary.client;
        let write = p4rt::write;
        use p4v1::update::Type::{Delete, Insert};
        c.write(write(vec![entry(1, 2, Insert), entry(2, 1, Insert)])).await.expect("forwarding entries");
        ready.send(()).unwrap();
        while !done.load(Ordering::Relaxed) {
            c.write(write((10..110).map(|p| entry(p, 1, Insert)).collect())).await.expect("insert 100");
            c.write(write((10..110).map(|p| entry(p, 1, Delete)).collect())).await.expect("delete 100");
            writes.fetch_add(200, Ordering::Relaxed);
        }
        drop(primary);
    });
}

#[test]
fn table_writes_at_full_rate_lose_no_frame_and_reorder_none() {
    for mode in ["xdp", "mmap"] {
        let topo = Topo::new(&format!("t{}", &mode[..1]));
        let dir = TempDir::new(&format!("writes-{mode}"));
        // A deep receive queue and no delay bound: this test is about writes, not about the test machine's scheduling.
        let args = ["--io", mode, "--workers", "2", "--rx-depth", "16384", "--queue-delay", "0", "--no-p4"];
        let (mut sw, line) = Running::start(
            Command::new("ip")
                .args(["netns", "exec", &topo.ns("s"), switch_bin()])
                .args(["-i", &format!("1@{}", topo.dev("a1")), "-i", &format!("2@{}", topo.dev("b1"))])
                .args(args)
                .args(["--", "--grpc-server-addr", "127.0.0.1:0"])
                .current_dir(&dir.0),
        );
        let addr = line.rsplit("P4Runtime on ").next().unwrap().trim().to_string();
        let (done, writes) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let ctl = {
            let (ns, json, done, writes) = (topo.ns("s"), program().to_string(), done.clone(), writes.clone());
            std::thread::spawn(move || controller(ns, addr, json, ready_tx, done, writes))
        };
        ready_rx.recv_timeout(Duration::from_secs(20)).expect("controller ready");
        let w0 = writes.load(Ordering::Relaxed);
        let out = Command::new(env!("CARGO_BIN_EXE_p4gen"))
            .args(["trial", "--tx-ns", &topo.ns("a"), "--tx", &topo.dev("a0"), "--rx-ns", &topo.ns("b"), "--rx", &topo.dev("b0")])
            .args(["--rate", "10000", "--seconds", "2"])
            .output()
            .expect("p4gen");
        let during = writes.load(Ordering::Relaxed) - w0;
        done.store(true, Ordering::Relaxed);
        ctl.join().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "p4gen: {}", String::from_utf8_lossy(&out.stderr));
        let kv = |k: &str| -> u64 {
            text.split_whitespace().find_map(|w| w.strip_prefix(&format!("{k}="))).and_then(|v| v.parse().ok()).unwrap_or(u64::MAX)
        };
        assert_eq!((kv("lost"), kv("reordered")), (0, 0), "{mode}: {text}");
        assert!(kv("received") >= 19_000, "{mode}: {text}");
        assert!(during >= 2_000, "{mode}: only {during} table writes during the trial");
        assert!(Command::new("kill").args(["-TERM", &sw.0.id().to_string()]).status().unwrap().success());
        assert!(sw.0.wait().unwrap().success());
    }
}
