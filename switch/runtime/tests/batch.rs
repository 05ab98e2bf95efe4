//! A Write's table entries are staged and each table is published once
//! (issue 16 Must 3): over real gRPC, the updates of one Write still answer
//! one by one as if applied in order (CONTINUE_ON_ERROR), a failed one leaves
//! no trace, later ones see earlier ones, direct counters and meters written
//! with a staged entry stick, a modify keeps the hits, and packets and Read
//! see exactly what was written once the Write has answered.

mod common;

use common::client::{action, ent, entry, error_codes, exact, frame, lpm, ternary, update, Conn};
use common::loaded;
use common::fixture;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::entity::Entity as E;
use p4v1::update::Type;
use tonic::Code;

fn to_port(dst: u8, port: u8) -> E {
    entry(fixture::T_EXACT, vec![exact(&[2, 0, 0, 0, 0, dst])], action(fixture::A_SET_PORT, &[&[port]]), 0)
}

/// Per-update codes of a Write (all OK: empty).
async fn codes(c: &mut Conn, updates: Vec<p4v1::Update>) -> Vec<i32> {
    match c.write(updates).await {
        Ok(()) => Vec::new(),
        Err(st) => {
            assert_eq!(st.code(), Code::Unknown, "{st:?}");
            error_codes(&st)
        }
    }
}

