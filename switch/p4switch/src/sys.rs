//! With `rxring` and `txring`, the only modules with `unsafe` code and libc
//! calls: AF_PACKET sockets, batched transmit with `sendmmsg` (or through a
//! transmit ring), interface set-up (promiscuous mode, offloads off, MTU)
//! through ioctls, `poll`, and a SIGINT/SIGTERM flag. Everything here returns
//! `io::Result`; nothing panics on kernel data.
//!
//! Socket set-up follows packet(7):
//! 1. `socket(AF_PACKET, SOCK_RAW, 0)` — protocol 0 so nothing is queued
//!    before the socket is bound to its interface;
//! 2. `PACKET_IGNORE_OUTGOING` (our own transmissions are not received again),
//!    `PACKET_QDISC_BYPASS` (transmit straight to the driver), buffer sizes;
//! 3. the receive ring ([`RxLayout`]) or the transmit ring, mapped;
//! 4. `bind` to (ETH_P_ALL, ifindex) — or protocol 0 for a socket that only
//!    sends; `PACKET_ADD_MEMBERSHIP` promiscuous.
//!
//! The kernel removes 802.1Q tags from received frames into the ring header;
//! [`RxFrame::vlan`] returns it so the caller can put the tag back and the
//! pipeline sees the frame as it was on the wire.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use crate::rxring::{RxBlock, RxFrame, RxLayout};
use crate::rxring::RxRing;
use crate::txring::TxRing;

const ETH_P_ALL: u16 = 0x0003;
use crate::ringmap::SOL_PACKET;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_MR_PROMISC: u16 = 1;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;


const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_SRXCSUM: u32 = 0x15;
const ETHTOOL_GTXCSUM: u32 = 0x16;
const ETHTOOL_STXCSUM: u32 = 0x17;
const ETHTOOL_SSG: u32 = 0x19;
const ETHTOOL_STSO: u32 = 0x1f;
const ETHTOOL_SGSO: u32 = 0x24;
const ETHTOOL_SGRO: u32 = 0x2c;

/// Largest frame the switch receives or sends (jumbo frames up to 9216 bytes).
pub const MAX_FRAME: usize = 9216;

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

#[repr(C)]
struct PacketMreq {
    ifindex: i32,
    kind: u16,
    alen: u16,
    address: [u8; 8],
}

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
struct IfreqData {
    name: [u8; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

pub(crate) fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: `value` points to a live T of the given size for the duration of the call.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// Interface index of `name`, or an error naming the interface.
pub fn ifindex(name: &str) -> io::Result<i32> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid interface name {name:?}"),
        ));
    }
    let c = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("invalid interface name {name:?}")))?;
    // SAFETY: `c` is a valid NUL-terminated string.
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if idx == 0 {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no such network interface {name:?}"),
        ));
    }
    Ok(idx as i32)
}

/// One ethtool value command (`ETHTOOL_G*`/`ETHTOOL_S*`) on `iface`: returns the
/// value the kernel wrote back (for a get) or `data` (for a set).
fn ethtool_value(sock: &OwnedFd, iface: &str, cmd: u32, data: u32) -> io::Result<u32> {
    let mut value = EthtoolValue { cmd, data };
    let mut req = IfreqData {
        name: [0; libc::IFNAMSIZ],
        data: &mut value as *mut EthtoolValue as *mut libc::c_void,
        _pad: [0; 16],
    };
    let n = iface.len().min(libc::IFNAMSIZ - 1);
    req.name[..n].copy_from_slice(&iface.as_bytes()[..n]);
    // SAFETY: req is a properly laid out ifreq whose data points to `value`.
    cvt(unsafe { libc::ioctl(sock.as_raw_fd(), SIOCETHTOOL as _, &mut req as *mut IfreqData) })?;
    Ok(value.data)
}

