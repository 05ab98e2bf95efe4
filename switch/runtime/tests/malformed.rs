//! No request, however malformed, crashes the server: valid requests of every
//! kind are mutated (byte flips, truncation, insertion) with a fixed-seed
//! generator, decoded, and run through the device's RPC methods. Afterwards
//! the device still answers correctly.

mod common;

use std::sync::Arc;

use common::client::{action, entry, exact, lpm, ternary, update};
use common::fixture;
use p4engine::{Switch, SwitchConfig};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::Device;
use p4v1::entity::Entity as E;
use p4v1::update::Type;
use prost::Message;
use tokio_stream::StreamExt;
use tonic::Code;

/// xorshift64*: a fixed-seed generator, so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(4) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(b.len() + 1);
                b.insert(i, rng.next() as u8);
            }
            _ => {
                let n = rng.below(b.len() + 1);
                b.truncate(n);
            }
        }
    }
    b
}

fn election() -> Option<p4v1::Uint128> {
    Some(p4v1::Uint128 { high: 0, low: 1 })
}

fn corpus() -> Vec<p4v1::Update> {
    use p4v1::packet_replication_engine_entry::Type as Pre;
    let rep = p4v1::Replica { instance: 1, backup_replicas: vec![], port_kind: Some(p4v1::replica::PortKind::EgressPort(3)) };
    vec![
        update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1, 2, 3, 4, 5, 6])], action(fixture::A_SET_PORT, &[&[1, 0]]), 0)),
        update(Type::Insert, entry(fixture::T_LPM, vec![lpm(&[10, 0, 0, 0, 0, 0], 8)], action(fixture::A_DROP, &[]), 0)),
        update(Type::Insert, entry(fixture::T_TERN, vec![ternary(&[8, 0], &[255, 255])], action(fixture::A_SET_PORT, &[&[2]]), 3)),
        update(
            Type::Insert,
            E::ActionProfileMember(p4v1::ActionProfileMember {
                action_profile_id: fixture::AP,
                member_id: 1,
                action: action(fixture::A_SET_PORT, &[&[1]]).and_then(|a| match a.r#type {
                    Some(p4v1::table_action::Type::Action(a)) => Some(a),
                    _ => None,
                }),
            }),
        ),
        update(
            Type::Insert,
            E::ActionProfileGroup(p4v1::ActionProfileGroup {
                action_profile_id: fixture::AP,
                group_id: 2,
                members: vec![p4v1::action_profile_group::Member { member_id: 1, weight: 1, watch_kind: None }],
                max_size: 4,
            }),
        ),
        update(
            Type::Modify,
            E::CounterEntry(p4v1::CounterEntry {
                counter_id: fixture::C_PKTS,
                index: Some(p4v1::Index { index: 1 }),
                data: Some(p4v1::CounterData { byte_count: 1, packet_count: 1 }),
            }),
        ),
        update(
            Type::Modify,
            E::MeterEntry(p4v1::MeterEntry {
                meter_id: fixture::M_POLICER,
                index: Some(p4v1::Index { index: 1 }),
                config: Some(p4v1::MeterConfig { cir: 1, cburst: 1, pir: 2, pburst: 2, eburst: 0 }),
                counter_data: None,
            }),
        ),
        update(
            Type::Modify,
            E::RegisterEntry(p4v1::RegisterEntry {
                register_id: fixture::R_REG,
                index: Some(p4v1::Index { index: 1 }),
                data: Some(p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(vec![1])) }),
            }),
        ),
        update(
            Type::Insert,
            E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
                r#type: Some(Pre::MulticastGroupEntry(p4v1::MulticastGroupEntry {
                    multicast_group_id: 1,
                    replicas: vec![rep.clone()],
                    metadata: vec![],
                })),
            }),
        ),
        update(
            Type::Insert,
            E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
                r#type: Some(Pre::CloneSessionEntry(p4v1::CloneSessionEntry {
                    session_id: 1,
                    replicas: vec![rep],
                    class_of_service: 0,
                    packet_length_bytes: 0,
                })),
            }),
        ),
        update(
            Type::Modify,
            E::ValueSetEntry(p4v1::ValueSetEntry {
                value_set_id: fixture::VS_PVS,
                members: vec![p4v1::ValueSetMember { r#match: vec![exact(&[8, 0])] }],
            }),
        ),
        update(
            Type::Insert,
            E::DigestEntry(p4v1::DigestEntry {
                digest_id: fixture::D_DIGEST,
                config: Some(p4v1::digest_entry::Config { max_timeout_ns: 1, max_list_size: 1, ack_timeout_ns: 1 }),
            }),
        ),
    ]
}

