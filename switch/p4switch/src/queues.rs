//! Egress queues: every port's queue depth and rate (the run-time settings of
//! simple_switch_CLI's `set_queue_depth` and `set_queue_rate`, served by
//! [`crate::admin`]), the longest a frame may wait inside the switch
//! (`--queue-delay`), and the per-worker shaper that holds frames until their
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
//!
//! The delay bound caps the wait in time as well: a frame that would leave
//! later than its arrival plus the bound takes no slot and is dropped and
//! counted (so a dropped frame never leaves a hole in the timeline), and one
//! still held when the bound has passed (its worker was off the CPU) is
//! dropped when released, never sent late.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};

/// Deepest egress queue a port may have, in frames.
pub const MAX_DEPTH: u32 = 16_384;
/// Fastest rate a port may be shaped to, in frames per second.
pub const MAX_RATE_PPS: u64 = 100_000_000;
/// Longest delay bound, µs (1 s).
pub const MAX_DELAY_US: u32 = 1_000_000;

/// Nanoseconds of CLOCK_MONOTONIC, shared by all threads and by the XDP
/// program's arrival stamps (`bpf_ktime_get_ns`).
#[inline]
pub fn now_ns() -> u64 {
    crate::sys::monotonic_ns()
}

/// Whether a frame that has waited `waited` ns is past the bound `max_wait` (0: no bound).
#[inline]
pub fn too_old(waited: u64, max_wait: u64) -> bool {
    max_wait > 0 && waited > max_wait
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

/// Whether `us` is a valid delay bound (0: none); the error says the range.
pub fn check_delay(us: u32) -> Result<(), String> {
    if us > MAX_DELAY_US {
        return Err(format!("queue delay {us} µs: expected 0 (no bound) ..{MAX_DELAY_US} µs"));
    }
    Ok(())
}

/// Why a frame found no room in a shaped queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `depth` frames are already scheduled ahead of it.
    Full,
    /// Its departure would come later than its arrival plus the delay bound.
    Late,
}

/// One port's egress queue settings and shared departure timeline.
pub struct EgressQueue {
    depth: AtomicU32,
    rate_pps: AtomicU64,
    /// Longest a frame may wait inside the switch, ns (0: no bound).
    max_wait_ns: AtomicU64,
    /// Departure time of the next frame when shaping (ns of [`now_ns`]).
    next_ns: AtomicU64,
    /// Frames the workers hold for their departure time (for metrics).
    held: AtomicI64,
}

