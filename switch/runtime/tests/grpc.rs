//! The P4Runtime server over a real gRPC socket against the real engine:
//! pipeline config, table writes and reads, error reporting, arbitration.

#![allow(deprecated)] // TableEntry.controller_metadata is still round-tripped

mod common;

use common::client::*;
use common::fixture;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::update::Type;
use tokio_stream::StreamExt;
use tonic::Code;

fn te(e: &p4v1::Entity) -> &p4v1::TableEntry {
    match &e.entity {
        Some(p4v1::entity::Entity::TableEntry(t)) => t,
        other => panic!("not a table entry: {other:?}"),
    }
}

fn read_table(id: u32) -> Vec<p4v1::Entity> {
    vec![p4v1::Entity { entity: Some(entry(id, vec![], None, 0)) }]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_works_before_a_pipeline() {
    let mut c = start().await;
    let e = c.write(vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1])], None, 0))]).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(c.read(read_table(0)).await.unwrap_err().code(), Code::FailedPrecondition);
    let g = c
        .client
        .get_forwarding_pipeline_config(p4v1::GetForwardingPipelineConfigRequest { device_id: 0, response_type: 0 })
        .await
        .unwrap_err();
    assert_eq!(g.code(), Code::FailedPrecondition);
    let caps = c.client.capabilities(p4v1::CapabilitiesRequest { device_id: 0 }).await.unwrap().into_inner();
    assert!(caps.p4runtime_api_version.starts_with("1."), "{}", caps.p4runtime_api_version);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_config_leaves_running_pipeline_untouched() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");
    c.write(vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1])], action(fixture::A_DROP, &[]), 0))])
        .await
        .unwrap();
    let e = c.set_pipeline("{ not json", fixture::p4info()).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let mut wrong = fixture::p4info();
    wrong.tables[0].preamble.as_mut().unwrap().name = "MyIngress.nope".into();
    let e = c.set_pipeline(fixture::JSON, wrong).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("MyIngress.nope"), "{}", e.message());
    assert_eq!(c.read(read_table(fixture::T_EXACT)).await.unwrap().len(), 1, "entry survived");
    let got = c
        .client
        .get_forwarding_pipeline_config(p4v1::GetForwardingPipelineConfigRequest { device_id: 0, response_type: 1 })
        .await
        .unwrap()
        .into_inner()
        .config
        .unwrap();
    assert_eq!(got.cookie.unwrap().cookie, 42);
    assert!(got.p4info.is_none() && got.p4_device_config.is_empty(), "COOKIE_ONLY");
    let all = c
        .client
        .get_forwarding_pipeline_config(p4v1::GetForwardingPipelineConfigRequest { device_id: 0, response_type: 0 })
        .await
        .unwrap()
        .into_inner()
        .config
        .unwrap();
    assert_eq!(all.p4_device_config, fixture::JSON.as_bytes());
    assert_eq!(all.p4info.unwrap(), fixture::p4info());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_entries_round_trip_in_canonical_form() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.unwrap();
    // padded MAC (8 bytes) and padded port (4 bytes)
    c.write(vec![
        update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[0, 0, 0, 0, 0, 0, 0, 5])], action(fixture::A_SET_PORT, &[&[0, 0, 1, 2]]), 0)),
        update(Type::Insert, entry(fixture::T_LPM, vec![lpm(&[0x0a, 0, 0, 0, 0, 0], 8)], action(fixture::A_DROP, &[]), 0)),
        update(Type::Insert, entry(fixture::T_TERN, vec![ternary(&[0x08, 0x00], &[0xff, 0xff])], action(fixture::A_SET_PORT, &[&[3]]), 10)),
    ])
    .await
    .expect("inserts");
    let got = c.read(read_table(fixture::T_EXACT)).await.unwrap();
    assert_eq!(got.len(), 1);
    let t = te(&got[0]);
    assert_eq!(t.r#match, vec![exact(&[5])]);
    assert_eq!(t.action, action(fixture::A_SET_PORT, &[&[1, 2]]));
    let got = c.read(read_table(fixture::T_LPM)).await.unwrap();
    assert_eq!(te(&got[0]).r#match, vec![lpm(&[0x0a, 0, 0, 0, 0, 0], 8)]);
    // ternary entry with its priority, and its direct counter on request
    let req = p4v1::Entity {
        entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry {
            table_id: fixture::T_TERN,
            counter_data: Some(Default::default()),
            ..Default::default()
        })),
    };
    let got = c.read(vec![req]).await.unwrap();
    let t = te(&got[0]);
    assert_eq!(t.priority, 10);
    assert_eq!(t.counter_data, Some(p4v1::CounterData { byte_count: 0, packet_count: 0 }));
    // wildcard read of every table: the three entries and t_const's const entry
    let all = c.read(read_table(0)).await.unwrap();
    assert_eq!(all.len(), 4);
    let consts: Vec<_> = all.iter().map(te).filter(|t| t.is_const).collect();
    assert_eq!(consts.len(), 1);
    assert_eq!(consts[0].table_id, fixture::T_CONST);
    assert_eq!(consts[0].r#match, vec![exact(&[0x08, 0x00])]);
    assert_eq!(consts[0].action, action(fixture::A_SET_PORT, &[&[1]]));
    // modify (with controller metadata, kept and read back), then delete
    let mut modified = entry(fixture::T_EXACT, vec![exact(&[5])], action(fixture::A_DROP, &[]), 0);
    if let p4v1::entity::Entity::TableEntry(t) = &mut modified {
        t.controller_metadata = 7;
        t.metadata = b"cookie".to_vec();
    }
    c.write(vec![update(Type::Modify, modified)]).await.unwrap();
    let got = c.read(read_table(fixture::T_EXACT)).await.unwrap();
    assert_eq!(te(&got[0]).action, action(fixture::A_DROP, &[]));
    assert_eq!((te(&got[0]).controller_metadata, te(&got[0]).metadata.as_slice()), (7, &b"cookie"[..]));
    c.write(vec![update(Type::Delete, entry(fixture::T_EXACT, vec![exact(&[5])], None, 0))]).await.unwrap();
    assert!(c.read(read_table(fixture::T_EXACT)).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_updates_are_reported_one_per_update_in_order() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.unwrap();
    let ins = |m: &[u8]| update(Type::Insert, entry(fixture::T_EXACT, vec![exact(m)], action(fixture::A_DROP, &[]), 0));
    c.write(vec![ins(&[1])]).await.unwrap();
    let e = c
        .write(vec![
            ins(&[2]),
            ins(&[1]),                                                                       // exists
            ins(&[1, 0, 0, 0, 0, 0, 0]),                                                     // 49 bits
            update(Type::Modify, entry(fixture::T_EXACT, vec![exact(&[9])], action(fixture::A_DROP, &[]), 0)), // missing
            update(Type::Delete, entry(fixture::T_EXACT, vec![exact(&[8])], None, 0)),       // missing
            update(Type::Insert, entry(999, vec![exact(&[3])], action(fixture::A_DROP, &[]), 0)), // bad table id
            update(Type::Insert, entry(fixture::T_TERN, vec![ternary(&[1], &[1])], action(fixture::A_DROP, &[]), 0)), // no priority
            ins(&[3]),
        ])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unknown);
    let codes: Vec<Code> = error_codes(&e).into_iter().map(Code::from_i32).collect();
    assert_eq!(
        codes,
        vec![
            Code::Ok,
            Code::AlreadyExists,
            Code::OutOfRange,
            Code::NotFound,
            Code::NotFound,
            Code::InvalidArgument,
            Code::InvalidArgument,
            Code::Ok
        ]
    );
    // the OK ones were applied, the failed ones changed nothing
    let got = c.read(read_table(fixture::T_EXACT)).await.unwrap();
    let mut keys: Vec<_> = got.iter().map(|e| te(e).r#match.clone()).collect();
    keys.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(keys, vec![vec![exact(&[1])], vec![exact(&[2])], vec![exact(&[3])]]);
    assert_eq!(te(got.iter().find(|e| te(e).r#match == vec![exact(&[1])]).unwrap()).action, action(fixture::A_DROP, &[]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_entries() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.unwrap();
    let default = |t: u32, a| {
        p4v1::entity::Entity::TableEntry(p4v1::TableEntry { table_id: t, action: a, is_default_action: true, ..Default::default() })
    };
    c.write(vec![update(Type::Modify, default(fixture::T_EXACT, action(fixture::A_SET_PORT, &[&[7]])))]).await.unwrap();
    let got = c.read(vec![p4v1::Entity { entity: Some(default(fixture::T_EXACT, None)) }]).await.unwrap();
    assert_eq!(got.len(), 1);
    assert!(te(&got[0]).is_default_action);
    assert_eq!(te(&got[0]).action, action(fixture::A_SET_PORT, &[&[7]]));
    // reset: MODIFY without action
    c.write(vec![update(Type::Modify, default(fixture::T_EXACT, None))]).await.unwrap();
    let got = c.read(vec![p4v1::Entity { entity: Some(default(fixture::T_EXACT, None)) }]).await.unwrap();
    assert_eq!(te(&got[0]).action, action(fixture::A_NOACTION, &[]));
    // const default
    let e = c.write(vec![update(Type::Modify, default(fixture::T_TERN, action(fixture::A_DROP, &[])))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::PermissionDenied as i32]);
    // INSERT of a default entry is not allowed
    let e = c.write(vec![update(Type::Insert, default(fixture::T_EXACT, action(fixture::A_DROP, &[])))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::InvalidArgument as i32]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbitration_primary_backup_and_failover() {
    let mut c = start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.unwrap();
    let addr = c.server.as_ref().unwrap().local_addr();
    // a backup with a lower election id
    let mut backup = connect(addr).await;
    let (_btx, mut brx, a) = open_stream(&mut backup, 5).await;
    assert_eq!(a.status.unwrap().code, Code::AlreadyExists as i32);
    assert_eq!(a.election_id.unwrap().low, 10, "told the primary's election id");
    let w = backup
        .write(p4v1::WriteRequest {
            device_id: 0,
            election_id: election(5),
            updates: vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1])], action(fixture::A_DROP, &[]), 0))],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(w.code(), Code::PermissionDenied);
    // the same election id as the primary is refused
    let mut dup = connect(addr).await;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tx.send(p4v1::StreamMessageRequest {
        update: Some(p4v1::stream_message_request::Update::Arbitration(p4v1::MasterArbitrationUpdate {
            device_id: 0,
            election_id: election(10),
            ..Default::default()
        })),
    })
    .await
    .unwrap();
    let mut s = dup.stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx)).await.unwrap().into_inner();
    let err = s.next().await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // a higher election id takes over; everyone is told
    let mut p2 = connect(addr).await;
    let (p2tx, p2rx, a) = open_stream(&mut p2, 20).await;
    assert_eq!(a.status.unwrap().code, Code::Ok as i32);
    for rx in [&mut c.from_switch, &mut brx] {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(5), rx.next()).await.expect("told").unwrap().unwrap();
        let Some(p4v1::stream_message_response::Update::Arbitration(a)) = msg.update else { panic!("{msg:?}") };
        assert_eq!(a.status.unwrap().code, Code::AlreadyExists as i32);
        assert_eq!(a.election_id.unwrap().low, 20);
    }
    let ins = vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1])], action(fixture::A_DROP, &[]), 0))];
    assert_eq!(c.write(ins.clone()).await.unwrap_err().code(), Code::PermissionDenied);
    // the new primary leaves: the old one (10) is primary again
    drop(p2tx);
    drop(p2rx);
    let msg = tokio::time::timeout(std::time::Duration::from_secs(5), c.from_switch.next()).await.expect("told").unwrap().unwrap();
    let Some(p4v1::stream_message_response::Update::Arbitration(a)) = msg.update else { panic!("{msg:?}") };
    assert_eq!(a.status.unwrap().code, Code::Ok as i32);
    assert_eq!(a.election_id.unwrap().low, 10);
    c.write(ins).await.expect("primary again");
}
