//! BMv2 JSON (format 2.x) -> compiled [`Prog`]: this file holds the entry
//! point, the loader state and the final assembly; `loader/` one file per
//! JSON section.
//!
//! Every name is resolved here; anything the engine does not know is refused
//! with the JSON path of the construct (`LoadError`). Loading never panics on
//! any input text.

use std::collections::HashMap;

use num_bigint::BigInt;

use crate::types::*;
use crate::bits;
use crate::hash::Algo;
use crate::json::{J, LResult};
use crate::program::*;

// One file per JSON section, each an `impl L` block.
mod actions;
mod expr;
mod externs;
mod headers;
mod parser;
mod pipelines;

const TOP_KEYS: &[&str] = &[
    "header_types",
    "headers",
    "header_stacks",
    "header_union_types",
    "header_unions",
    "header_union_stacks",
    "field_lists",
    "errors",
    "enums",
    "parsers",
    "parse_vsets",
    "deparsers",
    "meter_arrays",
    "counter_arrays",
    "register_arrays",
    "calculations",
    "learn_lists",
    "actions",
    "pipelines",
    "checksums",
    "force_arith",
    "extern_instances",
    "field_aliases",
    "program",
    "__meta__",
];

/// Largest header vector (u64 slots) accepted; guards memory on hostile input.
const MAX_SLOTS: usize = 1 << 18;
/// Largest field width accepted (bits).
const MAX_WIDTH: u32 = 1 << 16;
/// Largest extern array size accepted.
const MAX_ARRAY: u64 = 1 << 22;
/// Largest register array storage accepted (u64 limbs).
const MAX_REG_LIMBS: u64 = 1 << 24;

/// Loads a program; `bmv2_shapes` first refuses what BMv2's loader refuses.
pub fn load(text: &str, bmv2_shapes: bool) -> Result<Prog, LoadError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| LoadError { path: String::new(), reason: format!("invalid JSON: {e}") })?;
    let root = J::root(&v);
    if !v.is_object() {
        return root.err("the program must be a JSON object");
    }
    if bmv2_shapes {
        crate::bmv2_shapes::check(&root)?;
    }
    L::new().load(&root)
}

#[derive(Default)]
struct L {
    header_types: Vec<HeaderType>,
    ht_by_name: HashMap<String, usize>,
    headers: Vec<Header>,
    hdr_by_name: HashMap<String, usize>,
    hdr_by_id: HashMap<u64, usize>,
    stacks: Vec<Stack>,
    stack_by_name: HashMap<String, usize>,
    unions: Vec<Union>,
    union_by_name: HashMap<String, usize>,
    union_by_id: HashMap<u64, usize>,
    union_types: HashMap<String, Vec<String>>,
    union_stacks: Vec<UnionStack>,
    ustack_by_name: HashMap<String, usize>,
    nslots: usize,
    aliases: HashMap<String, (String, String)>,
    errors: HashMap<String, u64>,
    registers: Vec<RegisterArray>,
    reg_by_name: HashMap<String, usize>,
    counters: Vec<CounterArray>,
    ctr_by_name: HashMap<String, usize>,
    ctr_binding: Vec<Option<String>>,
    meters: Vec<MeterArray>,
    mtr_by_name: HashMap<String, usize>,
    mtr_binding: Vec<Option<String>>,
    calcs: Vec<Calculation>,
    calc_by_name: HashMap<String, usize>,
    field_lists: Vec<FieldList>,
    fl_by_id: HashMap<u64, usize>,
    learn_lists: Vec<LearnList>,
    ll_by_id: HashMap<u64, usize>,
    vsets: Vec<ValueSet>,
    vset_by_name: HashMap<String, usize>,
    actions: Vec<Action>,
    act_by_id: HashMap<u64, usize>,
    act_by_name: HashMap<String, usize>,
}

/// Context of expression compilation: the action's runtime data.
#[derive(Clone, Copy)]
struct Ctx<'p> {
    params: &'p [(String, u32, u32)],
    parser: bool,
}

const NO_CTX: Ctx<'static> = Ctx { params: &[], parser: false };

enum FRef {
    Slot(FieldSlot),
    Valid(usize),
}

fn hex_to_big(j: &J) -> LResult<BigInt> {
    let s = j.str()?;
    match bits::parse_hexstr(s) {
        Some(v) => Ok(v),
        None => j.err(format!("invalid hexstr \"{s}\"")),
    }
}

/// A JSON value that is an integer either as a number or a hexstr.
fn int_value(j: &J) -> LResult<i64> {
    if let Some(n) = j.v.as_i64() {
        return Ok(n);
    }
    if let Some(s) = j.v.as_str() {
        if let Some(b) = bits::parse_hexstr(s).and_then(|b| bits::big_to_i128(&b)) {
            if let Ok(n) = i64::try_from(b) {
                return Ok(n);
            }
        }
    }
    j.err("expected an integer")
}