impl EgressQueue {
    pub fn new(depth: u32) -> EgressQueue {
        EgressQueue {
            depth: AtomicU32::new(depth.clamp(1, MAX_DEPTH)),
            rate_pps: AtomicU64::new(0),
            max_wait_ns: AtomicU64::new(0),
            next_ns: AtomicU64::new(0),
            held: AtomicI64::new(0),
        }
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

    /// The delay bound in ns; 0: none.
    #[inline]
    pub fn max_wait_ns(&self) -> u64 {
        self.max_wait_ns.load(Ordering::Relaxed)
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

    /// The delay bound in µs (0: none).
    pub fn set_delay_us(&self, us: u32) -> Result<(), String> {
        check_delay(us)?;
        self.max_wait_ns.store(us as u64 * 1000, Ordering::Relaxed);
        Ok(())
    }

    /// Reserves a departure time at `now` (ns) for one frame that arrived at
    /// `arrived` (<= `now`): `Ok(t)` with `t >= now`, or why not. A refused
    /// frame takes no slot.
    pub fn reserve(&self, now: u64, arrived: u64) -> Result<u64, Refused> {
        let bound = self.max_wait_ns();
        let deadline = if bound == 0 { u64::MAX } else { arrived.saturating_add(bound) };
        let rate = self.rate_pps();
        if rate == 0 {
            return if now > deadline { Err(Refused::Late) } else { Ok(now) };
        }
        let gap = (1_000_000_000 / rate).max(1);
        let horizon = gap.saturating_mul(self.depth() as u64);
        let mut next = self.next_ns.load(Ordering::Relaxed);
        loop {
            let t = next.max(now);
            if t - now >= horizon {
                return Err(Refused::Full);
            }
            if t > deadline {
                return Err(Refused::Late);
            }
            match self.next_ns.compare_exchange_weak(next, t + gap, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Ok(t),
                Err(cur) => next = cur,
            }
        }
    }
}

/// A frame held for its departure time.
struct Held {
    due: u64,
    arrived: u64,
    frame: Vec<u8>,
}

/// Frames one worker holds for one port until their departure times
/// (only used while the port is shaped). Buffers are reused.
#[derive(Default)]
pub struct Shaper {
    queue: VecDeque<Held>,
    spare: Vec<Vec<u8>>,
}

impl Shaper {
    /// Holds a copy of `frame`, which arrived at `arrived`, until `due`.
    pub fn hold(&mut self, due: u64, arrived: u64, frame: &[u8]) {
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(frame);
        self.queue.push_back(Held { due, arrived, frame: b });
    }

    /// When the first held frame is due, if any.
    pub fn next_due(&self) -> Option<u64> {
        self.queue.front().map(|h| h.due)
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Takes every frame due by `now`, in order: hands it to `send`, or drops
    /// it if it has waited longer than `max_wait` ns (0: no bound). Returns
    /// (sent, dropped as too old).
    pub fn release(&mut self, now: u64, max_wait: u64, send: &mut dyn FnMut(&[u8])) -> (usize, usize) {
        let (mut sent, mut late) = (0, 0);
        while self.queue.front().is_some_and(|h| h.due <= now) {
            let Some(h) = self.queue.pop_front() else { break };
            if too_old(now.saturating_sub(h.arrived), max_wait) {
                late += 1;
            } else {
                send(&h.frame);
                sent += 1;
            }
            self.spare.push(h.frame);
        }
        (sent, late)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unshaped_queues_send_now_and_settings_are_checked() {
        let q = EgressQueue::new(256);
        assert_eq!(q.reserve(1000, 1000), Ok(1000));
        assert!(q.set_depth(0).is_err());
        assert!(q.set_depth(MAX_DEPTH + 1).is_err());
        assert!(q.set_rate(MAX_RATE_PPS + 1).unwrap_err().contains("unlimited"));
        assert!(q.set_delay_us(MAX_DELAY_US + 1).unwrap_err().contains("no bound"));
        q.set_depth(64).unwrap();
        assert_eq!(q.depth(), 64);
        q.set_delay_us(1500).unwrap();
        assert_eq!(q.max_wait_ns(), 1_500_000);
    }

    #[test]
    fn a_shaped_queue_spaces_departures_and_drops_beyond_its_depth() {
        let q = EgressQueue::new(4);
        q.set_rate(1000).unwrap(); // one frame per ms
        let t0 = 10_000_000;
        let slots: Vec<Result<u64, Refused>> = (0..6).map(|_| q.reserve(t0, t0)).collect();
        assert_eq!(&slots[..4], &[Ok(t0), Ok(t0 + 1_000_000), Ok(t0 + 2_000_000), Ok(t0 + 3_000_000)]);
        assert_eq!(&slots[4..], &[Err(Refused::Full); 2], "depth 4: the fifth and sixth frames find the queue full");
        // 2.5 ms later three frames have left and one waits: three more fit.
        let later = t0 + 2_500_000;
        assert_eq!(q.reserve(later, later), Ok(t0 + 4_000_000));
        assert_eq!(q.reserve(later, later), Ok(t0 + 5_000_000));
        assert_eq!(q.reserve(later, later), Ok(t0 + 6_000_000));
        assert_eq!(q.reserve(later, later), Err(Refused::Full));
        // Idle for a long time: the next frame leaves at once.
        assert_eq!(q.reserve(t0 + 1_000_000_000, t0 + 1_000_000_000), Ok(t0 + 1_000_000_000));
    }

    #[test]
    fn the_delay_bound_caps_a_shaped_queue_in_time_and_late_frames_take_no_slot() {
        let q = EgressQueue::new(100);
        q.set_rate(1000).unwrap(); // one frame per ms: 100 ms of depth
        q.set_delay_us(2500).unwrap();
        let t0 = 50_000_000;
        let ok: Vec<_> = (0..3).map(|_| q.reserve(t0, t0)).collect();
        assert_eq!(ok, vec![Ok(t0), Ok(t0 + 1_000_000), Ok(t0 + 2_000_000)]);
        // The fourth would leave 3 ms after it arrived: refused, and its slot stays free.
        assert_eq!(q.reserve(t0, t0), Err(Refused::Late));
        assert_eq!(q.reserve(t0, t0), Err(Refused::Late));
        assert_eq!(q.reserve(t0 + 1_000_000, t0 + 1_000_000), Ok(t0 + 3_000_000), "the next frame gets the next slot");
        // A frame that already waited 2 ms in the receive ring has 0.5 ms left.
        assert_eq!(q.reserve(t0 + 2_000_000, t0), Err(Refused::Late));
        // Unshaped: only a frame already past the bound is refused.
        q.set_rate(0).unwrap();
        assert_eq!(q.reserve(t0 + 2_000_000, t0), Ok(t0 + 2_000_000));
        assert_eq!(q.reserve(t0 + 3_000_000, t0), Err(Refused::Late));
    }

    #[test]
    fn the_shaper_releases_frames_in_order_when_due() {
        let mut s = Shaper::default();
        s.hold(5, 0, b"a");
        s.hold(7, 0, b"b");
        s.hold(9, 0, b"c");
        assert_eq!(s.next_due(), Some(5));
        let mut out = Vec::new();
        assert_eq!(s.release(7, 0, &mut |f| out.push(f.to_vec())), (2, 0));
        assert_eq!(out, vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(s.len(), 1);
        assert_eq!(s.release(100, 0, &mut |f| out.push(f.to_vec())), (1, 0));
        assert!(s.is_empty() && s.next_due().is_none());
    }

    #[test]
    fn the_shaper_drops_frames_released_after_the_bound() {
        let mut s = Shaper::default();
        s.hold(1_000, 0, b"old");
        s.hold(1_500, 900, b"young");
        let mut out = Vec::new();
        // Released at 2,000 ns (the worker was away): "old" waited 2,000 ns, "young" 1,100.
        assert_eq!(s.release(2_000, 1_500, &mut |f| out.push(f.to_vec())), (1, 1));
        assert_eq!(out, vec![b"young".to_vec()]);
        assert!(s.is_empty());
    }

    #[test]
    fn the_bound_is_off_at_zero() {
        assert!(!too_old(u64::MAX, 0));
        assert!(!too_old(1_000, 1_000));
        assert!(too_old(1_001, 1_000));
    }
}
