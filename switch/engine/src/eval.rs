//! Per-packet state (the flat header vector) and expression evaluation.
//!
//! Expressions marked `narrow` at load time are evaluated in i128 (exact for
//! every intermediate value, by construction); the others with BigInt, so
//! results are exact at any width. Booleans are 0/1.
//!
//! No-panic contract: every index into the header vector comes from the
//! loader (in range by construction) or is checked (`get`), dynamic header
//! references out of range read as 0 / invalid and writes to them are ignored.

use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::bits;
use crate::program::*;

/// Everything one packet carries through the pipeline.
#[derive(Clone, Default)]
pub struct Pkt {
    pub hv: Vec<u64>,
    pub valid: Vec<bool>,
    /// Actual bit length of each header's variable-length field.
    pub vl: Vec<u32>,
    pub stack_next: Vec<u32>,
    pub ustack_next: Vec<u32>,
    /// The frame as received by this pass (headers included).
    pub data: Vec<u8>,
    /// Start of the unparsed payload in `data`.
    pub payload_off: usize,
    pub exit: bool,
    pub dropped_by_assert: bool,
    pub clone_i2e: Option<(u32, Option<usize>)>,
    pub clone_e2e: Option<(u32, Option<usize>)>,
    pub resubmit: Option<Option<usize>>,
    pub recirculate: Option<Option<usize>>,
    pub digest: Option<usize>,
    pub truncate: Option<usize>,
    pub ingress_port: u32,
    /// Recirculation/resubmission depth (loop guard).
    pub depth: u32,
}

impl Pkt {
    pub fn new(p: &Prog) -> Pkt {
        let mut k = Pkt::default();
        k.fit(p);
        k
    }

    pub fn fit(&mut self, p: &Prog) {
        self.hv.resize(p.nslots, 0);
        self.valid.resize(p.headers.len(), false);
        self.vl.resize(p.headers.len(), 0);
        self.stack_next.resize(p.stacks.len(), 0);
        self.ustack_next.resize(p.union_stacks.len(), 0);
    }

    /// Clears all headers and metadata (metadata headers are valid).
    pub fn reset(&mut self, p: &Prog) {
        self.hv.iter_mut().for_each(|x| *x = 0);
        for (v, m) in self.valid.iter_mut().zip(&p.valid_at_start) {
            *v = *m;
        }
        self.vl.iter_mut().for_each(|x| *x = 0);
        self.stack_next.iter_mut().for_each(|x| *x = 0);
        self.ustack_next.iter_mut().for_each(|x| *x = 0);
        self.payload_off = 0;
        self.exit = false;
        self.dropped_by_assert = false;
        self.clone_i2e = None;
        self.clone_e2e = None;
        self.resubmit = None;
        self.recirculate = None;
        self.digest = None;
        self.truncate = None;
    }

    /// Zeroes metadata headers only (for clones).
    pub fn reset_metadata(&mut self, p: &Prog) {
        for h in p.headers.iter().filter(|h| h.metadata) {
            for f in &h.fields {
                for i in 0..f.nlimbs() {
                    if let Some(x) = self.hv.get_mut(f.slot as usize + i) {
                        *x = 0;
                    }
                }
            }
        }
    }

    #[inline]
    pub fn get(&self, f: FieldSlot) -> u64 {
        self.hv.get(f.slot as usize).copied().unwrap_or(0)
    }

    #[inline]
    pub fn set(&mut self, f: FieldSlot, v: u64) {
        if let Some(x) = self.hv.get_mut(f.slot as usize) {
            *x = v & bits::mask64(f.width);
        }
    }

    pub fn set_opt(&mut self, f: Option<FieldSlot>, v: u64) {
        if let Some(f) = f {
            self.set(f, v);
        }
    }

    pub fn get_opt(&self, f: Option<FieldSlot>) -> u64 {
        f.map_or(0, |f| self.get(f))
    }

    pub fn limbs(&self, f: FieldSlot) -> &[u64] {
        let s = f.slot as usize;
        self.hv.get(s..s + f.nlimbs()).unwrap_or(&[])
    }

