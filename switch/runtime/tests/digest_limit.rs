//! A learning flood must not become an unbounded digest stream: over real
//! gRPC, thousands of distinct digests against a server capped at
//! `max_digest_rate`; the stream carries at most the cap, the rest is counted
//! as dropped; repeats of unacknowledged data are suppressed (and counted)
//! until the list is acknowledged.

mod common;

use std::time::{Duration, Instant};

use common::client::*;
use common::learn::{self, frame};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::ServerOptions;
use p4v1::stream_message_response::Update as Out;
use tokio_stream::StreamExt;

const CAP: u64 = 1000;

/// A server capped at CAP digests/s, the digest configured with `cfg`, and
/// `t_exact` sending every frame to dst 01:.. to the `learn` action.
async fn learning(cfg: p4v1::digest_entry::Config) -> Conn {
    let mut c = start_with(ServerOptions { addr: "127.0.0.1:0".into(), max_digest_rate: CAP, ..Default::default() }).await;
    learn::learning(&mut c, cfg).await;
    c
}

/// Digest lists that arrive within `quiet` of each other.
async fn drain(c: &mut Conn, quiet: Duration) -> Vec<p4v1::DigestList> {
    let mut lists = Vec::new();
    while let Ok(Some(Ok(m))) = tokio::time::timeout(quiet, c.from_switch.next()).await {
        if let Some(Out::Digest(d)) = m.update {
            lists.push(d);
        }
    }
    lists
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_distinct_digests_is_capped_and_counted() {
    let cfg = p4v1::digest_entry::Config { max_timeout_ns: 1_000_000, max_list_size: 100, ack_timeout_ns: 0 };
    let mut c = learning(cfg).await;
    const FLOOD: u32 = 20_000;
    let t0 = Instant::now();
    for i in 0..FLOOD {
        c.inject(3, &frame(i));
    }
    let lists = drain(&mut c, Duration::from_millis(300)).await;
    let elapsed = t0.elapsed().as_secs_f64();
    let got: usize = lists.iter().map(|l| l.data.len()).sum();
    // one second's worth at once, then CAP per second
    let most = CAP as f64 * (1.0 + elapsed);
    assert!(got as f64 <= most, "{got} digests in {elapsed:.2} s with a cap of {CAP}/s");
    assert!(got as u64 >= CAP, "the first second's worth passes: {got}");
    assert!(lists.iter().all(|l| l.data.len() <= 100), "max_list_size holds");
    let s = c.device().digest_stats();
    assert_eq!(s.max_rate, CAP);
    assert_eq!(s.accepted, got as u64, "{s:?}");
    assert_eq!(s.accepted + s.rate_dropped, FLOOD as u64, "every digest is sent or counted: {s:?}");
    assert!(s.rate_dropped >= FLOOD as u64 - most as u64, "{s:?}");
    assert_eq!(s.lists, lists.len() as u64);
    // the bucket refills: after a second, new data flows again
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for i in FLOOD..FLOOD + 10 {
        c.inject(3, &frame(i));
    }
    let later: usize = drain(&mut c, Duration::from_millis(300)).await.iter().map(|l| l.data.len()).sum();
    assert_eq!(later, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unacknowledged_data_is_not_sent_again_and_costs_no_budget() {
    let cfg = p4v1::digest_entry::Config { max_timeout_ns: 1_000_000, max_list_size: 50, ack_timeout_ns: 30_000_000_000 };
    let mut c = learning(cfg).await;
    // 200 stations, each seen 20 times: 200 data sent, 3,800 repeats suppressed
    for _ in 0..20 {
        for i in 0..200 {
            c.inject(3, &frame(i));
        }
    }
    let lists = drain(&mut c, Duration::from_millis(300)).await;
    let mut seen: Vec<Vec<u8>> = lists
        .iter()
        .flat_map(|l| l.data.iter())
        .map(|d| match &d.data {
            Some(p4v1::p4_data::Data::Struct(s)) => match &s.members[0].data {
                Some(p4v1::p4_data::Data::Bitstring(b)) => b.clone(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
        .collect();
    let n = seen.len();
    seen.sort();
    seen.dedup();
    assert_eq!((n, seen.len()), (200, 200), "each station once");
    let s = c.device().digest_stats();
    assert_eq!((s.accepted, s.suppressed, s.rate_dropped), (200, 3800, 0), "{s:?}");
    // acknowledge one list: its data (and only its) may be sent again
    let first = &lists[0];
    c.to_switch
        .send(p4v1::StreamMessageRequest {
            update: Some(p4v1::stream_message_request::Update::DigestAck(p4v1::DigestListAck {
                digest_id: first.digest_id,
                list_id: first.list_id,
            })),
        })
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    for i in 0..200 {
        c.inject(3, &frame(i));
    }
    let again: usize = drain(&mut c, Duration::from_millis(300)).await.iter().map(|l| l.data.len()).sum();
    assert_eq!(again, first.data.len(), "only the acknowledged list's data is sent again");
}
