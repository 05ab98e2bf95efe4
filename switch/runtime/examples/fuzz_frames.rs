//! Random and mutated frames through vrouter.p4 as the controller configures
//! it: the packet half of the fuzzers (fuzz/frames.py runs it and prints the
//! coverage summary; `make test-fuzz`, `make fuzz`).
//!
//!     cargo run --release -p p4runtime-server --example fuzz_frames -- \
//!         [--cpu-port 255] [--frames N] [--seed S] [--coverage FILE] [--write-seeds DIR]
//!
//! `fuzz_common/vrouter_switch.rs` configures the switch (`vrouter apply`
//! with build/vrouter.json). Then it runs N frames in-process through
//! `Switch::process` on random ingress ports: a third purely random bytes
//! (0..1600 long), the rest mutations (bit flips, byte overwrites,
//! insertions, truncation, extension) of valid frames of every protocol the
//! program parses, addressed to its router MACs and routes, and of every
//! earlier frame that reached new coverage (`fuzz_common/coverage.rs`). A
//! panic, a frame that takes longer than 2 s (hang), more than 64 outputs for
//! one frame, or an output more than 256 bytes longer than its input is a
//! failure: the frame is written to `fuzz-frame-SEED-N.bin`, and the exit
//! status is 1. The seed makes runs repeat. `--coverage FILE` traces every
//! frame (several times slower), keeps the frames that reach new points as
//! seeds, and writes every point reached (and the drop counters' cells that
//! counted) with counts; without it the run is blind and fast.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use p4engine::Switch;

#[path = "../tests/common/rng.rs"]
mod rng;
use rng::Rng;
#[path = "fuzz_common/coverage.rs"]
mod coverage;
use coverage::Coverage;
#[path = "fuzz_common/vrouter_switch.rs"]
mod vrouter_switch;
use vrouter_switch::{repo_root, vrouter_switch};

const ROUTER_MACS: [[u8; 6]; 3] = [[0, 0, 0x5e, 0, 1, 0x0a], [0, 0, 0x5e, 0, 1, 0x14], [0, 0, 0x5e, 0, 1, 0x28]];
const HOST: [u8; 6] = [0x02, 0, 0, 0, 0x10, 0x0b];

