//! A fixed-size log-linear histogram of nanosecond values (latencies).
//!
//! Values below 128 have a bucket each; above, every power of two is split
//! into 64 equal buckets, so a bucket is at most 1/64 (1.6 %) of its values
//! wide. 3,776 buckets cover all of `u64`, allocated once; recording is a
//! `leading_zeros` and an add, never an allocation. Percentiles are the upper
//! edge of the bucket that holds the rank, clamped to the exact minimum and
//! maximum, so `min <= p50 <= p90 <= p99 <= p99.9 <= max` always holds.

/// Bits of mantissa kept above the leading one.
const MANT_BITS: u32 = 6;
const HALF: u64 = 1 << MANT_BITS;
const LINEAR: u64 = 2 * HALF;
/// Buckets needed for `u64::MAX` (shift 57, mantissa 127) plus one.
pub const BUCKETS: usize = ((63 - MANT_BITS as usize) * HALF as usize) + LINEAR as usize;

pub struct Histogram {
    counts: Box<[u64]>,
    total: u64,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

fn bucket_of(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - MANT_BITS;
    (shift as u64 * HALF + (v >> shift)) as usize
}

/// The largest value that falls in bucket `b`.
fn upper_edge(b: usize) -> u64 {
    let b = b as u64;
    if b < LINEAR {
        return b;
    }
    let shift = b / HALF - 1;
    let mant = b - shift * HALF;
    let edge = ((mant as u128 + 1) << shift) - 1;
    edge.min(u64::MAX as u128) as u64
}

impl Histogram {
    pub fn new() -> Histogram {
        Histogram { counts: vec![0; BUCKETS].into_boxed_slice(), total: 0, min: u64::MAX, max: 0 }
    }

    pub fn record(&mut self, v: u64) {
        self.counts[bucket_of(v)] += 1;
        self.total += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// The value at quantile `q` (0..=1), or `None` without samples.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        if q <= 0.0 {
            return Some(self.min);
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(upper_edge(b).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_u64() {
        for v in [0u64, 1, 127, 128, 129, 255, 256, 1000, 1 << 40, u64::MAX - 1, u64::MAX] {
            let b = bucket_of(v);
            assert!(b < BUCKETS, "{v}");
            assert!(upper_edge(b) >= v, "{v}");
            if b > 0 {
                assert!(upper_edge(b - 1) < v, "{v}");
            }
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        assert_eq!(upper_edge(BUCKETS - 1), u64::MAX);
        for b in 1..BUCKETS {
            assert_eq!(bucket_of(upper_edge(b - 1) + 1), b, "bucket {b} starts right after bucket {}", b - 1);
        }
    }

    #[test]
    fn empty_histogram_has_no_percentiles() {
        let h = Histogram::new();
        assert_eq!(h.quantile(0.5), None);
        assert_eq!(h.min(), None);
        assert_eq!(h.max(), None);
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(50));
        assert_eq!(h.quantile(0.99), Some(99));
        assert_eq!(h.quantile(1.0), Some(100));
        assert_eq!(h.quantile(0.0), Some(1));
        assert_eq!((h.min(), h.max()), (Some(1), Some(100)));
    }

    #[test]
    fn percentiles_of_microsecond_latencies_within_bucket_width() {
        let mut h = Histogram::new();
        // 1..=100_000 ns uniformly: pXX is XX % of 100 µs
        for v in 1..=100_000u64 {
            h.record(v);
        }
        for (q, want) in [(0.5, 50_000.0), (0.9, 90_000.0), (0.99, 99_000.0), (0.999, 99_900.0)] {
            let got = h.quantile(q).unwrap() as f64;
            assert!(got >= want && got <= want * (1.0 + 1.0 / 64.0) + 1.0, "q={q} got {got} want {want}");
        }
        assert_eq!(h.quantile(1.0), Some(100_000));
    }

    #[test]
    fn a_single_outlier_is_the_max_and_not_the_p99() {
        let mut h = Histogram::new();
        for _ in 0..1000 {
            h.record(20_000);
        }
        h.record(5_000_000_000);
        let p99 = h.quantile(0.99).unwrap();
        assert!((20_000..=20_000 + 20_000 / 64).contains(&p99), "{p99}");
        assert_eq!(h.max(), Some(5_000_000_000));
        assert_eq!(h.quantile(0.9999), Some(5_000_000_000));
    }

    #[test]
    fn percentiles_are_ordered_and_clamped_to_min_and_max() {
        let mut h = Histogram::new();
        for v in [1_000_003u64, 1_000_007, 1_000_011] {
            h.record(v);
        }
        let qs: Vec<u64> = [0.0, 0.5, 0.9, 0.99, 0.999, 1.0].iter().map(|&q| h.quantile(q).unwrap()).collect();
        assert!(qs.windows(2).all(|w| w[0] <= w[1]), "{qs:?}");
        assert_eq!(qs[0], 1_000_003);
        assert_eq!(qs[5], 1_000_011);
        assert!(qs.iter().all(|&v| (1_000_003..=1_000_011).contains(&v)), "{qs:?}");
    }
}
