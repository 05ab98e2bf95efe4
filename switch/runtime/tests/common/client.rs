//! A P4Runtime client over real gRPC for the Rust tests and the benchmark:
//! starts a server on a free loopback port, opens a stream, becomes primary.

#![allow(dead_code)]

use std::sync::Arc;

use p4engine::{Switch, SwitchConfig};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4runtime_server::{spawn, ServerHandle, ServerOptions};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

/// Frames a server transmitted: (port, bytes).
pub type Sent = Arc<std::sync::Mutex<Vec<(u32, Vec<u8>)>>>;

pub struct Conn {
    pub server: Option<ServerHandle>,
    /// Frames the server transmitted (packet-out results): (port, bytes).
    pub sent: Sent,
    pub client: P4RuntimeClient<Channel>,
    pub to_switch: mpsc::Sender<p4v1::StreamMessageRequest>,
    pub from_switch: tonic::Streaming<p4v1::StreamMessageResponse>,
    pub election_id: u64,
}

pub fn election(id: u64) -> Option<p4v1::Uint128> {
    Some(p4v1::Uint128 { high: 0, low: id })
}

/// A channel that accepts 64 MiB of trailers, as the p4rt client does (the
/// per-update errors of a big failed batch; hyper's default is 16 KiB).
pub async fn channel(addr: std::net::SocketAddr) -> Channel {
    tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .expect("endpoint")
        .http2_max_header_list_size(64 << 20)
        .connect()
        .await
        .expect("connect")
}

pub async fn connect(addr: std::net::SocketAddr) -> P4RuntimeClient<Channel> {
    P4RuntimeClient::new(channel(addr).await)
        .max_decoding_message_size(256 << 20)
        .max_encoding_message_size(256 << 20)
}

/// Opens a stream and sends an arbitration request; returns the first answer.
pub async fn open_stream(
    client: &mut P4RuntimeClient<Channel>,
    election_id: u64,
) -> (mpsc::Sender<p4v1::StreamMessageRequest>, tonic::Streaming<p4v1::StreamMessageResponse>, p4v1::MasterArbitrationUpdate) {
    let (tx, rx) = mpsc::channel(64);
    tx.send(p4v1::StreamMessageRequest {
        update: Some(p4v1::stream_message_request::Update::Arbitration(p4v1::MasterArbitrationUpdate {
            device_id: 0,
            election_id: election(election_id),
            ..Default::default()
        })),
    })
    .await
    .unwrap();
    let mut incoming = client.stream_channel(ReceiverStream::new(rx)).await.expect("stream").into_inner();
    let first = incoming.next().await.expect("arbitration answer").expect("ok");
    let Some(p4v1::stream_message_response::Update::Arbitration(a)) = first.update else {
        panic!("expected an arbitration answer, got {first:?}")
    };
    (tx, incoming, a)
}

/// Server for a fresh switch (CPU port 64) + a primary client.
pub async fn start() -> Conn {
    start_with(ServerOptions { addr: "127.0.0.1:0".into(), ..Default::default() }).await
}

/// [`start`] with other server options.
pub async fn start_with(opts: ServerOptions) -> Conn {
    start_on(Arc::new(Switch::new(SwitchConfig { cpu_port: Some(64), ..Default::default() })), opts).await
}

/// [`start_with`] over a given switch (a program already loaded, as from
/// p4switch's command line).
pub async fn start_on(switch: Arc<Switch>, opts: ServerOptions) -> Conn {
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = sent.clone();
    let transmit = Arc::new(move |port: u32, frame: &[u8]| log.lock().unwrap().push((port, frame.to_vec())));
    let server = spawn(opts, switch, transmit).expect("server");
    let mut client = connect(server.local_addr()).await;
    let (to_switch, from_switch, a) = open_stream(&mut client, 10).await;
    assert_eq!(a.status.unwrap().code, 0, "first controller is primary");
    Conn { server: Some(server), sent, client, to_switch, from_switch, election_id: 10 }
}

impl Conn {
    pub fn device(&self) -> std::sync::Arc<p4runtime_server::Device> {
        self.server.as_ref().expect("server").device().clone()
    }

    /// Runs a frame through the switch as if received on `port`; frames the
    /// pipeline sends to the CPU port (64) go to the server as packet-ins.
    /// Returns the other outputs.
    pub fn inject(&self, port: u32, frame: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let dev = self.device();
        let mut w = dev.switch().new_worker();
        let mut out = Vec::new();
        dev.switch().process(&mut w, port, frame, &mut |p, f| out.push((p, f.to_vec())));
        let mut rest = Vec::new();
        for (p, f) in out {
            if p == 64 {
                dev.packet_in(&f);
            } else {
                rest.push((p, f));
            }
        }
        rest
    }

