//! `--metrics-addr HOST:PORT`: the switch's metrics in Prometheus' text
//! format (0.0.4) over HTTP (`GET /metrics`), served by a thread of its own.
//!
//! Nothing is counted twice: the ports' counters, the engine's table and
//! meter counts (`Switch::pipeline_stats`) and the P4Runtime server's
//! counters are read when scraped; only the RPC durations are recorded as
//! they happen (the server's [`RpcObserver`] hook feeds a histogram).
//! Names: `p4switch_` prefix, base units, `_total` counters; `process_*`
//! as Prometheus' client libraries name them (read from /proc/self: the
//! `prometheus` crate's own process collector counts CPU in whole seconds).
//! README "Metrics" lists them.

use std::net::ToSocketAddrs;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use p4engine::Switch;
use p4runtime_server::{Device, RpcObserver};
use prometheus::core::{Collector, Desc};
use prometheus::proto::MetricFamily;
use prometheus::{Counter, Encoder, Gauge, HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry, TextEncoder};

use crate::cli::Level;
use crate::log_at;
use crate::ports::Ports;

/// RPC durations: 100 µs (a small write) to ~50 s (a big pipeline load).
const RPC_BUCKETS: [f64; 12] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2.5, 50.0];

fn counter(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric name and labels")
}

fn gauge(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    IntGaugeVec::new(Opts::new(name, help), labels).expect("valid metric name and labels")
}

/// Records every P4Runtime RPC: count and duration by method and gRPC status.
struct Rpcs {
    requests: IntCounterVec,
    seconds: HistogramVec,
}

/// gRPC's canonical name of a status code (`OK`, `INVALID_ARGUMENT`, ...).
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "CANCELLED",
        Unknown => "UNKNOWN",
        InvalidArgument => "INVALID_ARGUMENT",
        DeadlineExceeded => "DEADLINE_EXCEEDED",
        NotFound => "NOT_FOUND",
        AlreadyExists => "ALREADY_EXISTS",
        PermissionDenied => "PERMISSION_DENIED",
        ResourceExhausted => "RESOURCE_EXHAUSTED",
        FailedPrecondition => "FAILED_PRECONDITION",
        Aborted => "ABORTED",
        OutOfRange => "OUT_OF_RANGE",
        Unimplemented => "UNIMPLEMENTED",
        Internal => "INTERNAL",
        Unavailable => "UNAVAILABLE",
        DataLoss => "DATA_LOSS",
        Unauthenticated => "UNAUTHENTICATED",
    }
}

impl RpcObserver for Rpcs {
    fn observe(&self, rpc: &'static str, code: tonic::Code, elapsed: Duration) {
        let l = [rpc, code_name(code)];
        self.requests.with_label_values(&l).inc();
        self.seconds.with_label_values(&l).observe(elapsed.as_secs_f64());
    }
}

/// The metrics read when scraped. Each scrape refills the families from
/// the live counters (under `lock`, so two scrapes do not mix).
struct Live {
    switch: Arc<Switch>,
    ports: Option<Arc<Ports>>,
    device: Option<Arc<Device>>,
    lock: Mutex<()>,
    rx_packets: IntCounterVec,
    rx_bytes: IntCounterVec,
    tx_packets: IntCounterVec,
    tx_bytes: IntCounterVec,
    rx_drops: IntCounterVec,
    tx_drops: IntCounterVec,
    queue_delay_drops: IntCounterVec,
    queue_capacity: IntGaugeVec,
    queue_frames: IntGaugeVec,
    table_hits: IntCounterVec,
    table_misses: IntCounterVec,
    meter_packets: IntCounterVec,
    packet_in: IntCounterVec,
    packet_in_dropped: IntCounterVec,
    packet_out: IntCounterVec,
    digest_lists: IntCounterVec,
    digests: IntCounterVec,
    digest_drops: IntCounterVec,
}

