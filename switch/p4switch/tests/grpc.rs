//! The real binary with its P4Runtime server: a controller (this test, over
//! gRPC) installs the pipeline, a multicast group and a clone session while
//! the switch waits (`--use-files 6`), then the pcap input runs through the
//! packet replication engine.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use p4runtime_server::proto::p4::config::v1::P4Info;
use p4runtime_server::proto::p4::v1 as p4v1;

/// IPv4 frames go to multicast group 1; others are cloned (I2E, session 5) and sent to port 2.
/// Egress writes egress_rid into srcAddr and instance_type into etherType.
fn replication_prog() -> serde_json::Value {
    let mut p = Prog::new();
    p.action("MyIngress.flood", &[], vec![assign(fld("standard_metadata", "mcast_grp"), hexv("0x0001"))]);
    p.action(
        "MyIngress.mirror",
        &[],
        vec![prim("clone_ingress_pkt_to_egress", vec![hexv("0x00000005"), hexv("0x1")]), set_port(2)],
    );
    p.j["field_lists"] = serde_json::json!([{"id": 1, "name": "empty", "elements": []}]);
    p.conditional(0, "node_1", ex("==", fld("ethernet", "etherType"), hexv("0x0800")), Some("MyIngress.t_flood"), Some("MyIngress.t_mirror"));
    p.keyless(0, "MyIngress.t_flood", "MyIngress.flood", vec![], None);
    p.keyless(0, "MyIngress.t_mirror", "MyIngress.mirror", vec![], None);
    p.init(0, "node_1");
    p.action(
        "MyEgress.mark",
        &[],
        vec![
            assign(fld("ethernet", "srcAddr"), fld("standard_metadata", "egress_rid")),
            assign(fld("ethernet", "etherType"), ex("&", fld("standard_metadata", "instance_type"), hexv("0xffff"))),
        ],
    );
    p.keyless(1, "MyEgress.t_mark", "MyEgress.mark", vec![], None);
    p.init(1, "MyEgress.t_mark");
    p.j
}

fn replica(port: u32, instance: u32) -> p4v1::Replica {
    p4v1::Replica { instance, backup_replicas: vec![], port_kind: Some(p4v1::replica::PortKind::Port(port.to_be_bytes().to_vec())) }
}

fn pre_insert(t: p4v1::packet_replication_engine_entry::Type) -> p4v1::Update {
    p4v1::Update {
        r#type: p4v1::update::Type::Insert as i32,
        entity: Some(p4v1::Entity {
            entity: Some(p4v1::entity::Entity::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry { r#type: Some(t) })),
        }),
    }
}

async fn program_switch(addr: String, json: Vec<u8>) {
    let mut primary = p4rt::Primary::with_pipeline(&addr, P4Info::default(), json).await;
    let c = &mut primary.client;
    use p4v1::packet_replication_engine_entry::Type;
    c.write(p4v1::WriteRequest {
        device_id: 0,
        election_id: p4rt::ELECTION,
        updates: vec![
            pre_insert(Type::MulticastGroupEntry(p4v1::MulticastGroupEntry {
                multicast_group_id: 1,
                replicas: vec![replica(2, 1), replica(3, 2)],
                ..Default::default()
            })),
            pre_insert(Type::CloneSessionEntry(p4v1::CloneSessionEntry {
                session_id: 5,
                replicas: vec![replica(3, 0)],
                ..Default::default()
            })),
        ],
        ..Default::default()
    })
    .await
    .expect("write multicast group and clone session");
    drop(primary);
}

#[test]
fn multicast_groups_and_clone_sessions_from_the_controller() {
    let dir = TempDir::new("grpc-pre");
    let prog = replication_prog();
    std::fs::write(dir.0.join("prog.json"), prog.to_string()).unwrap();
    let ip = eth(mac(0xff), mac(9), 0x0800, b"to the group");
    let other = eth(mac(0xff), mac(9), 0x1234, b"mirror me");
    let mut w = p4switch::pcap::Writer::create(&dir.0.join("p1_in.pcap")).unwrap();
    w.write(1, &ip).unwrap();
    w.write(2, &other).unwrap();
    w.flush().unwrap();
    drop(w);
    for p in [2, 3] {
        p4switch::pcap::Writer::create(&dir.0.join(format!("p{p}_in.pcap"))).unwrap();
    }
    let (mut sw, line) = Running::start(
        Command::new(switch_bin())
            .current_dir(&dir.0)
            .args(["--use-files", "6", "-i", "1@p1", "-i", "2@p2", "-i", "3@p3", "prog.json"])
            .args(["--", "--grpc-server-addr", "127.0.0.1:0"]),
    );
    let addr = line.rsplit("P4Runtime on ").next().unwrap().trim().to_string();
    assert!(addr.starts_with("127.0.0.1:"), "ready line: {line}");

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(program_switch(addr, prog.to_string().into_bytes()));

    // Input starts 6 s after start-up; wait for the 4 expected frames.
    let read = |p: u32| -> Vec<Vec<u8>> {
        p4switch::pcap::Reader::open(&dir.0.join(format!("p{p}_out.pcap")))
            .and_then(|r| r.read_all())
            .map(|v| v.into_iter().map(|r| r.data).collect())
            .unwrap_or_default()
    };
    let end = Instant::now() + Duration::from_secs(15);
    while read(2).len() + read(3).len() < 4 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    let marked = |f: &[u8], rid: u8, instance: u16| {
        let mut g = f.to_vec();
        g[6..12].copy_from_slice(&[0, 0, 0, 0, 0, rid]);
        g[12..14].copy_from_slice(&instance.to_be_bytes());
        g
    };
    let out: std::collections::BTreeMap<u32, Vec<Vec<u8>>> = [(1, read(1)), (2, read(2)), (3, read(3))].into_iter().collect();
    expect(
        &out,
        &[
            // multicast copies: rid 1 and 2, instance type 5 (replicated); then the original of the second frame.
            (2, vec![marked(&ip, 1, 5), marked(&other, 0, 0)]),
            // ingress clone: instance type 1.
            (3, vec![marked(&ip, 2, 5), marked(&other, 0, 1)]),
        ],
    );
    let pid = sw.0.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    assert!(sw.0.wait().unwrap().success());
}
