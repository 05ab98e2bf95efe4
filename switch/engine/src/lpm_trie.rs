//! The plan's LPM structure: a multibit trie with 8-bit strides for tables
//! whose key is one LPM field of at most 64 bits (routes). A lookup reads at
//! most one node per key byte (4 for IPv4) and hashes nothing; the
//! interpreter keeps the reference index (one hash map per prefix length).
//!
//! A prefix of length `L` lives in the node at depth `(L - 1) / 8` on its
//! path (the root for `L = 0`) and covers `2^(8 - r)` of that node's 256
//! slots, `r = L - 8 * depth`. Each slot caches the longest of the node's own
//! prefixes covering it; deeper nodes hold longer prefixes, so the last slot
//! hit on the way down is the answer. Inserting or removing a prefix
//! recomputes only the slots it covers, from the node's own prefix list.
//!
//! Generic over what a prefix leads to (`table::Entry`), so this module
//! sits below `table` and imports nothing of the crate.

use std::sync::Arc;

/// One slot of a node: the best own prefix covering it (1 + index in
/// `entries`, 0: none) and the child node (0: none; the root is no child).
#[derive(Clone, Copy, Default)]
struct Slot {
    best: u32,
    child: u32,
}

pub struct LpmTrie<T> {
    /// Field width rounded up to whole bytes, and the shift that aligns a
    /// value's top bit with it.
    bits: u32,
    pad: u32,
    /// 256 slots per node, node `n` at `n * 256` (one load per key byte).
    slots: Vec<Slot>,
    /// Per node: the prefixes ending there (first slot, length within the
    /// node 0..=8, 1 + entry index).
    own: Vec<Vec<(u8, u8, u32)>>,
    /// The entries, by index (`None`: free, reused by the next insert).
    entries: Vec<Option<Arc<T>>>,
    free: Vec<u32>,
}

// (not derived: that would ask `T: Clone`; the trie clones pointers)
impl<T> Clone for LpmTrie<T> {
    fn clone(&self) -> Self {
        LpmTrie {
            bits: self.bits,
            pad: self.pad,
            slots: self.slots.clone(),
            own: self.own.clone(),
            entries: self.entries.clone(),
            free: self.free.clone(),
        }
    }
}

impl<T> LpmTrie<T> {
    /// A trie for an LPM field of `width` bits, if it fits (1..=64).
    pub fn new(width: u32) -> Option<LpmTrie<T>> {
        if width == 0 || width > 64 {
            return None;
        }
        let bits = width.div_ceil(8) * 8;
        Some(LpmTrie { bits, pad: bits - width, slots: vec![Slot::default(); 256], own: vec![Vec::new()], entries: Vec::new(), free: Vec::new() })
    }

    /// Byte `d` (from the top) of an aligned value.
    #[inline(always)]
    fn byte(&self, v: u64, d: u32) -> usize {
        ((v >> (self.bits - 8 * (d + 1))) & 0xff) as usize
    }

    /// The node of a prefix (created if `create`), its first slot and its
    /// length within the node.
    fn place(&mut self, value: u64, prefix_len: u32, create: bool) -> Option<(usize, usize, u32)> {
        let v = value << self.pad;
        let len = prefix_len.min(self.bits - self.pad);
        let depth = if len == 0 { 0 } else { (len - 1) / 8 };
        let mut n = 0usize;
        for d in 0..depth {
            let b = self.byte(v, d);
            let c = self.slots[n * 256 + b].child;
            n = if c != 0 {
                c as usize
            } else if create {
                let id = u32::try_from(self.own.len()).ok()?;
                self.own.push(Vec::new());
                self.slots.resize(self.slots.len() + 256, Slot::default());
                self.slots[n * 256 + b].child = id;
                id as usize
            } else {
                return None;
            };
        }
        let r = len - 8 * depth;
        let start = self.byte(v, depth) & (0xff00usize >> r) & 0xff;
        Some((n, start, r))
    }

    /// Recomputes the best prefix of node `n`'s slots `start..start + count`.
    fn recompute(&mut self, n: usize, start: usize, count: usize) {
        for s in start..(start + count).min(256) {
            let covering = self.own[n].iter().filter(|(st, r, _)| {
                let span = 1usize << (8 - *r as u32);
                (*st as usize..*st as usize + span).contains(&s)
            });
            self.slots[n * 256 + s].best = covering.max_by_key(|(_, r, _)| *r).map_or(0, |(_, _, i)| *i);
        }
    }

