//! Control flow of a pipeline: conditions, tables (key, lookup, hit/miss), action runs, header and stack helpers.

use super::*;
use crate::plan::flow::END;
use crate::plan::tables::{TableRec, UNSET};

pub(super) fn run_pipeline(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, init: Node) {
    match c.plan {
        Some(plan) if w.tracing() => run_steps::<true, true>(c, w, pkt, init, plan, &plan.flow.steps),
        Some(plan) if plan.flow.acyclic => run_steps::<false, false>(c, w, pkt, init, plan, &plan.flow.fast_steps),
        Some(plan) => run_steps::<false, true>(c, w, pkt, init, plan, &plan.flow.fast_steps),
        None => interpret(c, w, pkt, init),
    }
}

/// The reference: walks the program's nodes, conditions through their trees.
fn interpret(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, init: Node) {
    let p = c.p;
    let mut node = Some(init);
    let mut steps = 0;
    while let Some(n) = node {
        if pkt.exit {
            break;
        }
        steps += 1;
        if steps > MAX_NODES {
            break;
        }
        node = match n {
            Node::Table(t) => apply_table(c, w, pkt, t),
            Node::Cond(i) => match p.conds.get(i) {
                Some(cd) => {
                    let v = eval_bool(&c.env(&[], 0), pkt, &cd.expr);
                    if w.tracing() {
                        trace_cond(c, w, i as u32, v);
                    }
                    if v {
                        cd.true_next
                    } else {
                        cd.false_next
                    }
                }
                None => None,
            },
            Node::ActionCall(i) => match p.action_calls.get(i) {
                Some(ac) => {
                    run_action(c, w, pkt, ac.action, &[]);
                    ac.next
                }
                None => None,
            },
        };
    }
}

/// The plan's step array (`TRACE`: `flow.steps`, with a trace line per
/// node; else `flow.fast_steps`, compound conditions as atom branches;
/// `GUARD`: count the steps, for a flow that may loop).
fn run_steps<const TRACE: bool, const GUARD: bool>(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, init: Node, plan: &crate::plan::Plan, flow: &[crate::plan::flow::Step]) {
    use crate::plan::flow::Step;
    let p = c.p;
    let mut i = crate::plan::flow::index(p, Some(init));
    let mut steps = 0;
    // only actions exit: checked here (the parser's primitives) and after
    // each step that runs one (`apply_table` ends the pass itself)
    if pkt.exit {
        return;
    }
    while let Some(step) = flow.get(i as usize) {
        if GUARD {
            steps += 1;
            if steps > MAX_NODES {
                break;
            }
        }
        i = match step {
            Step::IfNonZero { slot, neg, cond, t, f } => {
                let v = (pkt.hv.get(*slot as usize).copied().unwrap_or(0) != 0) != *neg;
                branch::<TRACE>(c, w, v, *cond, *t, *f)
            }
            Step::IfValid { h, neg, cond, t, f } => {
                let v = pkt.valid.get(*h as usize).copied().unwrap_or(false) != *neg;
                branch::<TRACE>(c, w, v, *cond, *t, *f)
            }
            Step::IfCmp { op, slot, k, cond, t, f } => {
                let v = op.test(pkt.hv.get(*slot as usize).copied().unwrap_or(0), *k);
                branch::<TRACE>(c, w, v, *cond, *t, *f)
            }
            Step::Test { b, cond, t, f } => {
                let env = c.env(&[], 0);
                let v = crate::plan::fast::test(&env, pkt, b);
                branch::<TRACE>(c, w, v, *cond, *t, *f)
            }
            Step::Cond { cond, t, f } => match p.conds.get(*cond as usize) {
                Some(cd) => {
                    let env = c.env(&[], 0);
                    let v = eval_bool(&env, pkt, &cd.expr);
                    branch::<TRACE>(c, w, v, *cond, *t, *f)
                }
                None => crate::plan::flow::END,
            },
            Step::Fixed { table, action, has_data, next } => {
                let tab = p.tables.get(*table as usize);
                if TRACE {
                    if let Some(tab) = tab {
                        w.emit(&format!("table {}: miss, default action", tab.name));
                    }
                }
                let data: &[u64] = match (has_data, tab.and_then(|t| t.default_entry.as_ref())) {
                    (true, Some(d)) => &d.data,
                    _ => &[],
                };
                run_action(c, w, pkt, *action as usize, data);
                if pkt.exit {
                    break;
                }
                *next
            }
            Step::Sets { table, action, start, len, next } => {
                if TRACE {
                    trace_sets(c, w, *table, *action);
                }
                let (s, n) = (*start as usize, *len as usize);
                run_set_ops(pkt, plan.flow.ops.get(s..s + n).unwrap_or(&[]), &[]);
                *next
            }
            Step::Table { table } => match plan.tables.recs.get(*table as usize) {
                Some(rec) if !TRACE && !rec.general => apply_rec(c, w, pkt, *table as usize, rec, plan),
                _ => {
                    let n = apply_table(c, w, pkt, *table as usize);
                    crate::plan::flow::index(p, n)
                }
            },
            Step::Call { action, next } => {
                run_action(c, w, pkt, *action as usize, &[]);
                if pkt.exit {
                    break;
                }
                *next
            }
        };
    }
}

