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
//! control-plane lock.
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

/// Const entries' JSON priority `p` is exposed as `CONST_PRIORITY_BASE - p`.
pub const CONST_PRIORITY_BASE: i32 = 1 << 24;

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

/// A load-time error: the JSON path (`pipelines[0].tables[3].key[1]`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// JSON path of the offending construct (empty for a syntax error).
    pub path: String,
    /// Human-readable reason.
    pub reason: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for LoadError {}

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
// Introspection
// ---------------------------------------------------------------------------

/// Match kind of one table key field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Lpm,
    Ternary,
    Range,
    Optional,
    /// Selector input of an action selector (not part of the entry key).
    Selector,
    /// Legacy `valid` match (exact on a 1-bit validity).
    Valid,
}

/// One key field of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFieldInfo {
    /// Field name as in the JSON (`hdr.ipv4.dstAddr`; the JSON `name`, else the
    /// dotted target).
    pub name: String,
    pub match_kind: MatchKind,
    pub bitwidth: u32,
}

/// How a table gets its action: directly, or through an action profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Simple,
    /// `indirect`: action profile members.
    Indirect,
    /// `indirect_ws`: action profile with selector (members and groups).
    IndirectWs,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableInfo {
    pub name: String,
    pub id: u32,
    /// Key fields used for entries (selector fields excluded).
    pub keys: Vec<KeyFieldInfo>,
    /// Selector input fields (for `indirect_ws`).
    pub selector_keys: Vec<KeyFieldInfo>,
    pub kind: TableKind,
    /// Action names allowed in entries.
    pub actions: Vec<String>,
    /// The JSON's default action, if any.
    pub default_action: Option<ActionSpec>,
    /// The default action cannot be changed by the control plane.
    pub default_action_const: bool,
    /// The table's entries are const (`entries` in the JSON): writes are refused.
    pub has_const_entries: bool,
    pub max_size: u32,
    pub direct_counter: Option<String>,
    pub direct_meter: Option<String>,
    pub action_profile: Option<String>,
    pub support_timeout: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionInfo {
    pub name: String,
    pub id: u32,
    /// Parameter names and bit widths, in order.
    pub params: Vec<(String, u32)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionProfileInfo {
    pub name: String,
    pub id: u32,
    pub with_selector: bool,
    pub size: u32,
    /// Tables using this profile.
    pub tables: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterKind {
    Packets,
    Bytes,
    PacketsAndBytes,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterInfo {
    pub name: String,
    pub id: u32,
    pub size: u32,
    pub kind: CounterKind,
    /// `Some(table)` for a direct counter.
    pub direct_table: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeterUnit {
    Packets,
    Bytes,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeterInfo {
    pub name: String,
    pub id: u32,
    pub size: u32,
    pub unit: MeterUnit,
    /// `Some(table)` for a direct meter.
    pub direct_table: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterInfo {
    pub name: String,
    pub id: u32,
    pub size: u32,
    pub bitwidth: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnListInfo {
    pub name: String,
    pub id: u32,
    /// Field names and widths, in order.
    pub fields: Vec<(String, u32)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSetInfo {
    pub name: String,
    pub id: u32,
    pub max_size: u32,
    /// Widths of the value-set key parts.
    pub bitwidths: Vec<u32>,
}

/// Everything a control plane needs to know about a loaded program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProgramInfo {
    pub tables: Vec<TableInfo>,
    pub actions: Vec<ActionInfo>,
    pub action_profiles: Vec<ActionProfileInfo>,
    pub counters: Vec<CounterInfo>,
    pub meters: Vec<MeterInfo>,
    pub registers: Vec<RegisterInfo>,
    pub learn_lists: Vec<LearnListInfo>,
    pub value_sets: Vec<ValueSetInfo>,
}

impl ProgramInfo {
    pub fn table(&self, name: &str) -> Option<&TableInfo> {
        self.tables.iter().find(|t| t.name == name)
    }
    pub fn action(&self, name: &str) -> Option<&ActionInfo> {
        self.actions.iter().find(|a| a.name == name)
    }
}

// ---------------------------------------------------------------------------
// Control-plane values
// ---------------------------------------------------------------------------

/// Error kinds of control-plane calls (mapped 1:1 onto gRPC codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    AlreadyExists(String),
    NotFound(String),
    InvalidArgument(String),
    ResourceExhausted(String),
    /// E.g. writing a table with const entries, or a const default action.
    PermissionDenied(String),
    Unimplemented(String),
    /// No program loaded.
    FailedPrecondition(String),
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (k, m) = match self {
            ApiError::AlreadyExists(m) => ("already exists", m),
            ApiError::NotFound(m) => ("not found", m),
            ApiError::InvalidArgument(m) => ("invalid argument", m),
            ApiError::ResourceExhausted(m) => ("resource exhausted", m),
            ApiError::PermissionDenied(m) => ("permission denied", m),
            ApiError::Unimplemented(m) => ("unimplemented", m),
            ApiError::FailedPrecondition(m) => ("failed precondition", m),
        };
        write!(f, "{k}: {m}")
    }
}

impl std::error::Error for ApiError {}

/// Result of control-plane calls.
pub type ApiResult<T> = Result<T, ApiError>;

/// Match value of one key field (big-endian bytes).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MatchKey {
    Exact(Vec<u8>),
    /// Value and prefix length in bits.
    Lpm(Vec<u8>, u32),
    /// Value and mask.
    Ternary(Vec<u8>, Vec<u8>),
    /// Inclusive low and high bounds.
    Range(Vec<u8>, Vec<u8>),
    /// `Some(value)` = exact match, `None` = wildcard.
    Optional(Option<Vec<u8>>),
}

/// An action with its parameter values (big-endian, one per parameter in order).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActionSpec {
    pub action: String,
    pub params: Vec<Vec<u8>>,
}

/// What a table entry (or default entry) executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryAction {
    Action(ActionSpec),
    /// Action profile member id (indirect tables).
    Member(u32),
    /// Action selector group id (indirect_ws tables).
    Group(u32),
}

/// A table entry as written by the control plane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    /// One value per key field of [`TableInfo::keys`], in order. An empty key is
    /// only valid for keyless tables.
    pub key: Vec<MatchKey>,
    pub action: EntryAction,
    /// P4Runtime priority (higher wins); must be > 0 for tables with ternary,
    /// range or optional fields, and is ignored (use 0) otherwise.
    pub priority: i32,
    /// 0 = no idle timeout.
    pub idle_timeout_ns: u64,
}

/// Byte and packet counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterData {
    pub bytes: u64,
    pub packets: u64,
}

/// RFC 2698 meter configuration. Rates are per **second** (packets or bytes per
/// the meter's unit), bursts in packets or bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeterConfig {
    pub cir: u64,
    pub cburst: u64,
    pub pir: u64,
    pub pburst: u64,
}

