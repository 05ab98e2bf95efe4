//! The tonic service `p4.v1.P4Runtime`: a thin adapter that moves messages
//! between gRPC and [`Device`]. Blocking engine work (writes, reads, pipeline
//! loads) runs on tokio's blocking pool so streams keep flowing.

#![allow(clippy::result_large_err)]

use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::device::Device;
use crate::proto::p4::v1 as p4v1;
use crate::proto::p4::v1::p4_runtime_server::P4Runtime;

/// Entities per ReadResponse message (keeps messages far below gRPC's 4 MiB
/// default limit on the client side).
const READ_CHUNK: usize = 1000;

/// Outgoing messages buffered per StreamChannel before new ones are dropped.
const STREAM_BUFFER: usize = 4096;

pub struct Service {
    device: Arc<Device>,
}

impl Service {
    pub fn new(device: Arc<Device>) -> Service {
        Service { device }
    }

    /// Reports an answered RPC to the metrics hook and passes the answer on.
    fn done<T>(&self, rpc: &'static str, start: Instant, r: Result<T, Status>) -> Result<T, Status> {
        let code = r.as_ref().err().map_or(tonic::Code::Ok, |s| s.code());
        self.device.stats.rpc_done(rpc, code, start);
        r
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, Status> + Send + 'static) -> Result<T, Status> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(Status::internal(format!("request handler failed: {e}"))),
    }
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl P4Runtime for Service {
    async fn write(&self, request: Request<p4v1::WriteRequest>) -> Result<Response<p4v1::WriteResponse>, Status> {
        let (start, dev, req) = (Instant::now(), self.device.clone(), request.into_inner());
        let r = blocking(move || dev.write(&req)).await;
        self.done("Write", start, r.map(|()| Response::new(p4v1::WriteResponse {})))
    }

    type ReadStream = BoxStream<p4v1::ReadResponse>;

    async fn read(&self, request: Request<p4v1::ReadRequest>) -> Result<Response<Self::ReadStream>, Status> {
        let (start, dev, req) = (Instant::now(), self.device.clone(), request.into_inner());
        let entities = self.done("Read", start, blocking(move || dev.read(&req).map_err(Status::from)).await)?;
        let mut messages = Vec::with_capacity(entities.len() / READ_CHUNK + 1);
        let mut it = entities.into_iter().peekable();
        loop {
            let chunk: Vec<p4v1::Entity> = it.by_ref().take(READ_CHUNK).collect();
            messages.push(Ok(p4v1::ReadResponse { entities: chunk }));
            if it.peek().is_none() {
                break;
            }
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(messages))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<p4v1::SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<p4v1::SetForwardingPipelineConfigResponse>, Status> {
        let (start, dev, req) = (Instant::now(), self.device.clone(), request.into_inner());
        let r = blocking(move || dev.set_pipeline(&req).map_err(Status::from)).await;
        self.done("SetForwardingPipelineConfig", start, r.map(|()| Response::new(p4v1::SetForwardingPipelineConfigResponse {})))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        request: Request<p4v1::GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<p4v1::GetForwardingPipelineConfigResponse>, Status> {
        let start = Instant::now();
        let r = self.device.get_pipeline(request.get_ref()).map(Response::new).map_err(Status::from);
        self.done("GetForwardingPipelineConfig", start, r)
    }

    type StreamChannelStream = BoxStream<p4v1::StreamMessageResponse>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<p4v1::StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let start = Instant::now();
        let mut incoming = request.into_inner();
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let dev = self.device.clone();
        let id = dev.open_stream(tx.clone());
        tokio::spawn(async move {
            // Ends when the client closes its side or the connection breaks.
            while let Some(Ok(msg)) = incoming.next().await {
                let d = dev.clone();
                match tokio::task::spawn_blocking(move || d.stream_message(id, msg)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        let _ = tx.send(Err(Status::from(e))).await;
                        break;
                    }
                    Err(e) => {
                        let _ = tx.send(Err(Status::internal(format!("stream handler failed: {e}")))).await;
                        break;
                    }
                }
            }
            dev.close_stream(id);
        });
        self.done("StreamChannel", start, Ok(Response::new(Box::pin(ReceiverStream::new(rx)) as Self::StreamChannelStream)))
    }

    async fn capabilities(
        &self,
        _request: Request<p4v1::CapabilitiesRequest>,
    ) -> Result<Response<p4v1::CapabilitiesResponse>, Status> {
        let start = Instant::now();
        self.done("Capabilities", start, Ok(Response::new(self.device.capabilities())))
    }
}
