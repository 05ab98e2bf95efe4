//! Running the server: options (address, TLS), the tokio runtime thread, and
//! the two threads that turn engine events into stream messages: digests and
//! idle timeouts.

use std::future::Future;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Duration;

use p4engine::Switch;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

use crate::device::{Device, Transmit};
use crate::digests::DEFAULT_MAX_DIGEST_RATE;
use crate::proto::p4::v1::p4_runtime_server::P4RuntimeServer;
use crate::service::Service;

/// Largest gRPC message accepted or sent (BMv2 JSON of big programs, big batches).
const MAX_MESSAGE: usize = 256 * 1024 * 1024;

/// After a stop, how long requests in flight (a Write still applying) have to
/// answer before their connections are dropped: short, as a stopping switch
/// must be gone within 100 ms (issue 17).
pub const STOP_GRACE: Duration = Duration::from_millis(30);

/// How long [`ServerHandle::shutdown`] waits for a Write (or
/// SetForwardingPipelineConfig) in flight to end. A Write stops at its next
/// update once the stop begins, so this bounds only one update or one
/// pipeline load.
pub const CHANGE_WAIT: Duration = Duration::from_secs(2);

/// What [`ServerHandle::shutdown`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    /// Every Write and SetForwardingPipelineConfig had ended when shutdown
    /// returned, so the device's state no longer changes. False if one
    /// outlasted [`CHANGE_WAIT`]: it goes on, on a detached thread, and so
    /// does the idle-timeout thread (it may be waiting for that Write).
    pub changes_ended: bool,
    /// From the call to the return.
    pub took: Duration,
}

/// TLS settings (`--grpc-server-ssl` and friends). PEM files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// `--grpc-server-cert`
    pub cert: PathBuf,
    /// `--grpc-server-key`
    pub key: PathBuf,
    /// `--grpc-server-cacert`: CA that signs client certificates.
    pub ca_cert: Option<PathBuf>,
    /// `--grpc-server-with-client-auth`: require a client certificate signed by `ca_cert`.
    pub client_auth: bool,
}

/// Server options (simple_switch_grpc's `--grpc-server-*` options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// `--grpc-server-addr`; default `127.0.0.1:9559` (loopback only, unlike
    /// simple_switch_grpc which listens on all interfaces by default).
    pub addr: String,
    /// `--grpc-server-ssl`: None = plaintext.
    pub tls: Option<TlsOptions>,
    /// `--max-digest-rate` (ours): digest data per second over all digests,
    /// beyond which they are dropped and counted; 0 = no cap.
    pub max_digest_rate: u64,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions { addr: "127.0.0.1:9559".into(), tls: None, max_digest_rate: DEFAULT_MAX_DIGEST_RATE }
    }
}

/// Why the server could not start.
#[derive(Debug)]
pub struct ServerError(pub String);

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}

fn tls_config(t: &TlsOptions) -> Result<ServerTlsConfig, ServerError> {
    let read = |p: &PathBuf, what: &str| {
        std::fs::read(p).map_err(|e| ServerError(format!("cannot read TLS {what} {}: {e}", p.display())))
    };
    let mut cfg = ServerTlsConfig::new().identity(Identity::from_pem(read(&t.cert, "certificate")?, read(&t.key, "key")?));
    match (&t.ca_cert, t.client_auth) {
        (Some(ca), auth) => {
            cfg = cfg.client_ca_root(Certificate::from_pem(read(ca, "CA certificate")?)).client_auth_optional(!auth);
        }
        (None, true) => {
            return Err(ServerError("--grpc-server-with-client-auth needs --grpc-server-cacert".into()));
        }
        (None, false) => {}
    }
    Ok(cfg)
}