/// The trace lines of a `Sets` step: as its table (if any) and its action.
#[cold]
pub(super) fn trace_sets(c: &Ctx, w: &mut WorkerState, table: u32, action: u32) {
    if let Some(tab) = c.p.tables.get(table as usize) {
        w.emit(&format!("table {}: miss, default action", tab.name));
    }
    if let Some(a) = c.p.actions.get(action as usize) {
        w.emit(&format!("action {}", a.name));
    }
}

/// The step after a condition with value `v` (traced when `TRACE`).
///
/// `cold_path` is not a claim that `f` is rare: it makes this a predicted
/// branch. Without it LLVM selects `t` or `f` with the condition as a load
/// index, so every step's address waited for the previous condition's field
/// load (one serial chain of ~3 loads per step, ~115 steps per routed
/// vrouter.p4 packet; perf put a third of the time on that chain). A branch
/// lets the CPU run ahead on its prediction.
#[inline(always)]
pub(super) fn branch<const TRACE: bool>(c: &Ctx, w: &mut WorkerState, v: bool, cond: u32, t: u32, f: u32) -> u32 {
    if TRACE {
        trace_cond(c, w, cond, v);
    }
    if v {
        t
    } else {
        std::hint::cold_path();
        f
    }
}

#[cold]
pub(super) fn trace_cond(c: &Ctx, w: &mut WorkerState, cond: u32, v: bool) {
    if let Some(cd) = c.p.conds.get(cond as usize) {
        w.emit(&format!("condition {}: {v}", cd.name));
    }
}

pub(super) fn build_key(c: &Ctx, pkt: &Pkt, t: &Table, key: &mut [u64]) {
    for k in &t.keys {
        let o = k.off as usize;
        let n = k.nlimbs as usize;
        let Some(dst) = key.get_mut(o..o + n) else { continue };
        match &k.src {
            KeySource::Field(f) => {
                if n == 1 {
                    dst[0] = pkt.hv.get(f.slot as usize).copied().unwrap_or(0);
                } else {
                    // (no collect: a key field wider than 64 bits, an IPv6 address, allocated per packet)
                    let src = pkt.limbs(*f);
                    for (i, d) in dst.iter_mut().enumerate() {
                        *d = src.get(i).copied().unwrap_or(0);
                    }
                }
            }
            KeySource::Valid(h) => {
                let env = c.env(&[], 0);
                dst[0] = resolve_hdr(&env, pkt, h).map_or(0, |h| pkt.valid.get(h).copied().unwrap_or(false) as u64);
            }
        }
        if let Some(m) = &k.mask {
            for (d, m) in dst.iter_mut().zip(m) {
                *d &= *m;
            }
        }
    }
}