#[test]
fn mutated_requests_never_crash_the_server() {
    let switch = Arc::new(Switch::new(SwitchConfig { cpu_port: Some(64), ..Default::default() }));
    let dev = Device::new(switch, None);
    let (tx, _rx) = tokio::sync::mpsc::channel(1 << 16);
    let stream = dev.open_stream(tx.clone());
    let arb = p4v1::StreamMessageRequest {
        update: Some(p4v1::stream_message_request::Update::Arbitration(p4v1::MasterArbitrationUpdate {
            device_id: 0,
            election_id: election(),
            ..Default::default()
        })),
    };
    dev.stream_message(stream, arb).expect("primary");
    let config = p4v1::ForwardingPipelineConfig {
        p4info: Some(fixture::p4info()),
        p4_device_config: fixture::JSON.as_bytes().to_vec(),
        cookie: None,
    };
    let set = |config: p4v1::ForwardingPipelineConfig, action: p4v1::set_forwarding_pipeline_config_request::Action| {
        dev.set_pipeline(&p4v1::SetForwardingPipelineConfigRequest {
            device_id: 0,
            election_id: election(),
            action: action as i32,
            config: Some(config),
            ..Default::default()
        })
    };
    use p4v1::set_forwarding_pipeline_config_request::Action as A;
    set(config.clone(), A::VerifyAndCommit).expect("pipeline");

    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let updates: Vec<Vec<u8>> = corpus().iter().map(|u| u.encode_to_vec()).collect();
    let p4info_bytes = fixture::p4info().encode_to_vec();
    let (mut decoded, mut applied) = (0, 0);
    for round in 0..20_000 {
        let base = &updates[rng.below(updates.len())];
        let bytes = mutate(&mut rng, base);
        if let Ok(u) = p4v1::Update::decode(bytes.as_slice()) {
            let req = p4v1::WriteRequest { device_id: 0, election_id: election(), updates: vec![u.clone()], ..Default::default() };
            decoded += 1;
            applied += dev.write(&req).is_ok() as u32;
            // the same entity as a read request
            if let Some(e) = u.entity {
                let _ = dev.read(&p4v1::ReadRequest { device_id: 0, entities: vec![e], ..Default::default() });
            }
        }
        if let Ok(m) = p4v1::StreamMessageRequest::decode(bytes.as_slice()) {
            // on a stream of its own, so a mutated arbitration cannot demote
            // the primary the writes above come from
            let s2 = dev.open_stream(tx.clone());
            let _ = dev.stream_message(s2, m);
            dev.close_stream(s2);
        }
        if round % 100 == 0 {
            let mutated = mutate(&mut rng, &p4info_bytes);
            if let Ok(p4info) = p4runtime_server::proto::p4::config::v1::P4Info::decode(mutated.as_slice()) {
                let cfg = p4v1::ForwardingPipelineConfig { p4info: Some(p4info), ..config.clone() };
                let _ = set(cfg, A::Verify);
            }
            let json = mutate(&mut rng, fixture::JSON.as_bytes());
            let _ = set(p4v1::ForwardingPipelineConfig { p4_device_config: json, ..config.clone() }, A::Verify);
        }
    }

    eprintln!("{decoded} mutated updates decoded, {applied} applied");
    assert!(decoded > 1000 && applied > 0, "the mutations must reach the device");

    // still answering: a fresh pipeline, a valid write and read
    set(config, A::VerifyAndCommit).expect("pipeline again");
    let ok = p4v1::WriteRequest { device_id: 0, election_id: election(), updates: vec![corpus().remove(0)], ..Default::default() };
    dev.write(&ok).expect("valid write after the storm");
    let read = p4v1::ReadRequest {
        device_id: 0,
        entities: vec![p4v1::Entity { entity: Some(entry(fixture::T_EXACT, vec![], None, 0)) }],
        ..Default::default()
    };
    assert_eq!(dev.read(&read).expect("read").len(), 1);
}