/// (result bits, max bits of any node) of an expression, saturating.
fn bound(e: &Expr, hdr_width: &dyn Fn(&HdrRef, usize) -> u32) -> (u32, u32) {
    use Expr::*;
    const BIG: u32 = 1 << 20;
    let r = match e {
        Const(v) => (128 - v.unsigned_abs().leading_zeros() + 1, 0),
        BigConst(b) => (b.bits().min(BIG as u64) as u32 + 1, 0),
        Field(f) => (f.width + f.signed as u32, 0),
        DynField(h, i) => (hdr_width(h, *i), 0),
        Param { width, .. } => (*width, 0),
        Valid(_) | UnionValid(_) => (1, 0),
        StackLastIndex(_) | StackSize(_) => (33, 0),
        Lookahead { width, .. } => (*width, 0),
        Register { .. } => (BIG, 0),
        Unary(op, a) => {
            let (ab, am) = bound(a, hdr_width);
            let rb = match op {
                UnOp::Not | UnOp::D2B | UnOp::B2D => 1,
                UnOp::BNot | UnOp::Neg => ab + 1,
            };
            (rb, am.max(ab))
        }
        Binary(op, a, b) => {
            let (ab, am) = bound(a, hdr_width);
            let (bb, bm) = bound(b, hdr_width);
            let rb = match op {
                BinOp::Add | BinOp::Sub => ab.max(bb) + 1,
                BinOp::Mul => ab.saturating_add(bb),
                BinOp::Div | BinOp::Mod => ab.max(bb),
                BinOp::Shl => {
                    let maxshift = match &**b {
                        Const(v) if *v >= 0 && *v < BIG as i128 => *v as u32,
                        _ if bb < 11 => (1u32 << bb) - 1,
                        _ => BIG,
                    };
                    ab.saturating_add(maxshift)
                }
                BinOp::Shr => ab,
                BinOp::BAnd => ab.min(bb).max(1),
                BinOp::BOr | BinOp::BXor => ab.max(bb),
                _ => 1,
            };
            (rb.min(BIG), am.max(bm).max(ab).max(bb))
        }
        Cond(c, a, b) => {
            let (cb, cm) = bound(c, hdr_width);
            let (ab, am) = bound(a, hdr_width);
            let (bb, bm) = bound(b, hdr_width);
            (ab.max(bb), cm.max(am).max(bm).max(cb))
        }
        TwoCompMod(a, w) => {
            let (ab, am) = bound(a, hdr_width);
            (*w + 1, am.max(ab))
        }
        SatCast { e, width, .. } => {
            let (ab, am) = bound(e, hdr_width);
            (*width + 1, am.max(ab))
        }
    };
    (r.0, r.1.max(r.0))
}

impl L {
    fn new() -> L {
        L::default()
    }

    fn std_meta(&self) -> StdMeta {
        let f = |name: &str| -> Option<FieldSlot> {
            let alias = ["standard_metadata", "intrinsic_metadata", "queueing_metadata"]
                .iter()
                .find_map(|p| self.aliases.get(&format!("{p}.{name}")));
            let (h, fname) = match alias {
                Some((h, f)) => (h.clone(), f.clone()),
                None => ("standard_metadata".to_string(), name.to_string()),
            };
            let hi = *self.hdr_by_name.get(&h)?;
            let k = self.field_in_type(self.headers[hi].type_idx, &fname)?;
            Some(self.headers[hi].fields[k])
        };
        StdMeta {
            ingress_port: f("ingress_port"),
            egress_spec: f("egress_spec"),
            egress_port: f("egress_port"),
            instance_type: f("instance_type"),
            packet_length: f("packet_length"),
            enq_timestamp: f("enq_timestamp"),
            enq_qdepth: f("enq_qdepth"),
            deq_timedelta: f("deq_timedelta"),
            deq_qdepth: f("deq_qdepth"),
            ingress_global_timestamp: f("ingress_global_timestamp"),
            egress_global_timestamp: f("egress_global_timestamp"),
            mcast_grp: f("mcast_grp"),
            egress_rid: f("egress_rid"),
            checksum_error: f("checksum_error"),
            parser_error: f("parser_error"),
        }
    }

