//! The plan: what the engine compiles from a loaded program before running
//! it, kept apart from the program (`program` is pure data, the reference
//! interpreter runs it as it is).
//!
//! * `fast`: each expression classified once (constant, plain field, action
//!   parameter, boolean formula over cheap atoms), indexed by `CExpr::id`;
//! * `flow`: both pipelines as one array of resolved steps (single-atom
//!   conditions inline, fixed-action tables and field-writing actions as
//!   straight-line write lists);
//! * `actions`: each action's primitives with assignments of a constant, a
//!   field or a parameter to a ≤64-bit field turned into direct slot writes
//!   (same indices, so jumps stay valid);
//! * `layout`: headers and checksum inputs with fixed byte layouts, read and
//!   written one word per field;
//! * `select`: parser selects over a one-word key, one masked compare per
//!   transition;
//! * `tables`: per table, what applying it reads, in one small record.
//!
//! Built once per program (`Runtime::new`); never changes while packets run.

pub mod fast;
pub mod flow;
pub mod layout;
pub mod select;
pub mod tables;

use crate::bits;
use crate::program::*;
use fast::Fast;

pub struct Plan {
    /// Per `CExpr::id`: its shortcut.
    pub fast: Vec<Fast>,
    pub flow: flow::Flow,
    /// Per action: its primitives with the short assignment forms.
    pub actions: Vec<Vec<Prim>>,
    /// Per header: its fixed byte layout, if it has one (parser, deparser).
    pub layouts: Vec<Option<layout::Layout>>,
    /// Per calculation: its fixed byte layout, if it has one (checksums).
    pub calcs: Vec<Option<layout::CalcLayout>>,
    /// Per state of the (first) parser: its one-word select, if it has one.
    pub selects: Vec<Option<select::Select>>,
    /// Per state of the (first) parser, per operation: a `set` that is a
    /// plain field write (a constant or a field into a field of at most 64 bits).
    pub parser_sets: Vec<Vec<Option<flow::SetOp>>>,
    /// Per table: its compact record (key as slot copies, effects, successors).
    pub tables: tables::Tables,
}

impl Plan {
    pub fn build(p: &Prog) -> Plan {
        let mut fast = Vec::new();
        each_cexpr(p, &mut |c| {
            let i = c.id as usize;
            if c.id != NO_ID {
                if fast.len() <= i {
                    fast.resize(i + 1, Fast::Tree);
                }
                fast[i] = fast::classify(&c.e, c.narrow);
            }
        });
        let of = |c: &CExpr| fast.get(c.id as usize).unwrap_or(&Fast::Tree);
        let actions: Vec<Vec<Prim>> = p
            .actions
            .iter()
            .map(|a| {
                a.prims
                    .iter()
                    .map(|pr| match pr {
                        Prim::Assign { dst, src } => small_assign(dst, of(src))
                            .or_else(|| short_assign(dst, src))
                            .unwrap_or_else(|| pr.clone()),
                        _ => pr.clone(),
                    })
                    .collect()
            })
            .collect();
        let flow = flow::build(p, &fast, &actions);
        let layouts = p.headers.iter().map(layout::Layout::header).collect();
        let calcs = p.calcs.iter().map(layout::CalcLayout::of).collect();
        let selects = p.parsers.first().map_or(Vec::new(), |ps| ps.states.iter().map(select::Select::of).collect());
        let parser_sets = p.parsers.first().map_or(Vec::new(), |ps| {
            ps.states.iter().map(|st| st.ops.iter().map(|op| parser_set(op, &of)).collect()).collect()
        });
        let tables = tables::build(p);
        Plan { fast, flow, actions, layouts, calcs, selects, parser_sets, tables }
    }
}

/// A parser `set` as one field write, if it is one (no action data in a
/// parser: a parameter reads 0, as `assign` reads it).
fn parser_set<'a>(op: &ParserOp, of: &impl Fn(&CExpr) -> &'a Fast) -> Option<flow::SetOp> {
    let ParserOp::Set(dst, src) = op else { return None };
    Some(match small_assign(dst, of(src))? {
        Prim::SetConst { slot, v } => flow::SetOp::Const { slot, v },
        Prim::Move { dst, src, mask } => flow::SetOp::Move { dst, src, mask },
        Prim::SetParam { dst, off, mask } => flow::SetOp::Param { dst, off, mask },
        _ => return None,
    })
}

/// An assignment to a fixed field of at most 64 bits from a constant, an
/// unsigned field or an action parameter, as one of the short primitives.
fn small_assign(dst: &LValue, src: &Fast) -> Option<Prim> {
    let LValue::Field(d) = dst else { return None };
    if d.width > 64 || d.varbit {
        return None;
    }
    let m = bits::mask64(d.width);
    Some(match *src {
        Fast::Const(v) => Prim::SetConst { slot: d.slot, v: v as u64 & m },
        Fast::Field(s) => Prim::Move { dst: d.slot, src: s, mask: m },
        Fast::Param { off, mask } => Prim::SetParam { dst: d.slot, off, mask: mask & m },
        _ => return None,
    })
}

/// Any other assignment to a fixed field of at most 64 bits from an
/// expression evaluated in i128: the field's slot and mask resolved now
/// (store_i128 truncates the same way).
fn short_assign(dst: &LValue, src: &CExpr) -> Option<Prim> {
    let LValue::Field(d) = dst else { return None };
    if d.width > 64 || d.varbit || !src.narrow {
        return None;
    }
    Some(Prim::SetShort { dst: d.slot, mask: bits::mask64(d.width), src: src.clone() })
}
