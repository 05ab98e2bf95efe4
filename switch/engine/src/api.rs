//! The engine contract: everything `p4switch` (ports, CLI, threads) and
//! `p4runtime-server` (P4Runtime gRPC) use from the engine.
//!
//! # Data plane
//! * [`load_program`] turns BMv2 JSON (format 2.x) into a compiled [`Program`]
//!   or a [`LoadError`] naming the JSON path at fault.
//! * A [`Switch`] (Send + Sync, share it with `Arc`) holds the current program
//!   and all runtime state (tables, externs, replication engine, digests).
//! * Each packet-processing thread owns a [`Worker`] (`switch.new_worker()`),
//!   which holds preallocated scratch buffers; [`Switch::process`] runs one frame
//!   through the whole v1model pipeline and calls `out(port, bytes)` once per
//!   transmitted packet.
//!
//! # Control plane
//! All names are BMv2 JSON names (equal to p4c's P4Info names). Values are
//! big-endian byte strings; the engine accepts any length as long as the value
//! fits the field width (leading zero bytes are fine) and returns full-width
//! bytes (`(bitwidth + 7) / 8` bytes). Updates are copy-on-write snapshots that
//! are published atomically: packets in flight see either the old or the new
//! table, never a half-written entry, and packet processing never waits on a
//! control-plane lock. A [`TableBatch`] stages many entry writes and
//! publishes each table touched once (the P4Runtime server's Write).
//!
//! Priorities in this API follow P4Runtime: a **higher** priority wins. Const
//! entries of the JSON (where a lower `priority` wins) are exposed as
//! `CONST_PRIORITY_BASE - json_priority`.
//!
//! # No-panic contract
//! No frame (short, long, malformed) and no JSON text can make these functions
//! panic, loop forever or read out of bounds: bad JSON is a [`LoadError`], bad
//! control-plane input an [`ApiError`], and a bad packet is handled as P4 says
//! (parser error / drop).

use std::fmt;
use std::sync::Arc;

use crate::runtime::Runtime;

pub use crate::stats::{MeterStats, PipelineStats, TableStats};
pub use crate::types::*;

/// The Internet checksum (RFC 1071) for the whole workspace: `csum16(data)`
/// is the complemented checksum, `ones_sum(data, acc)` the unfolded sum
/// (chain it over a pseudo-header and a payload), `fold16(sum)` its folded
/// 16-bit value.
pub mod internet_checksum {
    pub use crate::hash::{csum16, fold16, ones_sum};
}

/// Parses and compiles a BMv2 JSON program (format 2.x). Unknown constructs are
/// refused with the JSON path of the construct, and so is every shape BMv2's
/// loader refuses (see [`LoadOptions::bmv2_shapes`]).
pub fn load_program(json: &str) -> Result<Program, LoadError> {
    load_program_with(json, LoadOptions::default())
}

/// How [`load_program_with`] reads a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Refuse what BMv2 refuses (expression wrapping, `runtime_data` inside
    /// expressions, primitive parameter counts, clone/resubmit field lists
    /// without an entry, `assert` conditions that are booleans ...), so a
    /// program runs on p4switch only if it runs on BMv2. Default: true.
    pub bmv2_shapes: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { bmv2_shapes: true }
    }
}

/// [`load_program`] with options (e.g. the shapes of older p4compile output).
pub fn load_program_with(json: &str, opts: LoadOptions) -> Result<Program, LoadError> {
    let prog = crate::loader::load(json, opts.bmv2_shapes)?;
    Ok(Program { inner: Arc::new(prog) })
}

/// A compiled program (cheap to clone). Install it with [`Switch::set_program`].
#[derive(Clone)]
pub struct Program {
    pub(crate) inner: Arc<crate::program::Prog>,
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Program({} tables)", self.inner.info.tables.len())
    }
}

impl Program {
    /// Layout of the `@controller_header("packet_in" | "packet_out")` header:
    /// field names and bit widths in wire order (padding fields included).
    /// BMv2 JSON carries no annotations, so the header is found by name: a
    /// non-metadata header instance named `packet_in` / `packet_out` (or
    /// `*.packet_in`, `packet_in_header`), or whose type name starts with it.
    /// P4Info's `controller_packet_metadata` is authoritative where present.
    /// `None` if the program has no such header.
    pub fn controller_header(&self, name: &str) -> Option<Vec<(String, u32)>> {
        self.inner.controller_header(name)
    }

