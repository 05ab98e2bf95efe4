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

    println!("p4runtime-server control-plane benchmark ({n} entries per table, batches of {BATCH}, gRPC on loopback)");
    println!("exact inserts/s: {exact_rate:.0}");
    println!("lpm inserts/s:   {lpm_rate:.0}");
    println!("read {n} entries: {read_s:.3} s (server side without gRPC: {direct_s:.3} s, of which engine table_read: {engine_s:.3} s)");
}