/// A table entry read back from the switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryData {
    pub entry: TableEntry,
    /// Direct counter data, if the table has a direct counter.
    pub counter: Option<CounterData>,
    /// Direct meter config, if the table has a direct meter and it is configured.
    pub meter: Option<MeterConfig>,
    /// Entry comes from the JSON's const `entries`.
    pub is_const: bool,
    /// Microseconds (switch clock) since the entry was last hit (or inserted).
    pub idle_us: u64,
}

/// An action-profile member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub member_id: u32,
    pub action: ActionSpec,
}

/// An action-selector group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub group_id: u32,
    /// (member id, weight); weight >= 1.
    pub members: Vec<(u32, u32)>,
    /// 0 = unbounded.
    pub max_size: u32,
}

/// One copy made by the replication engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Replica {
    pub egress_port: u32,
    /// Replication id, seen by egress as `standard_metadata.egress_rid`.
    pub rid: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MulticastGroup {
    pub group_id: u32,
    pub replicas: Vec<Replica>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloneSession {
    pub session_id: u32,
    /// Usually one replica (the mirror port); more make multicast clones.
    pub replicas: Vec<Replica>,
    pub class_of_service: u32,
    /// Truncate clones to this many bytes; 0 = no truncation.
    pub packet_length_bytes: u32,
}

/// One digest raised by `generate_digest` / `digest()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub learn_list: String,
    pub id: u32,
    /// One big-endian value per learn-list field (full width).
    pub values: Vec<Vec<u8>>,
    /// Switch clock (microseconds) when raised.
    pub timestamp_us: u64,
}

/// An entry whose idle timeout elapsed (reported once per expiry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredEntry {
    pub table: String,
    pub entry: TableEntry,
}

// ---------------------------------------------------------------------------
// The switch
// ---------------------------------------------------------------------------

/// Switch configuration (simple_switch defaults: drop port 511, no CPU port).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchConfig {
    pub drop_port: u32,
    pub cpu_port: Option<u32>,
    pub device_id: u64,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig { drop_port: 511, cpu_port: None, device_id: 0 }
    }
}

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
            crate::exec::process(self, &rt, &mut w.inner, ingress_port, frame, out);
            w.inner.pinned_rt = Some(rt);
            return;
        }
        let guard = self.rt.load();
        if let Some(rt) = guard.as_ref() {
            crate::exec::process(self, rt, &mut w.inner, ingress_port, frame, out);
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

    pub(crate) fn rt(&self) -> ApiResult<Arc<Runtime>> {
        self.rt
            .load_full()
            .ok_or_else(|| ApiError::FailedPrecondition("no P4 program loaded".into()))
    }

    // ----- tables --------------------------------------------------------

    /// Inserts an entry. `AlreadyExists` if an entry with the same key (and
    /// priority, for tables with priorities) exists.
    pub fn table_insert(&self, table: &str, entry: TableEntry) -> ApiResult<()> {
        self.rt()?.table_insert(self.now_us(), table, entry)
    }

    /// Replaces the action (and idle timeout) of the entry with the same key and
    /// priority; its counters are kept. `NotFound` if there is none.
    pub fn table_modify(&self, table: &str, entry: TableEntry) -> ApiResult<()> {
        self.rt()?.table_modify(table, entry)
    }

    /// Deletes the entry with this key and priority. `NotFound` if none.
    pub fn table_delete(&self, table: &str, key: &[MatchKey], priority: i32) -> ApiResult<()> {
        self.rt()?.table_delete(table, key, priority)
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

    /// Waits until at least one digest is queued or `timeout` elapses; returns
    /// whether digests are available.
    pub fn wait_digests(&self, timeout: std::time::Duration) -> bool {
        self.digests.wait(timeout)
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
