//! Load-time shortcuts for the expression shapes that dominate real programs.
//!
//! p4c and p4compile emit most conditions as small boolean formulas over
//! "field is non-zero", "header is valid" and "field compared with a
//! constant", and most assignments as a constant, a field or an action
//! parameter. Walking the general expression tree for those costs a
//! recursive call and a wide dispatch per node; [`Fast`] pre-classifies each
//! compiled expression once so that the evaluator reads the slot directly.
//!
//! Every shortcut gives exactly the value the tree evaluator gives (the
//! tests at the bottom compare both on many inputs); anything else stays
//! [`Fast::Tree`] and is evaluated as before (i128 when narrow, BigInt
//! otherwise).
//!
//! No-panic contract: slots come from the loader; reads use checked access
//! and read 0 out of range, like `Pkt::get`.

use crate::eval::{tree_bool, Env, Pkt};
use crate::program::*;

/// The pre-classified form of a [`CExpr`].
#[derive(Debug, Clone)]
pub enum Fast {
    /// No shortcut: evaluate the tree.
    Tree,
    /// A constant that fits in i64.
    Const(i64),
    /// An unsigned field of at most 64 bits (its slot).
    Field(u32),
    /// An action parameter of at most 64 bits: limb `off`, masked to its width.
    Param { off: u32, mask: u64 },
    /// A boolean formula (value 0 or 1).
    Bool(Bx),
}

/// A boolean formula over cheap atoms, with short-circuit `and` / `or`.
#[derive(Debug, Clone)]
pub enum Bx {
    /// An unsigned field of at most 64 bits is non-zero / zero.
    NonZero(u32),
    Zero(u32),
    /// A (statically known) header is valid / invalid.
    Valid(u32),
    Invalid(u32),
    /// Unsigned field (≤ 64 bits) compared with a constant in 0..2^64: `field op c`.
    FieldConst(Cmp, u32, u64),
    /// Two unsigned fields (≤ 64 bits): `a op b`.
    FieldField(Cmp, u32, u32),
    Not(Box<Bx>),
    And(Box<(Bx, Bx)>),
    Or(Box<(Bx, Bx)>),
    /// Anything else: the tree evaluator on a sub-expression (non-zero = true).
    Other(Box<CExpr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Cmp {
    fn of(op: BinOp) -> Option<Cmp> {
        Some(match op {
            BinOp::Eq => Cmp::Eq,
            BinOp::Ne => Cmp::Ne,
            BinOp::Gt => Cmp::Gt,
            BinOp::Ge => Cmp::Ge,
            BinOp::Lt => Cmp::Lt,
            BinOp::Le => Cmp::Le,
            _ => return None,
        })
    }

    /// `!(a op b)` is `a (negated op) b` (a total order).
    fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
        }
    }

    /// `a op b` is `b (mirror op) a`.
    fn mirror(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Eq,
            Cmp::Ne => Cmp::Ne,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
        }
    }

    #[inline]
    pub fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
        }
    }
}

/// The slot of an unsigned fixed-width field of at most 64 bits.
fn small_field(e: &Expr) -> Option<u32> {
    match e {
        Expr::Field(f) if f.width <= 64 && !f.signed && !f.varbit => Some(f.slot),
        _ => None,
    }
}

/// Classifies an expression (`narrow`: all intermediates fit in i128).
pub fn classify(e: &Expr, narrow: bool) -> Fast {
    match e {
        Expr::Const(v) if i64::try_from(*v).is_ok() => Fast::Const(*v as i64),
        Expr::Param { off, width } if *width <= 64 => Fast::Param { off: *off, mask: crate::bits::mask64(*width) },
        _ => {
            if let Some(s) = small_field(e) {
                return Fast::Field(s);
            }
            if is_bool(e) {
                return Fast::Bool(boolean(e, narrow));
            }
            Fast::Tree
        }
    }
}

/// Expressions whose value is always 0 or 1.
fn is_bool(e: &Expr) -> bool {
    match e {
        Expr::Valid(HdrRef::Static(_)) => true,
        Expr::Unary(UnOp::Not | UnOp::D2B | UnOp::B2D, _) => true,
        Expr::Binary(op, _, _) => matches!(
            op,
            BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne | BinOp::Gt | BinOp::Ge | BinOp::Lt | BinOp::Le
        ),
        _ => false,
    }
}

