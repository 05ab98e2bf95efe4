//! Match tables: entries, lookup indexes and their copy-on-write snapshots.
//!
//! * exact: one hash map keyed by the key's hash (buckets hold the entries, so
//!   collisions are resolved by comparing keys);
//! * lpm: one hash map per prefix length, searched longest first;
//! * ternary / range / optional (tuple-space search): entries grouped by mask
//!   vector, one hash map per group, groups searched in order of their best
//!   priority with early exit; range fields are wildcarded in the mask and
//!   checked per candidate.
//!
//! A `TableState` is immutable once published; writers clone it (cheap: maps
//! of `u64 -> Arc<..>`), change the clone and publish it atomically, so readers
//! never see a half-written entry and never take a lock.

use crate::lpm_trie::LpmTrie;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use crate::types::*;
use crate::bits;
use crate::bits::apply_prefix;
use crate::externs::MeterCell;
use crate::program::{Table, TableImpl};

/// Hasher for keys that are already well-mixed u64 hashes.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = v as u64;
    }
}

pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Hash of a key (little-endian limbs).
#[inline]
pub fn hash_words(w: &[u64]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3 ^ w.len() as u64;
    for &x in w {
        h = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h
}

#[inline(always)]
fn eq_limbs(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A small vector of limbs: up to 4 inline (no pointer to chase on lookups).
#[derive(Clone)]
pub enum Limbs {
    Inline(u8, [u64; 4]),
    Heap(Box<[u64]>),
}

impl std::ops::Deref for Limbs {
    type Target = [u64];
    #[inline(always)]
    fn deref(&self) -> &[u64] {
        match self {
            Limbs::Inline(n, a) => &a[..(*n as usize).min(4)],
            Limbs::Heap(b) => b,
        }
    }
}

impl From<Vec<u64>> for Limbs {
    fn from(v: Vec<u64>) -> Limbs {
        Limbs::from(&v[..])
    }
}

impl From<&[u64]> for Limbs {
    fn from(v: &[u64]) -> Limbs {
        if v.len() <= 4 {
            let mut a = [0u64; 4];
            a[..v.len()].copy_from_slice(v);
            Limbs::Inline(v.len() as u8, a)
        } else {
            Limbs::Heap(v.into())
        }
    }
}

impl From<Box<[u64]>> for Limbs {
    fn from(v: Box<[u64]>) -> Limbs {
        Limbs::from(&v[..])
    }
}

impl PartialEq for Limbs {
    fn eq(&self, o: &Limbs) -> bool {
        **self == **o
    }
}
impl Eq for Limbs {}
impl std::fmt::Debug for Limbs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", &**self)
    }
}

/// What an entry executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EAction {
    Direct { action: usize, data: Limbs },
    Member(u32),
    Group(u32),
}

/// Per-entry state shared by all versions of an entry (survives modify).
pub struct EntryStats {
    pub packets: AtomicU64,
    pub bytes: AtomicU64,
    pub last_hit_us: AtomicU64,
    pub expired_reported: AtomicBool,
    pub meter: Mutex<MeterCell>,
}

impl EntryStats {
    pub fn new(now_us: u64) -> EntryStats {
        EntryStats {
            packets: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            last_hit_us: AtomicU64::new(now_us),
            expired_reported: AtomicBool::new(false),
            meter: Mutex::new(MeterCell::default()),
        }
    }
}

#[repr(C)]
pub struct Entry {
    /// Masked value limbs (key layout of the table); hot: first.
    pub value: Limbs,
    pub action: EAction,
    pub priority: i32,
    /// Canonical key (full-width bytes).
    pub key: Vec<MatchKey>,
    pub idle_timeout_ns: u64,
    pub is_const: bool,
    pub stats: Arc<EntryStats>,
    /// Mask limbs (ternary group identity; all ones for exact fields).
    pub mask: Box<[u64]>,
    /// Range checks: (limb offset, lo, hi).
    pub ranges: Box<[(u32, Box<[u64]>, Box<[u64]>)]>,
    pub prefix_len: u32,
}

impl Entry {
    #[inline]
    fn ranges_ok(&self, key: &[u64]) -> bool {
        for (off, lo, hi) in self.ranges.iter() {
            let o = *off as usize;
            let Some(v) = key.get(o..o + lo.len()) else { return false };
            if cmp_limbs(v, lo) == std::cmp::Ordering::Less || cmp_limbs(v, hi) == std::cmp::Ordering::Greater {
                return false;
            }
        }
        true
    }
}