impl Live {
    fn new(switch: Arc<Switch>, ports: Option<Arc<Ports>>, device: Option<Arc<Device>>) -> Live {
        let port = &["port", "interface"];
        Live {
            switch,
            ports,
            device,
            lock: Mutex::new(()),
            rx_packets: counter("p4switch_port_rx_packets_total", "Frames received on the port and handed to the pipeline (or dropped as too old: p4switch_queue_delay_drops_total)", port),
            rx_bytes: counter("p4switch_port_rx_bytes_total", "Bytes of the frames received (as the pipeline saw them)", port),
            tx_packets: counter("p4switch_port_tx_packets_total", "Frames handed to the kernel for transmission on the port", port),
            tx_bytes: counter("p4switch_port_tx_bytes_total", "Bytes of the frames transmitted", port),
            rx_drops: counter(
                "p4switch_port_rx_drops_total",
                "Frames lost on receive, by reason (ring_full: the kernel found the switch's receive ring full; \
                 oversize: larger than the receive buffer)",
                &["port", "interface", "reason"],
            ),
            tx_drops: counter(
                "p4switch_port_tx_drops_total",
                "Frames dropped at the port's egress queue (full: depth or rate limit) or refused by the kernel",
                port,
            ),
            queue_delay_drops: counter(
                "p4switch_queue_delay_drops_total",
                "Frames dropped because they had waited inside the switch longer than --queue-delay, by where \
                 (rx: when the worker took them from the receive ring; egress: at the egress queue of a shaped port)",
                &["port", "interface", "where"],
            ),
            queue_capacity: gauge("p4switch_queue_capacity_frames", "Egress queue depth limit of the port, frames", port),
            queue_frames: gauge(
                "p4switch_queue_frames",
                "Frames waiting in the port's egress queue for their departure time (shaped ports)",
                port,
            ),
            table_hits: counter("p4switch_table_hits_total", "Lookups that found an entry, per table", &["table"]),
            table_misses: counter("p4switch_table_misses_total", "Lookups that found no entry (default action), per table", &["table"]),
            meter_packets: counter(
                "p4switch_meter_packets_total",
                "Packets a meter coloured, per meter and colour",
                &["meter", "color"],
            ),
            packet_in: counter("p4switch_p4runtime_packet_in_total", "PacketIn messages sent to the primary controller", &[]),
            packet_in_dropped: counter(
                "p4switch_p4runtime_packet_in_dropped_total",
                "Frames for the CPU port dropped because no controller was primary",
                &[],
            ),
            packet_out: counter("p4switch_p4runtime_packet_out_total", "PacketOut messages run through the pipeline", &[]),
            digest_lists: counter("p4switch_p4runtime_digest_lists_total", "DigestList messages sent", &[]),
            digests: counter("p4switch_p4runtime_digest_entries_total", "Digest data (learned items) in the DigestLists sent", &[]),
            digest_drops: counter(
                "p4switch_p4runtime_digest_drops_total",
                "Digest data not sent, by reason (rate: over --max-digest-rate; repeat: sent and not yet \
                 acknowledged; unconfigured: no controller configured the digest; queue: the data plane's \
                 queue was full; no_pipeline: no P4Runtime pipeline set; stream_full: a primary's stream \
                 buffer was full; no_primary: no primary when the list was due; discarded: pending when the \
                 digest was deleted or a new pipeline set)",
                &["reason"],
            ),
        }
    }

    fn counters(&self) -> [&IntCounterVec; 16] {
        [
            &self.rx_packets,
            &self.rx_bytes,
            &self.tx_packets,
            &self.tx_bytes,
            &self.rx_drops,
            &self.tx_drops,
            &self.queue_delay_drops,
            &self.table_hits,
            &self.table_misses,
            &self.meter_packets,
            &self.packet_in,
            &self.packet_in_dropped,
            &self.packet_out,
            &self.digest_lists,
            &self.digests,
            &self.digest_drops,
        ]
    }

    fn gauges(&self) -> [&IntGaugeVec; 2] {
        [&self.queue_capacity, &self.queue_frames]
    }

