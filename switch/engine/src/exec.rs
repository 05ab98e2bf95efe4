//! The packet pipeline with v1model / simple_switch semantics: parser,
//! checksum verification, ingress, traffic manager (clone, digest, resubmit,
//! multicast, drop, unicast), egress, E2E clone, recirculation, checksum
//! update and deparser.
//!
//! No-panic contract: frames of any length and content are handled; reads past
//! the end of a frame become parser errors (`PacketTooShort`), every loop is
//! bounded (parser states, action jumps, pipeline nodes, recirculations and
//! replicas per input frame).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use num_traits::ToPrimitive;

use crate::api::Switch;
use crate::types::Digest;
use crate::bits;
use crate::eval::*;
use crate::externs::{self, GREEN};
use crate::program::*;
use crate::runtime::Runtime;
use crate::table::EAction;

/// Parser states visited per packet before `ParserTimeout`.
const MAX_PARSER_STEPS: usize = 4096;
/// Primitives executed per action call (guards `_jump` loops).
const MAX_ACTION_STEPS: usize = 1 << 16;
/// Pipeline nodes visited per pass.
const MAX_NODES: usize = 1 << 16;
/// Ingress/egress passes (replicas, clones, recirculations) per input frame.
const MAX_JOBS: usize = 4096;
/// Resubmit/recirculate depth.
const MAX_DEPTH: u32 = 16;

/// Instance types (v1model).
pub const PKT_NORMAL: u64 = 0;
pub const PKT_INGRESS_CLONE: u64 = 1;
pub const PKT_EGRESS_CLONE: u64 = 2;
pub const PKT_RECIRC: u64 = 4;
pub const PKT_REPLICATION: u64 = 5;
pub const PKT_RESUBMIT: u64 = 6;

enum Job {
    Ingress { pkt: Box<Pkt>, port: u32, inst: u64, preserved: Vec<(FieldSlot, Vec<u64>)> },
    Egress { pkt: Box<Pkt>, port: u32, rid: u32, inst: Option<u64>, trunc: u32 },
}

/// Per-thread scratch state.
pub struct WorkerState {
    prog_ptr: usize,
    pkt: Option<Box<Pkt>>,
    key: Vec<u64>,
    scratch: Vec<u64>,
    tmp: Vec<u64>,
    out: Vec<u8>,
    calc: Vec<u8>,
    jobs: Vec<Job>,
    pool: Vec<Box<Pkt>>,
    /// Per-packet trace sink (parser states, tables, actions, log_msg).
    pub trace: Option<Box<dyn FnMut(&str) + Send>>,
    /// While pinned (`Switch::pin`): the program and a snapshot of every table,
    /// so a batch of packets takes no per-table atomic loads.
    pub(crate) pinned_rt: Option<Arc<Runtime>>,
    /// `None` for tables the packet path never reads (`Table::fixed_default`).
    pub(crate) pinned_tables: Vec<Option<Arc<crate::table::TableState>>>,
}

impl WorkerState {
    #[inline]
    fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    fn emit(&mut self, msg: &str) {
        if let Some(t) = self.trace.as_mut() {
            t(msg);
        }
    }
}

impl Default for WorkerState {
    fn default() -> Self {
        Self::new()
    }
}

impl WorkerState {
    pub fn new() -> WorkerState {
        WorkerState {
            prog_ptr: 0,
            pkt: None,
            key: Vec::new(),
            scratch: Vec::new(),
            tmp: vec![0; 64],
            out: Vec::with_capacity(10240),
            calc: Vec::with_capacity(2048),
            jobs: Vec::new(),
            pool: Vec::new(),
            trace: None,
            pinned_rt: None,
            pinned_tables: Vec::new(),
        }
    }

    fn fit(&mut self, p: &Prog, ptr: usize) {
        if self.prog_ptr == ptr {
            return;
        }
        self.prog_ptr = ptr;
        self.pkt = Some(Box::new(Pkt::new(p)));
        let kl = p.tables.iter().map(|t| t.key_limbs as usize).max().unwrap_or(0).max(1);
        self.key = vec![0; kl];
        self.scratch = vec![0; kl];
        self.pool.clear();
    }

    fn take_pkt(&mut self, p: &Prog) -> Box<Pkt> {
        match self.pool.pop() {
            Some(mut k) => {
                k.fit(p);
                k
            }
            None => Box::new(Pkt::new(p)),
        }
    }
}

struct Ctx<'a> {
    sw: &'a Switch,
    rt: &'a Runtime,
    p: &'a Prog,
    now: u64,
    /// The pinned snapshot of every table, or empty (then each apply loads its table).
    tables: &'a [Option<Arc<crate::table::TableState>>],
}

impl<'a> Ctx<'a> {
    fn env<'b>(&'b self, params: &'b [u64], cursor: usize) -> Env<'b> {
        Env { prog: self.p, params, cursor, regs: &self.rt.registers }
    }
}

pub fn process(
    sw: &Switch,
    rt: &Runtime,
    w: &mut WorkerState,
    port: u32,
    frame: &[u8],
    out: &mut dyn FnMut(u32, &[u8]),
) {
    let p: &Prog = &rt.prog;
    w.fit(p, Arc::as_ptr(&rt.prog) as usize);
    let tables = std::mem::take(&mut w.pinned_tables);
    let c = Ctx { sw, rt, p, now: sw.now_us(), tables: &tables };
    // Fast path: the first ingress pass runs in the worker's own packet.
    let mut pkt = match w.pkt.take() {
        Some(k) => k,
        None => w.take_pkt(p),
    };
    pkt.data.clear();
    pkt.data.extend_from_slice(frame);
    pkt.depth = 0;
    ingress(&c, w, pkt, port, PKT_NORMAL, &[], out);
    let mut n = 0;
    while let Some(job) = w.jobs.pop() {
        n += 1;
        if n > MAX_JOBS {
            // drop the rest
            for j in w.jobs.drain(..) {
                match j {
                    Job::Ingress { pkt, .. } | Job::Egress { pkt, .. } => w.pool.push(pkt),
                }
            }
            break;
        }
        match job {
            Job::Ingress { pkt, port, inst, preserved } => ingress(&c, w, pkt, port, inst, &preserved, out),
            Job::Egress { pkt, port, rid, inst, trunc } => egress(&c, w, pkt, port, rid, inst, trunc, out),
        }
    }
    w.pinned_tables = tables;
}

/// Gives a packet back to the worker (its main slot first, then the pool).
fn recycle(w: &mut WorkerState, pkt: Box<Pkt>) {
    if w.pkt.is_none() {
        w.pkt = Some(pkt);
    } else if w.pool.len() < 64 {
        w.pool.push(pkt);
    }
}

fn capture(pkt: &Pkt, p: &Prog, fl: Option<usize>) -> Vec<(FieldSlot, Vec<u64>)> {
    match fl.and_then(|f| p.field_lists.get(f)) {
        Some(l) => l.fields.iter().map(|f| (*f, pkt.limbs(*f).to_vec())).collect(),
        None => Vec::new(),
    }
}