    pub fn limbs_mut(&mut self, f: FieldSlot) -> &mut [u64] {
        let s = f.slot as usize;
        let n = f.nlimbs();
        match self.hv.get_mut(s..s + n) {
            Some(x) => x,
            None => &mut [],
        }
    }
}

/// Evaluation environment besides the packet.
pub struct Env<'a> {
    pub prog: &'a Prog,
    pub params: &'a [u64],
    /// Parser cursor (bytes) for lookahead.
    pub cursor: usize,
    pub regs: &'a [crate::externs::RegArray],
}

pub fn resolve_hdr(e: &Env, pkt: &Pkt, h: &HdrRef) -> Option<usize> {
    match h {
        HdrRef::Static(h) => Some(*h),
        HdrRef::StackElem(s, i) => {
            let i = eval_i128(e, pkt, i);
            let st = e.prog.stacks.get(*s)?;
            usize::try_from(i).ok().and_then(|i| st.headers.get(i).copied())
        }
        HdrRef::StackLast(s) => {
            let n = *pkt.stack_next.get(*s)? as usize;
            e.prog.stacks.get(*s)?.headers.get(n.checked_sub(1)?).copied()
        }
        HdrRef::UnionMember(u, m) => {
            let u = resolve_union(e, pkt, u)?;
            e.prog.unions.get(u)?.headers.get(*m).copied()
        }
        HdrRef::Cond(c, a, b) => resolve_hdr(e, pkt, if eval_i128(e, pkt, c) != 0 { a } else { b }),
    }
}

pub fn resolve_union(e: &Env, pkt: &Pkt, u: &UnionRef) -> Option<usize> {
    match u {
        UnionRef::Static(u) => Some(*u),
        UnionRef::StackElem(s, i) => {
            let i = eval_i128(e, pkt, i);
            let st = e.prog.union_stacks.get(*s)?;
            usize::try_from(i).ok().and_then(|i| st.unions.get(i).copied())
        }
        UnionRef::StackLast(s) => {
            let n = *pkt.ustack_next.get(*s)? as usize;
            e.prog.union_stacks.get(*s)?.unions.get(n.checked_sub(1)?).copied()
        }
    }
}

pub fn dyn_field(e: &Env, pkt: &Pkt, h: &HdrRef, k: usize) -> Option<FieldSlot> {
    let h = resolve_hdr(e, pkt, h)?;
    e.prog.headers.get(h)?.fields.get(k).copied()
}

#[inline]
fn read_field_i128(pkt: &Pkt, f: FieldSlot) -> i128 {
    let v: u128 = if f.width <= 64 {
        pkt.get(f) as u128
    } else {
        let l = pkt.limbs(f);
        let lo = l.first().copied().unwrap_or(0) as u128;
        let hi = l.get(1).copied().unwrap_or(0) as u128;
        lo | (hi << 64)
    };
    if f.signed && f.width < 128 && (v >> (f.width - 1)) & 1 == 1 {
        (v | !bits::mask128(f.width)) as i128
    } else {
        v as i128
    }
}

fn param_i128(params: &[u64], off: u32, width: u32) -> i128 {
    let o = off as usize;
    let lo = params.get(o).copied().unwrap_or(0) as u128;
    let hi = if width > 64 { params.get(o + 1).copied().unwrap_or(0) as u128 } else { 0 };
    ((lo | (hi << 64)) & bits::mask128(width)) as i128
}

/// `width` bits at `off` bits after the cursor as little-endian limbs; zero
/// where the packet has no data.
fn lookahead_limbs(e: &Env, pkt: &Pkt, off: u32, width: u32, out: &mut [u64]) {
    let start = e.cursor.saturating_mul(8).saturating_add(off as usize);
    if !bits::get_bits_wide(&pkt.data, start, width, out) {
        out.iter_mut().for_each(|x| *x = 0);
    }
}

fn lookahead(e: &Env, pkt: &Pkt, off: u32, width: u32) -> u128 {
    let mut l = [0u64; 2];
    lookahead_limbs(e, pkt, off, width.min(128), &mut l);
    l[0] as u128 | (l[1] as u128) << 64
}

