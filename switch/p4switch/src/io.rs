//! How frames move between the interfaces and the workers (`--io`):
//!
//! - **xdp**: AF_XDP sockets fed by a tiny XDP program that picks the
//!   worker by flow hash ([`crate::xdpprog`]), native XDP where the driver has
//!   it (veth does), else generic XDP. Frames skip the kernel's socket-buffer
//!   receive path and arrive in shared memory.
//! - **mmap**: AF_PACKET sockets with a TPACKET_V2 receive slot ring and a
//!   transmit ring each; the port's traffic is spread over the workers by
//!   `PACKET_FANOUT` (flow hash). A slot is handed over the moment the kernel
//!   has written it: TPACKET_V3 block rings are not used because a block is
//!   handed over only when full or when its timer (kernel ticks, 4 ms here)
//!   fires, which would hold frames waiting for a batch.
//! - **socket**: AF_PACKET sockets without rings, `recvmmsg`/`sendmmsg`,
//!   fanout as above; works wherever AF_PACKET does.
//!
//! `--spread flow` (the default) shares a port's frames among the workers by
//! flow hash; `--spread port` gives each port one worker (see [`Spread`]).
//!
//! `auto` takes the first that opens on every port, in that order, and logs
//! which and why (the ready line says which). The order is the measured one:
//! on veth with the same queue bounds, xdp (native or generic) forwards the
//! most frames per second of CPU, then mmap, then socket (README, "Ports";
//! `bench/io-sweep.sh`). Socket mode once looked fastest in zero-loss
//! searches only because its kernel receive queue held ~10,000 frames where
//! the rings held 512: a short trial hid the deficit in the queue (tens of
//! milliseconds of delay); it is now bounded like the rings. Every worker has its own receive endpoint per
//! port and its own transmit endpoint per port, so no lock is taken per frame.
//!
//! Arrival stamps for `--queue-delay` (asked for with [`Depths::stamp`]): xdp,
//! the XDP program's `bpf_ktime_get_ns` in the frame's metadata
//! (CLOCK_MONOTONIC); mmap, the ring slot's `tp_sec`/`tp_nsec` (always
//! there, CLOCK_REALTIME); socket, `SO_TIMESTAMPNS` (CLOCK_REALTIME, one more
//! control message per frame in the `recvmmsg` the worker makes anyway).
//! Each batch reads its stamps' clock once to age its frames.

use std::io;
use std::os::fd::RawFd;

use crate::cli::Level;
use crate::log_at;
use crate::sys::xsk::{XskRx, XskSizes, XskTx};
use crate::sys::{self, BpfLink, BpfMap, BpfProgram, Fanout, PacketSocket, RecvBatch, RxFrame, SocketOptions, TxBatch, XdpAttachMode, XskSocket};

/// `--io`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoMode {
    Auto,
    Xdp,
    Mmap,
    Socket,
}

impl IoMode {
    pub fn parse(s: &str) -> Result<IoMode, String> {
        Ok(match s {
            "auto" => IoMode::Auto,
            "xdp" => IoMode::Xdp,
            "mmap" => IoMode::Mmap,
            "socket" => IoMode::Socket,
            _ => return Err(format!("--io {s:?}: expected auto, xdp, mmap or socket")),
        })
    }
}

/// `--spread`: how one port's frames are shared among the workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// By flow hash: the flows of one port run in parallel, each in order.
    /// The default, for every program, also those with registers and meters:
    /// the engine holds an action's registers for the extent of the action
    /// (BMv2's guarantee), meter cells are updated under a lock and counters
    /// are atomic, so two workers lose no update and a flow stays in order.
    /// What it gives up is the arrival order *across* flows at a shared meter
    /// or register; [`Spread::Port`] keeps it.
    Flow,
    /// Every frame of a port to one worker (port `k` to worker `k % workers`):
    /// the port's frames meet meters and registers in arrival order, as in
    /// BMv2, whose one ingress thread sees every frame in turn.
    Port,
}

impl std::fmt::Display for Spread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Spread::Flow => "spread by flow",
            Spread::Port => "one worker per port",
        })
    }
}

/// The mode the ports run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chosen {
    Xdp(XdpAttachMode),
    Mmap,
    Socket,
}

