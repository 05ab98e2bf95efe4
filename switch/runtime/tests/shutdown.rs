//! `ServerHandle::shutdown` with a Write in flight (issue 17): the Write
//! skips its remaining updates (UNAVAILABLE, not applied), and shutdown
//! returns only once it has ended, so an in-process user sees a device whose
//! state no longer changes. Real server, real gRPC.

mod common;

use std::time::{Duration, Instant};

use common::client::*;
use common::fixture;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::server::CHANGE_WAIT;
use p4v1::update::Type;

/// Updates of the Write in flight: seconds of the server's time.
const BULK: u32 = 400_000;

fn bulk() -> p4v1::WriteRequest {
    let updates = (0..BULK)
        .map(|i| {
            let mut mac = [0u8; 6];
            mac[2..].copy_from_slice(&i.to_be_bytes());
            update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&mac)], action(fixture::A_SET_PORT, &[&[1]]), 0))
        })
        .collect();
    p4v1::WriteRequest { device_id: 0, election_id: election(10), updates, ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_the_write_in_flight_and_waits_for_it() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");
    let dev = c.device();
    let req = bulk();
    let mut client = c.client.clone();
    let write = tokio::spawn(async move { client.write(req).await });
    // the Write is applying once the device counts it
    let deadline = Instant::now() + Duration::from_secs(30);
    while dev.changes_in_flight() == 0 {
        assert!(Instant::now() < deadline, "the Write never started");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    let server = c.server.take().unwrap();
    let stopped = tokio::task::spawn_blocking(move || server.shutdown()).await.unwrap();
    let applied = dev.switch().table_len("MyIngress.t_exact").unwrap();
    eprintln!("shutdown took {:?} with a Write in flight; {applied} of {BULK} updates applied", stopped.took);
    assert!(stopped.changes_ended, "{stopped:?}");
    assert_eq!(dev.changes_in_flight(), 0);
    assert!(stopped.took < CHANGE_WAIT, "{stopped:?}");
    assert!(applied > 0 && applied < BULK as usize, "the Write was cut short: {applied}");
    // nothing changes the state after shutdown returned
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(dev.switch().table_len("MyIngress.t_exact").unwrap(), applied);
    // its client got no success (the rest was refused, or the connection dropped)
    assert!(write.await.unwrap().is_err());
    // and the device refuses changes from now on
    let late = p4v1::WriteRequest {
        device_id: 0,
        election_id: election(10),
        updates: vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[7; 6])], action(fixture::A_SET_PORT, &[&[1]]), 0))],
        ..Default::default()
    };
    assert_eq!(dev.write(&late).unwrap_err().code(), tonic::Code::Unavailable);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_shutdown_does_not_wait() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");
    let server = c.server.take().unwrap();
    let stopped = tokio::task::spawn_blocking(move || server.shutdown()).await.unwrap();
    eprintln!("quiet shutdown took {:?}", stopped.took);
    assert!(stopped.changes_ended);
    // the grpc thread's grace for requests in flight, and some scheduling slack
    assert!(stopped.took < Duration::from_millis(500), "{stopped:?}");
}
