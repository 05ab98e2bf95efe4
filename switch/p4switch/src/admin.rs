//! The admin gRPC service `p4switch.admin.v1.Admin`
//! (`proto/p4switch_admin.proto`): set_queue_depth / set_queue_rate and the
//! queue counters, and the digest counters of the P4Runtime server
//! (`--max-digest-rate`), served beside P4Runtime on the same address.
//!
//! The logic is plain functions over [`Ports`] ([`set_depth`], [`set_rate`],
//! [`queues`]) and the server's device ([`digests`]) that the unit tests call directly; [`AdminServer`] is the thin
//! gRPC adapter (messages derived with prost to the .proto's field numbers,
//! the routing written out as tonic's generator would write it, so the build
//! needs no protoc).

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::codegen::{empty_body, http, Body, BoxFuture, StdError};
use tonic::{Code, Status};

use p4runtime_server::DigestStats;

use crate::grpc::DeviceSlot;
use crate::ports::Ports;
use crate::queues::{check_depth, check_rate};

#[derive(Clone, PartialEq, prost::Message)]
pub struct SetQueueDepthRequest {
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    #[prost(uint32, tag = "2")]
    pub depth: u32,
    #[prost(uint32, optional, tag = "3")]
    pub port: Option<u32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SetQueueRateRequest {
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    #[prost(uint64, tag = "2")]
    pub rate_pps: u64,
    #[prost(uint32, optional, tag = "3")]
    pub port: Option<u32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetQueuesRequest {
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct QueueState {
    #[prost(uint32, tag = "1")]
    pub port: u32,
    #[prost(string, tag = "2")]
    pub interface: String,
    #[prost(uint32, tag = "3")]
    pub depth: u32,
    #[prost(uint64, tag = "4")]
    pub rate_pps: u64,
    #[prost(uint64, tag = "5")]
    pub transmitted: u64,
    #[prost(uint64, tag = "6")]
    pub dropped: u64,
    #[prost(uint64, tag = "7")]
    pub received: u64,
    #[prost(uint64, tag = "8")]
    pub rx_dropped: u64,
    #[prost(uint32, tag = "9")]
    pub delay_us: u32,
    #[prost(uint64, tag = "10")]
    pub rx_delay_dropped: u64,
    #[prost(uint64, tag = "11")]
    pub delay_dropped: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct QueueReply {
    #[prost(message, repeated, tag = "1")]
    pub queues: Vec<QueueState>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetDigestsRequest {
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
}

/// What became of the digests the data plane raised (see `DigestStats`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DigestReply {
    #[prost(uint64, tag = "1")]
    pub max_rate: u64,
    #[prost(uint64, tag = "2")]
    pub sent: u64,
    #[prost(uint64, tag = "3")]
    pub lists: u64,
    #[prost(uint64, tag = "4")]
    pub rate_dropped: u64,
    #[prost(uint64, tag = "5")]
    pub suppressed: u64,
    #[prost(uint64, tag = "6")]
    pub unconfigured: u64,
    #[prost(uint64, tag = "7")]
    pub queue_overflow: u64,
    #[prost(uint64, tag = "8")]
    pub no_pipeline: u64,
    #[prost(uint64, tag = "9")]
    pub stream_full: u64,
    #[prost(uint64, tag = "10")]
    pub no_primary: u64,
    #[prost(uint64, tag = "11")]
    pub discarded: u64,
}

impl From<DigestStats> for DigestReply {
    fn from(s: DigestStats) -> Self {
        DigestReply {
            max_rate: s.max_rate,
            sent: s.accepted,
            lists: s.lists,
            rate_dropped: s.rate_dropped,
            suppressed: s.suppressed,
            unconfigured: s.unconfigured,
            queue_overflow: s.queue_overflow,
            no_pipeline: s.no_pipeline,
            stream_full: s.stream_full,
            no_primary: s.no_primary,
            discarded: s.discarded,
        }
    }
}

/// The service's name on the wire.
pub const SERVICE: &str = "p4switch.admin.v1.Admin";

fn check_device(device: u64, asked: u64) -> Result<(), Status> {
    if device != asked {
        return Err(Status::not_found(format!("device {asked} does not exist (this switch is device {device})")));
    }
    Ok(())
}

/// Positions of the ports a request names (all ports when `port` is absent).
fn selected(ports: &Ports, port: Option<u32>) -> Result<Vec<usize>, Status> {
    match port {
        None => Ok((0..ports.ports.len()).collect()),
        Some(p) => match ports.position(p) {
            Some(i) => Ok(vec![i]),
            None => Err(Status::not_found(format!("port {p} is not attached to an interface"))),
        },
    }
}

fn state(ports: &Ports, positions: &[usize]) -> QueueReply {
    let queues = positions
        .iter()
        .map(|&i| {
            let p = &ports.ports[i];
            let g = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
            QueueState {
                port: p.number,
                interface: p.iface.clone(),
                depth: p.queue.depth(),
                rate_pps: p.queue.rate_pps(),
                transmitted: g(&p.stats.tx),
                dropped: g(&p.stats.tx_dropped),
                received: g(&p.stats.rx),
                rx_dropped: g(&p.stats.rx_dropped),
                delay_us: (p.queue.max_wait_ns() / 1000) as u32,
                rx_delay_dropped: g(&p.stats.rx_late),
                delay_dropped: g(&p.stats.tx_late),
            }
        })
        .collect();
    QueueReply { queues }
}

/// `set_queue_depth DEPTH [PORT]`. Nothing changes unless the request is valid.
pub fn set_depth(ports: &Ports, device: u64, r: &SetQueueDepthRequest) -> Result<QueueReply, Status> {
    check_device(device, r.device_id)?;
    let sel = selected(ports, r.port)?;
    check_depth(r.depth).map_err(Status::invalid_argument)?;
    for &i in &sel {
        ports.ports[i].queue.set_depth(r.depth).map_err(Status::invalid_argument)?;
    }
    Ok(state(ports, &sel))
}

/// `set_queue_rate RATE_PPS [PORT]` (0: unlimited).
pub fn set_rate(ports: &Ports, device: u64, r: &SetQueueRateRequest) -> Result<QueueReply, Status> {
    check_device(device, r.device_id)?;
    let sel = selected(ports, r.port)?;
    check_rate(r.rate_pps).map_err(Status::invalid_argument)?;
    for &i in &sel {
        ports.ports[i].queue.set_rate(r.rate_pps).map_err(Status::invalid_argument)?;
    }
    Ok(state(ports, &sel))
}

/// Settings and counters of every port.
pub fn queues(ports: &Ports, device: u64, r: &GetQueuesRequest) -> Result<QueueReply, Status> {
    check_device(device, r.device_id)?;
    Ok(state(ports, &(0..ports.ports.len()).collect::<Vec<_>>()))
}

/// The digest counters of the P4Runtime server.
pub fn digests(slot: &DeviceSlot, device: u64, r: &GetDigestsRequest) -> Result<DigestReply, Status> {
    check_device(device, r.device_id)?;
    let dev = slot.get().ok_or_else(|| Status::unavailable("the P4Runtime server is not running"))?;
    Ok(dev.digest_stats().into())
}

/// The gRPC adapter; add it to the server with [`AdminServer::routes`].
#[derive(Clone)]
pub struct AdminServer {
    ports: Arc<Ports>,
    device: u64,
    p4runtime: DeviceSlot,
}

impl AdminServer {
    /// `p4runtime` holds the P4Runtime server's device once it runs.
    pub fn new(ports: Arc<Ports>, device: u64, p4runtime: DeviceSlot) -> AdminServer {
        AdminServer { ports, device, p4runtime }
    }

    /// The service as routes for a tonic server.
    pub fn routes(self) -> tonic::service::Routes {
        tonic::service::Routes::new(self)
    }
}

impl tonic::server::NamedService for AdminServer {
    const NAME: &'static str = SERVICE;
}

/// One unary method: decodes `Req`, runs `f` on the server's state, encodes the reply.
struct Unary<Req, Resp> {
    server: AdminServer,
    f: fn(&AdminServer, &Req) -> Result<Resp, Status>,
}

impl<Req, Resp> Clone for Unary<Req, Resp> {
    fn clone(&self) -> Self {
        Unary { server: self.server.clone(), f: self.f }
    }
}

impl<Req, Resp> tonic::server::UnaryService<Req> for Unary<Req, Resp>
where
    Req: prost::Message + Default + Send + 'static,
    Resp: prost::Message + Send + 'static,
{
    type Response = Resp;
    type Future = BoxFuture<tonic::Response<Resp>, Status>;
    fn call(&mut self, request: tonic::Request<Req>) -> Self::Future {
        let (server, f) = (self.server.clone(), self.f);
        Box::pin(async move { f(&server, request.get_ref()).map(tonic::Response::new) })
    }
}

fn unary<Req, Resp, B>(method: Unary<Req, Resp>, req: http::Request<B>) -> BoxFuture<http::Response<tonic::body::BoxBody>, Infallible>
where
    Req: prost::Message + Default + Send + 'static,
    Resp: prost::Message + Send + 'static,
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    Box::pin(async move {
        let mut grpc = tonic::server::Grpc::new(tonic::codec::ProstCodec::<Resp, Req>::default());
        Ok(grpc.unary(method, req).await)
    })
}

impl<B> tonic::codegen::Service<http::Request<B>> for AdminServer
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::BoxBody>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let server = self.clone();
        match req.uri().path() {
            "/p4switch.admin.v1.Admin/SetQueueDepth" => unary(Unary { server, f: |s, r| set_depth(&s.ports, s.device, r) }, req),
            "/p4switch.admin.v1.Admin/SetQueueRate" => unary(Unary { server, f: |s, r| set_rate(&s.ports, s.device, r) }, req),
            "/p4switch.admin.v1.Admin/GetQueues" => unary(Unary { server, f: |s, r| queues(&s.ports, s.device, r) }, req),
            "/p4switch.admin.v1.Admin/GetDigests" => unary(Unary { server, f: |s, r| digests(&s.p4runtime, s.device, r) }, req),
            _ => Box::pin(async move {
                let mut response = http::Response::new(empty_body());
                let headers = response.headers_mut();
                headers.insert(Status::GRPC_STATUS, (Code::Unimplemented as i32).into());
                headers.insert(http::header::CONTENT_TYPE, tonic::metadata::GRPC_CONTENT_TYPE);
                Ok(response)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_ports() -> Ports {
        // Loopback twice under two numbers: enough for the settings (no frames move).
        Ports::open(&[(1, "lo".to_string()), (7, "lo".to_string())], None, 256).unwrap()
    }

    #[test]
    fn depth_and_rate_change_one_port_or_all_and_bad_requests_change_nothing() {
        let ports = two_ports();
        let r = set_depth(&ports, 0, &SetQueueDepthRequest { device_id: 0, depth: 64, port: Some(7) }).unwrap();
        assert_eq!(r.queues.len(), 1);
        assert_eq!((r.queues[0].port, r.queues[0].depth), (7, 64));
        let all = queues(&ports, 0, &GetQueuesRequest { device_id: 0 }).unwrap();
        assert_eq!(all.queues.iter().map(|q| (q.port, q.depth)).collect::<Vec<_>>(), vec![(1, 256), (7, 64)]);

        let r = set_rate(&ports, 0, &SetQueueRateRequest { device_id: 0, rate_pps: 1000, port: None }).unwrap();
        assert!(r.queues.iter().all(|q| q.rate_pps == 1000));

        let e = set_depth(&ports, 0, &SetQueueDepthRequest { device_id: 0, depth: 0, port: None }).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = set_depth(&ports, 0, &SetQueueDepthRequest { device_id: 0, depth: 32, port: Some(9) }).unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        assert!(e.message().contains("port 9"), "{}", e.message());
        let e = set_rate(&ports, 0, &SetQueueRateRequest { device_id: 3, rate_pps: 5, port: None }).unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        let after = queues(&ports, 0, &GetQueuesRequest { device_id: 0 }).unwrap();
        assert_eq!(after.queues.iter().map(|q| (q.depth, q.rate_pps)).collect::<Vec<_>>(), vec![(256, 1000), (64, 1000)]);
    }

    #[test]
    fn digest_counters_come_from_the_p4runtime_device() {
        let slot = DeviceSlot::default();
        let e = digests(&slot, 0, &GetDigestsRequest { device_id: 0 }).unwrap_err();
        assert_eq!(e.code(), Code::Unavailable);
        let dev = p4runtime_server::Device::new(Arc::new(p4engine::Switch::new(Default::default())), None);
        dev.set_max_digest_rate(250);
        let _ = slot.set(Arc::new(dev));
        let r = digests(&slot, 0, &GetDigestsRequest { device_id: 0 }).unwrap();
        assert_eq!((r.max_rate, r.sent, r.rate_dropped), (250, 0, 0));
        assert_eq!((r.no_pipeline, r.stream_full, r.no_primary, r.discarded), (0, 0, 0, 0));
        assert_eq!(digests(&slot, 0, &GetDigestsRequest { device_id: 4 }).unwrap_err().code(), Code::NotFound);
    }

    #[test]
    fn messages_use_the_proto_field_numbers() {
        use prost::Message;
        let b = SetQueueDepthRequest { device_id: 1, depth: 64, port: Some(2) }.encode_to_vec();
        // field 1 varint 1, field 2 varint 64, field 3 varint 2
        assert_eq!(b, vec![0x08, 1, 0x10, 64, 0x18, 2]);
        let none = SetQueueRateRequest { device_id: 0, rate_pps: 0, port: None }.encode_to_vec();
        assert!(none.is_empty(), "an absent port is not sent");
        let zero_port = SetQueueRateRequest { device_id: 0, rate_pps: 0, port: Some(0) }.encode_to_vec();
        assert_eq!(zero_port, vec![0x18, 0], "port 0 is sent (proto3 optional)");
    }
}