    /// The next stream message (within 5 s) that `pick` accepts.
    pub async fn next_message<T>(&mut self, pick: impl Fn(p4v1::stream_message_response::Update) -> Option<T>) -> T {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let msg = tokio::time::timeout_at(deadline, self.from_switch.next())
                .await
                .expect("stream message within 5 s")
                .expect("stream open")
                .expect("stream ok");
            if let Some(t) = msg.update.and_then(&pick) {
                return t;
            }
        }
    }

    pub async fn set_pipeline(&mut self, json: &str, p4info: p4runtime_server::proto::p4::config::v1::P4Info) -> Result<(), tonic::Status> {
        self.client
            .set_forwarding_pipeline_config(p4v1::SetForwardingPipelineConfigRequest {
                device_id: 0,
                election_id: election(self.election_id),
                action: p4v1::set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
                config: Some(p4v1::ForwardingPipelineConfig {
                    p4info: Some(p4info),
                    p4_device_config: json.as_bytes().to_vec(),
                    cookie: Some(p4v1::forwarding_pipeline_config::Cookie { cookie: 42 }),
                }),
                ..Default::default()
            })
            .await
            .map(|_| ())
    }

    pub async fn write(&mut self, updates: Vec<p4v1::Update>) -> Result<(), tonic::Status> {
        self.client
            .write(p4v1::WriteRequest { device_id: 0, election_id: election(self.election_id), updates, ..Default::default() })
            .await
            .map(|_| ())
    }

    pub async fn read(&mut self, entities: Vec<p4v1::Entity>) -> Result<Vec<p4v1::Entity>, tonic::Status> {
        let mut s = self.client.read(p4v1::ReadRequest { device_id: 0, entities, ..Default::default() }).await?.into_inner();
        let mut out = Vec::new();
        while let Some(r) = s.next().await {
            out.extend(r?.entities);
        }
        Ok(out)
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown();
        }
    }
}

pub fn update(t: p4v1::update::Type, e: p4v1::entity::Entity) -> p4v1::Update {
    p4v1::Update { r#type: t as i32, entity: Some(p4v1::Entity { entity: Some(e) }) }
}

pub fn exact(v: &[u8]) -> p4v1::FieldMatch {
    p4v1::FieldMatch {
        field_id: 1,
        field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: v.to_vec() })),
    }
}

pub fn lpm(v: &[u8], len: i32) -> p4v1::FieldMatch {
    p4v1::FieldMatch {
        field_id: 1,
        field_match_type: Some(p4v1::field_match::FieldMatchType::Lpm(p4v1::field_match::Lpm { value: v.to_vec(), prefix_len: len })),
    }
}

pub fn ternary(v: &[u8], m: &[u8]) -> p4v1::FieldMatch {
    p4v1::FieldMatch {
        field_id: 1,
        field_match_type: Some(p4v1::field_match::FieldMatchType::Ternary(p4v1::field_match::Ternary {
            value: v.to_vec(),
            mask: m.to_vec(),
        })),
    }
}

pub fn action(id: u32, params: &[&[u8]]) -> Option<p4v1::TableAction> {
    Some(p4v1::TableAction {
        r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
            action_id: id,
            params: params
                .iter()
                .enumerate()
                .map(|(i, v)| p4v1::action::Param { param_id: i as u32 + 1, value: v.to_vec() })
                .collect(),
        })),
    })
}

pub fn entry(table: u32, m: Vec<p4v1::FieldMatch>, a: Option<p4v1::TableAction>, prio: i32) -> p4v1::entity::Entity {
    p4v1::entity::Entity::TableEntry(p4v1::TableEntry { table_id: table, r#match: m, action: a, priority: prio, ..Default::default() })
}

/// The p4.v1.Error codes in a Write's status details.
pub fn error_codes(st: &tonic::Status) -> Vec<i32> {
    use prost::Message;
    let s = p4runtime_server::proto::google::rpc::Status::decode(st.details()).expect("rpc status details");
    s.details
        .iter()
        .map(|a| p4v1::Error::decode(a.value.as_slice()).expect("p4 error").canonical_code)
        .collect()
}

/// `e` as a P4Runtime entity.
pub fn ent(e: p4v1::entity::Entity) -> p4v1::Entity {
    p4v1::Entity { entity: Some(e) }
}

/// A minimum-size Ethernet frame (46 zero bytes of payload).
pub fn frame(dst: [u8; 6], src: [u8; 6], ethertype: u16) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(&[0u8; 46]);
    f
}
