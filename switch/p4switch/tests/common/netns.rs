//! Network namespaces joined by veth pairs, and frames sent and received in
//! them: two hosts and a switch, as a user would wire them.

use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use p4switch::sys::{self, PacketSocket, SocketOptions};

use super::Running;

pub fn ip(args: &[&str]) {
    let o = Command::new("ip").args(args).output().expect("ip");
    assert!(o.status.success(), "ip {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// Namespaces `{p}a`, `{p}s`, `{p}b`; veths `{p}a0`-`{p}a1`, `{p}b0`-`{p}b1`
/// (the `1` ends in the switch's namespace). Removed on drop.
pub struct Topo {
    p: String,
}

impl Topo {
    /// `tag` keeps concurrently running tests apart.
    pub fn new(tag: &str) -> Topo {
        Topo::with_mtu(tag, 1500)
    }

    pub fn with_mtu(tag: &str, mtu: u32) -> Topo {
        let p = format!("h3{tag}{}", std::process::id() % 100_000);
        let t = Topo { p };
        t.down();
        let p = &t.p;
        for ns in ["a", "s", "b"] {
            ip(&["netns", "add", &format!("{p}{ns}")]);
            // No IPv6 chatter (router and neighbour solicitations) among the test's frames.
            let quiet = Command::new("ip")
                .args(["netns", "exec", &format!("{p}{ns}"), "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"])
                .status()
                .expect("sysctl");
            assert!(quiet.success());
        }
        ip(&["link", "add", &format!("{p}a0"), "netns", &format!("{p}a"), "type", "veth", "peer", "name", &format!("{p}a1"), "netns", &format!("{p}s")]);
        ip(&["link", "add", &format!("{p}b0"), "netns", &format!("{p}b"), "type", "veth", "peer", "name", &format!("{p}b1"), "netns", &format!("{p}s")]);
        for ns in ["a", "s", "b"] {
            ip(&["-n", &format!("{p}{ns}"), "link", "set", "lo", "up"]);
        }
        for (ns, dev) in [("a", "a0"), ("s", "a1"), ("s", "b1"), ("b", "b0")] {
            ip(&["-n", &format!("{p}{ns}"), "link", "set", &format!("{p}{dev}"), "mtu", &mtu.to_string(), "up"]);
        }
        t
    }

    pub fn ns(&self, n: &str) -> String {
        format!("{}{n}", self.p)
    }

    pub fn dev(&self, d: &str) -> String {
        format!("{}{d}", self.p)
    }

    pub fn down(&self) {
        for ns in ["a", "s", "b"] {
            let _ = Command::new("ip").args(["netns", "del", &format!("{}{ns}", self.p)]).output();
        }
    }

    /// Starts the switch in the switch namespace on ports 1@{p}a1 and 2@{p}b1
    /// with `program` and `args` (before the `--`), `target` after it; returns
    /// it with its ready line.
    pub fn start_switch(&self, dir: &std::path::Path, program: &serde_json::Value, args: &[&str], target: &[&str]) -> (Running, String) {
        std::fs::write(dir.join("prog.json"), program.to_string()).unwrap();
        let (sw, line) = Running::start(
            Command::new("ip")
                .args(["netns", "exec", &self.ns("s"), super::switch_bin()])
                .args(["-i", &format!("1@{}", self.dev("a1")), "-i", &format!("2@{}", self.dev("b1"))])
                .args(args)
                .arg("prog.json")
                .arg("--")
                .args(target)
                .current_dir(dir),
        );
        assert!(line.starts_with("p4switch ready"), "{line}");
        (sw, line)
    }
}

impl Drop for Topo {
    fn drop(&mut self) {
        self.down();
    }
}

/// A frame received with the time it was read.
pub struct Got {
    pub at: Instant,
    pub frame: Vec<u8>,
}

/// Receives frames on `dev` in namespace `ns` for `wait` (stripped VLAN tags put back).
pub fn receive(ns: String, dev: String, wait: Duration, ready: mpsc::Sender<()>) -> Vec<Got> {
    sys::enter_netns(&ns).expect("setns");
    let mut s = PacketSocket::open(&dev, &SocketOptions::port(8192)).expect("rx socket");
    ready.send(()).expect("ready");
    let end = Instant::now() + wait;
    let mut got = Vec::new();
    let mut buf = vec![0u8; 10_000];
    let fds = [s.raw_fd()];
    let mut rd = [false];
    while Instant::now() < end {
        while let Some(mut b) = s.next_block() {
            let at = Instant::now();
            while let Some(f) = b.next_frame() {
                let frame = match f.vlan {
                    Some((tpid, tci)) => {
                        let n = p4switch::wire::insert_vlan(f.data, tpid, tci, &mut buf).expect("tag");
                        buf[..n].to_vec()
                    }
                    None => f.data.to_vec(),
                };
                got.push(Got { at, frame });
            }
        }
        let _ = sys::poll_readable(&fds, &mut rd, 20);
    }
    got
}

/// Starts a receiver thread and returns once it listens.
pub fn receiver(ns: String, dev: String, wait: Duration) -> std::thread::JoinHandle<Vec<Got>> {
    let (ready_tx, ready_rx) = mpsc::channel();
    let t = std::thread::spawn(move || receive(ns, dev, wait, ready_tx));
    ready_rx.recv().expect("receiver ready");
    t
}

/// Sends `frames` from `dev` in namespace `ns`, pausing `gap` every `every` frames.
pub fn send(ns: String, dev: String, frames: Vec<Vec<u8>>, every: usize, gap: Duration) {
    std::thread::spawn(move || {
        sys::enter_netns(&ns).unwrap();
        let mut s = PacketSocket::open(&dev, &SocketOptions::sender(None)).unwrap();
        for (i, f) in frames.iter().enumerate() {
            s.send(f).unwrap();
            if every > 0 && (i + 1) % every == 0 {
                std::thread::sleep(gap);
            }
        }
    })
    .join()
    .unwrap();
}

/// The frames whose source MAC is `src`.
pub fn from(src: [u8; 6], got: Vec<Got>) -> Vec<Got> {
    got.into_iter().filter(|g| g.frame.get(6..12) == Some(&src[..])).collect()
}

/// CPU time (ns on a CPU) of the threads of `pid` whose name starts with
/// `prefix`, sorted by name, once `n` of them exist (a thread names itself
/// just after it starts).
pub fn threads_cpu(pid: u32, prefix: &str, n: usize) -> Vec<u64> {
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        let mut w: Vec<(String, u64)> = thread_cpu(pid).into_iter().filter(|(name, _)| name.starts_with(prefix)).collect();
        if w.len() >= n || Instant::now() > end {
            w.sort();
            return w.into_iter().map(|(_, ns)| ns).collect();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// CPU time (ns on a CPU) of every thread of process `pid`, by thread name.
pub fn thread_cpu(pid: u32) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return out };
    for t in dir.flatten() {
        let p = t.path();
        let name = std::fs::read_to_string(p.join("comm")).unwrap_or_default().trim().to_string();
        let ns = std::fs::read_to_string(p.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<u64>().ok()))
            .unwrap_or(0);
        out.push((name, ns));
    }
    out
}

/// Total CPU time of process `pid`'s threads, ns.
pub fn process_cpu(pid: u32) -> u64 {
    thread_cpu(pid).iter().map(|(_, ns)| ns).sum()
}

/// Port 1 <-> port 2 by ingress port (const entries), the smallest useful program.
pub fn cross_connect() -> serde_json::Value {
    use super::*;
    let mut p = Prog::new();
    p.action("MyIngress.forward", &[("port", 9)], vec![assign(fld("standard_metadata", "egress_spec"), rd(0))]);
    p.action("MyIngress.drop", &[], vec![mark_to_drop()]);
    xconnect_table(&mut p, None);
    p.init(0, "MyIngress.xconnect");
    p.j
}

/// The table `MyIngress.xconnect`: port 1 to 2 and 2 to 1 by const entries,
/// anything else dropped; `next` is the table after it (`None`: the end).
pub fn xconnect_table(p: &mut super::Prog, next: Option<&str>) {
    use serde_json::json;
    p.table(
        0,
        "MyIngress.xconnect",
        &[("exact", "standard_metadata", "ingress_port")],
        &["MyIngress.forward", "MyIngress.drop"],
        ("MyIngress.drop", vec![], true),
        vec![
            (json!([{"match_type": "exact", "key": "0x0001"}]), "MyIngress.forward", vec!["0x0002"], 1),
            (json!([{"match_type": "exact", "key": "0x0002"}]), "MyIngress.forward", vec!["0x0001"], 2),
        ],
        json!({"MyIngress.forward": next, "MyIngress.drop": next}),
        next,
    );
}

/// A runtime whose sockets live in network namespace `ns` (call it on a
/// thread of its own: the thread moves into `ns`; tasks run on it).
pub fn runtime_in(ns: &str) -> tokio::runtime::Runtime {
    sys::enter_netns(ns).expect("setns");
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// `GET /metrics` from the switch's metrics endpoint `addr` inside namespace `ns`.
pub fn metrics_in(ns: &str, addr: &str) -> String {
    use std::io::{Read, Write};
    let (ns, addr) = (ns.to_string(), addr.to_string());
    std::thread::spawn(move || {
        sys::enter_netns(&ns).expect("setns");
        let mut s = std::net::TcpStream::connect(&addr).expect("connect to the metrics endpoint");
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(s, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text
    })
    .join()
    .unwrap()
}