fn cmp_limbs(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    for i in (0..a.len().max(b.len())).rev() {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        if x != y {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

/// Entries sharing one hash (usually one). A single entry keeps a copy of
/// its key and action in the hash map's own slot, so a hit costs one memory
/// access instead of two dependent ones.
#[derive(Clone)]
pub enum Bucket {
    One { value: Limbs, action: EAction, e: Arc<Entry> },
    Many(Arc<[Arc<Entry>]>),
}

/// A lookup result: the action to run and the entry (for its statistics).
pub struct Hit<'a> {
    pub action: &'a EAction,
    pub entry: &'a Arc<Entry>,
}

impl Bucket {
    #[inline(always)]
    pub fn iter(&self) -> std::slice::Iter<'_, Arc<Entry>> {
        match self {
            Bucket::One { e, .. } => std::slice::from_ref(e).iter(),
            Bucket::Many(v) => v.iter(),
        }
    }
    fn one(e: Arc<Entry>) -> Bucket {
        Bucket::One { value: e.value.clone(), action: e.action.clone(), e }
    }
    fn from_vec(mut v: Vec<Arc<Entry>>) -> Option<Bucket> {
        match v.len() {
            0 => None,
            1 => v.pop().map(Bucket::one),
            _ => Some(Bucket::Many(v.into())),
        }
    }
    /// The entry whose value equals `key` (exact and lpm indexes).
    #[inline(always)]
    fn find_eq<'a>(&'a self, key: &[u64]) -> Option<Hit<'a>> {
        match self {
            Bucket::One { value, action, e } => {
                if eq_limbs(value, key) {
                    Some(Hit { action, entry: e })
                } else {
                    None
                }
            }
            Bucket::Many(v) => v.iter().find(|e| eq_limbs(&e.value, key)).map(|e| Hit { action: &e.action, entry: e }),
        }
    }
}

#[derive(Clone, Default)]
pub struct HGroup {
    pub mask: Arc<[u64]>,
    pub max_prio: i32,
    pub count: usize,
    pub map: IdMap<u64, Bucket>,
}

#[derive(Clone)]
pub enum Index {
    Exact(IdMap<u64, Bucket>),
    /// Groups by prefix length, longest first (the interpreter's index), and
    /// for a key of one LPM field of at most 64 bits the plan's trie.
    Lpm { off: u32, nl: u32, width: u32, groups: Vec<(u32, IdMap<u64, Bucket>)>, trie: Option<Box<LpmTrie>> },
    /// Groups by mask, best priority first.
    Ternary(Vec<HGroup>),
}

/// A published table snapshot.
#[derive(Clone)]
pub struct TableState {
    /// Control-plane index: hash of (canonical key, priority) -> entries.
    pub by_key: IdMap<u64, Bucket>,
    pub len: usize,
    pub index: Index,
    pub default: Option<EAction>,
}

fn bucket_insert(b: Option<&Bucket>, e: Arc<Entry>) -> Bucket {
    let mut v: Vec<Arc<Entry>> = b.map(|b| b.iter().cloned().collect()).unwrap_or_default();
    let pos = v.iter().position(|x| x.priority < e.priority).unwrap_or(v.len());
    v.insert(pos, e.clone());
    Bucket::from_vec(v).unwrap_or_else(|| Bucket::one(e))
}

fn bucket_remove(b: &Bucket, e: &Arc<Entry>) -> Option<Bucket> {
    let v: Vec<Arc<Entry>> = b.iter().filter(|x| !Arc::ptr_eq(x, e)).cloned().collect();
    Bucket::from_vec(v)
}

fn key_id(key: &[MatchKey], prio: i32) -> u64 {
    use std::hash::{Hash, Hasher as _};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    prio.hash(&mut h);
    h.finish()
}

impl TableState {
    pub fn new(t: &Table) -> TableState {
        let index = match t.imp {
            TableImpl::Exact => Index::Exact(IdMap::default()),
            TableImpl::Lpm => {
                let k = t.keys.iter().find(|k| k.kind == MatchKind::Lpm);
                let (off, nl, width) = k.map_or((0, 1, 1), |k| (k.off, k.nlimbs, k.width));
                let trie = if t.keys.len() == 1 && t.key_limbs == 1 { LpmTrie::new(width).map(Box::new) } else { None };
                Index::Lpm { off, nl, width, groups: Vec::new(), trie }
            }
            TableImpl::Ternary => Index::Ternary(Vec::new()),
        };
        TableState {
            by_key: IdMap::default(),
            len: 0,
            index,
            default: t.default_entry.as_ref().map(|d| EAction::Direct { action: d.action, data: Limbs::from(&d.data[..]) }),
        }
    }

