//! The receiver: enters the receive namespace, reads frames from a TPACKET_V3
//! ring and accounts for the probes of one trial (its tag): sequence numbers
//! in a [`SeqTracker`], one-way latency (the kernel's receive time stamp of the
//! frame minus the send time in it; both CLOCK_REALTIME on the same host) in
//! a [`Histogram`]. Everything is allocated before it reports ready.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use p4switch::sys::{self, PacketSocket, RxLayout, SocketOptions};

use crate::frame::Probe;
use crate::histogram::Histogram;
use crate::options::Opts;
use crate::seqtrack::{Seen, SeqTracker};

/// The receive ring: 64 blocks of 1 MiB, handed over after at most 10 ms. The
/// kernel's time stamps make latency independent of when a block is handed
/// over, so blocks can be large: at low rates they hold 640 ms of frames (a
/// receiver thread preempted on a busy machine loses nothing), at 1 Mpps of
/// 64-byte frames about 0.4 s.
fn ring() -> SocketOptions {
    SocketOptions { rx: Some(RxLayout::Blocks { block_size: 1 << 20, block_nr: 64, timeout_ms: 10 }), ..SocketOptions::port(0) }
}

pub struct Received {
    pub seq: SeqTracker,
    /// One-way latency of each distinct frame, nanoseconds.
    pub latency: Histogram,
    /// Frames the kernel dropped because our ring was full (loss in the receiver, not the DUT).
    pub ring_drops: u64,
    /// Frames stamped later than they were received (clock stepped); counted as 0 ns.
    pub clock_back: u64,
}

/// Runs until `done` is set and the ring is empty. Reports on `ready` once
/// the socket is open; on error returns what it has (nothing).
pub fn run(o: &Opts, tag: u16, frames: u64, ready: mpsc::Sender<io::Result<()>>, done: Arc<AtomicBool>) -> Received {
    let mut out =
        Received { seq: SeqTracker::new(frames), latency: Histogram::new(), ring_drops: 0, clock_back: 0 };
    let open = || -> io::Result<PacketSocket> {
        if let Some(ns) = &o.rx_ns {
            sys::enter_netns(ns)?;
        }
        let s = PacketSocket::open(&o.rx, &ring())?;
        s.take_stats()?;
        Ok(s)
    };
    let mut sock = match open() {
        Ok(s) => {
            let _ = ready.send(Ok(()));
            s
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return out;
        }
    };
    let fds = [sock.raw_fd()];
    let mut readable = [false];
    loop {
        let mut any = false;
        while let Some(mut block) = sock.next_block() {
            any = true;
            while let Some(f) = block.next_frame() {
                let Some(p) = Probe::parse(f.data) else { continue };
                if p.tag != tag {
                    continue;
                }
                match out.seq.record(p.seq as u64) {
                    Seen::InOrder | Seen::Late => {
                        if f.rx_ns < p.tx_ns {
                            out.clock_back += 1;
                        }
                        out.latency.record(f.rx_ns.saturating_sub(p.tx_ns));
                    }
                    Seen::Duplicate | Seen::Foreign => {}
                }
            }
        }
        if done.load(Ordering::Relaxed) && !any {
            break;
        }
        if !any {
            let _ = sys::poll_readable(&fds, &mut readable, 5);
        }
    }
    if let Ok((_, drops)) = sock.take_stats() {
        out.ring_drops = drops;
    }
    out
}
