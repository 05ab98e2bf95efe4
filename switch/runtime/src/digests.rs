//! Digest batching (P4Runtime `DigestEntry.Config`), driven by an explicit
//! clock so tests need no timers.
//!
//! * Digests of an unconfigured digest id are dropped.
//! * A DigestList is emitted when `max_list_size` digests are pending (0: no
//!   size limit) or `max_timeout_ns` after the first pending digest.
//! * With `ack_timeout_ns > 0`, data sent in a list is not sent again until the
//!   list is acknowledged (DigestListAck) or the ack timeout expires; repeats
//!   inside one pending list are dropped too.

use std::collections::{BTreeMap, HashMap};

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
    first_ns: u64,
    /// Data sent and not yet acknowledged: value -> (list id, expiry).
    unacked: HashMap<DigestData, (u64, u64)>,
}

#[derive(Debug, Default)]
pub struct DigestBatcher {
    digests: BTreeMap<u32, PerDigest>,
    next_list_id: u64,
}

impl DigestBatcher {
    pub fn new() -> DigestBatcher {
        DigestBatcher { digests: BTreeMap::new(), next_list_id: 1 }
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
        self.digests.remove(&digest_id);
    }

    /// Forgets everything (new pipeline).
    pub fn clear(&mut self) {
        self.digests.clear();
    }

    fn take_list(&mut self, digest_id: u32, now_ns: u64) -> Option<ListOut> {
        let d = self.digests.get_mut(&digest_id)?;
        if d.pending.is_empty() {
            return None;
        }
        let list_id = self.next_list_id;
        self.next_list_id += 1;
        let data = std::mem::take(&mut d.pending);
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
        let d = self.digests.get_mut(&digest_id)?;
        let cfg = d.cfg?;
        if let Some((_, expiry)) = d.unacked.get(&data) {
            if *expiry > now_ns {
                return None;
            }
            d.unacked.remove(&data);
        }
        if cfg.ack_timeout_ns > 0 && d.pending.contains(&data) {
            return None;
        }
        if d.pending.is_empty() {
            d.first_ns = now_ns;
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
    fn remove_drops_pending() {
        let mut b = DigestBatcher::new();
        b.configure(1, cfg(1000, 10, 0));
        b.push(1, v(1), 0);
        b.remove(1);
        assert!(b.tick(5000).is_empty());
        assert_eq!(b.config(1), None);
    }
}
