//! In-process per-packet cost of the engine on the real program, vrouter.p4
//! (`build/vrouter.json`, from `make build`), configured as the vrouter
//! controller configures S1's campus core: access ports in VLANs 11 and 12,
//! a router interface per VLAN (router_mac, router_address, the subnet route
//! to the CPU, interface MTU), the resolved neighbours as ECMP-selector
//! members with /32 host routes, their stations (l2_learning + l2_unicast),
//! one multicast group per VLAN and the CPU clone session.
//!
//! Cases (64-byte Ethernet/IPv4/UDP frames, untagged, one thread, no I/O):
//! - `l2_bridged`: port 1 -> port 2 inside VLAN 11 (l2_unicast hit);
//! - `l3_routed`: port 1 (VLAN 11) -> port 3 (VLAN 12) through the router
//!   interface (MAC rewrite, TTL decrement, checksum update);
//! - `l3_routed_acl`: the same with campus.yaml's four ACL rules installed
//!   (none of them matches the traffic);
//! - `l3_routed_acl10k`: the same with 10,000 ACL rules (bench-switch's over
//!   veth: port, port-range, prefix and protocol rules from 192.168.x.y);
//! - `mpls_push`: port 1 -> 10.60.0.1, an ingress LSP (FEC 10.60.0.0/16,
//!   installed in every case as the controller does) pushes label 1001.
//!
//! Every case first checks that the frames come out on the expected port
//! with the expected bytes (a dropped packet measures nothing), then runs
//! them for `--seconds` and prints ns per packet (CPU time of the thread,
//! from /proc/thread-self/schedstat, so other load does not count). Like
//! p4switch's workers, the benchmark pins one table snapshot per batch of
//! frames (`Switch::pin`); `--no-pin` loads each table per apply instead.
//!
//! `--routes N` adds N /24 routes (16.0.0.0 + i*256, none matching the
//! frames) to `ipv4_route`, its size raised to fit, and prints the memory
//! they took: the cost of a big routing table (issue 16, scale).
//!
//! Run: `cargo run --release -p p4engine --example bench_vrouter -- [--seconds S] [--json build/vrouter.json] [--no-pin] [--trace] [--routes N] [--exec plan|interp|both] [--case NAME]... [--packets N]`
//! (`--exec both`, the default, measures the compiled plan, then the reference interpreter.)
//!
//! `--case NAME` (repeatable) runs only the named cases; `--packets N` runs
//! exactly N packets per case instead of `--seconds` (deterministic, for
//! `valgrind --tool=callgrind --toggle-collect='p4engine::exec::process'`:
//! the collected instructions divided by N + 64 (the check) are the
//! instructions per packet).

use std::time::{Duration, Instant};

use p4engine::*;

const PORT_A: u32 = 1; // VLAN 11, host A
const PORT_A2: u32 = 2; // VLAN 11, host A2
const PORT_B: u32 = 3; // VLAN 12, host B
const CPU_PORT: u32 = 255;

const HOST_A_MAC: [u8; 6] = [0x02, 0, 0, 0, 0x0b, 0x0a];
const HOST_A2_MAC: [u8; 6] = [0x02, 0, 0, 0, 0x0b, 0x0b];
const HOST_B_MAC: [u8; 6] = [0x02, 0, 0, 0, 0x0c, 0x0a];
const RMAC_11: [u8; 6] = [0x00, 0x00, 0x5e, 0x00, 0x01, 0x0b];
const RMAC_12: [u8; 6] = [0x00, 0x00, 0x5e, 0x00, 0x01, 0x0c];
const HOST_A_IP: [u8; 4] = [10, 0, 11, 10];
const HOST_A2_IP: [u8; 4] = [10, 0, 11, 11];
const HOST_B_IP: [u8; 4] = [10, 0, 12, 10];
const FEC_IP: [u8; 4] = [10, 60, 0, 1];
const LSP_LABEL: u32 = 1001;

/// The ACL a case installs.
#[derive(Clone, Copy, PartialEq)]
enum Acl {
    None,
    /// campus.yaml's four rules
    Campus,
    /// this many rules in the shapes bench-switch writes through the controller
    Rules(usize),
}

fn be(v: u64, n: usize) -> Vec<u8> {
    v.to_be_bytes()[8 - n..].to_vec()
}

fn act(name: &str, params: Vec<Vec<u8>>) -> EntryAction {
    EntryAction::Action(ActionSpec { action: name.into(), params })
}

fn insert(sw: &Switch, table: &str, key: Vec<MatchKey>, action: EntryAction, priority: i32) {
    let e = TableEntry { key, action, priority, idle_timeout_ns: 0 };
    if let Err(err) = sw.table_insert(table, e) {
        panic!("insert into {table}: {err}");
    }
}

