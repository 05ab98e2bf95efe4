//! Match tables: entries, lookup indexes and their copy-on-write snapshots.
//!
//! * exact: one hash table of entries keyed by their value;
//! * lpm: one hash table per prefix length, searched longest first (and, once
//!   a one-field key of at most 64 bits has more prefix lengths than key
//!   bytes, the plan's multibit trie beside them);
//! * ternary / range / optional (tuple-space search): entries grouped by mask
//!   vector, one hash map per group, groups searched in order of their best
//!   priority with early exit; range fields are wildcarded in the mask and
//!   checked per candidate;
//! * any kind, at most `small_scan::MAX` entries: the plan scans them in
//!   match order (`seal`, when a snapshot is published).
//!
//! Exact and lpm indexes are also the control-plane index (an entry's value
//! and prefix length are its key), so an entry is stored once per snapshot as
//! one pointer; ternary tables keep a separate index by full key. Entries
//! keep no copy of their canonical key: `Entry::key` rebuilds it. Issue 16
//! Must 7 (1 M routes in at most 200 bytes each) is what shapes this.
//!
//! A `TableState` is immutable once published; writers clone it (cheap: maps
//! of pointers), change the clone and publish it atomically, so readers never
//! see a half-written entry and never take a lock.

use crate::lpm_trie::LpmTrie;
use crate::small_scan::{self, SmallScan};
use hashbrown::HashTable;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// A small vector of limbs: up to 2 inline (128 bits: an IPv6 address, a MAC
/// and a port; no pointer to chase on lookups), more on the heap. Two, not
/// more: every entry holds two of these (key value, action data).
#[derive(Clone)]
pub enum Limbs {
    Inline(u8, [u64; 2]),
    Heap(Box<[u64]>),
}

