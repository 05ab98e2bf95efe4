//! Egress queues: every port's queue depth and rate (the run-time settings of
//! simple_switch_CLI's `set_queue_depth` and `set_queue_rate`, served by
//! [`crate::admin`]), and the per-worker shaper that holds frames until their
//! departure time when a rate is set.
//!
//! Without a rate a frame goes straight to the port's transmit ring, which
//! holds at most `depth` frames that the kernel has not taken yet; beyond it
//! frames are dropped and counted. With a rate of R frames/s the port's
//! departures are spaced 1/R apart on one timeline shared by the workers (a
//! virtual-time scheduler: each frame reserves the next departure slot with
//! one compare-and-swap); a frame whose slot lies more than `depth` slots in
//! the future finds the queue full and is dropped and counted, so no frame
//! ever waits longer than depth/R.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// Deepest egress queue a port may have, in frames.
pub const MAX_DEPTH: u32 = 16_384;
/// Fastest rate a port may be shaped to, in frames per second.
pub const MAX_RATE_PPS: u64 = 100_000_000;

/// Nanoseconds on a monotonic clock shared by all threads.
pub fn now_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Whether `depth` is a valid queue depth; the error says the range.
pub fn check_depth(depth: u32) -> Result<(), String> {
    if depth == 0 || depth > MAX_DEPTH {
        return Err(format!("queue depth {depth}: expected 1..{MAX_DEPTH} frames"));
    }
    Ok(())
}

/// Whether `rate_pps` is a valid queue rate (0: unlimited); the error says the range.
pub fn check_rate(rate_pps: u64) -> Result<(), String> {
    if rate_pps > MAX_RATE_PPS {
        return Err(format!("queue rate {rate_pps}: expected 0 (unlimited) ..{MAX_RATE_PPS} frames/s"));
    }
    Ok(())
}

/// One port's egress queue settings and shared departure timeline.
pub struct EgressQueue {
    depth: AtomicU32,
    rate_pps: AtomicU64,
    /// Departure time of the next frame when shaping (ns of [`now_ns`]).
    next_ns: AtomicU64,
    /// Frames the workers hold for their departure time (for metrics).
    held: AtomicI64,
}

impl EgressQueue {
    pub fn new(depth: u32) -> EgressQueue {
        EgressQueue { depth: AtomicU32::new(depth.clamp(1, MAX_DEPTH)), rate_pps: AtomicU64::new(0), next_ns: AtomicU64::new(0), held: AtomicI64::new(0) }
    }

    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth.load(Ordering::Relaxed)
    }

    /// 0: not shaped.
    #[inline]
    pub fn rate_pps(&self) -> u64 {
        self.rate_pps.load(Ordering::Relaxed)
    }

    /// Frames waiting in this queue for their departure time. Only a shaped
    /// port holds frames; an unshaped port's go straight to the transmit ring.
    pub fn waiting(&self) -> u64 {
        self.held.load(Ordering::Relaxed).max(0) as u64
    }

    /// A worker took (`+n`) or released (`-n`) frames to hold.
    pub fn held(&self, delta: i64) {
        if delta != 0 {
            self.held.fetch_add(delta, Ordering::Relaxed);
        }
    }

    pub fn set_depth(&self, depth: u32) -> Result<(), String> {
        check_depth(depth)?;
        self.depth.store(depth, Ordering::Relaxed);
        Ok(())
    }

    pub fn set_rate(&self, rate_pps: u64) -> Result<(), String> {
        check_rate(rate_pps)?;
        self.rate_pps.store(rate_pps, Ordering::Relaxed);
        Ok(())
    }

    /// Reserves a departure time for one frame at `now` (ns): `Some(t)` with
    /// `t >= now`, or `None` if `depth` frames are already scheduled ahead.
    pub fn reserve(&self, now: u64) -> Option<u64> {
        let rate = self.rate_pps();
        if rate == 0 {
            return Some(now);
        }
        let gap = (1_000_000_000 / rate).max(1);
        let horizon = gap.saturating_mul(self.depth() as u64);
        let mut next = self.next_ns.load(Ordering::Relaxed);
        loop {
            let t = next.max(now);
            if t - now >= horizon {
                return None;
            }
            match self.next_ns.compare_exchange_weak(next, t + gap, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(t),
                Err(cur) => next = cur,
            }
        }
    }
}

/// Frames one worker holds for one port until their departure times
/// (only used while the port is shaped). Buffers are reused.
#[derive(Default)]
pub struct Shaper {
    queue: VecDeque<(u64, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
}

impl Shaper {
    /// Holds a copy of `frame` until `at`.
    pub fn hold(&mut self, at: u64, frame: &[u8]) {
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(frame);
        self.queue.push_back((at, b));
    }

    /// When the first held frame is due, if any.
    pub fn next_due(&self) -> Option<u64> {
        self.queue.front().map(|(t, _)| *t)
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Hands every frame due by `now` to `send`, in order.
    pub fn release(&mut self, now: u64, send: &mut dyn FnMut(&[u8])) -> usize {
        let mut n = 0;
        while let Some((t, _)) = self.queue.front() {
            if *t > now {
                break;
            }
            let Some((_, b)) = self.queue.pop_front() else { break };
            send(&b);
            self.spare.push(b);
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unshaped_queues_send_now_and_settings_are_checked() {
        let q = EgressQueue::new(256);
        assert_eq!(q.reserve(1000), Some(1000));
        assert!(q.set_depth(0).is_err());
        assert!(q.set_depth(MAX_DEPTH + 1).is_err());
        assert!(q.set_rate(MAX_RATE_PPS + 1).unwrap_err().contains("unlimited"));
        q.set_depth(64).unwrap();
        assert_eq!(q.depth(), 64);
    }

    #[test]
    fn a_shaped_queue_spaces_departures_and_drops_beyond_its_depth() {
        let q = EgressQueue::new(4);
        q.set_rate(1000).unwrap(); // one frame per ms
        let t0 = 10_000_000;
        let slots: Vec<Option<u64>> = (0..6).map(|_| q.reserve(t0)).collect();
        assert_eq!(&slots[..4], &[Some(t0), Some(t0 + 1_000_000), Some(t0 + 2_000_000), Some(t0 + 3_000_000)]);
        assert_eq!(&slots[4..], &[None, None], "depth 4: the fifth and sixth frames find the queue full");
        // 2.5 ms later three frames have left and one waits: three more fit.
        let later = t0 + 2_500_000;
        assert_eq!(q.reserve(later), Some(t0 + 4_000_000));
        assert_eq!(q.reserve(later), Some(t0 + 5_000_000));
        assert_eq!(q.reserve(later), Some(t0 + 6_000_000));
        assert_eq!(q.reserve(later), None);
        // Idle for a long time: the next frame leaves at once.
        assert_eq!(q.reserve(t0 + 1_000_000_000), Some(t0 + 1_000_000_000));
    }

    #[test]
    fn the_shaper_releases_frames_in_order_when_due() {
        let mut s = Shaper::default();
        s.hold(5, b"a");
        s.hold(7, b"b");
        s.hold(9, b"c");
        assert_eq!(s.next_due(), Some(5));
        let mut out = Vec::new();
        assert_eq!(s.release(7, &mut |f| out.push(f.to_vec())), 2);
        assert_eq!(out, vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(s.len(), 1);
        assert_eq!(s.release(100, &mut |f| out.push(f.to_vec())), 1);
        assert!(s.is_empty() && s.next_due().is_none());
    }
}
