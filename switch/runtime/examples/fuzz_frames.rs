//! Random and mutated frames through whatever program a controller loads:
//! the packet half of the fuzz smoke (fuzz/frames.py drives it with vrouter.p4
//! configured by `vrouter apply`).
//!
//!     cargo run --release -p p4runtime-server --example fuzz_frames -- \
//!         [--grpc-server-addr 127.0.0.1:0] [--cpu-port 255] [--frames N] [--seed S]
//!
//! It serves P4Runtime, prints `listening ADDR`, and waits for one line on
//! standard input (the controller has configured the switch meanwhile). Then
//! it runs N frames in-process through `Switch::process` on random ingress
//! ports: a third purely random bytes (0..1600 long), the rest mutations
//! (bit flips, byte overwrites, insertions, truncation, extension) of valid
//! frames of every protocol the program parses, addressed to its router MACs
//! and routes. A panic, a frame that takes longer than 2 s (hang), more than
//! 64 outputs for one frame, or an output more than 256 bytes longer than its
//! input is a failure: the frame is written to `fuzz-frame-SEED-N.bin`, and
//! the exit status is 1. The seed makes runs repeat.

use std::io::BufRead;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use p4engine::{Switch, SwitchConfig};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::{spawn, ServerOptions};

#[path = "../tests/common/rng.rs"]
mod rng;
use rng::Rng;

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
    addr: String,
    cpu_port: u32,
    frames: u64,
    seed: u64,
}

fn main() {
    let mut o = Opts { addr: "127.0.0.1:0".into(), cpu_port: 255, frames: 100_000, seed: 1 };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match a.as_str() {
            "--grpc-server-addr" => o.addr = value(&a),
            "--cpu-port" => o.cpu_port = value(&a).parse().unwrap_or_else(|_| fail("bad --cpu-port")),
            "--frames" => o.frames = value(&a).parse().unwrap_or_else(|_| fail("bad --frames")),
            "--seed" => o.seed = value(&a).parse().unwrap_or_else(|_| fail("bad --seed")),
            _ => fail(&format!("unknown option {a}")),
        }
    }
    let switch = Arc::new(Switch::new(SwitchConfig { cpu_port: Some(o.cpu_port), ..Default::default() }));
    let tx = Arc::new(|_: u32, _: &[u8]| {});
    let server = spawn(ServerOptions { addr: o.addr.clone(), ..Default::default() }, switch.clone(), tx)
        .unwrap_or_else(|e| fail(&e.to_string()));
    println!("listening {}", server.local_addr());
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    let dev = server.device().clone();
    let entries = dev
        .read(&p4v1::ReadRequest {
            device_id: dev.device_id(),
            entities: vec![p4v1::Entity {
                entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry::default())),
            }],
            ..Default::default()
        })
        .unwrap_or_else(|e| fail(&format!("no pipeline loaded by the controller: {e}")))
        .len();
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
    let seeds = seeds();
    let ports: Vec<u32> = (1..=5).chain([0, 6, 64, 255, 511]).collect();
    let mut rng = Rng(o.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut w = switch.new_worker();
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
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "frames: {} through a pipeline with {entries} table entries (seed {}) in {secs:.1} s: {outputs} outputs, {failures} failures",
        o.frames, o.seed
    );
    (failures > 0) as i32
}

fn fail(msg: &str) -> ! {
    eprintln!("fuzz_frames: {msg}");
    std::process::exit(2)
}
