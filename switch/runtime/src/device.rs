//! The P4Runtime device: all server-side state of one switch and the logic of
//! every RPC, as plain methods that tests call without a socket. The tonic
//! service (`service.rs`) only moves messages in and out.

// The deprecated role ids and controller_metadata are still honoured for old
// clients; RPC results are tonic's own Status, large as it is.
#![allow(deprecated, clippy::result_large_err)]

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use p4engine::{
    ApiError, CloneSession, EntryAction, EntryData, Group, MatchKey, Member, MulticastGroup, Replica, Switch,
    TableBatch, TableEntry as EngineEntry, Worker,
};
use tokio::sync::mpsc;
use tonic::Code;

use crate::arbitration::{role_key, Arbitration, Notice};
use crate::canonical;
use crate::digests::{DigestBatcher, DigestConfig, DigestStats, ListOut};
use crate::stats::ServerStats;
use crate::error::{batch_status, RtError, RtResult};
use crate::packetio;
use crate::pipeline::{self, Pipeline};
use crate::proto::google::rpc;
use crate::proto::p4::v1 as p4v1;
use crate::schema::{Schema, TableS};
use crate::tables::*;

use p4v1::entity::Entity as E;
use p4v1::stream_message_response::Update as Out;

/// Sends a frame out of a port (given by the port layer).
pub type Transmit = Arc<dyn Fn(u32, &[u8]) + Send + Sync>;

/// The sending half of one StreamChannel.
pub type StreamTx = mpsc::Sender<Result<p4v1::StreamMessageResponse, tonic::Status>>;

/// P4Runtime API version this server implements (the pinned `p4runtime` package).
pub const API_VERSION: &str = include_str!(concat!(env!("OUT_DIR"), "/p4runtime_version.txt"));

/// Member/group ids at and above this are reserved for one-shot action sets.
const ONE_SHOT_ID_BASE: u32 = 0xF000_0000;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn u128_of(e: &Option<p4v1::Uint128>) -> Option<u128> {
    e.map(|u| ((u.high as u128) << 64) | u.low as u128)
}

fn uint128(v: u128) -> p4v1::Uint128 {
    p4v1::Uint128 { high: (v >> 64) as u64, low: v as u64 }
}

/// A one-shot action set installed as hidden members (and a group).
#[derive(Debug, Clone)]
struct OneShot {
    profile: String,
    members: Vec<u32>,
    group: Option<u32>,
    set: p4v1::ActionProfileActionSet,
}

/// A table entry's identity: table id, engine key, priority.
type EntryKey = (u32, Vec<MatchKey>, i32);

/// Write-side bookkeeping the engine does not keep.
#[derive(Default)]
struct Books {
    oneshots: HashMap<EntryKey, OneShot>,
    /// `controller_metadata` and `metadata` of table entries that carry them.
    entry_meta: HashMap<EntryKey, (u64, Vec<u8>)>,
    hidden: HashSet<(String, u32)>,
    next_hidden: u32,
    /// Multicast groups / clone sessions written with `Replica.port` bytes
    /// (answered in the same form).
    mc_port_bytes: HashSet<u32>,
    clone_port_bytes: HashSet<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Insert,
    Modify,
    Delete,
}

/// One switch as P4Runtime sees it.
pub struct Device {
    switch: Arc<Switch>,
    transmit: Option<Transmit>,
    pipeline: RwLock<Option<Arc<Pipeline>>>,
    saved: Mutex<Option<Arc<Pipeline>>>,
    books: Mutex<Books>,
    arbitration: Mutex<Arbitration>,
    digests: Mutex<DigestBatcher>,
    streams: Mutex<HashMap<u64, StreamTx>>,
    next_stream: AtomicU64,
    worker: Mutex<Worker>,
    epoch: Instant,
    /// Digests lost outside the batcher (see [`DigestStats`]).
    lost: DigestLosses,
    /// Set by [`Device::stop_changes`]: Writes skip their remaining updates,
    /// new ones are refused.
    stopping: AtomicBool,
    /// Writes and SetForwardingPipelineConfigs running, and the signal that
    /// one ended.
    changing: (Mutex<u32>, Condvar),
    /// Counters for metrics.
    pub stats: ServerStats,
}

/// Digest data lost on the way from the engine to the streams, where the
/// batcher does not see it.
#[derive(Default)]
struct DigestLosses {
    no_pipeline: AtomicU64,
    stream_full: AtomicU64,
    no_primary: AtomicU64,
}

/// What became of one message for one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    Buffered,
    /// The stream's buffer (4,096 messages) was full: dropped.
    Full,
    /// The stream has ended (or was never there): dropped.
    Gone,
}

impl Device {
    /// `transmit` sends packet-out results to ports (None: they are dropped).
    pub fn new(switch: Arc<Switch>, transmit: Option<Transmit>) -> Device {
        let worker = switch.new_worker();
        Device {
            switch,
            transmit,
            pipeline: RwLock::new(None),
            saved: Mutex::new(None),
            books: Mutex::new(Books { next_hidden: ONE_SHOT_ID_BASE, ..Default::default() }),
            arbitration: Mutex::new(Arbitration::new()),
            digests: Mutex::new(DigestBatcher::new()),
            streams: Mutex::new(HashMap::new()),
            next_stream: AtomicU64::new(1),
            worker: Mutex::new(worker),
            epoch: Instant::now(),
            lost: DigestLosses::default(),
            stopping: AtomicBool::new(false),
            changing: (Mutex::new(0), Condvar::new()),
            stats: ServerStats::default(),
        }
    }

    pub fn device_id(&self) -> u64 {
        self.switch.config().device_id
    }

    pub fn switch(&self) -> &Arc<Switch> {
        &self.switch
    }