/// A running P4Runtime server. Dropping it without [`ServerHandle::shutdown`]
/// leaves the server running until the process exits.
pub struct ServerHandle {
    device: Arc<Device>,
    local_addr: SocketAddr,
    stop: Option<tokio::sync::watch::Sender<bool>>,
    stop_events: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl ServerHandle {
    /// The address the server listens on (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The device state (packet-in entry point, introspection).
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Hands a frame the pipeline sent to the CPU port to the controller(s):
    /// call it from the port layer for every output on `--cpu-port`.
    pub fn packet_in(&self, frame: &[u8]) {
        self.device.packet_in(frame)
    }

    /// Stops serving: closes the listening socket at once, ends every
    /// StreamChannel with UNAVAILABLE "switch shutting down", refuses new
    /// Writes and makes a Write in flight skip its remaining updates
    /// (answered UNAVAILABLE, not applied; what it applied stays), gives
    /// requests in flight [`STOP_GRACE`] to answer, drops the connections,
    /// waits up to [`CHANGE_WAIT`] for the Write to end and joins the
    /// threads. When it returns with `changes_ended` (always, unless one
    /// update or pipeline load outlasts the wait), nothing changes the
    /// device's state any more.
    pub fn shutdown(mut self) -> Stopped {
        let start = std::time::Instant::now();
        if let Some(s) = self.stop.take() {
            let _ = s.send(true);
        }
        // Streams never end on their own; the graceful stop would wait for
        // them until the hard cut.
        self.device.end_streams(tonic::Status::unavailable("switch shutting down"));
        let changes_ended = self.device.stop_changes(CHANGE_WAIT);
        self.stop_events.store(true, Ordering::Relaxed);
        for t in &self.threads {
            t.thread().unpark(); // the idle sweep sleeps parked between sweeps
        }
        for t in self.threads.drain(..) {
            // The idle sweep waits for the books a Write holds: joined only
            // once no Write runs, so this never waits one out unbounded.
            if changes_ended || t.thread().name() != Some(IDLE_THREAD) {
                let _ = t.join();
            }
        }
        Stopped { changes_ended, took: start.elapsed() }
    }
}

/// Starts the P4Runtime server for `switch` on its own threads (a tokio
/// runtime thread, a digest thread and an idle-timeout thread) and returns
/// once it listens.
/// `transmit` sends frames produced by packet-out to ports; frames for the
/// CPU port become packet-ins.
pub fn spawn(opts: ServerOptions, switch: Arc<Switch>, transmit: Transmit) -> Result<ServerHandle, ServerError> {
    spawn_with_routes(opts, switch, transmit, tonic::service::Routes::default())
}

/// [`spawn`] that also serves `extra`, other gRPC services of the switch
/// (p4switch's admin service), on the same address.
pub fn spawn_with_routes(
    opts: ServerOptions,
    switch: Arc<Switch>,
    transmit: Transmit,
    extra: tonic::service::Routes,
) -> Result<ServerHandle, ServerError> {
    let addr = opts
        .addr
        .to_socket_addrs()
        .map_err(|e| ServerError(format!("bad gRPC server address '{}': {e}", opts.addr)))?
        .next()
        .ok_or_else(|| ServerError(format!("gRPC server address '{}' resolves to nothing", opts.addr)))?;
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| ServerError(format!("cannot listen on {addr} for gRPC: {e}")))?;
    let local_addr = listener.local_addr().map_err(|e| ServerError(e.to_string()))?;
    listener.set_nonblocking(true).map_err(|e| ServerError(e.to_string()))?;
    let tls = opts.tls.as_ref().map(tls_config).transpose()?;

