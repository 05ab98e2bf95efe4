//! AF_PACKET sockets (packet(7)): the `mmap` ports (a receive slot ring and a
//! transmit ring per socket), the `socket` ports (`recvmmsg`/`sendmmsg`), the
//! plain sockets that send packet-outs, and the generator's sockets.
//!
//! Set-up:
//! 1. `socket(AF_PACKET, SOCK_RAW, 0)` — protocol 0 so nothing is queued
//!    before the socket is bound to its interface;
//! 2. `PACKET_IGNORE_OUTGOING` (our own transmissions are not received again),
//!    `PACKET_QDISC_BYPASS` (transmit straight to the driver), buffer sizes,
//!    `PACKET_AUXDATA` for a socket that receives without a ring;
//! 3. the receive ring ([`RxLayout`]) or the transmit ring, mapped;
//! 4. `bind` to (ETH_P_ALL, ifindex) — or protocol 0 for a socket that only
//!    sends; `PACKET_ADD_MEMBERSHIP` promiscuous; `PACKET_FANOUT` (hash) when
//!    several workers share the port's traffic.
//!
//! The kernel removes 802.1Q tags from received frames into the ring header
//! (or the auxiliary data); [`RxFrame::vlan`] returns it so the caller can put
//! the tag back and the pipeline sees the frame as it was on the wire.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::ringmap::SOL_PACKET;
use super::rxring::{RxRing, TP_STATUS_CSUMNOTREADY};
use super::txring::TxRing;
use super::{cvt, getsockopt, ifindex, mtu_of, owned, setsockopt, MAX_FRAME};
pub use super::rxring::{RxBlock, RxFrame, RxLayout};

const ETH_P_ALL: u16 = 0x0003;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_MR_PROMISC: u16 = 1;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_AUXDATA: libc::c_int = 8;
const PACKET_FANOUT: libc::c_int = 18;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_FANOUT_HASH: u32 = 0;
const PACKET_FANOUT_FLAG_UNIQUEID: u32 = 0x2000;

/// Frames per `sendmmsg` batch (a [`TxBatch`]).
pub const TX_BATCH: usize = 64;
/// Frames per `recvmmsg` on a socket without a ring (a [`RecvBatch`]).
pub const RX_BATCH: usize = 64;
/// Bytes per transmit ring slot; larger frames are sent with a plain `send`.
const TX_RING_FRAME_SIZE: u32 = 2048;
/// Receive buffer per frame of a ring-less port's queue. The kernel charges
/// a queued frame its socket-buffer size (~0.9 KiB for a 64-byte frame from a
/// veth, ~2.3 KiB for 1500 bytes) against `SO_RCVBUF`: 2 KiB per frame bounds
/// the queue near the ring modes' `--rx-depth` frames of full size (about
/// twice as many small ones). Without it the queue held ~10,000 small frames
/// (4 MiB, doubled by the kernel): tens of milliseconds at the zero-loss rate.
pub const RCVBUF_PER_FRAME: usize = 2048;

#[repr(C)]
struct PacketMreq {
    ifindex: i32,
    kind: u16,
    alen: u16,
    address: [u8; 8],
}

/// Joining a fanout group: the kernel spreads the interface's frames over the
/// group's sockets by flow hash, so one flow always reaches the same socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fanout {
    /// Start a new group with an id the kernel picks (read it with [`PacketSocket::fanout_group`]).
    New,
    /// Join group `id`.
    Join(u16),
}

/// Options of [`PacketSocket::open`].
#[derive(Clone, Debug)]
pub struct SocketOptions {
    /// The receive ring, or `None`.
    pub rx: Option<RxLayout>,
    /// Receive without a ring ([`PacketSocket::recv_batch`]).
    pub receive: bool,
    /// Without a ring: bound the socket's receive queue to about this many
    /// frames (see [`RCVBUF_PER_FRAME`]); `None` keeps the large default.
    pub queue_frames: Option<u32>,
    /// A transmit ring of this many slots (only on a socket without a receive
    /// ring: the two rings would need different TPACKET versions).
    pub tx_ring: Option<u32>,
    /// Put the interface in promiscuous mode.
    pub promiscuous: bool,
    pub fanout: Option<Fanout>,
    /// Without a ring: ask for each frame's receive time (`SO_TIMESTAMPNS`,
    /// CLOCK_REALTIME, in [`RxFrame::rx_ns`]). Off unless asked: while any
    /// socket asks, the kernel stamps every frame it receives.
    pub timestamps: bool,
}