    /// Introspection of the program's control-plane objects.
    pub fn info(&self) -> &ProgramInfo {
        &self.inner.info
    }
}

// ---------------------------------------------------------------------------
// The switch
// ---------------------------------------------------------------------------

/// Per-thread scratch state for [`Switch::process`]; create with
/// [`Switch::new_worker`]. It adapts itself when the program changes.
pub struct Worker {
    pub(crate) inner: crate::exec::WorkerState,
}

impl Worker {
    /// Installs (or removes with `None`) a per-packet trace sink: it receives
    /// one line per parser state, condition, table lookup (hit / miss) and
    /// action run, and the text of `log_msg` calls. Without a sink tracing
    /// costs one branch per event.
    pub fn set_trace(&mut self, sink: Option<Box<dyn FnMut(&str) + Send>>) {
        self.inner.trace = sink;
    }
}

/// A software switch: the loaded program and all its runtime state.
pub struct Switch {
    pub(crate) config: SwitchConfig,
    pub(crate) rt: arc_swap::ArcSwapOption<Runtime>,
    pub(crate) clock: crate::runtime::Clock,
    pub(crate) digests: crate::runtime::DigestQueue,
}

impl Switch {
    fn host(&self) -> crate::exec::Host<'_> {
        crate::exec::Host { config: self.config, clock: &self.clock, digests: &self.digests }
    }
}

impl Switch {
    pub fn new(config: SwitchConfig) -> Switch {
        Switch {
            config,
            rt: arc_swap::ArcSwapOption::empty(),
            clock: crate::runtime::Clock::new(),
            digests: crate::runtime::DigestQueue::new(),
        }
    }

    pub fn config(&self) -> SwitchConfig {
        self.config
    }

    /// Atomically replaces the program; all tables, externs, replication state
    /// and queued digests are reset. Packets in flight finish on the old program.
    pub fn set_program(&self, program: Program) {
        let rt = Runtime::new(program.inner.clone());
        self.rt.store(Some(Arc::new(rt)));
        self.digests.clear();
    }

    pub fn has_program(&self) -> bool {
        self.rt.load().is_some()
    }

    /// The loaded program, if any.
    pub fn program(&self) -> Option<Program> {
        self.rt.load().as_ref().map(|rt| Program { inner: rt.prog.clone() })
    }

    /// Microseconds since the switch was created (the clock of
    /// `ingress_global_timestamp`).
    pub fn now_us(&self) -> u64 {
        self.clock.now_us()
    }

    /// New per-thread scratch state.
    pub fn new_worker(&self) -> Worker {
        Worker { inner: crate::exec::WorkerState::new() }
    }

    /// Runs one frame received on `ingress_port` through the whole pipeline
    /// (parser, ingress, traffic manager / replication, egress, deparser,
    /// including resubmit, recirculate and clones) and calls `out(port, bytes)`
    /// once per transmitted packet. Without a program the frame is dropped.
    pub fn process(
        &self,
        w: &mut Worker,
        ingress_port: u32,
        frame: &[u8],
        out: &mut dyn FnMut(u32, &[u8]),
    ) {
        if let Some(rt) = w.inner.pinned_rt.take() {
            crate::exec::process(&self.host(), &rt, &mut w.inner, ingress_port, frame, out);
            w.inner.pinned_rt = Some(rt);
            return;
        }
        let guard = self.rt.load();
        if let Some(rt) = guard.as_ref() {
            crate::exec::process(&self.host(), rt, &mut w.inner, ingress_port, frame, out);
        }
    }

    /// Pins the current program and a snapshot of every table to `w` for the
    /// packets it processes until [`Switch::unpin`]: one atomic load per table
    /// per batch instead of one per table per packet (tables that need no
    /// state on the packet path are skipped). Writes made meanwhile are
    /// seen after `unpin` (the next batch), and a writer that needs the old
    /// snapshot back waits until then, so keep batches short and unpin before
    /// the worker goes idle.
    pub fn pin(&self, w: &mut Worker) {
        self.unpin(w);
        let Some(rt) = self.rt.load_full() else { return };
        // Keyless const-default tables never read their state on the packet
        // path (`flow::Step::Fixed` / `Sets`): vrouter.p4 has ~120 of its 141.
        let fixed = |i: usize| rt.prog.tables.get(i).is_some_and(|t| t.fixed_default);
        w.inner.pinned_tables.extend(rt.tables.iter().enumerate().map(|(i, t)| (!fixed(i)).then(|| t.load_full())));
        w.inner.pinned_rt = Some(rt);
    }

