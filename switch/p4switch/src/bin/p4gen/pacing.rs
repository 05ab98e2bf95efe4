//! Pacing arithmetic: when each frame is due, and how far the frames handed
//! over per window strayed from the target rate.
//!
//! Frame `k` (from 0) of a paced trial is due `k / rate` seconds after the
//! start. The sender does not keep a timer per frame: each time round its loop
//! it reads the clock once, hands over every frame due by then (at most one
//! batch) and sleeps until the next one is due if that is far enough away.
//! It counts the frames it handed over per 100 ms window of the trial;
//! [`PaceStats`] compares complete windows (100 ms, and 1 s made of ten of
//! them) with `rate × window`; an incomplete last window is left out.

/// Width of the finest counting window.
pub const WINDOW_NS: u64 = 100_000_000;
/// Windows of [`WINDOW_NS`] in one second.
pub const PER_SECOND: usize = (1_000_000_000 / WINDOW_NS) as usize;

/// When the frames of a trial are due.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Frames per second, or `None`: all at once (as fast as the sender can).
    pub rate: Option<f64>,
    /// Frames in the trial.
    pub total: u64,
}

impl Schedule {
    /// How many frames (from 0) are due `elapsed_ns` after the start.
    pub fn due(&self, elapsed_ns: u64) -> u64 {
        match self.rate {
            None => self.total,
            Some(r) => (((elapsed_ns as f64 * r / 1e9) as u64).saturating_add(1)).min(self.total),
        }
    }

    /// Nanoseconds after the start at which frame `seq` is due.
    pub fn due_at_ns(&self, seq: u64) -> u64 {
        match self.rate {
            None => 0,
            Some(r) => (seq as f64 * 1e9 / r).ceil() as u64,
        }
    }

    /// Nominal length of the trial in nanoseconds (0 when unpaced).
    pub fn nominal_ns(&self) -> u64 {
        self.due_at_ns(self.total)
    }
}

/// Frames counted per [`WINDOW_NS`] window, allocated once for the whole trial.
pub struct Windows {
    counts: Vec<u64>,
}

impl Windows {
    /// Room for a trial of `nominal_ns` plus a few late windows (later counts go to the last one).
    pub fn new(nominal_ns: u64) -> Windows {
        Windows { counts: vec![0; (nominal_ns / WINDOW_NS) as usize + 4] }
    }

    pub fn add(&mut self, elapsed_ns: u64, frames: u64) {
        let i = ((elapsed_ns / WINDOW_NS) as usize).min(self.counts.len() - 1);
        self.counts[i] += frames;
    }

    pub fn counts(&self) -> &[u64] {
        &self.counts
    }
}

/// Sums of `group` consecutive counts; an incomplete group at the end is dropped.
pub fn regroup(counts: &[u64], group: usize) -> Vec<u64> {
    counts.chunks_exact(group.max(1)).map(|c| c.iter().sum()).collect()
}

/// Largest |count − target| / target over `counts`, in percent (`None` if there are none).
pub fn max_dev_pct(counts: &[u64], target: f64) -> Option<f64> {
    if target <= 0.0 {
        return None;
    }
    counts.iter().map(|&c| (c as f64 - target).abs() / target * 100.0).fold(None, |m, d| Some(m.map_or(d, |m: f64| m.max(d))))
}

/// Worst windows of a paced trial.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaceStats {
    /// Complete 1 s windows.
    pub windows_1s: usize,
    pub max_dev_1s_pct: Option<f64>,
    /// Complete 100 ms windows.
    pub windows_100ms: usize,
    pub max_dev_100ms_pct: Option<f64>,
    /// Frames per complete 1 s window.
    pub per_second: Vec<u64>,
}

