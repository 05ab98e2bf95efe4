//! The control flow of both pipelines as one compact array of steps, built
//! once at load time.
//!
//! A program compiled by p4c visits ~100 nodes per packet (vrouter.p4: ~60
//! conditions, ~20 `tbl_act*` tables that only run a fixed action, ~13 real
//! tables). Walking them through `Prog::tables` / `Prog::conds` touches a
//! large struct per node; here each node is one 32-byte [`Step`] in a single
//! vector, with the condition's formula inline and the successor of a
//! fixed-action table resolved in advance.
//!
//! Step `i` is table `i`, then condition `i - tables`, then action call
//! `i - tables - conds` (see [`index`]); successors are step indices, with
//! [`END`] for "pipeline done".

use super::fast::{Bx, Cmp, Fast};
use crate::program::*;

/// "No next node".
pub const END: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub enum Step {
    /// Conditions on one atom, one step each (`cond`: index in `Prog::conds`,
    /// for tracing): a field is non-zero, a header is valid, a field compares
    /// with a constant; `neg`: "zero" / "invalid".
    IfNonZero { slot: u32, neg: bool, cond: u32, t: u32, f: u32 },
    IfValid { h: u32, neg: bool, cond: u32, t: u32, f: u32 },
    IfCmp { op: Cmp, slot: u32, k: u64, cond: u32, t: u32, f: u32 },
    /// A condition whose formula has a shortcut.
    Test { b: Bx, cond: u32, t: u32, f: u32 },
    /// A condition evaluated through its `CExpr`.
    Cond { cond: u32, t: u32, f: u32 },
    /// A keyless table with a const default and nothing per entry: runs
    /// `action` with the default's data (`table`'s `default_entry`).
    Fixed { table: u32, action: u32, has_data: bool, next: u32 },
    /// A fixed-action table or action call whose action only sets fields to
    /// constants or copies fields: `ops[start..start + len]` of `Prog::flow_ops`,
    /// no action call (`table`: table index or [`END`] for an action call).
    Sets { table: u32, action: u32, start: u32, len: u32, next: u32 },
    /// Any other table (`apply_table`).
    Table { table: u32 },
    /// An action call node.
    Call { action: u32, next: u32 },
}

/// The step index of a node.
pub fn index(p: &Prog, n: Option<Node>) -> u32 {
    let i = match n {
        None => return END,
        Some(Node::Table(t)) => t,
        Some(Node::Cond(c)) => p.tables.len() + c,
        Some(Node::ActionCall(a)) => p.tables.len() + p.conds.len() + a,
    };
    u32::try_from(i).unwrap_or(END)
}

/// One field write of a [`Step::Sets`] or of an action that only writes fields.
#[derive(Debug, Clone, Copy)]
pub enum SetOp {
    Const { slot: u32, v: u64 },
    Move { dst: u32, src: u32, mask: u64 },
    /// From the action data (never in a `Sets` step, which has no data).
    Param { dst: u32, off: u32, mask: u64 },
}

/// The action's primitives (the plan's, with short assignments) as plain
/// field writes, if that is all they are (`params`: action parameters allowed).
fn set_ops(actions: &[Vec<Prim>], action: usize, params: bool) -> Option<Vec<SetOp>> {
    actions
        .get(action)?
        .iter()
        .map(|pr| match pr {
            Prim::SetConst { slot, v } => Some(SetOp::Const { slot: *slot, v: *v }),
            Prim::Move { dst, src, mask } => Some(SetOp::Move { dst: *dst, src: *src, mask: *mask }),
            Prim::SetParam { dst, off, mask } if params => Some(SetOp::Param { dst: *dst, off: *off, mask: *mask }),
            _ => None,
        })
        .collect()
}

/// The compiled flow of a program.
pub struct Flow {
    pub steps: Vec<Step>,
    /// Field writes of `Sets` steps and of `actions`.
    pub ops: Vec<SetOp>,
    /// Per action: its primitives as `ops[start..start + len]`, if they are
    /// only field writes.
    pub actions: Vec<Option<(u32, u32)>>,
}

/// Appends `v` to `ops`, returning its range.
fn push(ops: &mut Vec<SetOp>, v: Vec<SetOp>) -> Option<(u32, u32)> {
    let start = u32::try_from(ops.len()).ok()?;
    let len = u32::try_from(v.len()).ok()?;
    ops.extend(v);
    Some((start, len))
}

/// Builds the flow of a loaded program (actions, tables, conditions and
/// action calls must be final).
pub fn build(p: &Prog, fast: &[Fast], prims: &[Vec<Prim>]) -> Flow {
    let mut ops: Vec<SetOp> = Vec::new();
    let actions = (0..p.actions.len()).map(|a| set_ops(prims, a, true).and_then(|v| push(&mut ops, v))).collect();
    let mut sets = |table: u32, action: usize, next: u32| -> Option<Step> {
        let (start, len) = push(&mut ops, set_ops(prims, action, false)?)?;
        Some(Step::Sets { table, action: action as u32, start, len, next })
    };
    let mut steps = Vec::with_capacity(p.tables.len() + p.conds.len() + p.action_calls.len());
    for (ti, t) in p.tables.iter().enumerate() {
        let ti = ti as u32;
        steps.push(match (&t.default_entry, t.fixed_default) {
            (Some(d), true) => {
                // as apply_table on a miss: next_miss, else the action's next, else the default next
                let next = match t.next_miss {
                    Some(n) => n,
                    None => match t.next_by_action.iter().find(|(x, _)| *x == d.action) {
                        Some((_, n)) => *n,
                        None => t.base_default_next,
                    },
                };
                let next = index(p, next);
                match sets(ti, d.action, next) {
                    Some(st) => st,
                    None => Step::Fixed { table: ti, action: d.action as u32, has_data: !d.data.is_empty(), next },
                }
            }
            _ => Step::Table { table: ti },
        });
    }
    for (ci, c) in p.conds.iter().enumerate() {
        let (cond, t, f) = (ci as u32, index(p, c.true_next), index(p, c.false_next));
        steps.push(match fast.get(c.expr.id as usize).unwrap_or(&Fast::Tree) {
            Fast::Bool(Bx::NonZero(slot)) => Step::IfNonZero { slot: *slot, neg: false, cond, t, f },
            Fast::Bool(Bx::Zero(slot)) => Step::IfNonZero { slot: *slot, neg: true, cond, t, f },
            Fast::Bool(Bx::Valid(h)) => Step::IfValid { h: *h, neg: false, cond, t, f },
            Fast::Bool(Bx::Invalid(h)) => Step::IfValid { h: *h, neg: true, cond, t, f },
            Fast::Bool(Bx::FieldConst(op, slot, k)) => Step::IfCmp { op: *op, slot: *slot, k: *k, cond, t, f },
            Fast::Bool(b) => Step::Test { b: b.clone(), cond, t, f },
            _ => Step::Cond { cond, t, f },
        });
    }
    for a in &p.action_calls {
        let next = index(p, a.next);
        steps.push(sets(END, a.action, next).unwrap_or(Step::Call { action: a.action as u32, next }));
    }
    Flow { steps, ops, actions }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_step_is_at_most_32_bytes() {
        assert!(std::mem::size_of::<super::Step>() <= 32, "{}", std::mem::size_of::<super::Step>());
    }
}
