//! Digest batching (P4Runtime `DigestEntry.Config`), driven by an explicit
//! clock so tests need no timers.
//!
//! * Digests of an unconfigured digest id are dropped.
//! * A DigestList is emitted when `max_list_size` digests are pending (0: no
//!   size limit) or `max_timeout_ns` after the first pending digest.
//! * With `ack_timeout_ns > 0`, data sent in a list is not sent again until the
//!   list is acknowledged (DigestListAck) or the ack timeout expires; repeats
//!   inside one pending list are dropped too.
//! * A switch-wide cap (`--max-digest-rate`, digest data per second over all
//!   digests, a token bucket holding one second's worth) keeps a learning
//!   flood from becoming an unbounded digest stream: data beyond it is
//!   dropped and counted ([`DigestStats::rate_dropped`]). Repeats suppressed
//!   while unacknowledged cost nothing, so the cap is spent on new data only.

use std::collections::{BTreeMap, HashMap, HashSet};

/// Default `--max-digest-rate`: far above what a host population learns in
/// normal operation, far below what a flood raises (one digest per frame).
pub const DEFAULT_MAX_DIGEST_RATE: u64 = 10_000;

/// One digest's field values (big-endian, any width).
pub type DigestData = Vec<Vec<u8>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DigestConfig {
    pub max_timeout_ns: u64,
    pub max_list_size: usize,
    pub ack_timeout_ns: u64,
}

/// A list ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOut {
    pub digest_id: u32,
    pub list_id: u64,
    pub data: Vec<DigestData>,
}

#[derive(Debug, Default)]
struct PerDigest {
    cfg: Option<DigestConfig>,
    pending: Vec<DigestData>,
    /// The same data as `pending`, for the repeat check (kept only with an ack timeout).
    pending_set: HashSet<DigestData>,
    first_ns: u64,
    /// Data sent and not yet acknowledged: value -> (list id, expiry).
    unacked: HashMap<DigestData, (u64, u64)>,
}

/// What became of the digests the data plane raised, since the switch started
/// (a new pipeline does not reset them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DigestStats {
    /// Digest data taken into a list (and sent, once the list is due).
    pub accepted: u64,
    /// DigestLists sent.
    pub lists: u64,
    /// Dropped by the switch-wide rate cap.
    pub rate_dropped: u64,
    /// Dropped as a repeat of data sent and not yet acknowledged (or already pending).
    pub suppressed: u64,
    /// Dropped because no controller configured the digest (no DigestEntry).
    pub unconfigured: u64,
    /// The cap in force (digest data per second; 0 = none).
    pub max_rate: u64,
    /// Dropped inside the engine before any of the above: its queue was full
    /// because digests were raised faster than the runtime took them.
    pub queue_overflow: u64,
    /// Dropped because no P4Runtime pipeline was set: the program was loaded
    /// from the command line and no SetForwardingPipelineConfig came yet.
    pub no_pipeline: u64,
    /// Taken into a list (counted in `accepted`) and dropped when the list
    /// was due because a primary's stream already buffered 4,096 messages (a
    /// controller that does not read its stream); once per stream that lost it.
    pub stream_full: u64,
    /// Taken into a list and dropped when the list was due because no
    /// controller was primary (or its stream had just ended).
    pub no_primary: u64,
    /// Taken into a list and dropped before the list was due: the digest's
    /// DigestEntry was deleted or a new pipeline was set.
    pub discarded: u64,
}

/// Token bucket of the switch-wide cap: `rate` tokens per second, at most
/// one second's worth saved up. Tokens are counted in units of 1/1e9 so that
/// the refill is exact for any rate.
#[derive(Debug)]
struct RateCap {
    rate: u64,
    nano_tokens: u128,
    last_ns: u64,
}

impl RateCap {
    fn new(rate: u64) -> RateCap {
        RateCap { rate, nano_tokens: rate as u128 * 1_000_000_000, last_ns: 0 }
    }