    /// Nanoseconds on the device's monotonic clock.
    pub fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    pub fn pipeline(&self) -> Option<Arc<Pipeline>> {
        self.pipeline.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn require_pipeline(&self) -> RtResult<Arc<Pipeline>> {
        self.pipeline().ok_or_else(|| {
            RtError::precondition("no forwarding pipeline: call SetForwardingPipelineConfig first")
        })
    }

    fn check_device(&self, device_id: u64) -> RtResult<()> {
        if device_id != self.device_id() {
            return Err(RtError::not_found(format!(
                "device id {device_id} is not this switch (device id {})",
                self.device_id()
            )));
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // Stopping: changes in flight end at the next update
    // ------------------------------------------------------------------

    /// Counts a Write or SetForwardingPipelineConfig in flight until the guard
    /// is dropped; refused once the switch is stopping.
    fn begin_change(&self) -> RtResult<ChangeGuard<'_>> {
        let mut n = lock(&self.changing.0);
        if self.stopping.load(Ordering::Relaxed) {
            return Err(RtError::new(Code::Unavailable, "switch shutting down"));
        }
        *n += 1;
        Ok(ChangeGuard(self))
    }

    /// Writes and SetForwardingPipelineConfigs running now.
    pub fn changes_in_flight(&self) -> u32 {
        *lock(&self.changing.0)
    }

    /// The switch is stopping: refuses new Writes and SetForwardingPipelineConfigs,
    /// makes a Write in flight answer its remaining updates UNAVAILABLE
    /// without applying them (what it applied stays, published), and waits
    /// up to `within` for the changes in flight to end. Returns whether they
    /// did; false only if one update or pipeline load outlasts `within`.
    pub fn stop_changes(&self, within: Duration) -> bool {
        let (count, ended) = &self.changing;
        let n = {
            let n = lock(count);
            self.stopping.store(true, Ordering::Relaxed);
            n
        };
        let (n, _) = ended.wait_timeout_while(n, within, |n| *n > 0).unwrap_or_else(|e| e.into_inner());
        *n == 0
    }

    // ------------------------------------------------------------------
    // Capabilities and pipeline config
    // ------------------------------------------------------------------

    pub fn capabilities(&self) -> p4v1::CapabilitiesResponse {
        p4v1::CapabilitiesResponse { p4runtime_api_version: API_VERSION.trim().to_string(), experimental: None }
    }

    fn commit(&self, p: Arc<Pipeline>) {
        let mut books = lock(&self.books);
        let mut digests = lock(&self.digests);
        self.switch.set_program(p.program.clone());
        *books = Books { next_hidden: ONE_SHOT_ID_BASE, ..Default::default() };
        digests.clear();
        *self.pipeline.write().unwrap_or_else(|e| e.into_inner()) = Some(p);
    }

    pub fn set_pipeline(&self, req: &p4v1::SetForwardingPipelineConfigRequest) -> RtResult<()> {
        use p4v1::set_forwarding_pipeline_config_request::Action as A;
        let _change = self.begin_change()?;
        lock(&self.arbitration).check_primary(
            self.device_id(),
            req.device_id,
            &role_key(&req.role, req.role_id),
            u128_of(&req.election_id),
        )?;
        let action = A::try_from(req.action).map_err(|_| RtError::invalid(format!("unknown action {}", req.action)))?;
        let verify = || -> RtResult<Pipeline> {
            let cfg = req.config.as_ref().ok_or_else(|| RtError::invalid("no config given"))?;
            pipeline::verify(cfg)
        };
        match action {
            A::Unspecified => Err(RtError::invalid("SetForwardingPipelineConfig action is unspecified")),
            A::Verify => verify().map(|_| ()),
            A::VerifyAndSave => {
                let p = verify()?;
                *lock(&self.saved) = Some(Arc::new(p));
                Ok(())
            }
            A::VerifyAndCommit => {
                let p = verify()?;
                *lock(&self.saved) = None;
                self.commit(Arc::new(p));
                Ok(())
            }
            A::Commit => {
                let p = lock(&self.saved)
                    .take()
                    .ok_or_else(|| RtError::precondition("COMMIT without a config saved by VERIFY_AND_SAVE"))?;
                self.commit(p);
                Ok(())
            }
            A::ReconcileAndCommit => {
                let p = verify()?;
                let same_program =
                    self.pipeline().map(|cur| cur.device_config == p.device_config).unwrap_or(false);
                if same_program {
                    // Same data plane: keep all forwarding state, take the new
                    // P4Info and cookie (ids are re-checked against the program).
                    let old = self.require_pipeline()?;
                    let p = Pipeline { program: old.program.clone(), ..p };
                    *self.pipeline.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(p));
                } else {
                    self.commit(Arc::new(p));
                }
                *lock(&self.saved) = None;
                Ok(())
            }
        }
    }

    pub fn get_pipeline(
        &self,
        req: &p4v1::GetForwardingPipelineConfigRequest,
    ) -> RtResult<p4v1::GetForwardingPipelineConfigResponse> {
        self.check_device(req.device_id)?;
        let p = self.require_pipeline()?;
        Ok(p4v1::GetForwardingPipelineConfigResponse { config: Some(pipeline::get_response(&p, req.response_type)?) })
    }

    // ------------------------------------------------------------------
    // Write
    // ------------------------------------------------------------------

    /// Applies a WriteRequest. Each update is applied or not on its own; if any
    /// fails the answer is UNKNOWN with one p4.v1.Error per update. Table
    /// entries are staged and each table touched is published once, when the
    /// request is done (or before an update of another kind): packets never
    /// see half an update, and the answer comes after everything is visible.
    pub fn write(&self, req: &p4v1::WriteRequest) -> Result<(), tonic::Status> {
        use p4v1::write_request::Atomicity;
        // a stopping switch refuses first: nothing else about the request matters
        let _change = self.begin_change()?;
        lock(&self.arbitration).check_primary(
            self.device_id(),
            req.device_id,
            &role_key(&req.role, req.role_id),
            u128_of(&req.election_id),
        )?;
        match Atomicity::try_from(req.atomicity) {
            Ok(Atomicity::ContinueOnError) => {}
            Ok(a) => {
                return Err(RtError::unimplemented(format!(
                    "atomicity {} is not supported (use CONTINUE_ON_ERROR)",
                    a.as_str_name()
                ))
                .into())
            }
            Err(_) => return Err(RtError::invalid(format!("unknown atomicity {}", req.atomicity)).into()),
        }
        let p = self.require_pipeline()?;
        let mut books = lock(&self.books);
        let mut batch = self.switch.table_batch();
        let mut results: Vec<Option<RtError>> = Vec::with_capacity(req.updates.len());
        for u in &req.updates {
            if self.stopping.load(Ordering::Relaxed) {
                // the client is being cut off: end soon, and leave the state
                // as it stands (the rest is answered as skipped, in one go)
                break;
            }
            results.push(self.apply(&p, &mut books, &mut batch, u).err());
        }
        batch.publish();
        drop(batch);
        match batch_status(&results, req.updates.len() - results.len()) {
            None => Ok(()),
            Some(st) => Err(st),
        }
    }

    fn apply(&self, p: &Pipeline, books: &mut Books, batch: &mut TableBatch<'_>, u: &p4v1::Update) -> RtResult<()> {
        use p4v1::update::Type;
        let op = match Type::try_from(u.r#type) {
            Ok(Type::Insert) => Op::Insert,
            Ok(Type::Modify) => Op::Modify,
            Ok(Type::Delete) => Op::Delete,
            _ => return Err(RtError::invalid(format!("update type {} is not INSERT, MODIFY or DELETE", u.r#type))),
        };
        let entity = u.entity.as_ref().and_then(|e| e.entity.as_ref()).ok_or_else(|| RtError::invalid("update without entity"))?;
        let s = &p.schema;
        if !matches!(entity, E::TableEntry(_)) {
            // other entities' checks read the published tables (a member in use)
            batch.publish();
        }
        match entity {
            E::TableEntry(te) => self.write_table_entry(s, books, batch, op, te),
            E::ActionProfileMember(m) => self.write_member(s, books, op, m),
            E::ActionProfileGroup(g) => self.write_group(s, books, op, g),
            E::CounterEntry(c) => self.write_counter(s, op, c),
            E::DirectCounterEntry(c) => self.write_direct_counter(s, op, c),
            E::MeterEntry(m) => self.write_meter(s, op, m),
            E::DirectMeterEntry(m) => self.write_direct_meter(s, op, m),
            E::RegisterEntry(r) => self.write_register(s, op, r),
            E::PacketReplicationEngineEntry(pre) => self.write_pre(books, op, pre),
            E::DigestEntry(d) => self.write_digest(s, op, d),
            E::ValueSetEntry(v) => self.write_value_set(s, op, v),
            E::ExternEntry(_) => Err(RtError::unimplemented("extern entries are not supported")),
        }
    }

    fn modify_only(op: Op, what: &str) -> RtResult<()> {
        if op != Op::Modify {
            return Err(RtError::invalid(format!("{what} can only be modified (MODIFY), not inserted or deleted")));
        }
        Ok(())
    }

    // ----- table entries ------------------------------------------------

    fn entry_key(s: &Schema, te: &p4v1::TableEntry) -> RtResult<(TableS, Vec<MatchKey>, i32)> {
        let t = s.table(te.table_id)?;
        let key = decode_match(t, &te.r#match)?;
        let prio = check_priority(t, te.priority)?;
        Ok((t.clone(), key, prio))
    }

    fn write_table_entry(
        &self,
        s: &Schema,
        books: &mut Books,
        batch: &mut TableBatch<'_>,
        op: Op,
        te: &p4v1::TableEntry,
    ) -> RtResult<()> {
        let t = s.table(te.table_id)?;
        if te.is_default_action {
            return self.write_default_entry(s, t, op, te);
        }
        if t.is_const {
            return Err(RtError::permission(format!("table '{}' has const entries and cannot be written", t.name)));
        }
        let key = decode_match(t, &te.r#match)?;
        let prio = check_priority(t, te.priority)?;
        let name = t.name.as_str();
        if op == Op::Delete {
            batch.delete(name, &key, prio)?;
            let k = (t.id, key, prio);
            if !books.entry_meta.is_empty() {
                books.entry_meta.remove(&k);
            }
            if let Some(os) = books.oneshots.remove(&k) {
                batch.publish();
                self.drop_oneshot(books, &os);
            }
            return Ok(());
        }
        // INSERT / MODIFY: check everything before touching the engine.
        let action = te.action.as_ref().ok_or_else(|| RtError::invalid(format!("table '{name}': entry without action")))?;
        if te.idle_timeout_ns < 0 {
            return Err(RtError::invalid("negative idle_timeout_ns"));
        }
        if te.idle_timeout_ns > 0 && !t.supports_idle {
            return Err(RtError::invalid(format!("table '{name}' does not support idle timeout")));
        }
        let counter = match &te.counter_data {
            Some(_) if t.direct_counter == 0 => {
                return Err(RtError::invalid(format!("table '{name}' has no direct counter")))
            }
            Some(c) => Some(decode_counter_data(c)?),
            None => None,
        };
        let meter = match &te.meter_config {
            Some(_) if t.direct_meter == 0 => return Err(RtError::invalid(format!("table '{name}' has no direct meter"))),
            Some(_) => Some(decode_meter_config(&te.meter_config)?),
            None => None,
        };
        let (entry_action, oneshot) = self.decode_entry_action(s, books, t, action)?;
        // The key is needed after the engine call only for direct resources
        // and the books; the plain insert (the bulk case) moves it.
        let has_meta = te.controller_metadata != 0 || !te.metadata.is_empty();
        let keep_key = counter.is_some()
            || meter.is_some()
            || oneshot.is_some()
            || has_meta
            || !books.oneshots.is_empty()
            || !books.entry_meta.is_empty();
        let kept = if keep_key { Some(key.clone()) } else { None };
        let entry = EngineEntry { key, action: entry_action, priority: prio, idle_timeout_ns: te.idle_timeout_ns as u64 };
        let res = match op {
            Op::Insert => batch.insert(name, entry),
            _ => batch.modify(name, entry),
        };
        if let Err(e) = res {
            if let Some(os) = &oneshot {
                batch.publish();
                self.drop_oneshot(books, os);
            }
            return Err(short_table_full(e.into()));
        }
        let Some(key) = kept else { return Ok(()) };
        let direct = || -> RtResult<()> {
            if let Some(c) = counter {
                self.switch.table_write_counter(name, &key, prio, c)?;
            }
            if let Some(m) = meter {
                self.switch.table_set_meter(name, &key, prio, m)?;
            }
            Ok(())
        };
        if let Err(e) = direct() {
            if op == Op::Insert {
                let _ = batch.delete(name, &key, prio);
                if let Some(os) = &oneshot {
                    batch.publish();
                    self.drop_oneshot(books, os);
                }
            }
            return Err(e);
        }
        let k = (t.id, key, prio);
        if has_meta {
            books.entry_meta.insert(k.clone(), (te.controller_metadata, te.metadata.clone()));
        } else if !books.entry_meta.is_empty() {
            books.entry_meta.remove(&k);
        }
        if !books.oneshots.is_empty() {
            if let Some(old) = books.oneshots.remove(&k) {
                batch.publish();
                self.drop_oneshot(books, &old);
            }
        }
        if let Some(os) = oneshot {
            books.oneshots.insert(k, os);
        }
        Ok(())
    }

    fn write_default_entry(&self, s: &Schema, t: &TableS, op: Op, te: &p4v1::TableEntry) -> RtResult<()> {
        Self::modify_only(op, "the default entry")?;
        if !te.r#match.is_empty() || te.priority != 0 {
            return Err(RtError::invalid("the default entry has no match fields and no priority"));
        }
        if t.const_default {
            return Err(RtError::permission(format!("table '{}' has a const default action", t.name)));
        }
        if te.counter_data.is_some() || te.meter_config.is_some() || te.idle_timeout_ns != 0 {
            return Err(RtError::unimplemented("direct resources and idle timeout of the default entry"));
        }
        use p4v1::table_action::Type as T;
        match te.action.as_ref().and_then(|a| a.r#type.as_ref()) {
            None => Ok(self.switch.table_reset_default(&t.name)?),
            Some(T::Action(a)) => {
                if t.profile != 0 {
                    return Err(RtError::invalid(format!("table '{}' uses an action profile", t.name)));
                }
                let spec = decode_table_action(s, t, a, true)?;
                Ok(self.switch.table_set_default(&t.name, EntryAction::Action(spec))?)
            }
            Some(T::ActionProfileMemberId(m)) if t.profile != 0 => {
                Ok(self.switch.table_set_default(&t.name, EntryAction::Member(*m))?)
            }
            Some(T::ActionProfileGroupId(g)) if t.profile != 0 => {
                Ok(self.switch.table_set_default(&t.name, EntryAction::Group(*g))?)
            }
            Some(T::ActionProfileActionSet(_)) => {
                Err(RtError::unimplemented("one-shot action sets as default action"))
            }
            Some(_) => Err(RtError::invalid(format!("table '{}' has no action profile", t.name))),
        }
    }

    fn decode_entry_action(
        &self,
        s: &Schema,
        books: &mut Books,
        t: &TableS,
        a: &p4v1::TableAction,
    ) -> RtResult<(EntryAction, Option<OneShot>)> {
        use p4v1::table_action::Type as T;
        let name = &t.name;
        match a.r#type.as_ref() {
            None => Err(RtError::invalid(format!("table '{name}': empty action"))),
            Some(T::Action(a)) => {
                if t.profile != 0 {
                    return Err(RtError::invalid(format!(
                        "table '{name}' uses action profile '{}': give a member, group or action set",
                        s.profile(t.profile)?.name
                    )));
                }
                Ok((EntryAction::Action(decode_table_action(s, t, a, false)?), None))
            }
            Some(T::ActionProfileMemberId(m)) => {
                if t.profile == 0 {
                    return Err(RtError::invalid(format!("table '{name}' has no action profile")));
                }
                Ok((EntryAction::Member(*m), None))
            }
            Some(T::ActionProfileGroupId(g)) => {
                if t.profile == 0 || !s.profile(t.profile)?.with_selector {
                    return Err(RtError::invalid(format!("table '{name}' has no action selector: groups are not allowed")));
                }
                Ok((EntryAction::Group(*g), None))
            }
            Some(T::ActionProfileActionSet(set)) => {
                if t.profile == 0 {
                    return Err(RtError::invalid(format!("table '{name}' has no action profile")));
                }
                let prof = s.profile(t.profile)?;
                if set.action_profile_actions.is_empty() {
                    return Err(RtError::invalid("empty one-shot action set"));
                }
                if !prof.with_selector && set.action_profile_actions.len() != 1 {
                    return Err(RtError::invalid(format!(
                        "action profile '{}' has no selector: a one-shot set holds exactly one action",
                        prof.name
                    )));
                }
                let mut specs = Vec::new();
                for apa in &set.action_profile_actions {
                    let act = apa.action.as_ref().ok_or_else(|| RtError::invalid("one-shot action without action"))?;
                    if apa.weight < 0 {
                        return Err(RtError::invalid("negative weight in one-shot action set"));
                    }
                    specs.push((decode_table_action(s, t, act, false)?, apa.weight.max(1) as u32));
                }
                let mut os = OneShot { profile: prof.name.clone(), members: vec![], group: None, set: set.clone() };
                let mut created = || -> RtResult<EntryAction> {
                    for (spec, _) in &specs {
                        let id = Self::alloc_hidden(books, &prof.name);
                        self.switch.member_add(&prof.name, Member { member_id: id, action: spec.clone() })?;
                        os.members.push(id);
                    }
                    if !prof.with_selector {
                        return Ok(EntryAction::Member(os.members[0]));
                    }
                    let gid = Self::alloc_hidden(books, &prof.name);
                    let members = os.members.iter().zip(&specs).map(|(m, (_, w))| (*m, *w)).collect();
                    self.switch.group_add(&prof.name, Group { group_id: gid, members, max_size: 0 })?;
                    os.group = Some(gid);
                    Ok(EntryAction::Group(gid))
                };
                match created() {
                    Ok(a) => Ok((a, Some(os))),
                    Err(e) => {
                        self.drop_oneshot(books, &os);
                        Err(e)
                    }
                }
            }
        }
    }

    fn alloc_hidden(books: &mut Books, profile: &str) -> u32 {
        let id = books.next_hidden;
        books.next_hidden = books.next_hidden.checked_add(1).unwrap_or(ONE_SHOT_ID_BASE);
        books.hidden.insert((profile.to_string(), id));
        id
    }

    fn drop_oneshot(&self, books: &mut Books, os: &OneShot) {
        if let Some(g) = os.group {
            let _ = self.switch.group_delete(&os.profile, g);
            books.hidden.remove(&(os.profile.clone(), g));
        }
        for m in &os.members {
            let _ = self.switch.member_delete(&os.profile, *m);
            books.hidden.remove(&(os.profile.clone(), *m));
        }
    }

    // ----- action profiles ----------------------------------------------

    fn profile_action(s: &Schema, profile_id: u32, a: &Option<p4v1::Action>) -> RtResult<p4engine::ActionSpec> {
        let prof = s.profile(profile_id)?;
        let a = a.as_ref().ok_or_else(|| RtError::invalid("member without action"))?;
        let (act, spec) = decode_action_call(s, a)?;
        let allowed = prof.table_ids.iter().filter_map(|t| s.tables.get(t)).any(|t| {
            matches!(t.actions.get(&act.id), Some(crate::schema::Scope::TableAndDefault | crate::schema::Scope::TableOnly))
        });
        if !allowed && !prof.table_ids.is_empty() {
            return Err(RtError::invalid(format!(
                "action '{}' is not an action of the tables of profile '{}'",
                act.name, prof.name
            )));
        }
        Ok(spec)
    }

    fn check_not_hidden(books: &Books, profile: &str, id: u32) -> RtResult<()> {
        if id >= ONE_SHOT_ID_BASE || books.hidden.contains(&(profile.to_string(), id)) {
            return Err(RtError::invalid(format!("ids >= {ONE_SHOT_ID_BASE:#x} are reserved for one-shot action sets")));
        }
        Ok(())
    }

    fn write_member(&self, s: &Schema, books: &mut Books, op: Op, m: &p4v1::ActionProfileMember) -> RtResult<()> {
        let prof = s.profile(m.action_profile_id)?;
        Self::check_not_hidden(books, &prof.name, m.member_id)?;
        match op {
            Op::Delete => Ok(self.switch.member_delete(&prof.name, m.member_id)?),
            Op::Insert | Op::Modify => {
                let spec = Self::profile_action(s, m.action_profile_id, &m.action)?;
                let mem = Member { member_id: m.member_id, action: spec };
                if op == Op::Insert {
                    self.switch.member_add(&prof.name, mem)?
                } else {
                    self.switch.member_modify(&prof.name, mem)?
                }
                Ok(())
            }
        }
    }

    fn write_group(&self, s: &Schema, books: &mut Books, op: Op, g: &p4v1::ActionProfileGroup) -> RtResult<()> {
        let prof = s.profile(g.action_profile_id)?;
        if !prof.with_selector {
            return Err(RtError::invalid(format!("action profile '{}' has no selector: no groups", prof.name)));
        }
        Self::check_not_hidden(books, &prof.name, g.group_id)?;
        if op == Op::Delete {
            return Ok(self.switch.group_delete(&prof.name, g.group_id)?);
        }
        if g.max_size < 0 {
            return Err(RtError::invalid("negative max_size"));
        }
        if prof.max_group_size > 0 && g.max_size > prof.max_group_size {
            return Err(RtError::invalid(format!(
                "max_size {} above the profile's max_group_size {}",
                g.max_size, prof.max_group_size
            )));
        }
        let mut members = Vec::new();
        for m in &g.members {
            if m.weight < 0 {
                return Err(RtError::invalid(format!("member {}: negative weight", m.member_id)));
            }
            Self::check_not_hidden(books, &prof.name, m.member_id)?;
            members.push((m.member_id, m.weight.max(1) as u32));
        }
        if g.max_size > 0 && members.len() > g.max_size as usize {
            return Err(RtError::new(
                Code::ResourceExhausted,
                format!("{} members exceed the group's max_size {}", members.len(), g.max_size),
            ));
        }
        let group = Group { group_id: g.group_id, members, max_size: g.max_size as u32 };
        if op == Op::Insert {
            self.switch.group_add(&prof.name, group)?
        } else {
            self.switch.group_modify(&prof.name, group)?
        }
        Ok(())
    }

    // ----- counters, meters, registers ------------------------------------

    fn indices(size: i64, index: &Option<p4v1::Index>, what: &str) -> RtResult<std::ops::Range<u32>> {
        let size = size.clamp(0, u32::MAX as i64) as u32;
        match index {
            None => Ok(0..size),
            // spec, CounterEntry/MeterEntry/RegisterEntry: a negative index is
            // INVALID_ARGUMENT, one past the array OUT_OF_RANGE
            Some(i) if i.index < 0 => Err(RtError::invalid(format!("{what}: negative index {}", i.index))),
            Some(i) if i.index >= size as i64 => {
                Err(RtError::out_of_range(format!("{what}: index {} out of range 0..{size}", i.index)))
            }
            Some(i) => Ok(i.index as u32..i.index as u32 + 1),
        }
    }

    fn write_counter(&self, s: &Schema, op: Op, c: &p4v1::CounterEntry) -> RtResult<()> {
        Self::modify_only(op, "counter entries")?;
        let a = s.counters.get(&c.counter_id).ok_or_else(|| RtError::invalid(format!("unknown counter id {}", c.counter_id)))?;
        let data = decode_counter_data(&c.data.unwrap_or_default())?;
        for i in Self::indices(a.size, &c.index, &a.name)? {
            self.switch.counter_write(&a.name, i, data)?;
        }
        Ok(())
    }

    fn write_meter(&self, s: &Schema, op: Op, m: &p4v1::MeterEntry) -> RtResult<()> {
        Self::modify_only(op, "meter entries")?;
        let a = s.meters.get(&m.meter_id).ok_or_else(|| RtError::invalid(format!("unknown meter id {}", m.meter_id)))?;
        let cfg = decode_meter_config(&m.config)?;
        for i in Self::indices(a.size, &m.index, &a.name)? {
            self.switch.meter_set(&a.name, i, cfg)?;
        }
        Ok(())
    }

    fn write_register(&self, s: &Schema, op: Op, r: &p4v1::RegisterEntry) -> RtResult<()> {
        Self::modify_only(op, "register entries")?;
        let a = s.registers.get(&r.register_id).ok_or_else(|| RtError::invalid(format!("unknown register id {}", r.register_id)))?;
        let value = match r.data.as_ref().and_then(|d| d.data.as_ref()) {
            Some(p4v1::p4_data::Data::Bitstring(b)) => canonical::check(b, a.bitwidth)
                .map_err(|e| RtError::width(format_args!("register '{}'", a.name), e))?,
            _ => return Err(RtError::invalid(format!("register '{}': data must be a bitstring", a.name))),
        };
        let value = canonical::to_width(&value, a.bitwidth);
        // One call for all cells: a wildcard write is atomic relative to the
        // actions using the register, as in BMv2.
        self.switch.register_write_cells(&a.name, Self::indices(a.size, &r.index, &a.name)?, &value)?;
        Ok(())
    }

    fn direct_target(s: &Schema, te: &Option<p4v1::TableEntry>) -> RtResult<(TableS, Vec<MatchKey>, i32)> {
        let te = te.as_ref().ok_or_else(|| RtError::invalid("direct resource without table_entry"))?;
        if te.is_default_action {
            return Err(RtError::unimplemented("direct resources of the default entry"));
        }
        Self::entry_key(s, te)
    }

    fn write_direct_counter(&self, s: &Schema, op: Op, c: &p4v1::DirectCounterEntry) -> RtResult<()> {
        Self::modify_only(op, "direct counter entries")?;
        let (t, key, prio) = Self::direct_target(s, &c.table_entry)?;
        if t.direct_counter == 0 {
            return Err(RtError::invalid(format!("table '{}' has no direct counter", t.name)));
        }
        let data = decode_counter_data(&c.data.unwrap_or_default())?;
        Ok(self.switch.table_write_counter(&t.name, &key, prio, data)?)
    }

    fn write_direct_meter(&self, s: &Schema, op: Op, m: &p4v1::DirectMeterEntry) -> RtResult<()> {
        Self::modify_only(op, "direct meter entries")?;
        let (t, key, prio) = Self::direct_target(s, &m.table_entry)?;
        if t.direct_meter == 0 {
            return Err(RtError::invalid(format!("table '{}' has no direct meter", t.name)));
        }
        let cfg = decode_meter_config(&m.config)?;
        Ok(self.switch.table_set_meter(&t.name, &key, prio, cfg)?)
    }

    // ----- packet replication engine ----------------------------------------

    fn replicas(rs: &[p4v1::Replica]) -> RtResult<(Vec<Replica>, bool)> {
        let mut out = Vec::with_capacity(rs.len());
        let mut bytes_form = false;
        for r in rs {
            let port = match &r.port_kind {
                Some(p4v1::replica::PortKind::EgressPort(p)) => *p,
                Some(p4v1::replica::PortKind::Port(b)) => {
                    bytes_form = true;
                    let c = canonical::check(b, 32).map_err(|e| RtError::width("replica port", e))?;
                    c.iter().fold(0u32, |acc, x| (acc << 8) | *x as u32)
                }
                None => 0,
            };
            if !r.backup_replicas.is_empty() {
                return Err(RtError::unimplemented("backup replicas"));
            }
            let rep = Replica { egress_port: port, rid: r.instance };
            if out.contains(&rep) {
                return Err(RtError::invalid(format!("replica (port {port}, instance {}) given twice", r.instance)));
            }
            out.push(rep);
        }
        Ok((out, bytes_form))
    }

    fn write_pre(&self, books: &mut Books, op: Op, pre: &p4v1::PacketReplicationEngineEntry) -> RtResult<()> {
        use p4v1::packet_replication_engine_entry::Type as T;
        match pre.r#type.as_ref() {
            None => Err(RtError::invalid("empty PacketReplicationEngineEntry")),
            Some(T::MulticastGroupEntry(g)) => {
                if g.multicast_group_id == 0 {
                    return Err(RtError::invalid("multicast group id 0 is reserved"));
                }
                let id = g.multicast_group_id;
                if op == Op::Delete {
                    self.switch.mc_group_delete(id)?;
                    books.mc_port_bytes.remove(&id);
                    return Ok(());
                }
                let (replicas, bytes) = Self::replicas(&g.replicas)?;
                let group = MulticastGroup { group_id: id, replicas };
                if op == Op::Insert {
                    self.switch.mc_group_create(group)?
                } else {
                    self.switch.mc_group_modify(group)?
                }
                if bytes {
                    books.mc_port_bytes.insert(id);
                } else {
                    books.mc_port_bytes.remove(&id);
                }
                Ok(())
            }
            Some(T::CloneSessionEntry(c)) => {
                if c.session_id == 0 {
                    return Err(RtError::invalid("clone session id 0 is reserved"));
                }
                let id = c.session_id;
                if op == Op::Delete {
                    self.switch.clone_session_delete(id)?;
                    books.clone_port_bytes.remove(&id);
                    return Ok(());
                }
                if c.packet_length_bytes < 0 {
                    return Err(RtError::invalid("negative packet_length_bytes"));
                }
                let (replicas, bytes) = Self::replicas(&c.replicas)?;
                let session = CloneSession {
                    session_id: id,
                    replicas,
                    class_of_service: c.class_of_service,
                    packet_length_bytes: c.packet_length_bytes as u32,
                };
                if op == Op::Insert {
                    self.switch.clone_session_create(session)?
                } else {
                    self.switch.clone_session_modify(session)?
                }
                if bytes {
                    books.clone_port_bytes.insert(id);
                } else {
                    books.clone_port_bytes.remove(&id);
                }
                Ok(())
            }
        }
    }

    // ----- parser value sets --------------------------------------------------

    fn write_value_set(&self, s: &Schema, op: Op, v: &p4v1::ValueSetEntry) -> RtResult<()> {
        Self::modify_only(op, "value sets")?;
        let vs = s.value_sets.get(&v.value_set_id).ok_or_else(|| RtError::invalid(format!("unknown value set id {}", v.value_set_id)))?;
        if vs.size > 0 && v.members.len() > vs.size as usize {
            return Err(RtError::new(
                Code::ResourceExhausted,
                format!("value set '{}' holds at most {} members", vs.name, vs.size),
            ));
        }
        let values = crate::valuesets::encode_members(vs, &v.members)?;
        Ok(self.switch.value_set_write(&vs.engine_name, values)?)
    }

    fn read_value_sets(&self, s: &Schema, v: &p4v1::ValueSetEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        let sets = selected(&s.value_sets, v.value_set_id, "value set")?;
        for vs in sets {
            let values = self.switch.value_set_read(&vs.engine_name)?;
            out.push(p4v1::Entity {
                entity: Some(E::ValueSetEntry(p4v1::ValueSetEntry {
                    value_set_id: vs.id,
                    members: crate::valuesets::decode_members(vs, &values),
                })),
            });
        }
        Ok(())
    }

    // ----- digests ------------------------------------------------------------

    fn write_digest(&self, s: &Schema, op: Op, d: &p4v1::DigestEntry) -> RtResult<()> {
        let ds = s.digests.get(&d.digest_id).ok_or_else(|| RtError::invalid(format!("unknown digest id {}", d.digest_id)))?;
        let mut b = lock(&self.digests);
        let exists = b.config(d.digest_id).is_some();
        if op == Op::Delete {
            if !exists {
                return Err(RtError::not_found(format!("digest '{}' is not configured", ds.name)));
            }
            b.remove(d.digest_id);
            return Ok(());
        }
        let c = d.config.ok_or_else(|| RtError::invalid(format!("digest '{}': no config", ds.name)))?;
        if c.max_timeout_ns < 0 || c.max_list_size < 0 || c.ack_timeout_ns < 0 {
            return Err(RtError::invalid(format!("digest '{}': negative config value", ds.name)));
        }
        match (op, exists) {
            (Op::Insert, true) => return Err(RtError::new(Code::AlreadyExists, format!("digest '{}' is already configured", ds.name))),
            (Op::Modify, false) => return Err(RtError::not_found(format!("digest '{}' is not configured", ds.name))),
            _ => {}
        }
        b.configure(
            d.digest_id,
            DigestConfig {
                max_timeout_ns: c.max_timeout_ns as u64,
                max_list_size: c.max_list_size as usize,
                ack_timeout_ns: c.ack_timeout_ns as u64,
            },
        );
        Ok(())
    }

    // ------------------------------------------------------------------
    // Read
    // ------------------------------------------------------------------

    /// Answers a ReadRequest (all entities; the service splits them into messages).
    pub fn read(&self, req: &p4v1::ReadRequest) -> RtResult<Vec<p4v1::Entity>> {
        self.check_device(req.device_id)?;
        let p = self.require_pipeline()?;
        let s = &p.schema;
        let books = lock(&self.books);
        let mut out = Vec::new();
        for e in &req.entities {
            let Some(entity) = e.entity.as_ref() else {
                return Err(RtError::invalid("read of an empty entity"));
            };
            match entity {
                E::TableEntry(te) => self.read_table_entries(s, &books, te, &mut out)?,
                E::ActionProfileMember(m) => self.read_members(s, &books, m, &mut out)?,
                E::ActionProfileGroup(g) => self.read_groups(s, &books, g, &mut out)?,
                E::CounterEntry(c) => self.read_counters(s, c, &mut out)?,
                E::DirectCounterEntry(c) => self.read_direct(s, &books, c.table_entry.as_ref(), true, &mut out)?,
                E::MeterEntry(m) => self.read_meters(s, m, &mut out)?,
                E::DirectMeterEntry(m) => self.read_direct(s, &books, m.table_entry.as_ref(), false, &mut out)?,
                E::RegisterEntry(r) => self.read_registers(s, r, &mut out)?,
                E::PacketReplicationEngineEntry(pre) => self.read_pre(&books, pre, &mut out)?,
                E::DigestEntry(d) => self.read_digests(s, d, &mut out)?,
                E::ValueSetEntry(v) => self.read_value_sets(s, v, &mut out)?,
                E::ExternEntry(_) => return Err(RtError::unimplemented("extern entries are not supported")),
            }
        }
        Ok(out)
    }

    fn tables_of(s: &Schema, table_id: u32) -> RtResult<Vec<&TableS>> {
        if table_id == 0 {
            Ok(s.tables.values().collect())
        } else {
            Ok(vec![s.table(table_id)?])
        }
    }

    /// Entries of `t` selected by the request's match/priority (all if no match).
    fn select_entries(&self, t: &TableS, te: &p4v1::TableEntry) -> RtResult<Vec<EntryData>> {
        if te.table_id != 0 && !te.r#match.is_empty() {
            let key = decode_match(t, &te.r#match)?;
            let prio = if t.needs_priority { te.priority } else { 0 };
            return match self.switch.table_read_one(&t.name, &key, prio) {
                Ok(e) => Ok(vec![e]),
                Err(ApiError::NotFound(_)) => Ok(vec![]),
                Err(e) => Err(e.into()),
            };
        }
        let mut v = self.switch.table_read(&t.name)?;
        if te.priority != 0 {
            v.retain(|e| e.entry.priority == te.priority);
        }
        Ok(v)
    }

    fn encode_entry(s: &Schema, books: &Books, t: &TableS, e: &EntryData, req: &p4v1::TableEntry) -> p4v1::TableEntry {
        let prio = if t.needs_priority { e.entry.priority } else { 0 };
        let oneshot = if books.oneshots.is_empty() {
            None
        } else {
            books.oneshots.get(&(t.id, e.entry.key.clone(), e.entry.priority))
        };
        let action = match oneshot {
            Some(os) => p4v1::TableAction {
                r#type: Some(p4v1::table_action::Type::ActionProfileActionSet(os.set.clone())),
            },
            None => encode_entry_action(s, &e.entry.action),
        };
        let (controller_metadata, metadata) = if books.entry_meta.is_empty() {
            (0, Vec::new())
        } else {
            books.entry_meta.get(&(t.id, e.entry.key.clone(), e.entry.priority)).cloned().unwrap_or_default()
        };
        p4v1::TableEntry {
            table_id: t.id,
            r#match: encode_match(t, &e.entry.key),
            action: Some(action),
            controller_metadata,
            metadata,
            priority: prio,
            counter_data: if req.counter_data.is_some() && t.direct_counter != 0 {
                Some(counter_data(&e.counter.unwrap_or_default()))
            } else {
                None
            },
            meter_config: if req.meter_config.is_some() && t.direct_meter != 0 {
                e.meter.as_ref().map(encode_meter_config)
            } else {
                None
            },
            idle_timeout_ns: e.entry.idle_timeout_ns.min(i64::MAX as u64) as i64,
            time_since_last_hit: if req.time_since_last_hit.is_some() && t.supports_idle {
                Some(p4v1::table_entry::IdleTimeout { elapsed_ns: e.idle_us.saturating_mul(1000).min(i64::MAX as u64) as i64 })
            } else {
                None
            },
            is_const: t.is_const || e.is_const,
            ..Default::default()
        }
    }

    fn read_table_entries(&self, s: &Schema, books: &Books, te: &p4v1::TableEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        for t in Self::tables_of(s, te.table_id)? {
            if te.is_default_action {
                let action = self.switch.table_get_default(&t.name)?;
                out.push(p4v1::Entity {
                    entity: Some(E::TableEntry(p4v1::TableEntry {
                        table_id: t.id,
                        action: action.as_ref().map(|a| encode_entry_action(s, a)),
                        is_default_action: true,
                        ..Default::default()
                    })),
                });
                continue;
            }
            for e in self.select_entries(t, te)? {
                out.push(p4v1::Entity { entity: Some(E::TableEntry(Self::encode_entry(s, books, t, &e, te))) });
            }
        }
        Ok(())
    }

    fn read_direct(
        &self,
        s: &Schema,
        books: &Books,
        te: Option<&p4v1::TableEntry>,
        counter: bool,
        out: &mut Vec<p4v1::Entity>,
    ) -> RtResult<()> {
        let default = p4v1::TableEntry::default();
        let te = te.unwrap_or(&default);
        if te.is_default_action {
            return Err(RtError::unimplemented("direct resources of the default entry"));
        }
        for t in Self::tables_of(s, te.table_id)? {
            let has = if counter { t.direct_counter != 0 } else { t.direct_meter != 0 };
            if !has {
                if te.table_id != 0 {
                    let what = if counter { "counter" } else { "meter" };
                    return Err(RtError::invalid(format!("table '{}' has no direct {what}", t.name)));
                }
                continue;
            }
            for e in self.select_entries(t, te)? {
                let mut key_only = Self::encode_entry(s, books, t, &e, &p4v1::TableEntry::default());
                key_only.action = None;
                key_only.idle_timeout_ns = 0;
                key_only.is_const = false;
                key_only.controller_metadata = 0;
                key_only.metadata.clear();
                let entity = if counter {
                    E::DirectCounterEntry(p4v1::DirectCounterEntry {
                        table_entry: Some(key_only),
                        data: Some(counter_data(&e.counter.unwrap_or_default())),
                    })
                } else {
                    E::DirectMeterEntry(p4v1::DirectMeterEntry {
                        table_entry: Some(key_only),
                        config: e.meter.as_ref().map(encode_meter_config),
                        counter_data: None,
                    })
                };
                out.push(p4v1::Entity { entity: Some(entity) });
            }
        }
        Ok(())
    }

    fn read_members(&self, s: &Schema, books: &Books, m: &p4v1::ActionProfileMember, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        let profs: Vec<_> = if m.action_profile_id == 0 { s.profiles.values().collect() } else { vec![s.profile(m.action_profile_id)?] };
        for prof in profs {
            for mem in self.switch.member_read(&prof.name)? {
                if books.hidden.contains(&(prof.name.clone(), mem.member_id)) {
                    continue;
                }
                if m.member_id != 0 && mem.member_id != m.member_id {
                    continue;
                }
                out.push(p4v1::Entity {
                    entity: Some(E::ActionProfileMember(p4v1::ActionProfileMember {
                        action_profile_id: prof.id,
                        member_id: mem.member_id,
                        action: Some(encode_action_call(s, &mem.action)),
                    })),
                });
            }
        }
        Ok(())
    }

    fn read_groups(&self, s: &Schema, books: &Books, g: &p4v1::ActionProfileGroup, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        let profs: Vec<_> = if g.action_profile_id == 0 { s.profiles.values().collect() } else { vec![s.profile(g.action_profile_id)?] };
        for prof in profs.into_iter().filter(|p| p.with_selector) {
            for grp in self.switch.group_read(&prof.name)? {
                if books.hidden.contains(&(prof.name.clone(), grp.group_id)) {
                    continue;
                }
                if g.group_id != 0 && grp.group_id != g.group_id {
                    continue;
                }
                out.push(p4v1::Entity {
                    entity: Some(E::ActionProfileGroup(p4v1::ActionProfileGroup {
                        action_profile_id: prof.id,
                        group_id: grp.group_id,
                        members: grp
                            .members
                            .iter()
                            .map(|(m, w)| p4v1::action_profile_group::Member {
                                member_id: *m,
                                weight: (*w).min(i32::MAX as u32) as i32,
                                watch_kind: None,
                            })
                            .collect(),
                        max_size: grp.max_size.min(i32::MAX as u32) as i32,
                    })),
                });
            }
        }
        Ok(())
    }

    fn read_counters(&self, s: &Schema, c: &p4v1::CounterEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        let arrays = selected(&s.counters, c.counter_id, "counter")?;
        for a in arrays {
            for i in Self::indices(a.size, &c.index, &a.name)? {
                let d = self.switch.counter_read(&a.name, i)?;
                out.push(p4v1::Entity {
                    entity: Some(E::CounterEntry(p4v1::CounterEntry {
                        counter_id: a.id,
                        index: Some(p4v1::Index { index: i as i64 }),
                        data: Some(counter_data(&d)),
                    })),
                });
            }
        }
        Ok(())
    }

    fn read_meters(&self, s: &Schema, m: &p4v1::MeterEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        let arrays = selected(&s.meters, m.meter_id, "meter")?;
        for a in arrays {
            for i in Self::indices(a.size, &m.index, &a.name)? {
                let cfg = self.switch.meter_get(&a.name, i)?;
                out.push(p4v1::Entity {
                    entity: Some(E::MeterEntry(p4v1::MeterEntry {
                        meter_id: a.id,
                        index: Some(p4v1::Index { index: i as i64 }),
                        config: cfg.as_ref().map(encode_meter_config),
                        counter_data: None,
                    })),
                });
            }
        }
        Ok(())
    }

    fn read_registers(&self, s: &Schema, r: &p4v1::RegisterEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        let arrays = selected(&s.registers, r.register_id, "register")?;
        for a in arrays {
            // One snapshot of the cells, taken under the actions' lock group.
            let cells = Self::indices(a.size, &r.index, &a.name)?;
            let values = self.switch.register_read_cells(&a.name, cells.clone())?;
            for (i, v) in cells.zip(values) {
                out.push(p4v1::Entity {
                    entity: Some(E::RegisterEntry(p4v1::RegisterEntry {
                        register_id: a.id,
                        index: Some(p4v1::Index { index: i as i64 }),
                        data: Some(p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(canonical::canonical(&v))) }),
                    })),
                });
            }
        }
        Ok(())
    }

    fn encode_replicas(rs: &[Replica], bytes: bool) -> Vec<p4v1::Replica> {
        rs.iter()
            .map(|r| p4v1::Replica {
                instance: r.rid,
                backup_replicas: vec![],
                port_kind: Some(if bytes {
                    p4v1::replica::PortKind::Port(canonical::canonical(&r.egress_port.to_be_bytes()))
                } else {
                    p4v1::replica::PortKind::EgressPort(r.egress_port)
                }),
            })
            .collect()
    }

    fn read_pre(&self, books: &Books, pre: &p4v1::PacketReplicationEngineEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        use p4v1::packet_replication_engine_entry::Type as T;
        let wrap = |t: T| p4v1::Entity {
            entity: Some(E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry { r#type: Some(t) })),
        };
        match pre.r#type.as_ref() {
            None => Err(RtError::invalid("empty PacketReplicationEngineEntry")),
            Some(T::MulticastGroupEntry(g)) => {
                for grp in self.switch.mc_group_read()? {
                    if g.multicast_group_id != 0 && grp.group_id != g.multicast_group_id {
                        continue;
                    }
                    let bytes = books.mc_port_bytes.contains(&grp.group_id);
                    out.push(wrap(T::MulticastGroupEntry(p4v1::MulticastGroupEntry {
                        multicast_group_id: grp.group_id,
                        replicas: Self::encode_replicas(&grp.replicas, bytes),
                        metadata: vec![],
                    })));
                }
                Ok(())
            }
            Some(T::CloneSessionEntry(c)) => {
                for cs in self.switch.clone_session_read()? {
                    if c.session_id != 0 && cs.session_id != c.session_id {
                        continue;
                    }
                    let bytes = books.clone_port_bytes.contains(&cs.session_id);
                    out.push(wrap(T::CloneSessionEntry(p4v1::CloneSessionEntry {
                        session_id: cs.session_id,
                        replicas: Self::encode_replicas(&cs.replicas, bytes),
                        class_of_service: cs.class_of_service,
                        packet_length_bytes: cs.packet_length_bytes.min(i32::MAX as u32) as i32,
                    })));
                }
                Ok(())
            }
        }
    }

    fn read_digests(&self, s: &Schema, d: &p4v1::DigestEntry, out: &mut Vec<p4v1::Entity>) -> RtResult<()> {
        if d.digest_id != 0 && !s.digests.contains_key(&d.digest_id) {
            return Err(RtError::invalid(format!("unknown digest id {}", d.digest_id)));
        }
        for (id, c) in lock(&self.digests).configs() {
            if d.digest_id != 0 && id != d.digest_id {
                continue;
            }
            out.push(p4v1::Entity {
                entity: Some(E::DigestEntry(p4v1::DigestEntry {
                    digest_id: id,
                    config: Some(p4v1::digest_entry::Config {
                        max_timeout_ns: c.max_timeout_ns.min(i64::MAX as u64) as i64,
                        max_list_size: c.max_list_size.min(i32::MAX as usize) as i32,
                        ack_timeout_ns: c.ack_timeout_ns.min(i64::MAX as u64) as i64,
                    }),
                })),
            });
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // StreamChannel
    // ------------------------------------------------------------------

    /// Registers a new stream; returns its id.
    pub fn open_stream(&self, tx: StreamTx) -> u64 {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        lock(&self.streams).insert(id, tx);
        id
    }

    /// Forgets a closed stream and tells the others if the primary changed.
    pub fn close_stream(&self, id: u64) {
        lock(&self.streams).remove(&id);
        let notices = lock(&self.arbitration).disconnect(id);
        self.send_notices(&notices);
    }

    /// Ends every open stream with `status` (the switch is stopping): the
    /// controller reads it as the stream's final status instead of waiting on
    /// a stream that never ends. A stream whose buffer is full is cut with
    /// its connection.
    pub fn end_streams(&self, status: tonic::Status) {
        for tx in lock(&self.streams).values() {
            let _ = tx.try_send(Err(status.clone()));
        }
    }

    fn send(&self, stream: u64, update: Out) -> Sent {
        let tx = lock(&self.streams).get(&stream).cloned();
        let Some(tx) = tx else { return Sent::Gone };
        // A controller that does not read its stream loses messages rather
        // than stalling the switch.
        match tx.try_send(Ok(p4v1::StreamMessageResponse { update: Some(update) })) {
            Ok(()) => Sent::Buffered,
            Err(mpsc::error::TrySendError::Full(_)) => Sent::Full,
            Err(mpsc::error::TrySendError::Closed(_)) => Sent::Gone,
        }
    }

    fn send_to_primaries(&self, update: Out) {
        let targets = lock(&self.arbitration).primary_streams(self.device_id());
        let st = &self.stats;
        let digests = match &update {
            Out::Digest(d) => d.data.len() as u64,
            _ => 0,
        };
        match (&update, targets.is_empty()) {
            (Out::Packet(_), false) => ServerStats::add(&st.packet_ins, 1),
            (Out::Packet(_), true) => ServerStats::add(&st.packet_ins_dropped, 1),
            (Out::Digest(_), true) => ServerStats::add(&self.lost.no_primary, digests),
            _ => {}
        }
        // A list counts as sent only once a stream took it, so that a list lost to a
        // full stream is counted lost and not also sent.
        let mut taken = false;
        for s in targets {
            match self.send(s, update.clone()) {
                Sent::Buffered => taken = true,
                Sent::Full => ServerStats::add(&self.lost.stream_full, digests),
                Sent::Gone => ServerStats::add(&self.lost.no_primary, digests),
            }
        }
        if taken && matches!(update, Out::Digest(_)) {
            ServerStats::add(&st.digest_lists, 1);
            ServerStats::add(&st.digests, digests);
        }
    }

    fn send_notices(&self, notices: &[Notice]) {
        for n in notices {
            let role = if n.role.is_empty() {
                None
            } else if let Some(id) = n.role.strip_prefix('#').and_then(|x| x.parse().ok()) {
                Some(p4v1::Role { id, ..Default::default() })
            } else {
                Some(p4v1::Role { name: n.role.clone(), ..Default::default() })
            };
            let message = match n.code {
                Code::Ok => "primary",
                Code::AlreadyExists => "backup: another controller is primary",
                _ => "backup: no primary",
            };
            self.send(
                n.stream,
                Out::Arbitration(p4v1::MasterArbitrationUpdate {
                    device_id: n.device_id,
                    role,
                    election_id: n.primary_election_id.map(uint128),
                    status: Some(rpc::Status { code: n.code as i32, message: message.into(), details: vec![] }),
                }),
            );
        }
    }

    fn stream_error(&self, stream: u64, e: RtError, details: Option<p4v1::stream_error::Details>) {
        self.send(
            stream,
            Out::Error(p4v1::StreamError {
                canonical_code: e.code as i32,
                message: e.message,
                space: String::new(),
                code: 0,
                details,
            }),
        );
    }

    /// Handles one message of stream `stream`. An error ends the stream with
    /// that status (arbitration errors); other problems are StreamErrors.
    pub fn stream_message(&self, stream: u64, msg: p4v1::StreamMessageRequest) -> RtResult<()> {
        use p4v1::stream_message_request::Update as In;
        match msg.update {
            None => Ok(()),
            Some(In::Arbitration(a)) => {
                let role = a.role.as_ref().map(|r| role_key(&r.name, r.id)).unwrap_or_default();
                let notices = lock(&self.arbitration).arbitrate(
                    stream,
                    self.device_id(),
                    a.device_id,
                    role,
                    u128_of(&a.election_id),
                )?;
                self.send_notices(&notices);
                Ok(())
            }
            Some(In::Packet(po)) => {
                if let Err(e) = self.packet_out(stream, &po) {
                    let details = p4v1::stream_error::Details::PacketOut(p4v1::PacketOutError { packet_out: Some(po) });
                    self.stream_error(stream, e, Some(details));
                }
                Ok(())
            }
            Some(In::DigestAck(ack)) => {
                lock(&self.digests).ack(ack.digest_id, ack.list_id);
                Ok(())
            }
            Some(In::Other(_)) => {
                self.stream_error(stream, RtError::unimplemented("'other' stream messages are not supported"), None);
                Ok(())
            }
        }
    }

    fn packet_out(&self, stream: u64, po: &p4v1::PacketOut) -> RtResult<()> {
        if !lock(&self.arbitration).primary_streams(self.device_id()).contains(&stream) {
            return Err(RtError::permission("packet-out from a controller that is not primary"));
        }
        let p = self.require_pipeline()?;
        let cpu = self
            .switch
            .config()
            .cpu_port
            .ok_or_else(|| RtError::precondition("the switch has no CPU port (start it with --cpu-port N)"))?;
        let frame = match &p.schema.packet_out {
            Some(layout) => packetio::build_packet_out(layout, &po.metadata, &po.payload)?,
            None if po.metadata.is_empty() => po.payload.clone(),
            None => return Err(RtError::invalid("the program has no packet_out header: metadata not allowed")),
        };
        let mut to_cpu = Vec::new();
        {
            let mut w = lock(&self.worker);
            let transmit = self.transmit.clone();
            self.switch.process(&mut w, cpu, &frame, &mut |port, bytes| {
                if port == cpu {
                    to_cpu.push(bytes.to_vec());
                } else if let Some(t) = &transmit {
                    t(port, bytes);
                }
            });
        }
        ServerStats::add(&self.stats.packet_outs, 1);
        for f in to_cpu {
            self.packet_in(&f);
        }
        Ok(())
    }

    /// A frame the pipeline sent to the CPU port: strip the packet_in header
    /// into metadata and send a PacketIn to the primary controller(s).
    pub fn packet_in(&self, frame: &[u8]) {
        let Some(p) = self.pipeline() else { return };
        let (metadata, payload) = match &p.schema.packet_in {
            Some(layout) => match packetio::parse_packet_in(layout, frame) {
                Some((m, payload)) => (m, payload),
                None => return,
            },
            None => (Vec::new(), frame),
        };
        self.send_to_primaries(Out::Packet(p4v1::PacketIn { payload: payload.to_vec(), metadata }));
    }

    // ------------------------------------------------------------------
    // Digests and idle timeouts (driven by the server's p4rt-events and
    // p4rt-idle threads; only the idle sweep takes the books a Write holds)
    // ------------------------------------------------------------------

    fn send_list(&self, l: ListOut) {
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        let data = l
            .data
            .into_iter()
            .map(|fields| p4v1::P4Data {
                data: Some(p4v1::p4_data::Data::Struct(p4v1::P4StructLike {
                    members: fields
                        .into_iter()
                        .map(|f| p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(f)) })
                        .collect(),
                })),
            })
            .collect();
        self.send_to_primaries(Out::Digest(p4v1::DigestList {
            digest_id: l.digest_id,
            list_id: l.list_id,
            data,
            timestamp: ts,
        }));
    }

    /// Sets the switch-wide digest cap (`--max-digest-rate`, data per second; 0: none).
    pub fn set_max_digest_rate(&self, max_rate: u64) {
        lock(&self.digests).set_max_rate(max_rate);
    }

    /// What became of the digests raised so far (sent, capped, suppressed).
    pub fn digest_stats(&self) -> DigestStats {
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        DigestStats {
            queue_overflow: self.switch.digests_overflowed(),
            no_pipeline: n(&self.lost.no_pipeline),
            stream_full: n(&self.lost.stream_full),
            no_primary: n(&self.lost.no_primary),
            ..lock(&self.digests).stats()
        }
    }

    /// Moves queued digests from the engine into lists and sends the lists
    /// that are due. Returns when the next list falls due (device clock, ns).
    pub fn pump_digests(&self) -> Option<u64> {
        let raised = self.switch.take_digests(4096);
        let schema = self.pipeline();
        let mut lists = Vec::new();
        let next = {
            let mut b = lock(&self.digests);
            let now = self.now_ns();
            match &schema {
                Some(p) => {
                    for d in raised {
                        let Some(id) = p.schema.digest_by_engine_name.get(&d.learn_list) else {
                            b.count_unconfigured(1); // the P4Info names no such digest
                            continue;
                        };
                        let data = d.values.iter().map(|v| canonical::canonical(v)).collect();
                        lists.extend(b.push(*id, data, now));
                    }
                }
                // a program from the command line: no P4Info, no digest config
                None => ServerStats::add(&self.lost.no_pipeline, raised.len() as u64),
            }
            lists.extend(b.tick(now));
            b.next_deadline()
        };
        for l in lists {
            self.send_list(l);
        }
        next
    }

    /// Whether the pipeline has tables with idle timeout.
    pub fn has_idle_tables(&self) -> bool {
        self.pipeline().map(|p| p.schema.tables.values().any(|t| t.supports_idle)).unwrap_or(false)
    }

    /// Sends IdleTimeoutNotifications for entries whose idle timeout elapsed.
    /// Waits for a Write in progress (the entries' books): call it from a
    /// thread that does not also take digests.
    pub fn pump_idle(&self) {
        let Some(p) = self.pipeline() else { return };
        let expired = self.switch.expired_entries();
        if expired.is_empty() {
            return;
        }
        let s = &p.schema;
        let books = lock(&self.books);
        let mut entries = Vec::with_capacity(expired.len());
        for x in expired {
            let Some(t) = s.table_by_name.get(&x.table).and_then(|id| s.tables.get(id)) else { continue };
            let ed = EntryData { entry: x.entry, counter: None, meter: None, is_const: false, idle_us: 0 };
            entries.push(Self::encode_entry(s, &books, t, &ed, &p4v1::TableEntry::default()));
        }
        drop(books);
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        self.send_to_primaries(Out::IdleTimeoutNotification(p4v1::IdleTimeoutNotification {
            table_entry: entries,
            timestamp: ts,
        }));
    }
}

/// Ends one change in flight (see [`Device::stop_changes`]).
struct ChangeGuard<'a>(&'a Device);

impl Drop for ChangeGuard<'_> {
    fn drop(&mut self) {
        let (count, ended) = &self.0.changing;
        *lock(count) -= 1;
        ended.notify_all();
    }
}

/// The entries a read names: all of them for the wildcard id 0, else the one with
/// that id (an unknown id is INVALID_ARGUMENT).
fn selected<'a, T>(map: &'a std::collections::BTreeMap<u32, T>, id: u32, kind: &str) -> RtResult<Vec<&'a T>> {
    if id == 0 {
        return Ok(map.values().collect());
    }
    map.get(&id).map(|v| vec![v]).ok_or_else(|| RtError::invalid(format!("unknown {kind} id {id}")))
}
/// The client knows which table its update named: a full table's message
/// drops the name, so that the per-update errors of a big batch stay small
/// (README, "Trailer size").
fn short_table_full(e: RtError) -> RtError {
    if e.code != tonic::Code::ResourceExhausted {
        return e;
    }
    match e.message.find(" is full") {
        Some(i) if e.message.starts_with("table ") => RtError::new(e.code, format!("table{}", &e.message[i..])),
        _ => e,
    }
}

