//! In-process throughput of the engine (no I/O): the L3 fixture (parse
//! Ethernet/IPv4, LPM over 10,000 routes, exact next hop, MAC rewrite, TTL
//! decrement, checksum update) on 64-byte frames, one thread; then the same
//! with a 10,000-entry ternary ACL in front.
//!
//! Run: `cargo run --release -p p4engine --example bench_l3 -- [--seconds S] [--out FILE]`
//! Prints one line per case and, with `--out`, writes them as JSON. Rates are
//! packets per CPU-second of the benchmark thread (from /proc schedstat), so a
//! busy shared machine does not distort them.

use std::time::{Duration, Instant};

use p4engine::*;

const L3: &str = include_str!("../fixtures/l3.json");
const L3_ACL: &str = include_str!("../fixtures/l3_acl.json");

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn act(name: &str, params: Vec<Vec<u8>>) -> EntryAction {
    EntryAction::Action(ActionSpec { action: name.into(), params })
}

/// 10,000 routes: 9,000 /24, 800 /16, 150 /32, 50 /8. Returns the /24 prefixes.
/// 10,000 routes: 9,000 /24, 800 /16, 150 /32, 50 /8, or (`spread`) as many
/// prefix lengths as a BGP table uses, /8 to /32 in turn, all inside 10/8.
fn fill_routes(sw: &Switch, spread: bool) -> Vec<[u8; 4]> {
    let mut rng = Rng(0x1234_5678);
    let mut dsts = Vec::new();
    let mut n = 0;
    let mut seen = std::collections::HashSet::new();
    while n < 10_000 {
        let r = rng.next();
        let (addr, plen) = match n {
            _ if spread => {
                let plen = 8 + (n % 25) as u32;
                let a = u32::from_be_bytes([10, (r >> 8) as u8, (r >> 16) as u8, (r >> 24) as u8]) & (u32::MAX << (32 - plen));
                (a.to_be_bytes(), plen)
            }
            0..=8999 => ([10, (r >> 8) as u8, (r >> 16) as u8, 0], 24),
            9000..=9799 => ([11 + (r % 4) as u8, (r >> 8) as u8, 0, 0], 16),
            9800..=9949 => ([12, (r >> 8) as u8, (r >> 16) as u8, (r >> 24) as u8], 32),
            _ => ([(20 + (r % 200)) as u8, 0, 0, 0], 8),
        };
        if !seen.insert((addr, plen)) {
            // (short spread lengths have few prefixes: move on to the next length)
            n += spread as usize;
            continue;
        }
        let nh = (n % 256) as u16;
        sw.table_insert(
            "MyIngress.ipv4_lpm",
            TableEntry {
                key: vec![MatchKey::Lpm(addr.to_vec(), plen)],
                action: act("MyIngress.set_nhop", vec![nh.to_be_bytes().to_vec()]),
                priority: 0,
                idle_timeout_ns: 0,
            },
        )
        .expect("route insert");
        if plen == 24 || spread {
            dsts.push(addr);
        }
        n += 1;
    }
    for nh in 0..256u16 {
        sw.table_insert(
            "MyIngress.nexthop",
            TableEntry {
                key: vec![MatchKey::Exact(nh.to_be_bytes().to_vec())],
                action: act(
                    "MyIngress.set_dmac_port",
                    vec![vec![0, 0xaa, 0, 0, 0, 1], vec![0, 0xbb, 0, 0, (nh >> 8) as u8, nh as u8], vec![0, (nh % 8) as u8 + 1]],
                ),
                priority: 0,
                idle_timeout_ns: 0,
            },
        )
        .expect("next hop insert");
    }
    dsts
}

