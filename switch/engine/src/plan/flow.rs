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
    /// One step per node, each condition one step (traced runs).
    pub steps: Vec<Step>,
    /// The same with compound conditions (`and`, `or`, `not` over atoms)
    /// broken into one branch step per atom, appended after the node steps
    /// (untraced runs: a trace line per condition needs its whole value).
    pub fast_steps: Vec<Step>,
    /// No path through `fast_steps` visits a step twice (p4c's control flow
    /// is a DAG), so a pass needs no step count to stop a loop.
    pub acyclic: bool,
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
    let fast_steps = branches(&steps);
    let acyclic = acyclic(p, &fast_steps);
    Flow { steps, fast_steps, ops, actions, acyclic }
}

/// The steps a step may go to next.
fn successors(p: &Prog, s: &Step, out: &mut Vec<u32>) {
    out.clear();
    match s {
        Step::IfNonZero { t, f, .. }
        | Step::IfValid { t, f, .. }
        | Step::IfCmp { t, f, .. }
        | Step::Test { t, f, .. }
        | Step::Cond { t, f, .. } => out.extend([*t, *f]),
        Step::Fixed { next, .. } | Step::Sets { next, .. } | Step::Call { next, .. } => out.push(*next),
        Step::Table { table } => {
            if let Some(tab) = p.tables.get(*table as usize) {
                out.extend(tab.next_hit.iter().chain(tab.next_miss.iter()).map(|n| index(p, *n)));
                out.extend(tab.next_by_action.iter().map(|(_, n)| index(p, *n)));
                out.push(index(p, tab.base_default_next));
            }
        }
    }
}

/// Whether the step graph has no cycle (depth-first search, colours:
/// 0 unseen, 1 on the current path, 2 done).
fn acyclic(p: &Prog, steps: &[Step]) -> bool {
    let mut colour = vec![0u8; steps.len()];
    let mut next = Vec::new();
    for root in 0..steps.len() {
        if colour[root] != 0 {
            continue;
        }
        // (step, its successors not yet visited)
        let mut stack: Vec<(usize, Vec<u32>)> = Vec::new();
        successors(p, &steps[root], &mut next);
        colour[root] = 1;
        stack.push((root, next.clone()));
        while let Some((at, todo)) = stack.last_mut() {
            match todo.pop() {
                Some(n) if (n as usize) < steps.len() => {
                    let n = n as usize;
                    match colour[n] {
                        1 => return false,
                        0 => {
                            colour[n] = 1;
                            successors(p, &steps[n], &mut next);
                            stack.push((n, next.clone()));
                        }
                        _ => {}
                    }
                }
                Some(_) => {}
                None => {
                    colour[*at] = 2;
                    stack.pop();
                }
            }
        }
    }
    true
}

/// `steps` with every compound condition as a chain of atom branches: `a and
/// b` tests `a`, then `b` only if `a` held; `a or b` the other way round;
/// `not a` swaps the targets. Same order of evaluation as the formula
/// (`plan::fast::test`), and an atom's value is what `test` gives it, so
/// the chain ends at the target the whole formula selects.
fn branches(steps: &[Step]) -> Vec<Step> {
    let mut out = steps.to_vec();
    for i in 0..steps.len() {
        if let Step::Test { b, cond, t, f } = &steps[i] {
            if matches!(b, Bx::And(_) | Bx::Or(_) | Bx::Not(_)) {
                // the node's own index holds a copy of the chain's first step
                let first = chain(&mut out, b, *cond, *t, *f);
                if let Some(s) = out.get(first as usize).cloned() {
                    out[i] = s;
                }
            }
        }
    }
    out
}

/// Appends the branch steps of `b` (true: go to `t`, false: `f`) and returns
/// the index of the first.
fn chain(out: &mut Vec<Step>, b: &Bx, cond: u32, t: u32, f: u32) -> u32 {
    let at = |out: &mut Vec<Step>, s: Step| {
        out.push(s);
        (out.len() - 1) as u32
    };
    match b {
        Bx::And(ab) => {
            let second = chain(out, &ab.1, cond, t, f);
            chain(out, &ab.0, cond, second, f)
        }
        Bx::Or(ab) => {
            let second = chain(out, &ab.1, cond, t, f);
            chain(out, &ab.0, cond, t, second)
        }
        Bx::Not(a) => chain(out, a, cond, f, t),
        Bx::NonZero(slot) => at(out, Step::IfNonZero { slot: *slot, neg: false, cond, t, f }),
        Bx::Zero(slot) => at(out, Step::IfNonZero { slot: *slot, neg: true, cond, t, f }),
        Bx::Valid(h) => at(out, Step::IfValid { h: *h, neg: false, cond, t, f }),
        Bx::Invalid(h) => at(out, Step::IfValid { h: *h, neg: true, cond, t, f }),
        Bx::FieldConst(op, slot, k) => at(out, Step::IfCmp { op: *op, slot: *slot, k: *k, cond, t, f }),
        Bx::FieldField(..) | Bx::Other(_) => at(out, Step::Test { b: b.clone(), cond, t, f }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_step_is_at_most_32_bytes() {
        assert!(std::mem::size_of::<super::Step>() <= 32, "{}", std::mem::size_of::<super::Step>());
    }
}
