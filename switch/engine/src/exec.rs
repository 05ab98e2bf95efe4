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

use crate::runtime::{Clock, DigestQueue};
use crate::types::{Digest, SwitchConfig};
use crate::bits;
use crate::eval::*;
use crate::externs::{self, GREEN};
use crate::program::*;
use crate::runtime::Runtime;
use crate::table::EAction;

// One file per stage; this file runs a frame through them (traffic manager).
mod control;
mod deparser;
mod expr;
mod parser;
mod primitives;
use control::*;
use deparser::*;
use expr::*;
use parser::*;
use primitives::*;

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
    /// This worker's table and meter counts (`stats`).
    pub(crate) counts: crate::stats::WorkerCounts,
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
            counts: Default::default(),
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

/// What the pipeline needs from the switch around it: its configuration,
/// its clock and where digests go (so `exec` does not depend on `api`).
pub struct Host<'a> {
    pub config: SwitchConfig,
    pub clock: &'a Clock,
    pub digests: &'a DigestQueue,
}

struct Ctx<'a> {
    host: &'a Host<'a>,
    rt: &'a Runtime,
    p: &'a Prog,
    /// The plan, or `None` to run the reference interpreter.
    plan: Option<&'a crate::plan::Plan>,
    now: u64,
    /// The pinned snapshot of every table, or empty (then each apply loads its table).
    tables: &'a [Option<Arc<crate::table::TableState>>],
}

impl<'a> Ctx<'a> {
    fn env<'b>(&'b self, params: &'b [u64], cursor: usize) -> Scope<'b> {
        let fast = self.plan.map_or(&[][..], |pl| &pl.fast[..]);
        Scope { env: Env { prog: self.p, params, cursor, regs: &self.rt.registers }, fast }
    }
}

pub fn process(
    host: &Host,
    rt: &Runtime,
    w: &mut WorkerState,
    port: u32,
    frame: &[u8],
    out: &mut dyn FnMut(u32, &[u8]),
) {
    let p: &Prog = &rt.prog;
    w.fit(p, Arc::as_ptr(&rt.prog) as usize);
    w.counts.fit(&rt.stats);
    let tables = std::mem::take(&mut w.pinned_tables);
    let plan = match host.config.exec {
        crate::types::ExecMode::Plan => Some(&rt.plan),
        crate::types::ExecMode::Interpreter => None,
    };
    let c = Ctx { host, rt, p, plan, now: host.clock.now_us(), tables: &tables };
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
            c.host.digests.push(Digest {
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
    if spec == c.host.config.drop_port {
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
    pkt.set_opt(sm.egress_spec, c.host.config.drop_port as u64 + 1);
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
    if pkt.get_opt(sm.egress_spec) as u32 == c.host.config.drop_port {
        recycle(w, pkt);
        return;
    }
    update_checksums(c, w, &mut pkt);
    run_deparser_prims(c, w, &mut pkt);
    let mut buf = std::mem::take(&mut w.out);
    deparse(p, c.plan, &pkt, &mut buf);
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

#[cfg(test)]
pub(crate) mod tests {
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
pub(crate) mod behaviour;

#[cfg(test)]
#[path = "p4c_shapes_tests.rs"]
mod p4c_shapes;

#[cfg(test)]
#[path = "table_rec_tests.rs"]
mod table_rec;