pub(super) fn selector_hash(w: &mut WorkerState, pkt: &Pkt, sel: &Selector) -> u64 {
    let mut buf = std::mem::take(&mut w.calc);
    buf.clear();
    let mut bw = bits::BitWriter::new(&mut buf);
    for f in &sel.input {
        bw.put_limbs(f.width, pkt.limbs(*f));
    }
    bw.finish();
    let h = sel.algo.compute(&buf);
    w.calc = buf;
    h
}

pub(super) fn apply_table(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, t: usize) -> Option<Node> {
    let p = c.p;
    let tab = p.tables.get(t)?;
    let guard;
    let st: &crate::table::TableState = match c.tables.get(t) {
        Some(Some(pinned)) => pinned,
        _ => {
            guard = c.rt.tables.get(t)?.load();
            &guard
        }
    };
    let kl = tab.key_limbs as usize;
    // an empty table misses whatever the key (building a key has no side effects)
    let hit = if kl == 0 || st.len == 0 {
        None
    } else {
        if w.key.len() < kl || w.scratch.len() < kl {
            w.key.resize(kl, 0);
            w.scratch.resize(kl, 0);
        }
        // (the worker's buffers borrowed in place: two disjoint fields)
        let (key, scratch) = (&mut w.key[..kl], &mut w.scratch[..]);
        build_key(c, pkt, tab, key);
        st.lookup(key, scratch, c.plan.is_some())
    };
    if let Some(b) = w.counts.block() {
        b.lookup(t, hit.is_some());
    }
    let eaction = match hit {
        Some(ref h) => {
            count_hit(c, pkt, h.entry, tab.direct_counter.is_some(), tab.support_timeout);
            if tab.direct_meter.is_some() {
                meter_hit(c, w, pkt, tab, h.entry);
            }
            Some(h.action)
        }
        None => st.default.as_ref(),
    };
    if w.tracing() {
        let what = match (hit.is_some(), eaction) {
            (true, _) => "hit",
            (false, Some(_)) => "miss, default action",
            (false, None) => "miss, no default action",
        };
        w.emit(&format!("table {}: {what}", tab.name));
    }
    let ran = run_entry_action(c, w, pkt, tab.profile, eaction);
    if pkt.exit {
        return None;
    }
    if hit.is_some() {
        if let Some(n) = tab.next_hit {
            return n;
        }
    } else if let Some(n) = tab.next_miss {
        return n;
    }
    if let Some(a) = ran {
        if let Some((_, n)) = tab.next_by_action.iter().find(|(x, _)| *x == a) {
            return *n;
        }
    }
    tab.base_default_next
}

/// A hit's per-entry counts: the direct counter, the idle-timeout hit time.
#[inline(always)]
fn count_hit(c: &Ctx, pkt: &Pkt, e: &crate::table::Entry, counter: bool, timeout: bool) {
    if counter {
        e.stats.packets.fetch_add(1, Ordering::Relaxed);
        e.stats.bytes.fetch_add(pkt.data.len() as u64, Ordering::Relaxed);
    }
    if timeout {
        e.stats.last_hit_us.store(c.now, Ordering::Relaxed);
        if e.stats.expired_reported.load(Ordering::Relaxed) {
            e.stats.expired_reported.store(false, Ordering::Relaxed);
        }
    }
}

/// A hit on a table with a direct meter: colour the packet.
fn meter_hit(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, tab: &Table, e: &crate::table::Entry) {
    let Some(m) = tab.direct_meter else { return };
    let Some(ma) = c.p.meters.get(m) else { return };
    let amount = if ma.bytes { pkt.data.len() as u64 } else { 1 };
    let color = e.meter().and_then(|m| m.lock().ok()).map_or(GREEN, |mut cell| cell.execute(c.now, amount));
    if let Some(b) = w.counts.block() {
        b.colour(m, color);
    }
    if let Some(rt) = ma.result_target {
        store_i128(pkt, rt, color as i128);
    }
}