/// A datagram socket for interface ioctls (in the calling thread's namespace).
fn ioctl_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation; the fd is owned right away.
    let fd = cvt(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: fd is a fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Turns off checksum offload, scatter-gather, TSO, GSO and GRO on `iface` so
/// frames seen through AF_PACKET are wire frames. Returns the settings that the
/// driver refused (a veth accepts all of them).
pub fn disable_offloads(iface: &str) -> io::Result<Vec<&'static str>> {
    let sock = ioctl_socket()?;
    let mut refused = Vec::new();
    for (cmd, what) in [
        (ETHTOOL_SGRO, "gro"),
        (ETHTOOL_SGSO, "gso"),
        (ETHTOOL_STSO, "tso"),
        (ETHTOOL_SSG, "sg"),
        (ETHTOOL_STXCSUM, "tx-checksum"),
        (ETHTOOL_SRXCSUM, "rx-checksum"),
    ] {
        if ethtool_value(&sock, iface, cmd, 0).is_err() {
            refused.push(what);
        }
    }
    Ok(refused)
}

/// Whether `iface` offloads transmit checksums. When it does not, the kernel
/// also cannot hand it UDP segmentation (it needs checksum offload), so UDP GSO
/// super-frames are cut into wire frames before they reach the device.
pub fn tx_checksum_offload(iface: &str) -> io::Result<bool> {
    let sock = ioctl_socket()?;
    ethtool_value(&sock, iface, ETHTOOL_GTXCSUM, 0)
        .map(|v| v != 0)
        .map_err(|e| io::Error::new(e.kind(), format!("{iface}: ethtool tx-checksum: {e}")))
}

/// Options of [`PacketSocket::open`].
#[derive(Clone, Debug)]
pub struct SocketOptions {
    /// The receive ring, or `None` for a socket that only sends.
    pub rx: Option<RxLayout>,
    /// Create a transmit ring (only on a socket without a receive ring: the
    /// two rings would need different TPACKET versions).
    pub tx_ring: bool,
    /// Put the interface in promiscuous mode.
    pub promiscuous: bool,
}

/// Receive ring memory per port when the switch has `ports` ports: 128 MiB
/// shared, between 8 and 64 MiB each. A slot ring needs a 2 KiB slot even for a
/// 64-byte frame, and its depth is what absorbs the worker being descheduled:
/// 64 MiB is 32,768 slots (80 ms at 400 kpps), 8 MiB is 4,096 (10 ms), which
/// lost frames in zero-loss searches on the shared 2-core machine.
pub fn port_ring_bytes(ports: usize) -> u64 {
    ((128u64 << 20) / ports.max(1) as u64).clamp(8 << 20, 64 << 20)
}

impl SocketOptions {
    /// A switch port's receive socket: promiscuous, a slot ring of `ring_bytes`
    /// (see [`port_ring_bytes`]).
    pub fn port(ring_bytes: u64) -> SocketOptions {
        SocketOptions { rx: Some(RxLayout::Slots { bytes: ring_bytes }), tx_ring: false, promiscuous: true }
    }
    /// A socket that only sends, with or without a transmit ring.
    pub fn sender(tx_ring: bool) -> SocketOptions {
        SocketOptions { rx: None, tx_ring, promiscuous: false }
    }
}

/// An AF_PACKET socket bound to one interface.
pub struct PacketSocket {
    ring: Option<RxRing>,
    tx: Option<Mutex<TxRing>>,
    /// With a transmit ring every `send` on `fd` goes through the ring, so frames
    /// larger than a ring slot leave through this second socket.
    large: Option<OwnedFd>,
    fd: OwnedFd,
    name: String,
}