    /// Releases what [`Switch::pin`] took.
    pub fn unpin(&self, w: &mut Worker) {
        w.inner.pinned_tables.clear();
        w.inner.pinned_rt = None;
    }

    /// Hits and misses of every table the packet path looks up, and the
    /// colours of every meter, since the program was loaded (summed over the
    /// workers; `None` without a program). Tables with no key and a constant
    /// default action are left out (nothing to look up).
    pub fn pipeline_stats(&self) -> Option<PipelineStats> {
        let rt = self.rt.load_full()?;
        let (tables, meters) = rt.stats.sums();
        let p = &rt.prog;
        Some(PipelineStats {
            tables: p
                .tables
                .iter()
                .zip(tables)
                .filter(|(t, _)| !t.fixed_default)
                .map(|(t, (hits, misses))| TableStats { name: t.name.clone(), hits, misses })
                .collect(),
            meters: p.meters.iter().zip(meters).map(|(m, colours)| MeterStats { name: m.name.clone(), colours }).collect(),
        })
    }

    pub(crate) fn rt(&self) -> ApiResult<Arc<Runtime>> {
        self.rt
            .load_full()
            .ok_or_else(|| ApiError::FailedPrecondition("no P4 program loaded".into()))
    }

    // ----- tables --------------------------------------------------------

    /// Inserts an entry. `AlreadyExists` if an entry with the same key (and
    /// priority, for tables with priorities) exists.
    pub fn table_insert(&self, table: &str, entry: TableEntry) -> ApiResult<()> {
        self.table_batch().insert(table, entry)
    }

    /// Replaces the action (and idle timeout) of the entry with the same key and
    /// priority; its counters are kept. `NotFound` if there is none.
    pub fn table_modify(&self, table: &str, entry: TableEntry) -> ApiResult<()> {
        self.table_batch().modify(table, entry)
    }

    /// Deletes the entry with this key and priority. `NotFound` if none.
    pub fn table_delete(&self, table: &str, key: &[MatchKey], priority: i32) -> ApiResult<()> {
        self.table_batch().delete(table, key, priority)
    }