impl SocketOptions {
    /// A switch port's receive socket with a slot ring of `frames` slots.
    pub fn port(frames: u32) -> SocketOptions {
        SocketOptions { rx: Some(RxLayout::Slots { frames }), receive: true, queue_frames: None, tx_ring: None, promiscuous: true, fanout: None, timestamps: false }
    }
    /// A switch port's receive socket without a ring (`recvmmsg`) whose
    /// receive queue holds about `frames` frames.
    pub fn port_without_ring(frames: u32) -> SocketOptions {
        SocketOptions { rx: None, receive: true, queue_frames: Some(frames), tx_ring: None, promiscuous: true, fanout: None, timestamps: false }
    }
    /// A socket that only sends, with a transmit ring of `tx_ring` slots or without one.
    pub fn sender(tx_ring: Option<u32>) -> SocketOptions {
        SocketOptions { rx: None, receive: false, queue_frames: None, tx_ring, promiscuous: false, fanout: None, timestamps: false }
    }
}

/// A new AF_PACKET socket set up for sending: protocol 0 (nothing is queued to
/// it before `bind`), our own transmissions not looped back to it, the qdisc
/// bypassed if `bypass_qdisc` (a bypassed qdisc also skips software
/// segmentation), large buffers.
pub(crate) fn transmit_socket(iface: &str, bypass_qdisc: bool) -> io::Result<OwnedFd> {
    let ctx = |e: io::Error, what: &str| io::Error::new(e.kind(), format!("{iface}: {what}: {e}"));
    // SAFETY: plain socket creation; `owned` takes the descriptor.
    let fd = owned(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })
        .map_err(|e| ctx(e, "AF_PACKET socket (needs root or CAP_NET_RAW)"))?;
    let fdr = fd.as_raw_fd();
    let big: libc::c_int = 4 << 20;
    let _ = setsockopt(fdr, libc::SOL_SOCKET, libc::SO_SNDBUF, &big);
    let _ = setsockopt(fdr, libc::SOL_SOCKET, libc::SO_RCVBUF, &big);
    let one: libc::c_int = 1;
    setsockopt(fdr, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one).map_err(|e| ctx(e, "PACKET_IGNORE_OUTGOING"))?;
    if bypass_qdisc {
        setsockopt(fdr, SOL_PACKET, PACKET_QDISC_BYPASS, &one).map_err(|e| ctx(e, "PACKET_QDISC_BYPASS"))?;
    }
    Ok(fd)
}

#[repr(C)]
struct SockaddrLl {
    family: u16,
    protocol: u16,
    ifindex: i32,
    hatype: u16,
    pkttype: u8,
    halen: u8,
    addr: [u8; 8],
}

/// Binds `fd` to interface `ifindex` for `protocol` (0: send only).
pub(crate) fn bind(fd: RawFd, ifindex: i32, protocol: u16) -> io::Result<()> {
    let addr = SockaddrLl { family: libc::AF_PACKET as u16, protocol: protocol.to_be(), ifindex, hatype: 0, pkttype: 0, halen: 0, addr: [0; 8] };
    // SAFETY: addr is a valid sockaddr_ll of the given length.
    cvt(unsafe {
        libc::bind(fd, &addr as *const SockaddrLl as *const libc::sockaddr, std::mem::size_of::<SockaddrLl>() as libc::socklen_t)
    })?;
    Ok(())
}

/// Sends one buffer on `fd`, retrying on EINTR.
pub(crate) fn send_raw(fd: RawFd, buf: &[u8]) -> io::Result<()> {
    loop {
        // SAFETY: buf is a valid buffer for the call.
        let r = unsafe { libc::send(fd, buf.as_ptr() as *const libc::c_void, buf.len(), 0) };
        if r >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

fn refused(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOBUFS) | Some(libc::EAGAIN))
}

