//! What the server counts for metrics: packet-ins, packet-outs and digests
//! sent to or taken from controllers, and a hook that sees every RPC's name,
//! gRPC status and duration (p4switch's metrics module turns these into
//! Prometheus counters and histograms; this crate stays free of them).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Sees every RPC once it is answered.
pub trait RpcObserver: Send + Sync {
    /// `rpc` is the method name (`Write`, `Read`, ...); `elapsed` runs from
    /// the request's arrival to its answer (for `Read`, to the last entity
    /// read; for `StreamChannel`, to the stream being opened).
    fn observe(&self, rpc: &'static str, code: tonic::Code, elapsed: Duration);
}

/// Counters of one server (all relaxed atomics).
#[derive(Default)]
pub struct ServerStats {
    /// PacketIn messages sent (once per frame, whatever the number of primaries).
    pub packet_ins: AtomicU64,
    /// Frames for the CPU port dropped because no controller was primary.
    pub packet_ins_dropped: AtomicU64,
    /// PacketOut messages accepted and run through the pipeline.
    pub packet_outs: AtomicU64,
    /// DigestList messages sent.
    pub digest_lists: AtomicU64,
    /// Digest data (one per learned item) in the lists sent.
    pub digests: AtomicU64,
    observer: OnceLock<Arc<dyn RpcObserver>>,
}

impl ServerStats {
    /// Installs the RPC observer (once; later calls are ignored).
    pub fn set_observer(&self, o: Arc<dyn RpcObserver>) {
        let _ = self.observer.set(o);
    }

    /// Reports one RPC that started at `start`.
    pub fn rpc_done(&self, rpc: &'static str, code: tonic::Code, start: Instant) {
        if let Some(o) = self.observer.get() {
            o.observe(rpc, code, start.elapsed());
        }
    }

    pub(crate) fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Ordering::Relaxed);
    }
}