    /// Copies every live counter into the families.
    fn refill(&self) {
        for c in self.counters() {
            c.reset();
        }
        for g in self.gauges() {
            g.reset();
        }
        let load = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
        if let Some(ports) = &self.ports {
            for p in &ports.ports {
                let number = p.number.to_string();
                let l = [number.as_str(), p.iface.as_str()];
                let s = &p.stats;
                self.rx_packets.with_label_values(&l).inc_by(load(&s.rx));
                self.rx_bytes.with_label_values(&l).inc_by(load(&s.rx_bytes));
                self.tx_packets.with_label_values(&l).inc_by(load(&s.tx));
                self.tx_bytes.with_label_values(&l).inc_by(load(&s.tx_bytes));
                self.rx_drops.with_label_values(&[l[0], l[1], "ring_full"]).inc_by(load(&s.rx_dropped));
                self.rx_drops.with_label_values(&[l[0], l[1], "oversize"]).inc_by(load(&s.rx_oversize));
                self.tx_drops.with_label_values(&l).inc_by(load(&s.tx_dropped));
                self.queue_delay_drops.with_label_values(&[l[0], l[1], "rx"]).inc_by(load(&s.rx_late));
                self.queue_delay_drops.with_label_values(&[l[0], l[1], "egress"]).inc_by(load(&s.tx_late));
                self.queue_capacity.with_label_values(&l).set(p.queue.depth() as i64);
                self.queue_frames.with_label_values(&l).set(p.queue.waiting() as i64);
            }
        }
        if let Some(st) = self.switch.pipeline_stats() {
            for t in &st.tables {
                self.table_hits.with_label_values(&[t.name.as_str()]).inc_by(t.hits);
                self.table_misses.with_label_values(&[t.name.as_str()]).inc_by(t.misses);
            }
            for m in &st.meters {
                for (colour, n) in ["green", "yellow", "red"].iter().zip(m.colours) {
                    self.meter_packets.with_label_values(&[m.name.as_str(), colour]).inc_by(n);
                }
            }
        }
        if let Some(d) = &self.device {
            let s = &d.stats;
            self.packet_in.with_label_values::<&str>(&[]).inc_by(load(&s.packet_ins));
            self.packet_in_dropped.with_label_values::<&str>(&[]).inc_by(load(&s.packet_ins_dropped));
            self.packet_out.with_label_values::<&str>(&[]).inc_by(load(&s.packet_outs));
            self.digest_lists.with_label_values::<&str>(&[]).inc_by(load(&s.digest_lists));
            self.digests.with_label_values::<&str>(&[]).inc_by(load(&s.digests));
            let ds = d.digest_stats();
            for (reason, n) in [
                ("rate", ds.rate_dropped),
                ("repeat", ds.suppressed),
                ("unconfigured", ds.unconfigured),
                ("queue", ds.queue_overflow),
                ("no_pipeline", ds.no_pipeline),
                ("stream_full", ds.stream_full),
                ("no_primary", ds.no_primary),
                ("discarded", ds.discarded),
            ] {
                self.digest_drops.with_label_values(&[reason]).inc_by(n);
            }
        }
    }
}

impl Collector for Live {
    fn desc(&self) -> Vec<&Desc> {
        let mut d: Vec<&Desc> = self.counters().into_iter().flat_map(|c| c.desc()).collect();
        d.extend(self.gauges().into_iter().flat_map(|g| g.desc()));
        d
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let _one_at_a_time = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.refill();
        let mut out: Vec<MetricFamily> = self.counters().into_iter().flat_map(|c| c.collect()).collect();
        out.extend(self.gauges().into_iter().flat_map(|g| g.collect()));
        // A family without samples (no ports, no P4Runtime server) is left out.
        out.retain(|f| !f.get_metric().is_empty());
        out
    }
}

/// `process_*` from /proc/self, read when scraped.
struct Process {
    lock: Mutex<()>,
    cpu: Counter,
    resident: Gauge,
    virtual_bytes: Gauge,
    start: Gauge,
    open_fds: Gauge,
    max_fds: Gauge,
    threads: Gauge,
}

impl Process {
    fn new() -> Process {
        let g = |name: &str, help: &str| Gauge::new(name, help).expect("valid metric name");
        Process {
            lock: Mutex::new(()),
            cpu: Counter::new("process_cpu_seconds_total", "Total user and system CPU time spent in seconds").expect("valid metric name"),
            resident: g("process_resident_memory_bytes", "Resident memory size in bytes"),
            virtual_bytes: g("process_virtual_memory_bytes", "Virtual memory size in bytes"),
            start: g("process_start_time_seconds", "Start time of the process since unix epoch in seconds"),
            open_fds: g("process_open_fds", "Number of open file descriptors"),
            max_fds: g("process_max_fds", "Maximum number of open file descriptors"),
            threads: g("process_threads", "Number of OS threads in the process"),
        }
    }

    fn gauges(&self) -> [&Gauge; 6] {
        [&self.resident, &self.virtual_bytes, &self.start, &self.open_fds, &self.max_fds, &self.threads]
    }

    fn refill(&self) -> procfs::ProcResult<()> {
        let me = procfs::process::Process::myself()?;
        let st = me.stat()?;
        let tick = procfs::ticks_per_second().max(1) as f64;
        self.cpu.reset();
        self.cpu.inc_by((st.utime + st.stime) as f64 / tick);
        self.resident.set((st.rss * procfs::page_size()) as f64);
        self.virtual_bytes.set(st.vsize as f64);
        self.start.set(procfs::boot_time_secs()? as f64 + st.starttime as f64 / tick);
        self.threads.set(st.num_threads as f64);
        self.open_fds.set(me.fd_count()? as f64);
        if let procfs::process::LimitValue::Value(n) = me.limits()?.max_open_files.soft_limit {
            self.max_fds.set(n as f64);
        }
        Ok(())
    }
}