    /// Table-entry writes published together (see [`TableBatch`]).
    pub fn table_batch(&self) -> TableBatch<'_> {
        TableBatch { sw: self, rt: None, touched: Vec::new() }
    }

    /// Deletes all non-const entries of a table.
    pub fn table_clear(&self, table: &str) -> ApiResult<()> {
        self.rt()?.table_clear(table)
    }

    /// All entries of a table (const entries included, flagged `is_const`).
    pub fn table_read(&self, table: &str) -> ApiResult<Vec<EntryData>> {
        self.rt()?.table_read(self.now_us(), table)
    }

    /// One entry by key and priority.
    pub fn table_read_one(&self, table: &str, key: &[MatchKey], priority: i32) -> ApiResult<EntryData> {
        self.rt()?.table_read_one(self.now_us(), table, key, priority)
    }

    /// Number of entries (const ones included).
    pub fn table_len(&self, table: &str) -> ApiResult<usize> {
        self.rt()?.table_len(table)
    }

    /// Sets the default action. `PermissionDenied` if it is const.
    pub fn table_set_default(&self, table: &str, action: EntryAction) -> ApiResult<()> {
        self.rt()?.table_set_default(table, action)
    }

    /// Restores the JSON's default action.
    pub fn table_reset_default(&self, table: &str) -> ApiResult<()> {
        self.rt()?.table_reset_default(table)
    }

    /// The current default action (`None`: the table has none; a miss is a no-op).
    pub fn table_get_default(&self, table: &str) -> ApiResult<Option<EntryAction>> {
        self.rt()?.table_get_default(table)
    }

    /// Writes the direct counter of one entry.
    pub fn table_write_counter(&self, table: &str, key: &[MatchKey], priority: i32, data: CounterData) -> ApiResult<()> {
        self.rt()?.table_write_counter(table, key, priority, data)
    }

    /// Configures (`Some`) or resets to unconfigured (`None`) the direct meter of
    /// one entry.
    pub fn table_set_meter(&self, table: &str, key: &[MatchKey], priority: i32, cfg: Option<MeterConfig>) -> ApiResult<()> {
        self.rt()?.table_set_meter(table, key, priority, cfg)
    }

    /// Entries whose idle timeout elapsed since their last hit and that were not
    /// reported yet (each expiry is reported once; a new hit re-arms it).
    pub fn expired_entries(&self) -> Vec<ExpiredEntry> {
        match self.rt() {
            Ok(rt) => rt.expired_entries(self.now_us()),
            Err(_) => Vec::new(),
        }
    }

    // ----- action profiles -------------------------------------------------

    pub fn member_add(&self, profile: &str, member: Member) -> ApiResult<()> {
        self.rt()?.member_add(profile, member)
    }
    pub fn member_modify(&self, profile: &str, member: Member) -> ApiResult<()> {
        self.rt()?.member_modify(profile, member)
    }
    /// `InvalidArgument` if a group or table entry still uses it.
    pub fn member_delete(&self, profile: &str, member_id: u32) -> ApiResult<()> {
        self.rt()?.member_delete(profile, member_id)
    }
    pub fn member_read(&self, profile: &str) -> ApiResult<Vec<Member>> {
        self.rt()?.member_read(profile)
    }
    pub fn group_add(&self, profile: &str, group: Group) -> ApiResult<()> {
        self.rt()?.group_add(profile, group)
    }
    pub fn group_modify(&self, profile: &str, group: Group) -> ApiResult<()> {
        self.rt()?.group_modify(profile, group)
    }
    pub fn group_delete(&self, profile: &str, group_id: u32) -> ApiResult<()> {
        self.rt()?.group_delete(profile, group_id)
    }
    pub fn group_read(&self, profile: &str) -> ApiResult<Vec<Group>> {
        self.rt()?.group_read(profile)
    }

    // ----- counters, meters, registers -----------------------------------

    /// Indirect counter cell.
    pub fn counter_read(&self, counter: &str, index: u32) -> ApiResult<CounterData> {
        self.rt()?.counter_read(counter, index)
    }
    pub fn counter_write(&self, counter: &str, index: u32, data: CounterData) -> ApiResult<()> {
        self.rt()?.counter_write(counter, index, data)
    }
    /// Configures (`Some`) or resets to unconfigured (`None`) an indirect meter cell.
    pub fn meter_set(&self, meter: &str, index: u32, cfg: Option<MeterConfig>) -> ApiResult<()> {
        self.rt()?.meter_set(meter, index, cfg)
    }
    /// `None` = unconfigured (always green).
    pub fn meter_get(&self, meter: &str, index: u32) -> ApiResult<Option<MeterConfig>> {
        self.rt()?.meter_get(meter, index)
    }
    /// Big-endian value, `(bitwidth + 7) / 8` bytes.
    pub fn register_read(&self, register: &str, index: u32) -> ApiResult<Vec<u8>> {
        self.rt()?.register_read(register, index)
    }
    pub fn register_write(&self, register: &str, index: u32, value: &[u8]) -> ApiResult<()> {
        self.rt()?.register_write(register, index, value)
    }
    /// Cells `cells` at once, atomic relative to the actions using the
    /// register (each single-cell call is too).
    pub fn register_read_cells(&self, register: &str, cells: std::ops::Range<u32>) -> ApiResult<Vec<Vec<u8>>> {
        self.rt()?.register_read_cells(register, cells)
    }
    pub fn register_write_cells(&self, register: &str, cells: std::ops::Range<u32>, value: &[u8]) -> ApiResult<()> {
        self.rt()?.register_write_cells(register, cells, value)
    }
    /// Sets every cell to 0.
    pub fn register_reset(&self, register: &str) -> ApiResult<()> {
        self.rt()?.register_reset(register)
    }

    // ----- packet replication engine -------------------------------------

    pub fn mc_group_create(&self, group: MulticastGroup) -> ApiResult<()> {
        self.rt()?.mc_group_create(group)
    }
    pub fn mc_group_modify(&self, group: MulticastGroup) -> ApiResult<()> {
        self.rt()?.mc_group_modify(group)
    }
    pub fn mc_group_delete(&self, group_id: u32) -> ApiResult<()> {
        self.rt()?.mc_group_delete(group_id)
    }
    /// All groups, sorted by id.
    pub fn mc_group_read(&self) -> ApiResult<Vec<MulticastGroup>> {
        self.rt()?.mc_group_read()
    }
    pub fn clone_session_create(&self, session: CloneSession) -> ApiResult<()> {
        self.rt()?.clone_session_create(session)
    }
    pub fn clone_session_modify(&self, session: CloneSession) -> ApiResult<()> {
        self.rt()?.clone_session_modify(session)
    }
    pub fn clone_session_delete(&self, session_id: u32) -> ApiResult<()> {
        self.rt()?.clone_session_delete(session_id)
    }
    /// All sessions, sorted by id.
    pub fn clone_session_read(&self) -> ApiResult<Vec<CloneSession>> {
        self.rt()?.clone_session_read()
    }

    // ----- parser value sets -----------------------------------------------

    /// Replaces the members of a parser value set: (value, optional mask), big-endian.
    pub fn value_set_write(&self, name: &str, values: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> ApiResult<()> {
        self.rt()?.value_set_write(name, values)
    }

    /// Members of a parser value set as (value, mask).
    pub fn value_set_read(&self, name: &str) -> ApiResult<Vec<(Vec<u8>, Vec<u8>)>> {
        self.rt()?.value_set_read(name)
    }

    // ----- digests ---------------------------------------------------------

    /// Takes up to `max` queued digests (oldest first).
    pub fn take_digests(&self, max: usize) -> Vec<Digest> {
        self.digests.take(max)
    }

    /// Digests dropped since start because nobody read the queue in time.
    pub fn digests_overflowed(&self) -> u64 {
        self.digests.overflowed()
    }

    /// Waits until at least one digest is queued or `timeout` elapses; returns
    /// whether digests are available.
    pub fn wait_digests(&self, timeout: std::time::Duration) -> bool {
        self.digests.wait(timeout)
    }
}