/// An AF_PACKET socket bound to one interface.
pub struct PacketSocket {
    ring: Option<RxRing>,
    tx: Option<TxRing>,
    /// With a transmit ring every `send` on `fd` goes through the ring, so frames
    /// larger than a ring slot leave through this second socket.
    large: Option<OwnedFd>,
    fd: OwnedFd,
    name: String,
}

impl PacketSocket {
    /// Opens a socket bound to `iface` (see the module docs for the set-up).
    pub fn open(iface: &str, opts: &SocketOptions) -> io::Result<PacketSocket> {
        let ifindex = ifindex(iface)?;
        let ctx = |e: io::Error, what: &str| io::Error::new(e.kind(), format!("{iface}: {what}: {e}"));
        let fd = transmit_socket(iface, true)?;
        let mut sock = PacketSocket { ring: None, tx: None, large: None, fd, name: iface.to_string() };
        let fdr = sock.fd.as_raw_fd();
        if let Some(layout) = opts.rx {
            let mtu = mtu_of(fdr, iface).map_err(|e| ctx(e, "MTU"))?;
            sock.ring = Some(RxRing::setup(fdr, layout, mtu).map_err(|e| ctx(e, "receive ring"))?);
        } else if opts.receive {
            let one: libc::c_int = 1;
            setsockopt(fdr, SOL_PACKET, PACKET_AUXDATA, &one).map_err(|e| ctx(e, "PACKET_AUXDATA"))?;
            if opts.timestamps {
                setsockopt(fdr, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, &one).map_err(|e| ctx(e, "SO_TIMESTAMPNS"))?;
            }
            if let Some(frames) = opts.queue_frames {
                // The kernel doubles the value (bookkeeping overhead); FORCE
                // (root) passes rmem_max for deep queues.
                let half = (frames as usize * RCVBUF_PER_FRAME / 2).min(i32::MAX as usize) as libc::c_int;
                setsockopt(fdr, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &half)
                    .or_else(|_| setsockopt(fdr, libc::SOL_SOCKET, libc::SO_RCVBUF, &half))
                    .map_err(|e| ctx(e, "SO_RCVBUF"))?;
            }
        }
        if let Some(slots) = opts.tx_ring {
            if opts.rx.is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{iface}: a socket has a receive or a transmit ring, not both"),
                ));
            }
            let ring = TxRing::setup(fdr, slots.max(2), TX_RING_FRAME_SIZE).map_err(|e| ctx(e, "PACKET_TX_RING"))?;
            sock.tx = Some(ring);
            let large = transmit_socket(iface, true)?;
            bind(large.as_raw_fd(), ifindex, 0).map_err(|e| ctx(e, "bind"))?;
            sock.large = Some(large);
        }
        // A socket that only sends is bound with protocol 0: no receive hook,
        // so the kernel does not queue every frame of the interface to it.
        let protocol = if opts.rx.is_some() || opts.receive { ETH_P_ALL } else { 0 };
        bind(fdr, ifindex, protocol).map_err(|e| ctx(e, "bind"))?;
        if opts.promiscuous {
            let mreq = PacketMreq { ifindex, kind: PACKET_MR_PROMISC, alen: 0, address: [0; 8] };
            setsockopt(fdr, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq).map_err(|e| ctx(e, "promiscuous mode"))?;
        }
        if let Some(f) = opts.fanout {
            let arg: u32 = match f {
                Fanout::New => (PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID) << 16,
                Fanout::Join(id) => (PACKET_FANOUT_HASH << 16) | id as u32,
            };
            setsockopt(fdr, SOL_PACKET, PACKET_FANOUT, &arg).map_err(|e| ctx(e, "PACKET_FANOUT"))?;
        }
        Ok(sock)
    }

    /// The interface this socket is bound to.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The descriptor, for `poll`.
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The id of the fanout group this socket belongs to.
    pub fn fanout_group(&self) -> io::Result<u16> {
        let mut v: u32 = 0;
        getsockopt(self.fd.as_raw_fd(), SOL_PACKET, PACKET_FANOUT, &mut v)?;
        Ok(v as u16)
    }

    /// Whether the kernel has handed over a frame (without taking it).
    pub fn block_ready(&self) -> bool {
        self.ring.as_ref().is_some_and(|r| r.ready())
    }

    /// The frames the kernel has handed over, if any.
    pub fn next_block(&mut self) -> Option<RxBlock<'_>> {
        self.ring.as_mut()?.next_batch()
    }

    /// Sends one frame (behind the frames already queued on the transmit ring).
    pub fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        if self.tx.is_some() {
            if !self.queue(frame)? {
                return Err(io::Error::from_raw_os_error(libc::ENOBUFS));
            }
            return self.flush();
        }
        send_raw(self.fd.as_raw_fd(), frame)
    }

    /// Sends one frame through a socket shared by threads (no transmit ring).
    pub fn send_shared(&self, frame: &[u8]) -> io::Result<()> {
        send_raw(self.large.as_ref().unwrap_or(&self.fd).as_raw_fd(), frame)
    }

    /// Slots of the transmit ring (0 without one).
    pub fn tx_slots(&self) -> usize {
        self.tx.as_ref().map_or(0, |t| t.slots())
    }

    /// Queues `frame` on the transmit ring for the next [`Self::flush`]; a frame
    /// larger than a slot is sent at once behind the queued ones. `Ok(false)`:
    /// the ring is full (every slot queued or still in flight) even after a
    /// flush, and the frame was not taken (the caller counts it as dropped).
    pub fn queue(&mut self, frame: &[u8]) -> io::Result<bool> {
        self.queue_limited(frame, usize::MAX)
    }

    /// [`Self::queue`] that refuses the frame while `limit` frames are queued
    /// or in flight on the ring (the egress queue depth).
    pub fn queue_limited(&mut self, frame: &[u8], limit: usize) -> io::Result<bool> {
        let fd = self.fd.as_raw_fd();
        let Some(ring) = self.tx.as_mut() else {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "no transmit ring"));
        };
        if frame.len() > ring.capacity() {
            ring.flush(fd)?;
            let large = self.large.as_ref().unwrap_or(&self.fd).as_raw_fd();
            return match send_raw(large, frame) {
                Ok(()) => Ok(true),
                Err(e) if refused(&e) => Ok(false),
                Err(e) => Err(e),
            };
        }
        if ring.push_limited(frame, limit) {
            return Ok(true);
        }
        ring.flush(fd)?;
        Ok(ring.push_limited(frame, limit))
    }

    /// Hands the frames queued on the transmit ring to the kernel.
    pub fn flush(&mut self) -> io::Result<()> {
        let fd = self.fd.as_raw_fd();
        match self.tx.as_mut() {
            Some(ring) => ring.flush(fd),
            None => Ok(()),
        }
    }

    /// Sends the frames of `batch` and empties it: through the transmit ring if
    /// the socket has one, else with as few `sendmmsg` calls as possible.
    /// Returns how many frames the kernel accepted; frames refused because the
    /// device queue is full (ENOBUFS) count as lost, like on a wire.
    pub fn send_batch(&mut self, batch: &mut TxBatch) -> io::Result<usize> {
        if self.tx.is_some() {
            let mut accepted = 0;
            let mut result = Ok(());
            for i in 0..batch.lens.len() {
                let len = batch.lens[i] as usize;
                match self.queue(&batch.buf[i * MAX_FRAME..i * MAX_FRAME + len]) {
                    Ok(true) => accepted += 1,
                    Ok(false) => batch.lost += 1,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            batch.lens.clear();
            return result.and_then(|_| self.flush()).map(|_| accepted);
        }
        let n = batch.lens.len();
        let mut iovs: [libc::iovec; TX_BATCH] = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; TX_BATCH];
        // SAFETY: mmsghdr is plain data; all-zero is a valid value.
        let mut msgs: [libc::mmsghdr; TX_BATCH] = unsafe { std::mem::zeroed() };
        for i in 0..n {
            iovs[i].iov_base = batch.buf[i * MAX_FRAME..].as_mut_ptr() as *mut libc::c_void;
            iovs[i].iov_len = batch.lens[i] as usize;
            msgs[i].msg_hdr.msg_iov = &mut iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        let mut sent = 0usize;
        let lost_at_start = batch.lost;
        let mut result = Ok(());
        while sent < n {
            // SAFETY: msgs[sent..n] point to iovecs that point into batch.buf.
            let r = unsafe { libc::sendmmsg(self.fd.as_raw_fd(), msgs[sent..].as_mut_ptr(), (n - sent) as libc::c_uint, 0) };
            if r < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(libc::ENOBUFS) | Some(libc::EAGAIN) => {
                        // Drop the frame at the head, keep going with the rest.
                        sent += 1;
                        batch.lost += 1;
                        continue;
                    }
                    _ => {
                        result = Err(e);
                        break;
                    }
                }
            }
            sent += r as usize;
        }
        let accepted = sent.saturating_sub((batch.lost - lost_at_start) as usize);
        batch.lens.clear();
        result.map(|_| accepted)
    }

    /// Receives the frames waiting on a socket without a ring (at most
    /// [`RX_BATCH`]) into `batch`, without blocking; returns how many.
    pub fn recv_batch(&self, batch: &mut RecvBatch) -> io::Result<usize> {
        batch.count = 0;
        let mut iovs: [libc::iovec; RX_BATCH] = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; RX_BATCH];
        // SAFETY: mmsghdr is plain data; all-zero is a valid value.
        let mut msgs: [libc::mmsghdr; RX_BATCH] = unsafe { std::mem::zeroed() };
        for i in 0..RX_BATCH {
            iovs[i].iov_base = batch.buf[i * RECV_SLOT..].as_mut_ptr() as *mut libc::c_void;
            iovs[i].iov_len = RECV_SLOT;
            msgs[i].msg_hdr.msg_iov = &mut iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_control = batch.ctrl[i * CTRL_LEN..].as_mut_ptr() as *mut libc::c_void;
            msgs[i].msg_hdr.msg_controllen = CTRL_LEN as _;
        }
        let r = loop {
            // SAFETY: msgs point to iovecs and control buffers inside `batch`, all live for the call.
            let r = unsafe {
                libc::recvmmsg(self.fd.as_raw_fd(), msgs.as_mut_ptr(), RX_BATCH as libc::c_uint, libc::MSG_DONTWAIT | libc::MSG_TRUNC, std::ptr::null_mut())
            };
            if r >= 0 {
                break r as usize;
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => return Ok(0),
                _ => return Err(e),
            }
        };
        for (i, m) in msgs.iter().enumerate().take(r) {
            let mut meta = RecvMeta { wire_len: m.msg_len as usize, status: 0, tci: 0, tpid: 0, rx_ns: 0 };
            // SAFETY: CMSG_* walk the control buffer the kernel filled, within msg_controllen.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&m.msg_hdr);
                while !c.is_null() {
                    if (*c).cmsg_level == SOL_PACKET && (*c).cmsg_type == PACKET_AUXDATA {
                        let d = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const [u8; 20]);
                        meta.status = u32::from_ne_bytes([d[0], d[1], d[2], d[3]]);
                        meta.tci = u16::from_ne_bytes([d[16], d[17]]);
                        meta.tpid = u16::from_ne_bytes([d[18], d[19]]);
                    } else if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                        let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                        meta.rx_ns = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
                    }
                    c = libc::CMSG_NXTHDR(&m.msg_hdr, c);
                }
            }
            batch.meta[i] = meta;
        }
        batch.count = r;
        Ok(r)
    }

    /// Takes the socket's pending error (SO_ERROR), e.g. ENETDOWN after the
    /// interface went down or was deleted; reading it clears it, so `poll`
    /// stops reporting it.
    pub fn take_error(&self) -> Option<io::Error> {
        let mut err: libc::c_int = 0;
        if let Err(e) = getsockopt(self.fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_ERROR, &mut err) {
            return Some(e);
        }
        (err != 0).then(|| io::Error::from_raw_os_error(err))
    }

    /// Kernel receive statistics since the last call: (packets, drops).
    pub fn take_stats(&self) -> io::Result<(u64, u64)> {
        let mut st = [0u32; 3];
        getsockopt(self.fd.as_raw_fd(), SOL_PACKET, PACKET_STATISTICS, &mut st)?;
        Ok((st[0] as u64, st[1] as u64))
    }
}