fn reg_read_limbs(e: &Env, reg: usize, idx: i128, out: &mut [u64]) {
    if let (Some(r), Ok(i)) = (e.regs.get(reg), usize::try_from(idx)) {
        if !r.read(i, out) {
            out.iter_mut().for_each(|x| *x = 0);
        }
    }
}

/// Fast evaluator (expression marked narrow at load time).
pub fn eval_i128(e: &Env, pkt: &Pkt, x: &Expr) -> i128 {
    use Expr::*;
    match x {
        Const(v) => *v,
        BigConst(b) => b.to_i128().unwrap_or(0),
        Field(f) => read_field_i128(pkt, *f),
        DynField(h, k) => dyn_field(e, pkt, h, *k).map_or(0, |f| read_field_i128(pkt, f)),
        Param { off, width } => param_i128(e.params, *off, *width),
        Valid(h) => resolve_hdr(e, pkt, h).map_or(0, |h| pkt.valid.get(h).copied().unwrap_or(false) as i128),
        UnionValid(u) => resolve_union(e, pkt, u)
            .and_then(|u| e.prog.unions.get(u))
            .map_or(0, |u| u.headers.iter().any(|&h| pkt.valid.get(h).copied().unwrap_or(false)) as i128),
        Unary(op, a) => {
            let a = eval_i128(e, pkt, a);
            match op {
                UnOp::Not => (a == 0) as i128,
                UnOp::BNot => !a,
                UnOp::Neg => a.wrapping_neg(),
                UnOp::D2B => (a != 0) as i128,
                UnOp::B2D => (a != 0) as i128,
            }
        }
        Binary(op, a, b) => {
            // short-circuit logic
            match op {
                BinOp::And => return (eval_i128(e, pkt, a) != 0 && eval_i128(e, pkt, b) != 0) as i128,
                BinOp::Or => return (eval_i128(e, pkt, a) != 0 || eval_i128(e, pkt, b) != 0) as i128,
                _ => {}
            }
            let a = eval_i128(e, pkt, a);
            let b = eval_i128(e, pkt, b);
            match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div => {
                    if b == 0 {
                        0
                    } else {
                        a.wrapping_div(b)
                    }
                }
                BinOp::Mod => {
                    if b == 0 {
                        0
                    } else {
                        a.wrapping_rem(b)
                    }
                }
                BinOp::Shl => {
                    if !(0..128).contains(&b) {
                        0
                    } else {
                        a.wrapping_shl(b as u32)
                    }
                }
                BinOp::Shr => {
                    if b < 0 {
                        a
                    } else if b >= 127 {
                        if a < 0 {
                            -1
                        } else {
                            0
                        }
                    } else {
                        a >> b
                    }
                }
                BinOp::Eq => (a == b) as i128,
                BinOp::Ne => (a != b) as i128,
                BinOp::Gt => (a > b) as i128,
                BinOp::Ge => (a >= b) as i128,
                BinOp::Lt => (a < b) as i128,
                BinOp::Le => (a <= b) as i128,
                BinOp::BAnd => a & b,
                BinOp::BOr => a | b,
                BinOp::BXor => a ^ b,
                BinOp::And | BinOp::Or => 0,
            }
        }
        Cond(c, a, b) => {
            if eval_i128(e, pkt, c) != 0 {
                eval_i128(e, pkt, a)
            } else {
                eval_i128(e, pkt, b)
            }
        }
        TwoCompMod(a, w) => {
            let v = eval_i128(e, pkt, a);
            two_comp_i128(v, *w)
        }
        SatCast { signed, e: a, width } => {
            let v = eval_i128(e, pkt, a);
            let w = (*width).min(126);
            if *signed {
                let max = (1i128 << (w - 1)) - 1;
                let min = -(1i128 << (w - 1));
                v.clamp(min, max)
            } else {
                v.clamp(0, (1i128 << w) - 1)
            }
        }
        StackLastIndex(s) => pkt.stack_next.get(*s).map_or(0, |n| *n as i128 - 1),
        StackSize(s) => pkt.stack_next.get(*s).map_or(0, |n| *n as i128),
        Lookahead { off, width } => lookahead(e, pkt, *off, *width) as i128,
        Register { reg, index } => {
            let i = eval_i128(e, pkt, index);
            let mut l = [0u64; 2];
            reg_read_limbs(e, *reg, i, &mut l);
            (l[0] as u128 | ((l[1] as u128) << 64)) as i128
        }
    }
}