impl std::ops::Deref for Limbs {
    type Target = [u64];
    #[inline(always)]
    fn deref(&self) -> &[u64] {
        match self {
            Limbs::Inline(n, a) => &a[..(*n as usize).min(2)],
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
        if v.len() <= 2 {
            let mut a = [0u64; 2];
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

/// Per-entry hit state, inside the entry (no allocation of its own). A
/// modify moves it into the new version (`TOp::Inherit`, replayed on the
/// spare copy too, so hits on the old version while packets still held it
/// are moved as well).
pub struct EntryStats {
    pub packets: AtomicU64,
    pub bytes: AtomicU64,
    pub last_hit_us: AtomicU64,
    pub expired_reported: AtomicBool,
}

impl EntryStats {
    pub fn new(now_us: u64) -> EntryStats {
        EntryStats {
            packets: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            last_hit_us: AtomicU64::new(now_us),
            expired_reported: AtomicBool::new(false),
        }
    }

    /// Moves `from`'s counts into `self` (leaving `from` at zero).
    pub fn take_from(&self, from: &EntryStats) {
        self.packets.fetch_add(from.packets.swap(0, Ordering::Relaxed), Ordering::Relaxed);
        self.bytes.fetch_add(from.bytes.swap(0, Ordering::Relaxed), Ordering::Relaxed);
        self.last_hit_us.fetch_max(from.last_hit_us.load(Ordering::Relaxed), Ordering::Relaxed);
        if from.expired_reported.load(Ordering::Relaxed) {
            self.expired_reported.store(true, Ordering::Relaxed);
        }
    }
}

/// Range check of one field: (limb offset, lo, hi).
pub type RangeCheck = (u32, Box<[u64]>, Box<[u64]>);

/// The parts of an entry most tables do not need, behind one pointer that is
/// null for them: the mask (tables with ternary, optional or range fields;
/// exact and lpm masks follow from the table), range checks, a non-zero idle
/// timeout, and the direct meter (shared by all versions of the entry).
pub struct EntryExtra {
    pub mask: Box<[u64]>,
    pub ranges: Box<[RangeCheck]>,
    pub idle_timeout_ns: u64,
    pub meter: Option<Arc<Mutex<MeterCell>>>,
}

/// One table entry: 104 bytes (x86-64) without its `extra`.
pub struct Entry {
    /// Masked value limbs (key layout of the table); hot: first.
    pub value: Limbs,
    pub action: EAction,
    pub stats: EntryStats,
    pub extra: Option<Box<EntryExtra>>,
    pub priority: i32,
    pub prefix_len: u16,
    pub is_const: bool,
    has_ranges: bool,
}

impl Entry {
    #[inline]
    fn ranges_ok(&self, key: &[u64]) -> bool {
        if !self.has_ranges {
            return true;
        }
        for (off, lo, hi) in self.ranges() {
            let o = *off as usize;
            let Some(v) = key.get(o..o + lo.len()) else { return false };
            if cmp_limbs(v, lo) == std::cmp::Ordering::Less || cmp_limbs(v, hi) == std::cmp::Ordering::Greater {
                return false;
            }
        }
        true
    }

    /// Mask limbs (tables with ternary, optional or range fields; empty for
    /// exact and lpm tables).
    pub fn mask(&self) -> &[u64] {
        self.extra.as_ref().map_or(&[], |x| &x.mask)
    }

    pub fn ranges(&self) -> &[RangeCheck] {
        self.extra.as_ref().map_or(&[], |x| &x.ranges)
    }

    pub fn idle_timeout_ns(&self) -> u64 {
        self.extra.as_ref().map_or(0, |x| x.idle_timeout_ns)
    }

    /// The direct meter (tables with one).
    pub fn meter(&self) -> Option<&Mutex<MeterCell>> {
        self.extra.as_ref()?.meter.as_deref()
    }

    /// Takes the direct meter of the entry this one replaces (before it is shared).
    pub fn share_meter(&mut self, old: &Entry) {
        if let (Some(x), Some(m)) = (self.extra.as_mut(), old.extra.as_ref().and_then(|o| o.meter.clone())) {
            x.meter = Some(m);
        }
    }

    /// Same key (value, mask, ranges, priority) as `o`, of the same table.
    pub fn same_key(&self, o: &Entry) -> bool {
        self.priority == o.priority
            && self.prefix_len == o.prefix_len
            && eq_limbs(&self.value, &o.value)
            && self.mask() == o.mask()
            && self.ranges() == o.ranges()
    }

    /// The canonical control-plane key (full-width bytes), rebuilt from the
    /// value, mask and ranges of table `t`'s entry.
    pub fn key(&self, t: &Table) -> Vec<MatchKey> {
        let mut ranges = self.ranges().iter();
        let mask = self.mask();
        t.keys
            .iter()
            .map(|k| {
                let o = k.off as usize;
                let nl = k.nlimbs as usize;
                let v = self.value.get(o..o + nl).unwrap_or(&[]);
                let m = mask.get(o..o + nl).unwrap_or(&[]);
                let b = |l: &[u64]| bits::limbs_to_bytes(l, k.width);
                match k.kind {
                    // (build_entry refuses keys of the other kinds)
                    MatchKind::Exact | MatchKind::Selector | MatchKind::Valid => MatchKey::Exact(b(v)),
                    MatchKind::Lpm => MatchKey::Lpm(b(v), self.prefix_len as u32),
                    MatchKind::Ternary => MatchKey::Ternary(b(v), b(m)),
                    MatchKind::Optional if m.iter().all(|x| *x == 0) => MatchKey::Optional(None),
                    MatchKind::Optional => MatchKey::Optional(Some(b(v))),
                    MatchKind::Range => match ranges.next() {
                        Some((_, lo, hi)) => MatchKey::Range(b(lo), b(hi)),
                        None => MatchKey::Range(Vec::new(), Vec::new()),
                    },
                }
            })
            .collect()
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

/// Entries sharing one hash (usually one) in a ternary table's maps, best
/// priority first.
#[derive(Clone)]
pub enum Bucket {
    One(Arc<Entry>),
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
            Bucket::One(e) => std::slice::from_ref(e).iter(),
            Bucket::Many(v) => v.iter(),
        }
    }
    fn from_vec(mut v: Vec<Arc<Entry>>) -> Option<Bucket> {
        match v.len() {
            0 => None,
            1 => v.pop().map(Bucket::One),
            _ => Some(Bucket::Many(v.into())),
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

/// Entries keyed by their value (exact tables, one prefix length of an lpm
/// table): one pointer per entry.
pub type ValueTable = HashTable<Arc<Entry>>;

#[inline(always)]
fn vt_find<'a>(m: &'a ValueTable, key: &[u64]) -> Option<&'a Arc<Entry>> {
    m.find(hash_words(key), |e| eq_limbs(&e.value, key))
}

fn vt_insert(m: &mut ValueTable, e: Arc<Entry>) {
    m.insert_unique(hash_words(&e.value), e, |x| hash_words(&x.value));
}

fn vt_remove(m: &mut ValueTable, e: &Arc<Entry>) {
    if let Ok(o) = m.find_entry(hash_words(&e.value), |x| Arc::ptr_eq(x, e)) {
        o.remove();
    }
}

#[derive(Clone)]
pub enum Index {
    Exact(ValueTable),
    /// Tables by prefix length, longest first (the interpreter's index, and
    /// the plan's while there are at most as many lengths as key bytes), and
    /// for a key of one LPM field of at most 64 bits the plan's trie, built
    /// when a table first has more lengths than key bytes.
    Lpm { off: u32, nl: u32, width: u32, groups: Vec<(u32, ValueTable)>, trie: Option<Box<LpmTrie<Entry>>>, trie_fits: bool },
    /// Groups by mask, best priority first, and the control-plane index:
    /// hash of (value, mask, ranges, priority) -> entries.
    Ternary { groups: Vec<HGroup>, by_key: IdMap<u64, Bucket> },
}

/// A published table snapshot.
#[derive(Clone)]
pub struct TableState {
    pub len: usize,
    pub index: Index,
    pub default: Option<EAction>,
    /// The plan's scan of a small table: set by `seal` (at publish) when the
    /// table has at most `small_scan::MAX` entries, dropped by any change.
    scan: Option<Box<SmallScan<Entry>>>,
}

fn bucket_insert(b: Option<&Bucket>, e: Arc<Entry>) -> Bucket {
    let mut v: Vec<Arc<Entry>> = b.map(|b| b.iter().cloned().collect()).unwrap_or_default();
    let pos = v.iter().position(|x| x.priority < e.priority).unwrap_or(v.len());
    v.insert(pos, e.clone());
    Bucket::from_vec(v).unwrap_or(Bucket::One(e))
}

fn bucket_remove(b: &Bucket, e: &Arc<Entry>) -> Option<Bucket> {
    let v: Vec<Arc<Entry>> = b.iter().filter(|x| !Arc::ptr_eq(x, e)).cloned().collect();
    Bucket::from_vec(v)
}

fn map_remove(m: &mut IdMap<u64, Bucket>, h: u64, e: &Arc<Entry>) {
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
}

/// Control-plane hash of a ternary table's entry key.
fn key_id(e: &Entry) -> u64 {
    let mut h = hash_words(&e.value) ^ hash_words(e.mask()).rotate_left(21) ^ (e.priority as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for (off, lo, hi) in e.ranges() {
        h = (h ^ hash_words(lo) ^ hash_words(hi).rotate_left(7) ^ *off as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h
}

impl TableState {
    pub fn new(t: &Table) -> TableState {
        let index = match t.imp {
            TableImpl::Exact => Index::Exact(ValueTable::new()),
            TableImpl::Lpm => {
                let k = t.keys.iter().find(|k| k.kind == MatchKind::Lpm);
                let (off, nl, width) = k.map_or((0, 1, 1), |k| (k.off, k.nlimbs, k.width));
                let trie_fits = t.keys.len() == 1 && t.key_limbs == 1 && LpmTrie::<Entry>::new(width).is_some();
                Index::Lpm { off, nl, width, groups: Vec::new(), trie: None, trie_fits }
            }
            TableImpl::Ternary => Index::Ternary { groups: Vec::new(), by_key: IdMap::default() },
        };
        TableState {
            len: 0,
            index,
            scan: None,
            default: t.default_entry.as_ref().map(|d| EAction::Direct { action: d.action, data: Limbs::from(&d.data[..]) }),
        }
    }

    /// The entry with the key of `probe` (an entry built for this table).
    pub fn find(&self, probe: &Entry) -> Option<&Arc<Entry>> {
        match &self.index {
            Index::Exact(m) => vt_find(m, &probe.value),
            Index::Lpm { groups, .. } => {
                let g = groups.iter().find(|g| g.0 == probe.prefix_len as u32)?;
                vt_find(&g.1, &probe.value)
            }
            Index::Ternary { by_key, .. } => by_key.get(&key_id(probe))?.iter().find(|e| e.same_key(probe)),
        }
    }

    pub fn entries(&self) -> Box<dyn Iterator<Item = &Arc<Entry>> + '_> {
        match &self.index {
            Index::Exact(m) => Box::new(m.iter()),
            Index::Lpm { groups, .. } => Box::new(groups.iter().flat_map(|g| g.1.iter())),
            Index::Ternary { by_key, .. } => Box::new(by_key.values().flat_map(|b| b.iter())),
        }
    }

    pub fn insert(&mut self, e: Arc<Entry>) {
        self.len += 1;
        self.scan = None;
        match &mut self.index {
            Index::Exact(m) => vt_insert(m, e),
            Index::Lpm { groups, trie, trie_fits, width, .. } => {
                let plen = e.prefix_len as u32;
                let pos = groups.iter().position(|g| g.0 <= plen);
                let gi = match pos {
                    Some(p) if groups[p].0 == plen => p,
                    Some(p) => {
                        groups.insert(p, (plen, ValueTable::new()));
                        p
                    }
                    None => {
                        groups.push((plen, ValueTable::new()));
                        groups.len() - 1
                    }
                };
                if let Some(t) = trie {
                    t.insert(e.value.first().copied().unwrap_or(0), plen, &e);
                }
                vt_insert(&mut groups[gi].1, e);
                // the trie pays (and costs its memory) only with more lengths than key bytes
                if trie.is_none() && *trie_fits && groups.len() > width.div_ceil(8) as usize {
                    if let Some(mut t) = LpmTrie::new(*width) {
                        for x in groups.iter().flat_map(|g| g.1.iter()) {
                            t.insert(x.value.first().copied().unwrap_or(0), x.prefix_len as u32, x);
                        }
                        *trie = Some(Box::new(t));
                    }
                }
            }
            Index::Ternary { groups, by_key } => {
                let id = key_id(&e);
                let nb = bucket_insert(by_key.get(&id), e.clone());
                by_key.insert(id, nb);
                let gi = match groups.iter().position(|g| *g.mask == *e.mask()) {
                    Some(g) => g,
                    None => {
                        groups.push(HGroup { mask: e.mask().to_vec().into(), max_prio: i32::MIN, count: 0, map: IdMap::default() });
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
        self.len = self.len.saturating_sub(1);
        self.scan = None;
        match &mut self.index {
            Index::Exact(m) => vt_remove(m, e),
            Index::Lpm { groups, trie, .. } => {
                if let Some(t) = trie {
                    t.remove(e.value.first().copied().unwrap_or(0), e.prefix_len as u32, e);
                }
                if let Some(gi) = groups.iter().position(|g| g.0 == e.prefix_len as u32) {
                    vt_remove(&mut groups[gi].1, e);
                    if groups[gi].1.is_empty() {
                        groups.remove(gi);
                    }
                }
            }
            Index::Ternary { groups, by_key } => {
                map_remove(by_key, key_id(e), e);
                if let Some(gi) = groups.iter().position(|g| *g.mask == *e.mask()) {
                    let g = &mut groups[gi];
                    map_remove(&mut g.map, hash_words(&e.value), e);
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

    /// Chooses the plan's structure for this snapshot before it is
    /// published: a scan in match order while the table is small (ternary:
    /// best priority first, ties in the order the groups are searched, as
    /// the tuple-space search breaks them; lpm: longest prefix first).
    pub fn seal(&mut self) {
        self.scan = None;
        if self.len == 0 || self.len > small_scan::MAX {
            return;
        }
        let mut rows: Vec<(&Arc<Entry>, Vec<u64>)> = Vec::with_capacity(self.len);
        let n = self.entries().next().map_or(0, |e| e.value.len());
        if n == 0 {
            return;
        }
        match &self.index {
            Index::Exact(m) => rows.extend(m.iter().map(|e| (e, vec![u64::MAX; n]))),
            Index::Lpm { off, nl, width, groups, .. } => {
                for (plen, m) in groups {
                    for e in m.iter() {
                        let mut mask = vec![u64::MAX; n];
                        let (o, l) = (*off as usize, *nl as usize);
                        if let Some(f) = mask.get_mut(o..o + l) {
                            apply_prefix(f, *width, *plen);
                        }
                        rows.push((e, mask));
                    }
                }
            }
            Index::Ternary { groups, .. } => {
                for g in groups {
                    rows.extend(g.map.values().flat_map(|b| b.iter()).map(|e| (e, e.mask().to_vec())));
                }
                // stable: equal priorities keep the search's order
                rows.sort_by(|a, b| b.0.priority.cmp(&a.0.priority));
            }
        }
        let rows = rows.iter().map(|(e, m)| (&e.value[..], &m[..], e.has_ranges, Arc::clone(e))).collect();
        self.scan = SmallScan::new(n, rows).map(Box::new);
    }

    /// Whether the plan scans this snapshot (`seal`).
    #[cfg(test)]
    pub fn scanned(&self) -> bool {
        self.scan.is_some()
    }

    /// Data-plane lookup. `key` has the table's key layout; `scratch` has at
    /// least as many limbs. `plan`: use the plan's structures where the
    /// table has them (else the interpreter's reference indexes).
    #[inline]
    pub fn lookup<'a>(&'a self, key: &[u64], scratch: &mut [u64], plan: bool) -> Option<Hit<'a>> {
        if plan {
            if let Some(s) = &self.scan {
                let e = s.lookup(key, |e| e.ranges_ok(key))?;
                return Some(Hit { action: &e.action, entry: e });
            }
        }
        match &self.index {
            Index::Exact(m) => vt_find(m, key).map(|e| Hit { action: &e.action, entry: e }),
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
                    if let Some(e) = vt_find(m, s) {
                        return Some(Hit { action: &e.action, entry: e });
                    }
                }
                None
            }
            Index::Ternary { groups, .. } => {
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
    now_us: u64,
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
    let _ = canon;
    // a mask is kept only in ternary tables (exact and lpm tables imply it)
    let mask: Box<[u64]> = if t.imp == TableImpl::Ternary { mask.into() } else { Box::new([]) };
    let meter = t.direct_meter.map(|_| Arc::new(Mutex::new(MeterCell::default())));
    let has_ranges = !ranges.is_empty();
    let extra = if mask.is_empty() && !has_ranges && idle_timeout_ns == 0 && meter.is_none() {
        None
    } else {
        Some(Box::new(EntryExtra { mask, ranges: ranges.into(), idle_timeout_ns, meter }))
    };
    Ok(Entry {
        priority,
        action,
        is_const,
        stats: EntryStats::new(now_us),
        value: Limbs::from(value),
        extra,
        prefix_len: u16::try_from(prefix_len).unwrap_or(u16::MAX),
        has_ranges,
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

    /// Issue 16 Must 7 budgets ~200 bytes a route: one `Arc<Entry>`
    /// allocation (16 + 104, a 128-byte malloc chunk) and a pointer per
    /// snapshot in a hash table.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn entries_stay_small() {
        assert_eq!(std::mem::size_of::<Limbs>(), 24);
        assert_eq!(std::mem::size_of::<EAction>(), 32);
        assert_eq!(std::mem::size_of::<EntryStats>(), 32);
        assert!(std::mem::size_of::<Entry>() <= 104, "{}", std::mem::size_of::<Entry>());
    }

    fn table(name: &str) -> Table {
        let prog = crate::loader::load(include_str!("../fixtures/l3_acl.json"), true).unwrap();
        prog.tables.iter().find(|t| t.name == name).unwrap().clone()
    }

    /// The key an entry gives back is what was written (in canonical form),
    /// and it finds the entry (exact, lpm, ternary; extra limbs on the heap).
    #[test]
    fn keys_are_rebuilt_and_found() {
        let act = |x: u64| EAction::Direct { action: 0, data: Limbs::from(&[x, 1, 2][..]) };
        for (name, keys, prio) in [
            ("MyIngress.nexthop", vec![vec![MatchKey::Exact(vec![0, 7])], vec![MatchKey::Exact(vec![1, 9])]], 0),
            ("MyIngress.ipv4_lpm", vec![vec![MatchKey::Lpm(vec![10, 1, 0, 0], 16)], vec![MatchKey::Lpm(vec![10, 1, 2, 0], 24)]], 0),
            (
                "MyIngress.acl",
                vec![
                    vec![
                        MatchKey::Ternary(vec![10, 0, 0, 0], vec![255, 0, 0, 0]),
                        MatchKey::Ternary(vec![0, 0, 0, 1], vec![0, 0, 0, 255]),
                        MatchKey::Ternary(vec![6], vec![255]),
                    ],
                    vec![
                        MatchKey::Ternary(vec![10, 0, 0, 0], vec![255, 0, 0, 0]),
                        MatchKey::Ternary(vec![0, 0, 0, 0], vec![0, 0, 0, 255]),
                        MatchKey::Ternary(vec![17], vec![255]),
                    ],
                ],
                3,
            ),
        ] {
            let t = table(name);
            let mut st = TableState::new(&t);
            for (i, k) in keys.iter().enumerate() {
                let e = Arc::new(build_entry(&t, k, prio, act(i as u64), 0, false, 0).unwrap());
                assert!(st.find(&e).is_none());
                st.insert(e);
            }
            assert_eq!(st.len, keys.len());
            for (i, k) in keys.iter().enumerate() {
                let probe = build_entry(&t, k, prio, EAction::Member(0), 0, false, 0).unwrap();
                let e = st.find(&probe).unwrap_or_else(|| panic!("{name}: {k:?} not found"));
                assert_eq!(e.action, act(i as u64));
                assert_eq!(&e.key(&t), k, "{name}");
            }
            let all: Vec<Arc<Entry>> = st.entries().cloned().collect();
            for e in &all {
                st.remove(e);
            }
            assert_eq!((st.len, st.entries().count()), (0, 0));
        }
    }

    /// Counters move to the new version, twice: hits on the old version after
    /// the first move (packets that still held it) follow on the second.
    #[test]
    fn modified_entries_take_the_old_counts() {
        let old = EntryStats::new(5);
        let new = EntryStats::new(0);
        old.packets.store(10, Ordering::Relaxed);
        old.bytes.store(1000, Ordering::Relaxed);
        new.take_from(&old);
        old.packets.fetch_add(1, Ordering::Relaxed);
        old.bytes.fetch_add(64, Ordering::Relaxed);
        old.last_hit_us.store(9, Ordering::Relaxed);
        new.take_from(&old);
        assert_eq!((new.packets.load(Ordering::Relaxed), new.bytes.load(Ordering::Relaxed)), (11, 1064));
        assert_eq!(new.last_hit_us.load(Ordering::Relaxed), 9);
        assert_eq!(old.packets.load(Ordering::Relaxed), 0);
    }

    /// Small tables of every kind, changed at random and sealed as at
    /// publish: the plan's scan gives the entry the reference index gives
    /// (ternary with overlapping entries and tied priorities, ranges,
    /// optional fields, nested prefixes), and only while the table is small.
    #[test]
    fn the_small_scan_agrees_with_the_indexes() {
        let ranges = crate::exec::behaviour::table_prog(&["ternary", "range", "optional"], true).to_string();
        let ranges = crate::loader::load(&ranges, true).unwrap();
        let tables = [
            table("MyIngress.nexthop"),
            table("MyIngress.ipv4_lpm"),
            table("MyIngress.acl"),
            ranges.tables.iter().find(|t| t.name == "t").unwrap().clone(),
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let be = |v: u64, w: u32| v.to_be_bytes()[8 - w.div_ceil(8) as usize..].to_vec();
        for t in &tables {
            let mut st = TableState::new(t);
            let mut live: Vec<Arc<Entry>> = Vec::new();
            let mut scratch = vec![0u64; t.key_limbs as usize];
            let mut scanned = 0;
            for round in 0..4000 {
                if rnd(3) == 0 && !live.is_empty() {
                    let e = live.swap_remove(rnd(live.len() as u64) as usize);
                    st.remove(&e);
                } else if live.len() < small_scan::MAX + 2 {
                    let key: Vec<MatchKey> = t
                        .keys
                        .iter()
                        .map(|k| {
                            let w = k.width;
                            let top = if w > 8 { 0x0a << (w - 8) } else { 0 };
                            let v = top | rnd(8);
                            match k.kind {
                                MatchKind::Lpm => {
                                    let plen = [0, 8, w - 3, w - 2, w - 1, w][rnd(6) as usize];
                                    let mut l = [v];
                                    apply_prefix(&mut l, w, plen);
                                    MatchKey::Lpm(be(l[0], w), plen)
                                }
                                MatchKind::Ternary => {
                                    let m = [0, u64::MAX, 0b110, 0b011][rnd(4) as usize] & bits::mask64(w);
                                    MatchKey::Ternary(be(v & m, w), be(m, w))
                                }
                                MatchKind::Range => {
                                    let lo = top | rnd(6);
                                    MatchKey::Range(be(lo, w), be(lo + rnd(4), w))
                                }
                                MatchKind::Optional if rnd(2) == 0 => MatchKey::Optional(None),
                                MatchKind::Optional => MatchKey::Optional(Some(be(v, w))),
                                _ => MatchKey::Exact(be(v, w)),
                            }
                        })
                        .collect();
                    let act = EAction::Direct { action: 0, data: Limbs::from(&[round as u64][..]) };
                    // few priorities: overlapping entries tie (0: tables without priorities)
                    let prio = if t.needs_priority { 1 + rnd(3) as i32 } else { 0 };
                    let e = Arc::new(build_entry(t, &key, prio, act, 0, false, 0).unwrap());
                    if st.find(&e).is_none() {
                        st.insert(e.clone());
                        live.push(e);
                    }
                }
                st.seal();
                assert_eq!(st.scanned(), (1..=small_scan::MAX).contains(&st.len), "{}: {} entries", t.name, st.len);
                scanned += st.scanned() as usize;
                for _ in 0..16 {
                    let mut key = vec![0u64; t.key_limbs as usize];
                    for k in &t.keys {
                        let top = if k.width > 8 { 0x0a << (k.width - 8) } else { 0 };
                        key[k.off as usize] = (top | rnd(8)) & bits::mask64(k.width);
                    }
                    let want = st.lookup(&key, &mut scratch, false).map(|h| Arc::as_ptr(h.entry));
                    let got = st.lookup(&key, &mut scratch, true).map(|h| Arc::as_ptr(h.entry));
                    assert_eq!(got, want, "{}: key {key:x?} after {round} changes ({} entries)", t.name, st.len);
                }
            }
            // (the seed is fixed: 947 of 4000 rounds for the smallest count, table "t")
            assert!(scanned > 500, "{}: scanned in only {scanned} rounds", t.name);
        }
    }
}