impl std::fmt::Display for Chosen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Chosen::Xdp(XdpAttachMode::Native) => "xdp (AF_XDP, native XDP)",
            Chosen::Xdp(XdpAttachMode::Generic) => "xdp (AF_XDP, generic XDP)",
            Chosen::Mmap => "mmap (TPACKET_V2 rings)",
            Chosen::Socket => "socket (recvmmsg/sendmmsg)",
        })
    }
}

/// Sizes of the queues the endpoints are opened with.
#[derive(Clone, Copy, Debug)]
pub struct Depths {
    /// Frames one receive endpoint holds for its worker.
    pub rx: u32,
    /// Frames one transmit endpoint holds for the kernel (the egress queue depth).
    pub tx: u32,
    /// Stamp each frame's arrival where the mode needs asking (the XDP
    /// program, `SO_TIMESTAMPNS`), for `--queue-delay`.
    pub stamp: bool,
}

/// One worker's receive endpoint on one port.
pub enum RxEndpoint {
    Ring(PacketSocket),
    Socket(PacketSocket, Box<RecvBatch>),
    Xdp(XskRx),
}

/// One worker's transmit endpoint on one port.
pub enum TxEndpoint {
    Ring(PacketSocket),
    Socket(PacketSocket, Box<TxBatch>),
    Xdp(XskTx),
}

/// What a transmit endpoint did with a frame.
impl TxEndpoint {
    /// Queues `frame` for the next flush; false if the egress queue is full
    /// (the caller counts the frame as dropped).
    pub fn queue(&mut self, frame: &[u8], limit: u32) -> io::Result<bool> {
        match self {
            TxEndpoint::Ring(s) => s.queue_limited(frame, limit as usize),
            TxEndpoint::Socket(s, b) => {
                if b.is_full() || b.len() >= limit as usize {
                    let lost = b.lost;
                    s.send_batch(b)?;
                    b.lost = lost;
                }
                Ok(b.push(frame))
            }
            TxEndpoint::Xdp(t) => {
                t.set_limit(limit);
                Ok(t.queue(frame))
            }
        }
    }

    /// Hands queued frames to the kernel; returns frames the device refused.
    pub fn flush(&mut self) -> io::Result<u64> {
        match self {
            TxEndpoint::Ring(s) => s.flush().map(|_| 0),
            TxEndpoint::Socket(s, b) => {
                if b.is_empty() {
                    return Ok(0);
                }
                let lost = b.lost;
                s.send_batch(b)?;
                let refused = b.lost - lost;
                Ok(refused)
            }
            TxEndpoint::Xdp(t) => t.flush().map(|_| 0),
        }
    }
}

/// What `receive` hands the worker: the frame and how much of its metadata the mode knows.
pub struct Received<'a> {
    pub frame: RxFrame<'a>,
    /// The mode cannot tell whether a TCP/UDP checksum was left for offload
    /// (AF_XDP): the worker checks the frame itself.
    pub csum_unknown: bool,
    /// How long the frame waited between the kernel handing it to the
    /// switch's receive path and this batch, ns; 0 if not asked for or
    /// unknown (a frame without a stamp is never taken for an old one).
    pub waited_ns: u64,
}

/// Age of a frame stamped `stamp` (0: none) at `now`, both in one clock; 0 if
/// unstamped or stamped after `now` (a clock stepped back).
#[inline]
fn age(now: u64, stamp: u64) -> u64 {
    if stamp == 0 {
        0
    } else {
        now.saturating_sub(stamp)
    }
}

impl RxEndpoint {
    /// The descriptor to wait on.
    pub fn raw_fd(&self) -> RawFd {
        match self {
            RxEndpoint::Ring(s) | RxEndpoint::Socket(s, _) => s.raw_fd(),
            RxEndpoint::Xdp(r) => r.raw_fd(),
        }
    }