fn eth(dst: [u8; 6], src: [u8; 6], tags: &[(u16, u16)], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = [dst, src].concat();
    for &(tpid, tci) in tags {
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&tci.to_be_bytes());
    }
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn ipv4(src: [u8; 4], dst: [u8; 4], proto: u8, ttl: u8, l4: &[u8]) -> Vec<u8> {
    let len = (20 + l4.len()) as u16;
    let mut h = vec![0x45, 0, 0, 0, 0, 1, 0x40, 0, ttl, proto, 0, 0];
    h[2..4].copy_from_slice(&len.to_be_bytes());
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    let mut sum: u32 = h.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    h[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    h.extend_from_slice(l4);
    h
}

fn tcp(sport: u16, dport: u16, flags: u8) -> Vec<u8> {
    let mut t = [sport.to_be_bytes(), dport.to_be_bytes()].concat();
    t.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    t
}

fn udp(sport: u16, dport: u16) -> Vec<u8> {
    [sport.to_be_bytes(), dport.to_be_bytes(), 12u16.to_be_bytes(), [0, 0], [1, 2], [3, 4]].concat()
}

fn arp(op: u16, sender_mac: [u8; 6], sender: [u8; 4], target: [u8; 4]) -> Vec<u8> {
    let mut a = vec![0, 1, 8, 0, 6, 4];
    a.extend_from_slice(&op.to_be_bytes());
    a.extend_from_slice(&sender_mac);
    a.extend_from_slice(&sender);
    a.extend_from_slice(&[0; 6]);
    a.extend_from_slice(&target);
    a
}

fn mpls(labels: &[u32], payload: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    for (i, l) in labels.iter().enumerate() {
        let bos = (i + 1 == labels.len()) as u32;
        m.extend_from_slice(&((l << 12) | (bos << 8) | 64).to_be_bytes());
    }
    m.extend_from_slice(payload);
    m
}

/// Valid frames of every kind vrouter.p4 parses, towards its addresses.
fn seeds() -> Vec<Vec<u8>> {
    let host = [10, 0, 10, 11];
    let server = [10, 0, 20, 5];
    let icmp_echo = [8u8, 0, 0xf7, 0xfe, 0, 1, 0, 1];
    let mut s = vec![
        eth([0xff; 6], HOST, &[], 0x0806, &arp(1, HOST, host, [10, 0, 10, 1])),
        eth(ROUTER_MACS[0], HOST, &[], 0x0806, &arp(2, HOST, host, [10, 0, 10, 1])),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, server, 6, 64, &tcp(40000, 22, 0x02))),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, server, 6, 64, &tcp(40000, 23, 0x11))),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, [172, 16, 1, 1], 17, 64, &udp(5000, 53))),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, [8, 8, 8, 8], 1, 64, &icmp_echo)),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, [10, 0, 10, 1], 1, 1, &icmp_echo)),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, [192, 0, 2, 9], 17, 64, &udp(1, 2))),
        eth(ROUTER_MACS[0], HOST, &[], 0x0800, &ipv4(host, [10, 60, 0, 1], 6, 64, &tcp(1, 80, 0x10))),
        eth([0x02, 0, 0, 0, 0x20, 0x01], HOST, &[], 0x0800, &ipv4(host, server, 17, 64, &udp(7, 7))),
        eth([0x02, 0, 0, 0, 0x20, 0x01], HOST, &[(0x8100, 20)], 0x0800, &ipv4(host, server, 17, 64, &udp(7, 7))),
        eth(ROUTER_MACS[1], HOST, &[(0x8100, 0), (0x8100, 20)], 0x0800, &ipv4(host, server, 6, 64, &tcp(1, 2, 0x04))),
        eth(ROUTER_MACS[1], HOST, &[(0x88a8, 10), (0x8100, 20)], 0x0800, &ipv4(host, server, 6, 64, &tcp(1, 2, 0x02))),
        eth(ROUTER_MACS[2], HOST, &[], 0x8847, &mpls(&[3001], &ipv4(host, server, 17, 64, &udp(1, 2)))),
        eth(ROUTER_MACS[2], HOST, &[], 0x8847, &mpls(&[3101, 5001], &eth(HOST, HOST, &[], 0x0800, &[]))),
        eth(ROUTER_MACS[2], HOST, &[], 0x8847, &mpls(&[16; 20], &[0x45, 0])),
        eth([0x01, 0, 0x5e, 0, 0, 1], HOST, &[], 0x0800, &ipv4(host, [224, 0, 0, 1], 2, 1, &[0x11, 0, 0, 0])),
        eth(ROUTER_MACS[0], HOST, &[], 0x86dd, &[0x60; 40]),
    ];
    let mut tags = Vec::new();
    for i in 0..12 {
        tags.push((if i % 2 == 0 { 0x8100 } else { 0x88a8 }, 10 + i as u16));
    }
    s.push(eth(ROUTER_MACS[0], HOST, &tags, 0x0800, &ipv4(host, server, 17, 64, &udp(1, 2))));
    s
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(6) {
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = [0, 0xff, 0x7f, 0x80, rng.next() as u8][rng.below(5)];
            }
            2 => {
                let i = rng.below(b.len() + 1);
                let n = 1 + rng.below(8);
                let ins = rng.bytes(n);
                b.splice(i..i, ins);
            }
            3 => {
                let n = rng.below(b.len() + 1);
                b.truncate(n);
            }
            4 => {
                let n = rng.below(1500);
                let extra = rng.bytes(n);
                b.extend(extra);
            }
            _ if b.len() > 4 => {
                // copy a field-sized run elsewhere (lengths, tags, labels)
                let n = 2 + rng.below(3);
                let (from, to) = (rng.below(b.len() - n), rng.below(b.len() - n));
                let run = b[from..from + n].to_vec();
                b[to..to + n].copy_from_slice(&run);
            }
            _ => {}
        }
    }
    b
}

struct Opts {
    cpu_port: u32,
    frames: u64,
    seed: u64,
    coverage: Option<String>,
}

fn main() {
    let mut o = Opts { cpu_port: 255, frames: 100_000, seed: 1, coverage: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match a.as_str() {
            "--cpu-port" => o.cpu_port = value(&a).parse().unwrap_or_else(|_| fail("bad --cpu-port")),
            "--frames" => o.frames = value(&a).parse().unwrap_or_else(|_| fail("bad --frames")),
            "--seed" => o.seed = value(&a).parse().unwrap_or_else(|_| fail("bad --seed")),
            "--coverage" => o.coverage = Some(value(&a)),
            "--write-seeds" => write_seeds(&value(&a)),
            _ => fail(&format!("unknown option {a}")),
        }
    }
    let (switch, server, entries) = vrouter_switch(&repo_root(), o.cpu_port).unwrap_or_else(|e| fail(&e));
    let code = run(&switch, &o, entries);
    server.shutdown();
    std::process::exit(code);
}