impl Collector for Process {
    fn desc(&self) -> Vec<&Desc> {
        let mut d = self.cpu.desc();
        d.extend(self.gauges().into_iter().flat_map(|g| g.desc()));
        d
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let _one_at_a_time = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = self.refill() {
            log_at!(Level::Warn, "metrics: reading /proc/self: {e}");
            return Vec::new();
        }
        let mut out = self.cpu.collect();
        out.extend(self.gauges().into_iter().flat_map(|g| g.collect()));
        out
    }
}

/// What the endpoint reads: the switch, its ports (none with pcap-file
/// ports) and the P4Runtime server's device (none with `--no-grpc`).
pub struct Sources {
    pub switch: Arc<Switch>,
    pub ports: Option<Arc<Ports>>,
    pub device: Option<Arc<Device>>,
}

/// Builds the registry: live counters, RPC histograms (hooked into the
/// server) and the process collector.
pub fn registry(src: Sources) -> Result<Registry, String> {
    let r = Registry::new();
    let err = |e: prometheus::Error| format!("metrics: {e}");
    let rpcs = Rpcs {
        requests: counter(
            "p4switch_p4runtime_requests_total",
            "P4Runtime RPCs answered, by method and gRPC status",
            &["rpc", "code"],
        ),
        seconds: HistogramVec::new(
            HistogramOpts::new(
                "p4switch_p4runtime_request_duration_seconds",
                "Time from a P4Runtime request's arrival to its answer (Read: all entities read; \
                 StreamChannel: the stream opened), by method and gRPC status",
            )
            .buckets(RPC_BUCKETS.to_vec()),
            &["rpc", "code"],
        )
        .map_err(err)?,
    };
    r.register(Box::new(rpcs.requests.clone())).map_err(err)?;
    r.register(Box::new(rpcs.seconds.clone())).map_err(err)?;
    if let Some(d) = &src.device {
        d.stats.set_observer(Arc::new(rpcs));
    }
    r.register(Box::new(Live::new(src.switch, src.ports, src.device))).map_err(err)?;
    r.register(Box::new(Process::new())).map_err(err)?;
    Ok(r)
}

/// The registry's current text (format 0.0.4).
pub fn render(r: &Registry) -> String {
    let mut buf = Vec::new();
    if let Err(e) = TextEncoder::new().encode(&r.gather(), &mut buf) {
        log_at!(Level::Error, "metrics: {e}");
    }
    String::from_utf8(buf).unwrap_or_default()
}

/// A running metrics endpoint; dropping it stops the server thread.
pub struct Endpoint {
    /// The address it listens on (port 0 resolved).
    pub addr: String,
    server: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves `GET /metrics` (and `/`) on `addr` from a thread of its own;
/// other paths get 404. Errors (address in use) are user messages.
pub fn serve(addr: &str, registry: Registry) -> Result<Endpoint, String> {
    let sock = addr
        .to_socket_addrs()
        .map_err(|e| format!("--metrics-addr {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("--metrics-addr {addr}: resolves to nothing"))?;
    let server = Arc::new(tiny_http::Server::http(sock).map_err(|e| format!("cannot listen on {sock} for metrics: {e}"))?);
    let bound = server.server_addr().to_ip().map_or_else(|| sock.to_string(), |a| a.to_string());
    let content_type = tiny_http::Header::from_bytes(&b"Content-Type"[..], prometheus::TEXT_FORMAT.as_bytes())
        .map_err(|()| "metrics: bad content type".to_string())?;
    let srv = server.clone();
    let thread = std::thread::Builder::new()
        .name("p4switch-metrics".into())
        .spawn(move || {
            for req in srv.incoming_requests() {
                let path = req.url().split('?').next().unwrap_or("");
                let resp = if *req.method() == tiny_http::Method::Get && (path == "/metrics" || path == "/") {
                    tiny_http::Response::from_string(render(&registry)).with_header(content_type.clone())
                } else {
                    tiny_http::Response::from_string("not found: metrics are at /metrics\n").with_status_code(404)
                };
                let _ = req.respond(resp);
            }
        })
        .map_err(|e| format!("metrics thread: {e}"))?;
    log_at!(Level::Info, "metrics on http://{bound}/metrics");
    Ok(Endpoint { addr: bound, server, thread: Some(thread) })
}
