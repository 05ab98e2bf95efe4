//! Expressions as the stages evaluate them: the plan's shortcut for an
//! expression when it has one (`plan::fast`), else its tree (`eval`). This
//! choice lives here, above both, so that `eval` (below `plan`) never calls
//! into the plan: the layers depend one way.

use std::ops::Deref;

use super::*;
use crate::plan::fast::{self, Fast};

/// `eval`'s environment plus the plan's shortcuts by `CExpr::id` (empty:
/// the reference interpreter, every expression through its tree).
pub struct Scope<'a> {
    pub env: Env<'a>,
    pub fast: &'a [Fast],
}

impl<'a> Deref for Scope<'a> {
    type Target = Env<'a>;
    #[inline(always)]
    fn deref(&self) -> &Env<'a> {
        &self.env
    }
}

impl Scope<'_> {
    /// The plan's shortcut for `c` (`Tree` when interpreting).
    #[inline(always)]
    pub fn fast_of(&self, c: &CExpr) -> &Fast {
        self.fast.get(c.id as usize).unwrap_or(&Fast::Tree)
    }
}

/// The value of `c` as an i128 (big results truncated to 128 bits).
#[inline]
pub fn eval_c(s: &Scope, pkt: &Pkt, c: &CExpr) -> i128 {
    match fast::value(s, pkt, s.fast_of(c)) {
        Some(v) => v,
        None => tree_c(s, pkt, c),
    }
}

/// `c` as a condition (non-zero = true).
#[inline]
pub fn eval_bool(s: &Scope, pkt: &Pkt, c: &CExpr) -> bool {
    let f = s.fast_of(c);
    if let Fast::Bool(b) = f {
        return fast::test(s, pkt, b);
    }
    match fast::value(s, pkt, f) {
        Some(v) => v != 0,
        None => tree_bool(s, pkt, c),
    }
}

/// `dst = src`, exact at any width.
#[inline]
pub fn assign(s: &Scope, pkt: &mut Pkt, dst: &LValue, src: &CExpr) {
    if let Some(v) = fast::value(s, pkt, s.fast_of(src)) {
        if let Some(f) = lvalue_slot(s, pkt, dst) {
            store_i128(pkt, f, v);
        }
        return;
    }
    tree_assign(s, pkt, dst, src)
}