/// The formula that is true exactly when `e` evaluates to non-zero.
fn boolean(e: &Expr, narrow: bool) -> Bx {
    match e {
        Expr::Valid(HdrRef::Static(h)) => Bx::Valid(*h as u32),
        Expr::Unary(UnOp::Not, a) => negate(boolean(a, narrow)),
        Expr::Unary(UnOp::D2B | UnOp::B2D, a) => boolean(a, narrow),
        Expr::Binary(BinOp::And, a, b) => Bx::And(Box::new((boolean(a, narrow), boolean(b, narrow)))),
        Expr::Binary(BinOp::Or, a, b) => Bx::Or(Box::new((boolean(a, narrow), boolean(b, narrow)))),
        Expr::Binary(op, a, b) if Cmp::of(*op).is_some() => {
            let c = Cmp::of(*op).unwrap_or(Cmp::Eq);
            match (small_field(a), small_field(b), &**a, &**b) {
                (Some(x), Some(y), _, _) => Bx::FieldField(c, x, y),
                (Some(x), None, _, Expr::Const(k)) if u64::try_from(*k).is_ok() => Bx::FieldConst(c, x, *k as u64),
                (None, Some(y), Expr::Const(k), _) if u64::try_from(*k).is_ok() => Bx::FieldConst(c.mirror(), y, *k as u64),
                _ => other(e, narrow),
            }
        }
        _ => match small_field(e) {
            Some(s) => Bx::NonZero(s),
            None => other(e, narrow),
        },
    }
}

/// `!b`, folded into the atom where there is one for it.
fn negate(b: Bx) -> Bx {
    match b {
        Bx::NonZero(s) => Bx::Zero(s),
        Bx::Zero(s) => Bx::NonZero(s),
        Bx::Valid(h) => Bx::Invalid(h),
        Bx::Invalid(h) => Bx::Valid(h),
        Bx::FieldConst(c, s, k) => Bx::FieldConst(c.negate(), s, k),
        Bx::FieldField(c, a, b) => Bx::FieldField(c.negate(), a, b),
        Bx::Not(a) => *a,
        other => Bx::Not(Box::new(other)),
    }
}

fn other(e: &Expr, narrow: bool) -> Bx {
    Bx::Other(Box::new(CExpr { e: Box::new(e.clone()), narrow, id: NO_ID }))
}

#[inline]
fn slot(pkt: &Pkt, s: u32) -> u64 {
    pkt.hv.get(s as usize).copied().unwrap_or(0)
}

/// Evaluates a formula (the atoms inline at the caller, the rest in [`test_slow`]).
#[inline(always)]
pub fn test(e: &Env, pkt: &Pkt, b: &Bx) -> bool {
    match b {
        Bx::NonZero(s) => slot(pkt, *s) != 0,
        Bx::Zero(s) => slot(pkt, *s) == 0,
        Bx::Valid(h) => pkt.valid.get(*h as usize).copied().unwrap_or(false),
        Bx::Invalid(h) => !pkt.valid.get(*h as usize).copied().unwrap_or(false),
        Bx::FieldConst(c, s, k) => c.test(slot(pkt, *s), *k),
        _ => test_slow(e, pkt, b),
    }
}

#[inline(never)]
fn test_slow(e: &Env, pkt: &Pkt, b: &Bx) -> bool {
    match b {
        // the atoms are tested inline by `test`
        Bx::NonZero(_) | Bx::Zero(_) | Bx::Valid(_) | Bx::Invalid(_) | Bx::FieldConst(..) => test(e, pkt, b),
        Bx::FieldField(c, a, b) => c.test(slot(pkt, *a), slot(pkt, *b)),
        Bx::Not(a) => !test(e, pkt, a),
        Bx::And(ab) => test(e, pkt, &ab.0) && test(e, pkt, &ab.1),
        Bx::Or(ab) => test(e, pkt, &ab.0) || test(e, pkt, &ab.1),
        Bx::Other(x) => tree_bool(e, pkt, x),
    }
}

