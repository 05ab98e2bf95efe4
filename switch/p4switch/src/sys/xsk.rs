//! AF_XDP sockets (Documentation/networking/af_xdp.rst): frames move between
//! the kernel and user space through a frame area ("umem") of fixed-size
//! chunks and four single-producer/single-consumer rings of chunk addresses:
//! fill (chunks the kernel may receive into) and completion (chunks it has
//! finished sending) belong to the umem; every socket has a receive and a
//! transmit ring of descriptors (address, length, options).
//!
//! The switch opens one umem per (port, receive queue) and one socket per
//! worker on it: the first socket registers the umem, the others bind with
//! `XDP_SHARED_UMEM`; the XDP program picks the socket by flow hash. Sharing
//! one queue means sharing the fill and completion rings, so those two and
//! the list of free chunks sit behind one lock ([`UmemShared`]), taken once
//! per batch. Each socket is split into a receive half ([`XskRx`]) and a
//! transmit half ([`XskTx`]) so a worker can receive on one port while it
//! transmits on the same one.
//!
//! Frames longer than a chunk travel as several descriptors (`XDP_USE_SG`,
//! each but the last marked `XDP_PKT_CONTD`); on kernels without it such
//! frames are dropped and counted. Chunk ownership is the protocol's: a chunk
//! is the kernel's from the moment its address is put on the fill or
//! transmit ring until it comes back on the receive or completion ring.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use super::ringmap::Mapping;
use super::{cvt, getsockopt, ifindex, owned, setsockopt};

const AF_XDP: libc::c_int = 44;
const SOL_XDP: libc::c_int = 283;
const XDP_MMAP_OFFSETS: libc::c_int = 1;
const XDP_RX_RING: libc::c_int = 2;
const XDP_TX_RING: libc::c_int = 3;
const XDP_UMEM_REG: libc::c_int = 4;
const XDP_UMEM_FILL_RING: libc::c_int = 5;
const XDP_UMEM_COMPLETION_RING: libc::c_int = 6;
const XDP_STATISTICS: libc::c_int = 7;
const XDP_PGOFF_RX_RING: i64 = 0;
const XDP_PGOFF_TX_RING: i64 = 0x8000_0000;
const XDP_UMEM_PGOFF_FILL_RING: i64 = 0x1_0000_0000;
const XDP_UMEM_PGOFF_COMPLETION_RING: i64 = 0x1_8000_0000;
const XDP_SHARED_UMEM: u16 = 1;
const XDP_USE_SG: u16 = 1 << 4;
const XDP_PKT_CONTD: u32 = 1;

/// Bytes of one chunk of the frame area (a page).
pub const CHUNK: usize = 4096;
/// Most descriptors one receive or transmit batch handles.
const BATCH: usize = 64;
/// Chunks a transmit half takes from the shared free list at a time.
const CACHE_REFILL: usize = 32;

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct RingOffset {
    producer: u64,
    consumer: u64,
    desc: u64,
    flags: u64,
}

#[repr(C)]
#[derive(Default)]
struct MmapOffsets {
    rx: RingOffset,
    tx: RingOffset,
    fr: RingOffset,
    cr: RingOffset,
}

#[repr(C)]
struct UmemReg {
    addr: u64,
    len: u64,
    chunk_size: u32,
    headroom: u32,
    flags: u32,
    tx_metadata_len: u32,
}

#[repr(C)]
struct SockaddrXdp {
    family: u16,
    flags: u16,
    ifindex: u32,
    queue_id: u32,
    shared_umem_fd: u32,
}

/// One ring mapped from the socket: producer and consumer indexes and the
/// entries (8-byte addresses or 16-byte descriptors).
struct Ring {
    map: Mapping,
    producer: usize,
    consumer: usize,
    desc: usize,
    size: u32,
    entry: usize,
    cached_prod: u32,
    cached_cons: u32,
}

// SAFETY: a Ring is used by one thread at a time (its owner, or under the
// umem lock); the mapping is plain shared memory.
unsafe impl Send for Ring {}