    /// Takes one token if there is one (rate 0: no cap).
    fn take(&mut self, now_ns: u64) -> bool {
        if self.rate == 0 {
            return true;
        }
        let full = self.rate as u128 * 1_000_000_000;
        let elapsed = now_ns.saturating_sub(self.last_ns) as u128;
        self.last_ns = self.last_ns.max(now_ns);
        self.nano_tokens = (self.nano_tokens + elapsed * self.rate as u128).min(full);
        if self.nano_tokens >= 1_000_000_000 {
            self.nano_tokens -= 1_000_000_000;
            true
        } else {
            false
        }
    }
}

#[derive(Debug)]
pub struct DigestBatcher {
    digests: BTreeMap<u32, PerDigest>,
    next_list_id: u64,
    cap: RateCap,
    stats: DigestStats,
}

impl Default for DigestBatcher {
    fn default() -> Self {
        DigestBatcher::new()
    }
}

impl DigestBatcher {
    /// A batcher with the default cap ([`DEFAULT_MAX_DIGEST_RATE`]).
    pub fn new() -> DigestBatcher {
        DigestBatcher::with_max_rate(DEFAULT_MAX_DIGEST_RATE)
    }

    /// A batcher passing at most `max_rate` digest data per second (0: no cap).
    pub fn with_max_rate(max_rate: u64) -> DigestBatcher {
        DigestBatcher {
            digests: BTreeMap::new(),
            next_list_id: 1,
            cap: RateCap::new(max_rate),
            stats: DigestStats { max_rate, ..Default::default() },
        }
    }

    /// Changes the cap (0: none); the bucket starts full again.
    pub fn set_max_rate(&mut self, max_rate: u64) {
        self.cap = RateCap::new(max_rate);
        self.stats.max_rate = max_rate;
    }

    /// Counters since the batcher was made.
    pub fn stats(&self) -> DigestStats {
        self.stats
    }

    pub fn config(&self, digest_id: u32) -> Option<DigestConfig> {
        self.digests.get(&digest_id).and_then(|d| d.cfg)
    }

    /// All configured digests, by id.
    pub fn configs(&self) -> Vec<(u32, DigestConfig)> {
        self.digests.iter().filter_map(|(id, d)| d.cfg.map(|c| (*id, c))).collect()
    }

    /// Sets (or replaces) a digest's configuration.
    pub fn configure(&mut self, digest_id: u32, cfg: DigestConfig) {
        self.digests.entry(digest_id).or_default().cfg = Some(cfg);
    }

    /// Removes a digest's configuration and everything pending for it.
    pub fn remove(&mut self, digest_id: u32) {
        if let Some(d) = self.digests.remove(&digest_id) {
            self.stats.discarded += d.pending.len() as u64;
        }
    }

    /// Forgets everything (new pipeline).
    pub fn clear(&mut self) {
        self.stats.discarded += self.digests.values().map(|d| d.pending.len() as u64).sum::<u64>();
        self.digests.clear();
    }

    /// Counts `n` digests of a digest id the P4Info does not name (nobody can
    /// configure them) as unconfigured.
    pub fn count_unconfigured(&mut self, n: u64) {
        self.stats.unconfigured += n;
    }

    fn take_list(&mut self, digest_id: u32, now_ns: u64) -> Option<ListOut> {
        let d = self.digests.get_mut(&digest_id)?;
        if d.pending.is_empty() {
            return None;
        }
        let list_id = self.next_list_id;
        self.next_list_id += 1;
        let data = std::mem::take(&mut d.pending);
        d.pending_set.clear();
        self.stats.lists += 1;
        if let Some(cfg) = d.cfg {
            if cfg.ack_timeout_ns > 0 {
                for v in &data {
                    d.unacked.insert(v.clone(), (list_id, now_ns.saturating_add(cfg.ack_timeout_ns)));
                }
            }
        }
        Some(ListOut { digest_id, list_id, data })
    }

