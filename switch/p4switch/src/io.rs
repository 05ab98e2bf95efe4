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
//! `auto` takes the first that opens on every port, in that order, and
//! the ready line says which. Every worker has its own receive endpoint per
//! port and its own transmit endpoint per port, so no lock is taken per frame.

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
    /// Returns (frames, frames too long to take).
    pub fn receive(&mut self, f: &mut dyn FnMut(Received<'_>)) -> io::Result<(usize, u64)> {
        match self {
            RxEndpoint::Ring(s) => {
                let Some(mut block) = s.next_block() else { return Ok((0, 0)) };
                let mut n = 0;
                while let Some(frame) = block.next_frame() {
                    n += 1;
                    f(Received { frame, csum_unknown: false });
                }
                Ok((n, 0))
            }
            RxEndpoint::Socket(s, b) => {
                let n = s.recv_batch(b)?;
                for i in 0..n {
                    if let Some(frame) = b.frame(i) {
                        f(Received { frame, csum_unknown: false });
                    }
                }
                Ok((n, 0))
            }
            RxEndpoint::Xdp(r) => {
                if !r.ready() {
                    return Ok((0, 0));
                }
                let (n, oversize) = r.recv(sys::MAX_FRAME, &mut |data| {
                    let frame = RxFrame { data, vlan: None, csum_not_ready: false, wire_len: data.len(), rx_ns: 0 };
                    f(Received { frame, csum_unknown: true })
                });
                Ok((n, oversize))
            }
        }
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
                    let now = st.rx_dropped + st.rx_ring_full + st.rx_fill_ring_empty;
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

/// Everything the ports opened; dropping it closes the sockets and detaches
/// the XDP programs.
pub struct Opened {
    pub workers: Vec<WorkerIo>,
    pub mode: Chosen,
    _xdp: Vec<XdpPort>,
}

struct XdpPort {
    _link: BpfLink,
    _prog: BpfProgram,
    _map: BpfMap,
}

/// Opens every port of `ifaces` for `workers` workers in `mode`.
pub fn open(ifaces: &[String], workers: usize, mode: IoMode, d: Depths) -> io::Result<Opened> {
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
        IoMode::Xdp => open_xdp_any(ifaces, workers, d),
        IoMode::Mmap => open_packet(ifaces, workers, d, true),
        IoMode::Socket => open_packet(ifaces, workers, d, false),
        IoMode::Auto => {
            let mut why = Vec::new();
            match open_xdp_any(ifaces, workers, d) {
                Ok(o) => return Ok(o),
                Err(e) => why.push(format!("xdp: {e}")),
            }
            match open_packet(ifaces, workers, d, true) {
                Ok(o) => {
                    log_at!(Level::Info, "--io auto: not xdp ({})", why.join("; "));
                    return Ok(o);
                }
                Err(e) => why.push(format!("mmap: {e}")),
            }
            log_at!(Level::Info, "--io auto: not xdp or mmap ({})", why.join("; "));
            open_packet(ifaces, workers, d, false)
        }
    }
}

fn open_packet(ifaces: &[String], workers: usize, d: Depths, rings: bool) -> io::Result<Opened> {
    let mut ws: Vec<WorkerIo> = (0..workers).map(|_| WorkerIo { rx: Vec::new(), tx: Vec::new() }).collect();
    for (pos, iface) in ifaces.iter().enumerate() {
        let mut group = None;
        for w in ws.iter_mut() {
            let mut o = if rings { SocketOptions::port(d.rx) } else { SocketOptions::port_without_ring() };
            if workers > 1 {
                o.fanout = Some(group.map_or(Fanout::New, Fanout::Join));
            }
            let s = PacketSocket::open(iface, &o)?;
            if workers > 1 && group.is_none() {
                group = Some(s.fanout_group()?);
            }
            w.rx.push((pos, if rings { RxEndpoint::Ring(s) } else { RxEndpoint::Socket(s, Box::new(RecvBatch::new())) }));
            let tx = if rings {
                TxEndpoint::Ring(PacketSocket::open(iface, &SocketOptions::sender(Some(tx_ring_slots(d.tx))))?)
            } else {
                TxEndpoint::Socket(PacketSocket::open(iface, &SocketOptions::sender(None))?, Box::new(TxBatch::new()))
            };
            w.tx.push(tx);
        }
    }
    Ok(Opened { workers: ws, mode: if rings { Chosen::Mmap } else { Chosen::Socket }, _xdp: Vec::new() })
}

/// Transmit ring slots for an egress queue of `depth` frames: room to raise
/// the depth at run time up to 1,024 without reopening the socket.
fn tx_ring_slots(depth: u32) -> u32 {
    depth.clamp(1024, crate::queues::MAX_DEPTH)
}

fn open_xdp_any(ifaces: &[String], workers: usize, d: Depths) -> io::Result<Opened> {
    match open_xdp(ifaces, workers, d, XdpAttachMode::Native) {
        Ok(o) => Ok(o),
        Err(native) => open_xdp(ifaces, workers, d, XdpAttachMode::Generic)
            .map_err(|generic| io::Error::new(generic.kind(), format!("native XDP: {native}; generic XDP: {generic}"))),
    }
}

fn open_xdp(ifaces: &[String], workers: usize, d: Depths, mode: XdpAttachMode) -> io::Result<Opened> {
    let mut ws: Vec<WorkerIo> = (0..workers).map(|_| WorkerIo { rx: Vec::new(), tx: Vec::new() }).collect();
    let mut keep = Vec::new();
    let sizes = XskSizes { rx: d.rx.next_power_of_two().clamp(64, 1 << 16), tx: tx_ring_slots(d.tx).next_power_of_two(), sharers: workers as u32 };
    for (pos, iface) in ifaces.iter().enumerate() {
        let queues = sys::rx_queues(iface);
        let map = BpfMap::xskmap(queues * workers as u32).map_err(|e| io::Error::new(e.kind(), format!("{iface}: XSKMAP: {e}")))?;
        for q in 0..queues {
            let first = XskSocket::open_first(iface, q, sizes)?;
            let mut socks = Vec::with_capacity(workers);
            for _ in 1..workers {
                socks.push(XskSocket::open_shared(iface, q, sizes, &first)?);
            }
            socks.insert(0, first);
            for (w, s) in socks.into_iter().enumerate() {
                map.set(q * workers as u32 + w as u32, s.raw_fd())
                    .map_err(|e| io::Error::new(e.kind(), format!("{iface}: XSKMAP slot: {e}")))?;
                let (rx, tx) = s.split();
                ws[w].rx.push((pos, RxEndpoint::Xdp(rx)));
                if q == 0 {
                    ws[w].tx.push(TxEndpoint::Xdp(tx));
                }
            }
        }
        let insns = crate::xdpprog::program(workers as u32, map.raw_fd());
        let prog = BpfProgram::load_xdp(&insns, true).or_else(|_| BpfProgram::load_xdp(&insns, false))
            .map_err(|e| io::Error::new(e.kind(), format!("{iface}: {e}")))?;
        let index = sys::ifindex(iface)?;
        let link = BpfLink::attach_xdp(&prog, index, mode)
            .map_err(|e| io::Error::new(e.kind(), format!("{iface}: attach XDP program: {e}")))?;
        keep.push(XdpPort { _link: link, _prog: prog, _map: map });
    }
    Ok(Opened { workers: ws, mode: Chosen::Xdp(mode), _xdp: keep })
}