impl Ring {
    fn map(fd: RawFd, off: &RingOffset, size: u32, entry: usize, pgoff: i64) -> io::Result<Ring> {
        let len = off.desc as usize + size as usize * entry;
        let map = Mapping::at(fd, len, pgoff)?;
        let r = Ring {
            map,
            producer: off.producer as usize,
            consumer: off.consumer as usize,
            desc: off.desc as usize,
            size,
            entry,
            cached_prod: 0,
            cached_cons: 0,
        };
        if r.producer + 4 > len || r.consumer + 4 > len || r.desc > len {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "AF_XDP ring offsets outside the mapping"));
        }
        Ok(r)
    }

    fn word(&self, at: usize) -> &AtomicU32 {
        // SAFETY: `at` is the producer or consumer offset, checked against the
        // mapping's length in `map`; the kernel aligns them to 4 bytes.
        unsafe { &*(self.map.base.add(at) as *const AtomicU32) }
    }

    fn entry_ptr(&self, idx: u32) -> *mut u8 {
        let i = (idx & (self.size - 1)) as usize;
        // SAFETY: i < size, so the entry lies inside the mapping (desc + size * entry).
        unsafe { self.map.base.add(self.desc + i * self.entry) }
    }

    /// Producer side: free entries (reads the consumer index only when needed).
    fn free(&mut self, want: u32) -> u32 {
        let free = self.size - self.cached_prod.wrapping_sub(self.cached_cons);
        if free >= want {
            return free;
        }
        self.cached_cons = self.word(self.consumer).load(Ordering::Acquire);
        self.size - self.cached_prod.wrapping_sub(self.cached_cons)
    }

    fn put_addr(&mut self, addr: u64) {
        // SAFETY: an 8-byte entry inside the mapping, owned by the producer until submitted.
        unsafe { std::ptr::write_unaligned(self.entry_ptr(self.cached_prod) as *mut u64, addr) };
        self.cached_prod = self.cached_prod.wrapping_add(1);
    }

    fn put_desc(&mut self, addr: u64, len: u32, options: u32) {
        let p = self.entry_ptr(self.cached_prod);
        // SAFETY: a 16-byte descriptor inside the mapping, owned by the producer until submitted.
        unsafe {
            std::ptr::write_unaligned(p as *mut u64, addr);
            std::ptr::write_unaligned(p.add(8) as *mut u32, len);
            std::ptr::write_unaligned(p.add(12) as *mut u32, options);
        }
        self.cached_prod = self.cached_prod.wrapping_add(1);
    }

    fn submit(&self) {
        self.word(self.producer).store(self.cached_prod, Ordering::Release);
    }

    /// Consumer side: entries ready.
    fn ready(&mut self) -> u32 {
        if self.cached_prod == self.cached_cons {
            self.cached_prod = self.word(self.producer).load(Ordering::Acquire);
        }
        self.cached_prod.wrapping_sub(self.cached_cons)
    }

    fn get_addr(&self, k: u32) -> u64 {
        // SAFETY: an entry inside the mapping that the kernel has published.
        unsafe { std::ptr::read_unaligned(self.entry_ptr(self.cached_cons.wrapping_add(k)) as *const u64) }
    }

    fn get_desc(&self, k: u32) -> (u64, u32, u32) {
        let p = self.entry_ptr(self.cached_cons.wrapping_add(k));
        // SAFETY: a descriptor inside the mapping that the kernel has published.
        unsafe {
            (
                std::ptr::read_unaligned(p as *const u64),
                std::ptr::read_unaligned(p.add(8) as *const u32),
                std::ptr::read_unaligned(p.add(12) as *const u32),
            )
        }
    }

    fn release(&mut self, n: u32) {
        self.cached_cons = self.cached_cons.wrapping_add(n);
        self.word(self.consumer).store(self.cached_cons, Ordering::Release);
    }

    /// Producer side: entries the kernel has not consumed yet.
    fn outstanding(&mut self) -> u32 {
        self.cached_cons = self.word(self.consumer).load(Ordering::Acquire);
        self.cached_prod.wrapping_sub(self.cached_cons)
    }
}

/// The frame area of one (port, queue) and what its sockets share: the fill
/// and completion rings and the free chunks, behind one lock.
pub struct UmemShared {
    area: Mapping,
    chunks: u32,
    inner: Mutex<UmemRings>,
    /// The socket that registered the umem (kept open while others share it).
    owner: Arc<OwnedFd>,
    /// Whether frames may span several chunks.
    pub sg: bool,
}

struct UmemRings {
    fill: Ring,
    comp: Ring,
    free: Vec<u64>,
}