    fn load(mut self, root: &J) -> Result<Prog, LoadError> {
        let Some(obj) = root.v.as_object() else { return root.err("expected an object") };
        for k in obj.keys() {
            if !TOP_KEYS.contains(&k.as_str()) {
                return root.get(k)?.err(format!("unknown top-level attribute \"{k}\""));
            }
        }
        if let Some(meta) = root.opt("__meta__") {
            if let Some(ver) = meta.opt("version") {
                let v = ver.arr()?;
                let major = v.first().map(|m| m.u64()).transpose()?;
                if major != Some(2) {
                    return ver.err("unsupported BMv2 JSON format version (need 2.x)");
                }
            }
        }
        self.load_headers(root)?;
        self.load_externs(root)?;
        self.load_actions(root)?;
        let mut parsers = Vec::new();
        for p in root.arr_opt("parsers")? {
            parsers.push(self.load_parser(&p)?);
        }
        let mut deparse_order = Vec::new();
        let mut deparser_prims = Vec::new();
        let deps = root.arr_opt("deparsers")?;
        if let Some(d) = deps.first() {
            for h in d.get("order")?.arr()? {
                deparse_order.push(self.header(&h)?);
            }
            for p in d.arr_opt("primitives")? {
                deparser_prims.push(self.prim(&p, NO_CTX)?);
            }
        }
        let (tables, conds, action_calls, profiles, pipes) = self.load_pipelines(root)?;
        let table_idx = |n: &str| tables.iter().position(|t| t.name == n);
        for (i, b) in self.ctr_binding.iter().enumerate() {
            if let Some(b) = b {
                match table_idx(b) {
                    Some(t) => self.counters[i].direct_table = Some(t),
                    None => {
                        return root.get("counter_arrays")?.err(format!("direct counter bound to unknown table \"{b}\""))
                    }
                }
            }
        }
        for (i, b) in self.mtr_binding.iter().enumerate() {
            if let Some(b) = b {
                match table_idx(b) {
                    Some(t) => self.meters[i].direct_table = Some(t),
                    None => return root.get("meter_arrays")?.err(format!("direct meter bound to unknown table \"{b}\"")),
                }
            }
        }
        let mut checksums = Vec::new();
        for c in root.arr_opt("checksums")? {
            let cj = c.get("calculation")?;
            let cn = cj.str()?;
            let Some(&calc) = self.calc_by_name.get(cn) else {
                return cj.err(format!("unknown calculation \"{cn}\""));
            };
            if let Some(t) = c.opt("type") {
                if t.str()? != "generic" && t.str()? != "ipv4" {
                    return t.err("unknown checksum type");
                }
            }
            checksums.push(Checksum {
                target: self.field_slot(&c.get("target")?)?,
                calc,
                verify: c.bool_or("verify", true)?,
                update: c.bool_or("update", true)?,
                cond: match c.opt("if_cond") {
                    Some(e) => Some(self.cexpr(&e, NO_CTX)?),
                    None => None,
                },
            });
        }
        let ingress = pipes
            .iter()
            .find(|p| p.name == "ingress")
            .or_else(|| pipes.first())
            .cloned()
            .unwrap_or(Pipeline { name: "ingress".into(), init: None });
        let egress = pipes
            .iter()
            .find(|p| p.name == "egress")
            .or_else(|| pipes.get(1))
            .cloned()
            .unwrap_or(Pipeline { name: "egress".into(), init: None });
        let e = |n: &str, d: u64| self.errors.get(n).copied().unwrap_or(d);
        let errors = ErrorCodes {
            no_error: e("NoError", 0),
            packet_too_short: e("PacketTooShort", 1),
            stack_out_of_bounds: e("StackOutOfBounds", 3),
            header_too_short: e("HeaderTooShort", 4),
            parser_timeout: e("ParserTimeout", 5),
            parser_invalid_argument: e("ParserInvalidArgument", 6),
        };
        let std = self.std_meta();
        // Controller headers: header instances named/typed packet_in / packet_out.
        let mut controller_headers = Vec::new();
        for which in ["packet_in", "packet_out"] {
            let found = self.headers.iter().find(|h| {
                !h.metadata && {
                    let last = h.name.rsplit('.').next().unwrap_or(&h.name);
                    let tn = &self.header_types[h.type_idx].name;
                    last == which || last == format!("{which}_header") || tn.starts_with(which)
                }
            });
            if let Some(h) = found {
                let fields = self.header_types[h.type_idx].fields.iter().map(|f| (f.0.clone(), f.1)).collect();
                controller_headers.push((which.to_string(), fields));
            }
        }
        let info = self.info(&tables, &profiles);
        let mut prog = Prog {
            info,
            valid_at_start: self.headers.iter().map(|h| h.metadata).collect(),
            headers: self.headers,
            stacks: self.stacks,
            unions: self.unions,
            union_stacks: self.union_stacks,
            nslots: self.nslots,
            parsers,
            value_sets: self.vsets,
            deparse_order,
            deparser_prims,
            actions: self.actions,
            tables,
            conds,
            action_calls,
            ingress,
            egress,
            profiles,
            calcs: self.calcs,
            checksums,
            field_lists: self.field_lists,
            learn_lists: self.learn_lists,
            counters: self.counters,
            meters: self.meters,
            registers: self.registers,
            std,
            errors,
            controller_headers,
        };
        number_exprs(&mut prog);
        Ok(prog)
    }