    let device = Arc::new(Device::new(switch, Some(transmit)));
    device.set_max_digest_rate(opts.max_digest_rate);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("p4rt-grpc")
        .enable_all()
        .build()
        .map_err(|e| ServerError(format!("cannot start the gRPC runtime: {e}")))?;
    let dev = device.clone();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), ServerError>>();
    let grpc = std::thread::Builder::new()
        .name("p4rt-server".into())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = ready_tx.send(Err(ServerError(format!("gRPC listener: {e}"))));
                        return;
                    }
                };
                let mut builder = Server::builder();
                if let Some(tls) = tls {
                    builder = match builder.tls_config(tls) {
                        Ok(b) => b,
                        Err(e) => {
                            let _ = ready_tx.send(Err(ServerError(format!("TLS configuration: {e}"))));
                            return;
                        }
                    };
                }
                let svc = P4RuntimeServer::new(Service::new(dev))
                    .max_decoding_message_size(MAX_MESSAGE)
                    .max_encoding_message_size(MAX_MESSAGE);
                let _ = ready_tx.send(Ok(()));
                let incoming = Incoming { listener: Some(listener), stop: Box::pin(stopped(stop_rx.clone())) };
                // The stop ends `incoming`, which starts tonic's graceful
                // shutdown (this signal only asks for one); a signal of its
                // own could win the race and keep the listener open.
                let serve = builder.add_routes(extra).add_service(svc).serve_with_incoming_shutdown(incoming, std::future::pending());
                let mut hard = stop_rx;
                // After a stop, give requests in flight a moment, then drop
                // the connections.
                tokio::select! {
                    result = serve => {
                        if let Err(e) = result {
                            eprintln!("p4runtime server stopped: {e}");
                        }
                    }
                    _ = async move {
                        let _ = hard.wait_for(|s| *s).await;
                        tokio::time::sleep(STOP_GRACE).await;
                    } => {}
                }
            });
            // A Write still applying on the blocking pool goes on without
            // the runtime; `shutdown` waits for it through the device.
            runtime.shutdown_background();
        })
        .map_err(|e| ServerError(format!("cannot start the gRPC thread: {e}")))?;
    match ready_rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(e),
        Err(_) => return Err(ServerError("gRPC server thread ended during start-up".into())),
    }

    let stop_events = Arc::new(AtomicBool::new(false));
    let thread = |name: &str, body: fn(&Device, &AtomicBool)| {
        let (dev, stop) = (device.clone(), stop_events.clone());
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || body(&dev, &stop))
            .map_err(|e| ServerError(format!("cannot start the {name} thread: {e}")))
    };
    let digests = thread("p4rt-events", digests_loop)?;
    let idle = thread(IDLE_THREAD, idle_loop)?;
    Ok(ServerHandle { device, local_addr, stop: Some(stop_tx), stop_events, threads: vec![grpc, digests, idle] })
}

const IDLE_THREAD: &str = "p4rt-idle";

/// Resolves once a stop is sent (or the handle is gone).
async fn stopped(mut stop: tokio::sync::watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// The accepted connections until a stop, when the listening socket is
/// closed at once: tonic keeps its incoming stream until the last connection
/// ends, and a new switch could not bind the address meanwhile.
struct Incoming {
    listener: Option<tokio::net::TcpListener>,
    stop: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl tokio_stream::Stream for Incoming {
    type Item = std::io::Result<tokio::net::TcpStream>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.listener.is_some() && self.stop.as_mut().poll(cx).is_ready() {
            self.listener = None;
        }
        match &self.listener {
            Some(l) => l.poll_accept(cx).map(|r| Some(r.map(|(conn, _)| conn))),
            None => Poll::Ready(None),
        }
    }
}

/// Digest batching until `stop` is set. Nothing here waits for a lock a Write
/// holds, so digests keep flowing while a big Write applies (issue 17): the
/// engine's queue does not overflow because the controller is writing.
fn digests_loop(dev: &Device, stop: &AtomicBool) {
    const MAX_WAIT: Duration = Duration::from_millis(20);
    while !stop.load(Ordering::Relaxed) {
        let next = dev.pump_digests();
        let wait = match next {
            Some(deadline) => Duration::from_nanos(deadline.saturating_sub(dev.now_ns())).min(MAX_WAIT),
            None => MAX_WAIT,
        };
        if !wait.is_zero() {
            dev.switch().wait_digests(wait);
        }
    }
}

/// Idle-timeout sweeps until `stop` is set. A thread of its own because a
/// notification is encoded with the write-side books, which a Write holds
/// while it applies: the sweep may wait a Write out, the digests must not.
/// The engine reports each expiry once, and only this thread takes them, so
/// none is lost or sent twice.
fn idle_loop(dev: &Device, stop: &AtomicBool) {
    const IDLE_SWEEP: Duration = Duration::from_millis(100);
    while !stop.load(Ordering::Relaxed) {
        std::thread::park_timeout(IDLE_SWEEP); // an early wake-up only sweeps early
        if !stop.load(Ordering::Relaxed) && dev.has_idle_tables() {
            dev.pump_idle();
        }
    }
}
