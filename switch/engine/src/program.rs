//! The compiled form of a BMv2 JSON program: every name resolved to an index,
//! every field to a slot of the flat per-packet header vector, every
//! expression and action to a compact tree/op list. Built by `loader`, run by
//! `exec`; nothing here is looked up by name on the packet path.

use num_bigint::BigInt;

use crate::types::{MatchKind, ProgramInfo};

/// A field's place in the header vector: `nlimbs` u64 slots starting at `slot`
/// (little-endian limbs for fields wider than 64 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSlot {
    pub slot: u32,
    pub width: u32,
    pub signed: bool,
    /// The header type's variable-length field (width = its maximum).
    pub varbit: bool,
}

impl FieldSlot {
    pub fn nlimbs(&self) -> usize {
        crate::bits::limbs(self.width)
    }
}

#[derive(Debug, Clone)]
pub struct HeaderType {
    pub name: String,
    /// (name, width, signed, varbit)
    pub fields: Vec<(String, u32, bool, bool)>,
}

#[derive(Debug, Clone)]
pub struct Header {
    pub name: String,
    pub type_idx: usize,
    pub metadata: bool,
    pub fields: Vec<FieldSlot>,
    /// Sum of the fixed-width fields' widths.
    pub fixed_bits: u32,
    /// Index (in `fields`) of the variable-length field, if any.
    pub varbit_field: Option<usize>,
    /// Union this header belongs to (index in `unions`).
    pub union: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct Stack {
    pub headers: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct Union {
    pub headers: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct UnionStack {
    pub unions: Vec<usize>,
}

// ----- expressions ---------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    And,
    Or,
    BAnd,
    BOr,
    BXor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    BNot,
    Neg,
    D2B,
    B2D,
}

/// A header reference that may be resolved at run time.
#[derive(Debug, Clone)]
pub enum HdrRef {
    Static(usize),
    /// stack[index]
    StackElem(usize, Box<Expr>),
    /// The last valid element of a stack (`stack.last`).
    StackLast(usize),
    /// Member `member` of a (possibly dynamic) union.
    UnionMember(Box<UnionRef>, usize),
    /// `cond ? a : b` over headers (p4c writes it as a primitive's parameter).
    Cond(Box<Expr>, Box<HdrRef>, Box<HdrRef>),
}

#[derive(Debug, Clone)]
pub enum UnionRef {
    Static(usize),
    StackElem(usize, Box<Expr>),
    StackLast(usize),
}

/// A compiled expression. Values are integers of unbounded precision
/// (booleans are 0/1); `exec` evaluates with i128 when `Prog` marked the
/// expression narrow and with BigInt otherwise.
#[derive(Debug, Clone)]
pub enum Expr {
    Const(i128),
    BigConst(Box<BigInt>),
    Field(FieldSlot),
    /// Field of a run-time resolved header: (header, field index in type).
    DynField(Box<HdrRef>, usize),
    /// Action parameter at limb offset `off` of the entry's data.
    Param { off: u32, width: u32 },
    Valid(HdrRef),
    UnionValid(UnionRef),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    TwoCompMod(Box<Expr>, u32),
    SatCast { signed: bool, e: Box<Expr>, width: u32 },
    StackLastIndex(usize),
    StackSize(usize),
    /// Parser lookahead: bits at offset `off` (bits) from the cursor.
    Lookahead { off: u32, width: u32 },
    /// A register cell read as a value (`{"type":"register"}`).
    Register { reg: usize, index: Box<Expr> },
}

/// A compiled expression with its evaluation mode.
#[derive(Debug, Clone)]
pub struct CExpr {
    /// The tree (boxed: keeps `CExpr` small).
    pub e: Box<Expr>,
    /// All intermediate values fit in i128: use the i128 evaluator.
    pub narrow: bool,
    /// Its number in the program (see [`number_exprs`]): the plan keeps its
    /// shortcut for this expression at this index. [`NO_ID`] if none.
    pub id: u32,
}

/// The id of an expression the plan has no shortcut for.
pub const NO_ID: u32 = u32::MAX;

impl CExpr {
    pub fn new(e: Expr, narrow: bool) -> CExpr {
        CExpr { e: Box::new(e), narrow, id: NO_ID }
    }
}

/// Calls `f` on every compiled expression of a program (actions, deparser
/// primitives, parser operations, conditions, checksum conditions), always
/// in the same order.
macro_rules! each_cexpr {
    ($name:ident $(, $m:tt)?) => {
        pub fn $name(p: &$($m)? Prog, f: &mut dyn FnMut(&$($m)? CExpr)) {
            fn prim(pr: &$($m)? Prim, f: &mut dyn FnMut(&$($m)? CExpr)) {
                match pr {
                    Prim::Assign { src, .. } => f(src),
                    Prim::Push { n, .. } | Prim::Pop { n, .. } | Prim::PushUnion { n, .. } | Prim::PopUnion { n, .. } => f(n),
                    Prim::JumpIfZero(x, _) | Prim::Truncate(x) | Prim::Assert(x) => f(x),
                    Prim::CloneI2E { session, .. } | Prim::CloneE2E { session, .. } => f(session),
                    Prim::RngUniform { lo, hi, .. } => {
                        f(lo);
                        f(hi)
                    }
                    Prim::HashOffset { base, size, .. } => {
                        f(base);
                        f(size)
                    }
                    Prim::RegisterRead { index, .. } | Prim::Count { index, .. } | Prim::ExecuteMeter { index, .. } => f(index),
                    Prim::RegisterWrite { index, src, .. } => {
                        f(index);
                        f(src)
                    }
                    Prim::LogMsg { args, .. } => args.into_iter().for_each(|a| f(a)),
                    _ => {}
                }
            }
            for a in &$($m)? p.actions {
                for pr in &$($m)? a.prims {
                    prim(pr, f);
                }
            }
            for pr in &$($m)? p.deparser_prims {
                prim(pr, f);
            }
            for ps in &$($m)? p.parsers {
                for st in &$($m)? ps.states {
                    for op in &$($m)? st.ops {
                        match op {
                            ParserOp::ExtractVL(_, x) | ParserOp::ExtractVLStack(_, x) | ParserOp::Set(_, x) | ParserOp::Advance(x) => f(x),
                            ParserOp::Verify(a, b) => {
                                f(a);
                                f(b)
                            }
                            ParserOp::Prim(pr) => prim(pr, f),
                            _ => {}
                        }
                    }
                }
            }
            for c in &$($m)? p.conds {
                f(&$($m)? c.expr);
            }
            for c in &$($m)? p.checksums {
                if let Some(x) = &$($m)? c.cond {
                    f(x);
                }
            }
        }
    };
}
each_cexpr!(each_cexpr);
each_cexpr!(each_cexpr_mut, mut);

/// Numbers every compiled expression 0, 1, ... (in [`each_cexpr`] order).
pub fn number_exprs(p: &mut Prog) {
    let mut n = 0u32;
    each_cexpr_mut(p, &mut |c| {
        c.id = n;
        n = n.saturating_add(1);
    });
}

/// Destination of an assignment.
#[derive(Debug, Clone)]
pub enum LValue {
    Field(FieldSlot),
    DynField(HdrRef, usize),
}

// ----- actions ---------------------------------------------------------------

#[derive(Debug, Clone)]
pub enum Prim {
    Assign { dst: LValue, src: CExpr },
    /// Assignments to a fixed field of at most 64 bits (slot, value already
    /// masked / mask of the destination width), split off `Assign` at load time.
    SetConst { slot: u32, v: u64 },
    Move { dst: u32, src: u32, mask: u64 },
    SetParam { dst: u32, off: u32, mask: u64 },
    /// The plan's assignment to a fixed field of at most 64 bits from any
    /// expression evaluated in i128 (`src.narrow`): stored truncated to `mask`.
    SetShort { dst: u32, mask: u64, src: CExpr },
    /// Same-width copy of limbs (fast path for wide fields).
    Copy { dst: FieldSlot, src: FieldSlot },
    /// Copy of a wide action parameter.
    CopyParam { dst: FieldSlot, off: u32 },
    AssignVL { dst: LValue, src: LValue },
    AssignHeader { dst: HdrRef, src: HdrRef },
    AssignUnion { dst: UnionRef, src: UnionRef },
    AssignStack { dst: usize, src: usize },
    AssignUnionStack { dst: usize, src: usize },
    SetValid(HdrRef, bool),
    Push { stack: usize, n: CExpr },
    Pop { stack: usize, n: CExpr },
    PushUnion { stack: usize, n: CExpr },
    PopUnion { stack: usize, n: CExpr },
    Jump(usize),
    JumpIfZero(CExpr, usize),
    Exit,
    MarkToDrop,
    CloneI2E { session: CExpr, field_list: Option<usize> },
    CloneE2E { session: CExpr, field_list: Option<usize> },
    Resubmit(Option<usize>),
    Recirculate(Option<usize>),
    Digest { learn_list: usize },
    RngUniform { dst: LValue, lo: CExpr, hi: CExpr },
    HashOffset { dst: LValue, base: CExpr, calc: usize, size: CExpr },
    RegisterRead { dst: LValue, reg: usize, index: CExpr },
    RegisterWrite { reg: usize, index: CExpr, src: CExpr },
    Count { ctr: usize, index: CExpr },
    ExecuteMeter { meter: usize, index: CExpr, dst: LValue },
    Truncate(CExpr),
    Assert(CExpr),
    LogMsg { fmt: String, args: Vec<CExpr> },
    /// Verify/update a checksum from a control (v1model externs lowered as
    /// primitives by some compilers).
    Nop,
}

#[derive(Debug, Clone)]
pub struct Action {
    pub name: String,
    pub id: u32,
    /// (name, width, limb offset in the action data)
    pub params: Vec<(String, u32, u32)>,
    /// Total limbs of action data.
    pub data_limbs: u32,
    pub prims: Vec<Prim>,
}

// ----- parsers -------------------------------------------------------------

#[derive(Debug, Clone)]
pub enum ParserOp {
    Extract(HdrRef),
    /// Extract to the next element of a stack.
    ExtractStack(usize),
    ExtractUnionStack(usize, usize),
    ExtractVL(HdrRef, CExpr),
    ExtractVLStack(usize, CExpr),
    Set(LValue, CExpr),
    Verify(CExpr, CExpr),
    /// Advance by a number of bits.
    Advance(CExpr),
    Prim(Prim),
    /// `PacketTooShort` unless this many bytes remain after the cursor (BMv2
    /// checks it before a `set` from a lookahead).
    Require(u32),
}

#[derive(Debug, Clone)]
pub enum KeyPart {
    Field(FieldSlot),
    DynField(HdrRef, usize),
    Lookahead { off: u32, width: u32 },
}

#[derive(Debug, Clone)]
pub enum TransValue {
    Default,
    /// Value and mask as little-endian limbs over the concatenated key
    /// (each key part byte-padded, as in the JSON).
    Hex { value: Vec<u64>, mask: Option<Vec<u64>> },
    Vset { vset: usize, mask: Option<Vec<u64>> },
}

#[derive(Debug, Clone)]
pub struct Transition {
    pub value: TransValue,
    pub next: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct ParseState {
    pub name: String,
    pub ops: Vec<ParserOp>,
    pub key: Vec<KeyPart>,
    /// Byte-padded bit width of each key part, and the total.
    pub key_widths: Vec<u32>,
    pub key_bits: u32,
    pub transitions: Vec<Transition>,
}

#[derive(Debug, Clone)]
pub struct Parser {
    pub name: String,
    pub init: Option<usize>,
    pub states: Vec<ParseState>,
}

#[derive(Debug, Clone)]
pub struct ValueSet {
    pub name: String,
    pub width: u32,
    pub max_size: u32,
}

// ----- pipelines -------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    Table(usize),
    Cond(usize),
    ActionCall(usize),
}

#[derive(Debug, Clone)]
pub enum KeySource {
    Field(FieldSlot),
    Valid(HdrRef),
}

#[derive(Debug, Clone)]
pub struct TableKey {
    pub name: String,
    pub kind: MatchKind,
    pub src: KeySource,
    pub width: u32,
    /// Static mask (little-endian limbs), if any.
    pub mask: Option<Vec<u64>>,
    /// Limb offset of this field in the lookup key.
    pub off: u32,
    pub nlimbs: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableImpl {
    /// All key fields exact (or no key).
    Exact,
    /// One lpm field, the others exact: longest prefix wins.
    Lpm,
    /// Ternary / range / optional: priority wins.
    Ternary,
}

#[derive(Debug, Clone)]
pub struct ConstEntry {
    pub key: Vec<crate::types::MatchKey>,
    pub action: usize,
    pub data: Vec<u64>,
    pub priority: i32,
}

#[derive(Debug, Clone)]
pub struct DefaultEntry {
    pub action: usize,
    pub data: Vec<u64>,
    pub is_const: bool,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub id: u32,
    pub keys: Vec<TableKey>,
    /// Selector inputs of an `indirect_ws` table come from the profile.
    pub key_limbs: u32,
    pub imp: TableImpl,
    pub needs_priority: bool,
    pub kind: crate::types::TableKind,
    pub profile: Option<usize>,
    pub actions: Vec<usize>,
    /// next node per action (indexed by action id in `Prog::actions`).
    pub next_by_action: Vec<(usize, Option<Node>)>,
    pub next_hit: Option<Option<Node>>,
    pub next_miss: Option<Option<Node>>,
    pub base_default_next: Option<Node>,
    pub default_entry: Option<DefaultEntry>,
    pub const_entries: Vec<ConstEntry>,
    pub has_const_entries: bool,
    pub max_size: u32,
    pub direct_counter: Option<usize>,
    pub direct_meter: Option<usize>,
    pub support_timeout: bool,
    /// No key, a const default action and nothing per entry (no direct
    /// counter/meter, no timeout, no profile): every apply runs
    /// `default_entry` without looking at the table state (p4c's `tbl_act*`).
    pub fixed_default: bool,
}

#[derive(Debug, Clone)]
pub struct Conditional {
    pub name: String,
    pub expr: CExpr,
    pub true_next: Option<Node>,
    pub false_next: Option<Node>,
}

#[derive(Debug, Clone)]
pub struct ActionCall {
    pub action: usize,
    pub next: Option<Node>,
}

#[derive(Debug, Clone)]
pub struct Pipeline {
    pub name: String,
    pub init: Option<Node>,
}

#[derive(Debug, Clone)]
pub struct ActionProfile {
    pub name: String,
    pub id: u32,
    pub size: u32,
    /// Selector: hash calculation over these fields.
    pub selector: Option<Selector>,
}

#[derive(Debug, Clone)]
pub struct Selector {
    pub algo: crate::hash::Algo,
    pub input: Vec<FieldSlot>,
}

// ----- externs / misc --------------------------------------------------------

#[derive(Debug, Clone)]
pub enum CalcInput {
    Field(FieldSlot),
    /// A whole header (all fields, only if valid).
    Header(usize),
    Const { value: Vec<u64>, width: u32 },
    Payload,
}

#[derive(Debug, Clone)]
pub struct Calculation {
    pub algo: crate::hash::Algo,
    pub input: Vec<CalcInput>,
    /// Header of each field input (for validity and payload position).
    pub input_headers: Vec<Option<usize>>,
}

#[derive(Debug, Clone)]
pub struct Checksum {
    pub target: FieldSlot,
    pub calc: usize,
    pub verify: bool,
    pub update: bool,
    pub cond: Option<CExpr>,
}

#[derive(Debug, Clone)]
pub struct FieldList {
    pub fields: Vec<FieldSlot>,
}

#[derive(Debug, Clone)]
pub struct LearnList {
    pub name: String,
    pub id: u32,
    pub fields: Vec<FieldSlot>,
}

#[derive(Debug, Clone)]
pub struct CounterArray {
    pub name: String,
    pub size: u32,
    pub direct_table: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct MeterArray {
    pub name: String,
    pub size: u32,
    pub bytes: bool,
    pub direct_table: Option<usize>,
    pub result_target: Option<FieldSlot>,
}

#[derive(Debug, Clone)]
pub struct RegisterArray {
    pub name: String,
    pub size: u32,
    pub width: u32,
}

/// Slots of `standard_metadata` fields the target reads and writes.
#[derive(Debug, Clone, Default)]
pub struct StdMeta {
    pub ingress_port: Option<FieldSlot>,
    pub egress_spec: Option<FieldSlot>,
    pub egress_port: Option<FieldSlot>,
    pub instance_type: Option<FieldSlot>,
    pub packet_length: Option<FieldSlot>,
    pub enq_timestamp: Option<FieldSlot>,
    pub enq_qdepth: Option<FieldSlot>,
    pub deq_timedelta: Option<FieldSlot>,
    pub deq_qdepth: Option<FieldSlot>,
    pub ingress_global_timestamp: Option<FieldSlot>,
    pub egress_global_timestamp: Option<FieldSlot>,
    pub mcast_grp: Option<FieldSlot>,
    pub egress_rid: Option<FieldSlot>,
    pub checksum_error: Option<FieldSlot>,
    pub parser_error: Option<FieldSlot>,
}

/// Parser error codes (values from the JSON's `errors`). No `NoMatch`: BMv2 never
/// raises it (a select with no matching case ends the parse, accepted).
#[derive(Debug, Clone, Copy)]
pub struct ErrorCodes {
    pub no_error: u64,
    pub packet_too_short: u64,
    pub stack_out_of_bounds: u64,
    pub header_too_short: u64,
    pub parser_timeout: u64,
    pub parser_invalid_argument: u64,
}

/// The whole compiled program.
pub struct Prog {
    pub info: ProgramInfo,
    pub headers: Vec<Header>,
    /// Per header: valid when a packet starts (the metadata headers), what
    /// `Pkt::reset` copies; one line instead of every `Header`'s.
    pub valid_at_start: Vec<bool>,
    pub stacks: Vec<Stack>,
    pub unions: Vec<Union>,
    pub union_stacks: Vec<UnionStack>,
    /// Total u64 slots of the header vector.
    pub nslots: usize,
    pub parsers: Vec<Parser>,
    pub value_sets: Vec<ValueSet>,
    /// Deparse order (header indices).
    pub deparse_order: Vec<usize>,
    pub deparser_prims: Vec<Prim>,
    pub actions: Vec<Action>,
    pub tables: Vec<Table>,
    pub conds: Vec<Conditional>,
    pub action_calls: Vec<ActionCall>,
    pub ingress: Pipeline,
    pub egress: Pipeline,
    pub profiles: Vec<ActionProfile>,
    pub calcs: Vec<Calculation>,
    pub checksums: Vec<Checksum>,
    pub field_lists: Vec<FieldList>,
    pub learn_lists: Vec<LearnList>,
    pub counters: Vec<CounterArray>,
    pub meters: Vec<MeterArray>,
    pub registers: Vec<RegisterArray>,
    pub std: StdMeta,
    pub errors: ErrorCodes,
    /// `@controller_header` layouts: (name, fields).
    pub controller_headers: Vec<(String, Vec<(String, u32)>)>,
}

impl Prog {
    pub fn controller_header(&self, name: &str) -> Option<Vec<(String, u32)>> {
        self.controller_headers.iter().find(|(n, _)| n == name).map(|(_, f)| f.clone())
    }
}
