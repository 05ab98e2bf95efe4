//! Starting the P4Runtime server (crate `p4runtime-server`) next to the data
//! plane: it gets the shared [`Switch`], a transmit function for the frames
//! that packet-out produces, and p4switch's own admin service
//! ([`crate::admin`]) to serve on the same address; the data plane hands it
//! every frame the pipeline sends to the CPU port (packet-in). A watcher
//! thread logs the digests the `--max-digest-rate` cap drops.

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use p4engine::Switch;
use p4runtime_server::{Device, DigestStats, ServerHandle, ServerOptions, TlsOptions, Transmit};

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
    /// Dropped to wake and end the digest watcher at once.
    stop_watch: Option<Sender<()>>,
    watch: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// The P4Runtime device (its counters, for metrics).
    pub fn device(&self) -> Option<Arc<p4runtime_server::Device>> {
        self.handle.as_ref().map(|h| h.device().clone())
    }

    /// Starts shutting the server down (it stops listening at once) and
    /// returns a handle to wait for the rest.
    pub fn begin_stop(mut self) -> Stopping {
        let started = Instant::now();
        // The server first: its streams' final status has the most to do.
        let (done, done_rx) = channel();
        if let Some(h) = self.handle.take() {
            let _ = std::thread::Builder::new().name("p4rt-stop".into()).spawn(move || {
                let _ = done.send(h.shutdown());
            });
        }
        drop(self.stop_watch.take());
        if let Some(w) = self.watch.take() {
            let _ = w.join();
        }
        Stopping { started, done: done_rx }
    }
}

/// A server that is shutting down.
pub struct Stopping {
    started: Instant,
    done: Receiver<p4runtime_server::Stopped>,
}

impl Stopping {
    /// Waits for the server threads until `grace` after the stop began (the
    /// switch closed its ports meanwhile). A Write in flight stops at its
    /// next update, so it is done well within that, unless one update or a
    /// pipeline load takes longer: then it ends with the process.
    pub fn wait(self, grace: Duration) {
        let left = grace.saturating_sub(self.started.elapsed());
        match self.done.recv_timeout(left) {
            Ok(s) if !s.changes_ended => log_at!(Level::Debug, "P4Runtime server stopped; a change in flight was left running"),
            Ok(s) => log_at!(Level::Debug, "P4Runtime server stopped in {:?}", s.took),
            Err(RecvTimeoutError::Timeout) => {
                log_at!(Level::Debug, "P4Runtime server still stopping {grace:?} after the stop; not waiting")
            }
            Err(RecvTimeoutError::Disconnected) => {}
        }
    }
}

/// Where services started before the server (the admin service) find its
/// device once it runs.
pub type DeviceSlot = Arc<OnceLock<Arc<Device>>>;

/// Starts the server unless `--no-grpc` was given; `transmit` sends packet-out
/// results to ports, `extra` are more services for the same address, `slot`
/// receives the device. Errors (address in use, bad TLS files) are user messages.
pub fn start(
    o: &Options,
    switch: &Arc<Switch>,
    transmit: Transmit,
    extra: tonic::service::Routes,
    slot: &DeviceSlot,
) -> Result<Option<Server>, String> {
    if o.no_grpc {
        return Ok(None);
    }
    let tls = o.tls.as_ref().map(|t| TlsOptions {
        cert: t.cert.clone().unwrap_or_default(),
        key: t.key.clone().unwrap_or_default(),
        ca_cert: t.cacert.clone(),
        client_auth: t.client_auth,
    });
    let opts = ServerOptions { addr: o.grpc_addr.clone(), tls, max_digest_rate: o.max_digest_rate };
    let handle = p4runtime_server::spawn_with_routes(opts, switch.clone(), transmit, extra).map_err(|e| e.to_string())?;
    let addr = handle.local_addr().to_string();
    log_at!(Level::Info, "P4Runtime server listening on {addr}");
    let device = handle.device().clone();
    let _ = slot.set(device.clone());
    let (stop_watch, stop) = channel();
    let watch = {
        let device = device.clone();
        std::thread::Builder::new()
            .name("p4rt-digest-log".into())
            .spawn(move || watch_digests(&device, &stop))
            .map_err(|e| format!("digest watcher thread: {e}"))?
    };
    let packet_in: PacketInSink = Arc::new(move |frame: &[u8]| device.packet_in(frame));
    Ok(Some(Server { addr, packet_in: Some(packet_in), handle: Some(handle), stop_watch: Some(stop_watch), watch: Some(watch) }))
}

/// Once a second while the digest cap drops data, a warning with the count;
/// a summary of every digest at stop (when `stop`'s sender is dropped, which
/// wakes it at once).
fn watch_digests(device: &Device, stop: &Receiver<()>) {
    const PERIOD: Duration = Duration::from_secs(1);
    let mut last = device.digest_stats();
    let mut since = Instant::now();
    while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(PERIOD.saturating_sub(since.elapsed())) {
        if since.elapsed() < PERIOD {
            continue;
        }
        let now = device.digest_stats();
        if let Some(line) = cap_warning(&last, &now, since.elapsed()) {
            log_at!(Level::Warn, "{line}");
        }
        last = now;
        since = Instant::now();
    }
    let s = device.digest_stats();
    if s != (DigestStats { max_rate: s.max_rate, ..Default::default() }) {
        log_at!(Level::Info, "{}", digest_summary(&s));
    }
}

/// The warning for data the cap dropped between two readings, if any.
pub fn cap_warning(before: &DigestStats, after: &DigestStats, over: Duration) -> Option<String> {
    let dropped = after.rate_dropped.saturating_sub(before.rate_dropped);
    (dropped > 0).then(|| {
        format!(
            "digest rate limit: dropped {dropped} digest(s) in the last {:.1} s (--max-digest-rate {}/s; {} dropped in total)",
            over.as_secs_f64(),
            after.max_rate,
            after.rate_dropped
        )
    })
}

/// One line with every digest counter.
pub fn digest_summary(s: &DigestStats) -> String {
    format!(
        "digests: {} sent in {} lists, {} dropped by the rate limit ({}/s), {} repeats suppressed until acknowledged, \
         {} not configured, {} lost to a full queue, {} raised before a P4Runtime pipeline, {} lost to full streams, \
         {} with no primary controller, {} discarded pending",
        s.accepted,
        s.lists,
        s.rate_dropped,
        s.max_rate,
        s.suppressed,
        s.unconfigured,
        s.queue_overflow,
        s.no_pipeline,
        s.stream_full,
        s.no_primary,
        s.discarded
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_says_what_the_cap_dropped() {
        let a = DigestStats { max_rate: 100, rate_dropped: 7, ..Default::default() };
        assert_eq!(cap_warning(&a, &a, Duration::from_secs(1)), None, "nothing new dropped: no line");
        let b = DigestStats { rate_dropped: 1007, ..a };
        let line = cap_warning(&a, &b, Duration::from_millis(1000)).unwrap();
        assert_eq!(line, "digest rate limit: dropped 1000 digest(s) in the last 1.0 s (--max-digest-rate 100/s; 1007 dropped in total)");
        assert!(digest_summary(&b).contains("1007 dropped by the rate limit (100/s)"));
    }
}