/// The MTU of `iface`, asked through socket `fd` (so in the socket's network namespace).
fn mtu_of(fd: RawFd, iface: &str) -> io::Result<u32> {
    const SIOCGIFMTU: libc::c_ulong = 0x8921;
    #[repr(C)]
    struct IfreqMtu {
        name: [u8; libc::IFNAMSIZ],
        mtu: libc::c_int,
        _pad: [u8; 20],
    }
    let mut req = IfreqMtu { name: [0; libc::IFNAMSIZ], mtu: 0, _pad: [0; 20] };
    let n = iface.len().min(libc::IFNAMSIZ - 1);
    req.name[..n].copy_from_slice(&iface.as_bytes()[..n]);
    // SAFETY: req is a valid ifreq-sized buffer for SIOCGIFMTU.
    cvt(unsafe { libc::ioctl(fd, SIOCGIFMTU as _, &mut req as *mut IfreqMtu) })?;
    Ok(req.mtu.max(0) as u32)
}

/// A new AF_PACKET socket set up for sending: protocol 0 (nothing is queued to
/// it before `bind`), our own transmissions not looped back to it, the qdisc
/// bypassed if `bypass_qdisc` (a bypassed qdisc also skips software
/// segmentation), large buffers.
pub(crate) fn transmit_socket(iface: &str, bypass_qdisc: bool) -> io::Result<OwnedFd> {
    let ctx = |e: io::Error, what: &str| io::Error::new(e.kind(), format!("{iface}: {what}: {e}"));
    // SAFETY: plain socket creation; the fd is owned right away.
    let raw = cvt(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })
        .map_err(|e| ctx(e, "AF_PACKET socket (needs root or CAP_NET_RAW)"))?;
    // SAFETY: raw is a fresh descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
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