    /// Adds one digest; returns a list if this one filled it.
    pub fn push(&mut self, digest_id: u32, data: DigestData, now_ns: u64) -> Option<ListOut> {
        let Some(cfg) = self.digests.get(&digest_id).and_then(|d| d.cfg) else {
            self.stats.unconfigured += 1;
            return None;
        };
        let d = self.digests.get_mut(&digest_id)?;
        if let Some((_, expiry)) = d.unacked.get(&data) {
            if *expiry > now_ns {
                self.stats.suppressed += 1;
                return None;
            }
            d.unacked.remove(&data);
        }
        if cfg.ack_timeout_ns > 0 && d.pending_set.contains(&data) {
            self.stats.suppressed += 1;
            return None;
        }
        if !self.cap.take(now_ns) {
            self.stats.rate_dropped += 1;
            return None;
        }
        self.stats.accepted += 1;
        if d.pending.is_empty() {
            d.first_ns = now_ns;
        }
        if cfg.ack_timeout_ns > 0 {
            d.pending_set.insert(data.clone());
        }
        d.pending.push(data);
        let full = cfg.max_list_size > 0 && d.pending.len() >= cfg.max_list_size;
        if full || cfg.max_timeout_ns == 0 {
            return self.take_list(digest_id, now_ns);
        }
        None
    }

    /// Acknowledges a list: its data may be sent again.
    pub fn ack(&mut self, digest_id: u32, list_id: u64) {
        if let Some(d) = self.digests.get_mut(&digest_id) {
            d.unacked.retain(|_, (l, _)| *l != list_id);
        }
    }

    /// Emits lists whose timeout elapsed and expires old unacknowledged data.
    pub fn tick(&mut self, now_ns: u64) -> Vec<ListOut> {
        let due: Vec<u32> = self
            .digests
            .iter_mut()
            .filter_map(|(id, d)| {
                d.unacked.retain(|_, (_, expiry)| *expiry > now_ns);
                let cfg = d.cfg?;
                (!d.pending.is_empty() && now_ns >= d.first_ns.saturating_add(cfg.max_timeout_ns)).then_some(*id)
            })
            .collect();
        due.into_iter().filter_map(|id| self.take_list(id, now_ns)).collect()
    }