impl UmemShared {
    fn slice(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let start = addr as usize;
        let end = start.checked_add(len)?;
        if end > self.area.len {
            return None;
        }
        // SAFETY: inside the area; the chunk is owned by user space (it came
        // off the receive ring and goes back to the fill ring only after use).
        Some(unsafe { std::slice::from_raw_parts(self.area.base.add(start), len) })
    }

    fn write(&self, addr: u64, data: &[u8]) -> bool {
        let start = addr as usize;
        if start.checked_add(data.len()).is_none_or(|end| end > self.area.len) {
            return false;
        }
        // SAFETY: inside the area; the chunk came from the free list, so
        // neither the kernel nor another thread uses it.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.area.base.add(start), data.len()) };
        true
    }

    /// Takes the arrival stamp the XDP program left in the 8 bytes before the
    /// frame at `addr` (0: none) and clears it, so a later frame in this
    /// chunk that arrives unstamped is not taken for an old one. The stamp
    /// lies in the chunk's headroom (frames start `XDP_PACKET_HEADROOM`, 256
    /// bytes, into a chunk): an address too close to its chunk's start has none.
    fn take_stamp(&self, addr: u64) -> u64 {
        let start = addr as usize;
        if start % CHUNK < 8 || start > self.area.len {
            return 0;
        }
        // SAFETY: the 8 bytes before `addr` lie inside the area, in the same
        // chunk as the frame, which user space owns (it came off the receive
        // ring and goes back to the fill ring only after use).
        unsafe {
            let p = self.area.base.add(start - 8) as *mut u64;
            let stamp = std::ptr::read_unaligned(p);
            if stamp != 0 {
                std::ptr::write_unaligned(p, 0);
            }
            stamp
        }
    }

    /// Gives received chunks back to the kernel (fill ring), the rest to the free list;
    /// takes finished transmissions off the completion ring.
    fn recycle(&self, addrs: &[u64]) {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let r = &mut *g;
        let n = r.fill.free(addrs.len() as u32) as usize;
        for &a in &addrs[..n.min(addrs.len())] {
            r.fill.put_addr(a - a % CHUNK as u64);
        }
        r.fill.submit();
        r.free.extend(addrs[n.min(addrs.len())..].iter().map(|a| a - a % CHUNK as u64));
        Self::reap(r);
    }

    fn reap(r: &mut UmemRings) {
        let done = r.comp.ready();
        for k in 0..done {
            let a = r.comp.get_addr(k);
            r.free.push(a - a % CHUNK as u64);
        }
        if done > 0 {
            r.comp.release(done);
        }
    }

    /// Takes up to `n` free chunks for transmitting, after reaping completions.
    fn take_free(&self, out: &mut Vec<u64>, n: usize) {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let r = &mut *g;
        let done = r.comp.ready();
        for k in 0..done {
            let a = r.comp.get_addr(k);
            r.free.push(a - a % CHUNK as u64);
        }
        if done > 0 {
            r.comp.release(done);
        }
        let k = r.free.len().saturating_sub(n);
        out.extend(r.free.drain(k..));
    }

    /// Chunks in the area.
    pub fn chunks(&self) -> u32 {
        self.chunks
    }
}

/// Ring sizes of a socket and its umem (powers of two).
#[derive(Clone, Copy, Debug)]
pub struct XskSizes {
    /// Receive ring and fill ring: the most frames waiting for the worker.
    pub rx: u32,
    /// Transmit ring: the most frames queued for the kernel.
    pub tx: u32,
    /// Sockets that will share the umem (chunks for their transmit rings).
    pub sharers: u32,
}

/// An AF_XDP socket bound to one (interface, queue).
pub struct XskSocket {
    fd: Arc<OwnedFd>,
    rx: Ring,
    tx: Ring,
    umem: Arc<UmemShared>,
}

fn xdp_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation; `owned` takes the descriptor.
    owned(unsafe { libc::socket(AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })
}

fn bind_xdp(fd: RawFd, ifindex: i32, queue: u32, flags: u16, shared: RawFd) -> io::Result<()> {
    let sa = SockaddrXdp { family: AF_XDP as u16, flags, ifindex: ifindex as u32, queue_id: queue, shared_umem_fd: shared.max(0) as u32 };
    // SAFETY: sa is a valid sockaddr_xdp of the given length.
    cvt(unsafe { libc::bind(fd, &sa as *const SockaddrXdp as *const libc::sockaddr, std::mem::size_of::<SockaddrXdp>() as libc::socklen_t) })
        .map(|_| ())
}