/// Binds `fd` to interface `ifindex` for `protocol` (0: send only).
pub(crate) fn bind(fd: RawFd, ifindex: i32, protocol: u16) -> io::Result<()> {
    let addr = SockaddrLl {
        family: libc::AF_PACKET as u16,
        protocol: protocol.to_be(),
        ifindex,
        hatype: 0,
        pkttype: 0,
        halen: 0,
        addr: [0; 8],
    };
    // SAFETY: addr is a valid sockaddr_ll of the given length.
    cvt(unsafe {
        libc::bind(fd, &addr as *const SockaddrLl as *const libc::sockaddr, std::mem::size_of::<SockaddrLl>() as libc::socklen_t)
    })?;
    Ok(())
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
        }
        if opts.tx_ring {
            if opts.rx.is_some() {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{iface}: a socket has a receive or a transmit ring, not both")));
            }
            let ring = TxRing::setup(fdr, TX_RING_FRAMES, TX_RING_FRAME_SIZE).map_err(|e| ctx(e, "PACKET_TX_RING"))?;
            sock.tx = Some(Mutex::new(ring));
            let large = transmit_socket(iface, true)?;
            bind(large.as_raw_fd(), ifindex, 0).map_err(|e| ctx(e, "bind"))?;
            sock.large = Some(large);
        }
        // A socket without a receive ring is for sending: protocol 0 binds it
        // without a receive hook, so the kernel does not queue every frame of
        // the interface to it only to drop them.
        let protocol = if opts.rx.is_some() { ETH_P_ALL } else { 0 };
        bind(fdr, ifindex, protocol).map_err(|e| ctx(e, "bind"))?;
        if opts.promiscuous {
            let mreq = PacketMreq { ifindex, kind: PACKET_MR_PROMISC, alen: 0, address: [0; 8] };
            setsockopt(fdr, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq).map_err(|e| ctx(e, "promiscuous mode"))?;
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

    /// Whether the kernel has handed over a frame (without taking it).
    pub fn block_ready(&self) -> bool {
        self.ring.as_ref().is_some_and(|r| r.ready())
    }

    /// The frames the kernel has handed over, if any.
    pub fn next_block(&mut self) -> Option<RxBlock<'_>> {
        self.ring.as_mut()?.next_batch()
    }

    /// Sends one frame (behind the frames already queued on the transmit ring).
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        if let Some(tx) = &self.tx {
            let mut ring = tx.lock().unwrap_or_else(|p| p.into_inner());
            if frame.len() <= ring.capacity() {
                if !ring.push(frame) {
                    ring.flush(self.fd.as_raw_fd())?;
                    if !ring.push(frame) {
                        return Err(io::Error::from_raw_os_error(libc::ENOBUFS));
                    }
                }
                return ring.flush(self.fd.as_raw_fd());
            }
            ring.flush(self.fd.as_raw_fd())?;
        }
        self.send_direct(frame)
    }

    fn send_direct(&self, frame: &[u8]) -> io::Result<()> {
        let fd = self.large.as_ref().unwrap_or(&self.fd).as_raw_fd();
        // SAFETY: frame is a valid buffer for the call.
        let r = unsafe { libc::send(fd, frame.as_ptr() as *const libc::c_void, frame.len(), 0) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Sends the frames of `batch` with as few `sendmmsg` calls as possible and
    /// empties it. Returns how many frames the kernel accepted; frames refused
    /// because the device queue is full (ENOBUFS) count as lost, like on a wire.
    pub fn send_batch(&self, batch: &mut TxBatch) -> io::Result<usize> {
        if let Some(tx) = &self.tx {
            return self.send_batch_ring(tx, batch);
        }
        let n = batch.lens.len();
        let mut iovs: [libc::iovec; TX_BATCH] =
            [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; TX_BATCH];
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
            let r = unsafe {
                libc::sendmmsg(self.fd.as_raw_fd(), msgs[sent..].as_mut_ptr(), (n - sent) as libc::c_uint, 0)
            };
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

    /// `send_batch` through the transmit ring: frames go into free slots (a
    /// full ring is flushed once, then frames without a slot are lost); a frame
    /// larger than a slot follows the queued ones with a plain `send`.
    fn send_batch_ring(&self, tx: &Mutex<TxRing>, batch: &mut TxBatch) -> io::Result<usize> {
        let fd = self.fd.as_raw_fd();
        let mut ring = tx.lock().unwrap_or_else(|p| p.into_inner());
        let mut accepted = 0usize;
        let mut result = Ok(());
        for (i, &len) in batch.lens.iter().enumerate() {
            let frame = &batch.buf[i * MAX_FRAME..i * MAX_FRAME + len as usize];
            if frame.len() > ring.capacity() {
                if let Err(e) = ring.flush(fd) {
                    result = Err(e);
                    break;
                }
                match self.send_direct(frame) {
                    Ok(()) => accepted += 1,
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ENOBUFS) | Some(libc::EAGAIN)) => batch.lost += 1,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
                continue;
            }
            if !ring.push(frame) {
                if let Err(e) = ring.flush(fd) {
                    result = Err(e);
                    break;
                }
                if !ring.push(frame) {
                    batch.lost += 1;
                    continue;
                }
            }
            accepted += 1;
        }
        if result.is_ok() {
            result = ring.flush(fd);
        }
        batch.lens.clear();
        result.map(|_| accepted)
    }

    /// Takes the socket's pending error (SO_ERROR), e.g. ENETDOWN after the
    /// interface went down or was deleted; reading it clears it, so `poll`
    /// stops reporting it.
    pub fn take_error(&self) -> Option<io::Error> {
        let mut err: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: err/len describe a valid c_int buffer.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                &mut err as *mut libc::c_int as *mut libc::c_void,
                &mut len,
            )
        };
        if r < 0 {
            return Some(io::Error::last_os_error());
        }
        (err != 0).then(|| io::Error::from_raw_os_error(err))
    }

    /// Kernel receive statistics since the last call: (packets, drops).
    pub fn take_stats(&self) -> io::Result<(u64, u64)> {
        let mut st = [0u32; 3];
        let mut len = std::mem::size_of_val(&st) as libc::socklen_t;
        // SAFETY: st is large enough for tpacket_stats_v3 and len says so.
        cvt(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                SOL_PACKET,
                PACKET_STATISTICS,
                st.as_mut_ptr() as *mut libc::c_void,
                &mut len,
            )
        })?;
        Ok((st[0] as u64, st[1] as u64))
    }
}

