//! Register atomicity per action, as BMv2 guarantees it: "locking of all
//! register objects accessed within an action [...] the execution of all steps
//! within an action are atomic, relative to other packets executing the same
//! action, or any action that accesses some of the same register objects"
//! (behavioral-model docs/simple_switch.md, "BMv2 register implementation
//! notes"). So workers that share a port's flows never interleave inside one
//! read-modify-write of a register.
//!
//! Registers that some action uses together form one lock group (union of
//! the sets each action touches), so an action takes at most one lock, for
//! the extent of the action (one lock each: no deadlock).
//! The index of a cell is often computed inside the action (a hash), so the
//! lock cannot be narrowed to a cell before the action starts. Actions that
//! touch no register take no lock. The control plane's register read, write
//! and reset take the register's group too (BMv2 locks them as well), so a
//! P4Runtime read never sees half of an action's update, and a write is not
//! lost inside an action's read-modify-write. Meter cells and counters need none of this:
//! a meter cell is updated under its own lock, counters are atomics.

use std::sync::{Mutex, PoisonError};

use crate::program::{Expr, HdrRef, Prim, Prog, UnionRef};

pub struct ActionLocks {
    groups: Box<[Mutex<()>]>,
    /// Per action: the one group it locks (all registers an action uses end up
    /// in one group), or none.
    by_action: Box<[Option<u32>]>,
    /// Per register: the group of the actions that use it, or none (no action
    /// uses it, so a cell's own atomicity is enough).
    by_register: Box<[Option<u32>]>,
}

impl ActionLocks {
    pub fn new(p: &Prog) -> ActionLocks {
        let used: Vec<Vec<usize>> = p.actions.iter().map(|a| registers_of(&a.prims)).collect();
        // Union-find over registers: those an action uses together share a group.
        let mut parent: Vec<usize> = (0..p.registers.len()).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for regs in &used {
            for w in regs.windows(2) {
                let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
                parent[a.max(b)] = a.min(b);
            }
        }
        let mut group_of_root = vec![u32::MAX; parent.len()];
        let mut n = 0u32;
        let by_action = used
            .iter()
            .map(|regs| {
                let first = *regs.first()?;
                let g = &mut group_of_root[root(&mut parent, first)];
                if *g == u32::MAX {
                    *g = n;
                    n += 1;
                }
                Some(*g)
            })
            .collect();
        let by_register = (0..parent.len())
            .map(|r| {
                let g = group_of_root[root(&mut parent, r)];
                (g != u32::MAX).then_some(g)
            })
            .collect();
        ActionLocks { groups: (0..n).map(|_| Mutex::new(())).collect(), by_action, by_register }
    }

    /// Runs action `a`'s body `f`, holding its register group if it has one.
    #[inline]
    pub fn hold<R>(&self, a: usize, f: impl FnOnce() -> R) -> R {
        self.run(self.by_action.get(a).copied().flatten(), f)
    }

    /// Runs a control-plane access `f` to register `r`, holding the group of
    /// the actions that use it. Not reentrant: `f` must not take a group.
    pub fn hold_register<R>(&self, r: usize, f: impl FnOnce() -> R) -> R {
        self.run(self.by_register.get(r).copied().flatten(), f)
    }

    #[inline]
    fn run<R>(&self, group: Option<u32>, f: impl FnOnce() -> R) -> R {
        match group {
            None => f(),
            Some(g) => {
                let _held = self.groups[g as usize].lock().unwrap_or_else(PoisonError::into_inner);
                f()
            }
        }
    }
}

fn registers_of(prims: &[Prim]) -> Vec<usize> {
    let mut out = Vec::new();
    for pr in prims {
        match pr {
            Prim::RegisterRead { reg, index, .. } => {
                out.push(*reg);
                expr(&index.e, &mut out);
            }
            Prim::RegisterWrite { reg, index, src } => {
                out.push(*reg);
                expr(&index.e, &mut out);
                expr(&src.e, &mut out);
            }
            Prim::Assign { src, .. } | Prim::SetShort { src, .. } => expr(&src.e, &mut out),
            Prim::Push { n, .. } | Prim::Pop { n, .. } | Prim::PushUnion { n, .. } | Prim::PopUnion { n, .. } => expr(&n.e, &mut out),
            Prim::JumpIfZero(x, _) | Prim::Truncate(x) | Prim::Assert(x) => expr(&x.e, &mut out),
            Prim::CloneI2E { session, .. } | Prim::CloneE2E { session, .. } => expr(&session.e, &mut out),
            Prim::RngUniform { lo, hi, .. } => {
                expr(&lo.e, &mut out);
                expr(&hi.e, &mut out);
            }
            Prim::HashOffset { base, size, .. } => {
                expr(&base.e, &mut out);
                expr(&size.e, &mut out);
            }
            Prim::Count { index, .. } | Prim::ExecuteMeter { index, .. } => expr(&index.e, &mut out),
            Prim::LogMsg { args, .. } => args.iter().for_each(|a| expr(&a.e, &mut out)),
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Registers an expression reads as values (`{"type": "register"}`).
fn expr(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Register { reg, index } => {
            out.push(*reg);
            expr(index, out);
        }
        Expr::DynField(h, _) => hdr(h, out),
        Expr::Valid(h) => hdr(h, out),
        Expr::UnionValid(u) => union(u, out),
        Expr::Unary(_, a) | Expr::TwoCompMod(a, _) | Expr::SatCast { e: a, .. } => expr(a, out),
        Expr::Binary(_, a, b) => {
            expr(a, out);
            expr(b, out);
        }
        Expr::Cond(c, a, b) => {
            expr(c, out);
            expr(a, out);
            expr(b, out);
        }
        Expr::Const(_)
        | Expr::BigConst(_)
        | Expr::Field(_)
        | Expr::Param { .. }
        | Expr::StackLastIndex(_)
        | Expr::StackSize(_)
        | Expr::Lookahead { .. } => {}
    }
}

fn hdr(h: &HdrRef, out: &mut Vec<usize>) {
    match h {
        HdrRef::StackElem(_, i) => expr(i, out),
        HdrRef::UnionMember(u, _) => union(u, out),
        HdrRef::Cond(c, a, b) => {
            expr(c, out);
            hdr(a, out);
            hdr(b, out);
        }
        HdrRef::Static(_) | HdrRef::StackLast(_) => {}
    }
}

fn union(u: &UnionRef, out: &mut Vec<usize>) {
    if let UnionRef::StackElem(_, i) = u {
        expr(i, out);
    }
}
