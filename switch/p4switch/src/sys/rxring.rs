//! The receive ring of an AF_PACKET socket (packet(7)), in one of two layouts:
//!
//! - **Slots** (TPACKET_V2): one fixed-size slot per frame, handed to user
//!   space the moment the kernel has written it. No added latency, so this is
//!   what the switch's ports use.
//! - **Blocks** (TPACKET_V3): frames packed into large blocks that are handed
//!   over when full or when the block timer fires. The timer runs in kernel
//!   ticks (4 ms at HZ=250), so a frame may wait that long at low rates; in
//!   exchange a wake-up brings thousands of frames and small frames take little
//!   memory. For receivers that count rather than forward (`p4gen`).
//!
//! Either way [`RxRing::next_batch`] returns the frames ready now as an
//! [`RxBlock`], which gives their slots back to the kernel when dropped.
//! Every offset read from the ring is bounds-checked before a slice is made.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{fence, AtomicU32, Ordering};

use super::ringmap::{packet_option, Mapping, PACKET_RX_RING, PACKET_VERSION, TPACKET_V2, TPACKET_V3};

const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
pub(crate) const TP_STATUS_CSUMNOTREADY: u32 = 1 << 3;
const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;

/// Most frames one slot batch hands out, so transmit batches stay small at low rates.
const MAX_SLOT_RUN: usize = 64;
/// Bytes of the slot header (`tpacket2_hdr`) the parser reads.
const V2_HDR: usize = 28;

/// Layout of a receive ring (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxLayout {
    /// TPACKET_V2: `frames` slots (rounded up to a whole 64 KiB block, at
    /// least 32), each large enough for the interface's MTU when the socket is
    /// opened (2 KiB up to MTU 1500, else 16 KiB). The slot count bounds how
    /// many frames wait for the worker: the port's receive queue.
    Slots { frames: u32 },
    /// TPACKET_V3: `block_nr` blocks of `block_size` bytes (a power of two, at
    /// least a page), handed over when full or after `timeout_ms`.
    Blocks { block_size: u32, block_nr: u32, timeout_ms: u32 },
}

/// One received frame, borrowed from the receive ring.
pub struct RxFrame<'a> {
    /// Frame bytes as delivered by the kernel (802.1Q tag removed, see `vlan`).
    pub data: &'a [u8],
    /// (TPID, TCI) of a tag the kernel stripped, to be put back after the MAC addresses.
    pub vlan: Option<(u16, u16)>,
    /// The L4 checksum was left for offload (CHECKSUM_PARTIAL) and must be completed.
    pub csum_not_ready: bool,
    /// Length of the frame on the wire (more than `data.len()` if it did not fit its slot).
    pub wire_len: usize,
    /// When the kernel queued the frame to the socket, in nanoseconds of
    /// CLOCK_REALTIME (a socket without a ring: only with `SO_TIMESTAMPNS`);
    /// 0: unknown. Frames from AF_XDP carry the XDP program's CLOCK_MONOTONIC stamp.
    pub rx_ns: u64,
}

/// A mapped receive ring; the socket it belongs to must outlive it.
pub struct RxRing {
    map: Mapping,
    /// Bytes per slot (Slots) or per block (Blocks).
    unit: usize,
    /// Number of slots or blocks.
    count: usize,
    next: usize,
    slots: bool,
}

impl RxRing {
    /// Sets up and maps a ring of `layout` on `fd` (before it is bound);
    /// `mtu` sizes the slots of a slot ring.
    pub fn setup(fd: RawFd, layout: RxLayout, mtu: u32) -> io::Result<RxRing> {
        match layout {
            RxLayout::Slots { frames } => {
                packet_option(fd, PACKET_VERSION, &TPACKET_V2)?;
                let frame_size: u32 = if mtu <= 1500 { 2048 } else { 16384 };
                let frames = frames.clamp(1, 1 << 20);
                let block_size: u32 = 1 << 16;
                let per_block = block_size / frame_size;
                let block_nr = frames.max(per_block).div_ceil(per_block);
                let req = [block_size, block_nr, frame_size, block_nr * per_block];
                packet_option(fd, PACKET_RX_RING, &req)?;
                let len = block_size as usize * block_nr as usize;
                Ok(RxRing { map: Mapping::ring(fd, len)?, unit: frame_size as usize, count: req[3] as usize, next: 0, slots: true })
            }
            RxLayout::Blocks { block_size, block_nr, timeout_ms } => {
                packet_option(fd, PACKET_VERSION, &TPACKET_V3)?;
                let frame_size = 2048u32;
                // tpacket_req3: block size and count, frame size and count, retire timeout, private size, features.
                let req = [block_size, block_nr, frame_size, block_size / frame_size * block_nr, timeout_ms, 0, 0];
                packet_option(fd, PACKET_RX_RING, &req)?;
                let len = block_size as usize * block_nr as usize;
                Ok(RxRing { map: Mapping::ring(fd, len)?, unit: block_size as usize, count: block_nr as usize, next: 0, slots: false })
            }
        }
    }

    fn status(&self, i: usize) -> &AtomicU32 {
        // A slot's status is its first word; a block's is at offset 8 of its descriptor.
        let off = if self.slots { 0 } else { 8 };
        // SAFETY: i < count, so the word lies inside the mapping; slots and
        // blocks start at multiples of 2 KiB, so it is 4-byte aligned.
        unsafe { &*(self.map.base.add(i * self.unit + off) as *const AtomicU32) }
    }

