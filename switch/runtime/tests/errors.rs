//! The P4Runtime error model over real gRPC: which check gives which code
//! (switch/runtime/README.md, "Errors: every check and its code", names
//! these tests), and a full table inside a big batch reported update by update.

mod common;

use common::client::{action, election, entry, error_codes, exact, start, update, Conn};
use common::loaded;
use common::fixture::{self, *};
use p4runtime_server::proto::google::rpc;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::entity::Entity as E;
use p4v1::update::Type;
use prost::Message;
use tonic::Code;

fn mac(i: u64) -> Vec<u8> {
    i.to_be_bytes()[2..].to_vec()
}

fn insert_exact(i: u64) -> p4v1::Update {
    update(Type::Insert, entry(T_EXACT, vec![exact(&mac(i))], action(A_SET_PORT, &[&[1]]), 0))
}

/// The code of a Write with one update (the per-update code when it failed).
async fn code_of(c: &mut Conn, u: p4v1::Update) -> Code {
    match c.write(vec![u]).await {
        Ok(()) => Code::Ok,
        Err(st) if st.code() == Code::Unknown => Code::from_i32(error_codes(&st)[0]),
        Err(st) => st.code(),
    }
}

async fn count_entries(c: &mut Conn, table: u32) -> usize {
    c.read(vec![p4v1::Entity { entity: Some(entry(table, vec![], None, 0)) }]).await.expect("read").len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_table_in_a_big_batch_reports_every_update() {
    // t_exact holds 16,384 entries here; one batch of 100,000 inserts.
    const SIZE: u64 = 16_384;
    const BATCH: u64 = 100_000;
    let mut c = start().await;
    let json = fixture::JSON.replacen("\"max_size\": 1048576", &format!("\"max_size\": {SIZE}"), 1);
    assert_ne!(json, fixture::JSON, "fixture JSON shape changed: t_exact's max_size not found");
    let mut info = fixture::p4info();
    info.tables[0].size = SIZE as i64;
    c.set_pipeline(&json, info).await.expect("pipeline");
    let st = c.write((0..BATCH).map(insert_exact).collect()).await.expect_err("table overflows");
    assert_eq!(st.code(), Code::Unknown, "{}", st.message());
    let status = rpc::Status::decode(st.details()).expect("details");
    let errors: Vec<p4v1::Error> =
        status.details.iter().map(|a| p4v1::Error::decode(a.value.as_slice()).unwrap()).collect();
    assert_eq!(errors.len(), BATCH as usize, "one p4.v1.Error per update");
    let ok = errors.iter().filter(|e| e.canonical_code == Code::Ok as i32).count();
    assert_eq!(ok, SIZE as usize, "the applied ones are OK");
    assert!(errors[..SIZE as usize].iter().all(|e| e.canonical_code == 0 && e.message.is_empty()));
    assert!(errors[SIZE as usize..].iter().all(|e| e.canonical_code == Code::ResourceExhausted as i32));
    assert_eq!(errors[SIZE as usize].message, "table is full (16384 entries)");
    assert!(errors.iter().all(|e| e.message.len() <= 64), "per-update messages stay short");
    assert_eq!(count_entries(&mut c, T_EXACT).await, SIZE as usize, "exactly the OK ones exist");
    // The trailer this batch needed (README "Trailer size"): grpc-status-details-bin
    // is base64 of the encoded google.rpc.Status.
    let bytes = st.details().len();
    let per_update = bytes as f64 / BATCH as f64;
    eprintln!("trailer: {bytes} bytes of details ({per_update:.1}/update), base64 {}", bytes.div_ceil(3) * 4);
    assert!(per_update < 72.0, "details stay compact: {per_update} bytes per update");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_wide_values_are_out_of_range() {
    let mut c = loaded().await;
    // match value of 49 bits in a bit<48> field
    let wide = update(Type::Insert, entry(T_EXACT, vec![exact(&[1, 0, 0, 0, 0, 0, 0])], action(A_SET_PORT, &[&[1]]), 0));
    assert_eq!(code_of(&mut c, wide).await, Code::OutOfRange);
    // action parameter of 10 bits for bit<9> port
    let param = update(Type::Insert, entry(T_EXACT, vec![exact(&mac(1))], action(A_SET_PORT, &[&[2, 0]]), 0));
    assert_eq!(code_of(&mut c, param).await, Code::OutOfRange);
    // empty byte string
    let empty = update(Type::Insert, entry(T_EXACT, vec![exact(&mac(1))], action(A_SET_PORT, &[&[]]), 0));
    assert_eq!(code_of(&mut c, empty).await, Code::OutOfRange);
    // register value of 33 bits in bit<32>
    let reg = |data: Vec<u8>, index: i64| {
        update(
            Type::Modify,
            E::RegisterEntry(p4v1::RegisterEntry {
                register_id: R_REG,
                index: Some(p4v1::Index { index }),
                data: Some(p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(data)) }),
            }),
        )
    };
    assert_eq!(code_of(&mut c, reg(vec![1, 0, 0, 0, 0], 0)).await, Code::OutOfRange);
    // index past the array OUT_OF_RANGE, negative INVALID_ARGUMENT (spec, RegisterEntry)
    assert_eq!(code_of(&mut c, reg(vec![1], 8)).await, Code::OutOfRange);
    assert_eq!(code_of(&mut c, reg(vec![1], -1)).await, Code::InvalidArgument);
    let ctr = |index: i64| {
        update(
            Type::Modify,
            E::CounterEntry(p4v1::CounterEntry {
                counter_id: C_PKTS,
                index: Some(p4v1::Index { index }),
                data: Some(p4v1::CounterData { byte_count: 1, packet_count: 1 }),
            }),
        )
    };
    assert_eq!(code_of(&mut c, ctr(16)).await, Code::OutOfRange);
    assert_eq!(code_of(&mut c, ctr(-3)).await, Code::InvalidArgument);
    assert_eq!(count_entries(&mut c, T_EXACT).await, 0, "nothing was written");
    assert_eq!(code_of(&mut c, reg(vec![0xff, 0xff, 0xff, 0xff], 7)).await, Code::Ok, "bit<32> all ones fits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_ids_are_invalid_argument() {
    let mut c = loaded().await;
    let unknown_table = update(Type::Insert, entry(0x0200_0999, vec![exact(&mac(1))], action(A_SET_PORT, &[&[1]]), 0));
    let unknown_action = update(Type::Insert, entry(T_EXACT, vec![exact(&mac(1))], action(0x0100_0999, &[]), 0));
    let unknown_field = update(
        Type::Insert,
        entry(
            T_EXACT,
            vec![p4v1::FieldMatch { field_id: 9, ..exact(&mac(1)) }],
            action(A_SET_PORT, &[&[1]]),
            0,
        ),
    );
    let unknown_counter = update(
        Type::Modify,
        E::CounterEntry(p4v1::CounterEntry { counter_id: 0x1200_0999, index: None, data: None }),
    );
    for u in [unknown_table, unknown_action, unknown_field, unknown_counter] {
        assert_eq!(code_of(&mut c, u).await, Code::InvalidArgument);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_role_and_election_checks_come_before_the_updates() {
    let mut c = loaded().await;
    let req = |device_id: u64, role: &str, e: u64| p4v1::WriteRequest {
        device_id,
        role: role.into(),
        election_id: election(e),
        updates: vec![insert_exact(1)],
        ..Default::default()
    };
    let code = |r: Result<tonic::Response<p4v1::WriteResponse>, tonic::Status>| r.map(|_| Code::Ok).unwrap_or_else(|s| s.code());
    assert_eq!(code(c.client.write(req(7, "", 10)).await), Code::NotFound, "unknown device id");
    assert_eq!(code(c.client.write(req(0, "ops", 10)).await), Code::NotFound, "unknown role");
    assert_eq!(code(c.client.write(req(0, "", 9)).await), Code::PermissionDenied, "not the primary");
    let mut atomic = req(0, "", 10);
    for a in [p4v1::write_request::Atomicity::RollbackOnError, p4v1::write_request::Atomicity::DataplaneAtomic] {
        atomic.atomicity = a as i32;
        let st = c.client.write(atomic.clone()).await.expect_err("refused");
        assert_eq!(st.code(), Code::Unimplemented);
        assert!(st.details().is_empty(), "an RPC-wide error carries no per-update details");
    }
    atomic.atomicity = 7;
    assert_eq!(code(c.client.write(atomic).await), Code::InvalidArgument, "unknown atomicity");
    assert_eq!(count_entries(&mut c, T_EXACT).await, 0, "nothing was written");
    assert_eq!(code(c.client.write(req(0, "", 10)).await), Code::Ok);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_level_codes() {
    let mut c = loaded().await;
    assert_eq!(code_of(&mut c, insert_exact(5)).await, Code::Ok);
    assert_eq!(code_of(&mut c, insert_exact(5)).await, Code::AlreadyExists);
    let modify = update(Type::Modify, entry(T_EXACT, vec![exact(&mac(6))], action(A_SET_PORT, &[&[1]]), 0));
    assert_eq!(code_of(&mut c, modify).await, Code::NotFound);
    let delete = update(Type::Delete, entry(T_EXACT, vec![exact(&mac(6))], None, 0));
    assert_eq!(code_of(&mut c, delete).await, Code::NotFound);
    let unspecified = p4v1::Update { r#type: Type::Unspecified as i32, ..insert_exact(7) };
    assert_eq!(code_of(&mut c, unspecified).await, Code::InvalidArgument);
    let no_entity = p4v1::Update { r#type: Type::Insert as i32, entity: None };
    assert_eq!(code_of(&mut c, no_entity).await, Code::InvalidArgument);
    let constant = update(Type::Insert, entry(T_CONST, vec![exact(&[8, 6])], action(A_SET_PORT, &[&[1]]), 0));
    assert_eq!(code_of(&mut c, constant).await, Code::PermissionDenied);
    let ext = update(Type::Insert, E::ExternEntry(p4v1::ExternEntry::default()));
    assert_eq!(code_of(&mut c, ext).await, Code::Unimplemented);
    let member_missing = update(
        Type::Insert,
        entry(
            T_SEL,
            vec![exact(&[8, 0])],
            Some(p4v1::TableAction { r#type: Some(p4v1::table_action::Type::ActionProfileMemberId(99)) }),
            0,
        ),
    );
    assert_eq!(code_of(&mut c, member_missing).await, Code::NotFound);
}
