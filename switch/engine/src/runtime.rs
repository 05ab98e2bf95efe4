//! Runtime state of a loaded program (tables, action profiles, externs,
//! replication engine, value sets) and the control-plane operations on it.
//!
//! Readers (packet threads) only `load()` snapshots; writers serialize on
//! `write_lock`, build a new snapshot and `store()` it.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use crate::types::*;
use crate::bits;
use crate::externs::{new_counter_array, new_meter_array, CounterCell, MeterCell, RegArray};
use crate::program::Prog;
use crate::table::{build_entry, EAction, Entry, IdMap, Limbs, TableState};

/// One action-profile member (resolved action and data).
#[derive(Debug)]
pub struct MemberData {
    pub action: usize,
    pub data: Limbs,
}

#[derive(Debug)]
pub struct GroupData {
    pub members: Vec<(u32, u32)>,
    pub max_size: u32,
    /// Members expanded by weight, for hashing.
    pub expanded: Vec<Arc<MemberData>>,
}

#[derive(Clone, Default)]
pub struct ProfState {
    pub members: IdMap<u32, Arc<MemberData>>,
    pub groups: IdMap<u32, Arc<GroupData>>,
}

#[derive(Clone, Default)]
pub struct Pre {
    pub mc: BTreeMap<u32, Arc<[Replica]>>,
    pub clones: BTreeMap<u32, CloneSession>,
}

/// A change to a table snapshot (replayed on the spare copy).
#[derive(Clone)]
pub enum TOp {
    Insert(Arc<Entry>),
    Remove(Arc<Entry>),
    /// A modify's new version takes the old one's counters (applied on both
    /// copies: the second time it moves the hits that packets still holding
    /// the old version counted after the first).
    Inherit { old: Arc<Entry>, new: Arc<Entry> },
    Default(Option<EAction>),
    /// Remove all entries (keeps the default).
    Clear,
}

/// How long a writer waits for packets to leave the previous snapshot
/// before it copies the published one instead: a packet reads it for
/// microseconds; one held longer (a pinned worker) is not worth waiting for.
const STAGE_WAIT: std::time::Duration = std::time::Duration::from_millis(1);

/// A table's published snapshot plus a spare copy (left-right): writes are
/// applied to the spare, published with one atomic swap, and replayed on the
/// previous snapshot once its readers are gone, so a write costs O(change),
/// not O(table). Writes can be staged (`edit`) and published later together
/// (`publish`): a P4Runtime Write of N updates to a table costs one swap, one
/// wait for the old snapshot's readers and one replay, not N.
pub struct TableSlot {
    cur: ArcSwap<TableState>,
    spare: Mutex<Spare>,
    table: crate::program::Table,
}

/// The writers' copy of a table.
#[derive(Default)]
struct Spare {
    /// Not staged: the previous snapshot (packets may still read it), `ops`
    /// behind `cur`. Staged: the next snapshot, only ours, `cur` plus `ops`.
    copy: Option<Arc<TableState>>,
    ops: Vec<TOp>,
    staged: bool,
}

impl TableSlot {
    fn new(mut st: TableState, t: &crate::program::Table) -> TableSlot {
        st.seal();
        TableSlot { cur: ArcSwap::from_pointee(st), spare: Mutex::new(Spare::default()), table: t.clone() }
    }

    #[inline]
    pub fn load(&self) -> arc_swap::Guard<Arc<TableState>> {
        self.cur.load()
    }

    /// The published snapshot as an owned `Arc` (kept across packets by a pinned worker).
    pub fn load_full(&self) -> Arc<TableState> {
        self.cur.load_full()
    }

    fn apply(&self, st: &mut TableState, op: &TOp) {
        match op {
            TOp::Insert(e) => st.insert(e.clone()),
            TOp::Remove(e) => st.remove(e),
            TOp::Inherit { old, new } => new.stats.take_from(&old.stats),
            TOp::Default(d) => st.default = d.clone(),
            TOp::Clear => {
                let d = st.default.clone();
                *st = TableState::new(&self.table);
                st.default = d;
            }
        }
    }

    fn spare(&self) -> std::sync::MutexGuard<'_, Spare> {
        match self.spare.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Makes the spare the next snapshot (`cur` plus staged changes), if it
    /// is not yet: waits (briefly) for packets still reading the previous
    /// snapshot and replays on it what it missed, else copies `cur`.
    fn stage(&self, sp: &mut Spare) {
        if sp.staged {
            return;
        }
        let mut next: Option<Arc<TableState>> = None;
        if let Some(mut arc) = sp.copy.take() {
            // Bounded by time, not by a count of yields: a writer at low
            // priority on a busy machine waits a whole time slice per yield.
            let start = std::time::Instant::now();
            for i in 0.. {
                if let Some(st) = Arc::get_mut(&mut arc) {
                    for op in &sp.ops {
                        self.apply(st, op);
                    }
                    next = Some(arc);
                    break;
                }
                if i < 100 {
                    std::hint::spin_loop();
                } else if start.elapsed() > STAGE_WAIT {
                    break; // held longer (a pinned worker): copy `cur`
                } else {
                    std::thread::yield_now();
                }
            }
        }
        sp.ops.clear();
        sp.copy = Some(next.unwrap_or_else(|| Arc::new(TableState::clone(&self.cur.load()))));
        sp.staged = true;
    }

    /// Checks a change against the writers' latest view of the table (`cur`
    /// plus what is staged) and stages it: `f` answers the ops to apply, or an
    /// error, and then nothing changes. Packets see it at the next `publish`.
    fn edit<R>(&self, f: impl FnOnce(&TableState) -> ApiResult<(R, Vec<TOp>)>) -> ApiResult<R> {
        let mut sp = self.spare();
        self.stage(&mut sp);
        let Spare { copy, ops, .. } = &mut *sp;
        // only ours (`stage` made it or waited for its readers)
        let st = Arc::make_mut(copy.get_or_insert_with(|| Arc::new(TableState::clone(&self.cur.load()))));
        let (r, new_ops) = f(st)?;
        for op in &new_ops {
            self.apply(st, op);
        }
        ops.extend(new_ops);
        Ok(r)
    }