    fn info(&self, tables: &[Table], profiles: &[ActionProfile]) -> ProgramInfo {
        let spec = |act: usize, data: &[u64]| -> ActionSpec {
            let a = &self.actions[act];
            ActionSpec {
                action: a.name.clone(),
                params: a
                    .params
                    .iter()
                    .map(|p| {
                        let o = p.2 as usize;
                        bits::limbs_to_bytes(data.get(o..).unwrap_or(&[]), p.1)
                    })
                    .collect(),
            }
        };
        let mut info = ProgramInfo::default();
        for t in tables {
            let prof = t.profile.map(|p| &profiles[p]);
            let selector_keys = prof
                .and_then(|p| p.selector.as_ref())
                .map(|s| {
                    s.input
                        .iter()
                        .map(|f| KeyFieldInfo { name: self.slot_name(f.slot), match_kind: MatchKind::Selector, bitwidth: f.width })
                        .collect()
                })
                .unwrap_or_default();
            info.tables.push(TableInfo {
                name: t.name.clone(),
                id: t.id,
                keys: t.keys.iter().map(|k| KeyFieldInfo { name: k.name.clone(), match_kind: k.kind, bitwidth: k.width }).collect(),
                selector_keys,
                kind: t.kind,
                actions: t.actions.iter().map(|&a| self.actions[a].name.clone()).collect(),
                default_action: t.default_entry.as_ref().map(|d| spec(d.action, &d.data)),
                default_action_const: t.default_entry.as_ref().is_some_and(|d| d.is_const),
                has_const_entries: t.has_const_entries,
                max_size: t.max_size,
                direct_counter: t.direct_counter.map(|c| self.counters[c].name.clone()),
                direct_meter: t.direct_meter.map(|m| self.meters[m].name.clone()),
                action_profile: prof.map(|p| p.name.clone()),
                support_timeout: t.support_timeout,
            });
        }
        for a in &self.actions {
            if info.actions.iter().any(|x: &ActionInfo| x.name == a.name) {
                continue;
            }
            info.actions.push(ActionInfo {
                name: a.name.clone(),
                id: a.id,
                params: a.params.iter().map(|p| (p.0.clone(), p.1)).collect(),
            });
        }
        for p in profiles {
            info.action_profiles.push(ActionProfileInfo {
                name: p.name.clone(),
                id: p.id,
                with_selector: p.selector.is_some(),
                size: p.size,
                tables: tables.iter().filter(|t| t.profile.map(|x| profiles[x].name == p.name) == Some(true)).map(|t| t.name.clone()).collect(),
            });
        }
        for (i, c) in self.counters.iter().enumerate() {
            info.counters.push(CounterInfo {
                name: c.name.clone(),
                id: i as u32,
                size: c.size,
                kind: CounterKind::PacketsAndBytes,
                direct_table: c.direct_table.map(|t| tables[t].name.clone()),
            });
        }
        for (i, m) in self.meters.iter().enumerate() {
            info.meters.push(MeterInfo {
                name: m.name.clone(),
                id: i as u32,
                size: m.size,
                unit: if m.bytes { MeterUnit::Bytes } else { MeterUnit::Packets },
                direct_table: m.direct_table.map(|t| tables[t].name.clone()),
            });
        }
        for (i, r) in self.registers.iter().enumerate() {
            info.registers.push(RegisterInfo { name: r.name.clone(), id: i as u32, size: r.size, bitwidth: r.width });
        }
        for l in &self.learn_lists {
            info.learn_lists.push(LearnListInfo {
                name: l.name.clone(),
                id: l.id,
                fields: l.fields.iter().map(|f| (self.slot_name(f.slot), f.width)).collect(),
            });
        }
        for (i, v) in self.vsets.iter().enumerate() {
            info.value_sets.push(ValueSetInfo { name: v.name.clone(), id: i as u32, max_size: v.max_size, bitwidths: vec![v.width] });
        }
        info
    }

    fn slot_name(&self, slot: u32) -> String {
        for h in &self.headers {
            for (k, f) in h.fields.iter().enumerate() {
                if f.slot == slot {
                    return format!("{}.{}", h.name, self.header_types[h.type_idx].fields[k].0);
                }
            }
        }
        String::new()
    }
}