fn with_entity(e: &E, f: impl FnOnce(&mut p4v1::TableEntry)) -> E {
    let E::TableEntry(mut t) = e.clone() else { panic!("not a table entry") };
    f(&mut t);
    E::TableEntry(t)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_of_one_write_answer_one_by_one_and_read_back_exactly() {
    let mut c = loaded().await;
    let tern = entry(fixture::T_TERN, vec![ternary(&[0x08, 0x00], &[0xff, 0xff])], action(fixture::A_DROP, &[]), 5);
    let tern_counted = with_entity(&tern, |t| t.counter_data = Some(p4v1::CounterData { byte_count: 640, packet_count: 10 }));
    let cfg = p4v1::MeterConfig { cir: 10, cburst: 1, pir: 20, pburst: 2, eburst: 0 };
    let lpm_e = entry(fixture::T_LPM, vec![lpm(&[0x0a, 0, 0, 0, 0, 0], 8)], action(fixture::A_DROP, &[]), 0);
    let lpm_metered = with_entity(&lpm_e, |t| t.meter_config = Some(cfg));
    let bad_action = entry(fixture::T_EXACT, vec![exact(&[2, 0, 0, 0, 0, 9])], action(fixture::A_SET_PORT, &[&[2, 0]]), 0);
    let got = codes(
        &mut c,
        vec![
            update(Type::Insert, tern_counted.clone()),
            update(Type::Insert, tern.clone()),         // the one just staged exists
            update(Type::Insert, lpm_metered.clone()),
            update(Type::Modify, to_port(1, 3)),        // nothing to modify
            update(Type::Insert, to_port(1, 1)),
            update(Type::Modify, to_port(1, 2)),        // modifies the staged insert
            update(Type::Delete, to_port(2, 0)),        // nothing to delete
            update(Type::Insert, to_port(3, 3)),
            update(Type::Delete, to_port(3, 0)),        // deletes the staged insert
            update(Type::Insert, bad_action),           // port 512 > 9 bits
            update(Type::Insert, to_port(4, 4)),
        ],
    )
    .await;
    let (ok, exists, missing) = (Code::Ok as i32, Code::AlreadyExists as i32, Code::NotFound as i32);
    assert_eq!(got, vec![ok, exists, ok, missing, ok, ok, missing, ok, ok, Code::OutOfRange as i32, ok]);

    // Read: exactly the OK ones, as last written, with their direct resources
    let exact_all = c.read(vec![ent(entry(fixture::T_EXACT, vec![], None, 0))]).await.unwrap();
    assert_eq!(exact_all, vec![ent(to_port(1, 2)), ent(to_port(4, 4))]);
    let req = p4v1::TableEntry { table_id: fixture::T_TERN, counter_data: Some(Default::default()), ..Default::default() };
    let got = c.read(vec![ent(E::TableEntry(req))]).await.unwrap();
    assert_eq!(got, vec![ent(tern_counted)], "the direct counter written with the staged entry");
    let req = p4v1::TableEntry { table_id: fixture::T_LPM, meter_config: Some(Default::default()), ..Default::default() };
    let got = c.read(vec![ent(E::TableEntry(req))]).await.unwrap();
    assert_eq!(got, vec![ent(lpm_metered)], "the direct meter configured with the staged entry");

    // packets see the Write as soon as it has answered
    let out = c.inject(1, &frame([2, 0, 0, 0, 0, 1], [0x99; 6], 0x1234));
    assert_eq!(out.iter().map(|(p, _)| *p).collect::<Vec<_>>(), vec![2]);
    let out = c.inject(1, &frame([2, 0, 0, 0, 0, 3], [0x99; 6], 0x1234));
    assert!(out.iter().all(|(p, _)| *p != 3), "the deleted entry is gone: {out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modify_keeps_the_hits_and_members_follow_the_entries_of_the_same_write() {
    let mut c = loaded().await;
    let tern = entry(fixture::T_TERN, vec![ternary(&[0x08, 0x00], &[0xff, 0xff])], action(fixture::A_DROP, &[]), 5);
    c.write(vec![update(Type::Insert, tern.clone())]).await.unwrap();
    for _ in 0..3 {
        c.inject(1, &frame([1; 6], [2; 6], 0x0800));
    }
    // two modifies of the entry in one Write (and another table's inserts between)
    let tern2 = with_entity(&tern, |t| t.action = action(fixture::A_NOACTION, &[]));
    let got = codes(
        &mut c,
        vec![update(Type::Modify, tern2), update(Type::Insert, to_port(5, 5)), update(Type::Modify, tern.clone())],
    )
    .await;
    assert!(got.is_empty(), "{got:?}");
    let req = p4v1::TableEntry { table_id: fixture::T_TERN, counter_data: Some(Default::default()), ..Default::default() };
    let got = c.read(vec![ent(E::TableEntry(req))]).await.unwrap();
    let Some(E::TableEntry(t)) = &got[0].entity else { panic!("{got:?}") };
    assert_eq!(t.counter_data.map(|d| d.packet_count), Some(3), "hits survive both modifies");

    // members and entries in one Write, in an order that needs each step published
    let member = E::ActionProfileMember(p4v1::ActionProfileMember {
        action_profile_id: fixture::AP,
        member_id: 7,
        action: Some(p4v1::Action { action_id: fixture::A_SET_PORT, params: vec![p4v1::action::Param { param_id: 1, value: vec![7] }] }),
    });
    let sel = E::TableEntry(p4v1::TableEntry {
        table_id: fixture::T_SEL,
        r#match: vec![exact(&[0x88, 0xb5])],
        action: Some(p4v1::TableAction { r#type: Some(p4v1::table_action::Type::ActionProfileMemberId(7)) }),
        ..Default::default()
    });
    let got = codes(
        &mut c,
        vec![
            update(Type::Insert, member.clone()),
            update(Type::Insert, sel.clone()),
            update(Type::Delete, member.clone()), // in use by the entry just written
            update(Type::Delete, sel.clone()),
            update(Type::Delete, member.clone()), // no longer
        ],
    )
    .await;
    let ok = Code::Ok as i32;
    assert_eq!(got.len(), 5);
    assert_eq!((got[0], got[1], got[3], got[4]), (ok, ok, ok, ok), "{got:?}");
    assert_ne!(got[2], ok, "{got:?}");
    assert!(c.read(vec![ent(entry(fixture::T_SEL, vec![], None, 0))]).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_write_is_visible_whole_when_it_answers() {
    let mut c = loaded().await;
    let n = 5000u32;
    let ups: Vec<p4v1::Update> = (0..n)
        .map(|i| {
            let b = i.to_be_bytes();
            update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[2, 1, b[0], b[1], b[2], b[3]])], action(fixture::A_SET_PORT, &[&[(i % 7) as u8]]), 0))
        })
        .collect();
    c.write(ups).await.unwrap();
    assert_eq!(c.device().switch().table_len("MyIngress.t_exact").unwrap(), n as usize);
    for i in [0u32, 1234, n - 1] {
        let b = i.to_be_bytes();
        let out = c.inject(1, &frame([2, 1, b[0], b[1], b[2], b[3]], [0x99; 6], 0x1234));
        assert_eq!(out.iter().map(|(p, _)| *p).collect::<Vec<_>>(), vec![i % 7], "entry {i}");
    }
}