/// Bytes of one receive buffer of a socket without a ring: a jumbo frame and
/// a little more, so a larger frame shows as truncated.
const RECV_SLOT: usize = MAX_FRAME + 64;
/// Control bytes per frame: PACKET_AUXDATA (40) and SCM_TIMESTAMPNS (32).
const CTRL_LEN: usize = 128;

#[derive(Clone, Copy, Default)]
struct RecvMeta {
    wire_len: usize,
    status: u32,
    tci: u16,
    tpid: u16,
    rx_ns: u64,
}

/// Buffers for [`PacketSocket::recv_batch`] (preallocated, reused).
pub struct RecvBatch {
    buf: Vec<u8>,
    ctrl: Vec<u8>,
    meta: [RecvMeta; RX_BATCH],
    count: usize,
}

impl Default for RecvBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl RecvBatch {
    pub fn new() -> RecvBatch {
        RecvBatch { buf: vec![0; RECV_SLOT * RX_BATCH], ctrl: vec![0; CTRL_LEN * RX_BATCH], meta: [RecvMeta::default(); RX_BATCH], count: 0 }
    }
    /// Frames received by the last call.
    pub fn len(&self) -> usize {
        self.count
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Frame `i` (< `len()`).
    pub fn frame(&self, i: usize) -> Option<RxFrame<'_>> {
        if i >= self.count {
            return None;
        }
        let m = self.meta[i];
        let data = &self.buf[i * RECV_SLOT..i * RECV_SLOT + m.wire_len.min(RECV_SLOT)];
        Some(RxFrame {
            data,
            vlan: super::rxring::vlan_of(m.status, m.tci, m.tpid),
            csum_not_ready: m.status & TP_STATUS_CSUMNOTREADY != 0,
            wire_len: m.wire_len,
            rx_ns: m.rx_ns,
        })
    }
}

