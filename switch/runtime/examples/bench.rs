//! Control-plane speed of p4switch's P4Runtime server over real gRPC on
//! loopback (issue 6, item 6): table-entry inserts per second in batches of
//! 1,000 into an exact and an lpm table, and the time to read back 100,000
//! entries. Benchmark, not test: it prints numbers and exits 0.
//!
//!     cargo run --release -p p4runtime-server --example bench [-- ENTRIES]

#[path = "../tests/common/client.rs"]
mod client;
#[path = "../tests/common/fixture.rs"]
mod fixture;

use std::time::Instant;

use client::*;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::update::Type;

const BATCH: usize = 1000;

fn mac(i: u32) -> Vec<u8> {
    let b = i.to_be_bytes();
    vec![0x02, 0x00, b[0], b[1], b[2], b[3]]
}

async fn insert_all(c: &mut Conn, table: u32, n: u32, make: impl Fn(u32) -> Vec<p4v1::FieldMatch>) -> f64 {
    let t0 = Instant::now();
    let mut i = 0;
    while i < n {
        let end = (i + BATCH as u32).min(n);
        let updates = (i..end)
            .map(|k| update(Type::Insert, entry(table, make(k), action(fixture::A_SET_PORT, &[&[(k % 500) as u8]]), 0)))
            .collect();
        c.write(updates).await.expect("batch insert");
        i = end;
    }
    n as f64 / t0.elapsed().as_secs_f64()
}

fn become_primary(dev: &p4runtime_server::Device) {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    std::mem::forget(rx); // keep the stream open for the whole run
    let id = dev.open_stream(tx);
    let arb = p4v1::StreamMessageRequest {
        update: Some(p4v1::stream_message_request::Update::Arbitration(p4v1::MasterArbitrationUpdate {
            device_id: 0,
            election_id: election(1),
            ..Default::default()
        })),
    };
    dev.stream_message(id, arb).expect("primary");
}

fn set_pipeline_direct(dev: &p4runtime_server::Device) {
    dev.set_pipeline(&p4v1::SetForwardingPipelineConfigRequest {
        device_id: 0,
        election_id: election(1),
        action: p4v1::set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
        config: Some(p4v1::ForwardingPipelineConfig {
            p4info: Some(fixture::p4info()),
            p4_device_config: fixture::JSON.as_bytes().to_vec(),
            cookie: None,
        }),
        ..Default::default()
    })
    .expect("pipeline");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");

    let exact_rate = insert_all(&mut c, fixture::T_EXACT, n, |k| vec![exact(&mac(k))]).await;
    let lpm_rate = insert_all(&mut c, fixture::T_LPM, n, |k| vec![lpm(&mac(k << 8), 40)]).await;

    let t0 = Instant::now();
    let all = c.read(vec![p4v1::Entity { entity: Some(entry(fixture::T_EXACT, vec![], None, 0)) }]).await.expect("read");
    let read_s = t0.elapsed().as_secs_f64();
    assert_eq!(all.len(), n as usize, "read back every entry");

    // The same read without gRPC: engine + translation only.
    let dev = c.server.as_ref().expect("server").device().clone();
    let req = p4v1::ReadRequest { device_id: 0, entities: vec![p4v1::Entity { entity: Some(entry(fixture::T_EXACT, vec![], None, 0)) }], ..Default::default() };
    let t0 = Instant::now();
    let direct = dev.read(&req).expect("direct read");
    let direct_s = t0.elapsed().as_secs_f64();
    assert_eq!(direct.len(), n as usize);
    let t0 = Instant::now();
    let raw = dev.switch().table_read("MyIngress.t_exact").expect("engine read");
    let engine_s = t0.elapsed().as_secs_f64();
    assert_eq!(raw.len(), n as usize);

    // Attribution: the same exact-table inserts without gRPC (Device::write on
    // a second switch), and engine-only (Switch::table_insert on a third).
    let direct_rate = {
        let dev = p4runtime_server::Device::new(std::sync::Arc::new(p4engine::Switch::new(Default::default())), None);
        become_primary(&dev);
        set_pipeline_direct(&dev);
        let t0 = Instant::now();
        let mut i = 0;
        while i < n {
            let end = (i + BATCH as u32).min(n);
            let updates = (i..end)
                .map(|k| update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&mac(k))], action(fixture::A_SET_PORT, &[&[(k % 500) as u8]]), 0)))
                .collect();
            dev.write(&p4v1::WriteRequest { device_id: 0, election_id: election(1), updates, ..Default::default() }).expect("direct insert");
            i = end;
        }
        n as f64 / t0.elapsed().as_secs_f64()
    };
    let engine_rate = {
        let (sw, entries) = engine_with_entries(n);
        let t0 = Instant::now();
        for e in entries {
            sw.table_insert("MyIngress.t_exact", e).expect("engine insert");
        }
        n as f64 / t0.elapsed().as_secs_f64()
    };
    // the same, BATCH inserts per engine TableBatch (one publish each), as the server's Write
    let engine_batch_rate = {
        let (sw, entries) = engine_with_entries(n);
        let t0 = Instant::now();
        let mut b = sw.table_batch();
        for (i, e) in entries.into_iter().enumerate() {
            b.insert("MyIngress.t_exact", e).expect("engine batch insert");
            if (i + 1) % BATCH == 0 {
                b.publish();
            }
        }
        drop(b);
        n as f64 / t0.elapsed().as_secs_f64()
    };

    println!("p4runtime-server control-plane benchmark ({n} entries per table, batches of {BATCH}, gRPC on loopback)");
    println!(
        "exact inserts/s: {exact_rate:.0} (without gRPC: {direct_rate:.0}; engine table_insert alone: {engine_rate:.0}, \
         in engine batches of {BATCH}: {engine_batch_rate:.0})"
    );
    println!("lpm inserts/s:   {lpm_rate:.0}");
    println!("read {n} entries: {read_s:.3} s (server side without gRPC: {direct_s:.3} s, of which engine table_read: {engine_s:.3} s)");
}

/// A bare engine with the fixture program, and `n` exact entries ready to insert.
fn engine_with_entries(n: u32) -> (p4engine::Switch, Vec<p4engine::TableEntry>) {
    let sw = p4engine::Switch::new(Default::default());
    sw.set_program(p4engine::load_program(fixture::JSON).expect("program"));
    let entries = (0..n)
        .map(|k| p4engine::TableEntry {
            key: vec![p4engine::MatchKey::Exact(mac(k))],
            action: p4engine::EntryAction::Action(p4engine::ActionSpec { action: "MyIngress.set_port".into(), params: vec![vec![0, (k % 500) as u8]] }),
            priority: 0,
            idle_timeout_ns: 0,
        })
        .collect();
    (sw, entries)
}