impl PaceStats {
    /// Statistics of 100 ms window `counts` against `rate` frames/s over a trial of `nominal_ns`.
    pub fn of(counts: &[u64], rate: f64, nominal_ns: u64) -> PaceStats {
        let full = ((nominal_ns as f64 / WINDOW_NS as f64) + 1e-6) as usize;
        let fine = &counts[..full.min(counts.len())];
        let per_second = regroup(fine, PER_SECOND);
        PaceStats {
            windows_1s: per_second.len(),
            max_dev_1s_pct: max_dev_pct(&per_second, rate),
            windows_100ms: fine.len(),
            max_dev_100ms_pct: max_dev_pct(fine, rate * WINDOW_NS as f64 / 1e9),
            per_second,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_counts_follow_the_rate() {
        let s = Schedule { rate: Some(1_000_000.0), total: 10_000_000 };
        assert_eq!(s.due(0), 1, "frame 0 is due at the start");
        assert_eq!(s.due(999), 1);
        assert_eq!(s.due(1000), 2);
        assert_eq!(s.due(1_000_000_000), 1_000_001);
        assert_eq!(s.due(u64::MAX / 2), 10_000_000, "never more than the trial");
        assert_eq!(s.nominal_ns(), 10_000_000_000);
        for k in [0u64, 1, 7, 999_999, 5_000_001] {
            assert!(s.due(s.due_at_ns(k)) > k, "frame {k} is due at due_at_ns");
            if k > 0 {
                assert!(s.due(s.due_at_ns(k) - 1) <= k, "frame {k} is not due before");
            }
        }
    }

    #[test]
    fn line_rate_schedule_with_a_fractional_rate() {
        // 64-byte frames at 1 Gb/s: 1e9 / (84 * 8) = 1,488,095.2 frames/s, 672 ns apart.
        let s = Schedule { rate: Some(1e9 / (84.0 * 8.0)), total: 1000 };
        assert_eq!(s.due_at_ns(1), 672);
        assert_eq!(s.due_at_ns(10), 6720);
        assert_eq!(s.due(6719), 10);
        assert_eq!(s.due(6720), 11);
    }

    #[test]
    fn unpaced_schedule_has_everything_due_at_once() {
        let s = Schedule { rate: None, total: 5000 };
        assert_eq!(s.due(0), 5000);
        assert_eq!(s.due_at_ns(4999), 0);
    }

    #[test]
    fn windows_regroup_into_seconds_and_drop_the_incomplete_tail() {
        let mut w = Windows::new(2_500_000_000);
        for i in 0..25u64 {
            w.add(i * WINDOW_NS + 5, 100);
        }
        w.add(u64::MAX, 7); // a very late batch lands in the last window
        let c = w.counts();
        assert_eq!(c.len(), 29);
        assert_eq!(*c.last().unwrap(), 7);
        assert_eq!(regroup(&c[..25], PER_SECOND), vec![1000, 1000]);
    }

    #[test]
    fn deviation_is_the_worst_window_in_either_direction() {
        assert_eq!(max_dev_pct(&[1000, 990, 1005], 1000.0), Some(1.0));
        assert_eq!(max_dev_pct(&[1000, 1020], 1000.0), Some(2.0));
        assert_eq!(max_dev_pct(&[], 1000.0), None);
        assert_eq!(max_dev_pct(&[5], 0.0), None);
    }

    #[test]
    fn pace_stats_of_a_perfect_and_of_a_stalled_sender() {
        let rate = 10_000.0; // 1000 frames per 100 ms
        let perfect = vec![1000u64; 30];
        let p = PaceStats::of(&perfect, rate, 3_000_000_000);
        assert_eq!((p.windows_1s, p.windows_100ms), (3, 30));
        assert_eq!(p.max_dev_1s_pct, Some(0.0));
        assert_eq!(p.max_dev_100ms_pct, Some(0.0));
        assert_eq!(p.per_second, vec![10_000; 3]);
        // the sender stalls for one 100 ms window and catches up in the next
        let mut stalled = perfect.clone();
        stalled[12] = 0;
        stalled[13] = 2000;
        let s = PaceStats::of(&stalled, rate, 3_000_000_000);
        assert_eq!(s.max_dev_100ms_pct, Some(100.0));
        assert_eq!(s.max_dev_1s_pct, Some(0.0), "caught up within the same second");
        // a trial shorter than a second has no 1 s window
        let short = PaceStats::of(&perfect[..5], rate, 500_000_000);
        assert_eq!((short.windows_1s, short.max_dev_1s_pct, short.windows_100ms), (0, None, 5));
    }
}