/// Runs what a hit entry or the default names (a profile's member or group
/// through table's `profile`); the action run, if any.
#[inline]
fn run_entry_action(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, profile: Option<usize>, eaction: Option<&EAction>) -> Option<usize> {
    match eaction {
        Some(EAction::Direct { action, data }) => {
            run_action(c, w, pkt, *action, data);
            Some(*action)
        }
        Some(EAction::Member(m)) => {
            let ps = c.rt.profiles.get(profile?)?.load();
            let md = ps.members.get(m)?;
            run_action(c, w, pkt, md.action, &md.data);
            Some(md.action)
        }
        Some(EAction::Group(g)) => {
            let pi = profile?;
            let ps = c.rt.profiles.get(pi)?.load();
            let gd = ps.groups.get(g)?;
            if gd.expanded.is_empty() {
                return None;
            }
            let h = match c.p.profiles.get(pi).and_then(|pr| pr.selector.as_ref()) {
                Some(sel) => selector_hash(w, pkt, sel),
                None => 0,
            };
            let md = &gd.expanded[(h % gd.expanded.len() as u64) as usize];
            run_action(c, w, pkt, md.action, &md.data);
            Some(md.action)
        }
        None => None,
    }
}

/// `apply_table` for the plan, from the table's compact record: the key as
/// slot copies, the successor as a step index. Same lookups, effects,
/// actions and successors as `apply_table` (which traced runs use).
fn apply_rec(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, t: usize, rec: &TableRec, plan: &crate::plan::Plan) -> u32 {
    let guard;
    let st: &crate::table::TableState = match c.tables.get(t) {
        Some(Some(pinned)) => pinned,
        _ => match c.rt.tables.get(t) {
            Some(slot) => {
                guard = slot.load();
                &guard
            }
            None => return END,
        },
    };
    let kl = rec.key_limbs as usize;
    // an empty table misses whatever the key (building a key has no side effects)
    let hit = if kl == 0 || st.len == 0 {
        None
    } else {
        if w.key.len() < kl || w.scratch.len() < kl {
            w.key.resize(kl, 0);
            w.scratch.resize(kl, 0);
        }
        let (key, scratch) = (&mut w.key[..kl], &mut w.scratch[..]);
        let (k0, nk) = (rec.key as usize, rec.nkey as usize);
        for op in plan.tables.keys.get(k0..k0 + nk).unwrap_or(&[]) {
            if let Some(d) = key.get_mut(op.off as usize) {
                *d = pkt.hv.get(op.slot as usize).copied().unwrap_or(0) & op.mask;
            }
        }
        st.lookup(key, scratch, true)
    };
    if let Some(b) = w.counts.block() {
        b.lookup(t, hit.is_some());
    }
    let eaction = match hit {
        Some(ref h) => {
            count_hit(c, pkt, h.entry, rec.counter, rec.timeout);
            if rec.meter {
                if let Some(tab) = c.p.tables.get(t) {
                    meter_hit(c, w, pkt, tab, h.entry);
                }
            }
            Some(h.action)
        }
        None => st.default.as_ref(),
    };
    let profile = if rec.profile { c.p.tables.get(t).and_then(|tab| tab.profile) } else { None };
    let ran = run_entry_action(c, w, pkt, profile, eaction);
    if pkt.exit {
        return END;
    }
    let next = if hit.is_some() { rec.next_hit } else { rec.next_miss };
    if next != UNSET {
        return next;
    }
    if let Some(a) = ran {
        let (b0, nb) = (rec.by_action as usize, rec.n_by_action as usize);
        if let Some((_, n)) = plan.tables.by_action.get(b0..b0 + nb).unwrap_or(&[]).iter().find(|(x, _)| *x as usize == a) {
            return *n;
        }
    }
    rec.next_default
}

