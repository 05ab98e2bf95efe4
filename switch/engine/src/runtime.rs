//! Runtime state of a loaded program (stub, being written).
use std::sync::Arc;
use crate::api::*;
use crate::program::Prog;

pub struct Runtime { pub prog: Arc<Prog> }

impl Runtime {
    pub fn new(prog: Arc<Prog>, _cfg: SwitchConfig) -> Runtime { Runtime { prog } }
    pub fn expired_entries(&self, _now: u64) -> Vec<ExpiredEntry> { Vec::new() }
    pub fn table_insert(&self, _now: u64, _table: &str, _entry: TableEntry) -> ApiResult<()> { Err(ApiError::Unimplemented("table_insert".into())) }
    pub fn table_modify(&self, _table: &str, _entry: TableEntry) -> ApiResult<()> { Err(ApiError::Unimplemented("table_modify".into())) }
    pub fn table_delete(&self, _table: &str, _key: &[MatchKey], _priority: i32) -> ApiResult<()> { Err(ApiError::Unimplemented("table_delete".into())) }
    pub fn table_clear(&self, _table: &str) -> ApiResult<()> { Err(ApiError::Unimplemented("table_clear".into())) }
    pub fn table_read(&self, _now: u64, _table: &str) -> ApiResult<Vec<EntryData>> { Err(ApiError::Unimplemented("table_read".into())) }
    pub fn table_read_one(&self, _now: u64, _table: &str, _key: &[MatchKey], _priority: i32) -> ApiResult<EntryData> { Err(ApiError::Unimplemented("table_read_one".into())) }
    pub fn table_len(&self, _table: &str) -> ApiResult<usize> { Err(ApiError::Unimplemented("table_len".into())) }
    pub fn table_set_default(&self, _table: &str, _action: EntryAction) -> ApiResult<()> { Err(ApiError::Unimplemented("table_set_default".into())) }
    pub fn table_reset_default(&self, _table: &str) -> ApiResult<()> { Err(ApiError::Unimplemented("table_reset_default".into())) }
    pub fn table_get_default(&self, _table: &str) -> ApiResult<Option<EntryAction>> { Err(ApiError::Unimplemented("table_get_default".into())) }
    pub fn table_write_counter(&self, _table: &str, _key: &[MatchKey], _priority: i32, _data: CounterData) -> ApiResult<()> { Err(ApiError::Unimplemented("table_write_counter".into())) }
    pub fn table_set_meter(&self, _table: &str, _key: &[MatchKey], _priority: i32, _cfg: Option<MeterConfig>) -> ApiResult<()> { Err(ApiError::Unimplemented("table_set_meter".into())) }
    pub fn member_add(&self, _profile: &str, _member: Member) -> ApiResult<()> { Err(ApiError::Unimplemented("member_add".into())) }
    pub fn member_modify(&self, _profile: &str, _member: Member) -> ApiResult<()> { Err(ApiError::Unimplemented("member_modify".into())) }
    pub fn member_delete(&self, _profile: &str, _member_id: u32) -> ApiResult<()> { Err(ApiError::Unimplemented("member_delete".into())) }
    pub fn member_read(&self, _profile: &str) -> ApiResult<Vec<Member>> { Err(ApiError::Unimplemented("member_read".into())) }
    pub fn group_add(&self, _profile: &str, _group: Group) -> ApiResult<()> { Err(ApiError::Unimplemented("group_add".into())) }
    pub fn group_modify(&self, _profile: &str, _group: Group) -> ApiResult<()> { Err(ApiError::Unimplemented("group_modify".into())) }
    pub fn group_delete(&self, _profile: &str, _group_id: u32) -> ApiResult<()> { Err(ApiError::Unimplemented("group_delete".into())) }
    pub fn group_read(&self, _profile: &str) -> ApiResult<Vec<Group>> { Err(ApiError::Unimplemented("group_read".into())) }
    pub fn counter_read(&self, _counter: &str, _index: u32) -> ApiResult<CounterData> { Err(ApiError::Unimplemented("counter_read".into())) }
    pub fn counter_write(&self, _counter: &str, _index: u32, _data: CounterData) -> ApiResult<()> { Err(ApiError::Unimplemented("counter_write".into())) }
    pub fn meter_set(&self, _meter: &str, _index: u32, _cfg: Option<MeterConfig>) -> ApiResult<()> { Err(ApiError::Unimplemented("meter_set".into())) }
    pub fn meter_get(&self, _meter: &str, _index: u32) -> ApiResult<Option<MeterConfig>> { Err(ApiError::Unimplemented("meter_get".into())) }
    pub fn register_read(&self, _register: &str, _index: u32) -> ApiResult<Vec<u8>> { Err(ApiError::Unimplemented("register_read".into())) }
    pub fn register_write(&self, _register: &str, _index: u32, _value: &[u8]) -> ApiResult<()> { Err(ApiError::Unimplemented("register_write".into())) }
    pub fn register_reset(&self, _register: &str) -> ApiResult<()> { Err(ApiError::Unimplemented("register_reset".into())) }
    pub fn mc_group_create(&self, _group: MulticastGroup) -> ApiResult<()> { Err(ApiError::Unimplemented("mc_group_create".into())) }
    pub fn mc_group_modify(&self, _group: MulticastGroup) -> ApiResult<()> { Err(ApiError::Unimplemented("mc_group_modify".into())) }
    pub fn mc_group_delete(&self, _group_id: u32) -> ApiResult<()> { Err(ApiError::Unimplemented("mc_group_delete".into())) }
    pub fn mc_group_read(&self, ) -> ApiResult<Vec<MulticastGroup>> { Err(ApiError::Unimplemented("mc_group_read".into())) }
    pub fn clone_session_create(&self, _session: CloneSession) -> ApiResult<()> { Err(ApiError::Unimplemented("clone_session_create".into())) }
    pub fn clone_session_modify(&self, _session: CloneSession) -> ApiResult<()> { Err(ApiError::Unimplemented("clone_session_modify".into())) }
    pub fn clone_session_delete(&self, _session_id: u32) -> ApiResult<()> { Err(ApiError::Unimplemented("clone_session_delete".into())) }
    pub fn clone_session_read(&self, ) -> ApiResult<Vec<CloneSession>> { Err(ApiError::Unimplemented("clone_session_read".into())) }
}
/// Monotonic microsecond clock of the switch.
pub struct Clock {
    start: std::time::Instant,
}

impl Clock {
    pub fn new() -> Clock {
        Clock { start: std::time::Instant::now() }
    }
    pub fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
}

/// Queue of digests raised by packets, with a condvar for waiters.
pub struct DigestQueue {
    q: std::sync::Mutex<std::collections::VecDeque<Digest>>,
    cv: std::sync::Condvar,
}

/// Digests kept at most; older ones are dropped when the runtime does not read.
pub const DIGEST_QUEUE_MAX: usize = 65536;

impl DigestQueue {
    pub fn new() -> DigestQueue {
        DigestQueue { q: Default::default(), cv: std::sync::Condvar::new() }
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