/// The value of a classified expression, or `None` for [`Fast::Tree`].
#[inline]
pub fn value(e: &Env, pkt: &Pkt, f: &Fast) -> Option<i128> {
    Some(match f {
        Fast::Tree => return None,
        Fast::Const(v) => *v as i128,
        Fast::Field(s) => slot(pkt, *s) as i128,
        Fast::Param { off, mask } => (e.params.get(*off as usize).copied().unwrap_or(0) & mask) as i128,
        Fast::Bool(b) => test(e, pkt, b) as i128,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{eval_big, eval_i128};

    fn f(slot: u32, width: u32, signed: bool) -> Expr {
        Expr::Field(FieldSlot { slot, width, signed, varbit: false })
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }
    fn un(op: UnOp, a: Expr) -> Expr {
        Expr::Unary(op, Box::new(a))
    }

    /// Every shortcut agrees with the tree evaluator.
    #[test]
    fn shortcuts_agree_with_the_tree() {
        let vals = [0u64, 1, 2, 5, 0x7f, 0x80, 0xff, 0xffff, u64::MAX >> 1, u64::MAX];
        let exprs = vec![
            Expr::Const(-3),
            Expr::Const(1 << 80),
            bin(BinOp::Lt, f(1, 64, false), Expr::Const(1 << 70)),
            bin(BinOp::Ne, Expr::Const(-1), f(0, 8, false)),
            Expr::Const(77),
            f(0, 8, false),
            f(1, 64, false),
            f(2, 8, true),
            Expr::Param { off: 0, width: 9 },
            Expr::Param { off: 1, width: 64 },
            Expr::Valid(HdrRef::Static(0)),
            Expr::Valid(HdrRef::Static(5)),
            un(UnOp::D2B, f(0, 8, false)),
            un(UnOp::Not, un(UnOp::D2B, f(1, 64, false))),
            un(UnOp::Not, Expr::Valid(HdrRef::Static(1))),
            un(UnOp::Not, un(UnOp::Not, Expr::Valid(HdrRef::Static(0)))),
            un(UnOp::Not, bin(BinOp::Gt, f(0, 8, false), Expr::Const(5))),
            un(UnOp::Not, bin(BinOp::Le, f(1, 64, false), f(0, 8, false))),
            un(UnOp::Not, bin(BinOp::Or, un(UnOp::D2B, f(0, 8, false)), Expr::Valid(HdrRef::Static(1)))),
            un(UnOp::B2D, bin(BinOp::Eq, f(0, 8, false), Expr::Const(5))),
            bin(BinOp::Ne, f(0, 8, false), Expr::Const(0)),
            bin(BinOp::Gt, Expr::Const(2), f(0, 8, false)),
            bin(BinOp::Le, f(1, 64, false), Expr::Const(-1)),
            bin(BinOp::Lt, f(1, 64, false), f(0, 8, false)),
            bin(BinOp::Ge, f(2, 8, true), Expr::Const(0)),
            bin(BinOp::Eq, f(2, 8, true), f(0, 8, false)),
            bin(
                BinOp::And,
                un(UnOp::Not, un(UnOp::D2B, f(0, 8, false))),
                bin(BinOp::Or, Expr::Valid(HdrRef::Static(1)), bin(BinOp::Ne, f(1, 64, false), Expr::Const(2))),
            ),
            bin(BinOp::Or, un(UnOp::D2B, f(2, 8, true)), bin(BinOp::Add, f(0, 8, false), Expr::Const(1))),
            bin(BinOp::Eq, bin(BinOp::BAnd, f(0, 8, false), Expr::Const(0xf)), Expr::Const(5)),
        ];
        let regs = [];
        let prog_json = r#"{"header_types":[],"headers":[],"parsers":[],"deparsers":[],"actions":[],"pipelines":[]}"#;
        let prog = crate::loader::load(prog_json, true).expect("empty program");
        for (i, &a) in vals.iter().enumerate() {
            for &b in &vals {
                let c = vals[(i + 3) % vals.len()];
                let mut pkt = Pkt::default();
                pkt.hv = vec![a & 0xff, b, c & 0xff];
                pkt.valid = vec![a & 1 == 1, b & 1 == 0];
                // action data is stored masked to each parameter's width
                let params = [b & 0x1ff, c];
                let env = Env { prog: &prog, params: &params, cursor: 0, regs: &regs };
                for x in &exprs {
                    let fast = classify(x, true);
                    let want = eval_i128(&env, &pkt, x);
                    match value(&env, &pkt, &fast) {
                        Some(v) => assert_eq!(v, want, "{x:?} with {a:#x} {b:#x} {c:#x}"),
                        None => assert!(matches!(fast, Fast::Tree)),
                    }
                    if let Fast::Bool(bx) = &fast {
                        assert_eq!(test(&env, &pkt, bx), want != 0, "{x:?}");
                    }
                    let wide = classify(x, false);
                    if let Some(v) = value(&env, &pkt, &wide) {
                        assert_eq!(num_bigint::BigInt::from(v), eval_big(&env, &pkt, x), "{x:?} (BigInt)");
                    }
                }
            }
        }
    }
}