impl XskSocket {
    /// Opens the first socket of (iface, queue): registers a new frame area
    /// sized for `sizes`, puts `sizes.rx` chunks on the fill ring, binds.
    /// Tries multi-chunk frames first (`XDP_USE_SG`).
    pub fn open_first(iface: &str, queue: u32, sizes: XskSizes) -> io::Result<XskSocket> {
        let ctx = |e: io::Error, what: &str| io::Error::new(e.kind(), format!("{iface}: AF_XDP {what}: {e}"));
        let index = ifindex(iface)?;
        let chunks = sizes.rx * 2 + sizes.sharers * (sizes.tx + 2 * CACHE_REFILL as u32);
        let mut last = None;
        for sg in [true, false] {
            let fd = xdp_socket().map_err(|e| ctx(e, "socket (needs root and CONFIG_XDP_SOCKETS)"))?;
            let area = Mapping::anonymous(chunks as usize * CHUNK).map_err(|e| ctx(e, "frame area"))?;
            let reg = UmemReg { addr: area.base as u64, len: area.len as u64, chunk_size: CHUNK as u32, headroom: 0, flags: 0, tx_metadata_len: 0 };
            let raw = fd.as_raw_fd();
            setsockopt(raw, SOL_XDP, XDP_UMEM_REG, &reg).map_err(|e| ctx(e, "XDP_UMEM_REG"))?;
            setsockopt(raw, SOL_XDP, XDP_UMEM_FILL_RING, &sizes.rx).map_err(|e| ctx(e, "fill ring"))?;
            setsockopt(raw, SOL_XDP, XDP_UMEM_COMPLETION_RING, &sizes.tx.max(sizes.rx)).map_err(|e| ctx(e, "completion ring"))?;
            setsockopt(raw, SOL_XDP, XDP_RX_RING, &sizes.rx).map_err(|e| ctx(e, "receive ring"))?;
            setsockopt(raw, SOL_XDP, XDP_TX_RING, &sizes.tx).map_err(|e| ctx(e, "transmit ring"))?;
            let mut off = MmapOffsets::default();
            getsockopt(raw, SOL_XDP, XDP_MMAP_OFFSETS, &mut off).map_err(|e| ctx(e, "XDP_MMAP_OFFSETS"))?;
            let rx = Ring::map(raw, &off.rx, sizes.rx, 16, XDP_PGOFF_RX_RING).map_err(|e| ctx(e, "map receive ring"))?;
            let tx = Ring::map(raw, &off.tx, sizes.tx, 16, XDP_PGOFF_TX_RING).map_err(|e| ctx(e, "map transmit ring"))?;
            let mut fill = Ring::map(raw, &off.fr, sizes.rx, 8, XDP_UMEM_PGOFF_FILL_RING).map_err(|e| ctx(e, "map fill ring"))?;
            let comp = Ring::map(raw, &off.cr, sizes.tx.max(sizes.rx), 8, XDP_UMEM_PGOFF_COMPLETION_RING)
                .map_err(|e| ctx(e, "map completion ring"))?;
            let mut free: Vec<u64> = (0..chunks as u64).rev().map(|i| i * CHUNK as u64).collect();
            for _ in 0..sizes.rx {
                if let Some(a) = free.pop() {
                    fill.put_addr(a);
                }
            }
            fill.submit();
            match bind_xdp(raw, index, queue, if sg { XDP_USE_SG } else { 0 }, -1) {
                Ok(()) => {
                    let fd = Arc::new(fd);
                    let umem = Arc::new(UmemShared {
                        area,
                        chunks,
                        inner: Mutex::new(UmemRings { fill, comp, free }),
                        owner: fd.clone(),
                        sg,
                    });
                    return Ok(XskSocket { fd, rx, tx, umem });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(ctx(last.unwrap_or_else(|| io::Error::other("bind failed")), &format!("bind to queue {queue}")))
    }

    /// Opens another socket on the same (iface, queue) sharing `with`'s frame area.
    pub fn open_shared(iface: &str, queue: u32, sizes: XskSizes, with: &XskSocket) -> io::Result<XskSocket> {
        let ctx = |e: io::Error, what: &str| io::Error::new(e.kind(), format!("{iface}: AF_XDP {what}: {e}"));
        let index = ifindex(iface)?;
        let fd = xdp_socket().map_err(|e| ctx(e, "socket"))?;
        let raw = fd.as_raw_fd();
        setsockopt(raw, SOL_XDP, XDP_RX_RING, &sizes.rx).map_err(|e| ctx(e, "receive ring"))?;
        setsockopt(raw, SOL_XDP, XDP_TX_RING, &sizes.tx).map_err(|e| ctx(e, "transmit ring"))?;
        let mut off = MmapOffsets::default();
        getsockopt(raw, SOL_XDP, XDP_MMAP_OFFSETS, &mut off).map_err(|e| ctx(e, "XDP_MMAP_OFFSETS"))?;
        let rx = Ring::map(raw, &off.rx, sizes.rx, 16, XDP_PGOFF_RX_RING).map_err(|e| ctx(e, "map receive ring"))?;
        let tx = Ring::map(raw, &off.tx, sizes.tx, 16, XDP_PGOFF_TX_RING).map_err(|e| ctx(e, "map transmit ring"))?;
        bind_xdp(raw, index, queue, XDP_SHARED_UMEM, with.umem.owner.as_raw_fd()).map_err(|e| ctx(e, "bind (shared frame area)"))?;
        Ok(XskSocket { fd: Arc::new(fd), rx, tx, umem: with.umem.clone() })
    }

    /// The descriptor (for the XSKMAP and `poll`).
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The frame area this socket uses.
    pub fn umem(&self) -> &Arc<UmemShared> {
        &self.umem
    }

    /// Splits the socket into its receive and transmit halves.
    pub fn split(self) -> (XskRx, XskTx) {
        let rx = XskRx { fd: self.fd.clone(), ring: self.rx, umem: self.umem.clone(), scratch: Vec::new(), done: Vec::with_capacity(BATCH) };
        let tx = XskTx { fd: self.fd, ring: self.tx, umem: self.umem, cache: Vec::with_capacity(2 * CACHE_REFILL), limit: u32::MAX };
        (rx, tx)
    }
}

/// Kernel counters of an AF_XDP socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XskStats {
    /// Frames dropped for lack of room (receive ring full, no fill chunk, too long).
    pub rx_dropped: u64,
    pub rx_ring_full: u64,
    pub rx_fill_ring_empty: u64,
}

/// The receive half of an AF_XDP socket.
pub struct XskRx {
    fd: Arc<OwnedFd>,
    ring: Ring,
    umem: Arc<UmemShared>,
    scratch: Vec<u8>,
    done: Vec<u64>,
}

impl XskRx {
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Whether frames are waiting.
    pub fn ready(&mut self) -> bool {
        self.ring.ready() > 0
    }

    /// Hands up to a batch of received frames to `f` (a frame spanning
    /// several chunks is put together first), then gives their chunks back
    /// to the kernel. Returns how many frames were handed over; frames longer
    /// than `max` are skipped and counted in the second value. With `stamps`,
    /// `f` also gets each frame's arrival stamp from the XDP program
    /// (CLOCK_MONOTONIC ns; 0: none — e.g. a multi-chunk frame that straddled
    /// two batches); without, 0.
    pub fn recv(&mut self, max: usize, stamps: bool, f: &mut dyn FnMut(&[u8], u64)) -> (usize, u64) {
        let n = self.ring.ready().min(BATCH as u32);
        let (mut frames, mut oversize) = (0usize, 0u64);
        let mut partial = false;
        let mut too_long = false;
        let mut stamp = 0;
        self.done.clear();
        for k in 0..n {
            let (addr, len, options) = self.ring.get_desc(k);
            self.done.push(addr);
            let s = if stamps { self.umem.take_stamp(addr) } else { 0 };
            let Some(data) = self.umem.slice(addr, len as usize) else { continue };
            let more = options & XDP_PKT_CONTD != 0;
            if !partial && !more {
                frames += 1;
                f(data, s);
                continue;
            }
            if !partial {
                self.scratch.clear();
                too_long = false;
                partial = true;
                stamp = s;
            }
            if self.scratch.len() + data.len() > max {
                too_long = true;
            } else {
                self.scratch.extend_from_slice(data);
            }
            if !more {
                partial = false;
                if too_long {
                    oversize += 1;
                } else {
                    frames += 1;
                    f(&self.scratch, stamp);
                }
            }
        }
        if partial {
            // The rest of the frame has not arrived in this batch: keep its
            // descriptors for the next call.
            let mut keep = 0;
            while keep < n && self.ring.get_desc(n - 1 - keep).2 & XDP_PKT_CONTD != 0 {
                keep += 1;
            }
            let take = n - keep;
            self.done.truncate(take as usize);
            self.ring.release(take);
            self.umem.recycle(&self.done);
            return (frames, oversize);
        }
        if n > 0 {
            self.ring.release(n);
            self.umem.recycle(&self.done);
        }
        (frames, oversize)
    }

    /// The socket's kernel counters (cumulative).
    pub fn stats(&self) -> io::Result<XskStats> {
        let mut s = [0u64; 6];
        getsockopt(self.fd.as_raw_fd(), SOL_XDP, XDP_STATISTICS, &mut s)?;
        Ok(XskStats { rx_dropped: s[0], rx_ring_full: s[3], rx_fill_ring_empty: s[4] })
    }
}

/// The transmit half of an AF_XDP socket.
pub struct XskTx {
    fd: Arc<OwnedFd>,
    ring: Ring,
    umem: Arc<UmemShared>,
    cache: Vec<u64>,
    limit: u32,
}

impl XskTx {
    /// Transmit ring slots.
    pub fn slots(&self) -> usize {
        self.ring.size as usize
    }

    /// Allows at most `n` frames queued for the kernel (the egress queue depth).
    pub fn set_limit(&mut self, n: u32) {
        self.limit = n.max(1);
    }

    /// Queues `frame` for the next [`Self::flush`]; false if the queue is at
    /// its limit or no chunk is free (the caller counts the frame as dropped).
    pub fn queue(&mut self, frame: &[u8]) -> bool {
        if frame.is_empty() {
            return false;
        }
        let parts = frame.len().div_ceil(CHUNK).max(1);
        if parts > 1 && !self.umem.sg {
            return false;
        }
        if self.ring.cached_prod.wrapping_sub(self.ring.cached_cons) + parts as u32 > self.limit
            && self.ring.outstanding() + parts as u32 > self.limit
        {
            return false;
        }
        if self.ring.free(parts as u32) < parts as u32 {
            return false;
        }
        if self.cache.len() < parts {
            self.umem.take_free(&mut self.cache, CACHE_REFILL);
            if self.cache.len() < parts {
                return false;
            }
        }
        for (i, piece) in frame.chunks(CHUNK).enumerate() {
            let Some(addr) = self.cache.pop() else { return false };
            self.umem.write(addr, piece);
            let more = if i + 1 < parts { XDP_PKT_CONTD } else { 0 };
            self.ring.put_desc(addr, piece.len() as u32, more);
        }
        true
    }

    /// Hands the queued frames to the kernel (a copy-mode socket sends on
    /// this call, at most 32 frames per kick); frames the device does not
    /// take now stay queued for the next flush.
    pub fn flush(&mut self) -> io::Result<()> {
        self.ring.submit();
        let mut stalled = 0;
        while self.ring.outstanding() > 0 && stalled < 4 {
            let before = self.ring.cached_cons;
            // SAFETY: a zero-length send is how an AF_XDP socket is asked to transmit.
            let r = unsafe { libc::sendto(self.fd.as_raw_fd(), std::ptr::null(), 0, libc::MSG_DONTWAIT, std::ptr::null(), 0) };
            if r < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EAGAIN) | Some(libc::EBUSY) | Some(libc::ENOBUFS) | Some(libc::EINTR) => {}
                    Some(libc::ENETDOWN) | Some(libc::ENXIO) => return Ok(()),
                    _ => return Err(e),
                }
            }
            if self.ring.outstanding() > 0 && self.ring.cached_cons == before {
                stalled += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interface_is_named() {
        let sizes = XskSizes { rx: 64, tx: 64, sharers: 1 };
        let e = XskSocket::open_first("no-such-if0", 0, sizes).err().unwrap();
        assert!(e.to_string().contains("no-such-if0"), "{e}");
    }
}