fn run(switch: &Switch, o: &Opts, entries: usize) -> i32 {
    // The watchdog: a frame that is still running after 2 s is a hang.
    let progress = Arc::new(AtomicU64::new(0));
    let seen = progress.clone();
    let seed = o.seed;
    std::thread::spawn(move || {
        let mut last = u64::MAX;
        loop {
            std::thread::sleep(Duration::from_secs(2));
            let now = seen.load(Ordering::Relaxed);
            if now == last {
                eprintln!("fuzz_frames: HANG at frame {now} (seed {seed}): no progress for 2 s");
                std::process::exit(1);
            }
            last = now;
        }
    });
    // Mutations start from the valid frames, then also from every frame that
    // reached a parser state, lookup, table x action pair or branch first.
    let mut seeds = seeds();
    let given = seeds.len();
    let ports: Vec<u32> = (1..=5).chain([0, 6, 64, 255, 511]).collect();
    let mut rng = Rng(o.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let cov = Coverage::default();
    // Tracing every frame costs most of the time: only with --coverage.
    let traced = o.coverage.is_some();
    let mut w = switch.new_worker();
    if traced {
        cov.attach(&mut w);
    }
    let (mut outputs, mut failures) = (0u64, 0u32);
    let start = Instant::now();
    for n in 0..o.frames {
        let frame = if n % 3 == 0 {
            let len = rng.below(1600);
            rng.bytes(len)
        } else {
            let i = rng.below(seeds.len());
            mutate(&mut rng, &seeds[i])
        };
        let port = if rng.below(8) == 0 { rng.below(512) as u32 } else { ports[rng.below(ports.len())] };
        let mut outs: Vec<usize> = Vec::new();
        let res = catch_unwind(AssertUnwindSafe(|| {
            switch.process(&mut w, port, &frame, &mut |_, f| outs.push(f.len()));
        }));
        progress.store(n + 1, Ordering::Relaxed);
        outputs += outs.len() as u64;
        let why = match res {
            Err(_) => Some("panic".to_string()),
            Ok(()) if outs.len() > 64 => Some(format!("{} outputs", outs.len())),
            Ok(()) => outs.iter().find(|&&l| l > frame.len() + 256).map(|l| format!("output of {l} bytes")),
        };
        if let Some(why) = why {
            failures += 1;
            let file = format!("fuzz-frame-{}-{n}.bin", o.seed);
            let _ = std::fs::write(&file, &frame);
            eprintln!("fuzz_frames: frame {n} on port {port}: {why} (saved as {file})");
            if res.is_err() {
                w = switch.new_worker();
                if traced {
                    cov.attach(&mut w);
                }
            }
        }
        if cov.take_new() > 0 && seeds.len() < given + MAX_CORPUS {
            seeds.push(frame);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let points = cov.points();
    println!(
        "frames: {} through a pipeline with {entries} table entries (seed {}) in {secs:.1} s ({:.0} exec/s): \
         {outputs} outputs, {failures} failures; {} coverage points, {} seeds kept",
        o.frames,
        o.seed,
        o.frames as f64 / secs.max(1e-9),
        points.len(),
        seeds.len() - given
    );
    if let Some(path) = &o.coverage {
        let mut text = format!("execs {}\nseconds {secs:.3}\nseeds {}\n", o.frames, seeds.len() - given);
        for (point, times) in points.iter().chain(drops(switch).iter()) {
            text.push_str(&format!("{point}\t{times}\n"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    }
    (failures > 0) as i32
}

/// Writes the valid frames as a libFuzzer corpus for the engine's `process`
/// target (two bytes of ingress port, 1, then the frame) and exits: without
/// them libFuzzer rarely builds a frame to a router MAC.
fn write_seeds(dir: &str) -> ! {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{dir}: {e}")));
    for (i, f) in seeds().iter().enumerate() {
        let path = format!("{dir}/frame-{i:02}");
        std::fs::write(&path, [&[0u8, 1][..], f].concat()).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    }
    println!("fuzz_frames: {} seed frames written to {dir}", seeds().len());
    std::process::exit(0)
}

/// Most frames kept as seeds for further mutation (bounds memory and keeps
/// the valid frames chosen often).
const MAX_CORPUS: usize = 2000;

/// "drop ingress|egress INDEX" and packets, for every cell of the program's
/// drop counters (vrouter.p4: `ingress_drop_counter[reason]`) that counted.
fn drops(switch: &Switch) -> Vec<(String, u64)> {
    let Some(p) = switch.program() else { return Vec::new() };
    let mut v = Vec::new();
    for c in p.info().counters.iter().filter(|c| c.name.ends_with("drop_counter") && c.direct_table.is_none()) {
        let dir = if c.name.contains("egress") { "egress" } else { "ingress" };
        for i in 0..c.size {
            match switch.counter_read(&c.name, i) {
                Ok(d) if d.packets > 0 => v.push((format!("drop {dir} {i}"), d.packets)),
                _ => {}
            }
        }
    }
    v
}

fn fail(msg: &str) -> ! {
    eprintln!("fuzz_frames: {msg}");
    std::process::exit(2)
}