fn two_comp_i128(v: i128, w: u32) -> i128 {
    if w >= 127 {
        return v;
    }
    let m = v & ((1i128 << w) - 1);
    if w > 0 && (m >> (w - 1)) & 1 == 1 {
        m - (1i128 << w)
    } else {
        m
    }
}

fn field_big(pkt: &Pkt, f: FieldSlot) -> BigInt {
    let v = bits::limbs_to_big(pkt.limbs(f));
    if f.signed && f.width > 0 && v.bit(f.width as u64 - 1) {
        v - (BigInt::one() << f.width as usize)
    } else {
        v
    }
}

const MAX_SHIFT: usize = 1 << 16;

/// General evaluator (any width).
pub fn eval_big(e: &Env, pkt: &Pkt, x: &Expr) -> BigInt {
    use Expr::*;
    let b = |v: bool| if v { BigInt::one() } else { BigInt::zero() };
    match x {
        Const(v) => BigInt::from(*v),
        BigConst(v) => (**v).clone(),
        Field(f) => field_big(pkt, *f),
        DynField(h, k) => dyn_field(e, pkt, h, *k).map_or_else(BigInt::zero, |f| field_big(pkt, f)),
        Param { off, width } => {
            let o = *off as usize;
            let n = bits::limbs(*width);
            bits::limbs_to_big(e.params.get(o..o + n).unwrap_or(&[]))
        }
        Lookahead { off, width } if *width > 120 => {
            let mut l = vec![0u64; bits::limbs(*width)];
            lookahead_limbs(e, pkt, *off, *width, &mut l);
            bits::limbs_to_big(&l)
        }
        Valid(_) | UnionValid(_) | StackLastIndex(_) | StackSize(_) | Lookahead { .. } => {
            BigInt::from(eval_i128(e, pkt, x))
        }
        Register { reg, index } => {
            let i = eval_big(e, pkt, index).to_i128().unwrap_or(-1);
            let w = e.regs.get(*reg).map_or(64, |r| r.width());
            let mut l = vec![0u64; bits::limbs(w)];
            reg_read_limbs(e, *reg, i, &mut l);
            bits::limbs_to_big(&l)
        }
        Unary(op, a) => {
            let a = eval_big(e, pkt, a);
            match op {
                UnOp::Not => b(a.is_zero()),
                UnOp::BNot => -a - 1,
                UnOp::Neg => -a,
                UnOp::D2B | UnOp::B2D => b(!a.is_zero()),
            }
        }
        Binary(op, l, r) => {
            match op {
                BinOp::And => return b(!eval_big(e, pkt, l).is_zero() && !eval_big(e, pkt, r).is_zero()),
                BinOp::Or => return b(!eval_big(e, pkt, l).is_zero() || !eval_big(e, pkt, r).is_zero()),
                _ => {}
            }
            let a = eval_big(e, pkt, l);
            let c = eval_big(e, pkt, r);
            match op {
                BinOp::Add => a + c,
                BinOp::Sub => a - c,
                BinOp::Mul => a * c,
                BinOp::Div => {
                    if c.is_zero() {
                        BigInt::zero()
                    } else {
                        a / c
                    }
                }
                BinOp::Mod => {
                    if c.is_zero() {
                        BigInt::zero()
                    } else {
                        a % c
                    }
                }
                BinOp::Shl => match c.to_usize() {
                    Some(s) if s <= MAX_SHIFT => a << s,
                    _ => BigInt::zero(),
                },
                BinOp::Shr => match c.to_usize() {
                    Some(s) if s <= MAX_SHIFT => a >> s,
                    _ => {
                        if a.is_negative() {
                            -BigInt::one()
                        } else {
                            BigInt::zero()
                        }
                    }
                },
                BinOp::Eq => b(a == c),
                BinOp::Ne => b(a != c),
                BinOp::Gt => b(a > c),
                BinOp::Ge => b(a >= c),
                BinOp::Lt => b(a < c),
                BinOp::Le => b(a <= c),
                BinOp::BAnd => a & c,
                BinOp::BOr => a | c,
                BinOp::BXor => a ^ c,
                BinOp::And | BinOp::Or => BigInt::zero(),
            }
        }
        Cond(c, a, bb) => {
            if !eval_big(e, pkt, c).is_zero() {
                eval_big(e, pkt, a)
            } else {
                eval_big(e, pkt, bb)
            }
        }
        TwoCompMod(a, w) => {
            let v = bits::big_trunc(&eval_big(e, pkt, a), *w);
            if v.bit(*w as u64 - 1) {
                v - (BigInt::one() << *w as usize)
            } else {
                v
            }
        }
        SatCast { signed, e: a, width } => {
            let v = eval_big(e, pkt, a);
            let w = *width as usize;
            if *signed {
                let max = (BigInt::one() << (w - 1)) - 1;
                let min = -(BigInt::one() << (w - 1));
                v.clamp(min, max)
            } else {
                v.clamp(BigInt::zero(), (BigInt::one() << w) - 1)
            }
        }
    }
}