    /// The entry with this canonical key and priority.
    pub fn find(&self, key: &[MatchKey], prio: i32) -> Option<&Arc<Entry>> {
        let b = self.by_key.get(&key_id(key, prio))?;
        b.iter().find(|e| e.key == key && e.priority == prio)
    }

    pub fn entries(&self) -> impl Iterator<Item = &Arc<Entry>> {
        self.by_key.values().flat_map(|b| b.iter())
    }

    pub fn insert(&mut self, e: Arc<Entry>) {
        let id = key_id(&e.key, e.priority);
        let nb = bucket_insert(self.by_key.get(&id), e.clone());
        self.by_key.insert(id, nb);
        self.len += 1;
        match &mut self.index {
            Index::Exact(m) => {
                let h = hash_words(&e.value);
                let nb = bucket_insert(m.get(&h), e);
                m.insert(h, nb);
            }
            Index::Lpm { groups, trie, .. } => {
                if let Some(t) = trie {
                    t.insert(&e);
                }
                let pos = groups.iter().position(|g| g.0 <= e.prefix_len);
                let gi = match pos {
                    Some(p) if groups[p].0 == e.prefix_len => p,
                    Some(p) => {
                        groups.insert(p, (e.prefix_len, IdMap::default()));
                        p
                    }
                    None => {
                        groups.push((e.prefix_len, IdMap::default()));
                        groups.len() - 1
                    }
                };
                let h = hash_words(&e.value);
                let m = &mut groups[gi].1;
                let nb = bucket_insert(m.get(&h), e);
                m.insert(h, nb);
            }
            Index::Ternary(groups) => {
                let gi = match groups.iter().position(|g| *g.mask == *e.mask) {
                    Some(g) => g,
                    None => {
                        groups.push(HGroup { mask: e.mask.to_vec().into(), max_prio: i32::MIN, count: 0, map: IdMap::default() });
                        groups.len() - 1
                    }
                };
                let g = &mut groups[gi];
                let h = hash_words(&e.value);
                g.max_prio = g.max_prio.max(e.priority);
                g.count += 1;
                let nb = bucket_insert(g.map.get(&h), e);
                g.map.insert(h, nb);
                groups.sort_by(|a, b| b.max_prio.cmp(&a.max_prio));
            }
        }
    }

    pub fn remove(&mut self, e: &Arc<Entry>) {
        let id = key_id(&e.key, e.priority);
        if let Some(b) = self.by_key.get(&id) {
            match bucket_remove(b, e) {
                Some(nb) => {
                    self.by_key.insert(id, nb);
                }
                None => {
                    self.by_key.remove(&id);
                }
            }
        }
        self.len = self.len.saturating_sub(1);
        let h = hash_words(&e.value);
        let rm = |m: &mut IdMap<u64, Bucket>| {
            if let Some(b) = m.get(&h) {
                match bucket_remove(b, e) {
                    Some(nb) => {
                        m.insert(h, nb);
                    }
                    None => {
                        m.remove(&h);
                    }
                }
            }
        };
        match &mut self.index {
            Index::Exact(m) => rm(m),
            Index::Lpm { groups, trie, .. } => {
                if let Some(t) = trie {
                    t.remove(e);
                }
                if let Some(gi) = groups.iter().position(|g| g.0 == e.prefix_len) {
                    rm(&mut groups[gi].1);
                    if groups[gi].1.is_empty() {
                        groups.remove(gi);
                    }
                }
            }
            Index::Ternary(groups) => {
                if let Some(gi) = groups.iter().position(|g| *g.mask == *e.mask) {
                    let g = &mut groups[gi];
                    rm(&mut g.map);
                    g.count = g.count.saturating_sub(1);
                    if g.count == 0 {
                        groups.remove(gi);
                    } else {
                        g.max_prio = g.map.values().flat_map(|b| b.iter()).map(|x| x.priority).max().unwrap_or(i32::MIN);
                        groups.sort_by(|a, b| b.max_prio.cmp(&a.max_prio));
                    }
                }
            }
        }
    }

