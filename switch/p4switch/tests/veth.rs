//! The real binary on AF_PACKET ports: two hosts in their own network
//! namespaces, the switch in a third, joined by veth pairs. A frame sent from
//! one host must arrive on the other exactly as sent (including an 802.1Q tag,
//! which the kernel moves out of the frame on receive), and SIGTERM must stop
//! the switch with its captures flushed. Needs root (the project's machines
//! and CI run as root).

mod common;

use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::*;
use p4switch::sys::{self, PacketSocket, SocketOptions};

fn ip(args: &[&str]) {
    let o = Command::new("ip").args(args).output().expect("ip");
    assert!(o.status.success(), "ip {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// Namespaces `{p}a`, `{p}s`, `{p}b`; veths `{p}a0`-`{p}a1`, `{p}b0`-`{p}b1`. Removed on drop.
struct Topo {
    p: String,
}

impl Topo {
    fn new(tag: char) -> Topo {
        let p = format!("h3{tag}{}", std::process::id() % 100_000);
        let t = Topo { p };
        t.down();
        let p = &t.p;
        for ns in ["a", "s", "b"] {
            ip(&["netns", "add", &format!("{p}{ns}")]);
        }
        ip(&["link", "add", &format!("{p}a0"), "netns", &format!("{p}a"), "type", "veth", "peer", "name", &format!("{p}a1"), "netns", &format!("{p}s")]);
        ip(&["link", "add", &format!("{p}b0"), "netns", &format!("{p}b"), "type", "veth", "peer", "name", &format!("{p}b1"), "netns", &format!("{p}s")]);
        for (ns, dev) in [("a", "a0"), ("s", "a1"), ("s", "b1"), ("b", "b0")] {
            ip(&["-n", &format!("{p}{ns}"), "link", "set", &format!("{p}{dev}"), "up"]);
        }
        t
    }
    fn ns(&self, n: &str) -> String {
        format!("{}{n}", self.p)
    }
    fn dev(&self, d: &str) -> String {
        format!("{}{d}", self.p)
    }
    fn down(&self) {
        for ns in ["a", "s", "b"] {
            let _ = Command::new("ip").args(["netns", "del", &format!("{}{ns}", self.p)]).output();
        }
    }
}

impl Drop for Topo {
    fn drop(&mut self) {
        self.down();
    }
}

/// Starts the switch in namespace `{p}s` on ports 1@{p}a1 and 2@{p}b1 and waits for its ready line.
fn start_switch(topo: &Topo, dir: &std::path::Path) -> Running {
    std::fs::write(dir.join("x.json"), netns::cross_connect().to_string()).unwrap();
    let (sw, line) = Running::start(
        Command::new("ip")
            .args(["netns", "exec", &topo.ns("s"), switch_bin()])
            .args(["-i", &format!("1@{}", topo.dev("a1")), "-i", &format!("2@{}", topo.dev("b1"))])
            .args(["--pcap", dir.to_str().unwrap(), "x.json", "--", "--no-grpc"])
            .current_dir(dir),
    );
    assert!(line.starts_with("p4switch ready"), "{line}");
    sw
}

/// The frames `dev` in namespace `ns` received for `wait` (tests/common, without the times).
fn receive(ns: String, dev: String, wait: Duration, ready: mpsc::Sender<()>) -> Vec<Vec<u8>> {
    netns::receive(ns, dev, wait, ready).into_iter().map(|g| g.frame).collect()
}

#[test]
fn frames_cross_the_switch_between_namespaces_and_sigterm_flushes_captures() {
    let topo = Topo::new('t');
    let dir = TempDir::new("veth");
    let mut sw = start_switch(&topo, &dir.0);

    let (ready_tx, ready_rx) = mpsc::channel();
    let (ns_b, dev_b) = (topo.ns("b"), topo.dev("b0"));
    let rx = std::thread::spawn(move || receive(ns_b, dev_b, Duration::from_millis(1500), ready_tx));
    ready_rx.recv().unwrap();
    let plain = eth([0x02, 0, 0, 0, 0, 0xbb], [0x02, 0, 0, 0, 0, 0xaa], 0x88b5, b"p4switch over veth");
    let tagged = eth([0x02, 0, 0, 0, 0, 0xbb], [0x02, 0, 0, 0, 0, 0xaa], 0x8100, &hx("2064 88b5 7461 6767 6564"));
    let jumbo = eth([0x02, 0, 0, 0, 0, 0xbb], [0x02, 0, 0, 0, 0, 0xaa], 0x88b5, &[0x5a; 1400]);
    let (ns_a, dev_a) = (topo.ns("a"), topo.dev("a0"));
    let sent = vec![plain.clone(), tagged.clone(), jumbo.clone()];
    let to_send = sent.clone();
    std::thread::spawn(move || {
        sys::enter_netns(&ns_a).unwrap();
        let mut s = PacketSocket::open(&dev_a, &SocketOptions::sender(None)).unwrap();
        for f in &to_send {
            s.send(f).unwrap();
        }
    })
    .join()
    .unwrap();
    let got = rx.join().unwrap();
    let ours: Vec<Vec<u8>> = got.into_iter().filter(|f| f.get(6..12) == Some(&[0x02, 0, 0, 0, 0, 0xaa][..])).collect();
    assert_eq!(ours, sent, "frames received on the other host");

    // SIGTERM: clean exit, captures complete.
    let pid = sw.0.id().to_string();
    // `ip netns exec` execs the switch, so the pid is the switch's.
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = sw.0.wait().unwrap();
    assert!(status.success(), "exit status {status}");
    // Captures hold our frames (and maybe IPv6 neighbour discovery of the new interfaces).
    let read = |name: String| -> Vec<Vec<u8>> {
        let all = p4switch::pcap::Reader::open(&dir.0.join(name)).unwrap().read_all().unwrap();
        all.into_iter().map(|r| r.data).filter(|f| f.get(6..12) == Some(&[0x02, 0, 0, 0, 0, 0xaa][..])).collect()
    };
    assert_eq!(read(format!("{}_in.pcap", topo.dev("a1"))), sent);
    assert_eq!(read(format!("{}_out.pcap", topo.dev("b1"))), sent);
}

#[test]
fn a_deleted_interface_does_not_make_the_switch_spin() {
    let topo = Topo::new('u');
    let dir = TempDir::new("veth-gone");
    let sw = start_switch(&topo, &dir.0);
    let pid = sw.0.id();
    // Deleting the host namespaces deletes the veth pairs, switch side included.
    for ns in ["a", "b"] {
        ip(&["netns", "del", &topo.ns(ns)]);
    }
    std::thread::sleep(Duration::from_millis(300));
    let before = netns::process_cpu(pid);
    std::thread::sleep(Duration::from_secs(1));
    let used_ms = (netns::process_cpu(pid) - before) / 1_000_000;
    assert!(used_ms < 200, "switch used {used_ms} ms of CPU in 1 s with its interfaces gone");
}

/// Sends `frames` from `{p}a0` through a socket with a transmit ring, as batches of `TX_BATCH`.
fn send_through_ring(ns: String, dev: String, frames: Vec<Vec<u8>>) -> (usize, u64) {
    sys::enter_netns(&ns).unwrap();
    let opts = SocketOptions::sender(Some(256));
    let mut s = PacketSocket::open(&dev, &opts).unwrap();
    let mut batch = sys::TxBatch::new();
    let mut accepted = 0;
    for f in &frames {
        batch.push(f);
        if batch.is_full() {
            accepted += s.send_batch(&mut batch).unwrap();
        }
    }
    accepted += s.send_batch(&mut batch).unwrap();
    (accepted, batch.lost)
}

fn numbered(i: usize, len: usize) -> Vec<u8> {
    let mut body = vec![(i % 251) as u8; len - 14];
    body[..4].copy_from_slice(&(i as u32).to_be_bytes());
    eth([0x02, 0, 0, 0, 0, 0xbb], [0x02, 0, 0, 0, 0, 0xaa], 0x88b5, &body)
}

fn ours(frames: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    frames.into_iter().filter(|f| f.get(6..12) == Some(&[0x02, 0, 0, 0, 0, 0xaa][..])).collect()
}

#[test]
fn the_transmit_ring_keeps_order_and_bytes_across_wrap_around_and_jumbo_frames() {
    let topo = Topo::new('r');
    for (ns, dev) in [("a", "a0"), ("s", "a1")] {
        ip(&["-n", &topo.ns(ns), "link", "set", &topo.dev(dev), "mtu", "9216"]);
    }
    // More frames than the ring has slots, sizes from 60 to the slot's limit and
    // beyond (those take the plain-send path and must stay in order).
    let frames: Vec<Vec<u8>> =
        (0..700).map(|i| numbered(i, match i % 7 { 0 => 9014, 1 => 2016, 2 => 2017, 3 => 1514, _ => 60 + i % 50 })).collect();
    let (ready_tx, ready_rx) = mpsc::channel();
    let (ns_s, dev_s) = (topo.ns("s"), topo.dev("a1"));
    let rx = std::thread::spawn(move || receive(ns_s, dev_s, Duration::from_millis(1500), ready_tx));
    ready_rx.recv().unwrap();
    let (ns_a, dev_a, to_send) = (topo.ns("a"), topo.dev("a0"), frames.clone());
    let (accepted, lost) = std::thread::spawn(move || send_through_ring(ns_a, dev_a, to_send)).join().unwrap();
    assert_eq!((accepted, lost), (frames.len(), 0));
    let got = ours(rx.join().unwrap());
    let first_bad = got.iter().zip(&frames).position(|(g, f)| g != f);
    assert!(got == frames, "frames arrive in order with their bytes: got {} of {}, first difference at {first_bad:?}", got.len(), frames.len());
}

#[test]
fn the_transmit_ring_neither_blocks_nor_fails_while_the_peer_is_down_and_recovers() {
    let topo = Topo::new('d');
    ip(&["-n", &topo.ns("s"), "link", "set", &topo.dev("a1"), "down"]);
    let (ns_a, dev_a) = (topo.ns("a"), topo.dev("a0"));
    let started = Instant::now();
    let early: Vec<Vec<u8>> = (0..1000).map(|i| numbered(i, 60)).collect();
    let (accepted, lost) = std::thread::spawn(move || send_through_ring(ns_a, dev_a, early)).join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "sending to a down peer took {:?}", started.elapsed());
    // The ring holds what it can (like a device queue); the rest is counted as lost.
    assert_eq!(accepted as u64 + lost, 1000);
    assert!(lost >= 1000 - 256, "lost {lost}");

    ip(&["-n", &topo.ns("s"), "link", "set", &topo.dev("a1"), "up"]);
    let (ready_tx, ready_rx) = mpsc::channel();
    let (ns_s, dev_s) = (topo.ns("s"), topo.dev("a1"));
    let rx = std::thread::spawn(move || receive(ns_s, dev_s, Duration::from_millis(1500), ready_tx));
    ready_rx.recv().unwrap();
    let late: Vec<Vec<u8>> = (5000..5100).map(|i| numbered(i, 60)).collect();
    let (ns_a, dev_a, to_send) = (topo.ns("a"), topo.dev("a0"), late.clone());
    let (accepted, lost) = std::thread::spawn(move || send_through_ring(ns_a, dev_a, to_send)).join().unwrap();
    assert_eq!(lost, 0);
    assert_eq!(accepted, 100);
    let got = ours(rx.join().unwrap());
    assert!(got.ends_with(&late), "the new frames arrive, in order, after the peer came back ({} frames)", got.len());
}