/// Raw protobuf bytes as a gRPC message: mutated requests go over the wire
/// as they are, so the server's own decoding is exercised too.
#[derive(Clone, Default)]
struct RawCodec;
struct Raw;
impl tonic::codec::Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        use bytes::BufMut;
        dst.put_slice(&item);
        Ok(())
    }
}
impl tonic::codec::Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        use bytes::Buf;
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}
impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_requests_over_grpc_never_crash_the_server() {
    use p4v1::set_forwarding_pipeline_config_request::Action as A;
    let mut c = common::client::start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");
    let addr = c.server.as_ref().expect("server").local_addr();
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .expect("endpoint")
        .http2_max_header_list_size(64 << 20)
        .connect()
        .await
        .expect("connect");
    let mut grpc = tonic::client::Grpc::new(channel).max_decoding_message_size(256 << 20);
    let elect = Some(p4v1::Uint128 { high: 0, low: 10 });
    let updates = corpus();
    let config = p4v1::ForwardingPipelineConfig {
        p4info: Some(fixture::p4info()),
        p4_device_config: fixture::JSON.as_bytes().to_vec(),
        cookie: None,
    };
    let path = |m: &str| tonic::codegen::http::uri::PathAndQuery::from_str(&format!("/p4.v1.P4Runtime/{m}")).unwrap();
    use std::str::FromStr;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut codes: std::collections::BTreeMap<String, u32> = Default::default();
    const REQUESTS: u32 = 10_000;
    for n in 0..REQUESTS {
        let (method, base) = match rng.below(10) {
            0..=5 => {
                // mostly well-formed protobuf carrying mutated updates (they reach
                // the device), else mutated bytes of the whole request (below)
                let k = 1 + rng.below(3);
                let mut batch = Vec::new();
                for _ in 0..k {
                    let u = &updates[rng.below(updates.len())];
                    let m = mutate(&mut rng, &u.encode_to_vec());
                    batch.push(p4v1::Update::decode(m.as_slice()).unwrap_or_else(|_| u.clone()));
                }
                let w = p4v1::WriteRequest { device_id: 0, election_id: elect, updates: batch, ..Default::default() };
                if rng.below(3) != 0 {
                    ("Write", w.encode_to_vec())
                } else {
                    ("Write", mutate(&mut rng, &w.encode_to_vec()))
                }
            }
            6..=7 => {
                let e = updates[rng.below(updates.len())].entity.clone();
                ("Read", p4v1::ReadRequest { device_id: 0, entities: e.into_iter().collect(), ..Default::default() }.encode_to_vec())
            }
            8 if n % 20 == 0 => {
                // a mutated pipeline: VERIFY only, so the fixture stays loaded
                let mut cfg = config.clone();
                if rng.below(2) == 0 {
                    cfg.p4_device_config = mutate(&mut rng, &cfg.p4_device_config);
                }
                let req = p4v1::SetForwardingPipelineConfigRequest {
                    device_id: 0,
                    election_id: elect,
                    action: A::Verify as i32,
                    config: Some(cfg),
                    ..Default::default()
                };
                ("SetForwardingPipelineConfig", req.encode_to_vec())
            }
            8 => ("GetForwardingPipelineConfig", p4v1::GetForwardingPipelineConfigRequest { device_id: 0, response_type: rng.below(5) as i32 }.encode_to_vec()),
            _ => ("Capabilities", p4v1::CapabilitiesRequest::default().encode_to_vec()),
        };
        let mut bytes = if method == "Write" { base } else { mutate(&mut rng, &base) };
        if method == "SetForwardingPipelineConfig" {
            // never let a mutation turn VERIFY into a commit of something else
            if let Ok(mut r) = p4v1::SetForwardingPipelineConfigRequest::decode(bytes.as_slice()) {
                r.action = A::Verify as i32;
                bytes = r.encode_to_vec();
            }
        }
        grpc.ready().await.expect("server still accepts requests");
        let req = tonic::Request::new(bytes);
        let code = if method == "Read" {
            match grpc.server_streaming(req, path(method), RawCodec).await {
                Ok(resp) => {
                    let mut s = resp.into_inner();
                    let mut code = Code::Ok;
                    while let Some(m) = s.next().await {
                        if let Err(st) = m {
                            let undecodable = st.code() == Code::Internal && st.message().contains("decode");
                            assert!(st.code() != Code::Internal || undecodable, "Read request {n}: {st:?}");
                            code = if undecodable { Code::DataLoss } else { st.code() };
                        }
                    }
                    code
                }
                Err(st) => {
                    let undecodable = st.code() == Code::Internal && st.message().contains("decode");
                    assert!(st.code() != Code::Internal || undecodable, "Read request {n}: {st:?}");
                    if undecodable { Code::DataLoss } else { st.code() }
                }
            }
        } else {
            match grpc.unary(req, path(method), RawCodec).await {
                Ok(_) => Code::Ok,
                Err(st) => {
                    assert!(!st.message().contains("handler failed"), "{method} request {n} crashed a handler: {}", st.message());
                    // bytes that are not a protobuf message: gRPC's own answer
                    // (tonic, like grpc C++, says INTERNAL); the device never saw them
                    let undecodable = st.code() == Code::Internal && st.message().contains("decode");
                    assert!(st.code() != Code::Internal || undecodable, "{method} request {n}: {st:?}");
                    if undecodable { Code::DataLoss } else { st.code() }
                }
            }
        };

        assert_ne!(code, Code::Unavailable, "{method} request {n}: the server went away");
        // (DataLoss here stands for "not protobuf, refused by gRPC itself")
        *codes.entry(format!("{method} {code:?}")).or_default() += 1;
    }
    eprintln!("{REQUESTS} mutated requests over gRPC: {codes:?}");
    let answered: u32 = codes.values().sum();
    assert_eq!(answered, REQUESTS);
    assert!(codes.keys().filter(|k| k.starts_with("Write")).count() >= 3, "writes got several distinct answers");
    // still serving the fixture, still writable
    let key = vec![exact(&[0xab, 0xcd, 0xef, 1, 2, 3])];
    let fresh = entry(fixture::T_EXACT, key.clone(), action(fixture::A_DROP, &[]), 0);
    c.write(vec![update(Type::Insert, fresh)]).await.expect("valid write after the storm");
    let got = c.read(vec![p4v1::Entity { entity: Some(entry(fixture::T_EXACT, key, None, 0)) }]).await.expect("read");
    assert_eq!(got.len(), 1);
}
