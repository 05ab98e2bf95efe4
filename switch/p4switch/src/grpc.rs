//! Starting the P4Runtime server (crate `p4runtime-server`) next to the data
//! plane: it gets the shared [`Switch`], a transmit function for the frames
//! that packet-out produces, and p4switch's own admin service
//! ([`crate::admin`]) to serve on the same address; the data plane hands it
//! every frame the pipeline sends to the CPU port (packet-in).

use std::sync::Arc;
use std::time::Duration;

use p4engine::Switch;
use p4runtime_server::{ServerHandle, ServerOptions, TlsOptions, Transmit};

use crate::cli::{Level, Options};
use crate::log_at;
use crate::worker::PacketInSink;

/// A running P4Runtime server; [`Server::stop`] shuts it down.
pub struct Server {
    /// The address it listens on.
    pub addr: String,
    /// Where the data plane hands packets sent to the CPU port.
    pub packet_in: Option<PacketInSink>,
    handle: Option<ServerHandle>,
}

impl Server {
    /// The P4Runtime device (its counters, for metrics).
    pub fn device(&self) -> Option<Arc<p4runtime_server::Device>> {
        self.handle.as_ref().map(|h| h.device().clone())
    }

    /// Starts shutting the server down (it stops listening at once) and
    /// returns a handle to wait for the rest.
    pub fn begin_stop(mut self) -> Stopping {
        let (done, done_rx) = std::sync::mpsc::channel();
        if let Some(h) = self.handle.take() {
            let _ = std::thread::Builder::new().name("p4rt-stop".into()).spawn(move || {
                h.shutdown();
                let _ = done.send(());
            });
        }
        Stopping(done_rx)
    }
}

/// A server that is shutting down.
pub struct Stopping(std::sync::mpsc::Receiver<()>);

impl Stopping {
    /// Waits at most `wait` for the server threads (open streams are cut when
    /// the process exits right after).
    pub fn wait(self, wait: Duration) {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = self.0.recv_timeout(wait) {
            log_at!(Level::Debug, "P4Runtime server still closing streams after {wait:?}; not waiting");
        }
    }
}

/// Starts the server unless `--no-grpc` was given; `transmit` sends packet-out
/// results to ports, `extra` are more services for the same address. Errors
/// (address in use, bad TLS files) are user messages.
pub fn start(o: &Options, switch: &Arc<Switch>, transmit: Transmit, extra: tonic::service::Routes) -> Result<Option<Server>, String> {
    if o.no_grpc {
        return Ok(None);
    }
    let tls = o.tls.as_ref().map(|t| TlsOptions {
        cert: t.cert.clone().unwrap_or_default(),
        key: t.key.clone().unwrap_or_default(),
        ca_cert: t.cacert.clone(),
        client_auth: t.client_auth,
    });
    let opts = ServerOptions { addr: o.grpc_addr.clone(), tls };
    let handle = p4runtime_server::spawn_with_routes(opts, switch.clone(), transmit, extra).map_err(|e| e.to_string())?;
    let addr = handle.local_addr().to_string();
    log_at!(Level::Info, "P4Runtime server listening on {addr}");
    let device = handle.device().clone();
    let packet_in: PacketInSink = Arc::new(move |frame: &[u8]| device.packet_in(frame));
    Ok(Some(Server { addr, packet_in: Some(packet_in), handle: Some(handle) }))
}