    /// Whether the kernel has handed over a frame (without taking it).
    pub fn ready(&self) -> bool {
        self.status(self.next).load(Ordering::Acquire) & TP_STATUS_USER != 0
    }

    /// The frames the kernel has handed over, if any.
    pub fn next_batch(&mut self) -> Option<RxBlock<'_>> {
        if !self.ready() {
            return None;
        }
        fence(Ordering::Acquire);
        let first = self.next;
        if self.slots {
            let mut n = 1;
            while n < MAX_SLOT_RUN.min(self.count)
                && self.status((first + n) % self.count).load(Ordering::Acquire) & TP_STATUS_USER != 0
            {
                n += 1;
            }
            fence(Ordering::Acquire);
            self.next = (first + n) % self.count;
            return Some(RxBlock { ring: self, kind: Kind::Slots { first, n, i: 0 } });
        }
        self.next = (first + 1) % self.count;
        // SAFETY: the block is owned by user space until its status is reset
        // (RxBlock's Drop); the kernel does not write it meanwhile.
        let block = unsafe { std::slice::from_raw_parts(self.map.base.add(first * self.unit), self.unit) };
        let num_pkts = u32::from_ne_bytes([block[12], block[13], block[14], block[15]]);
        let offset = u32::from_ne_bytes([block[16], block[17], block[18], block[19]]) as usize;
        Some(RxBlock { ring: self, kind: Kind::Packed { block: first, remaining: num_pkts, offset } })
    }
}

enum Kind {
    /// Slots first..first+n (modulo the ring), the next to read is i.
    Slots { first: usize, n: usize, i: usize },
    /// Block `block`: `remaining` frames, the next one at `offset`.
    Packed { block: usize, remaining: u32, offset: usize },
}

/// Frames owned by user space until dropped.
pub struct RxBlock<'a> {
    ring: &'a RxRing,
    kind: Kind,
}

fn u32_at(h: &[u8], i: usize) -> u32 {
    u32::from_ne_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]])
}

fn u16_at(h: &[u8], i: usize) -> u16 {
    u16::from_ne_bytes([h[i], h[i + 1]])
}

pub(crate) fn vlan_of(status: u32, tci: u16, tpid: u16) -> Option<(u16, u16)> {
    if status & TP_STATUS_VLAN_VALID == 0 {
        return None;
    }
    Some((if status & TP_STATUS_VLAN_TPID_VALID != 0 { tpid } else { 0x8100 }, tci))
}

impl RxBlock<'_> {
    /// Next frame, or `None` at the end (or if the kernel's offsets are inconsistent).
    pub fn next_frame(&mut self) -> Option<RxFrame<'_>> {
        let ring = self.ring;
        match &mut self.kind {
            Kind::Slots { first, n, i } => {
                if *i >= *n {
                    return None;
                }
                let idx = (*first + *i) % ring.count;
                *i += 1;
                // SAFETY: slot idx is owned by user space (status USER, not yet
                // given back) and lies inside the mapping.
                let slot = unsafe { std::slice::from_raw_parts(ring.map.base.add(idx * ring.unit), ring.unit) };
                let status = u32_at(slot, 0);
                let (wire_len, snaplen, mac) = (u32_at(slot, 4) as usize, u32_at(slot, 8) as usize, u16_at(slot, 12) as usize);
                let rx_ns = u32_at(slot, 16) as u64 * 1_000_000_000 + u32_at(slot, 20) as u64;
                let data = slot.get(mac..mac.checked_add(snaplen)?).filter(|_| mac >= V2_HDR)?;
                Some(RxFrame {
                    data,
                    vlan: vlan_of(status, u16_at(slot, 24), u16_at(slot, 26)),
                    csum_not_ready: status & TP_STATUS_CSUMNOTREADY != 0,
                    wire_len,
                    rx_ns,
                })
            }
            Kind::Packed { block, remaining, offset } => {
                if *remaining == 0 {
                    return None;
                }
                *remaining -= 1;
                // SAFETY: the block is owned by user space until this RxBlock is dropped.
                let b = unsafe { std::slice::from_raw_parts(ring.map.base.add(*block * ring.unit), ring.unit) };
                let off = *offset;
                let hdr = b.get(off..off.checked_add(48)?)?;
                let next_offset = u32_at(hdr, 0) as usize;
                let rx_ns = u32_at(hdr, 4) as u64 * 1_000_000_000 + u32_at(hdr, 8) as u64;
                let (snaplen, wire_len, status) = (u32_at(hdr, 12) as usize, u32_at(hdr, 16) as usize, u32_at(hdr, 20));
                let start = off.checked_add(u16_at(hdr, 24) as usize)?;
                let data = b.get(start..start.checked_add(snaplen)?)?;
                if next_offset == 0 {
                    *remaining = 0;
                } else {
                    *offset = off.checked_add(next_offset)?;
                }
                Some(RxFrame {
                    data,
                    vlan: vlan_of(status, u32_at(hdr, 32) as u16, u16_at(hdr, 36)),
                    csum_not_ready: status & TP_STATUS_CSUMNOTREADY != 0,
                    wire_len,
                    rx_ns,
                })
            }
        }
    }
}

impl Drop for RxBlock<'_> {
    fn drop(&mut self) {
        // Hand the frames back to the kernel; all reads of them happen before.
        match self.kind {
            Kind::Slots { first, n, .. } => {
                for k in 0..n {
                    self.ring.status((first + k) % self.ring.count).store(TP_STATUS_KERNEL, Ordering::Release);
                }
            }
            Kind::Packed { block, .. } => self.ring.status(block).store(TP_STATUS_KERNEL, Ordering::Release),
        }
    }
}