/// A batch of frames to transmit on one socket (preallocated, no allocation per frame).
pub struct TxBatch {
    buf: Vec<u8>,
    lens: Vec<u32>,
    /// Frames dropped because the device refused them.
    pub lost: u64,
}

impl Default for TxBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl TxBatch {
    pub fn new() -> TxBatch {
        TxBatch { buf: vec![0; MAX_FRAME * TX_BATCH], lens: Vec::with_capacity(TX_BATCH), lost: 0 }
    }
    /// Whether no more frames fit.
    pub fn is_full(&self) -> bool {
        self.lens.len() >= TX_BATCH
    }
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }
    pub fn len(&self) -> usize {
        self.lens.len()
    }
    /// Copies `frame` (truncated to [`MAX_FRAME`]) into the batch; false (and
    /// counted as lost) if the batch is full.
    pub fn push(&mut self, frame: &[u8]) -> bool {
        if self.is_full() {
            self.lost += 1;
            return false;
        }
        let n = frame.len().min(MAX_FRAME);
        let i = self.lens.len();
        self.buf[i * MAX_FRAME..i * MAX_FRAME + n].copy_from_slice(&frame[..n]);
        self.lens.push(n as u32);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_socket_opens_and_sends_a_batch() {
        // Root is available on the project's machines; loopback always exists.
        let mut s = PacketSocket::open("lo", &SocketOptions::sender(None)).unwrap();
        let mut b = TxBatch::new();
        assert!(b.push(&[0u8; 60]));
        assert!(b.push(&[0xffu8; 64]));
        assert_eq!(b.len(), 2);
        assert_eq!(s.send_batch(&mut b).unwrap(), 2);
        assert!(b.is_empty());
    }

    #[test]
    fn a_full_batch_counts_what_it_cannot_take() {
        let mut b = TxBatch::new();
        for _ in 0..TX_BATCH {
            assert!(b.push(&[1u8; 60]));
        }
        assert!(b.is_full());
        assert!(!b.push(&[2u8; 60]));
        assert_eq!(b.lost, 1);
    }

    #[test]
    fn fanout_groups_get_an_id_others_can_join() {
        let mut o = SocketOptions::port_without_ring(64);
        o.promiscuous = false;
        o.fanout = Some(Fanout::New);
        let a = PacketSocket::open("lo", &o).unwrap();
        let id = a.fanout_group().unwrap();
        o.fanout = Some(Fanout::Join(id));
        let b = PacketSocket::open("lo", &o).unwrap();
        assert_eq!(b.fanout_group().unwrap(), id);
        let mut batch = RecvBatch::new();
        // Nothing is waiting on a fresh socket (or only loopback chatter): never blocks.
        let _ = a.recv_batch(&mut batch).unwrap();
    }
}