pub(super) fn run_action(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, action: usize, data: &[u64]) {
    // the common case first: the plan runs an action that only writes fields
    if let (Some(plan), false) = (c.plan, w.tracing()) {
        if let Some(Some((s, n))) = plan.flow.actions.get(action) {
            let (s, n) = (*s as usize, *n as usize);
            run_set_ops(pkt, plan.flow.ops.get(s..s + n).unwrap_or(&[]), data);
            return;
        }
    }
    if let Some(a) = c.p.actions.get(action) {
        if w.tracing() {
            w.emit(&format!("action {}", a.name));
        }
        // Registers the action touches stay locked until it ends (BMv2's guarantee).
        c.rt.action_locks.hold(action, || match c.plan {
            Some(plan) => {
                if let Some(Some((s, n))) = plan.flow.actions.get(action) {
                    let (s, n) = (*s as usize, *n as usize);
                    run_set_ops(pkt, plan.flow.ops.get(s..s + n).unwrap_or(&[]), data);
                } else {
                    run_prims(c, w, pkt, plan.actions.get(action).unwrap_or(&a.prims), data, 0);
                }
            }
            None => run_prims(c, w, pkt, &a.prims, data, 0),
        })
    }
}

/// An action body that only writes fields (see `plan::flow::SetOp`).
#[inline]
pub(super) fn run_set_ops(pkt: &mut Pkt, ops: &[crate::plan::flow::SetOp], data: &[u64]) {
    use crate::plan::flow::SetOp;
    for op in ops {
        let (dst, v) = match *op {
            SetOp::Const { slot, v } => (slot, v),
            SetOp::Move { dst, src, mask } => (dst, pkt.hv.get(src as usize).copied().unwrap_or(0) & mask),
            SetOp::Param { dst, off, mask } => (dst, data.get(off as usize).copied().unwrap_or(0) & mask),
        };
        if let Some(x) = pkt.hv.get_mut(dst as usize) {
            *x = v;
        }
    }
}

pub(super) fn header_fields_copy(p: &Prog, pkt: &mut Pkt, dst: usize, src: usize) {
    let (Some(d), Some(s)) = (p.headers.get(dst), p.headers.get(src)) else { return };
    for (fd, fs) in d.fields.iter().zip(&s.fields) {
        for i in 0..fd.nlimbs().min(fs.nlimbs()) {
            let v = pkt.hv.get(fs.slot as usize + i).copied().unwrap_or(0);
            if let Some(x) = pkt.hv.get_mut(fd.slot as usize + i) {
                *x = v;
            }
        }
    }
    let sv = pkt.valid.get(src).copied().unwrap_or(false);
    let vl = pkt.vl.get(src).copied().unwrap_or(0);
    if let Some(x) = pkt.vl.get_mut(dst) {
        *x = vl;
    }
    set_valid(p, pkt, dst, sv);
}

pub(super) fn zero_header(p: &Prog, pkt: &mut Pkt, h: usize) {
    if let Some(hd) = p.headers.get(h) {
        for f in &hd.fields {
            pkt.limbs_mut(*f).iter_mut().for_each(|x| *x = 0);
        }
    }
}

pub(super) fn stack_push(p: &Prog, pkt: &mut Pkt, hs: &[usize], n: usize, next: &mut u32) {
    let len = hs.len();
    let n = n.min(len);
    if n == 0 {
        return;
    }
    for i in (n..len).rev() {
        header_fields_copy(p, pkt, hs[i], hs[i - n]);
    }
    for &h in &hs[..n] {
        zero_header(p, pkt, h);
        set_valid(p, pkt, h, false);
    }
    *next = (*next as usize + n).min(len) as u32;
}

pub(super) fn stack_pop(p: &Prog, pkt: &mut Pkt, hs: &[usize], n: usize, next: &mut u32) {
    let len = hs.len();
    let n = n.min(len);
    if n == 0 {
        return;
    }
    for i in 0..len - n {
        header_fields_copy(p, pkt, hs[i], hs[i + n]);
    }
    for &h in &hs[len - n..] {
        zero_header(p, pkt, h);
        set_valid(p, pkt, h, false);
    }
    *next = (*next as usize).saturating_sub(n) as u32;
}