fn exact(v: &[u8]) -> MatchKey {
    MatchKey::Exact(v.to_vec())
}

/// What `controller/vrouter/desired.py` writes for the two-VLAN part of
/// topo/campus.yaml with hosts A, A2 (VLAN 11) and B (VLAN 12) resolved.
fn configure(sw: &Switch, acl: Acl) {
    for (port, vlan) in [(PORT_A, 11u64), (PORT_A2, 11), (PORT_B, 12)] {
        let p = be(port as u64, 2);
        insert(sw, "ingress.port_vlan.port_config", vec![exact(&p)], act("ingress.port_vlan.set_access_port", vec![be(vlan, 2)]), 0);
        insert(sw, "egress.vlan.egress_vlan_member", vec![exact(&p), exact(&be(vlan, 2))], act("egress.vlan.untag_vlan", vec![]), 0);
    }
    for (vlan, ports) in [(11u32, vec![PORT_A, PORT_A2]), (12, vec![PORT_B])] {
        let replicas = ports.into_iter().map(|p| Replica { egress_port: p, rid: 0 }).collect();
        sw.mc_group_create(MulticastGroup { group_id: vlan, replicas }).expect("mc group");
    }
    sw.clone_session_create(CloneSession {
        session_id: 511,
        replicas: vec![Replica { egress_port: CPU_PORT, rid: 0 }],
        class_of_service: 0,
        packet_length_bytes: 0,
    })
    .expect("clone session");
    for (vlan, rmac, addr) in [(11u64, RMAC_11, [10u8, 0, 11, 1]), (12, RMAC_12, [10, 0, 12, 1])] {
        let v = be(vlan, 2);
        insert(sw, "ingress.admit.router_mac", vec![exact(&v), exact(&rmac)], act("ingress.admit.admit_to_l3", vec![]), 0);
        insert(sw, "ingress.routing.router_address", vec![exact(&addr)], act("ingress.routing.router_address_hit", vec![]), 0);
        insert(
            sw,
            "ingress.routing.ipv4_route",
            vec![MatchKey::Lpm(vec![addr[0], addr[1], addr[2], 0], 24)],
            act("ingress.routing.route_to_cpu", vec![]),
            0,
        );
        insert(sw, "ingress.mtu.interface_mtu", vec![exact(&v)], act("ingress.mtu.set_mtu", vec![be(1500, 2)]), 0);
    }
    // Resolved neighbours: next hop (selector member + nexthop_table) and host route.
    for (i, (ip, mac, port, vlan, rmac)) in [
        (HOST_A_IP, HOST_A_MAC, PORT_A, 11u64, RMAC_11),
        (HOST_A2_IP, HOST_A2_MAC, PORT_A2, 11, RMAC_11),
        (HOST_B_IP, HOST_B_MAC, PORT_B, 12, RMAC_12),
    ]
    .into_iter()
    .enumerate()
    {
        let nid = 0x8000 + i as u64;
        let spec = ActionSpec {
            action: "ingress.nexthop.set_nexthop".into(),
            params: vec![be(port as u64, 2), be(vlan, 2), mac.to_vec(), rmac.to_vec()],
        };
        sw.member_add("ingress.nexthop.ecmp_selector", Member { member_id: nid as u32, action: spec }).expect("member");
        insert(sw, "ingress.nexthop.nexthop_table", vec![exact(&be(nid, 2))], EntryAction::Member(nid as u32), 0);
        insert(
            sw,
            "ingress.routing.ipv4_route",
            vec![MatchKey::Lpm(ip.to_vec(), 32)],
            act("ingress.routing.route_to_nexthop", vec![be(nid, 2)]),
            0,
        );
        // The station, learned on its port.
        let v = be(vlan, 2);
        insert(
            sw,
            "ingress.learning.l2_learning",
            vec![exact(&v), exact(&mac), exact(&be(port as u64, 2))],
            act("ingress.learning.station_known", vec![]),
            0,
        );
        insert(sw, "ingress.bridge.l2_unicast", vec![exact(&v), exact(&mac)], act("ingress.bridge.set_output_port", vec![be(port as u64, 2)]), 0);
    }
    // An ingress LSP towards host B: FEC route -> next hop that pushes one label (uniform TTL).
    let push = ActionSpec {
        action: "ingress.nexthop.set_nexthop_push1".into(),
        params: vec![be(PORT_B as u64, 2), be(12, 2), HOST_B_MAC.to_vec(), RMAC_12.to_vec(), be(LSP_LABEL as u64, 3), vec![0]],
    };
    sw.member_add("ingress.nexthop.ecmp_selector", Member { member_id: 0x8100, action: push }).expect("member");
    insert(sw, "ingress.nexthop.nexthop_table", vec![exact(&be(0x8100, 2))], EntryAction::Member(0x8100), 0);
    insert(
        sw,
        "ingress.routing.ipv4_route",
        vec![MatchKey::Lpm(vec![FEC_IP[0], FEC_IP[1], 0, 0], 16)],
        act("ingress.routing.route_to_nexthop", vec![be(0x8100, 2)]),
        0,
    );
    if acl == Acl::Campus {
        // campus.yaml's ACL: three prefix pairs denied, telnet denied.
        let any = |n: usize| MatchKey::Ternary(vec![0; n], vec![0; n]);
        let any_range = || MatchKey::Range(vec![0, 0], vec![0xff, 0xff]);
        let rule = |src: Option<[u8; 3]>, dst: Option<[u8; 3]>, proto: Option<u8>, dport: Option<u16>| {
            let pfx = |p: Option<[u8; 3]>| match p {
                Some(a) => MatchKey::Ternary(vec![a[0], a[1], a[2], 0], vec![255, 255, 255, 0]),
                None => any(4),
            };
            vec![
                any(2),
                any(2),
                any(6),
                any(6),
                any(2),
                pfx(src),
                pfx(dst),
                proto.map_or(any(1), |p| MatchKey::Ternary(vec![p], vec![0xff])),
                any(1),
                any_range(),
                dport.map_or(any_range(), |d| MatchKey::Range(d.to_be_bytes().to_vec(), d.to_be_bytes().to_vec())),
                any(1),
            ]
        };
        let rules = [
            rule(Some([10, 0, 50]), Some([10, 0, 30]), None, None),
            rule(Some([10, 0, 40]), Some([10, 0, 11]), None, None),
            rule(Some([10, 0, 40]), Some([10, 0, 12]), None, None),
            rule(None, None, Some(6), Some(23)),
        ];
        for (i, key) in rules.into_iter().enumerate() {
            insert(sw, "ingress.acl.acl_ingress_table", key, act("ingress.acl.deny", vec![]), 100 - i as i32);
        }
    }
    if let Acl::Rules(n) = acl {
        let any = |n: usize| MatchKey::Ternary(vec![0; n], vec![0; n]);
        let any_range = || MatchKey::Range(vec![0, 0], vec![0xff, 0xff]);
        let range = |lo: u16, hi: u16| MatchKey::Range(lo.to_be_bytes().to_vec(), hi.to_be_bytes().to_vec());
        for i in 0..n {
            let src = MatchKey::Ternary(vec![192, 168, (i / 256 % 256) as u8, (i % 256) as u8], vec![255; 4]);
            let proto = |p: u8| MatchKey::Ternary(vec![p], vec![0xff]);
            // the shapes of switch/p4switch/bench/vrouter_veth.py's acl_rules
            let (dst, pr, dport) = match i % 4 {
                0 => (any(4), proto(6), range(1000 + (i % 5000) as u16, 1000 + (i % 5000) as u16)),
                1 => (any(4), proto(17), range(2000 + (i % 1000) as u16, 2100 + (i % 1000) as u16)),
                2 => (MatchKey::Ternary(vec![10, (i % 200) as u8, 0, 0], vec![255, 255, 0, 0]), any(1), any_range()),
                _ => (any(4), proto(1), any_range()),
            };
            let key = vec![any(2), any(2), any(6), any(6), any(2), src, dst, pr, any(1), any_range(), dport, any(1)];
            insert(sw, "ingress.acl.acl_ingress_table", key, act("ingress.acl.deny", vec![]), 1 + i as i32);
        }
    }
}