    /// Makes the staged changes visible with one atomic swap; the previous
    /// snapshot becomes the spare (caller holds the write lock).
    fn publish(&self) {
        let mut sp = self.spare();
        if !sp.staged || sp.ops.is_empty() {
            // a staged copy without changes equals `cur`: it stays staged
            return;
        }
        if let Some(mut next) = sp.copy.take() {
            // Only ours while staged, so this seals it in place; were it ever
            // shared, sealing a copy (clone-on-write) still publishes the
            // plan's structures rather than a small table without its scan.
            Arc::make_mut(&mut next).seal();
            sp.copy = Some(self.cur.swap(next));
        }
        // the ops staged are now the ones the previous snapshot lacks
        sp.staged = false;
    }

    /// Applies `ops` and publishes the result (caller holds the write lock).
    fn write(&self, ops: Vec<TOp>) {
        let _ = self.edit(|_| Ok(((), ops)));
        self.publish();
    }

    /// `f` on the writers' latest view: the staged copy, else `cur`.
    fn latest<R>(&self, f: impl FnOnce(&TableState) -> R) -> R {
        let sp = self.spare();
        match (&sp.copy, sp.staged) {
            (Some(c), true) => f(c),
            _ => f(&self.cur.load()),
        }
    }
}

pub struct Runtime {
    pub prog: Arc<Prog>,
    /// Compiled from `prog` (run unless the switch runs the interpreter).
    pub plan: crate::plan::Plan,
    pub tables: Vec<TableSlot>,
    pub profiles: Vec<ArcSwap<ProfState>>,
    pub counters: Vec<Box<[CounterCell]>>,
    pub meters: Vec<Box<[Mutex<MeterCell>]>>,
    pub registers: Vec<RegArray>,
    /// The register lock groups each action holds while it runs.
    pub action_locks: crate::action_locks::ActionLocks,
    pub pre: ArcSwap<Pre>,
    /// Per value set: (value limbs, mask limbs).
    pub vsets: Vec<ArcSwap<Vec<(Vec<u64>, Vec<u64>)>>>,
    /// Table hits/misses and meter colours of the packet path.
    pub stats: crate::stats::Registry,
    write_lock: Mutex<()>,
    table_by_name: HashMap<String, usize>,
    prof_by_name: HashMap<String, usize>,
    ctr_by_name: HashMap<String, usize>,
    mtr_by_name: HashMap<String, usize>,
    reg_by_name: HashMap<String, usize>,
    vset_by_name: HashMap<String, usize>,
    /// Member/group ids per profile referenced by table entries (for delete checks).
    _reserved: (),
}

fn nf(what: &str, name: &str) -> ApiError {
    ApiError::NotFound(format!("{what} \"{name}\" not found"))
}

