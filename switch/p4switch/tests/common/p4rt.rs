//! A P4Runtime primary for the tests that drive a real switch over gRPC:
//! connect, win arbitration, commit a pipeline.

use p4runtime_server::proto::p4::config::v1::P4Info;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::p4_runtime_client::P4RuntimeClient;
use tonic::transport::Channel;

/// The election id every test client uses.
pub const ELECTION: Option<p4v1::Uint128> = Some(p4v1::Uint128 { high: 0, low: 1 });

/// A client that stays primary for device 0 while this value lives (it holds
/// the arbitration stream open).
pub struct Primary {
    pub client: P4RuntimeClient<Channel>,
    _requests: tokio::sync::mpsc::Sender<p4v1::StreamMessageRequest>,
    /// The arbitration stream: digests, idle-timeout notifications and
    /// packet-ins arrive here.
    pub stream: tonic::Streaming<p4v1::StreamMessageResponse>,
}

impl Primary {
    /// Connects to `addr` (big message limits, for big batches), wins
    /// arbitration and commits `p4info` with the BMv2 JSON `json`.
    pub async fn with_pipeline(addr: &str, p4info: P4Info, json: Vec<u8>) -> Primary {
        let mut client = P4RuntimeClient::connect(format!("http://{addr}"))
            .await
            .expect("connect")
            .max_decoding_message_size(64 << 20)
            .max_encoding_message_size(256 << 20);
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let arbitration = p4v1::MasterArbitrationUpdate { device_id: 0, election_id: ELECTION, ..Default::default() };
        tx.send(p4v1::StreamMessageRequest { update: Some(p4v1::stream_message_request::Update::Arbitration(arbitration)) })
            .await
            .expect("arbitration");
        let mut stream =
            client.stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx)).await.expect("stream").into_inner();
        let first = stream.message().await.expect("arbitration reply").expect("a message");
        assert!(matches!(first.update, Some(p4v1::stream_message_response::Update::Arbitration(_))), "{first:?}");
        client
            .set_forwarding_pipeline_config(p4v1::SetForwardingPipelineConfigRequest {
                device_id: 0,
                election_id: ELECTION,
                action: p4v1::set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
                config: Some(p4v1::ForwardingPipelineConfig { p4info: Some(p4info), p4_device_config: json, cookie: None }),
                ..Default::default()
            })
            .await
            .expect("set pipeline");
        Primary { client, _requests: tx, stream }
    }
}

/// A Write of `updates` to device 0 as the primary.
pub fn write(updates: Vec<p4v1::Update>) -> p4v1::WriteRequest {
    p4v1::WriteRequest { device_id: 0, election_id: ELECTION, updates, ..Default::default() }
}
