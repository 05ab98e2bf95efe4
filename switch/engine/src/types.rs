//! The engine's shared vocabulary: plain data types used by every layer
//! (loader, program, tables, runtime) and by the engine's users through
//! [`crate::api`], which re-exports them. A leaf: it imports no engine module.

use std::fmt;

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
// Switch configuration
// ---------------------------------------------------------------------------

/// Switch configuration (simple_switch defaults: drop port 511, no CPU port).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchConfig {
    pub drop_port: u32,
    pub cpu_port: Option<u32>,
    pub device_id: u64,
    /// How packets run through the program (default: the compiled plan).
    pub exec: ExecMode,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig { drop_port: 511, cpu_port: None, device_id: 0, exec: ExecMode::Plan }
    }
}

/// The two execution paths of the engine; they must agree packet for packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecMode {
    /// The plan compiled from the program at load time (`plan`): resolved
    /// steps, straight-line field writes, per-table match structures.
    #[default]
    Plan,
    /// The reference: walks the program's nodes and expression trees.
    Interpreter,
}
