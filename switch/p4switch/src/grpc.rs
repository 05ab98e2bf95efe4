//! Starting the P4Runtime server (crate `p4runtime-server`) next to the data
//! plane: it gets the shared [`Switch`] and a transmit function for the frames
//! that packet-out produces; the data plane hands it every frame the pipeline
//! sends to the CPU port (packet-in).

use std::sync::Arc;

use p4engine::Switch;
use p4runtime_server::{ServerHandle, ServerOptions, TlsOptions, Transmit};

use crate::cli::{Level, Options};
use crate::log_at;
use crate::ports::PacketInSink;

/// A running P4Runtime server; [`Server::stop`] shuts it down.
pub struct Server {
    /// The address it listens on.
    pub addr: String,
    /// Where the data plane hands packets sent to the CPU port.
    pub packet_in: Option<PacketInSink>,
    handle: Option<ServerHandle>,
}

impl Server {
    /// Stops serving and joins the server threads.
    pub fn stop(mut self) {
        if let Some(h) = self.handle.take() {
            h.shutdown();
        }
    }
}

/// Starts the server unless `--no-grpc` was given; `transmit` sends packet-out
/// results to ports. Errors (address in use, bad TLS files) are user messages.
pub fn start(o: &Options, switch: &Arc<Switch>, transmit: Transmit) -> Result<Option<Server>, String> {
    if o.no_grpc {
        return Ok(None);
    }
    let tls = o.tls.as_ref().map(|t| TlsOptions {
        cert: t.cert.clone().unwrap_or_default(),
        key: t.key.clone().unwrap_or_default(),
        ca_cert: t.cacert.clone(),
        client_auth: t.client_auth,
    });
    let handle = p4runtime_server::spawn(ServerOptions { addr: o.grpc_addr.clone(), tls }, switch.clone(), transmit)
        .map_err(|e| e.to_string())?;
    let addr = handle.local_addr().to_string();
    log_at!(Level::Info, "P4Runtime server listening on {addr}");
    let device = handle.device().clone();
    let packet_in: PacketInSink = Arc::new(move |frame: &[u8]| device.packet_in(frame));
    Ok(Some(Server { addr, packet_in: Some(packet_in), handle: Some(handle) }))
}