    /// Data-plane lookup. `key` has the table's key layout; `scratch` has at
    /// least as many limbs. `plan`: use the plan's structures where the
    /// table has them (else the interpreter's reference indexes).
    #[inline]
    pub fn lookup<'a>(&'a self, key: &[u64], scratch: &mut [u64], plan: bool) -> Option<Hit<'a>> {
        match &self.index {
            Index::Exact(m) => m.get(&hash_words(key))?.find_eq(key),
            // the trie reads one slot per key byte, the groups hash once per
            // prefix length present: the trie only pays with more lengths
            Index::Lpm { trie: Some(t), groups, .. } if plan && groups.len() > t.levels() => {
                let e = t.lookup(key.first().copied().unwrap_or(0))?;
                Some(Hit { action: &e.action, entry: e })
            }
            Index::Lpm { off, nl, width, groups, .. } => {
                let n = key.len();
                let s = scratch.get_mut(..n)?;
                s.copy_from_slice(key);
                let o = *off as usize;
                let nl = *nl as usize;
                for (plen, m) in groups {
                    apply_prefix(&mut s[o..o + nl], *width, *plen);
                    if let Some(b) = m.get(&hash_words(s)) {
                        if let Some(h) = b.find_eq(s) {
                            return Some(h);
                        }
                    }
                }
                None
            }
            Index::Ternary(groups) => {
                let n = key.len();
                let s = scratch.get_mut(..n)?;
                let mut best: Option<&Arc<Entry>> = None;
                for g in groups {
                    if let Some(b) = best {
                        if b.priority >= g.max_prio {
                            break;
                        }
                    }
                    for i in 0..n {
                        s[i] = key[i] & g.mask[i];
                    }
                    if let Some(bk) = g.map.get(&hash_words(s)) {
                        for e in bk.iter() {
                            if let Some(b) = best {
                                if b.priority >= e.priority {
                                    break;
                                }
                            }
                            if eq_limbs(&e.value, s) && e.ranges_ok(key) {
                                best = Some(e);
                                break;
                            }
                        }
                    }
                }
                best.map(|e| Hit { action: &e.action, entry: e })
            }
        }
    }
}