/// Evaluates a compiled expression's tree as an i128 (big results are
/// truncated to their low 128 bits, two's complement). The plan's shortcuts
/// are tried by the caller (`exec::expr`), not here: `eval` sits below `plan`.
#[inline]
pub fn tree_c(e: &Env, pkt: &Pkt, c: &CExpr) -> i128 {
    if c.narrow {
        eval_i128(e, pkt, &c.e)
    } else {
        let v = eval_big(e, pkt, &c.e);
        let t = bits::big_trunc(&v, 128);
        let l = t.to_u128().unwrap_or(0);
        l as i128
    }
}

/// A compiled expression's tree as a condition (non-zero = true).
#[inline]
pub fn tree_bool(e: &Env, pkt: &Pkt, c: &CExpr) -> bool {
    if c.narrow {
        eval_i128(e, pkt, &c.e) != 0
    } else {
        !eval_big(e, pkt, &c.e).is_zero()
    }
}

/// Stores an i128 value into a field (truncated to its width).
#[inline]
pub fn store_i128(pkt: &mut Pkt, f: FieldSlot, v: i128) {
    if f.width <= 64 {
        pkt.set(f, v as u64);
    } else {
        let u = v as u128;
        let neg = v < 0;
        let l = pkt.limbs_mut(f);
        for (i, x) in l.iter_mut().enumerate() {
            *x = match i {
                0 => u as u64,
                1 => (u >> 64) as u64,
                _ => {
                    if neg {
                        u64::MAX
                    } else {
                        0
                    }
                }
            };
        }
        bits::mask_limbs(l, f.width);
    }
}

pub fn store_big(pkt: &mut Pkt, f: FieldSlot, v: &BigInt) {
    let l = pkt.limbs_mut(f);
    bits::big_to_limbs(v, f.width, l);
}

pub fn lvalue_slot(e: &Env, pkt: &Pkt, lv: &LValue) -> Option<FieldSlot> {
    match lv {
        LValue::Field(f) => Some(*f),
        LValue::DynField(h, k) => dyn_field(e, pkt, h, *k),
    }
}

/// `dst = src` through the tree, exact at any width.
pub fn tree_assign(e: &Env, pkt: &mut Pkt, dst: &LValue, src: &CExpr) {
    let Some(f) = lvalue_slot(e, pkt, dst) else { return };
    if src.narrow {
        let v = eval_i128(e, pkt, &src.e);
        store_i128(pkt, f, v);
    } else {
        let v = eval_big(e, pkt, &src.e);
        store_big(pkt, f, &v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_comp() {
        assert_eq!(two_comp_i128(257, 8), 1);
        assert_eq!(two_comp_i128(-129, 8), 127);
        assert_eq!(two_comp_i128(255, 8), -1);
    }
}
