//! Every digest the data plane raises is sent or counted (issue 17), over
//! real gRPC: digests raised before any SetForwardingPipelineConfig
//! (`no_pipeline`), DigestLists a controller that stopped reading its stream
//! has no room for (`stream_full`), lists due while no controller is primary
//! (`no_primary`) and pending data a DigestEntry DELETE throws away
//! (`discarded`).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::client::*;
use common::fixture;
use common::learn::{frame, learning};
use p4engine::{ActionSpec, EntryAction, Switch, SwitchConfig};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4runtime_server::{DigestStats, ServerOptions};
use p4v1::entity::Entity as E;
use p4v1::stream_message_response::Update as Out;
use p4v1::update::Type;
use tokio_stream::StreamExt;

fn no_cap() -> ServerOptions {
    ServerOptions { addr: "127.0.0.1:0".into(), max_digest_rate: 0, ..Default::default() }
}

fn digest_entry(cfg: p4v1::digest_entry::Config) -> E {
    E::DigestEntry(p4v1::DigestEntry { digest_id: fixture::D_DIGEST, config: Some(cfg) })
}

/// A list per digest, at once.
const EACH: p4v1::digest_entry::Config = p4v1::digest_entry::Config { max_timeout_ns: 0, max_list_size: 1, ack_timeout_ns: 0 };

/// The digest counters once `done` holds for them (within 10 s) and they
/// have stopped changing for 200 ms.
async fn settled(c: &Conn, done: impl Fn(&DigestStats) -> bool) -> DigestStats {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = c.device().digest_stats();
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = c.device().digest_stats();
        if (done(&now) && now == last) || Instant::now() > deadline {
            return now;
        }
        last = now;
    }
}

/// Digest data in the lists that arrive within `quiet` of each other.
async fn received(stream: &mut tonic::Streaming<p4v1::StreamMessageResponse>, quiet: Duration) -> u64 {
    let mut n = 0;
    while let Ok(Some(Ok(m))) = tokio::time::timeout(quiet, stream.next()).await {
        if let Some(Out::Digest(d)) = m.update {
            n += d.data.len() as u64;
        }
    }
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn digests_raised_before_a_pipeline_are_counted_as_no_pipeline() {
    // as p4switch prog.json: the program runs, P4Runtime knows no P4Info
    let switch = Arc::new(Switch::new(SwitchConfig { cpu_port: Some(64), ..Default::default() }));
    switch.set_program(p4engine::load_program(fixture::JSON).unwrap());
    let learn = EntryAction::Action(ActionSpec { action: "MyIngress.learn".into(), params: vec![] });
    switch.table_set_default("MyIngress.t_exact", learn).unwrap();
    let mut c = start_on(switch, no_cap()).await;
    const EARLY: u32 = 500;
    for i in 0..EARLY {
        c.inject(3, &frame(i));
    }
    let s = settled(&c, |s| s.no_pipeline >= EARLY as u64).await;
    assert_eq!(s, DigestStats { no_pipeline: EARLY as u64, ..Default::default() }, "nothing else counted");

    // once a controller sets the pipeline and configures the digest, they flow
    learning(&mut c, EACH).await;
    for i in 0..10 {
        c.inject(3, &frame(i));
    }
    assert_eq!(received(&mut c.from_switch, Duration::from_millis(300)).await, 10);
    let s = c.device().digest_stats();
    assert_eq!((s.no_pipeline, s.accepted, s.lists), (EARLY as u64, 10, 10), "{s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_controller_that_stops_reading_loses_digests_at_its_stream_and_each_is_counted() {
    let mut c = start_with(no_cap()).await;
    learning(&mut c, EACH).await;
    // the controller that stops reading takes over as primary; its HTTP/2
    // window is gRPC C-core's initial 64 KiB (tonic's default, 2 MiB, would
    // hold ~35,000 unread DigestLists before the server's buffer filled)
    let addr = c.server.as_ref().unwrap().local_addr();
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .initial_stream_window_size(65_535)
        .initial_connection_window_size(65_535)
        .connect()
        .await
        .unwrap();
    let mut slow = P4RuntimeClient::new(channel);
    let (_keep_open, mut stream, a) = open_stream(&mut slow, 20).await;
    assert_eq!(a.status.unwrap().code, 0, "primary");
    // one DigestList per digest, far more than the stream's 4,096 messages
    // and what HTTP/2 lets through while nobody reads
    const FLOOD: u32 = 30_000;
    for i in 0..FLOOD {
        c.inject(3, &frame(i));
    }
    let s = settled(&c, |s| s.accepted >= FLOOD as u64).await;
    assert_eq!((s.accepted, s.lists), (FLOOD as u64, FLOOD as u64), "{s:?}");
    assert!(s.stream_full > 0, "the stream filled up: {s:?}");
    // now the controller reads again: what it gets and what was counted add up
    let got = received(&mut stream, Duration::from_millis(500)).await;
    eprintln!("{FLOOD} digests: {got} reached the controller, {} dropped at its full stream", s.stream_full);
    assert_eq!(got + s.stream_full, FLOOD as u64, "every digest arrives or is counted: {s:?}");
    assert_eq!((s.no_primary, s.rate_dropped, s.unconfigured, s.no_pipeline, s.queue_overflow), (0, 0, 0, 0, 0), "{s:?}");
    // a list lost at the full stream is not also counted as sent
    let sent = c.device().stats.digests.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(sent, got, "digests counted sent = digests the controller got");
    // and the stream works again
    for i in FLOOD..FLOOD + 10 {
        c.inject(3, &frame(i));
    }
    assert_eq!(received(&mut stream, Duration::from_millis(300)).await, 10);
    assert_eq!(c.device().digest_stats().stream_full, s.stream_full);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_due_without_a_primary_and_pending_data_deleted_are_counted() {
    let mut c = start_with(no_cap()).await;
    // lists are due after 10 s or 1,000 digests: these 5 stay pending
    let slow = p4v1::digest_entry::Config { max_timeout_ns: 10_000_000_000, max_list_size: 1000, ack_timeout_ns: 0 };
    learning(&mut c, slow).await;
    for i in 0..5 {
        c.inject(3, &frame(i));
    }
    settled(&c, |s| s.accepted >= 5).await;
    c.write(vec![update(Type::Delete, E::DigestEntry(p4v1::DigestEntry { digest_id: fixture::D_DIGEST, config: None }))])
        .await
        .unwrap();
    let s = c.device().digest_stats();
    assert_eq!((s.accepted, s.discarded, s.lists), (5, 5, 0), "{s:?}");

    // the only controller ends its stream: lists due meanwhile have nobody to go to
    c.write(vec![update(Type::Insert, digest_entry(EACH))]).await.unwrap();
    c.to_switch = tokio::sync::mpsc::channel(1).0; // drops the request side: the stream ends
    // the server has seen it go once a Write is no longer from the primary
    let deadline = Instant::now() + Duration::from_secs(5);
    while c.write(vec![update(Type::Modify, digest_entry(EACH))]).await.is_ok() {
        assert!(Instant::now() < deadline, "the stream did not end");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for i in 10..17 {
        c.inject(3, &frame(i));
    }
    let s = settled(&c, |s| s.accepted >= 12).await;
    assert_eq!((s.accepted, s.no_primary, s.discarded, s.stream_full), (12, 7, 5, 0), "{s:?}");
}