    /// Receives what is waiting (one batch) and hands each frame to `f`.
    /// With `timed`, each frame's [`Received::waited_ns`] is filled in from its
    /// arrival stamp and one clock read per batch, in the stamp's clock:
    /// CLOCK_MONOTONIC for the XDP program's stamps, CLOCK_REALTIME for the
    /// packet sockets' (`tp_sec`/`tp_nsec` of a ring slot, `SO_TIMESTAMPNS`
    /// without a ring). Returns (frames, frames too long to take).
    pub fn receive(&mut self, timed: bool, f: &mut dyn FnMut(Received<'_>)) -> io::Result<(usize, u64)> {
        match self {
            RxEndpoint::Ring(s) => {
                let Some(mut block) = s.next_block() else { return Ok((0, 0)) };
                let now = if timed { sys::realtime_ns() } else { 0 };
                let mut n = 0;
                while let Some(frame) = block.next_frame() {
                    n += 1;
                    let waited_ns = if timed { age(now, frame.rx_ns) } else { 0 };
                    f(Received { frame, csum_unknown: false, waited_ns });
                }
                Ok((n, 0))
            }
            RxEndpoint::Socket(s, b) => {
                let n = s.recv_batch(b)?;
                let now = if timed && n > 0 { sys::realtime_ns() } else { 0 };
                for i in 0..n {
                    if let Some(frame) = b.frame(i) {
                        let waited_ns = if timed { age(now, frame.rx_ns) } else { 0 };
                        f(Received { frame, csum_unknown: false, waited_ns });
                    }
                }
                Ok((n, 0))
            }
            RxEndpoint::Xdp(r) => {
                if !r.ready() {
                    return Ok((0, 0));
                }
                let now = if timed { sys::monotonic_ns() } else { 0 };
                let (n, oversize) = r.recv(sys::MAX_FRAME, timed, &mut |data, stamp| {
                    let frame = RxFrame { data, vlan: None, csum_not_ready: false, wire_len: data.len(), rx_ns: stamp };
                    f(Received { frame, csum_unknown: true, waited_ns: age(now, stamp) })
                });
                Ok((n, oversize))
            }
        }
    }

    /// Whether looking for frames costs a system call (socket mode: one
    /// `recvmmsg` per look). The worker then neither spins on the endpoint
    /// nor looks again after a batch that did not fill it: it waits in
    /// `poll`, which returns at once if more has come.
    pub fn look_is_syscall(&self) -> bool {
        matches!(self, RxEndpoint::Socket(..))
    }

    /// Takes the socket's pending error (interface gone or down).
    pub fn take_error(&self) -> Option<io::Error> {
        match self {
            RxEndpoint::Ring(s) | RxEndpoint::Socket(s, _) => s.take_error(),
            RxEndpoint::Xdp(_) => None,
        }
    }

    /// Frames the kernel dropped for this endpoint since the last call
    /// (receive queue full); `last` keeps the previous cumulative value for
    /// modes whose counters do not reset.
    pub fn take_drops(&self, last: &mut u64) -> u64 {
        match self {
            RxEndpoint::Ring(s) | RxEndpoint::Socket(s, _) => s.take_stats().map(|(_, d)| d).unwrap_or(0),
            RxEndpoint::Xdp(r) => match r.stats() {
                Ok(st) => {
                    // A frame that finds no fill chunk counts in both rx_dropped and
                    // rx_fill_ring_empty: count it once.
                    let now = st.rx_dropped + st.rx_ring_full;
                    let d = now.saturating_sub(*last);
                    *last = now;
                    d
                }
                Err(_) => 0,
            },
        }
    }
}

/// One worker's endpoints: receive endpoints (with the port position each
/// belongs to) and one transmit endpoint per port, by position.
pub struct WorkerIo {
    pub rx: Vec<(usize, RxEndpoint)>,
    pub tx: Vec<TxEndpoint>,
}

impl WorkerIo {
    /// Every endpoint as a separate value, to close them in parallel.
    pub fn into_parts(self) -> Vec<Box<dyn Send>> {
        let mut v: Vec<Box<dyn Send>> = Vec::new();
        v.extend(self.rx.into_iter().map(|(_, r)| Box::new(r) as Box<dyn Send>));
        v.extend(self.tx.into_iter().map(|t| Box::new(t) as Box<dyn Send>));
        v
    }
}

/// Everything the ports opened; dropping it closes the sockets and detaches
/// the XDP program.
pub struct Opened {
    pub workers: Vec<WorkerIo>,
    pub mode: Chosen,
    xdp: Option<Xdp>,
}

impl Opened {
    /// The XDP links, program and maps as separate values, to close them in parallel.
    pub fn into_parts(self) -> Vec<Box<dyn Send>> {
        let mut v: Vec<Box<dyn Send>> = self.workers.into_iter().flat_map(|w| w.into_parts()).collect();
        if let Some(x) = self.xdp {
            v.extend(x.links.into_iter().map(|l| Box::new(l) as Box<dyn Send>));
            v.push(Box::new((x._prog, x._xsks, x._ports)));
        }
        v
    }
}

/// The one XDP program of every port, its maps, and its attachment to each port.
struct Xdp {
    links: Vec<BpfLink>,
    _prog: BpfProgram,
    _xsks: BpfMap,
    _ports: BpfMap,
}

/// Opens every port of `ifaces` for `workers` workers in `mode`.
pub fn open(ifaces: &[String], workers: usize, mode: IoMode, spread: Spread, d: Depths) -> io::Result<Opened> {
    let workers = workers.max(1);
    for iface in ifaces {
        match sys::disable_offloads(iface) {
            Ok(refused) if !refused.is_empty() => {
                log_at!(Level::Info, "{iface}: driver kept offloads on: {}", refused.join(", "))
            }
            Err(e) => return Err(e),
            _ => {}
        }
    }
    match mode {
        IoMode::Xdp => open_xdp_any(ifaces, workers, spread, d),
        IoMode::Mmap => open_packet(ifaces, workers, spread, d, true),
        IoMode::Socket => open_packet(ifaces, workers, spread, d, false),
        IoMode::Auto => {
            let mut why = Vec::new();
            match open_xdp_any(ifaces, workers, spread, d) {
                Ok(o) => {
                    log_at!(Level::Info, "--io auto: {} on every port (the fastest mode measured; mmap and socket cost more CPU per frame)", o.mode);
                    return Ok(o);
                }
                Err(e) => why.push(format!("xdp: {e}")),
            }
            match open_packet(ifaces, workers, spread, d, true) {
                Ok(o) => {
                    log_at!(Level::Info, "--io auto: mmap, the fastest that opened (not xdp: {})", why.join("; "));
                    return Ok(o);
                }
                Err(e) => why.push(format!("mmap: {e}")),
            }
            log_at!(Level::Info, "--io auto: socket, the only mode that opened (not {})", why.join("; "));
            open_packet(ifaces, workers, spread, d, false)
        }
    }
}

/// Whether worker `w` receives from the port at position `pos`.
fn receives(spread: Spread, workers: usize, pos: usize, w: usize) -> bool {
    spread == Spread::Flow || pos % workers == w
}

fn open_packet(ifaces: &[String], workers: usize, spread: Spread, d: Depths, rings: bool) -> io::Result<Opened> {
    let mut ws: Vec<WorkerIo> = (0..workers).map(|_| WorkerIo { rx: Vec::new(), tx: Vec::new() }).collect();
    let fanout = workers > 1 && spread == Spread::Flow;
    for (pos, iface) in ifaces.iter().enumerate() {
        let mut group = None;
        for (k, w) in ws.iter_mut().enumerate() {
            if receives(spread, workers, pos, k) {
                let mut o = if rings { SocketOptions::port(d.rx) } else { SocketOptions::port_without_ring(d.rx) };
                o.timestamps = d.stamp && !rings;
                if fanout {
                    o.fanout = Some(group.map_or(Fanout::New, Fanout::Join));
                }
                let s = PacketSocket::open(iface, &o)?;
                if fanout && group.is_none() {
                    group = Some(s.fanout_group()?);
                }
                w.rx.push((pos, if rings { RxEndpoint::Ring(s) } else { RxEndpoint::Socket(s, Box::new(RecvBatch::new())) }));
            }
            let tx = if rings {
                TxEndpoint::Ring(PacketSocket::open(iface, &SocketOptions::sender(Some(tx_ring_slots(d.tx))))?)
            } else {
                TxEndpoint::Socket(PacketSocket::open(iface, &SocketOptions::sender(None))?, Box::new(TxBatch::new()))
            };
            w.tx.push(tx);
        }
    }
    Ok(Opened { workers: ws, mode: if rings { Chosen::Mmap } else { Chosen::Socket }, xdp: None })
}

/// Transmit ring slots for an egress queue of `depth` frames: room to raise
/// the depth at run time up to 1,024 without reopening the socket.
fn tx_ring_slots(depth: u32) -> u32 {
    depth.clamp(1024, crate::queues::MAX_DEPTH)
}

fn open_xdp_any(ifaces: &[String], workers: usize, spread: Spread, d: Depths) -> io::Result<Opened> {
    match open_xdp(ifaces, workers, spread, d, XdpAttachMode::Native) {
        Ok(o) => Ok(o),
        Err(native) => open_xdp(ifaces, workers, spread, d, XdpAttachMode::Generic)
            .map_err(|generic| io::Error::new(generic.kind(), format!("native XDP: {native}; generic XDP: {generic}"))),
    }
}

fn open_xdp(ifaces: &[String], workers: usize, spread: Spread, d: Depths, mode: XdpAttachMode) -> io::Result<Opened> {
    let mut ws: Vec<WorkerIo> = (0..workers).map(|_| WorkerIo { rx: Vec::new(), tx: Vec::new() }).collect();
    let sizes = XskSizes { rx: d.rx.next_power_of_two().clamp(64, 1 << 16), tx: tx_ring_slots(d.tx).next_power_of_two(), sharers: workers as u32 };
    // The program hashes over `choices` slots per receive queue; one
    // choice (slot = queue) when the port has a single worker.
    let choices = if spread == Spread::Flow { workers as u32 } else { 1 };
    let queues: Vec<u32> = ifaces.iter().map(|i| sys::rx_queues(i)).collect();
    let xsks = BpfMap::xskmap(queues.iter().map(|q| q * choices).sum()).map_err(|e| io::Error::new(e.kind(), format!("XSKMAP: {e}")))?;
    let ports = BpfMap::hash_u32(8, ifaces.len() as u32, b"p4switch_ports\0\0")
        .map_err(|e| io::Error::new(e.kind(), format!("ports map: {e}")))?;
    let mut indexes = Vec::with_capacity(ifaces.len());
    let mut first = 0u32;
    for (pos, iface) in ifaces.iter().enumerate() {
        let index = sys::ifindex(iface)?;
        ports
            .update(&(index as u32).to_ne_bytes(), &crate::xdpprog::port_entry(first, queues[pos]))
            .map_err(|e| io::Error::new(e.kind(), format!("{iface}: ports map: {e}")))?;
        indexes.push(index);
        for q in 0..queues[pos] {
            let owner = XskSocket::open_first(iface, q, sizes)?;
            let mut socks = Vec::with_capacity(workers);
            for _ in 1..workers {
                socks.push(XskSocket::open_shared(iface, q, sizes, &owner)?);
            }
            socks.insert(0, owner);
            for (w, s) in socks.into_iter().enumerate() {
                // A worker outside the map keeps its (idle) receive half: the
                // halves of one queue share the umem's fill ring.
                if receives(spread, workers, pos, w) {
                    let slot = first + if spread == Spread::Flow { q * choices + w as u32 } else { q };
                    xsks.set(slot, s.raw_fd()).map_err(|e| io::Error::new(e.kind(), format!("{iface}: XSKMAP slot: {e}")))?;
                }
                let (rx, tx) = s.split();
                ws[w].rx.push((pos, RxEndpoint::Xdp(rx)));
                if q == 0 {
                    ws[w].tx.push(TxEndpoint::Xdp(tx));
                }
            }
        }
        first += queues[pos] * choices;
    }
    let insns = crate::xdpprog::program(choices, xsks.raw_fd(), ports.raw_fd(), d.stamp);
    let prog = BpfProgram::load_xdp(&insns, true).or_else(|_| BpfProgram::load_xdp(&insns, false))?;
    let mut links = Vec::with_capacity(ifaces.len());
    for (iface, index) in ifaces.iter().zip(indexes) {
        let link = BpfLink::attach_xdp(&prog, index, mode)
            .map_err(|e| io::Error::new(e.kind(), format!("{iface}: attach XDP program: {e}")))?;
        links.push(link);
    }
    Ok(Opened { workers: ws, mode: Chosen::Xdp(mode), xdp: Some(Xdp { links, _prog: prog, _xsks: xsks, _ports: ports }) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_port_each_port_has_exactly_one_receiving_worker() {
        for workers in 1..4 {
            for pos in 0..5 {
                let n = (0..workers).filter(|&w| receives(Spread::Port, workers, pos, w)).count();
                assert_eq!(n, 1, "{workers} workers, port {pos}");
                assert!((0..workers).all(|w| receives(Spread::Flow, workers, pos, w)));
            }
        }
    }
}