/// `--routes N`: N more routes that the frames do not match.
fn add_routes(sw: &Switch, n: u32) {
    for i in 0..n {
        let prefix = ((16u32 << 24) + (i << 8)).to_be_bytes().to_vec();
        insert(sw, "ingress.routing.ipv4_route", vec![MatchKey::Lpm(prefix, 24)], act("ingress.routing.route_to_nexthop", vec![be(0x8000, 2)]), 0);
    }
}

/// The program text with `ipv4_route` sized for `extra` more routes.
fn with_route_room(text: &str, extra: u32) -> String {
    let mut j: serde_json::Value = serde_json::from_str(text).expect("JSON");
    for p in j["pipelines"].as_array_mut().into_iter().flatten() {
        for t in p["tables"].as_array_mut().into_iter().flatten() {
            if t["name"] == "ingress.routing.ipv4_route" {
                let size = t["max_size"].as_u64().unwrap_or(0);
                t["max_size"] = (size + extra as u64).into();
            }
        }
    }
    j.to_string()
}

fn rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
}

fn ip_checksum(h: &[u8]) -> u16 {
    let mut s: u32 = h.chunks(2).map(|c| ((c[0] as u32) << 8) | c[1] as u32).sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// A 64-byte Ethernet/IPv4/UDP frame.
fn frame(dmac: [u8; 6], smac: [u8; 6], src: [u8; 4], dst: [u8; 4], ttl: u8, sport: u16) -> Vec<u8> {
    let mut f = Vec::with_capacity(64);
    f.extend_from_slice(&dmac);
    f.extend_from_slice(&smac);
    f.extend_from_slice(&[0x08, 0x00]);
    let mut ip = vec![0x45, 0, 0, 50, 0, 1, 0, 0, ttl, 17, 0, 0];
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    let ck = ip_checksum(&ip);
    ip[10..12].copy_from_slice(&ck.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&sport.to_be_bytes());
    f.extend_from_slice(&[0x30, 0x39, 0, 30, 0, 0]);
    f.resize(64, 0);
    f
}

#[derive(Clone)]
struct Case {
    name: &'static str,
    acl: Acl,
    port: u32,
    /// (frame in, expected port, expected frame out)
    packets: Vec<(Vec<u8>, u32, Vec<u8>)>,
}

fn cases() -> Vec<Case> {
    let n = 64u16;
    let bridged = (0..n)
        .map(|i| {
            let f = frame(HOST_A2_MAC, HOST_A_MAC, HOST_A_IP, HOST_A2_IP, 64, 1024 + i);
            (f.clone(), PORT_A2, f)
        })
        .collect();
    let routed = || {
        (0..n)
            .map(|i| {
                let f = frame(RMAC_11, HOST_A_MAC, HOST_A_IP, HOST_B_IP, 64, 1024 + i);
                let o = frame(HOST_B_MAC, RMAC_12, HOST_A_IP, HOST_B_IP, 63, 1024 + i);
                (f, PORT_B, o)
            })
            .collect()
    };
    let pushed = (0..n)
        .map(|i| {
            let f = frame(RMAC_11, HOST_A_MAC, HOST_A_IP, FEC_IP, 64, 1024 + i);
            let ip = frame(HOST_B_MAC, RMAC_12, HOST_A_IP, FEC_IP, 63, 1024 + i);
            // label 1001, EXP 0 (DSCP 0), bottom of stack, TTL 63 (uniform: the IPv4 TTL after routing)
            let lse = (LSP_LABEL << 12) | (1 << 8) | 63;
            let mut o = ip[..12].to_vec();
            o.extend_from_slice(&[0x88, 0x47]);
            o.extend_from_slice(&lse.to_be_bytes());
            o.extend_from_slice(&ip[14..]);
            (f, PORT_B, o)
        })
        .collect();
    vec![
        Case { name: "l2_bridged", acl: Acl::None, port: PORT_A, packets: bridged },
        Case { name: "l3_routed", acl: Acl::None, port: PORT_A, packets: routed() },
        Case { name: "l3_routed_acl", acl: Acl::Campus, port: PORT_A, packets: routed() },
        Case { name: "l3_routed_acl10k", acl: Acl::Rules(10_000), port: PORT_A, packets: routed() },
        Case { name: "mpls_push", acl: Acl::None, port: PORT_A, packets: pushed },
    ]
}

fn thread_cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn check(sw: &Switch, w: &mut Worker, c: &Case) {
    for (i, (f, port, want)) in c.packets.iter().enumerate() {
        let mut got: Vec<(u32, Vec<u8>)> = Vec::new();
        sw.process(w, c.port, f, &mut |p, b| got.push((p, b.to_vec())));
        if got != vec![(*port, want.clone())] {
            eprintln!("{}: packet {i} came out as {got:02x?}", c.name);
            eprintln!("{}: expected port {port}, {want:02x?}", c.name);
            std::process::exit(1);
        }
    }
}

/// How long a case runs.
#[derive(Clone, Copy)]
enum Run {
    Seconds(f64),
    Packets(u64),
}

/// ns of thread CPU time per packet.
fn measure(sw: &Switch, c: &Case, run: Run, pin: bool) -> f64 {
    let mut w = sw.new_worker();
    check(sw, &mut w, c);
    let mut out = 0u64;
    let mut sent = 0u64;
    let start = Instant::now();
    let cpu0 = thread_cpu_s();
    let (limit, max) = match run {
        Run::Seconds(s) => (Duration::from_secs_f64(s), u64::MAX),
        Run::Packets(n) => (Duration::MAX, n),
    };
    while sent < max && start.elapsed() < limit {
        if pin {
            sw.pin(&mut w);
        }
        let n = (max - sent).min(c.packets.len() as u64) as usize;
        for (f, _, _) in &c.packets[..n] {
            sw.process(&mut w, c.port, f, &mut |_, _| out += 1);
        }
        if pin {
            sw.unpin(&mut w);
        }
        sent += n as u64;
    }
    let wall = start.elapsed().as_secs_f64();
    let el = match (cpu0, thread_cpu_s()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall,
    };
    assert_eq!(out, sent, "{}: every packet must come out", c.name);
    el * 1e9 / sent as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut secs = 2.0;
    let mut json = String::from("build/vrouter.json");
    let mut pin = true;
    let mut trace = false;
    let mut routes = 0u32;
    let mut modes = vec![ExecMode::Plan, ExecMode::Interpreter];
    let mut only: Vec<String> = Vec::new();
    let mut packets: Option<u64> = None;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--seconds" => {
                secs = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(secs);
                i += 1;
            }
            "--json" => {
                if let Some(j) = args.get(i + 1) {
                    json = j.clone();
                }
                i += 1;
            }
            "--no-pin" => pin = false,
            "--trace" => trace = true,
            "--routes" => {
                routes = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(0);
                i += 1;
            }
            "--case" => {
                only.extend(args.get(i + 1).cloned());
                i += 1;
            }
            "--packets" => {
                packets = args.get(i + 1).and_then(|s| s.parse().ok());
                i += 1;
            }
            "--exec" => {
                modes = match args.get(i + 1).map(String::as_str) {
                    Some("plan") => vec![ExecMode::Plan],
                    Some("interp") => vec![ExecMode::Interpreter],
                    Some("both") => vec![ExecMode::Plan, ExecMode::Interpreter],
                    m => {
                        eprintln!("--exec {m:?}: expected plan, interp or both");
                        std::process::exit(2);
                    }
                };
                i += 1;
            }
            a => {
                eprintln!("unknown argument {a}; usage: bench_vrouter [--seconds S] [--json FILE] [--no-pin] [--trace] [--routes N] [--exec plan|interp|both] [--case NAME]... [--packets N]");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    let text = match std::fs::read_to_string(&json) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {json}: {e} (run `make build` in the project root first)");
            std::process::exit(1);
        }
    };
    let text = if routes > 0 { with_route_room(&text, routes) } else { text };
    let prog = match load_program(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{json}: {e}");
            std::process::exit(1);
        }
    };
    let all = cases();
    if let Some(bad) = only.iter().find(|n| !all.iter().any(|c| c.name == n.as_str())) {
        let names: Vec<&str> = all.iter().map(|c| c.name).collect();
        eprintln!("--case {bad}: no such case (cases: {})", names.join(", "));
        std::process::exit(2);
    }
    let chosen = all.into_iter().filter(|c| only.is_empty() || only.iter().any(|n| n == c.name));
    let run = packets.map_or(Run::Seconds(secs), Run::Packets);
    for (c, exec) in chosen.flat_map(|c| modes.iter().map(move |m| (c.clone(), *m))) {
        let how = if exec == ExecMode::Plan { "plan" } else { "interp" };
        let sw = Switch::new(SwitchConfig { cpu_port: Some(CPU_PORT), exec, ..SwitchConfig::default() });
        sw.set_program(prog.clone());
        configure(&sw, c.acl);
        if routes > 0 {
            let (before, t0) = (rss_kib(), Instant::now());
            add_routes(&sw, routes);
            let kib = rss_kib().saturating_sub(before);
            println!(
                "{}: {routes} more routes in {:.1} s, {} KiB more memory ({:.0} B/route)",
                c.name,
                t0.elapsed().as_secs_f64(),
                kib,
                kib as f64 * 1024.0 / routes as f64
            );
        }
        if trace {
            let mut w = sw.new_worker();
            w.set_trace(Some(Box::new(|m: &str| println!("  {m}"))));
            println!("{} [{how}]: trace of the first frame", c.name);
            sw.process(&mut w, c.port, &c.packets[0].0, &mut |p, b| println!("  out port {p}, {} bytes", b.len()));
            continue;
        }
        let ns = measure(&sw, &c, run, pin);
        println!("{} [{how}]: {:.0} ns/packet ({:.3} Mpps on one core; 64-byte frames, in-process{})", c.name, ns, 1e3 / ns, if pin { "" } else { ", not pinned" });
    }
}
