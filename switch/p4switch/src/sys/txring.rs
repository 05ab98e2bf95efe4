//! The transmit ring of an AF_PACKET socket (packet(7), `PACKET_TX_RING`,
//! TPACKET_V2): frames are written straight into memory shared with the kernel
//! and one `send()` hands the whole batch over. Compared with `sendmmsg` this
//! saves the per-message header copies and iovec checks, and the kernel attaches
//! the frame pages to the socket buffer instead of copying them.
//!
//! Frame slot layout: a `tpacket2_hdr` (status at 0, length at 4) and the frame
//! bytes at [`DATA_OFFSET`]. User space owns a slot whose status is AVAILABLE
//! (or WRONG_FORMAT, which `PACKET_LOSS` makes the kernel skip); it fills the
//! bytes, writes the length, then sets SEND_REQUEST. The kernel sends slots in
//! ring order from its own head and sets them back to AVAILABLE once the socket
//! buffer is freed. If the device refuses a frame (peer down, backlog full) the
//! kernel keeps it as SEND_REQUEST and retries it at the next flush, like a
//! hardware queue that holds frames until the link comes back; new frames that
//! find no free slot meanwhile are dropped and counted by the caller.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

use super::ringmap::{packet_option, Mapping, PACKET_LOSS, PACKET_TX_RING, PACKET_VERSION, TPACKET_V2};

const TP_STATUS_AVAILABLE: u32 = 0;
const TP_STATUS_SEND_REQUEST: u32 = 1;
const TP_STATUS_WRONG_FORMAT: u32 = 4;

/// Where the frame bytes start in a slot: TPACKET2_HDRLEN minus the
/// `sockaddr_ll` the kernel leaves room for (32 + 20 − 20).
const DATA_OFFSET: usize = 32;

#[repr(C)]
struct TpacketReq {
    block_size: u32,
    block_nr: u32,
    frame_size: u32,
    frame_nr: u32,
}

/// A mapped transmit ring; the socket it belongs to must outlive it.
pub struct TxRing {
    map: Mapping,
    frame_size: usize,
    frame_nr: usize,
    head: usize,
    queued: usize,
    /// Oldest slot pushed and not yet seen free again, and how many such slots.
    tail: usize,
    pending: usize,
}

impl TxRing {
    /// Sets up and maps a ring of `frame_nr` slots of `frame_size` bytes (a
    /// power of two, at least 64) on `fd`, which must have no receive ring.
    pub fn setup(fd: RawFd, frame_nr: u32, frame_size: u32) -> io::Result<TxRing> {
        packet_option(fd, PACKET_VERSION, &TPACKET_V2)?;
        packet_option(fd, PACKET_LOSS, &1 as &libc::c_int)?;
        let page = 4096u32;
        let block_size = frame_size.max(page);
        let per_block = block_size / frame_size;
        let block_nr = frame_nr.div_ceil(per_block);
        let req = TpacketReq { block_size, block_nr, frame_size, frame_nr: block_nr * per_block };
        packet_option(fd, PACKET_TX_RING, &req)?;
        let len = block_size as usize * block_nr as usize;
        Ok(TxRing {
            map: Mapping::ring(fd, len)?,
            frame_size: frame_size as usize,
            frame_nr: req.frame_nr as usize,
            head: 0,
            queued: 0,
            tail: 0,
            pending: 0,
        })
    }

    /// The largest frame a slot holds.
    pub fn capacity(&self) -> usize {
        self.frame_size - DATA_OFFSET
    }

    fn status(&self, i: usize) -> &AtomicU32 {
        // SAFETY: i < frame_nr, so the slot lies inside the mapping; slots are
        // frame_size-aligned, so the status word at offset 0 is aligned.
        unsafe { &*(self.map.base.add(i * self.frame_size) as *const AtomicU32) }
    }

    /// Copies `frame` into the next free slot and marks it for sending; false
    /// if the ring is full (every slot queued or still in flight) or the frame
    /// does not fit a slot.
    pub fn push(&mut self, frame: &[u8]) -> bool {
        self.push_limited(frame, usize::MAX)
    }

    fn is_free(&self, i: usize) -> bool {
        let s = self.status(i).load(Ordering::Acquire);
        s == TP_STATUS_AVAILABLE || s == TP_STATUS_WRONG_FORMAT
    }

    /// Counts the slots the kernel has given back since the last call.
    fn reclaim(&mut self) {
        while self.pending > 0 && self.is_free(self.tail) {
            self.tail = (self.tail + 1) % self.frame_nr;
            self.pending -= 1;
        }
    }

    /// Frames pushed and not yet given back by the kernel (queued or in flight).
    pub fn in_flight(&mut self) -> usize {
        self.reclaim();
        self.pending
    }

    /// [`TxRing::push`] that also refuses the frame when `limit` frames are
    /// already queued or in flight (the egress queue depth).
    pub fn push_limited(&mut self, frame: &[u8], limit: usize) -> bool {
        if frame.len() > self.capacity() {
            return false;
        }
        let limit = limit.min(self.frame_nr);
        if self.pending >= limit {
            self.reclaim();
            if self.pending >= limit {
                return false;
            }
        }
        let i = self.head;
        if !self.is_free(i) {
            return false;
        }
        // SAFETY: the slot is owned by user space (status AVAILABLE) and the
        // frame fits behind the header, inside this slot.
        unsafe {
            let slot = self.map.base.add(i * self.frame_size);
            std::ptr::copy_nonoverlapping(frame.as_ptr(), slot.add(DATA_OFFSET), frame.len());
            std::ptr::write(slot.add(4) as *mut u32, frame.len() as u32);
        }
        self.status(i).store(TP_STATUS_SEND_REQUEST, Ordering::Release);
        self.head = (i + 1) % self.frame_nr;
        self.queued += 1;
        self.pending += 1;
        true
    }

    /// Frames pushed since the last flush.
    pub fn queued(&self) -> usize {
        self.queued
    }

    /// Slots of the ring: the most frames queued or in flight at once.
    pub fn slots(&self) -> usize {
        self.frame_nr
    }

    /// Asks the kernel to send every queued slot without waiting for their
    /// completion. ENOBUFS (the device refused a frame; it stays queued for the
    /// next flush) is not an error here.
    pub fn flush(&mut self, fd: RawFd) -> io::Result<()> {
        if self.queued == 0 {
            return Ok(());
        }
        self.queued = 0;
        loop {
            // SAFETY: a zero-length send with no buffer is how a TX ring is flushed.
            let r = unsafe { libc::send(fd, std::ptr::null(), 0, libc::MSG_DONTWAIT) };
            if r >= 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ENOBUFS) | Some(libc::EAGAIN) => return Ok(()),
                _ => return Err(e),
            }
        }
    }
}