impl Runtime {
    pub fn new(prog: Arc<Prog>) -> Runtime {
        let mut tables = Vec::new();
        for t in &prog.tables {
            let mut st = TableState::new(t);
            for ce in &t.const_entries {
                let act = EAction::Direct { action: ce.action, data: Limbs::from(&ce.data[..]) };
                if let Ok(e) = build_entry(t, &ce.key, ce.priority, act, 0, true, 0) {
                    if st.find(&e).is_none() {
                        st.insert(Arc::new(e));
                    }
                }
            }
            tables.push(TableSlot::new(st, t));
        }
        let idx = |names: Vec<&String>| names.into_iter().enumerate().map(|(i, n)| (n.clone(), i)).collect::<HashMap<_, _>>();
        Runtime {
            profiles: prog.profiles.iter().map(|_| ArcSwap::from_pointee(ProfState::default())).collect(),
            counters: prog.counters.iter().map(|c| new_counter_array(if c.direct_table.is_some() { 0 } else { c.size })).collect(),
            meters: prog.meters.iter().map(|m| new_meter_array(if m.direct_table.is_some() { 0 } else { m.size })).collect(),
            registers: prog.registers.iter().map(|r| RegArray::new(r.size, r.width)).collect(),
            action_locks: crate::action_locks::ActionLocks::new(&prog),
            pre: ArcSwap::from_pointee(Pre::default()),
            vsets: prog.value_sets.iter().map(|_| ArcSwap::from_pointee(Vec::new())).collect(),
            stats: crate::stats::Registry::new(prog.tables.len(), prog.meters.len()),
            write_lock: Mutex::new(()),
            table_by_name: idx(prog.tables.iter().map(|t| &t.name).collect()),
            prof_by_name: idx(prog.profiles.iter().map(|t| &t.name).collect()),
            ctr_by_name: idx(prog.counters.iter().map(|t| &t.name).collect()),
            mtr_by_name: idx(prog.meters.iter().map(|t| &t.name).collect()),
            reg_by_name: idx(prog.registers.iter().map(|t| &t.name).collect()),
            vset_by_name: idx(prog.value_sets.iter().map(|t| &t.name).collect()),
            _reserved: (),
            tables,
            plan: crate::plan::Plan::build(&prog),
            prog,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        match self.write_lock.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn table(&self, name: &str) -> ApiResult<usize> {
        self.table_by_name.get(name).copied().ok_or_else(|| nf("table", name))
    }

    fn spec_to_action(&self, t: usize, spec: &ActionSpec) -> ApiResult<(usize, Limbs)> {
        let tab = &self.prog.tables[t];
        let Some(&a) = tab.actions.iter().find(|&&a| self.prog.actions[a].name == spec.action) else {
            return Err(ApiError::InvalidArgument(format!(
                "action \"{}\" is not an action of table {}",
                spec.action, tab.name
            )));
        };
        Ok((a, Limbs::from(self.action_data(a, &spec.params)?)))
    }

    fn action_data(&self, a: usize, params: &[Vec<u8>]) -> ApiResult<Box<[u64]>> {
        let act = &self.prog.actions[a];
        if params.len() != act.params.len() {
            return Err(ApiError::InvalidArgument(format!(
                "action {} takes {} parameters, {} given",
                act.name,
                act.params.len(),
                params.len()
            )));
        }
        let mut data = vec![0u64; act.data_limbs as usize];
        for ((pname, w, off), v) in act.params.iter().zip(params) {
            if bits::bitlen_bytes(v) > *w {
                return Err(ApiError::InvalidArgument(format!(
                    "action {} parameter {pname}: value does not fit in {w} bits",
                    act.name
                )));
            }
            let o = *off as usize;
            bits::bytes_to_limbs(v, &mut data[o..o + bits::limbs(*w)]);
        }
        Ok(data.into())
    }

    fn entry_action(&self, t: usize, a: &EntryAction) -> ApiResult<EAction> {
        let tab = &self.prog.tables[t];
        match (tab.kind, a) {
            (TableKind::Simple, EntryAction::Action(s)) => {
                let (action, data) = self.spec_to_action(t, s)?;
                Ok(EAction::Direct { action, data })
            }
            (TableKind::Indirect | TableKind::IndirectWs, EntryAction::Member(m)) => {
                let p = tab.profile.unwrap_or(0);
                if !self.profiles.get(p).is_some_and(|ps| ps.load().members.contains_key(m)) {
                    return Err(ApiError::InvalidArgument(format!("member {m} does not exist")));
                }
                Ok(EAction::Member(*m))
            }
            (TableKind::IndirectWs, EntryAction::Group(g)) => {
                let p = tab.profile.unwrap_or(0);
                if !self.profiles.get(p).is_some_and(|ps| ps.load().groups.contains_key(g)) {
                    return Err(ApiError::InvalidArgument(format!("group {g} does not exist")));
                }
                Ok(EAction::Group(*g))
            }
            (k, a) => Err(ApiError::InvalidArgument(format!("table {} ({k:?}) cannot use {a:?}", tab.name))),
        }
    }

    fn to_api_action(&self, a: &EAction) -> EntryAction {
        match a {
            EAction::Direct { action, data } => {
                let act = &self.prog.actions[*action];
                EntryAction::Action(ActionSpec {
                    action: act.name.clone(),
                    params: act
                        .params
                        .iter()
                        .map(|(_, w, off)| bits::limbs_to_bytes(data.get(*off as usize..).unwrap_or(&[]), *w))
                        .collect(),
                })
            }
            EAction::Member(m) => EntryAction::Member(*m),
            EAction::Group(g) => EntryAction::Group(*g),
        }
    }

    fn entry_data(&self, t: usize, e: &Entry, now: u64) -> EntryData {
        let tab = &self.prog.tables[t];
        EntryData {
            entry: TableEntry {
                key: e.key(tab),
                action: self.to_api_action(&e.action),
                priority: e.priority,
                idle_timeout_ns: e.idle_timeout_ns(),
            },
            counter: tab.direct_counter.map(|_| CounterData {
                bytes: e.stats.bytes.load(Ordering::Relaxed),
                packets: e.stats.packets.load(Ordering::Relaxed),
            }),
            meter: if tab.direct_meter.is_some() { e.meter().and_then(|m| m.lock().ok()).and_then(|m| m.cfg) } else { None },
            is_const: e.is_const,
            idle_us: now.saturating_sub(e.stats.last_hit_us.load(Ordering::Relaxed)),
        }
    }

    fn writable(&self, t: usize) -> ApiResult<()> {
        let tab = &self.prog.tables[t];
        if tab.has_const_entries {
            return Err(ApiError::PermissionDenied(format!("table {} has const entries", tab.name)));
        }
        Ok(())
    }

    /// An entry with this control-plane key (validated), to find its like.
    fn probe(&self, t: usize, key: &[MatchKey], prio: i32) -> ApiResult<Entry> {
        build_entry(&self.prog.tables[t], key, prio, EAction::Member(0), 0, false, 0)
    }

    /// Stages an insert (see `TableSlot::edit`); answers the table's index
    /// for `publish`.
    pub fn table_insert(&self, now: u64, table: &str, entry: TableEntry) -> ApiResult<usize> {
        let t = self.table(table)?;
        self.writable(t)?;
        let tab = &self.prog.tables[t];
        if tab.keys.is_empty() {
            return Err(ApiError::InvalidArgument(format!("table {table} has no key: only its default entry can be set")));
        }
        let _g = self.lock();
        let act = self.entry_action(t, &entry.action)?;
        let e = build_entry(tab, &entry.key, entry.priority, act, entry.idle_timeout_ns, false, now)?;
        self.tables[t].edit(|cur| {
            if cur.find(&e).is_some() {
                return Err(ApiError::AlreadyExists(format!("table {table}: entry already exists")));
            }
            if tab.max_size > 0 && cur.len >= tab.max_size as usize {
                return Err(ApiError::ResourceExhausted(format!("table {table} is full ({} entries)", tab.max_size)));
            }
            Ok(((), vec![TOp::Insert(Arc::new(e))]))
        })?;
        Ok(t)
    }

    /// Stages a modify; answers the table's index for `publish`.
    pub fn table_modify(&self, table: &str, entry: TableEntry) -> ApiResult<usize> {
        let t = self.table(table)?;
        self.writable(t)?;
        let tab = &self.prog.tables[t];
        let _g = self.lock();
        let act = self.entry_action(t, &entry.action)?;
        let mut e = build_entry(tab, &entry.key, entry.priority, act, entry.idle_timeout_ns, false, 0)?;
        self.tables[t].edit(|cur| {
            let Some(old) = cur.find(&e).cloned() else {
                return Err(ApiError::NotFound(format!("table {table}: no such entry")));
            };
            e.share_meter(&old);
            let e = Arc::new(e);
            Ok(((), vec![TOp::Remove(old.clone()), TOp::Insert(e.clone()), TOp::Inherit { old, new: e }]))
        })?;
        Ok(t)
    }

    /// Stages a delete; answers the table's index for `publish`.
    pub fn table_delete(&self, table: &str, key: &[MatchKey], priority: i32) -> ApiResult<usize> {
        let t = self.table(table)?;
        self.writable(t)?;
        let _g = self.lock();
        let probe = self.probe(t, key, priority)?;
        self.tables[t].edit(|cur| {
            let Some(old) = cur.find(&probe).cloned() else {
                return Err(ApiError::NotFound(format!("table {table}: no such entry")));
            };
            Ok(((), vec![TOp::Remove(old)]))
        })?;
        Ok(t)
    }

    /// Makes table `t`'s staged changes visible to packets and readers.
    pub fn publish(&self, t: usize) {
        let _g = self.lock();
        if let Some(slot) = self.tables.get(t) {
            slot.publish();
        }
    }

    pub fn table_clear(&self, table: &str) -> ApiResult<()> {
        let t = self.table(table)?;
        self.writable(t)?;
        let _g = self.lock();
        self.tables[t].write(vec![TOp::Clear]);
        Ok(())
    }

    pub fn table_read(&self, now: u64, table: &str) -> ApiResult<Vec<EntryData>> {
        let t = self.table(table)?;
        let cur = self.tables[t].load();
        let mut v: Vec<EntryData> = cur.entries().map(|e| self.entry_data(t, e, now)).collect();
        // deterministic order: priority (highest first), then key
        v.sort_unstable_by(|a, b| b.entry.priority.cmp(&a.entry.priority).then_with(|| a.entry.key.cmp(&b.entry.key)));
        Ok(v)
    }

    pub fn table_read_one(&self, now: u64, table: &str, key: &[MatchKey], priority: i32) -> ApiResult<EntryData> {
        let t = self.table(table)?;
        let probe = self.probe(t, key, priority)?;
        let cur = self.tables[t].load();
        match cur.find(&probe) {
            Some(e) => Ok(self.entry_data(t, e, now)),
            None => Err(ApiError::NotFound(format!("table {table}: no such entry"))),
        }
    }

    pub fn table_len(&self, table: &str) -> ApiResult<usize> {
        let t = self.table(table)?;
        Ok(self.tables[t].load().len)
    }

    pub fn table_set_default(&self, table: &str, action: EntryAction) -> ApiResult<()> {
        let t = self.table(table)?;
        let tab = &self.prog.tables[t];
        let _g = self.lock();
        let a = self.entry_action(t, &action)?;
        if let Some(d) = &tab.default_entry {
            if d.is_const {
                let same = matches!(&a, EAction::Direct { action, data } if *action == d.action && **data == *d.data);
                if !same {
                    return Err(ApiError::PermissionDenied(format!("table {table}: the default action is const")));
                }
            }
        }
        self.tables[t].write(vec![TOp::Default(Some(a))]);
        Ok(())
    }

    pub fn table_reset_default(&self, table: &str) -> ApiResult<()> {
        let t = self.table(table)?;
        let tab = &self.prog.tables[t];
        let _g = self.lock();
        let d = tab.default_entry.as_ref().map(|d| EAction::Direct { action: d.action, data: Limbs::from(&d.data[..]) });
        self.tables[t].write(vec![TOp::Default(d)]);
        Ok(())
    }

    pub fn table_get_default(&self, table: &str) -> ApiResult<Option<EntryAction>> {
        let t = self.table(table)?;
        Ok(self.tables[t].load().default.as_ref().map(|a| self.to_api_action(a)))
    }

    pub fn table_write_counter(&self, table: &str, key: &[MatchKey], priority: i32, data: CounterData) -> ApiResult<()> {
        let t = self.table(table)?;
        if self.prog.tables[t].direct_counter.is_none() {
            return Err(ApiError::InvalidArgument(format!("table {table} has no direct counter")));
        }
        let probe = self.probe(t, key, priority)?;
        // the latest view: the entry may be staged in the same Write
        let Some(e) = self.tables[t].latest(|st| st.find(&probe).cloned()) else {
            return Err(ApiError::NotFound(format!("table {table}: no such entry")));
        };
        e.stats.bytes.store(data.bytes, Ordering::Relaxed);
        e.stats.packets.store(data.packets, Ordering::Relaxed);
        Ok(())
    }

    pub fn table_set_meter(&self, table: &str, key: &[MatchKey], priority: i32, cfg: Option<MeterConfig>) -> ApiResult<()> {
        let t = self.table(table)?;
        if self.prog.tables[t].direct_meter.is_none() {
            return Err(ApiError::InvalidArgument(format!("table {table} has no direct meter")));
        }
        let probe = self.probe(t, key, priority)?;
        let Some(e) = self.tables[t].latest(|st| st.find(&probe).cloned()) else {
            return Err(ApiError::NotFound(format!("table {table}: no such entry")));
        };
        let now = e.stats.last_hit_us.load(Ordering::Relaxed);
        if let Some(Ok(mut m)) = e.meter().map(|m| m.lock()) {
            m.configure(cfg, crate::runtime::now_hint().max(now));
        }
        Ok(())
    }

    pub fn expired_entries(&self, now: u64) -> Vec<ExpiredEntry> {
        let mut out = Vec::new();
        for (t, tab) in self.prog.tables.iter().enumerate() {
            if !tab.support_timeout {
                continue;
            }
            let cur = self.tables[t].load();
            for e in cur.entries() {
                if e.idle_timeout_ns() == 0 {
                    continue;
                }
                let idle_ns = now.saturating_sub(e.stats.last_hit_us.load(Ordering::Relaxed)).saturating_mul(1000);
                if idle_ns >= e.idle_timeout_ns() && !e.stats.expired_reported.swap(true, Ordering::Relaxed) {
                    out.push(ExpiredEntry {
                        table: tab.name.clone(),
                        entry: TableEntry {
                            key: e.key(tab),
                            action: self.to_api_action(&e.action),
                            priority: e.priority,
                            idle_timeout_ns: e.idle_timeout_ns(),
                        },
                    });
                }
            }
        }
        out
    }

    // ----- action profiles ---------------------------------------------------

    fn profile(&self, name: &str) -> ApiResult<usize> {
        self.prof_by_name.get(name).copied().ok_or_else(|| nf("action profile", name))
    }

    fn member_data(&self, p: usize, spec: &ActionSpec) -> ApiResult<MemberData> {
        // The tables using this profile define its actions, resolved in their
        // own action lists: p4c writes several actions with the same name.
        let users = || self.prog.tables.iter().enumerate().filter(|(_, t)| t.profile == Some(p));
        let named = |&(_, t): &(usize, &crate::program::Table)| t.actions.iter().any(|&a| self.prog.actions[a].name == spec.action);
        let Some((t, _)) = users().find(named).or_else(|| users().next()) else {
            let a = self
                .prog
                .actions
                .iter()
                .position(|a| a.name == spec.action)
                .ok_or_else(|| ApiError::InvalidArgument(format!("unknown action \"{}\"", spec.action)))?;
            return Ok(MemberData { action: a, data: Limbs::from(self.action_data(a, &spec.params)?) });
        };
        let (action, data) = self.spec_to_action(t, spec)?;
        Ok(MemberData { action, data })
    }

    fn expand(ps: &ProfState, members: &[(u32, u32)]) -> ApiResult<Vec<Arc<MemberData>>> {
        let mut v = Vec::new();
        for (m, w) in members {
            let Some(md) = ps.members.get(m) else {
                return Err(ApiError::InvalidArgument(format!("member {m} does not exist")));
            };
            for _ in 0..(*w).clamp(1, 1024) {
                v.push(md.clone());
            }
        }
        Ok(v)
    }

    pub fn member_add(&self, profile: &str, member: Member) -> ApiResult<()> {
        let p = self.profile(profile)?;
        let _g = self.lock();
        let md = self.member_data(p, &member.action)?;
        let cur = self.profiles[p].load();
        if cur.members.contains_key(&member.member_id) {
            return Err(ApiError::AlreadyExists(format!("member {} exists", member.member_id)));
        }
        let size = self.prog.profiles[p].size;
        if size > 0 && cur.members.len() >= size as usize {
            return Err(ApiError::ResourceExhausted(format!("action profile {profile} is full")));
        }
        let mut st = ProfState::clone(&cur);
        st.members.insert(member.member_id, Arc::new(md));
        self.profiles[p].store(Arc::new(st));
        Ok(())
    }

    pub fn member_modify(&self, profile: &str, member: Member) -> ApiResult<()> {
        let p = self.profile(profile)?;
        let _g = self.lock();
        let md = self.member_data(p, &member.action)?;
        let cur = self.profiles[p].load();
        if !cur.members.contains_key(&member.member_id) {
            return Err(ApiError::NotFound(format!("member {} not found", member.member_id)));
        }
        let mut st = ProfState::clone(&cur);
        st.members.insert(member.member_id, Arc::new(md));
        // re-expand groups that use it
        let gids: Vec<u32> = st.groups.iter().filter(|(_, g)| g.members.iter().any(|m| m.0 == member.member_id)).map(|(k, _)| *k).collect();
        for gid in gids {
            if let Some(g) = st.groups.get(&gid).cloned() {
                let expanded = Self::expand(&st, &g.members)?;
                st.groups.insert(gid, Arc::new(GroupData { members: g.members.clone(), max_size: g.max_size, expanded }));
            }
        }
        self.profiles[p].store(Arc::new(st));
        Ok(())
    }

    fn profile_in_use(&self, p: usize, what: &EAction) -> bool {
        // the latest view: entries staged by a Write count too
        self.prog.tables.iter().enumerate().any(|(t, tab)| {
            tab.profile == Some(p)
                && self.tables[t].latest(|st| st.entries().any(|e| e.action == *what) || st.default.as_ref() == Some(what))
        })
    }

    pub fn member_delete(&self, profile: &str, member_id: u32) -> ApiResult<()> {
        let p = self.profile(profile)?;
        let _g = self.lock();
        let cur = self.profiles[p].load();
        if !cur.members.contains_key(&member_id) {
            return Err(ApiError::NotFound(format!("member {member_id} not found")));
        }
        if cur.groups.values().any(|g| g.members.iter().any(|m| m.0 == member_id)) {
            return Err(ApiError::InvalidArgument(format!("member {member_id} is used by a group")));
        }
        if self.profile_in_use(p, &EAction::Member(member_id)) {
            return Err(ApiError::InvalidArgument(format!("member {member_id} is used by a table entry")));
        }
        let mut st = ProfState::clone(&cur);
        st.members.remove(&member_id);
        self.profiles[p].store(Arc::new(st));
        Ok(())
    }

    pub fn member_read(&self, profile: &str) -> ApiResult<Vec<Member>> {
        let p = self.profile(profile)?;
        let cur = self.profiles[p].load();
        let mut v: Vec<Member> = cur
            .members
            .iter()
            .filter_map(|(id, md)| match self.to_api_action(&EAction::Direct { action: md.action, data: md.data.clone() }) {
                EntryAction::Action(spec) => Some(Member { member_id: *id, action: spec }),
                _ => None,
            })
            .collect();
        v.sort_by_key(|m| m.member_id);
        Ok(v)
    }

    fn group_put(&self, profile: &str, group: Group, create: bool) -> ApiResult<()> {
        let p = self.profile(profile)?;
        if self.prog.profiles[p].selector.is_none() {
            return Err(ApiError::InvalidArgument(format!("action profile {profile} has no selector")));
        }
        let _g = self.lock();
        let cur = self.profiles[p].load();
        let exists = cur.groups.contains_key(&group.group_id);
        if create && exists {
            return Err(ApiError::AlreadyExists(format!("group {} exists", group.group_id)));
        }
        if !create && !exists {
            return Err(ApiError::NotFound(format!("group {} not found", group.group_id)));
        }
        if group.max_size > 0 && group.members.len() > group.max_size as usize {
            return Err(ApiError::ResourceExhausted(format!("group {} exceeds its max size", group.group_id)));
        }
        let mut seen = std::collections::HashSet::new();
        for (m, w) in &group.members {
            if !seen.insert(*m) {
                return Err(ApiError::InvalidArgument(format!("member {m} listed twice")));
            }
            if *w == 0 {
                return Err(ApiError::InvalidArgument(format!("member {m}: weight must be >= 1")));
            }
        }
        let expanded = Self::expand(&cur, &group.members)?;
        let mut st = ProfState::clone(&cur);
        st.groups.insert(group.group_id, Arc::new(GroupData { members: group.members, max_size: group.max_size, expanded }));
        self.profiles[p].store(Arc::new(st));
        Ok(())
    }

    pub fn group_add(&self, profile: &str, group: Group) -> ApiResult<()> {
        self.group_put(profile, group, true)
    }

    pub fn group_modify(&self, profile: &str, group: Group) -> ApiResult<()> {
        self.group_put(profile, group, false)
    }

    pub fn group_delete(&self, profile: &str, group_id: u32) -> ApiResult<()> {
        let p = self.profile(profile)?;
        let _g = self.lock();
        let cur = self.profiles[p].load();
        if !cur.groups.contains_key(&group_id) {
            return Err(ApiError::NotFound(format!("group {group_id} not found")));
        }
        if self.profile_in_use(p, &EAction::Group(group_id)) {
            return Err(ApiError::InvalidArgument(format!("group {group_id} is used by a table entry")));
        }
        let mut st = ProfState::clone(&cur);
        st.groups.remove(&group_id);
        self.profiles[p].store(Arc::new(st));
        Ok(())
    }

    pub fn group_read(&self, profile: &str) -> ApiResult<Vec<Group>> {
        let p = self.profile(profile)?;
        let cur = self.profiles[p].load();
        let mut v: Vec<Group> = cur
            .groups
            .iter()
            .map(|(id, g)| Group { group_id: *id, members: g.members.clone(), max_size: g.max_size })
            .collect();
        v.sort_by_key(|g| g.group_id);
        Ok(v)
    }

    // ----- counters, meters, registers -------------------------------------

    fn counter(&self, name: &str, index: u32) -> ApiResult<&CounterCell> {
        let c = self.ctr_by_name.get(name).copied().ok_or_else(|| nf("counter", name))?;
        if self.prog.counters[c].direct_table.is_some() {
            return Err(ApiError::InvalidArgument(format!("{name} is a direct counter: use table entries")));
        }
        self.counters[c]
            .get(index as usize)
            .ok_or_else(|| ApiError::InvalidArgument(format!("counter {name}: index {index} out of range")))
    }

    pub fn counter_read(&self, counter: &str, index: u32) -> ApiResult<CounterData> {
        let c = self.counter(counter, index)?;
        Ok(CounterData { bytes: c.bytes.load(Ordering::Relaxed), packets: c.packets.load(Ordering::Relaxed) })
    }

    pub fn counter_write(&self, counter: &str, index: u32, data: CounterData) -> ApiResult<()> {
        let c = self.counter(counter, index)?;
        c.bytes.store(data.bytes, Ordering::Relaxed);
        c.packets.store(data.packets, Ordering::Relaxed);
        Ok(())
    }

    fn meter(&self, name: &str, index: u32) -> ApiResult<&Mutex<MeterCell>> {
        let m = self.mtr_by_name.get(name).copied().ok_or_else(|| nf("meter", name))?;
        if self.prog.meters[m].direct_table.is_some() {
            return Err(ApiError::InvalidArgument(format!("{name} is a direct meter: use table entries")));
        }
        self.meters[m]
            .get(index as usize)
            .ok_or_else(|| ApiError::InvalidArgument(format!("meter {name}: index {index} out of range")))
    }

    pub fn meter_set(&self, meter: &str, index: u32, cfg: Option<MeterConfig>) -> ApiResult<()> {
        let m = self.meter(meter, index)?;
        if let Some(c) = cfg {
            if c.pir < c.cir {
                return Err(ApiError::InvalidArgument("meter: pir must be >= cir".into()));
            }
        }
        if let Ok(mut cell) = m.lock() {
            cell.configure(cfg, now_hint());
        }
        Ok(())
    }

    pub fn meter_get(&self, meter: &str, index: u32) -> ApiResult<Option<MeterConfig>> {
        let m = self.meter(meter, index)?;
        Ok(m.lock().ok().and_then(|c| c.cfg))
    }

    fn register(&self, name: &str) -> ApiResult<(usize, &RegArray)> {
        let r = self.reg_by_name.get(name).copied().ok_or_else(|| nf("register", name))?;
        Ok((r, &self.registers[r]))
    }

    pub fn register_read(&self, register: &str, index: u32) -> ApiResult<Vec<u8>> {
        Ok(self.register_read_cells(register, index..index + 1)?.pop().unwrap_or_default())
    }

    /// Cells `cells`, read under the register's action lock group: one
    /// snapshot no action's update is half in.
    pub fn register_read_cells(&self, register: &str, cells: Range<u32>) -> ApiResult<Vec<Vec<u8>>> {
        let (id, r) = self.register(register)?;
        let mut l = vec![0u64; bits::limbs(r.width())];
        self.action_locks.hold_register(id, || {
            cells
                .map(|i| match r.read(i as usize, &mut l) {
                    true => Ok(bits::limbs_to_bytes(&l, r.width())),
                    false => Err(ApiError::InvalidArgument(format!("register {register}: index {i} out of range"))),
                })
                .collect()
        })
    }

    pub fn register_write(&self, register: &str, index: u32, value: &[u8]) -> ApiResult<()> {
        self.register_write_cells(register, index..index + 1, value)
    }

    /// Sets cells `cells` to `value` under the register's action lock group.
    pub fn register_write_cells(&self, register: &str, cells: Range<u32>, value: &[u8]) -> ApiResult<()> {
        let (id, r) = self.register(register)?;
        if bits::bitlen_bytes(value) > r.width() {
            return Err(ApiError::InvalidArgument(format!("register {register}: value does not fit in {} bits", r.width())));
        }
        // Checked whole first: a range reaching past the end writes no cell.
        if cells.end as usize > r.len() {
            return Err(ApiError::InvalidArgument(format!("register {register}: index {} out of range", cells.end - 1)));
        }
        let mut l = vec![0u64; bits::limbs(r.width())];
        bits::bytes_to_limbs(value, &mut l);
        self.action_locks.hold_register(id, || {
            for i in cells {
                if !r.write(i as usize, &l) {
                    return Err(ApiError::InvalidArgument(format!("register {register}: index {i} out of range")));
                }
            }
            Ok(())
        })
    }

    pub fn register_reset(&self, register: &str) -> ApiResult<()> {
        let (id, r) = self.register(register)?;
        self.action_locks.hold_register(id, || r.reset());
        Ok(())
    }

    // ----- replication engine ------------------------------------------------

    fn check_replicas(&self, r: &[Replica]) -> ApiResult<()> {
        let mut seen = std::collections::HashSet::new();
        for x in r {
            if !seen.insert(*x) {
                return Err(ApiError::InvalidArgument(format!("duplicate replica {x:?}")));
            }
        }
        Ok(())
    }

    pub fn mc_group_create(&self, group: MulticastGroup) -> ApiResult<()> {
        if group.group_id == 0 {
            return Err(ApiError::InvalidArgument("multicast group id 0 is reserved".into()));
        }
        self.check_replicas(&group.replicas)?;
        let _g = self.lock();
        let cur = self.pre.load();
        if cur.mc.contains_key(&group.group_id) {
            return Err(ApiError::AlreadyExists(format!("multicast group {} exists", group.group_id)));
        }
        let mut st = Pre::clone(&cur);
        st.mc.insert(group.group_id, group.replicas.into());
        self.pre.store(Arc::new(st));
        Ok(())
    }

    pub fn mc_group_modify(&self, group: MulticastGroup) -> ApiResult<()> {
        self.check_replicas(&group.replicas)?;
        let _g = self.lock();
        let cur = self.pre.load();
        if !cur.mc.contains_key(&group.group_id) {
            return Err(ApiError::NotFound(format!("multicast group {} not found", group.group_id)));
        }
        let mut st = Pre::clone(&cur);
        st.mc.insert(group.group_id, group.replicas.into());
        self.pre.store(Arc::new(st));
        Ok(())
    }

    pub fn mc_group_delete(&self, group_id: u32) -> ApiResult<()> {
        let _g = self.lock();
        let cur = self.pre.load();
        if !cur.mc.contains_key(&group_id) {
            return Err(ApiError::NotFound(format!("multicast group {group_id} not found")));
        }
        let mut st = Pre::clone(&cur);
        st.mc.remove(&group_id);
        self.pre.store(Arc::new(st));
        Ok(())
    }

    pub fn mc_group_read(&self) -> ApiResult<Vec<MulticastGroup>> {
        Ok(self.pre.load().mc.iter().map(|(id, r)| MulticastGroup { group_id: *id, replicas: r.to_vec() }).collect())
    }

    pub fn clone_session_create(&self, session: CloneSession) -> ApiResult<()> {
        if session.session_id == 0 {
            return Err(ApiError::InvalidArgument("clone session id 0 is reserved".into()));
        }
        self.check_replicas(&session.replicas)?;
        let _g = self.lock();
        let cur = self.pre.load();
        if cur.clones.contains_key(&session.session_id) {
            return Err(ApiError::AlreadyExists(format!("clone session {} exists", session.session_id)));
        }
        let mut st = Pre::clone(&cur);
        st.clones.insert(session.session_id, session);
        self.pre.store(Arc::new(st));
        Ok(())
    }

    pub fn clone_session_modify(&self, session: CloneSession) -> ApiResult<()> {
        self.check_replicas(&session.replicas)?;
        let _g = self.lock();
        let cur = self.pre.load();
        if !cur.clones.contains_key(&session.session_id) {
            return Err(ApiError::NotFound(format!("clone session {} not found", session.session_id)));
        }
        let mut st = Pre::clone(&cur);
        st.clones.insert(session.session_id, session);
        self.pre.store(Arc::new(st));
        Ok(())
    }

    pub fn clone_session_delete(&self, session_id: u32) -> ApiResult<()> {
        let _g = self.lock();
        let cur = self.pre.load();
        if !cur.clones.contains_key(&session_id) {
            return Err(ApiError::NotFound(format!("clone session {session_id} not found")));
        }
        let mut st = Pre::clone(&cur);
        st.clones.remove(&session_id);
        self.pre.store(Arc::new(st));
        Ok(())
    }

    pub fn clone_session_read(&self) -> ApiResult<Vec<CloneSession>> {
        Ok(self.pre.load().clones.values().cloned().collect())
    }

    // ----- parser value sets ---------------------------------------------------

    pub fn value_set_write(&self, name: &str, values: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> ApiResult<()> {
        let v = self.vset_by_name.get(name).copied().ok_or_else(|| nf("value set", name))?;
        let vs = &self.prog.value_sets[v];
        if values.len() > vs.max_size as usize && vs.max_size > 0 {
            return Err(ApiError::ResourceExhausted(format!("value set {name} holds at most {}", vs.max_size)));
        }
        let n = bits::limbs(vs.width);
        let mut out = Vec::new();
        for (val, mask) in values {
            if bits::bitlen_bytes(&val) > vs.width || mask.as_ref().is_some_and(|m| bits::bitlen_bytes(m) > vs.width) {
                return Err(ApiError::InvalidArgument(format!("value set {name}: value wider than {} bits", vs.width)));
            }
            let mut l = vec![0u64; n];
            bits::bytes_to_limbs(&val, &mut l);
            let mut m = vec![u64::MAX; n];
            bits::mask_limbs(&mut m, vs.width);
            if let Some(mb) = mask {
                bits::bytes_to_limbs(&mb, &mut m);
            }
            out.push((l, m));
        }
        let _g = self.lock();
        self.vsets[v].store(Arc::new(out));
        Ok(())
    }

    pub fn value_set_read(&self, name: &str) -> ApiResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let v = self.vset_by_name.get(name).copied().ok_or_else(|| nf("value set", name))?;
        let w = self.prog.value_sets[v].width;
        Ok(self.vsets[v].load().iter().map(|(a, m)| (bits::limbs_to_bytes(a, w), bits::limbs_to_bytes(m, w))).collect())
    }
}

/// Process-wide microsecond clock used where no switch clock is at hand
/// (meter configuration). Same epoch as [`Clock`] instances created at start.
pub fn now_hint() -> u64 {
    CLOCK_EPOCH.with_epoch(|e| e.elapsed().as_micros() as u64)
}

struct Epoch(std::sync::OnceLock<std::time::Instant>);

impl Epoch {
    fn with_epoch<R>(&self, f: impl FnOnce(&std::time::Instant) -> R) -> R {
        f(self.0.get_or_init(std::time::Instant::now))
    }
}

static CLOCK_EPOCH: Epoch = Epoch(std::sync::OnceLock::new());

/// Monotonic microsecond clock of the switch (process-wide epoch, so meter
/// configuration and packet timestamps agree).
pub struct Clock {}

impl Clock {
    pub fn new() -> Clock {
        now_hint();
        Clock {}
    }
    pub fn now_us(&self) -> u64 {
        now_hint()
    }
}

/// Queue of digests raised by packets, with a condvar for waiters.
pub struct DigestQueue {
    q: std::sync::Mutex<std::collections::VecDeque<Digest>>,
    cv: std::sync::Condvar,
    /// Digests dropped because the queue was full (the oldest goes first), so an
    /// operator can tell a slow reader from a quiet data plane.
    overflowed: std::sync::atomic::AtomicU64,
}

/// Digests kept at most; older ones are dropped when the runtime does not read.
pub const DIGEST_QUEUE_MAX: usize = 65536;

impl DigestQueue {
    pub fn new() -> DigestQueue {
        DigestQueue { q: Default::default(), cv: std::sync::Condvar::new(), overflowed: Default::default() }
    }
    /// Digests dropped so far because the queue was full.
    pub fn overflowed(&self) -> u64 {
        self.overflowed.load(std::sync::atomic::Ordering::Relaxed)
    }
    pub fn clear(&self) {
        if let Ok(mut q) = self.q.lock() {
            q.clear();
        }
    }
    pub fn push(&self, d: Digest) {
        if let Ok(mut q) = self.q.lock() {
            if q.len() >= DIGEST_QUEUE_MAX {
                q.pop_front();
                self.overflowed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            q.push_back(d);
        }
        self.cv.notify_all();
    }
    pub fn take(&self, max: usize) -> Vec<Digest> {
        match self.q.lock() {
            Ok(mut q) => {
                let n = max.min(q.len());
                q.drain(..n).collect()
            }
            Err(_) => Vec::new(),
        }
    }
    pub fn wait(&self, timeout: std::time::Duration) -> bool {
        let Ok(q) = self.q.lock() else { return false };
        if !q.is_empty() {
            return true;
        }
        match self.cv.wait_timeout_while(q, timeout, |q| q.is_empty()) {
            Ok((q, _)) => !q.is_empty(),
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod table_slot_tests {
    use super::*;

    /// A staged copy someone else still holds is sealed all the same (on a
    /// copy): the published snapshot of a small table gets its scan, and the
    /// holder's copy is left as it was.
    #[test]
    fn a_shared_staged_copy_is_still_sealed() {
        let prog = crate::loader::load(include_str!("../fixtures/l3_acl.json"), true).unwrap();
        let t = prog.tables.iter().find(|t| t.name == "MyIngress.nexthop").unwrap();
        let slot = TableSlot::new(TableState::new(t), t);
        let key = vec![MatchKey::Exact(vec![0; t.keys[0].width.div_ceil(8) as usize])];
        let act = EAction::Direct { action: 0, data: Limbs::from(&[0u64][..]) };
        let e = Arc::new(build_entry(t, &key, 0, act, 0, false, 0).unwrap());
        slot.edit(|_| Ok(((), vec![TOp::Insert(e)]))).unwrap();
        let held = slot.spare().copy.clone().expect("staged copy");
        slot.publish();
        assert!(slot.load().scanned(), "the published small table is scanned");
        assert!(!held.scanned(), "the other holder's copy is not changed under it");
        assert_eq!(slot.load().len, 1);
    }
}

#[cfg(test)]
mod digest_queue_tests {
    use super::*;

    fn digest(i: u32) -> Digest {
        Digest { learn_list: "l".into(), id: i, values: vec![], timestamp_us: 0 }
    }

    #[test]
    fn a_full_queue_drops_the_oldest_and_counts_it() {
        let q = DigestQueue::new();
        for i in 0..(DIGEST_QUEUE_MAX as u32 + 3) {
            q.push(digest(i));
        }
        assert_eq!(q.overflowed(), 3);
        let first = q.take(1);
        assert_eq!(first[0].id, 3, "the three oldest were dropped");
        assert_eq!(q.take(usize::MAX).len(), DIGEST_QUEUE_MAX - 1);
    }
}