/// Frames per `sendmmsg` batch.
pub const TX_BATCH: usize = 64;
/// Slots of a transmit ring: four full batches may be in flight.
const TX_RING_FRAMES: u32 = 256;
/// Bytes per transmit ring slot; larger frames are sent with a plain `send`.
const TX_RING_FRAME_SIZE: u32 = 2048;

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
    /// Copies `frame` (truncated to [`MAX_FRAME`]) into the batch; the caller flushes when full.
    pub fn push(&mut self, frame: &[u8]) {
        if self.is_full() {
            self.lost += 1;
            return;
        }
        let n = frame.len().min(MAX_FRAME);
        let i = self.lens.len();
        self.buf[i * MAX_FRAME..i * MAX_FRAME + n].copy_from_slice(&frame[..n]);
        self.lens.push(n as u32);
    }
    /// Gives the next slot to fill in place; `commit(len)` makes it part of the batch.
    pub fn slot(&mut self) -> Option<&mut [u8]> {
        if self.is_full() {
            return None;
        }
        let i = self.lens.len();
        Some(&mut self.buf[i * MAX_FRAME..(i + 1) * MAX_FRAME])
    }
    /// Adds the slot returned by `slot()` with `len` bytes.
    pub fn commit(&mut self, len: usize) {
        if !self.is_full() {
            self.lens.push(len.min(MAX_FRAME) as u32);
        }
    }
}

/// Waits until one of `fds` is readable (or has an error) or `timeout_ms`
/// passes; sets `ready[i]`.
pub fn poll_readable(fds: &[RawFd], ready: &mut [bool], timeout_ms: i32) -> io::Result<usize> {
    let mut pfds: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    // SAFETY: pfds is a valid array of pollfd of the given length.
    let r = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            ready.iter_mut().for_each(|r| *r = false);
            return Ok(0);
        }
        return Err(e);
    }
    for (r, p) in ready.iter_mut().zip(&pfds) {
        *r = p.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0;
    }
    Ok(r as usize)
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Installs SIGINT/SIGTERM handlers that set a flag and returns the flag.
pub fn stop_flag() -> io::Result<&'static AtomicBool> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installing an async-signal-safe handler (it only stores an atomic).
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESTART;
        // SAFETY: sa is initialised; the old action is not needed.
        cvt(unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) })?;
    }
    Ok(&STOP)
}

/// Moves the calling thread into the network namespace `name` (as created by
/// `ip netns add NAME`). Sockets opened afterwards by this thread belong to it.
pub fn enter_netns(name: &str) -> io::Result<()> {
    let path = format!("/var/run/netns/{name}");
    let f = std::fs::File::open(&path).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
    // SAFETY: f is an open namespace file for the duration of the call.
    cvt(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) })
        .map(|_| ())
        .map_err(|e| io::Error::new(e.kind(), format!("setns {name}: {e}")))
}

/// Lowers the timer slack of the calling thread to 1 ns so short sleeps are precise.
pub fn precise_sleeps() {
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Current time from CLOCK_REALTIME as (seconds, microseconds), for pcap records.
pub fn now_timeval() -> (u32, u32) {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as u32, d.subsec_micros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_interface_names_are_refused_with_the_name() {
        let e = ifindex("no-such-if0").unwrap_err();
        assert!(e.to_string().contains("no-such-if0"), "{e}");
        assert!(ifindex("").is_err());
        assert!(ifindex("waytoolonginterfacename").is_err());
    }

    #[test]
    fn loopback_socket_opens_and_sends() {
        // Root is available on the project's machines; loopback always exists.
        let s = PacketSocket::open("lo", &SocketOptions { promiscuous: false, ..SocketOptions::port(1 << 20) }).unwrap();
        let mut b = TxBatch::new();
        b.push(&[0u8; 60]);
        b.push(&[0xffu8; 64]);
        assert_eq!(b.len(), 2);
        assert_eq!(s.send_batch(&mut b).unwrap(), 2);
        assert!(b.is_empty());
    }
}
