//! BMv2 JSON (format 2.x) -> compiled [`Prog`].
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
/// An assignment to a fixed field of at most 64 bits from a constant, an
/// unsigned field or an action parameter, as one of the short primitives.
fn small_assign(dst: &LValue, src: &CExpr) -> Option<Prim> {
    use crate::fast::Fast;
    let LValue::Field(d) = dst else { return None };
    if d.width > 64 || d.varbit {
        return None;
    }
    let m = bits::mask64(d.width);
    Some(match src.fast {
        Fast::Const(v) => Prim::SetConst { slot: d.slot, v: v as u64 & m },
        Fast::Field(s) => Prim::Move { dst: d.slot, src: s, mask: m },
        Fast::Param { off, mask } => Prim::SetParam { dst: d.slot, off, mask: mask & m },
        _ => return None,
    })
}

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

    // ----- headers -----------------------------------------------------------

    fn load_headers(&mut self, root: &J) -> LResult<()> {
        for (i, t) in root.arr_opt("header_types")?.into_iter().enumerate() {
            let name = t.name()?.to_string();
            let mut fields = Vec::new();
            let mut nvar = 0;
            for f in t.get("fields")?.arr()? {
                let parts = f.arr()?;
                if parts.len() < 2 || parts.len() > 3 {
                    return f.err("a field must be [name, width] or [name, width, signed]");
                }
                let fname = parts[0].str()?.to_string();
                let (w, var) = if parts[1].v.as_str() == Some("*") {
                    nvar += 1;
                    (0, true)
                } else {
                    let w = parts[1].u32()?;
                    if w == 0 || w > MAX_WIDTH {
                        return parts[1].err(format!("field width {w} out of range 1..={MAX_WIDTH}"));
                    }
                    (w, false)
                };
                let signed = if parts.len() == 3 { parts[2].flag()? } else { false };
                fields.push((fname, w, signed, var));
            }
            if nvar > 1 {
                return t.err("more than one variable-length field");
            }
            if nvar == 1 {
                let fixed: u32 = fields.iter().map(|f| f.1).sum();
                let max_len = match t.opt("max_length") {
                    Some(m) => m.u32()?,
                    None => return t.err("header type with a variable-length field needs \"max_length\""),
                };
                let maxbits = max_len.saturating_mul(8);
                if maxbits < fixed || maxbits - fixed > MAX_WIDTH {
                    return t.get("max_length")?.err("max_length too small or too large for the fields");
                }
                for f in fields.iter_mut() {
                    if f.3 {
                        f.1 = (maxbits - fixed).max(1);
                    }
                }
            }
            if let Some(le) = t.opt("length_exp") {
                return le.err("length_exp (P4_14 variable-length headers) is not supported; use extract_VL");
            }
            self.ht_by_name.insert(name.clone(), i);
            self.header_types.push(HeaderType { name, fields });
        }
        for h in root.arr_opt("headers")? {
            let name = h.name()?.to_string();
            let tname = h.get("header_type")?.str()?;
            let Some(&ti) = self.ht_by_name.get(tname) else {
                return h.get("header_type")?.err(format!("unknown header type \"{tname}\""));
            };
            let metadata = h.bool_or("metadata", false)?;
            let ty = &self.header_types[ti];
            let mut fields = Vec::new();
            let mut fixed = 0;
            let mut var = None;
            for (k, f) in ty.fields.iter().enumerate() {
                let fs = FieldSlot { slot: self.nslots as u32, width: f.1, signed: f.2, varbit: f.3 };
                self.nslots += fs.nlimbs();
                if f.3 {
                    var = Some(k);
                } else {
                    fixed += f.1;
                }
                fields.push(fs);
            }
            if self.nslots > MAX_SLOTS {
                return h.err("program too large (header vector exceeds the limit)");
            }
            let idx = self.headers.len();
            if self.hdr_by_name.insert(name.clone(), idx).is_some() {
                return h.get("name")?.err(format!("duplicate header \"{name}\""));
            }
            if let Some(id) = h.opt("id") {
                self.hdr_by_id.insert(id.u64()?, idx);
            }
            self.headers.push(Header {
                name,
                type_idx: ti,
                metadata,
                fields,
                fixed_bits: fixed,
                varbit_field: var,
                union: None,
            });
        }
        for s in root.arr_opt("header_stacks")? {
            let name = s.name()?.to_string();
            let mut hs = Vec::new();
            for id in s.get("header_ids")?.arr()? {
                match self.hdr_by_id.get(&id.u64()?) {
                    Some(&h) => hs.push(h),
                    None => return id.err("unknown header id"),
                }
            }
            self.stack_by_name.insert(name, self.stacks.len());
            self.stacks.push(Stack { headers: hs });
        }
        for t in root.arr_opt("header_union_types")? {
            let name = t.name()?.to_string();
            let mut members = Vec::new();
            for m in t.get("headers")?.arr()? {
                let p = m.arr()?;
                match p.first() {
                    Some(n) => members.push(n.str()?.to_string()),
                    None => return m.err("expected [member name, header type]"),
                }
            }
            self.union_types.insert(name, members);
        }
        for u in root.arr_opt("header_unions")? {
            let name = u.name()?.to_string();
            let mut hs = Vec::new();
            let ui = self.unions.len();
            for id in u.get("header_ids")?.arr()? {
                match self.hdr_by_id.get(&id.u64()?) {
                    Some(&h) => {
                        hs.push(h);
                        self.headers[h].union = Some(ui);
                    }
                    None => return id.err("unknown header id"),
                }
            }
            self.union_by_name.insert(name, ui);
            if let Some(id) = u.opt("id") {
                self.union_by_id.insert(id.u64()?, ui);
            }
            self.unions.push(Union { headers: hs });
        }
        for s in root.arr_opt("header_union_stacks")? {
            let name = s.name()?.to_string();
            let mut us = Vec::new();
            for id in s.get("header_union_ids")?.arr()? {
                match self.union_by_id.get(&id.u64()?) {
                    Some(&u) => us.push(u),
                    None => return id.err("unknown header union id"),
                }
            }
            self.ustack_by_name.insert(name, self.union_stacks.len());
            self.union_stacks.push(UnionStack { unions: us });
        }
        Ok(())
    }

    fn header(&self, j: &J) -> LResult<usize> {
        let n = j.str()?;
        match self.hdr_by_name.get(n) {
            Some(&h) => Ok(h),
            None => j.err(format!("unknown header \"{n}\"")),
        }
    }

    fn stack(&self, j: &J) -> LResult<usize> {
        let n = j.str()?;
        match self.stack_by_name.get(n) {
            Some(&s) => Ok(s),
            None => j.err(format!("unknown header stack \"{n}\"")),
        }
    }

    fn field_in_type(&self, ti: usize, fname: &str) -> Option<usize> {
        self.header_types[ti].fields.iter().position(|f| f.0 == fname)
    }

    fn field_ref(&self, j: &J) -> LResult<FRef> {
        let parts = j.arr()?;
        if parts.len() != 2 {
            return j.err("a field reference must be [header, field]");
        }
        let mut hname = parts[0].str()?.to_string();
        let mut fname = parts[1].str()?.to_string();
        if let Some((h, f)) = self.aliases.get(&format!("{hname}.{fname}")) {
            hname = h.clone();
            fname = f.clone();
        }
        let Some(&h) = self.hdr_by_name.get(&hname) else {
            return parts[0].err(format!("unknown header \"{hname}\""));
        };
        if fname == "$valid$" {
            return Ok(FRef::Valid(h));
        }
        match self.field_in_type(self.headers[h].type_idx, &fname) {
            Some(k) => Ok(FRef::Slot(self.headers[h].fields[k])),
            None => parts[1].err(format!("header \"{hname}\" has no field \"{fname}\"")),
        }
    }

    fn field_slot(&self, j: &J) -> LResult<FieldSlot> {
        match self.field_ref(j)? {
            FRef::Slot(s) => Ok(s),
            FRef::Valid(_) => j.err("$valid$ cannot be used here"),
        }
    }

    fn hdr_field_width(&self, h: &HdrRef, i: usize) -> u32 {
        let ti = match self.hdr_type_of(h) {
            Some(t) => t,
            None => return 1 << 20,
        };
        self.header_types[ti].fields.get(i).map_or(1 << 20, |f| f.1 + f.2 as u32)
    }

    fn hdr_type_of(&self, h: &HdrRef) -> Option<usize> {
        match h {
            HdrRef::Static(h) => Some(self.headers.get(*h)?.type_idx),
            HdrRef::StackElem(s, _) | HdrRef::StackLast(s) => {
                let h0 = *self.stacks.get(*s)?.headers.first()?;
                Some(self.headers[h0].type_idx)
            }
            HdrRef::UnionMember(u, m) => {
                let u0 = match &**u {
                    UnionRef::Static(u) => *u,
                    UnionRef::StackElem(s, _) | UnionRef::StackLast(s) => *self.union_stacks.get(*s)?.unions.first()?,
                };
                let h = *self.unions.get(u0)?.headers.get(*m)?;
                Some(self.headers[h].type_idx)
            }
            HdrRef::Cond(_, a, _) => self.hdr_type_of(a),
        }
    }

    // ----- expressions -----------------------------------------------------

    fn cexpr(&self, j: &J, ctx: Ctx) -> LResult<CExpr> {
        let e = self.expr(j, ctx)?;
        let (_, maxb) = bound(&e, &|h, i| self.hdr_field_width(h, i));
        Ok(CExpr::new(e, maxb <= 120))
    }

    /// A type-value object or an `{op,left,right}` object.
    fn expr(&self, j: &J, ctx: Ctx) -> LResult<Expr> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            return self.op_expr(j, ctx);
        }
        let ty = j.get("type")?.str()?;
        let val = j.get_or_null("value");
        match ty {
            "field" => match self.field_ref(&val)? {
                FRef::Slot(s) => Ok(Expr::Field(s)),
                FRef::Valid(h) => Ok(Expr::Valid(HdrRef::Static(h))),
            },
            "hexstr" => {
                let b = hex_to_big(&val)?;
                Ok(match bits::big_to_i128(&b) {
                    Some(v) if v.unsigned_abs() < (1u128 << 120) => Expr::Const(v),
                    _ => Expr::BigConst(Box::new(b)),
                })
            }
            "bool" => Ok(Expr::Const(val.bool()? as i128)),
            "runtime_data" | "local" => {
                let i = val.u64()? as usize;
                match ctx.params.get(i) {
                    Some(p) => Ok(Expr::Param { off: p.2, width: p.1 }),
                    None => val.err(format!("runtime_data index {i} out of range")),
                }
            }
            "expression" => self.expr(&val, ctx),
            "stack_field" => {
                let p = val.arr()?;
                if p.len() != 2 {
                    return val.err("expected [header stack, field]");
                }
                let s = self.stack(&p[0])?;
                let fname = p[1].str()?;
                let ti = match self.hdr_type_of(&HdrRef::StackLast(s)) {
                    Some(t) => t,
                    None => return p[0].err("empty header stack"),
                };
                match self.field_in_type(ti, fname) {
                    Some(k) => Ok(Expr::DynField(Box::new(HdrRef::StackLast(s)), k)),
                    None => p[1].err(format!("no field \"{fname}\"")),
                }
            }
            "union_stack_field" => {
                let p = val.arr()?;
                if p.len() != 3 {
                    return val.err("expected [union stack, member, field]");
                }
                let n = p[0].str()?;
                let Some(&us) = self.ustack_by_name.get(n) else {
                    return p[0].err(format!("unknown header union stack \"{n}\""));
                };
                let (m, k) = self.union_member_field(us, &p[1], &p[2])?;
                Ok(Expr::DynField(Box::new(HdrRef::UnionMember(Box::new(UnionRef::StackLast(us)), m)), k))
            }
            "lookahead" => {
                if !ctx.parser {
                    return j.err("lookahead outside a parser");
                }
                let p = val.arr()?;
                if p.len() != 2 {
                    return val.err("expected [offset, width]");
                }
                let off = p[0].u32()?;
                let width = p[1].u32()?;
                if width == 0 || width > MAX_WIDTH {
                    return p[1].err(format!("lookahead width must be 1..={MAX_WIDTH} bits"));
                }
                Ok(Expr::Lookahead { off, width })
            }
            "register" => {
                let p = val.arr()?;
                if p.len() != 2 {
                    return val.err("expected [register array, index]");
                }
                let reg = self.register(&p[0])?;
                Ok(Expr::Register { reg, index: Box::new(self.expr(&p[1], ctx)?) })
            }
            "header" => {
                let h = self.header(&val)?;
                // A header used as a value: its validity (only meaningful under `valid`).
                Ok(Expr::Valid(HdrRef::Static(h)))
            }
            other => j.err(format!("unsupported value type \"{other}\" in an expression")),
        }
    }

    fn union_member_field(&self, us: usize, m: &J, f: &J) -> LResult<(usize, usize)> {
        let mname = m.str()?;
        let u0 = match self.union_stacks[us].unions.first() {
            Some(&u) => u,
            None => return m.err("empty union stack"),
        };
        let union = &self.unions[u0];
        let pos = union.headers.iter().position(|&h| {
            let hn = &self.headers[h].name;
            hn == mname || hn.ends_with(&format!(".{mname}"))
        });
        let Some(mi) = pos else { return m.err(format!("no union member \"{mname}\"")) };
        let ti = self.headers[union.headers[mi]].type_idx;
        let fname = f.str()?;
        match self.field_in_type(ti, fname) {
            Some(k) => Ok((mi, k)),
            None => f.err(format!("no field \"{fname}\"")),
        }
    }

    fn register(&self, j: &J) -> LResult<usize> {
        let n = j.str()?;
        match self.reg_by_name.get(n) {
            Some(&r) => Ok(r),
            None => j.err(format!("unknown register array \"{n}\"")),
        }
    }

    /// Header-valued expression.
    fn hdr_ref(&self, j: &J, ctx: Ctx) -> LResult<HdrRef> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            let op = j.get("op")?.str()?;
            let l = j.get_or_null("left");
            let r = j.get_or_null("right");
            return match op {
                "dereference_header_stack" => {
                    let s = self.stack(&l.get("value")?)?;
                    Ok(HdrRef::StackElem(s, Box::new(self.expr(&r, ctx)?)))
                }
                "access_union_header" => {
                    let u = self.union_ref(&l, ctx)?;
                    let m = r.u64()? as usize;
                    Ok(HdrRef::UnionMember(Box::new(u), m))
                }
                "?" => {
                    let c = self.expr(&j.get("cond")?, ctx)?;
                    let (a, b) = (self.hdr_ref(&l, ctx)?, self.hdr_ref(&r, ctx)?);
                    if self.hdr_type_of(&a) != self.hdr_type_of(&b) {
                        return j.err("the two headers of \"?\" have different types");
                    }
                    Ok(HdrRef::Cond(Box::new(c), Box::new(a), Box::new(b)))
                }
                _ => j.err(format!("operation \"{op}\" does not produce a header")),
            };
        }
        let ty = j.get("type")?.str()?;
        let val = j.get_or_null("value");
        match ty {
            "header" | "regular" => Ok(HdrRef::Static(self.header(&val)?)),
            "expression" => self.hdr_ref(&val, ctx),
            "stack" | "header_stack" => Ok(HdrRef::StackLast(self.stack(&val)?)),
            other => j.err(format!("expected a header, found \"{other}\"")),
        }
    }

    fn union_ref(&self, j: &J, ctx: Ctx) -> LResult<UnionRef> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            let op = j.get("op")?.str()?;
            if op != "dereference_union_stack" {
                return j.err(format!("operation \"{op}\" does not produce a header union"));
            }
            let l = j.get("left")?;
            let n = l.get("value")?.str()?;
            let Some(&us) = self.ustack_by_name.get(n) else {
                return l.err(format!("unknown header union stack \"{n}\""));
            };
            return Ok(UnionRef::StackElem(us, Box::new(self.expr(&j.get("right")?, ctx)?)));
        }
        let ty = j.get("type")?.str()?;
        let val = j.get_or_null("value");
        match ty {
            "header_union" => {
                let n = val.str()?;
                match self.union_by_name.get(n) {
                    Some(&u) => Ok(UnionRef::Static(u)),
                    None => val.err(format!("unknown header union \"{n}\"")),
                }
            }
            "expression" => self.union_ref(&val, ctx),
            other => j.err(format!("expected a header union, found \"{other}\"")),
        }
    }

    fn op_expr(&self, j: &J, ctx: Ctx) -> LResult<Expr> {
        let op = j.get("op")?.str()?;
        let l = j.get_or_null("left");
        let r = j.get_or_null("right");
        let bin = |o: BinOp| -> LResult<Expr> {
            Ok(Expr::Binary(o, Box::new(self.expr(&l, ctx)?), Box::new(self.expr(&r, ctx)?)))
        };
        let un = |o: UnOp| -> LResult<Expr> { Ok(Expr::Unary(o, Box::new(self.expr(&r, ctx)?))) };
        match op {
            "+" => bin(BinOp::Add),
            "-" if l.is_null() => un(UnOp::Neg),
            "-" => bin(BinOp::Sub),
            "*" => bin(BinOp::Mul),
            "/" => bin(BinOp::Div),
            "%" => bin(BinOp::Mod),
            "<<" => bin(BinOp::Shl),
            ">>" => bin(BinOp::Shr),
            "==" => bin(BinOp::Eq),
            "!=" => bin(BinOp::Ne),
            ">" => bin(BinOp::Gt),
            ">=" => bin(BinOp::Ge),
            "<" => bin(BinOp::Lt),
            "<=" => bin(BinOp::Le),
            "and" => bin(BinOp::And),
            "or" => bin(BinOp::Or),
            "&" => bin(BinOp::BAnd),
            "|" => bin(BinOp::BOr),
            "^" => bin(BinOp::BXor),
            "not" => un(UnOp::Not),
            "~" => un(UnOp::BNot),
            "d2b" => un(UnOp::D2B),
            "b2d" => un(UnOp::B2D),
            "valid" => Ok(Expr::Valid(self.hdr_ref(&r, ctx)?)),
            "valid_union" => Ok(Expr::UnionValid(self.union_ref(&r, ctx)?)),
            "?" => {
                let c = j.get("cond")?;
                Ok(Expr::Cond(
                    Box::new(self.expr(&c, ctx)?),
                    Box::new(self.expr(&l, ctx)?),
                    Box::new(self.expr(&r, ctx)?),
                ))
            }
            "two_comp_mod" | "usat_cast" | "sat_cast" => {
                let w = match self.expr(&r, ctx)? {
                    Expr::Const(w) if w > 0 && w <= MAX_WIDTH as i128 => w as u32,
                    _ => return r.err("the width must be a constant in 1..=65536"),
                };
                let a = Box::new(self.expr(&l, ctx)?);
                Ok(match op {
                    "two_comp_mod" => Expr::TwoCompMod(a, w),
                    "sat_cast" => Expr::SatCast { signed: true, e: a, width: w },
                    _ => Expr::SatCast { signed: false, e: a, width: w },
                })
            }
            "last_stack_index" => Ok(Expr::StackLastIndex(self.stack(&r.get("value")?)?)),
            "size_stack" => Ok(Expr::StackSize(self.stack(&r.get("value")?)?)),
            "access_field" => {
                let h = self.hdr_ref(&l, ctx)?;
                let k = r.u64()? as usize;
                let Some(ti) = self.hdr_type_of(&h) else { return l.err("bad header reference") };
                if k >= self.header_types[ti].fields.len() {
                    return r.err(format!("field offset {k} out of range"));
                }
                Ok(match h {
                    HdrRef::Static(hh) => Expr::Field(self.headers[hh].fields[k]),
                    h => Expr::DynField(Box::new(h), k),
                })
            }
            "dereference_header_stack" | "access_union_header" => {
                // A header as a value: its validity.
                Ok(Expr::Valid(self.hdr_ref(j, ctx)?))
            }
            other => j.get("op")?.err(format!("unknown expression operation \"{other}\"")),
        }
    }

    fn lvalue(&self, j: &J, ctx: Ctx) -> LResult<LValue> {
        match self.expr(j, ctx)? {
            Expr::Field(f) => Ok(LValue::Field(f)),
            Expr::DynField(h, k) => Ok(LValue::DynField(*h, k)),
            _ => j.err("expected a field (an lvalue)"),
        }
    }

    // ----- externs -----------------------------------------------------------

    fn load_externs(&mut self, root: &J) -> LResult<()> {
        for a in root.arr_opt("field_aliases")? {
            let p = a.arr()?;
            if p.len() != 2 {
                return a.err("expected [alias, [header, field]]");
            }
            let to = p[1].arr()?;
            if to.len() != 2 {
                return p[1].err("expected [header, field]");
            }
            self.aliases.insert(p[0].str()?.to_string(), (to[0].str()?.to_string(), to[1].str()?.to_string()));
        }
        for e in root.arr_opt("errors")? {
            let p = e.arr()?;
            if p.len() != 2 {
                return e.err("expected [name, value]");
            }
            self.errors.insert(p[0].str()?.to_string(), p[1].u64()?);
        }
        for e in root.arr_opt("enums")? {
            e.name()?;
            e.arr_opt("entries")?;
        }
        for r in root.arr_opt("register_arrays")? {
            let name = r.name()?.to_string();
            let size = r.get("size")?.u64()?;
            let width = r.get("bitwidth")?.u32()?;
            if size > MAX_ARRAY || width == 0 || width > MAX_WIDTH || size * bits::limbs(width) as u64 > MAX_REG_LIMBS {
                return r.err("register array size or bitwidth out of range");
            }
            self.reg_by_name.insert(name.clone(), self.registers.len());
            self.registers.push(RegisterArray { name, size: size as u32, width });
        }
        for c in root.arr_opt("counter_arrays")? {
            let name = c.name()?.to_string();
            let direct = c.bool_or("is_direct", false)?;
            let size = match c.opt("size") {
                Some(s) => s.u64()?,
                None if direct => 0,
                None => return c.err("missing attribute \"size\""),
            };
            if size > MAX_ARRAY {
                return c.get("size")?.err("counter array too large");
            }
            let binding = if direct { Some(c.get("binding")?.str()?.to_string()) } else { None };
            self.ctr_by_name.insert(name.clone(), self.counters.len());
            self.counters.push(CounterArray { name, size: size as u32, direct_table: None });
            self.ctr_binding.push(binding);
        }
        for m in root.arr_opt("meter_arrays")? {
            let name = m.name()?.to_string();
            let size = match m.opt("size") {
                Some(s) => s.u64()?,
                None if m.bool_or("is_direct", false)? => 0,
                None => return m.err("missing attribute \"size\""),
            };
            if size > MAX_ARRAY {
                return m.get("size")?.err("meter array too large");
            }
            let bytes = match m.get("type")?.str()? {
                "bytes" => true,
                "packets" => false,
                other => return m.get("type")?.err(format!("unknown meter type \"{other}\"")),
            };
            if let Some(rc) = m.opt("rate_count") {
                if rc.u64()? != 2 {
                    return rc.err("only 2-rate (RFC 2698) meters are supported");
                }
            }
            let direct = m.bool_or("is_direct", false)?;
            let binding = if direct { Some(m.get("binding")?.str()?.to_string()) } else { None };
            let result_target = match m.opt("result_target") {
                Some(t) if direct => Some(self.field_slot(&t)?),
                _ => None,
            };
            self.mtr_by_name.insert(name.clone(), self.meters.len());
            self.meters.push(MeterArray { name, size: size as u32, bytes, direct_table: None, result_target });
            self.mtr_binding.push(binding);
        }
        for c in root.arr_opt("calculations")? {
            let name = c.name()?.to_string();
            let algo_j = c.get("algo")?;
            let algo_n = algo_j.str()?;
            let Some(algo) = Algo::by_name(algo_n) else {
                return algo_j.err(format!("unknown hash algorithm \"{algo_n}\""));
            };
            let mut input = Vec::new();
            let mut input_headers = Vec::new();
            for i in c.get("input")?.arr()? {
                let ty = i.get("type")?.str()?;
                let val = i.get_or_null("value");
                match ty {
                    "field" => match self.field_ref(&val)? {
                        FRef::Slot(s) => {
                            input_headers.push(self.header_of_slot(s.slot));
                            input.push(CalcInput::Field(s));
                        }
                        FRef::Valid(h) => {
                            input_headers.push(None);
                            input.push(CalcInput::Const { value: vec![0], width: 1 });
                            let _ = h;
                            return val.err("$valid$ in a calculation is not supported");
                        }
                    },
                    "hexstr" => {
                        let b = hex_to_big(&val)?;
                        let width = i.get("bitwidth")?.u32()?;
                        if width == 0 || width > MAX_WIDTH {
                            return i.get("bitwidth")?.err("bitwidth out of range");
                        }
                        let mut l = vec![0u64; bits::limbs(width)];
                        bits::big_to_limbs(&b, width, &mut l);
                        input_headers.push(None);
                        input.push(CalcInput::Const { value: l, width });
                    }
                    "header" => {
                        let h = self.header(&val)?;
                        input_headers.push(Some(h));
                        input.push(CalcInput::Header(h));
                    }
                    "payload" => {
                        input_headers.push(None);
                        input.push(CalcInput::Payload);
                    }
                    other => return i.get("type")?.err(format!("unsupported calculation input \"{other}\"")),
                }
            }
            self.calc_by_name.insert(name, self.calcs.len());
            self.calcs.push(Calculation { algo, input, input_headers });
        }
        for f in root.arr_opt("field_lists")? {
            f.name()?;
            let id = f.get("id")?.u64()?;
            let mut fields = Vec::new();
            for e in f.get("elements")?.arr()? {
                match e.get("type")?.str()? {
                    "field" => fields.push(self.field_slot(&e.get("value")?)?),
                    other => return e.get("type")?.err(format!("unsupported field list element \"{other}\"")),
                }
            }
            self.fl_by_id.insert(id, self.field_lists.len());
            self.field_lists.push(FieldList { fields });
        }
        for (k, f) in root.arr_opt("learn_lists")?.into_iter().enumerate() {
            let name = f.name()?.to_string();
            let id = match f.opt("id") {
                Some(i) => i.u64()?,
                None => k as u64 + 1,
            };
            let mut fields = Vec::new();
            for e in f.get("elements")?.arr()? {
                match e.get("type")?.str()? {
                    "field" => fields.push(self.field_slot(&e.get("value")?)?),
                    other => return e.get("type")?.err(format!("unsupported learn list element \"{other}\"")),
                }
            }
            self.ll_by_id.insert(id, self.learn_lists.len());
            self.learn_lists.push(LearnList { name, id: id as u32, fields });
        }
        for v in root.arr_opt("parse_vsets")? {
            let name = v.name()?.to_string();
            let width = v.get("compressed_bitwidth")?.u32()?;
            if width == 0 || width > MAX_WIDTH {
                return v.get("compressed_bitwidth")?.err("bitwidth out of range");
            }
            let max_size = match v.opt("max_size") {
                Some(m) => m.u32()?,
                None => 1024,
            };
            self.vset_by_name.insert(name.clone(), self.vsets.len());
            self.vsets.push(ValueSet { name, width, max_size });
        }
        if let Some(e) = root.arr_opt("extern_instances")?.first() {
            let ty = e.get("type")?.str()?;
            return e.get("type")?.err(format!("extern type \"{ty}\" is not supported by this target"));
        }
        Ok(())
    }

    fn header_of_slot(&self, slot: u32) -> Option<usize> {
        self.headers.iter().position(|h| h.fields.iter().any(|f| f.slot == slot))
    }

    fn field_list_param(&self, j: &J) -> LResult<Option<usize>> {
        let id = int_value(&j.get("value")?)?;
        if id < 0 {
            return j.err("bad field list id");
        }
        match self.fl_by_id.get(&(id as u64)) {
            Some(&f) => Ok(Some(f)),
            // p4c uses 0 when nothing is preserved
            None if id == 0 => Ok(None),
            None => j.err(format!("unknown field list id {id}")),
        }
    }

    // ----- actions -----------------------------------------------------------

    fn load_actions(&mut self, root: &J) -> LResult<()> {
        for a in root.arr_opt("actions")? {
            let name = a.name()?.to_string();
            let id = a.get("id")?.u64()?;
            let mut params = Vec::new();
            let mut off = 0u32;
            for p in a.arr_opt("runtime_data")? {
                let pname = p.name()?.to_string();
                let w = p.get("bitwidth")?.u32()?;
                if w > MAX_WIDTH {
                    return p.get("bitwidth")?.err("bitwidth out of range");
                }
                params.push((pname, w, off));
                off += bits::limbs(w) as u32;
            }
            let mut prims = Vec::new();
            let ctx = Ctx { params: &params, parser: false };
            let plist = a.arr_opt("primitives")?;
            for p in &plist {
                prims.push(self.prim(p, ctx)?);
            }
            for (k, p) in prims.iter().enumerate() {
                let t = match p {
                    Prim::Jump(t) | Prim::JumpIfZero(_, t) => *t,
                    _ => continue,
                };
                if t > prims.len() {
                    return plist[k].err(format!("jump target {t} out of range"));
                }
            }
            let idx = self.actions.len();
            self.act_by_id.insert(id, idx);
            self.act_by_name.entry(name.clone()).or_insert(idx);
            self.actions.push(Action { name, id: id as u32, params, data_limbs: off, prims });
        }
        Ok(())
    }

    fn prim(&self, p: &J, ctx: Ctx) -> LResult<Prim> {
        let op = p.get("op")?.str()?;
        let params = p.arr_opt("parameters")?;
        let n = params.len();
        let need = |k: usize| -> LResult<()> {
            if n < k {
                p.err(format!("primitive \"{op}\" needs {k} parameters, has {n}"))
            } else {
                Ok(())
            }
        };
        let ce = |i: usize| self.cexpr(&params[i], ctx);
        let named = |i: usize, ty: &str, map: &HashMap<String, usize>| -> LResult<usize> {
            let pj = &params[i];
            let t = pj.get("type")?.str()?;
            if t != ty {
                return pj.err(format!("expected a {ty}, found \"{t}\""));
            }
            let v = pj.get("value")?;
            let name = v.str()?;
            match map.get(name) {
                Some(&x) => Ok(x),
                None => v.err(format!("unknown {ty} \"{name}\"")),
            }
        };
        Ok(match op {
            "assign" | "modify_field" => {
                need(2)?;
                let dst = self.lvalue(&params[0], ctx)?;
                let src = ce(1)?;
                match (&dst, &*src.e) {
                    (LValue::Field(d), Expr::Field(s)) if d.width > 64 && d.width == s.width && !d.varbit => {
                        Prim::Copy { dst: *d, src: *s }
                    }
                    (LValue::Field(d), Expr::Param { off, width }) if d.width > 64 && d.width == *width => {
                        Prim::CopyParam { dst: *d, off: *off }
                    }
                    _ => small_assign(&dst, &src).unwrap_or(Prim::Assign { dst, src }),
                }
            }
            "add_to_field" | "subtract_from_field" => {
                need(2)?;
                let dst = self.lvalue(&params[0], ctx)?;
                let de = self.expr(&params[0], ctx)?;
                let v = self.expr(&params[1], ctx)?;
                let o = if op == "add_to_field" { BinOp::Add } else { BinOp::Sub };
                let e = Expr::Binary(o, Box::new(de), Box::new(v));
                let (_, m) = bound(&e, &|h, i| self.hdr_field_width(h, i));
                Prim::Assign { dst, src: CExpr::new(e, m <= 120) }
            }
            "assign_VL" => {
                need(2)?;
                Prim::AssignVL { dst: self.lvalue(&params[0], ctx)?, src: self.lvalue(&params[1], ctx)? }
            }
            "assign_header" | "copy_header" => {
                need(2)?;
                Prim::AssignHeader { dst: self.hdr_ref(&params[0], ctx)?, src: self.hdr_ref(&params[1], ctx)? }
            }
            "assign_union" => {
                need(2)?;
                Prim::AssignUnion { dst: self.union_ref(&params[0], ctx)?, src: self.union_ref(&params[1], ctx)? }
            }
            "assign_header_stack" => {
                need(2)?;
                Prim::AssignStack {
                    dst: self.stack(&params[0].get("value")?)?,
                    src: self.stack(&params[1].get("value")?)?,
                }
            }
            "assign_union_stack" => {
                need(2)?;
                let us = |j: &J| -> LResult<usize> {
                    let v = j.get("value")?;
                    let n = v.str()?;
                    self.ustack_by_name.get(n).copied().map_or_else(|| v.err("unknown header union stack"), Ok)
                };
                Prim::AssignUnionStack { dst: us(&params[0])?, src: us(&params[1])? }
            }
            "add_header" => {
                need(1)?;
                Prim::SetValid(self.hdr_ref(&params[0], ctx)?, true)
            }
            "remove_header" => {
                need(1)?;
                Prim::SetValid(self.hdr_ref(&params[0], ctx)?, false)
            }
            "push" | "pop" => {
                need(2)?;
                let ty = params[0].get("type")?.str()?;
                let v = params[0].get("value")?;
                let cnt = ce(1)?;
                if ty == "header_union_stack" {
                    let n = v.str()?;
                    let Some(&us) = self.ustack_by_name.get(n) else {
                        return v.err(format!("unknown header union stack \"{n}\""));
                    };
                    if op == "push" {
                        Prim::PushUnion { stack: us, n: cnt }
                    } else {
                        Prim::PopUnion { stack: us, n: cnt }
                    }
                } else {
                    let s = self.stack(&v)?;
                    if op == "push" {
                        Prim::Push { stack: s, n: cnt }
                    } else {
                        Prim::Pop { stack: s, n: cnt }
                    }
                }
            }
            "_jump" => {
                need(1)?;
                let t = int_value(&params[0].get("value")?)?;
                Prim::Jump(usize::try_from(t).or_else(|_| params[0].err("bad jump target"))?)
            }
            "_jump_if_zero" => {
                need(2)?;
                let t = int_value(&params[1].get("value")?)?;
                Prim::JumpIfZero(ce(0)?, usize::try_from(t).or_else(|_| params[1].err("bad jump target"))?)
            }
            "exit" => Prim::Exit,
            "mark_to_drop" | "drop" => Prim::MarkToDrop,
            "no_op" => Prim::Nop,
            "clone_ingress_pkt_to_egress" | "clone_egress_pkt_to_egress" => {
                need(1)?;
                let session = ce(0)?;
                let fl = if n >= 2 { self.field_list_param(&params[1])? } else { None };
                if op == "clone_ingress_pkt_to_egress" {
                    Prim::CloneI2E { session, field_list: fl }
                } else {
                    Prim::CloneE2E { session, field_list: fl }
                }
            }
            "resubmit" | "recirculate" => {
                let fl = if n >= 1 { self.field_list_param(&params[0])? } else { None };
                if op == "resubmit" {
                    Prim::Resubmit(fl)
                } else {
                    Prim::Recirculate(fl)
                }
            }
            "generate_digest" => {
                need(2)?;
                let id = int_value(&params[1].get("value")?)?;
                match self.ll_by_id.get(&(id as u64)) {
                    Some(&l) => Prim::Digest { learn_list: l },
                    None => return params[1].err(format!("unknown learn list id {id}")),
                }
            }
            "modify_field_rng_uniform" => {
                need(3)?;
                Prim::RngUniform { dst: self.lvalue(&params[0], ctx)?, lo: ce(1)?, hi: ce(2)? }
            }
            "modify_field_with_hash_based_offset" => {
                need(4)?;
                Prim::HashOffset {
                    dst: self.lvalue(&params[0], ctx)?,
                    base: ce(1)?,
                    calc: named(2, "calculation", &self.calc_by_name)?,
                    size: ce(3)?,
                }
            }
            "register_read" => {
                need(3)?;
                Prim::RegisterRead {
                    dst: self.lvalue(&params[0], ctx)?,
                    reg: named(1, "register_array", &self.reg_by_name)?,
                    index: ce(2)?,
                }
            }
            "register_write" => {
                need(3)?;
                Prim::RegisterWrite { reg: named(0, "register_array", &self.reg_by_name)?, index: ce(1)?, src: ce(2)? }
            }
            "count" => {
                need(2)?;
                Prim::Count { ctr: named(0, "counter_array", &self.ctr_by_name)?, index: ce(1)? }
            }
            "execute_meter" => {
                need(3)?;
                Prim::ExecuteMeter {
                    meter: named(0, "meter_array", &self.mtr_by_name)?,
                    index: ce(1)?,
                    dst: self.lvalue(&params[2], ctx)?,
                }
            }
            "truncate" => {
                need(1)?;
                Prim::Truncate(ce(0)?)
            }
            "assert" | "assume" => {
                need(1)?;
                Prim::Assert(ce(0)?)
            }
            "log_msg" => {
                need(1)?;
                let fmt = params[0].get("value")?.str()?.to_string();
                let mut args = Vec::new();
                if n >= 2 {
                    let v = params[1].get("value")?;
                    // p4c writes an empty vector as `{}` (jsoncpp's empty value).
                    let empty = v.v.as_object().is_some_and(|o| o.is_empty());
                    for a in if empty { Vec::new() } else { v.arr()? } {
                        args.push(self.cexpr(&a, ctx)?);
                    }
                }
                Prim::LogMsg { fmt, args }
            }
            other => return p.get("op")?.err(format!("unknown primitive \"{other}\"")),
        })
    }

    // ----- parsers -----------------------------------------------------------

    fn load_parser(&self, pj: &J) -> LResult<Parser> {
        let name = pj.name()?.to_string();
        let states_j = pj.get("parse_states")?.arr()?;
        let mut by_name = HashMap::new();
        for (i, s) in states_j.iter().enumerate() {
            by_name.insert(s.name()?.to_string(), i);
        }
        let resolve = |j: &J| -> LResult<Option<usize>> {
            if j.is_null() {
                return Ok(None);
            }
            let n = j.str()?;
            match by_name.get(n) {
                Some(&i) => Ok(Some(i)),
                None => j.err(format!("unknown parse state \"{n}\"")),
            }
        };
        let init = resolve(&pj.get_or_null("init_state"))?;
        let ctx = Ctx { params: &[], parser: true };
        let mut states = Vec::new();
        for s in &states_j {
            let sname = s.name()?.to_string();
            let mut ops = Vec::new();
            for o in s.arr_opt("parser_ops")? {
                let op = o.get("op")?.str()?;
                let params = o.arr_opt("parameters")?;
                let need = |k: usize| -> LResult<()> {
                    if params.len() < k {
                        o.err(format!("parser op \"{op}\" needs {k} parameters"))
                    } else {
                        Ok(())
                    }
                };
                ops.push(match op {
                    "extract" | "extract_VL" => {
                        need(if op == "extract" { 1 } else { 2 })?;
                        let p0 = &params[0];
                        let ty = p0.get("type")?.str()?;
                        let val = p0.get("value")?;
                        let target = match ty {
                            "regular" => Ok(HdrRef::Static(self.header(&val)?)),
                            "stack" => Err(self.stack(&val)?),
                            "union_stack" => {
                                let p = val.arr()?;
                                if p.len() != 2 {
                                    return val.err("expected [union stack, member]");
                                }
                                let n = p[0].str()?;
                                let Some(&us) = self.ustack_by_name.get(n) else {
                                    return p[0].err(format!("unknown header union stack \"{n}\""));
                                };
                                let mname = p[1].str()?;
                                let u0 = match self.union_stacks[us].unions.first() {
                                    Some(&u) => u,
                                    None => return p[0].err("empty union stack"),
                                };
                                let m = self.unions[u0].headers.iter().position(|&h| {
                                    let hn = &self.headers[h].name;
                                    hn == mname || hn.ends_with(&format!(".{mname}"))
                                });
                                let Some(m) = m else { return p[1].err(format!("no union member \"{mname}\"")) };
                                if op == "extract_VL" {
                                    return o.err("extract_VL into a union stack is not supported");
                                }
                                ops.push(ParserOp::ExtractUnionStack(us, m));
                                continue;
                            }
                            "expression" => Ok(self.hdr_ref(&val, ctx)?),
                            other => return p0.get("type")?.err(format!("unsupported extract target \"{other}\"")),
                        };
                        if op == "extract" {
                            match target {
                                Ok(h) => ParserOp::Extract(h),
                                Err(s) => ParserOp::ExtractStack(s),
                            }
                        } else {
                            let len = self.cexpr(&params[1], ctx)?;
                            match target {
                                Ok(h) => ParserOp::ExtractVL(h, len),
                                Err(s) => ParserOp::ExtractVLStack(s, len),
                            }
                        }
                    }
                    "set" => {
                        need(2)?;
                        let set = ParserOp::Set(self.lvalue(&params[0], ctx)?, self.cexpr(&params[1], ctx)?);
                        if params[1].get("type")?.str()? == "lookahead" {
                            // BMv2: PacketTooShort unless the lookahead's bytes remain.
                            let width = params[1].get("value")?.arr()?.get(1).map(|w| w.u32()).transpose()?;
                            ops.push(ParserOp::Require(width.unwrap_or(0).div_ceil(8)));
                        }
                        ops.push(set);
                        continue;
                    }
                    "verify" => {
                        need(2)?;
                        // the error as a plain integer is BMv2's older form
                        let err = match params[1].v.as_u64() {
                            Some(code) => CExpr::new(Expr::Const(code as i128), true),
                            None => self.cexpr(&params[1], ctx)?,
                        };
                        ParserOp::Verify(self.cexpr(&params[0], ctx)?, err)
                    }
                    "advance" => {
                        need(1)?;
                        ParserOp::Advance(self.cexpr(&params[0], ctx)?)
                    }
                    "shift" => {
                        need(1)?;
                        // BMv2 reads a plain integer (bytes); a type-value object also works here
                        let bytes = match params[0].v.as_u64() {
                            Some(n) => Expr::Const(n as i128),
                            None => self.expr(&params[0], ctx)?,
                        };
                        let e = Expr::Binary(BinOp::Mul, Box::new(bytes), Box::new(Expr::Const(8)));
                        ParserOp::Advance(CExpr::new(e, true))
                    }
                    "primitive" => {
                        need(1)?;
                        ParserOp::Prim(self.prim(&params[0], ctx)?)
                    }
                    other => return o.get("op")?.err(format!("unknown parser op \"{other}\"")),
                });
            }
            let mut key = Vec::new();
            let mut key_widths = Vec::new();
            for k in s.arr_opt("transition_key")? {
                let ty = k.get("type")?.str()?;
                let (part, w) = match ty {
                    "field" => {
                        let f = self.field_slot(&k.get("value")?)?;
                        (KeyPart::Field(f), f.width)
                    }
                    "lookahead" => {
                        let p = k.get("value")?.arr()?;
                        if p.len() != 2 {
                            return k.err("expected [offset, width]");
                        }
                        let w = p[1].u32()?;
                        if w == 0 || w > MAX_WIDTH {
                            return p[1].err("lookahead width out of range");
                        }
                        (KeyPart::Lookahead { off: p[0].u32()?, width: w }, w)
                    }
                    "stack_field" | "union_stack_field" => match self.expr(&k, ctx)? {
                        Expr::DynField(h, i) => {
                            let w = self.hdr_field_width(&h, i);
                            (KeyPart::DynField(*h, i), w)
                        }
                        _ => return k.err("bad stack field"),
                    },
                    other => return k.get("type")?.err(format!("unsupported transition key type \"{other}\"")),
                };
                key.push(part);
                key_widths.push(w.div_ceil(8) * 8);
            }
            let key_bits: u32 = key_widths.iter().sum();
            let kl = bits::limbs(key_bits);
            let mut transitions = Vec::new();
            for t in s.arr_opt("transitions")? {
                let mut ty = t.opt("type").map(|x| x.str()).transpose()?.unwrap_or("hexstr");
                // older JSON: {"value": "default"} without a type
                if ty == "hexstr" && t.v.get("value").and_then(|v| v.as_str()) == Some("default") {
                    ty = "default";
                }
                let mask = match t.opt("mask") {
                    Some(m) => {
                        let b = hex_to_big(&m)?;
                        let mut l = vec![0u64; kl];
                        bits::big_to_limbs(&b, key_bits.max(1), &mut l);
                        Some(l)
                    }
                    None => None,
                };
                let value = match ty {
                    "default" => TransValue::Default,
                    "hexstr" => {
                        let vj = t.get("value")?;
                        let b = hex_to_big(&vj)?;
                        let mut l = vec![0u64; kl];
                        bits::big_to_limbs(&b, key_bits.max(1), &mut l);
                        TransValue::Hex { value: l, mask }
                    }
                    "parse_vset" => {
                        let vj = t.get("value")?;
                        let n = vj.str()?;
                        match self.vset_by_name.get(n) {
                            Some(&v) => TransValue::Vset { vset: v, mask },
                            None => return vj.err(format!("unknown parse value set \"{n}\"")),
                        }
                    }
                    other => return t.get("type")?.err(format!("unknown transition type \"{other}\"")),
                };
                let next = resolve(&t.get_or_null("next_state"))?;
                transitions.push(Transition { value, next });
            }
            states.push(ParseState { name: sname, ops, key, key_widths, key_bits, transitions });
        }
        Ok(Parser { name, init, states })
    }

    // ----- pipelines ---------------------------------------------------------

    #[allow(clippy::type_complexity)]
    fn load_pipelines(
        &mut self,
        root: &J,
    ) -> LResult<(Vec<Table>, Vec<Conditional>, Vec<ActionCall>, Vec<ActionProfile>, Vec<Pipeline>)> {
        let mut tables = Vec::new();
        let mut conds = Vec::new();
        let mut calls = Vec::new();
        let mut profiles = Vec::new();
        let mut pipes = Vec::new();
        let pj_all = root.arr_opt("pipelines")?;
        // First pass: node names.
        let mut nodes: HashMap<String, Node> = HashMap::new();
        {
            let (mut nt, mut nc, mut na) = (0, 0, 0);
            for p in &pj_all {
                for t in p.arr_opt("tables")? {
                    nodes.insert(t.name()?.to_string(), Node::Table(nt));
                    nt += 1;
                }
                for c in p.arr_opt("conditionals")? {
                    nodes.insert(c.name()?.to_string(), Node::Cond(nc));
                    nc += 1;
                }
                for a in p.arr_opt("action_calls")? {
                    nodes.insert(a.name()?.to_string(), Node::ActionCall(na));
                    na += 1;
                }
            }
        }
        let node = |j: &J| -> LResult<Option<Node>> {
            if j.is_null() {
                return Ok(None);
            }
            let n = j.str()?;
            match nodes.get(n) {
                Some(&x) => Ok(Some(x)),
                None => j.err(format!("unknown table, conditional or action call \"{n}\"")),
            }
        };
        let mut prof_by_name: HashMap<String, usize> = HashMap::new();
        for p in &pj_all {
            for ap in p.arr_opt("action_profiles")? {
                let name = ap.name()?.to_string();
                let id = ap.get("id")?.u32()?;
                let size = match ap.opt("max_size") {
                    Some(m) => m.u32()?,
                    None => 0,
                };
                let selector = match ap.opt("selector") {
                    Some(s) => {
                        let aj = s.get("algo")?;
                        let an = aj.str()?;
                        let Some(algo) = Algo::by_name(an) else {
                            return aj.err(format!("unknown hash algorithm \"{an}\""));
                        };
                        let mut input = Vec::new();
                        for i in s.get("input")?.arr()? {
                            match i.get("type")?.str()? {
                                "field" => input.push(self.field_slot(&i.get("value")?)?),
                                other => return i.get("type")?.err(format!("unsupported selector input \"{other}\"")),
                            }
                        }
                        Some(Selector { algo, input })
                    }
                    None => None,
                };
                prof_by_name.insert(name.clone(), profiles.len());
                profiles.push(ActionProfile { name, id, size, selector });
            }
        }
        for p in &pj_all {
            let pname = p.name()?.to_string();
            let init = node(&p.get_or_null("init_table"))?;
            pipes.push(Pipeline { name: pname, init });
            for t in p.arr_opt("tables")? {
                tables.push(self.load_table(&t, &node, &prof_by_name)?);
            }
            for c in p.arr_opt("conditionals")? {
                conds.push(Conditional {
                    name: c.name()?.to_string(),
                    expr: self.cexpr(&c.get("expression")?, NO_CTX)?,
                    true_next: node(&c.get_or_null("true_next"))?,
                    false_next: node(&c.get_or_null("false_next"))?,
                });
            }
            for a in p.arr_opt("action_calls")? {
                let aid = a.get("action_id")?;
                let Some(&act) = self.act_by_id.get(&aid.u64()?) else {
                    return aid.err("unknown action id");
                };
                a.name()?;
                calls.push(ActionCall {
                    action: act,
                    next: node(&a.get_or_null("next_node"))?,
                });
            }
        }
        Ok((tables, conds, calls, profiles, pipes))
    }

    fn action_data(&self, act: usize, data: Option<J>) -> LResult<Vec<u64>> {
        let a = &self.actions[act];
        let mut out = vec![0u64; a.data_limbs as usize];
        let items = match &data {
            Some(d) => d.arr()?,
            None => Vec::new(),
        };
        if items.len() != a.params.len() {
            if let Some(d) = &data {
                return d.err(format!("action \"{}\" takes {} parameters, {} given", a.name, a.params.len(), items.len()));
            }
            if !a.params.is_empty() {
                return Ok(out);
            }
        }
        for (p, it) in a.params.iter().zip(items.iter()) {
            let b = hex_to_big(it)?;
            let n = bits::limbs(p.1);
            let o = p.2 as usize;
            bits::big_to_limbs(&b, p.1, &mut out[o..o + n]);
        }
        Ok(out)
    }

    fn load_table(
        &self,
        t: &J,
        node: &dyn Fn(&J) -> LResult<Option<Node>>,
        prof_by_name: &HashMap<String, usize>,
    ) -> LResult<Table> {
        let name = t.name()?.to_string();
        let id = t.get("id")?.u32()?;
        let kind = match t.opt("type").map(|x| x.str()).transpose()?.unwrap_or("simple") {
            "simple" => TableKind::Simple,
            "indirect" => TableKind::Indirect,
            "indirect_ws" => TableKind::IndirectWs,
            other => return t.get("type")?.err(format!("unknown table type \"{other}\"")),
        };
        let profile = if kind != TableKind::Simple {
            let pj = t.get("action_profile")?;
            let pn = pj.str()?;
            match prof_by_name.get(pn) {
                Some(&p) => Some(p),
                None => return pj.err(format!("unknown action profile \"{pn}\"")),
            }
        } else {
            None
        };
        let mut keys = Vec::new();
        let mut off = 0u32;
        let mut nlpm = 0;
        let mut needs_priority = false;
        for k in t.arr_opt("key")? {
            let mtj = k.get("match_type")?;
            let mk = match mtj.str()? {
                "exact" => MatchKind::Exact,
                "lpm" => MatchKind::Lpm,
                "ternary" => MatchKind::Ternary,
                "range" => MatchKind::Range,
                "optional" => MatchKind::Optional,
                "valid" => MatchKind::Valid,
                "selector" => MatchKind::Selector,
                other => return mtj.err(format!("unknown match_type \"{other}\"")),
            };
            if mk == MatchKind::Selector {
                continue;
            }
            let target = k.get("target")?;
            let (src, width, fname) = if mk == MatchKind::Valid {
                let h = if target.v.is_string() { self.header(&target)? } else {
                    match self.field_ref(&target)? {
                        FRef::Valid(h) => h,
                        FRef::Slot(_) => return target.err("valid match on a field"),
                    }
                };
                (KeySource::Valid(HdrRef::Static(h)), 1, format!("{}.$valid$", self.headers[h].name))
            } else {
                let parts = target.arr()?;
                let dotted = parts.iter().filter_map(|p| p.v.as_str()).collect::<Vec<_>>().join(".");
                match self.field_ref(&target)? {
                    FRef::Slot(s) => {
                        if s.varbit {
                            return target.err("matching on a variable-length field is not supported");
                        }
                        (KeySource::Field(s), s.width, dotted)
                    }
                    FRef::Valid(h) => (KeySource::Valid(HdrRef::Static(h)), 1, dotted),
                }
            };
            let mask = match k.opt("mask") {
                Some(m) => {
                    let b = hex_to_big(&m)?;
                    let mut l = vec![0u64; bits::limbs(width)];
                    bits::big_to_limbs(&b, width, &mut l);
                    Some(l)
                }
                None => None,
            };
            let kname = match k.opt("name") {
                Some(n) => n.str()?.to_string(),
                None => fname,
            };
            match mk {
                MatchKind::Lpm => nlpm += 1,
                MatchKind::Ternary | MatchKind::Range | MatchKind::Optional => needs_priority = true,
                _ => {}
            }
            let nl = bits::limbs(width) as u32;
            keys.push(TableKey { name: kname, kind: if mk == MatchKind::Valid { MatchKind::Exact } else { mk }, src, width, mask, off, nlimbs: nl });
            off += nl;
        }
        if nlpm > 1 {
            return t.get("key")?.err("more than one lpm key field");
        }
        let imp = if needs_priority {
            TableImpl::Ternary
        } else if nlpm == 1 {
            TableImpl::Lpm
        } else {
            TableImpl::Exact
        };
        let mut actions = Vec::new();
        let mut action_names = HashMap::new();
        for (i, a) in t.get("actions")?.arr()?.iter().enumerate() {
            let an = a.str()?;
            let _ = i;
            // Prefer the action id list if present (names may repeat across controls).
            let idx = match t.opt("action_ids").and_then(|ids| ids.v.get(i).and_then(|x| x.as_u64())) {
                Some(aid) => self.act_by_id.get(&aid).copied(),
                None => self.act_by_name.get(an).copied(),
            };
            match idx {
                Some(x) => {
                    actions.push(x);
                    action_names.insert(an.to_string(), x);
                }
                None => return a.err(format!("unknown action \"{an}\"")),
            }
        }
        let mut next_by_action = Vec::new();
        let mut next_hit = None;
        let mut next_miss = None;
        if let Some(nt) = t.opt("next_tables") {
            let Some(obj) = nt.v.as_object() else { return nt.err("expected an object") };
            for (k, v) in obj {
                let vj = J { v, path: format!("{}.{}", nt.path, k) };
                let nx = node(&vj)?;
                match k.as_str() {
                    "__HIT__" => next_hit = Some(nx),
                    "__MISS__" => next_miss = Some(nx),
                    an => match action_names.get(an) {
                        Some(&a) => next_by_action.push((a, nx)),
                        None => match self.act_by_name.get(an) {
                            Some(&a) => next_by_action.push((a, nx)),
                            None => return vj.err(format!("next_tables names unknown action \"{an}\"")),
                        },
                    },
                }
            }
        }
        let base_default_next = node(&t.get_or_null("base_default_next"))?;
        let default_entry = match t.opt("default_entry") {
            Some(d) => {
                let aid = d.get("action_id")?;
                let Some(&act) = self.act_by_id.get(&aid.u64()?) else {
                    return aid.err("unknown action id");
                };
                let data = self.action_data(act, d.opt("action_data"))?;
                Some(DefaultEntry { action: act, data, is_const: d.bool_or("action_const", false)? })
            }
            None => None,
        };
        let mut const_entries = Vec::new();
        let has_const = t.opt("entries").is_some();
        for (ei, e) in t.arr_opt("entries")?.into_iter().enumerate() {
            let mk = e.get("match_key")?.arr()?;
            if mk.len() != keys.len() {
                return e.get("match_key")?.err(format!("{} key fields given, table has {}", mk.len(), keys.len()));
            }
            let mut key = Vec::new();
            for (m, k) in mk.iter().zip(keys.iter()) {
                let limbs = |name: &str| -> LResult<Vec<u64>> {
                    let b = hex_to_big(&m.get(name)?)?;
                    let mut l = vec![0u64; bits::limbs(k.width)];
                    bits::big_to_limbs(&b, k.width, &mut l);
                    Ok(l)
                };
                let bytes = |l: &[u64]| bits::limbs_to_bytes(l, k.width);
                // BMv2 masks the value with the mask (ternary) or the prefix
                // (lpm): p4c writes keys such as 0x1111 &&& 0x000f unmasked.
                let masked = |mut v: Vec<u64>, mask: &[u64]| -> Vec<u8> {
                    v.iter_mut().zip(mask).for_each(|(a, b)| *a &= b);
                    bytes(&v)
                };
                let mt = m.get("match_type")?.str()?;
                let fits = match k.kind {
                    MatchKind::Exact => mt == "exact" || mt == "valid",
                    MatchKind::Lpm => mt == "lpm",
                    MatchKind::Ternary | MatchKind::Optional => mt == "ternary" || mt == "optional",
                    MatchKind::Range => mt == "range",
                    MatchKind::Valid | MatchKind::Selector => false,
                };
                if !fits {
                    return m.get("match_type")?.err(format!("\"{mt}\" entry for the {:?} key field \"{}\"", k.kind, k.name));
                }
                key.push(match mt {
                    "exact" => MatchKey::Exact(bytes(&limbs("key")?)),
                    "valid" => MatchKey::Exact(vec![m.get("key")?.bool()? as u8]),
                    "lpm" => {
                        let pj = m.get("prefix_length")?;
                        let plen = pj.u32()?;
                        if plen > k.width {
                            return pj.err(format!("prefix length {plen} is wider than the {}-bit key", k.width));
                        }
                        let mut v = limbs("key")?;
                        bits::apply_prefix(&mut v, k.width, plen);
                        MatchKey::Lpm(bytes(&v), plen)
                    }
                    "ternary" | "optional" => {
                        let mask = limbs("mask")?;
                        MatchKey::Ternary(masked(limbs("key")?, &mask), bytes(&mask))
                    }
                    "range" => MatchKey::Range(bytes(&limbs("start")?), bytes(&limbs("end")?)),
                    other => return m.get("match_type")?.err(format!("unknown match_type \"{other}\"")),
                });
            }
            let ae = e.get("action_entry")?;
            let aid = ae.get("action_id")?;
            let Some(&act) = self.act_by_id.get(&aid.u64()?) else {
                return aid.err("unknown action id");
            };
            let data = self.action_data(act, ae.opt("action_data"))?;
            let jp = match e.opt("priority") {
                Some(p) => p.i64()?,
                None => ei as i64 + 1,
            };
            let priority = CONST_PRIORITY_BASE.saturating_sub(jp.clamp(0, i32::MAX as i64) as i32);
            let same_priority = |c: &ConstEntry| !needs_priority || c.priority == priority;
            if const_entries.iter().any(|c: &ConstEntry| c.key == key && same_priority(c)) {
                return e.err("duplicate entry in the table's \"entries\" (BMv2 refuses it)");
            }
            const_entries.push(ConstEntry { key, action: act, data, priority });
        }
        let max_size = match t.opt("max_size") {
            Some(m) => m.u32()?,
            None => 1024,
        };
        let with_counters = t.bool_or("with_counters", false)?;
        let direct_counter = if with_counters {
            self.ctr_binding.iter().position(|b| b.as_deref() == Some(name.as_str()))
        } else {
            None
        };
        let direct_meter = match t.opt("direct_meters") {
            Some(m) => {
                let n = m.str()?;
                match self.mtr_by_name.get(n) {
                    Some(&x) => Some(x),
                    None => return m.err(format!("unknown meter array \"{n}\"")),
                }
            }
            None => None,
        };
        let fixed_default = keys.is_empty()
            && default_entry.as_ref().is_some_and(|d| d.is_const)
            && profile.is_none()
            && direct_counter.is_none()
            && direct_meter.is_none()
            && !t.bool_or("support_timeout", false)?;
        Ok(Table {
            fixed_default,
            name,
            id,
            key_limbs: off,
            keys,
            imp,
            needs_priority,
            kind,
            profile,
            actions,
            next_by_action,
            next_hit,
            next_miss,
            base_default_next,
            default_entry,
            const_entries,
            has_const_entries: has_const,
            max_size,
            direct_counter,
            direct_meter,
            support_timeout: t.bool_or("support_timeout", false)?,
        })
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
            no_match: e("NoMatch", 2),
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
            flow: crate::flow::Flow { steps: Vec::new(), ops: Vec::new(), actions: Vec::new() },
        };
        prog.flow = crate::flow::build(&prog);
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