fn restore(pkt: &mut Pkt, vals: &[(FieldSlot, Vec<u64>)]) {
    for (f, v) in vals {
        let l = pkt.limbs_mut(*f);
        for (d, s) in l.iter_mut().zip(v) {
            *d = *s;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn ingress(
    c: &Ctx,
    w: &mut WorkerState,
    mut pkt: Box<Pkt>,
    port: u32,
    inst: u64,
    preserved: &[(FieldSlot, Vec<u64>)],
    out: &mut dyn FnMut(u32, &[u8]),
) {
    let p = c.p;
    let sm = &p.std;
    pkt.fit(p);
    pkt.reset(p);
    pkt.ingress_port = port;
    pkt.set_opt(sm.ingress_port, port as u64);
    pkt.set_opt(sm.instance_type, inst);
    pkt.set_opt(sm.packet_length, pkt.data.len() as u64);
    pkt.set_opt(sm.ingress_global_timestamp, c.now);
    restore(&mut pkt, preserved);
    parse_and_verify(c, w, &mut pkt);
    if let Some(init) = p.ingress.init {
        run_pipeline(c, w, &mut pkt, init);
    }
    if pkt.dropped_by_assert {
        recycle(w, pkt);
        return;
    }
    // --- traffic manager ---
    if let Some((sess, fl)) = pkt.clone_i2e {
        let pre = c.rt.pre.load();
        if let Some(s) = pre.clones.get(&sess) {
            let vals = capture(&pkt, p, fl);
            for r in s.replicas.iter() {
                let mut k = w.take_pkt(p);
                k.data.clear();
                k.data.extend_from_slice(&pkt.data);
                k.ingress_port = pkt.ingress_port;
                k.depth = pkt.depth;
                k.reset(p);
                k.set_opt(sm.ingress_port, pkt.ingress_port as u64);
                k.set_opt(sm.packet_length, k.data.len() as u64);
                k.set_opt(sm.ingress_global_timestamp, c.now);
                parse_and_verify(c, w, &mut k);
                // as simple_switch: metadata reset after the re-parse (only the
                // field list survives), packet_length = ingress size
                k.reset_metadata(p);
                restore(&mut k, &vals);
                k.set_opt(sm.packet_length, k.data.len() as u64);
                w.jobs.push(Job::Egress {
                    pkt: k,
                    port: r.egress_port,
                    rid: r.rid,
                    inst: Some(PKT_INGRESS_CLONE),
                    trunc: s.packet_length_bytes,
                });
            }
        }
    }
    if let Some(ll) = pkt.digest {
        if let Some(l) = p.learn_lists.get(ll) {
            c.sw.digests.push(Digest {
                learn_list: l.name.clone(),
                id: l.id,
                values: l.fields.iter().map(|f| bits::limbs_to_bytes(pkt.limbs(*f), f.width)).collect(),
                timestamp_us: c.now,
            });
        }
    }
    if let Some(fl) = pkt.resubmit {
        if pkt.depth < MAX_DEPTH {
            let vals = capture(&pkt, p, fl);
            let mut k = w.take_pkt(p);
            k.data.clear();
            k.data.extend_from_slice(&pkt.data);
            k.depth = pkt.depth + 1;
            w.jobs.push(Job::Ingress { pkt: k, port: pkt.ingress_port, inst: PKT_RESUBMIT, preserved: vals });
        }
        recycle(w, pkt);
        return;
    }
    let mcast = pkt.get_opt(sm.mcast_grp) as u32;
    if mcast != 0 {
        let pre = c.rt.pre.load();
        if let Some(reps) = pre.mc.get(&mcast) {
            for r in reps.iter() {
                let mut k = w.take_pkt(p);
                k.clone_from(&pkt);
                w.jobs.push(Job::Egress { pkt: k, port: r.egress_port, rid: r.rid, inst: Some(PKT_REPLICATION), trunc: 0 });
            }
        }
        recycle(w, pkt);
        return;
    }
    let spec = pkt.get_opt(sm.egress_spec) as u32;
    if spec == c.sw.config.drop_port {
        recycle(w, pkt);
        return;
    }
    // simple_switch marks every unicast packet normal, even after resubmit or
    // recirculation.
    egress(c, w, pkt, spec, 0, Some(PKT_NORMAL), 0, out);
}

#[allow(clippy::too_many_arguments)]
fn egress(
    c: &Ctx,
    w: &mut WorkerState,
    mut pkt: Box<Pkt>,
    port: u32,
    rid: u32,
    inst: Option<u64>,
    trunc: u32,
    out: &mut dyn FnMut(u32, &[u8]),
) {
    let p = c.p;
    let sm = &p.std;
    pkt.set_opt(sm.egress_port, port as u64);
    // Anything but the drop port, so that a drop in egress is detectable.
    pkt.set_opt(sm.egress_spec, c.sw.config.drop_port as u64 + 1);
    pkt.set_opt(sm.egress_rid, rid as u64);
    if let Some(i) = inst {
        pkt.set_opt(sm.instance_type, i);
    }
    pkt.set_opt(sm.enq_timestamp, c.now);
    pkt.set_opt(sm.deq_timedelta, 0);
    pkt.set_opt(sm.enq_qdepth, 0);
    pkt.set_opt(sm.deq_qdepth, 0);
    pkt.set_opt(sm.egress_global_timestamp, c.now);
    pkt.exit = false;
    pkt.clone_e2e = None;
    pkt.recirculate = None;
    if let Some(init) = p.egress.init {
        run_pipeline(c, w, &mut pkt, init);
    }
    if pkt.dropped_by_assert {
        recycle(w, pkt);
        return;
    }
    if let Some((sess, fl)) = pkt.clone_e2e {
        let pre = c.rt.pre.load();
        if let Some(s) = pre.clones.get(&sess) {
            let vals = capture(&pkt, p, fl);
            for r in s.replicas.iter() {
                let mut k = w.take_pkt(p);
                k.clone_from(&pkt);
                k.reset_metadata(p);
                restore(&mut k, &vals);
                k.set_opt(sm.packet_length, pkt.get_opt(sm.packet_length));
                k.truncate = None;
                w.jobs.push(Job::Egress {
                    pkt: k,
                    port: r.egress_port,
                    rid: r.rid,
                    inst: Some(PKT_EGRESS_CLONE),
                    trunc: s.packet_length_bytes,
                });
            }
        }
    }
    if pkt.get_opt(sm.egress_spec) as u32 == c.sw.config.drop_port {
        recycle(w, pkt);
        return;
    }
    update_checksums(c, w, &mut pkt);
    run_deparser_prims(c, w, &mut pkt);
    let mut buf = std::mem::take(&mut w.out);
    deparse(p, &pkt, &mut buf);
    if let Some(fl) = pkt.recirculate {
        if pkt.depth < MAX_DEPTH {
            let vals = capture(&pkt, p, fl);
            let mut k = w.take_pkt(p);
            k.data.clear();
            k.data.extend_from_slice(&buf);
            k.depth = pkt.depth + 1;
            w.jobs.push(Job::Ingress { pkt: k, port: pkt.ingress_port, inst: PKT_RECIRC, preserved: vals });
        }
    } else {
        let mut n = buf.len();
        if let Some(t) = pkt.truncate {
            n = n.min(t);
        }
        if trunc > 0 {
            n = n.min(trunc as usize);
        }
        out(port, &buf[..n]);
    }
    w.out = buf;
    recycle(w, pkt);
}

// ----- parser --------------------------------------------------------------

fn extract_into(p: &Prog, pkt: &mut Pkt, h: usize, cursor: &mut usize, vl_bits: Option<u32>) -> Result<(), ErrKind> {
    let Some(hdr) = p.headers.get(h) else { return Err(ErrKind::InvalidArg) };
    let var = hdr.varbit_field.map(|_| vl_bits.unwrap_or(0)).unwrap_or(0);
    if let (Some(vf), Some(vb)) = (hdr.varbit_field, vl_bits) {
        if vb > hdr.fields[vf].width {
            return Err(ErrKind::HeaderTooShort);
        }
    }
    let total = hdr.fixed_bits as usize + var as usize;
    let start = *cursor * 8;
    if start + total > pkt.data.len() * 8 {
        return Err(ErrKind::TooShort);
    }
    let mut bit = start;
    for f in &hdr.fields {
        let w = if f.varbit { var } else { f.width };
        if f.width <= 64 && !f.varbit {
            let v = bits::get_bits(&pkt.data, bit, w).unwrap_or(0);
            pkt.hv[f.slot as usize] = v;
        } else {
            let n = f.nlimbs();
            let s = f.slot as usize;
            let (data, hv) = (&pkt.data, &mut pkt.hv);
            if let Some(dst) = hv.get_mut(s..s + n) {
                bits::get_bits_wide(data, bit, w, dst);
            }
        }
        bit += w as usize;
    }
    pkt.vl[h] = var;
    set_valid(p, pkt, h, true);
    *cursor += total.div_ceil(8);
    Ok(())
}

fn set_valid(p: &Prog, pkt: &mut Pkt, h: usize, v: bool) {
    if v {
        if let Some(u) = p.headers.get(h).and_then(|x| x.union) {
            for &o in &p.unions[u].headers {
                if o != h {
                    pkt.valid[o] = false;
                }
            }
        }
    }
    if let Some(x) = pkt.valid.get_mut(h) {
        *x = v;
    }
}

#[derive(Debug, Clone, Copy)]
enum ErrKind {
    TooShort,
    NoMatch,
    StackOob,
    HeaderTooShort,
    Timeout,
    InvalidArg,
    Code(u64),
}

fn parse_and_verify(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt) {
    let p = c.p;
    let res = match p.parsers.first() {
        Some(parser) => run_parser(c, w, pkt, parser),
        None => Ok(0),
    };
    let code = match res {
        Ok(cursor) => {
            pkt.payload_off = cursor;
            p.errors.no_error
        }
        Err((e, cursor)) => {
            pkt.payload_off = cursor.min(pkt.data.len());
            match e {
                ErrKind::TooShort => p.errors.packet_too_short,
                ErrKind::NoMatch => p.errors.no_match,
                ErrKind::StackOob => p.errors.stack_out_of_bounds,
                ErrKind::HeaderTooShort => p.errors.header_too_short,
                ErrKind::Timeout => p.errors.parser_timeout,
                ErrKind::InvalidArg => p.errors.parser_invalid_argument,
                ErrKind::Code(c) => c,
            }
        }
    };
    pkt.set_opt(p.std.parser_error, code);
    // checksum verification
    for ck in &p.checksums {
        if !ck.verify {
            continue;
        }
        let env = c.env(&[], 0);
        if let Some(cond) = &ck.cond {
            if !eval_bool(&env, pkt, cond) {
                continue;
            }
        }
        let v = compute_calc(p, w, pkt, ck.calc);
        let cur = pkt.limbs(ck.target).first().copied().unwrap_or(0);
        if cur != v & bits::mask64(ck.target.width.min(64)) {
            pkt.set_opt(p.std.checksum_error, 1);
        }
    }
}

fn run_parser(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, parser: &Parser) -> Result<usize, (ErrKind, usize)> {
    let p = c.p;
    let mut cursor = 0usize;
    let mut state = parser.init;
    let mut steps = 0;
    while let Some(si) = state {
        steps += 1;
        if steps > MAX_PARSER_STEPS {
            return Err((ErrKind::Timeout, cursor));
        }
        let Some(st) = parser.states.get(si) else { return Err((ErrKind::InvalidArg, cursor)) };
        if w.tracing() {
            w.emit(&format!("parser {}: state {} at byte {cursor}", parser.name, st.name));
        }
        for op in &st.ops {
            let r = match op {
                ParserOp::Extract(h) => {
                    let env = c.env(&[], cursor);
                    match resolve_hdr(&env, pkt, h) {
                        Some(h) => extract_into(p, pkt, h, &mut cursor, None),
                        None => Err(ErrKind::StackOob),
                    }
                }
                ParserOp::ExtractStack(s) => {
                    let n = pkt.stack_next.get(*s).copied().unwrap_or(0) as usize;
                    match p.stacks.get(*s).and_then(|st| st.headers.get(n)) {
                        Some(&h) => {
                            let r = extract_into(p, pkt, h, &mut cursor, None);
                            if r.is_ok() {
                                pkt.stack_next[*s] += 1;
                            }
                            r
                        }
                        None => Err(ErrKind::StackOob),
                    }
                }
                ParserOp::ExtractUnionStack(us, m) => {
                    let n = pkt.ustack_next.get(*us).copied().unwrap_or(0) as usize;
                    match p.union_stacks.get(*us).and_then(|st| st.unions.get(n)).and_then(|&u| p.unions[u].headers.get(*m)) {
                        Some(&h) => {
                            let r = extract_into(p, pkt, h, &mut cursor, None);
                            if r.is_ok() {
                                pkt.ustack_next[*us] += 1;
                            }
                            r
                        }
                        None => Err(ErrKind::StackOob),
                    }
                }
                ParserOp::ExtractVL(_, len) | ParserOp::ExtractVLStack(_, len) => {
                    let env = c.env(&[], cursor);
                    let bitsv = eval_c(&env, pkt, len);
                    let target = match op {
                        ParserOp::ExtractVL(h, _) => resolve_hdr(&env, pkt, h),
                        ParserOp::ExtractVLStack(s, _) => {
                            let n = pkt.stack_next.get(*s).copied().unwrap_or(0) as usize;
                            p.stacks.get(*s).and_then(|st| st.headers.get(n)).copied()
                        }
                        _ => None,
                    };
                    match (target, u32::try_from(bitsv)) {
                        (Some(hh), Ok(b)) if b % 8 == 0 => {
                            let r = extract_into(p, pkt, hh, &mut cursor, Some(b));
                            if r.is_ok() {
                                if let ParserOp::ExtractVLStack(s, _) = op {
                                    pkt.stack_next[*s] += 1;
                                }
                            }
                            r
                        }
                        (None, _) => Err(ErrKind::StackOob),
                        _ => Err(ErrKind::InvalidArg),
                    }
                }
                ParserOp::Set(lv, e) => {
                    let env = c.env(&[], cursor);
                    assign(&env, pkt, lv, e);
                    Ok(())
                }
                ParserOp::Verify(cond, err) => {
                    let env = c.env(&[], cursor);
                    if eval_bool(&env, pkt, cond) {
                        Ok(())
                    } else {
                        Err(ErrKind::Code(eval_c(&env, pkt, err) as u64))
                    }
                }
                ParserOp::Advance(n) => {
                    let env = c.env(&[], cursor);
                    let b = eval_c(&env, pkt, n);
                    if b < 0 || b % 8 != 0 {
                        Err(ErrKind::InvalidArg)
                    } else {
                        let nb = (b / 8) as usize;
                        if cursor.saturating_add(nb) > pkt.data.len() {
                            Err(ErrKind::TooShort)
                        } else {
                            cursor += nb;
                            Ok(())
                        }
                    }
                }
                ParserOp::Prim(prim) => {
                    run_prims(c, w, pkt, std::slice::from_ref(prim), &[], cursor);
                    Ok(())
                }
                ParserOp::Require(n) => {
                    if pkt.data.len().saturating_sub(cursor) < *n as usize {
                        Err(ErrKind::TooShort)
                    } else {
                        Ok(())
                    }
                }
            };
            if let Err(e) = r {
                return Err((e, cursor));
            }
        }
        state = select(c, w, pkt, st, cursor).map_err(|e| (e, cursor))?;
    }
    Ok(cursor)
}

fn key_part_value(c: &Ctx, pkt: &Pkt, part: &KeyPart, cursor: usize, out: &mut [u64]) -> u32 {
    match part {
        KeyPart::Field(f) => {
            let l = pkt.limbs(*f);
            for (i, o) in out.iter_mut().enumerate() {
                *o = l.get(i).copied().unwrap_or(0);
            }
            f.width
        }
        KeyPart::DynField(h, k) => {
            let env = c.env(&[], cursor);
            match dyn_field(&env, pkt, h, *k) {
                Some(f) => {
                    let l = pkt.limbs(f);
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = l.get(i).copied().unwrap_or(0);
                    }
                    f.width
                }
                None => {
                    out.iter_mut().for_each(|x| *x = 0);
                    0
                }
            }
        }
        KeyPart::Lookahead { off, width } => {
            let start = cursor * 8 + *off as usize;
            if !bits::get_bits_wide(&pkt.data, start, *width, out) {
                out.iter_mut().for_each(|x| *x = 0);
            }
            *width
        }
    }
}

/// Shifts `acc` left by `n` bits and ORs in `v` (limbs, little-endian).
fn shl_or(acc: &mut [u64], n: u32, v: &[u64]) {
    if n > 0 {
        let words = (n / 64) as usize;
        let b = n % 64;
        for i in (0..acc.len()).rev() {
            let src = i.checked_sub(words);
            let mut x = src.map_or(0, |s| acc[s] << b);
            if b > 0 {
                if let Some(s) = src.and_then(|s| s.checked_sub(1)) {
                    x |= acc[s] >> (64 - b);
                }
            }
            acc[i] = x;
        }
    }
    for (a, x) in acc.iter_mut().zip(v) {
        *a |= *x;
    }
}

fn select(c: &Ctx, w: &mut WorkerState, pkt: &Pkt, st: &ParseState, cursor: usize) -> Result<Option<usize>, ErrKind> {
    if st.transitions.is_empty() {
        return Ok(None);
    }
    if st.key.is_empty() {
        for t in &st.transitions {
            if let TransValue::Default = t.value {
                return Ok(t.next);
            }
        }
        return Ok(st.transitions.first().and_then(|t| t.next));
    }
    let kl = bits::limbs(st.key_bits.max(1));
    let mut keybuf = std::mem::take(&mut w.scratch);
    if keybuf.len() < kl {
        keybuf.resize(kl, 0);
    }
    let key = &mut keybuf[..kl];
    key.iter_mut().for_each(|x| *x = 0);
    let mut compressed: Option<Vec<u64>> = None;
    let mut part = std::mem::take(&mut w.tmp);
    for (i, kp) in st.key.iter().enumerate() {
        let pw = st.key_widths[i];
        let nl = bits::limbs(pw.max(1));
        if part.len() < nl {
            part.resize(nl, 0);
        }
        key_part_value(c, pkt, kp, cursor, &mut part[..nl]);
        shl_or(key, pw, &part[..nl]);
    }
    let needs_vset = st.transitions.iter().any(|t| matches!(t.value, TransValue::Vset { .. }));
    if needs_vset {
        let mut ck = vec![0u64; kl];
        for kp in st.key.iter() {
            let wmax = st.key_bits;
            let nl = bits::limbs(wmax.max(1));
            if part.len() < nl {
                part.resize(nl, 0);
            }
            let rw = key_part_value(c, pkt, kp, cursor, &mut part[..nl]);
            shl_or(&mut ck, rw, &part[..nl]);
        }
        compressed = Some(ck);
    }
    w.tmp = part;
    let r = match_transitions(c, st, key, compressed.as_deref());
    w.scratch = keybuf;
    r
}

fn match_transitions(c: &Ctx, st: &ParseState, key: &[u64], compressed: Option<&[u64]>) -> Result<Option<usize>, ErrKind> {
    for t in &st.transitions {
        let hit = match &t.value {
            TransValue::Default => true,
            TransValue::Hex { value, mask } => match mask {
                Some(m) => key.iter().zip(value).zip(m).all(|((k, v), m)| k & m == v & m),
                None => key == &value[..],
            },
            TransValue::Vset { vset, mask } => {
                let ck = compressed.unwrap_or(key);
                let set = c.rt.vsets.get(*vset).map(|s| s.load_full());
                set.is_some_and(|s| {
                    s.iter().any(|(v, vm)| {
                        ck.iter().enumerate().all(|(i, k)| {
                            let m = vm.get(i).copied().unwrap_or(0) & mask.as_ref().map_or(u64::MAX, |m| m.get(i).copied().unwrap_or(0));
                            k & m == v.get(i).copied().unwrap_or(0) & m
                        })
                    })
                })
            }
        };
        if hit {
            return Ok(t.next);
        }
    }
    Err(ErrKind::NoMatch)
}

// ----- deparser / checksums --------------------------------------------------

fn emit_header(p: &Prog, pkt: &Pkt, h: usize, buf: &mut Vec<u8>) {
    let Some(hdr) = p.headers.get(h) else { return };
    let var = pkt.vl.get(h).copied().unwrap_or(0);
    let mut bw = bits::BitWriter::new(buf);
    for f in &hdr.fields {
        if f.width <= 64 && !f.varbit {
            bw.put(f.width, pkt.hv.get(f.slot as usize).copied().unwrap_or(0));
        } else {
            let w = if f.varbit { var } else { f.width };
            let l = pkt.limbs(*f);
            if f.varbit {
                // the varbit value is right-aligned in its limbs: emit its low `w` bits
                let mut tmp = [0u64; 1];
                let src: &[u64] = if w <= 64 {
                    tmp[0] = l.first().copied().unwrap_or(0);
                    &tmp
                } else {
                    l
                };
                bw.put_limbs(w, src);
            } else {
                bw.put_limbs(w, l);
            }
        }
    }
    bw.finish();
}

pub fn deparse(p: &Prog, pkt: &Pkt, buf: &mut Vec<u8>) {
    buf.clear();
    for &h in &p.deparse_order {
        if pkt.valid.get(h).copied().unwrap_or(false) {
            emit_header(p, pkt, h, buf);
        }
    }
    if let Some(payload) = pkt.data.get(pkt.payload_off..) {
        buf.extend_from_slice(payload);
    }
}

fn header_of_slot(p: &Prog, slot: u32) -> Option<usize> {
    p.headers.iter().position(|h| h.fields.iter().any(|f| f.slot == slot))
}


/// Serializes the calculation's inputs and runs its algorithm.
fn compute_calc(p: &Prog, w: &mut WorkerState, pkt: &Pkt, calc: usize) -> u64 {
    let Some(cl) = p.calcs.get(calc) else { return 0 };
    let mut buf = std::mem::take(&mut w.calc);
    buf.clear();
    let mut last_hdr: Option<usize> = None;
    let mut bw = bits::BitWriter::new(&mut buf);
    for (i, inp) in cl.input.iter().enumerate() {
        match inp {
            CalcInput::Field(f) => {
                let hh = cl.input_headers.get(i).copied().flatten();
                if let Some(h) = hh {
                    if !pkt.valid.get(h).copied().unwrap_or(false) {
                        continue;
                    }
                    if !p.headers[h].metadata {
                        last_hdr = Some(h);
                    }
                }
                bw.put_limbs(f.width, pkt.limbs(*f));
            }
            CalcInput::Header(h) => {
                if !pkt.valid.get(*h).copied().unwrap_or(false) {
                    continue;
                }
                last_hdr = Some(*h);
                for f in &p.headers[*h].fields {
                    bw.put_limbs(f.width, pkt.limbs(*f));
                }
            }
            CalcInput::Const { value, width } => bw.put_limbs(*width, value),
            CalcInput::Payload => {
                bw.finish();
                let pos = last_hdr.and_then(|h| p.deparse_order.iter().position(|&x| x == h));
                if let Some(pos) = pos {
                    for &h in &p.deparse_order[pos + 1..] {
                        if pkt.valid.get(h).copied().unwrap_or(false) {
                            emit_header(p, pkt, h, bw.out);
                        }
                    }
                }
                if let Some(pl) = pkt.data.get(pkt.payload_off..) {
                    bw.out.extend_from_slice(pl);
                }
            }
        }
    }
    bw.finish();
    let v = cl.algo.compute(&buf);
    w.calc = buf;
    v
}

fn update_checksums(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt) {
    let p = c.p;
    for ck in &p.checksums {
        if !ck.update {
            continue;
        }
        if let Some(cond) = &ck.cond {
            let env = c.env(&[], 0);
            if !eval_bool(&env, pkt, cond) {
                continue;
            }
        }
        let v = compute_calc(p, w, pkt, ck.calc);
        store_i128(pkt, ck.target, v as i128);
    }
}

fn run_deparser_prims(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt) {
    if !c.p.deparser_prims.is_empty() {
        run_prims(c, w, pkt, &c.p.deparser_prims, &[], 0);
    }
}

// ----- control flow ------------------------------------------------------------

fn run_pipeline(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, init: Node) {
    use crate::flow::Step;
    let p = c.p;
    let mut i = crate::flow::index(p, Some(init));
    let mut steps = 0;
    while let Some(step) = p.flow.steps.get(i as usize) {
        if pkt.exit {
            break;
        }
        steps += 1;
        if steps > MAX_NODES {
            break;
        }
        i = match step {
            Step::IfNonZero { slot, neg, cond, t, f } => {
                let v = (pkt.hv.get(*slot as usize).copied().unwrap_or(0) != 0) != *neg;
                branch(c, w, v, *cond, *t, *f)
            }
            Step::IfValid { h, neg, cond, t, f } => {
                let v = pkt.valid.get(*h as usize).copied().unwrap_or(false) != *neg;
                branch(c, w, v, *cond, *t, *f)
            }
            Step::IfCmp { op, slot, k, cond, t, f } => {
                let v = op.test(pkt.hv.get(*slot as usize).copied().unwrap_or(0), *k);
                branch(c, w, v, *cond, *t, *f)
            }
            Step::Test { b, cond, t, f } => {
                let env = c.env(&[], 0);
                let v = crate::fast::test(&env, pkt, b);
                branch(c, w, v, *cond, *t, *f)
            }
            Step::Cond { cond, t, f } => match p.conds.get(*cond as usize) {
                Some(cd) => {
                    let env = c.env(&[], 0);
                    let v = eval_bool(&env, pkt, &cd.expr);
                    branch(c, w, v, *cond, *t, *f)
                }
                None => crate::flow::END,
            },
            Step::Fixed { table, action, has_data, next } => {
                let tab = p.tables.get(*table as usize);
                if w.tracing() {
                    if let Some(tab) = tab {
                        w.emit(&format!("table {}: miss, default action", tab.name));
                    }
                }
                let data: &[u64] = match (has_data, tab.and_then(|t| t.default_entry.as_ref())) {
                    (true, Some(d)) => &d.data,
                    _ => &[],
                };
                run_action(c, w, pkt, *action as usize, data);
                *next
            }
            Step::Sets { table, action, start, len, next } => {
                if w.tracing() {
                    trace_sets(c, w, *table, *action);
                }
                let (s, n) = (*start as usize, *len as usize);
                run_set_ops(pkt, p.flow.ops.get(s..s + n).unwrap_or(&[]), &[]);
                *next
            }
            Step::Table { table } => {
                let n = apply_table(c, w, pkt, *table as usize);
                crate::flow::index(p, n)
            }
            Step::Call { action, next } => {
                run_action(c, w, pkt, *action as usize, &[]);
                *next
            }
        };
    }
}

/// The trace lines of a `Sets` step: as its table (if any) and its action.
#[cold]
fn trace_sets(c: &Ctx, w: &mut WorkerState, table: u32, action: u32) {
    if let Some(tab) = c.p.tables.get(table as usize) {
        w.emit(&format!("table {}: miss, default action", tab.name));
    }
    if let Some(a) = c.p.actions.get(action as usize) {
        w.emit(&format!("action {}", a.name));
    }
}

/// The step after a condition with value `v` (traced when tracing).
#[inline(always)]
fn branch(c: &Ctx, w: &mut WorkerState, v: bool, cond: u32, t: u32, f: u32) -> u32 {
    if w.tracing() {
        trace_cond(c, w, cond, v);
    }
    if v {
        t
    } else {
        f
    }
}

#[cold]
fn trace_cond(c: &Ctx, w: &mut WorkerState, cond: u32, v: bool) {
    if let Some(cd) = c.p.conds.get(cond as usize) {
        w.emit(&format!("condition {}: {v}", cd.name));
    }
}

fn build_key(c: &Ctx, pkt: &Pkt, t: &Table, key: &mut [u64]) {
    for k in &t.keys {
        let o = k.off as usize;
        let n = k.nlimbs as usize;
        let Some(dst) = key.get_mut(o..o + n) else { continue };
        match &k.src {
            KeySource::Field(f) => {
                if n == 1 {
                    dst[0] = pkt.hv.get(f.slot as usize).copied().unwrap_or(0);
                } else {
                    dst.copy_from_slice(pkt.limbs(*f).get(..n).unwrap_or(&[0; 0]).iter().chain(std::iter::repeat(&0)).take(n).copied().collect::<Vec<_>>().as_slice());
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

fn selector_hash(w: &mut WorkerState, pkt: &Pkt, sel: &Selector) -> u64 {
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

fn apply_table(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, t: usize) -> Option<Node> {
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
        let mut key = std::mem::take(&mut w.key);
        let mut scratch = std::mem::take(&mut w.scratch);
        if key.len() < kl {
            key.resize(kl, 0);
            scratch.resize(kl, 0);
        }
        build_key(c, pkt, tab, &mut key[..kl]);
        let hit = st.lookup(&key[..kl], &mut scratch);
        w.key = key;
        w.scratch = scratch;
        hit
    };
    let plen = pkt.data.len() as u64;
    let eaction = match hit {
        Some(ref h) => {
            let e = h.entry;
            if tab.direct_counter.is_some() {
                e.stats.packets.fetch_add(1, Ordering::Relaxed);
                e.stats.bytes.fetch_add(plen, Ordering::Relaxed);
            }
            if tab.support_timeout {
                e.stats.last_hit_us.store(c.now, Ordering::Relaxed);
                if e.stats.expired_reported.load(Ordering::Relaxed) {
                    e.stats.expired_reported.store(false, Ordering::Relaxed);
                }
            }
            if let Some(m) = tab.direct_meter {
                let ma = &p.meters[m];
                let amount = if ma.bytes { plen } else { 1 };
                let color = e.stats.meter.lock().map(|mut cell| cell.execute(c.now, amount)).unwrap_or(GREEN);
                if let Some(rt) = ma.result_target {
                    store_i128(pkt, rt, color as i128);
                }
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
    // resolve the action
    let mut ran: Option<usize> = None;
    match eaction {
        Some(EAction::Direct { action, data }) => {
            run_action(c, w, pkt, *action, data);
            ran = Some(*action);
        }
        Some(EAction::Member(m)) => {
            if let Some(ps) = tab.profile.and_then(|pi| c.rt.profiles.get(pi)) {
                let ps = ps.load();
                if let Some(md) = ps.members.get(m) {
                    run_action(c, w, pkt, md.action, &md.data);
                    ran = Some(md.action);
                }
            }
        }
        Some(EAction::Group(g)) => {
            if let Some(pi) = tab.profile {
                let ps = c.rt.profiles[pi].load();
                if let Some(gd) = ps.groups.get(g) {
                    if !gd.expanded.is_empty() {
                        let h = match &p.profiles[pi].selector {
                            Some(sel) => selector_hash(w, pkt, sel),
                            None => 0,
                        };
                        let md = &gd.expanded[(h % gd.expanded.len() as u64) as usize];
                        run_action(c, w, pkt, md.action, &md.data);
                        ran = Some(md.action);
                    }
                }
            }
        }
        None => {}
    }
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

fn run_action(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, action: usize, data: &[u64]) {
    if let Some(a) = c.p.actions.get(action) {
        if w.tracing() {
            w.emit(&format!("action {}", a.name));
        }
        if let Some(Some((s, n))) = c.p.flow.actions.get(action) {
            let (s, n) = (*s as usize, *n as usize);
            run_set_ops(pkt, c.p.flow.ops.get(s..s + n).unwrap_or(&[]), data);
        } else {
            run_prims(c, w, pkt, &a.prims, data, 0);
        }
    }
}

/// An action body that only writes fields (see `flow::SetOp`).
#[inline]
fn run_set_ops(pkt: &mut Pkt, ops: &[crate::flow::SetOp], data: &[u64]) {
    use crate::flow::SetOp;
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

fn header_fields_copy(p: &Prog, pkt: &mut Pkt, dst: usize, src: usize) {
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

fn zero_header(p: &Prog, pkt: &mut Pkt, h: usize) {
    if let Some(hd) = p.headers.get(h) {
        for f in &hd.fields {
            pkt.limbs_mut(*f).iter_mut().for_each(|x| *x = 0);
        }
    }
}

fn stack_push(p: &Prog, pkt: &mut Pkt, hs: &[usize], n: usize, next: &mut u32) {
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

fn stack_pop(p: &Prog, pkt: &mut Pkt, hs: &[usize], n: usize, next: &mut u32) {
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

fn run_prims(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, prims: &[Prim], data: &[u64], cursor: usize) {
    let p = c.p;
    let mut pc = 0usize;
    let mut steps = 0usize;
    while pc < prims.len() {
        steps += 1;
        if steps > MAX_ACTION_STEPS || pkt.exit {
            return;
        }
        let env = c.env(data, cursor);
        let prim = &prims[pc];
        pc += 1;
        match prim {
            Prim::SetConst { slot, v } => {
                if let Some(x) = pkt.hv.get_mut(*slot as usize) {
                    *x = *v;
                }
            }
            Prim::Move { dst, src, mask } => {
                let v = pkt.hv.get(*src as usize).copied().unwrap_or(0);
                if let Some(x) = pkt.hv.get_mut(*dst as usize) {
                    *x = v & mask;
                }
            }
            Prim::SetParam { dst, off, mask } => {
                let v = data.get(*off as usize).copied().unwrap_or(0);
                if let Some(x) = pkt.hv.get_mut(*dst as usize) {
                    *x = v & mask;
                }
            }
            Prim::Assign { dst, src } => assign(&env, pkt, dst, src),
            Prim::Copy { dst, src } => {
                let n = dst.nlimbs().min(src.nlimbs());
                let (s0, d0) = (src.slot as usize, dst.slot as usize);
                if s0 + n <= pkt.hv.len() && d0 + n <= pkt.hv.len() {
                    pkt.hv.copy_within(s0..s0 + n, d0);
                }
            }
            Prim::CopyParam { dst, off } => {
                let o = *off as usize;
                let n = dst.nlimbs();
                let src = data.get(o..o + n).unwrap_or(&[]);
                let d = pkt.limbs_mut(*dst);
                for (i, a) in d.iter_mut().enumerate() {
                    *a = src.get(i).copied().unwrap_or(0);
                }
                bits::mask_limbs(d, dst.width);
            }
            Prim::AssignVL { dst, src } => {
                if let (Some(d), Some(s)) = (lvalue_slot(&env, pkt, dst), lvalue_slot(&env, pkt, src)) {
                    let v: Vec<u64> = pkt.limbs(s).to_vec();
                    let dl = pkt.limbs_mut(d);
                    for (i, a) in dl.iter_mut().enumerate() {
                        *a = v.get(i).copied().unwrap_or(0);
                    }
                    let (hd, hs) = (header_of_slot(p, d.slot), header_of_slot(p, s.slot));
                    if let (Some(hd), Some(hs)) = (hd, hs) {
                        pkt.vl[hd] = pkt.vl[hs];
                    }
                }
            }
            Prim::AssignHeader { dst, src } => {
                if let (Some(d), Some(s)) = (resolve_hdr(&env, pkt, dst), resolve_hdr(&env, pkt, src)) {
                    header_fields_copy(p, pkt, d, s);
                }
            }
            Prim::AssignUnion { dst, src } => {
                if let (Some(d), Some(s)) = (resolve_union(&env, pkt, dst), resolve_union(&env, pkt, src)) {
                    let (dh, sh) = (&p.unions[d].headers, &p.unions[s].headers);
                    for (a, b) in dh.iter().zip(sh) {
                        header_fields_copy(p, pkt, *a, *b);
                    }
                }
            }
            Prim::AssignStack { dst, src } => {
                if let (Some(d), Some(s)) = (p.stacks.get(*dst), p.stacks.get(*src)) {
                    for (a, b) in d.headers.iter().zip(&s.headers) {
                        header_fields_copy(p, pkt, *a, *b);
                    }
                    pkt.stack_next[*dst] = pkt.stack_next[*src];
                }
            }
            Prim::AssignUnionStack { dst, src } => {
                if let (Some(d), Some(s)) = (p.union_stacks.get(*dst), p.union_stacks.get(*src)) {
                    for (ua, ub) in d.unions.iter().zip(&s.unions) {
                        for (a, b) in p.unions[*ua].headers.iter().zip(&p.unions[*ub].headers) {
                            header_fields_copy(p, pkt, *a, *b);
                        }
                    }
                    pkt.ustack_next[*dst] = pkt.ustack_next[*src];
                }
            }
            Prim::SetValid(h, v) => {
                if let Some(h) = resolve_hdr(&env, pkt, h) {
                    if *v && !pkt.valid.get(h).copied().unwrap_or(true) {
                        zero_header(p, pkt, h);
                    }
                    set_valid(p, pkt, h, *v);
                }
            }
            Prim::Push { stack, n } | Prim::Pop { stack, n } => {
                let k = eval_c(&env, pkt, n).clamp(0, 1 << 16) as usize;
                if let Some(s) = p.stacks.get(*stack) {
                    let hs = &s.headers;
                    let mut next = pkt.stack_next[*stack];
                    if matches!(prim, Prim::Push { .. }) {
                        stack_push(p, pkt, hs, k, &mut next);
                    } else {
                        stack_pop(p, pkt, hs, k, &mut next);
                    }
                    pkt.stack_next[*stack] = next;
                }
            }
            Prim::PushUnion { stack, n } | Prim::PopUnion { stack, n } => {
                let k = eval_c(&env, pkt, n).clamp(0, 1 << 16) as usize;
                if let Some(us) = p.union_stacks.get(*stack) {
                    let nu = us.unions.len();
                    let k = k.min(nu);
                    let members = us.unions.first().map_or(0, |&u| p.unions[u].headers.len());
                    let mut next = pkt.ustack_next[*stack];
                    for m in 0..members {
                        let hs: Vec<usize> = us.unions.iter().filter_map(|&u| p.unions[u].headers.get(m).copied()).collect();
                        let mut nx = next;
                        if matches!(prim, Prim::PushUnion { .. }) {
                            stack_push(p, pkt, &hs, k, &mut nx);
                        } else {
                            stack_pop(p, pkt, &hs, k, &mut nx);
                        }
                        if m + 1 == members {
                            next = nx;
                        }
                    }
                    pkt.ustack_next[*stack] = next;
                }
            }
            Prim::Jump(t) => pc = *t,
            Prim::JumpIfZero(cond, t) => {
                if eval_c(&env, pkt, cond) == 0 {
                    pc = *t;
                }
            }
            Prim::Exit => {
                pkt.exit = true;
                return;
            }
            Prim::MarkToDrop => {
                pkt.set_opt(p.std.egress_spec, c.sw.config.drop_port as u64);
                pkt.set_opt(p.std.mcast_grp, 0);
            }
            Prim::CloneI2E { session, field_list } => {
                pkt.clone_i2e = Some((eval_c(&env, pkt, session) as u32, *field_list));
            }
            Prim::CloneE2E { session, field_list } => {
                pkt.clone_e2e = Some((eval_c(&env, pkt, session) as u32, *field_list));
            }
            Prim::Resubmit(fl) => pkt.resubmit = Some(*fl),
            Prim::Recirculate(fl) => pkt.recirculate = Some(*fl),
            Prim::Digest { learn_list } => pkt.digest = Some(*learn_list),
            Prim::RngUniform { dst, lo, hi } => {
                let lo = eval_c(&env, pkt, lo);
                let hi = eval_c(&env, pkt, hi);
                let v = if hi <= lo {
                    lo
                } else {
                    let span = (hi - lo + 1) as u128;
                    lo + ((crate::hash::fast_random() as u128) % span) as i128
                };
                if let Some(f) = lvalue_slot(&env, pkt, dst) {
                    store_i128(pkt, f, v);
                }
            }
            Prim::HashOffset { dst, base, calc, size } => {
                let base = eval_c(&env, pkt, base);
                let size = eval_c(&env, pkt, size);
                let h = compute_calc(p, w, pkt, *calc) as i128;
                let v = if size <= 0 { base } else { base + h % size };
                let env = c.env(data, cursor);
                if let Some(f) = lvalue_slot(&env, pkt, dst) {
                    store_i128(pkt, f, v);
                }
            }
            Prim::RegisterRead { dst, reg, index } => {
                let i = eval_c(&env, pkt, index);
                if let (Some(r), Some(f)) = (c.rt.registers.get(*reg), lvalue_slot(&env, pkt, dst)) {
                    let mut l = [0u64; 4];
                    let n = bits::limbs(r.width());
                    if n <= 4 {
                        let ok = usize::try_from(i).is_ok_and(|i| r.read(i, &mut l[..n]));
                        if !ok {
                            l = [0; 4];
                        }
                        let d = pkt.limbs_mut(f);
                        for (k, x) in d.iter_mut().enumerate() {
                            *x = l.get(k).copied().unwrap_or(0);
                        }
                        bits::mask_limbs(d, f.width);
                    } else {
                        let mut v = vec![0u64; n];
                        if usize::try_from(i).is_ok_and(|i| r.read(i, &mut v)) {
                            let d = pkt.limbs_mut(f);
                            for (k, x) in d.iter_mut().enumerate() {
                                *x = v.get(k).copied().unwrap_or(0);
                            }
                            bits::mask_limbs(d, f.width);
                        }
                    }
                }
            }
            Prim::RegisterWrite { reg, index, src } => {
                let i = eval_c(&env, pkt, index);
                if let (Some(r), Ok(i)) = (c.rt.registers.get(*reg), usize::try_from(i)) {
                    if src.narrow && r.width() <= 128 {
                        let v = eval_i128(&env, pkt, &src.e) as u128;
                        r.write(i, &[v as u64, (v >> 64) as u64]);
                    } else {
                        let v = eval_big(&env, pkt, &src.e);
                        let mut l = vec![0u64; bits::limbs(r.width())];
                        bits::big_to_limbs(&v, r.width(), &mut l);
                        r.write(i, &l);
                    }
                }
            }
            Prim::Count { ctr, index } => {
                let i = eval_c(&env, pkt, index);
                if let Some(cell) = usize::try_from(i).ok().and_then(|i| c.rt.counters.get(*ctr)?.get(i)) {
                    cell.count(pkt.data.len() as u64);
                }
            }
            Prim::ExecuteMeter { meter, index, dst } => {
                let i = eval_c(&env, pkt, index);
                let amount = if p.meters.get(*meter).is_some_and(|m| m.bytes) { pkt.data.len() as u64 } else { 1 };
                let color = usize::try_from(i)
                    .ok()
                    .and_then(|i| c.rt.meters.get(*meter)?.get(i))
                    .and_then(|cell| cell.lock().ok().map(|mut m| m.execute(c.now, amount)))
                    .unwrap_or(externs::GREEN);
                if let Some(f) = lvalue_slot(&env, pkt, dst) {
                    store_i128(pkt, f, color as i128);
                }
            }
            Prim::Truncate(n) => {
                let v = eval_c(&env, pkt, n);
                pkt.truncate = Some(v.clamp(0, usize::MAX as i128).to_usize().unwrap_or(usize::MAX));
            }
            Prim::Assert(cond) => {
                if !eval_bool(&env, pkt, cond) {
                    // BMv2 aborts the process; we drop the packet instead.
                    pkt.dropped_by_assert = true;
                    pkt.exit = true;
                    return;
                }
            }
            Prim::LogMsg { fmt, args } => {
                if w.tracing() {
                    let mut msg = String::new();
                    let mut vals = args.iter().map(|a| eval_c(&env, pkt, a));
                    let mut rest = fmt.as_str();
                    while let Some(i) = rest.find("{}") {
                        msg.push_str(&rest[..i]);
                        match vals.next() {
                            Some(v) => msg.push_str(&v.to_string()),
                            None => msg.push_str("{}"),
                        }
                        rest = &rest[i + 2..];
                    }
                    msg.push_str(rest);
                    w.emit(&format!("log_msg: {msg}"));
                }
            }
            Prim::Nop => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::*;

    pub const L3: &str = include_str!("../fixtures/l3.json");

    pub fn run(sw: &Switch, port: u32, frame: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut w = sw.new_worker();
        let mut out = Vec::new();
        sw.process(&mut w, port, frame, &mut |p, b| out.push((p, b.to_vec())));
        out
    }

    /// Ethernet + IPv4 (+ 8 bytes payload) frame with a correct header checksum.
    pub fn ipv4_frame(dst: [u8; 4], ttl: u8) -> Vec<u8> {
        let mut f = vec![0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00];
        let mut ip = vec![0x45, 0, 0, 28, 0, 1, 0, 0, ttl, 17, 0, 0, 10, 0, 0, 1];
        ip.extend_from_slice(&dst);
        let ck = crate::hash::csum16(&ip);
        ip[10] = (ck >> 8) as u8;
        ip[11] = ck as u8;
        f.extend_from_slice(&ip);
        f.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        f
    }

    fn l3_switch() -> Switch {
        let sw = Switch::new(SwitchConfig::default());
        sw.set_program(load_program(L3).expect("fixture loads"));
        sw.table_insert(
            "MyIngress.ipv4_lpm",
            TableEntry {
                key: vec![MatchKey::Lpm(vec![10, 1, 0, 0], 16)],
                action: EntryAction::Action(ActionSpec { action: "MyIngress.set_nhop".into(), params: vec![vec![0, 7]] }),
                priority: 0,
                idle_timeout_ns: 0,
            },
        )
        .unwrap();
        sw.table_insert(
            "MyIngress.ipv4_lpm",
            TableEntry {
                key: vec![MatchKey::Lpm(vec![10, 1, 2, 0], 24)],
                action: EntryAction::Action(ActionSpec { action: "MyIngress.set_nhop".into(), params: vec![vec![0, 8]] }),
                priority: 0,
                idle_timeout_ns: 0,
            },
        )
        .unwrap();
        for (nh, port) in [(7u8, 3u8), (8, 4)] {
            sw.table_insert(
                "MyIngress.nexthop",
                TableEntry {
                    key: vec![MatchKey::Exact(vec![0, nh])],
                    action: EntryAction::Action(ActionSpec {
                        action: "MyIngress.set_dmac_port".into(),
                        params: vec![vec![0xaa; 6], vec![0xbb, 0, 0, 0, 0, nh], vec![0, port]],
                    }),
                    priority: 0,
                    idle_timeout_ns: 0,
                },
            )
            .unwrap();
        }
        sw
    }

    #[test]
    fn l3_routes_longest_prefix_and_rewrites() {
        let sw = l3_switch();
        let out = run(&sw, 1, &ipv4_frame([10, 1, 2, 9], 64));
        assert_eq!(out.len(), 1);
        let (port, b) = &out[0];
        assert_eq!(*port, 4, "the /24 wins over the /16");
        assert_eq!(&b[0..6], &[0xbb, 0, 0, 0, 0, 8]);
        assert_eq!(&b[6..12], &[0xaa; 6]);
        assert_eq!(b[14 + 8], 63, "ttl decremented");
        assert_eq!(crate::hash::csum16(&b[14..34]), 0, "checksum updated");
        let out = run(&sw, 1, &ipv4_frame([10, 1, 3, 9], 64));
        assert_eq!(out[0].0, 3, "the /16");
        let out = run(&sw, 1, &ipv4_frame([10, 2, 3, 9], 64));
        assert!(out.is_empty(), "default action drops");
    }

    #[test]
    fn non_ipv4_goes_to_port_0_unchanged() {
        let sw = l3_switch();
        let mut f = ipv4_frame([10, 1, 2, 9], 64);
        f[12] = 0x86;
        f[13] = 0xdd;
        let out = run(&sw, 1, &f);
        assert_eq!(out, vec![(0, f)], "egress_spec never set: port 0, bytes unchanged");
    }

    #[test]
    fn truncated_and_empty_frames_do_not_crash() {
        let sw = l3_switch();
        let f = ipv4_frame([10, 1, 2, 9], 64);
        for n in 0..f.len() {
            let out = run(&sw, 1, &f[..n]);
            // A short IPv4 header is a parser error: ingress still runs, the
            // ipv4 header is invalid, so the packet goes to port 0 as received.
            if n < 34 {
                assert_eq!(out, vec![(0, f[..n].to_vec())], "length {n}");
            }
        }
    }

    #[test]
    fn no_program_drops() {
        let sw = Switch::new(SwitchConfig::default());
        assert!(run(&sw, 1, &ipv4_frame([10, 1, 2, 9], 64)).is_empty());
        assert!(matches!(sw.table_len("x"), Err(ApiError::FailedPrecondition(_))));
    }
}

#[cfg(test)]
#[path = "exec_tests.rs"]
mod behaviour;

#[cfg(test)]
#[path = "p4c_shapes_tests.rs"]
mod p4c_shapes;