/// Table-entry inserts, modifies and deletes published together (one
/// P4Runtime Write): each is checked and applied at once to the writers' copy
/// of its table, so its result is final and the next one sees it (the direct
/// counter and meter of a staged entry can be written too), but packets and
/// reads see the tables as they were until [`TableBatch::publish`] (or the
/// drop of the batch) publishes each table touched with one swap. A batch of
/// N updates to a table costs one publish and one replay on the spare copy
/// instead of N. Any other write to a table publishes its staged changes as
/// well; write action profiles only after `publish` (their checks read the
/// published tables).
pub struct TableBatch<'a> {
    sw: &'a Switch,
    rt: Option<Arc<Runtime>>,
    touched: Vec<usize>,
}

impl TableBatch<'_> {
    /// The current runtime (a new program publishes what the old one staged).
    fn rt(&mut self) -> ApiResult<Arc<Runtime>> {
        let rt = self.sw.rt()?;
        if !self.rt.as_ref().is_some_and(|r| Arc::ptr_eq(r, &rt)) {
            self.publish();
            self.rt = Some(rt.clone());
        }
        Ok(rt)
    }

    fn touch(&mut self, t: usize) {
        if !self.touched.contains(&t) {
            self.touched.push(t);
        }
    }

    /// As [`Switch::table_insert`], published later.
    pub fn insert(&mut self, table: &str, entry: TableEntry) -> ApiResult<()> {
        let t = self.rt()?.table_insert(self.sw.now_us(), table, entry)?;
        self.touch(t);
        Ok(())
    }

    /// As [`Switch::table_modify`], published later.
    pub fn modify(&mut self, table: &str, entry: TableEntry) -> ApiResult<()> {
        let t = self.rt()?.table_modify(table, entry)?;
        self.touch(t);
        Ok(())
    }

    /// As [`Switch::table_delete`], published later.
    pub fn delete(&mut self, table: &str, key: &[MatchKey], priority: i32) -> ApiResult<()> {
        let t = self.rt()?.table_delete(table, key, priority)?;
        self.touch(t);
        Ok(())
    }

    /// Makes everything staged so far visible; the batch can go on.
    pub fn publish(&mut self) {
        if let Some(rt) = &self.rt {
            for t in self.touched.drain(..) {
                rt.publish(t);
            }
        }
    }
}

impl Drop for TableBatch<'_> {
    fn drop(&mut self) {
        self.publish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}

    #[test]
    fn switch_is_shareable_and_workers_movable() {
        send_sync::<Switch>();
        send_sync::<Program>();
        send::<Worker>();
    }

    #[test]
    fn load_error_display() {
        let e = LoadError { path: "pipelines[0].tables[3].key[1]".into(), reason: "unknown match_type \"foo\"".into() };
        assert_eq!(e.to_string(), "pipelines[0].tables[3].key[1]: unknown match_type \"foo\"");
    }
}