    /// When the next list falls due (None: nothing pending).
    pub fn next_deadline(&self) -> Option<u64> {
        self.digests
            .values()
            .filter(|d| !d.pending.is_empty())
            .filter_map(|d| d.cfg.map(|c| d.first_ns.saturating_add(c.max_timeout_ns)))
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(timeout: u64, size: usize, ack: u64) -> DigestConfig {
        DigestConfig { max_timeout_ns: timeout, max_list_size: size, ack_timeout_ns: ack }
    }
    fn v(x: u8) -> DigestData {
        vec![vec![x]]
    }

    #[test]
    fn unconfigured_digests_are_dropped() {
        let mut b = DigestBatcher::new();
        assert_eq!(b.push(1, v(1), 0), None);
        assert!(b.tick(u64::MAX).is_empty());
    }

    #[test]
    fn list_is_sent_when_full() {
        let mut b = DigestBatcher::new();
        b.configure(1, cfg(1_000_000, 3, 0));
        assert_eq!(b.push(1, v(1), 0), None);
        assert_eq!(b.push(1, v(2), 1), None);
        let l = b.push(1, v(3), 2).expect("full list");
        assert_eq!(l.data, vec![v(1), v(2), v(3)]);
        assert_eq!(l.digest_id, 1);
        assert_eq!(b.next_deadline(), None);
    }

    #[test]
    fn list_is_sent_after_timeout() {
        let mut b = DigestBatcher::new();
        b.configure(1, cfg(1000, 100, 0));
        b.push(1, v(1), 500);
        b.push(1, v(2), 900);
        assert_eq!(b.next_deadline(), Some(1500));
        assert!(b.tick(1499).is_empty());
        let lists = b.tick(1500);
        assert_eq!(lists.len(), 1);
        assert_eq!(lists[0].data, vec![v(1), v(2)]);
    }

    #[test]
    fn zero_timeout_sends_immediately_and_list_ids_increase() {
        let mut b = DigestBatcher::new();
        b.configure(1, cfg(0, 10, 0));
        let a = b.push(1, v(1), 0).unwrap();
        let c = b.push(1, v(1), 0).unwrap();
        assert!(c.list_id > a.list_id);
    }

    #[test]
    fn unacked_data_is_suppressed_until_ack_or_timeout() {
        let mut b = DigestBatcher::new();
        b.configure(1, cfg(0, 1, 1000));
        let l = b.push(1, v(7), 0).unwrap();
        assert_eq!(b.push(1, v(7), 10), None, "same data while unacked");
        assert!(b.push(1, v(8), 10).is_some(), "other data still flows");
        b.ack(1, l.list_id);
        assert!(b.push(1, v(7), 20).is_some(), "sent again after ack");
        assert_eq!(b.push(1, v(7), 30), None);
        assert!(b.push(1, v(7), 2000).is_some(), "sent again after ack timeout");
    }

    #[test]
    fn remove_and_clear_drop_pending_and_count_it() {
        let mut b = DigestBatcher::new();
        b.configure(1, cfg(1000, 10, 0));
        b.push(1, v(1), 0);
        b.push(1, v(2), 0);
        b.remove(1);
        assert!(b.tick(5000).is_empty());
        assert_eq!(b.config(1), None);
        b.configure(2, cfg(1000, 10, 0));
        b.push(2, v(3), 0);
        b.clear();
        assert!(b.tick(5000).is_empty());
        let s = b.stats();
        assert_eq!((s.accepted, s.discarded, s.lists), (3, 3, 0), "{s:?}");
    }

    #[test]
    fn the_rate_cap_passes_a_second_s_worth_then_the_rate_and_counts_the_rest() {
        let mut b = DigestBatcher::with_max_rate(100);
        b.configure(1, cfg(0, 1, 0));
        let sent = (0..1000u32).filter(|i| b.push(1, vec![i.to_be_bytes().to_vec()], 0).is_some()).count();
        assert_eq!(sent, 100, "the bucket holds one second's worth");
        // 10 ms later: one more token (100/s)
        assert!(b.push(1, v(1), 10_000_000).is_some());
        assert_eq!(b.push(1, v(2), 10_000_000), None);
        // a long pause refills the bucket only up to one second's worth
        let later = (0..1000u32).filter(|i| b.push(1, vec![i.to_be_bytes().to_vec()], 60_000_000_000).is_some()).count();
        assert_eq!(later, 100);
        let s = b.stats();
        assert_eq!((s.accepted, s.rate_dropped, s.lists, s.max_rate), (201, 1801, 201, 100));
    }

    #[test]
    fn suppressed_and_unconfigured_data_cost_no_tokens() {
        let mut b = DigestBatcher::with_max_rate(2);
        b.configure(1, cfg(0, 1, 1_000_000_000));
        assert!(b.push(1, v(1), 0).is_some());
        for _ in 0..10 {
            assert_eq!(b.push(1, v(1), 0), None, "unacked repeat");
            assert_eq!(b.push(2, v(1), 0), None, "digest 2 is not configured");
        }
        assert!(b.push(1, v(2), 0).is_some(), "the second token is still there");
        assert_eq!(b.push(1, v(3), 0), None);
        let s = b.stats();
        assert_eq!((s.accepted, s.suppressed, s.unconfigured, s.rate_dropped), (2, 10, 10, 1));
    }

    #[test]
    fn zero_means_no_cap_and_a_new_pipeline_keeps_the_counters() {
        let mut b = DigestBatcher::with_max_rate(0);
        b.configure(1, cfg(0, 1, 0));
        assert_eq!((0..50_000u32).filter(|i| b.push(1, vec![i.to_be_bytes().to_vec()], 0).is_some()).count(), 50_000);
        b.clear();
        assert_eq!(b.stats().accepted, 50_000);
        b.set_max_rate(5);
        assert_eq!(b.stats().max_rate, 5);
    }

    #[test]
    fn repeats_inside_a_big_pending_list_are_found_quickly() {
        // 100,000 distinct data pending (no size limit), each raised twice: the
        // repeat check is a set lookup, not a scan of the list.
        let mut b = DigestBatcher::with_max_rate(0);
        b.configure(1, cfg(u64::MAX, 0, 1_000_000_000));
        for round in 0..2 {
            for i in 0..100_000u32 {
                assert_eq!(b.push(1, vec![i.to_be_bytes().to_vec()], round), None);
            }
        }
        let s = b.stats();
        assert_eq!((s.accepted, s.suppressed), (100_000, 100_000));
    }
}