    /// Adds the prefix `value/prefix_len` (value: the field, bits beyond the prefix zero) leading to `e`.
    pub fn insert(&mut self, value: u64, prefix_len: u32, e: &Arc<T>) {
        let Some((n, start, r)) = self.place(value, prefix_len, true) else { return };
        let i = match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = Some(e.clone());
                i
            }
            None => {
                let Ok(i) = u32::try_from(self.entries.len()) else { return };
                self.entries.push(Some(e.clone()));
                i
            }
        };
        self.own[n].push((start as u8, r as u8, i + 1));
        self.recompute(n, start, 1 << (8 - r));
    }

    /// Removes the prefix `value/prefix_len` leading to `e` (the same `Arc`).
    pub fn remove(&mut self, value: u64, prefix_len: u32, e: &Arc<T>) {
        let Some((n, start, r)) = self.place(value, prefix_len, false) else { return };
        let entries = &mut self.entries;
        let free = &mut self.free;
        self.own[n].retain(|&(_, _, i)| {
            let slot = &mut entries[i as usize - 1];
            let same = slot.as_ref().is_some_and(|x| Arc::ptr_eq(x, e));
            if same {
                *slot = None;
                free.push(i - 1);
            }
            !same
        });
        self.recompute(n, start, 1 << (8 - r));
    }

    /// Nodes a lookup visits at most (key bytes).
    #[inline(always)]
    pub fn levels(&self) -> usize {
        (self.bits / 8) as usize
    }

    /// The entry of the longest prefix matching `v` (the field's value).
    #[inline]
    pub fn lookup(&self, v: u64) -> Option<&Arc<T>> {
        let v = v << self.pad;
        let mut best = 0;
        let mut n = 0usize;
        for d in 0..self.bits / 8 {
            let Some(s) = self.slots.get(n * 256 + self.byte(v, d)) else { break };
            if s.best != 0 {
                best = s.best;
            }
            if s.child == 0 {
                break;
            }
            n = s.child as usize;
        }
        self.entries.get((best as usize).checked_sub(1)?)?.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use crate::table::{build_entry, EAction, Limbs, TableState};
    use crate::types::MatchKey;
    use std::sync::Arc;

    /// Random routes inserted and removed: the trie answers as the reference
    /// index (one hash map per prefix length) for every probed address.
    #[test]
    fn the_trie_agrees_with_the_hash_groups() {
        let prog = crate::loader::load(include_str!("../fixtures/l3.json"), true).unwrap();
        let t = prog.tables.iter().find(|t| t.name == "MyIngress.ipv4_lpm").unwrap();
        let mut st = TableState::new(t);
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut live: Vec<Arc<crate::table::Entry>> = Vec::new();
        let mut scratch = [0u64; 1];
        for round in 0..3000 {
            let r = rnd();
            if r % 4 == 0 && !live.is_empty() {
                let e = live.swap_remove((r as usize / 4) % live.len());
                st.remove(&e);
            } else {
                // few distinct top bytes so that prefixes nest and overlap
                let addr = ((r >> 8) as u32 & 0x0307_ffff) | 0x0a00_0000;
                let plen = [0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32][(r % 13) as usize];
                let addr = if plen == 0 { 0 } else { addr & (u32::MAX << (32 - plen)) };
                let key = [MatchKey::Lpm(addr.to_be_bytes().to_vec(), plen)];
                let act = EAction::Direct { action: 0, data: Limbs::from(&[round as u64][..]) };
                let e = Arc::new(build_entry(t, &key, 0, act, 0, false, 0).unwrap());
                if st.find(&e).is_none() {
                    st.insert(e.clone());
                    live.push(e);
                }
            }
            for _ in 0..20 {
                let a = ((rnd() >> 3) as u32 & 0x0307_ffff) | 0x0a00_0000;
                let a = if rnd() % 8 == 0 { a ^ 0x8000_0000 } else { a };
                let key = [a as u64];
                let want = st.lookup(&key, &mut scratch, false).map(|h| Arc::as_ptr(h.entry));
                // the trie is built once the table has more prefix lengths than key bytes
                let crate::table::Index::Lpm { trie, groups, .. } = &st.index else { panic!("not an lpm index") };
                let Some(t) = trie else {
                    assert!(groups.len() <= 4, "no trie with {} prefix lengths", groups.len());
                    continue;
                };
                let got = t.lookup(key[0]).map(Arc::as_ptr);
                assert_eq!(got, want, "address {a:#010x} after {round} updates");
            }
        }
        assert!(!live.is_empty());
    }
}