/// 10,000 ternary ACL entries over four mask shapes; none matches the traffic.
fn fill_acl(sw: &Switch) {
    let mut rng = Rng(0x9abc_def0);
    let mut seen = std::collections::HashSet::new();
    let mut n = 0;
    while n < 10_000 {
        let r = rng.next();
        let shape = n % 4;
        let src = [192, 168, (r >> 8) as u8, (r >> 16) as u8];
        let dst = [10, (r >> 24) as u8, (r >> 32) as u8, (r >> 40) as u8];
        let (sm, dm, pm): ([u8; 4], [u8; 4], u8) = match shape {
            0 => ([255, 255, 0, 0], [255; 4], 0xff),
            1 => ([255; 4], [255, 255, 255, 0], 0),
            2 => ([255, 0, 0, 0], [255; 4], 0xff),
            _ => ([0; 4], [255; 4], 0xff),
        };
        let sv: Vec<u8> = src.iter().zip(sm).map(|(a, m)| a & m).collect();
        let dv: Vec<u8> = dst.iter().zip(dm).map(|(a, m)| a & m).collect();
        let proto = if r & 1 == 0 { 6 } else { 17 } & pm;
        // destinations in 10/8 with the shape-3 (any source) would hit the
        // traffic: use protocol 6 (TCP) for those; the traffic is UDP.
        let proto = if shape == 3 { 6 } else { proto };
        if !seen.insert((sv.clone(), dv.clone(), proto, shape)) {
            continue;
        }
        sw.table_insert(
            "MyIngress.acl",
            TableEntry {
                key: vec![
                    MatchKey::Ternary(sv, sm.to_vec()),
                    MatchKey::Ternary(dv, dm.to_vec()),
                    MatchKey::Ternary(vec![proto], vec![pm]),
                ],
                action: act("MyIngress.acl_deny", vec![]),
                priority: 1 + (n % 1000),
                idle_timeout_ns: 0,
            },
        )
        .expect("acl insert");
        n += 1;
    }
}

fn frames(dsts: &[[u8; 4]], n: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(42);
    (0..n)
        .map(|_| {
            let d = dsts[(rng.next() % dsts.len() as u64) as usize];
            let host = (rng.next() % 254 + 1) as u8;
            let mut f = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 8, 0];
            let mut ip = vec![0x45, 0, 0, 50, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, d[0], d[1], d[2], host];
            let mut s: u32 = ip.chunks(2).map(|c| ((c[0] as u32) << 8) | c[1] as u32).sum();
            while s > 0xffff {
                s = (s & 0xffff) + (s >> 16);
            }
            let ck = !(s as u16);
            ip[10] = (ck >> 8) as u8;
            ip[11] = ck as u8;
            f.extend_from_slice(&ip);
            f.resize(64, 0);
            f
        })
        .collect()
}

/// CPU time of this thread in seconds (Linux schedstat), so the figure is
/// packets per second of one core even on a shared machine.
fn thread_cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn measure(sw: &Switch, frames: &[Vec<u8>], secs: f64) -> (f64, u64) {
    let mut w = sw.new_worker();
    let mut sent = 0u64;
    let mut out_count = 0u64;
    // warm-up
    for f in frames {
        sw.process(&mut w, 1, f, &mut |_, _| {});
    }
    let start = Instant::now();
    let cpu0 = thread_cpu_s();
    let limit = Duration::from_secs_f64(secs);
    while start.elapsed() < limit {
        for f in frames {
            sw.process(&mut w, 1, f, &mut |_, b| {
                out_count += b.len() as u64 / 64;
            });
        }
        sent += frames.len() as u64;
    }
    let wall = start.elapsed().as_secs_f64();
    let el = match (cpu0, thread_cpu_s()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall,
    };
    (sent as f64 / el, out_count)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut secs = 2.0;
    let mut out: Option<String> = None;
    let mut exec = ExecMode::Plan;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--seconds" => {
                secs = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(secs);
                i += 1;
            }
            "--out" => {
                out = args.get(i + 1).cloned();
                i += 1;
            }
            "--exec" => {
                exec = if args.get(i + 1).map(String::as_str) == Some("interp") { ExecMode::Interpreter } else { ExecMode::Plan };
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let mut results = Vec::new();
    let cases = [("l3_lpm_10k", L3, false, false), ("l3_lpm_10k_acl_10k_ternary", L3_ACL, true, false), ("l3_lpm_10k_25_lengths", L3, false, true)];
    for (name, json, acl, spread) in cases {
        let sw = Switch::new(SwitchConfig { exec, ..SwitchConfig::default() });
        sw.set_program(load_program(json).expect("fixture loads"));
        let t0 = Instant::now();
        let dsts = fill_routes(&sw, spread);
        if acl {
            fill_acl(&sw);
        }
        let setup = t0.elapsed().as_secs_f64();
        let fr = frames(&dsts, 4096);
        let (pps, outn) = measure(&sw, &fr, secs);
        assert!(outn > 0, "no packet forwarded: the fixture or tables are broken");
        println!("{name}: {:.3} Mpps (64-byte frames, 1 thread, in-process; table setup {setup:.2} s)", pps / 1e6);
        results.push(format!("{{\"case\":\"{name}\",\"pps\":{pps:.0},\"setup_s\":{setup:.3}}}"));
    }
    if let Some(path) = out {
        let body = format!("[{}]\n", results.join(","));
        if let Err(e) = std::fs::write(&path, body) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(1);
        }
    }
}