/// Builds a data-plane entry from a control-plane key, validating it against
/// the table (widths, masks, prefix lengths, priority).
pub fn build_entry(
    t: &Table,
    key: &[MatchKey],
    priority: i32,
    action: EAction,
    idle_timeout_ns: u64,
    is_const: bool,
    stats: Arc<EntryStats>,
) -> ApiResult<Entry> {
    let inv = |m: String| Err(ApiError::InvalidArgument(format!("table {}: {m}", t.name)));
    if key.len() != t.keys.len() {
        return inv(format!("{} key fields given, table has {}", key.len(), t.keys.len()));
    }
    if t.needs_priority {
        if priority <= 0 && !is_const {
            return inv("a priority > 0 is required for tables with ternary, range or optional fields".into());
        }
    } else if priority != 0 && !is_const {
        return inv("priority must be 0 for tables without ternary, range or optional fields".into());
    }
    if idle_timeout_ns > 0 && !t.support_timeout {
        return inv("idle_timeout_ns must be 0: the table does not support idle timeouts".into());
    }
    let n = t.key_limbs as usize;
    let mut value = vec![0u64; n];
    let mut mask = vec![0u64; n];
    let mut ranges = Vec::new();
    let mut canon = Vec::with_capacity(key.len());
    let mut prefix_len = 0;
    for (i, (k, mk)) in t.keys.iter().zip(key.iter()).enumerate() {
        let o = k.off as usize;
        let nl = k.nlimbs as usize;
        let fname = &k.name;
        let to_limbs = |b: &[u8], what: &str| -> ApiResult<Vec<u64>> {
            if bits::bitlen_bytes(b) > k.width {
                return Err(ApiError::InvalidArgument(format!(
                    "table {}: key field {i} ({fname}): {what} does not fit in {} bits",
                    t.name, k.width
                )));
            }
            let mut l = vec![0u64; nl];
            bits::bytes_to_limbs(b, &mut l);
            Ok(l)
        };
        let full = bits::limbs_to_bytes(&vec![u64::MAX; nl], k.width);
        let ones = to_limbs(&full, "mask")?;
        let (v, m, c) = match (k.kind, mk) {
            (MatchKind::Exact, MatchKey::Exact(b)) => {
                let v = to_limbs(b, "value")?;
                (v.clone(), ones.clone(), MatchKey::Exact(bits::limbs_to_bytes(&v, k.width)))
            }
            (MatchKind::Lpm, MatchKey::Lpm(b, plen)) => {
                if *plen > k.width {
                    return inv(format!("key field {i} ({fname}): prefix length {plen} > width {}", k.width));
                }
                let v = to_limbs(b, "value")?;
                let mut mm = ones.clone();
                apply_prefix(&mut mm, k.width, *plen);
                let mut vm = v.clone();
                apply_prefix(&mut vm, k.width, *plen);
                if vm != v {
                    return inv(format!("key field {i} ({fname}): bits beyond the prefix length must be zero"));
                }
                prefix_len = *plen;
                (v, mm, MatchKey::Lpm(bits::limbs_to_bytes(&vm, k.width), *plen))
            }
            (MatchKind::Ternary, MatchKey::Ternary(b, mb)) => {
                let v = to_limbs(b, "value")?;
                let mm = to_limbs(mb, "mask")?;
                let vm: Vec<u64> = v.iter().zip(&mm).map(|(a, b)| a & b).collect();
                if vm != v {
                    return inv(format!("key field {i} ({fname}): value has bits outside the mask"));
                }
                (v, mm.clone(), MatchKey::Ternary(bits::limbs_to_bytes(&vm, k.width), bits::limbs_to_bytes(&mm, k.width)))
            }
            (MatchKind::Ternary, MatchKey::Exact(b)) | (MatchKind::Optional, MatchKey::Exact(b)) => {
                let v = to_limbs(b, "value")?;
                let c = if k.kind == MatchKind::Optional {
                    MatchKey::Optional(Some(bits::limbs_to_bytes(&v, k.width)))
                } else {
                    MatchKey::Ternary(bits::limbs_to_bytes(&v, k.width), full.clone())
                };
                (v, ones.clone(), c)
            }
            (MatchKind::Optional, MatchKey::Optional(Some(b))) => {
                let v = to_limbs(b, "value")?;
                (v.clone(), ones.clone(), MatchKey::Optional(Some(bits::limbs_to_bytes(&v, k.width))))
            }
            (MatchKind::Optional, MatchKey::Optional(None)) => (vec![0; nl], vec![0; nl], MatchKey::Optional(None)),
            (MatchKind::Optional, MatchKey::Ternary(b, mb)) => {
                // const entries of optional fields come as ternary (mask all or nothing)
                let v = to_limbs(b, "value")?;
                let mm = to_limbs(mb, "mask")?;
                if mm.iter().all(|x| *x == 0) {
                    (vec![0; nl], vec![0; nl], MatchKey::Optional(None))
                } else {
                    (v.clone(), ones.clone(), MatchKey::Optional(Some(bits::limbs_to_bytes(&v, k.width))))
                }
            }
            (MatchKind::Range, MatchKey::Range(lo, hi)) => {
                let l = to_limbs(lo, "low bound")?;
                let h = to_limbs(hi, "high bound")?;
                if cmp_limbs(&l, &h) == std::cmp::Ordering::Greater {
                    return inv(format!("key field {i} ({fname}): low bound > high bound"));
                }
                ranges.push((k.off, l.clone().into_boxed_slice(), h.clone().into_boxed_slice()));
                (
                    vec![0; nl],
                    vec![0; nl],
                    MatchKey::Range(bits::limbs_to_bytes(&l, k.width), bits::limbs_to_bytes(&h, k.width)),
                )
            }
            (kind, got) => {
                return inv(format!("key field {i} ({fname}) is {kind:?}, got {got:?}"));
            }
        };
        value[o..o + nl].copy_from_slice(&v);
        mask[o..o + nl].copy_from_slice(&m);
        canon.push(c);
    }
    for i in 0..n {
        value[i] &= mask[i];
    }
    let priority = if t.needs_priority { priority } else { 0 };
    Ok(Entry {
        key: canon,
        priority,
        action,
        idle_timeout_ns,
        is_const,
        stats,
        value: Limbs::from(value),
        mask: mask.into(),
        ranges: ranges.into(),
        prefix_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_mask() {
        let mut v = [u64::MAX];
        apply_prefix(&mut v, 32, 24);
        assert_eq!(v[0], 0xffff_ff00 | !0xffff_ffffu64);
        let mut w = [u64::MAX, u64::MAX];
        apply_prefix(&mut w, 128, 64);
        assert_eq!(w, [0, u64::MAX]);
        let mut z = [0xffffu64];
        apply_prefix(&mut z, 16, 0);
        assert_eq!(z[0], 0);
    }
}
