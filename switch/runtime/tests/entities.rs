//! Every P4Runtime entity kind through the server over real gRPC against the
//! real engine: counters, meters, registers, direct resources, action
//! profiles (and one-shot sets), const tables, the replication engine,
//! digests, packet-in/out and idle timeouts.

mod common;

use common::client::*;
use common::fixture;
use common::loaded;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::entity::Entity as E;
use p4v1::stream_message_response::Update as Out;
use p4v1::update::Type;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counters_meters_registers() {
    let mut c = loaded().await;
    let counter = |i: Option<i64>, d: Option<p4v1::CounterData>| {
        E::CounterEntry(p4v1::CounterEntry { counter_id: fixture::C_PKTS, index: i.map(|index| p4v1::Index { index }), data: d })
    };
    c.write(vec![update(Type::Modify, counter(Some(3), Some(p4v1::CounterData { byte_count: 100, packet_count: 2 })))])
        .await
        .unwrap();
    let all = c.read(vec![ent(counter(None, None))]).await.unwrap();
    assert_eq!(all.len(), 16, "one entity per cell");
    let one = c.read(vec![ent(counter(Some(3), None))]).await.unwrap();
    assert_eq!(one, vec![ent(counter(Some(3), Some(p4v1::CounterData { byte_count: 100, packet_count: 2 })))]);
    let e = c.write(vec![update(Type::Modify, counter(Some(16), Some(Default::default())))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::OutOfRange as i32], "index out of range");
    let e = c.write(vec![update(Type::Insert, counter(Some(1), Some(Default::default())))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::InvalidArgument as i32], "counters are only modified");

    let meter = |i: i64, cfg: Option<p4v1::MeterConfig>| {
        E::MeterEntry(p4v1::MeterEntry { meter_id: fixture::M_POLICER, index: Some(p4v1::Index { index: i }), config: cfg, counter_data: None })
    };
    let cfg = p4v1::MeterConfig { cir: 1000, cburst: 100, pir: 2000, pburst: 200, eburst: 0 };
    c.write(vec![update(Type::Modify, meter(2, Some(cfg)))]).await.unwrap();
    assert_eq!(c.read(vec![ent(meter(2, None))]).await.unwrap(), vec![ent(meter(2, Some(cfg)))]);
    let reset = p4v1::MeterConfig { cir: -1, cburst: -1, pir: -1, pburst: -1, eburst: 0 };
    c.write(vec![update(Type::Modify, meter(2, Some(reset)))]).await.unwrap();
    assert_eq!(c.read(vec![ent(meter(2, None))]).await.unwrap(), vec![ent(meter(2, None))], "unconfigured again");

    let reg = |i: i64, v: Option<&[u8]>| {
        E::RegisterEntry(p4v1::RegisterEntry {
            register_id: fixture::R_REG,
            index: Some(p4v1::Index { index: i }),
            data: v.map(|v| p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(v.to_vec())) }),
        })
    };
    c.write(vec![update(Type::Modify, reg(5, Some(&[0, 0, 0, 0, 0, 0x12, 0x34])))]).await.unwrap();
    assert_eq!(c.read(vec![ent(reg(5, None))]).await.unwrap(), vec![ent(reg(5, Some(&[0x12, 0x34])))]);
    let e = c.write(vec![update(Type::Modify, reg(5, Some(&[1, 0, 0, 0, 0])))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::OutOfRange as i32], "33 bits in bit<32>");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_counters_and_meters() {
    let mut c = loaded().await;
    let tern = entry(fixture::T_TERN, vec![ternary(&[0x08, 0x00], &[0xff, 0xff])], action(fixture::A_DROP, &[]), 5);
    let lpm_e = entry(fixture::T_LPM, vec![lpm(&[0x0a, 0, 0, 0, 0, 0], 8)], action(fixture::A_DROP, &[]), 0);
    c.write(vec![update(Type::Insert, tern.clone()), update(Type::Insert, lpm_e.clone())]).await.unwrap();
    let E::TableEntry(tern_key) = tern else { unreachable!() };
    let E::TableEntry(lpm_key) = lpm_e else { unreachable!() };
    let key_only = |t: &p4v1::TableEntry| p4v1::TableEntry { action: None, ..t.clone() };

    let dc = |d: Option<p4v1::CounterData>| {
        E::DirectCounterEntry(p4v1::DirectCounterEntry { table_entry: Some(key_only(&tern_key)), data: d })
    };
    c.write(vec![update(Type::Modify, dc(Some(p4v1::CounterData { byte_count: 640, packet_count: 10 })))]).await.unwrap();
    let got = c.read(vec![ent(dc(None))]).await.unwrap();
    assert_eq!(got, vec![ent(dc(Some(p4v1::CounterData { byte_count: 640, packet_count: 10 })))]);
    // a packet hitting the entry counts
    c.inject(1, &frame([1; 6], [2; 6], 0x0800));
    let got = c.read(vec![ent(dc(None))]).await.unwrap();
    let Some(E::DirectCounterEntry(d)) = &got[0].entity else { panic!() };
    assert_eq!(d.data.unwrap().packet_count, 11);

    let cfg = p4v1::MeterConfig { cir: 10, cburst: 1, pir: 20, pburst: 2, eburst: 0 };
    let dm = |cfg: Option<p4v1::MeterConfig>| {
        E::DirectMeterEntry(p4v1::DirectMeterEntry { table_entry: Some(key_only(&lpm_key)), config: cfg, counter_data: None })
    };
    c.write(vec![update(Type::Modify, dm(Some(cfg)))]).await.unwrap();
    assert_eq!(c.read(vec![ent(dm(None))]).await.unwrap(), vec![ent(dm(Some(cfg)))]);
    // table entry read with meter_config requested carries it
    let req = p4v1::TableEntry { table_id: fixture::T_LPM, meter_config: Some(Default::default()), ..Default::default() };
    let got = c.read(vec![ent(E::TableEntry(req))]).await.unwrap();
    let Some(E::TableEntry(t)) = &got[0].entity else { panic!() };
    assert_eq!(t.meter_config, Some(cfg));
    // a missing entry's direct counter is NOT_FOUND
    let missing = p4v1::TableEntry { r#match: vec![ternary(&[0x86, 0xdd], &[0xff, 0xff])], ..key_only(&tern_key) };
    let e = c
        .write(vec![update(
            Type::Modify,
            E::DirectCounterEntry(p4v1::DirectCounterEntry { table_entry: Some(missing), data: Some(Default::default()) }),
        )])
        .await
        .unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::NotFound as i32]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn const_table_is_readable_and_immutable() {
    let mut c = loaded().await;
    let got = c.read(vec![ent(entry(fixture::T_CONST, vec![], None, 0))]).await.unwrap();
    assert_eq!(got.len(), 1);
    let Some(E::TableEntry(t)) = &got[0].entity else { panic!() };
    assert!(t.is_const);
    let e = c
        .write(vec![update(Type::Insert, entry(fixture::T_CONST, vec![exact(&[0x86, 0xdd])], action(fixture::A_NOACTION, &[]), 0))])
        .await
        .unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::PermissionDenied as i32]);
    let e = c.write(vec![update(Type::Delete, entry(fixture::T_CONST, vec![exact(&[0x08, 0x00])], None, 0))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::PermissionDenied as i32]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn action_profiles_groups_and_one_shot() {
    let mut c = loaded().await;
    let member = |id: u32, port: u8| {
        E::ActionProfileMember(p4v1::ActionProfileMember {
            action_profile_id: fixture::AP,
            member_id: id,
            action: Some(p4v1::Action {
                action_id: fixture::A_SET_PORT,
                params: vec![p4v1::action::Param { param_id: 1, value: vec![port] }],
            }),
        })
    };
    let group = |id: u32, members: &[u32]| {
        E::ActionProfileGroup(p4v1::ActionProfileGroup {
            action_profile_id: fixture::AP,
            group_id: id,
            members: members
                .iter()
                .map(|m| p4v1::action_profile_group::Member { member_id: *m, weight: 1, watch_kind: None })
                .collect(),
            max_size: 8,
        })
    };
    c.write(vec![update(Type::Insert, member(1, 1)), update(Type::Insert, member(2, 2)), update(Type::Insert, group(10, &[1, 2]))])
        .await
        .unwrap();
    let e = c.write(vec![update(Type::Insert, member(1, 3))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::AlreadyExists as i32]);
    c.write(vec![update(Type::Modify, member(1, 3))]).await.unwrap();
    let group_entry = |et: u16| {
        E::TableEntry(p4v1::TableEntry {
            table_id: fixture::T_SEL,
            r#match: vec![exact(&et.to_be_bytes())],
            action: Some(p4v1::TableAction { r#type: Some(p4v1::table_action::Type::ActionProfileGroupId(10)) }),
            ..Default::default()
        })
    };
    c.write(vec![update(Type::Insert, group_entry(0x0800))]).await.unwrap();
    // one-shot: two actions with weights, installed as a hidden group
    let set = p4v1::ActionProfileActionSet {
        action_profile_actions: [(5u8, 1), (6u8, 2)]
            .iter()
            .map(|(port, w)| p4v1::ActionProfileAction {
                action: Some(p4v1::Action {
                    action_id: fixture::A_SET_PORT,
                    params: vec![p4v1::action::Param { param_id: 1, value: vec![*port] }],
                }),
                weight: *w,
                watch_kind: None,
            })
            .collect(),
        ..Default::default()
    };
    let one_shot = E::TableEntry(p4v1::TableEntry {
        table_id: fixture::T_SEL,
        r#match: vec![exact(&[0x86, 0xdd])],
        action: Some(p4v1::TableAction { r#type: Some(p4v1::table_action::Type::ActionProfileActionSet(set.clone())) }),
        ..Default::default()
    });
    c.write(vec![update(Type::Insert, one_shot.clone())]).await.unwrap();
    let got = c.read(vec![ent(entry(fixture::T_SEL, vec![exact(&[0x86, 0xdd])], None, 0))]).await.unwrap();
    assert_eq!(got, vec![ent(one_shot.clone())], "one-shot read back as its action set");
    let members = c.read(vec![ent(E::ActionProfileMember(p4v1::ActionProfileMember { action_profile_id: fixture::AP, ..Default::default() }))]).await.unwrap();
    assert_eq!(members, vec![ent(member(1, 3)), ent(member(2, 2))], "hidden one-shot members are not listed");
    let groups = c.read(vec![ent(E::ActionProfileGroup(p4v1::ActionProfileGroup { action_profile_id: fixture::AP, ..Default::default() }))]).await.unwrap();
    assert_eq!(groups, vec![ent(group(10, &[1, 2]))]);
    // packets follow the one-shot set
    let out = c.inject(1, &frame([1; 6], [2; 6], 0x86dd));
    assert!(out.iter().all(|(p, _)| *p == 5 || *p == 6) && out.len() == 1, "{out:?}");
    // deleting the entry removes the hidden objects
    c.write(vec![update(Type::Delete, one_shot)]).await.unwrap();
    // a member used by a group cannot go
    let e = c.write(vec![update(Type::Delete, member(1, 3))]).await.unwrap_err();
    assert_ne!(error_codes(&e), vec![Code::Ok as i32]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replication_engine_entries() {
    let mut c = loaded().await;
    use p4v1::packet_replication_engine_entry::Type as T;
    let rep = |port: u32, rid: u32| p4v1::Replica {
        instance: rid,
        backup_replicas: vec![],
        port_kind: Some(p4v1::replica::PortKind::EgressPort(port)),
    };
    let mc = |id: u32, reps: Vec<p4v1::Replica>| {
        E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
            r#type: Some(T::MulticastGroupEntry(p4v1::MulticastGroupEntry { multicast_group_id: id, replicas: reps, metadata: vec![] })),
        })
    };
    c.write(vec![update(Type::Insert, mc(1, vec![rep(1, 1), rep(2, 1)]))]).await.unwrap();
    let e = c.write(vec![update(Type::Insert, mc(1, vec![rep(3, 1)]))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::AlreadyExists as i32]);
    c.write(vec![update(Type::Modify, mc(1, vec![rep(3, 7)]))]).await.unwrap();
    assert_eq!(c.read(vec![ent(mc(1, vec![]))]).await.unwrap(), vec![ent(mc(1, vec![rep(3, 7)]))]);
    // port given as bytes is answered as bytes, in canonical form
    let bytes_rep = p4v1::Replica { instance: 1, backup_replicas: vec![], port_kind: Some(p4v1::replica::PortKind::Port(vec![0, 0, 0, 4])) };
    c.write(vec![update(Type::Insert, mc(2, vec![bytes_rep]))]).await.unwrap();
    let got = c.read(vec![ent(mc(2, vec![]))]).await.unwrap();
    let want = p4v1::Replica { instance: 1, backup_replicas: vec![], port_kind: Some(p4v1::replica::PortKind::Port(vec![4])) };
    assert_eq!(got, vec![ent(mc(2, vec![want]))]);
    assert_eq!(c.read(vec![ent(mc(0, vec![]))]).await.unwrap().len(), 2, "wildcard");
    c.write(vec![update(Type::Delete, mc(1, vec![]))]).await.unwrap();
    let e = c.write(vec![update(Type::Delete, mc(1, vec![]))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::NotFound as i32]);

    let cs = |id: u32, reps: Vec<p4v1::Replica>, len: i32| {
        E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
            r#type: Some(T::CloneSessionEntry(p4v1::CloneSessionEntry {
                session_id: id,
                replicas: reps,
                class_of_service: 0,
                packet_length_bytes: len,
            })),
        })
    };
    c.write(vec![update(Type::Insert, cs(5, vec![rep(9, 1)], 64))]).await.unwrap();
    assert_eq!(c.read(vec![ent(cs(5, vec![], 0))]).await.unwrap(), vec![ent(cs(5, vec![rep(9, 1)], 64))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn digests_are_batched_and_acknowledged() {
    let mut c = loaded().await;
    let cfg = p4v1::digest_entry::Config { max_timeout_ns: 0, max_list_size: 1, ack_timeout_ns: 10_000_000_000 };
    let de = E::DigestEntry(p4v1::DigestEntry { digest_id: fixture::D_DIGEST, config: Some(cfg) });
    c.write(vec![update(Type::Insert, de.clone())]).await.unwrap();
    let e = c.write(vec![update(Type::Insert, de.clone())]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::AlreadyExists as i32]);
    assert_eq!(c.read(vec![ent(E::DigestEntry(p4v1::DigestEntry { digest_id: 0, config: None }))]).await.unwrap(), vec![ent(de)]);
    c.write(vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1; 6])], action(fixture::A_LEARN, &[]), 0))])
        .await
        .unwrap();
    let src = [0, 0, 0, 0, 0, 0xaa];
    c.inject(3, &frame([1; 6], src, 0x1234));
    let list = c.next_message(|u| if let Out::Digest(d) = u { Some(d) } else { None }).await;
    assert_eq!(list.digest_id, fixture::D_DIGEST);
    let member = |v: &[u8]| p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(v.to_vec())) };
    let want = p4v1::P4Data {
        data: Some(p4v1::p4_data::Data::Struct(p4v1::P4StructLike { members: vec![member(&[0xaa]), member(&[3])] })),
    };
    assert_eq!(list.data, vec![want]);
    // the same data again is suppressed until acknowledged
    c.inject(3, &frame([1; 6], src, 0x1234));
    c.to_switch
        .send(p4v1::StreamMessageRequest {
            update: Some(p4v1::stream_message_request::Update::DigestAck(p4v1::DigestListAck {
                digest_id: list.digest_id,
                list_id: list.list_id,
            })),
        })
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    c.inject(3, &frame([1; 6], src, 0x1234));
    let again = c.next_message(|u| if let Out::Digest(d) = u { Some(d) } else { None }).await;
    assert!(again.list_id > list.list_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packet_in_and_packet_out() {
    let mut c = loaded().await;
    c.write(vec![
        update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1; 6])], action(fixture::A_TO_CPU, &[]), 0)),
        update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[2; 6])], action(fixture::A_SET_PORT, &[&[7]]), 0)),
    ])
    .await
    .unwrap();
    let f = frame([1; 6], [9; 6], 0x1234);
    c.inject(2, &f);
    let pin = c.next_message(|u| if let Out::Packet(p) = u { Some(p) } else { None }).await;
    assert_eq!(pin.payload, f, "no packet_in header in this program: the whole frame");
    // packet-out enters at the CPU port and follows the tables
    let out = frame([2; 6], [9; 6], 0x1234);
    c.to_switch
        .send(p4v1::StreamMessageRequest {
            update: Some(p4v1::stream_message_request::Update::Packet(p4v1::PacketOut { payload: out.clone(), metadata: vec![] })),
        })
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while c.sent.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(*c.sent.lock().unwrap(), vec![(7, out)]);
    // metadata the program does not declare is refused with a StreamError
    c.to_switch
        .send(p4v1::StreamMessageRequest {
            update: Some(p4v1::stream_message_request::Update::Packet(p4v1::PacketOut {
                payload: vec![1, 2, 3],
                metadata: vec![p4v1::PacketMetadata { metadata_id: 1, value: vec![1] }],
            })),
        })
        .await
        .unwrap();
    let err = c.next_message(|u| if let Out::Error(e) = u { Some(e) } else { None }).await;
    assert_eq!(err.canonical_code, Code::InvalidArgument as i32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_timeout_notification() {
    let mut c = loaded().await;
    let mut e = p4v1::TableEntry {
        table_id: fixture::T_EXACT,
        r#match: vec![exact(&[3; 6])],
        action: action(fixture::A_DROP, &[]),
        idle_timeout_ns: 200_000_000,
        ..Default::default()
    };
    c.write(vec![update(Type::Insert, E::TableEntry(e.clone()))]).await.unwrap();
    let note = c.next_message(|u| if let Out::IdleTimeoutNotification(n) = u { Some(n) } else { None }).await;
    assert_eq!(note.table_entry.len(), 1);
    assert_eq!(note.table_entry[0].r#match, e.r#match);
    assert_eq!(note.table_entry[0].table_id, fixture::T_EXACT);
    // idle timeout on a table without support is refused
    e.table_id = fixture::T_LPM;
    e.r#match = vec![lpm(&[0x0a, 0, 0, 0, 0, 0], 8)];
    let err = c.write(vec![update(Type::Insert, E::TableEntry(e))]).await.unwrap_err();
    assert_eq!(error_codes(&err), vec![Code::InvalidArgument as i32]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parser_value_sets() {
    let mut c = loaded().await;
    let vs = |members: &[&[u8]]| {
        E::ValueSetEntry(p4v1::ValueSetEntry {
            value_set_id: fixture::VS_PVS,
            members: members.iter().map(|v| p4v1::ValueSetMember { r#match: vec![exact(v)] }).collect(),
        })
    };
    c.write(vec![update(Type::Modify, vs(&[&[0x08, 0x00], &[0, 0, 0x86, 0xdd]]))]).await.unwrap();
    let got = c.read(vec![ent(vs(&[]))]).await.unwrap();
    assert_eq!(got, vec![ent(vs(&[&[0x08, 0x00], &[0x86, 0xdd]]))], "members in canonical form");
    let e = c.write(vec![update(Type::Insert, vs(&[&[1]]))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::InvalidArgument as i32], "value sets are only modified");
    let e = c.write(vec![update(Type::Modify, vs(&[&[1], &[2], &[3], &[4], &[5]]))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::ResourceExhausted as i32]);
    let e = c.write(vec![update(Type::Modify, vs(&[&[1, 0, 0]]))]).await.unwrap_err();
    assert_eq!(error_codes(&e), vec![Code::OutOfRange as i32], "17 bits in bit<16>");
    assert_eq!(c.read(vec![ent(vs(&[]))]).await.unwrap().len(), 1, "failed writes changed nothing");
}
