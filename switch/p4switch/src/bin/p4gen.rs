//! `p4gen`: a paced packet generator and loss counter for benchmarks over veth.
//!
//! ```text
//! p4gen trial  --tx-ns NS --tx IF --rx-ns NS --rx IF --rate PPS [--seconds S] [frame options]
//! p4gen search --tx-ns NS --tx IF --rx-ns NS --rx IF [--lo PPS] [--hi PPS] [--seconds S]
//!              [--precision FRACTION] [frame options]
//! frame options: --size BYTES (60: a 64-byte frame with its FCS) --dst-mac MAC --src-mac MAC
//!                --src-ip A.B.C.D --dst-ip A.B.C.D
//! ```
//! The sender thread enters the transmit namespace and sends UDP/IPv4 frames
//! carrying a magic word, a trial id and a sequence number, in `sendmmsg`
//! batches paced by the clock; the receiver thread enters the receive namespace
//! and counts the frames of the current trial from a TPACKET_V3 ring. `search`
//! is an RFC 2544-style binary search for the highest rate with zero loss.
//! Output lines are `key=value` pairs so scripts can parse them.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use p4switch::sys::{self, PacketSocket, SocketOptions, TxBatch, TX_BATCH};

const MAGIC: &[u8; 4] = b"P4GN";
const PAYLOAD_OFF: usize = 42;

#[derive(Clone, Debug)]
struct Opts {
    tx_ns: Option<String>,
    tx: String,
    rx_ns: Option<String>,
    rx: String,
    rate: u64,
    seconds: f64,
    size: usize,
    dst_mac: [u8; 6],
    src_mac: [u8; 6],
    src_ip: [u8; 4],
    dst_ip: [u8; 4],
    lo: u64,
    hi: u64,
    precision: f64,
}

fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("bad MAC {s:?}"));
    }
    let mut m = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        m[i] = u8::from_str_radix(p, 16).map_err(|_| format!("bad MAC {s:?}"))?;
    }
    Ok(m)
}

fn parse_ip(s: &str) -> Result<[u8; 4], String> {
    let a: std::net::Ipv4Addr = s.parse().map_err(|_| format!("bad IPv4 address {s:?}"))?;
    Ok(a.octets())
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        tx_ns: None,
        tx: String::new(),
        rx_ns: None,
        rx: String::new(),
        rate: 100_000,
        seconds: 2.0,
        size: 60,
        dst_mac: [0x02, 0, 0, 0, 0, 0x02],
        src_mac: [0x02, 0, 0, 0, 0, 0x01],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 1, 2],
        lo: 0,
        hi: 3_000_000,
        precision: 0.02,
    };
    let mut i = 0;
    while i < args.len() {
        let k = args[i].as_str();
        let v = args.get(i + 1).ok_or_else(|| format!("{k} needs a value"))?.clone();
        let num = |v: &str| v.parse::<f64>().map_err(|_| format!("{k}: bad number {v:?}"));
        match k {
            "--tx-ns" => o.tx_ns = Some(v),
            "--rx-ns" => o.rx_ns = Some(v),
            "--tx" => o.tx = v,
            "--rx" => o.rx = v,
            "--rate" => o.rate = num(&v)? as u64,
            "--seconds" => o.seconds = num(&v)?,
            "--size" => o.size = num(&v)? as usize,
            "--dst-mac" => o.dst_mac = parse_mac(&v)?,
            "--src-mac" => o.src_mac = parse_mac(&v)?,
            "--src-ip" => o.src_ip = parse_ip(&v)?,
            "--dst-ip" => o.dst_ip = parse_ip(&v)?,
            "--lo" => o.lo = num(&v)? as u64,
            "--hi" => o.hi = num(&v)? as u64,
            "--precision" => o.precision = num(&v)?,
            _ => return Err(format!("unknown option {k}")),
        }
        i += 2;
    }
    if o.tx.is_empty() || o.rx.is_empty() {
        return Err("--tx and --rx are required".into());
    }
    if o.size < 60 || o.size > sys::MAX_FRAME {
        return Err(format!("--size {}: expected 60..{}", o.size, sys::MAX_FRAME));
    }
    if o.rate == 0 || o.seconds <= 0.0 {
        return Err("--rate and --seconds must be positive".into());
    }
    Ok(o)
}

/// The template frame: Ethernet / IPv4 / UDP 1024 -> 2048 / magic, trial, seq.
fn template(o: &Opts) -> Vec<u8> {
    let mut f = vec![0u8; o.size];
    f[0..6].copy_from_slice(&o.dst_mac);
    f[6..12].copy_from_slice(&o.src_mac);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip_len = (o.size - 14) as u16;
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&o.src_ip);
    ip[16..20].copy_from_slice(&o.dst_ip);
    let mut acc: u32 = 0;
    for c in ip.chunks(2) {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    ip[10..12].copy_from_slice(&(!(acc as u16)).to_be_bytes());
    f[34..36].copy_from_slice(&1024u16.to_be_bytes());
    f[36..38].copy_from_slice(&2048u16.to_be_bytes());
    f[38..40].copy_from_slice(&(ip_len - 20).to_be_bytes());
    f[PAYLOAD_OFF..PAYLOAD_OFF + 4].copy_from_slice(MAGIC);
    f
}

#[derive(Debug, Default, Clone, Copy)]
struct TrialResult {
    offered: u64,
    sent: u64,
    tx_refused: u64,
    received: u64,
    reordered: u64,
    tx_seconds: f64,
}

impl TrialResult {
    fn lost(&self) -> u64 {
        self.sent.saturating_sub(self.received) + self.tx_refused
    }
    fn achieved_pps(&self) -> f64 {
        if self.tx_seconds > 0.0 {
            (self.sent + self.tx_refused) as f64 / self.tx_seconds
        } else {
            0.0
        }
    }
}

fn receiver(
    o: Opts,
    trial: u32,
    ready: mpsc::Sender<io::Result<()>>,
    done: Arc<AtomicBool>,
    received: Arc<AtomicU64>,
    reordered: Arc<AtomicU64>,
) {
    let open = || -> io::Result<PacketSocket> {
        if let Some(ns) = &o.rx_ns {
            sys::enter_netns(ns)?;
        }
        PacketSocket::open(&o.rx, &SocketOptions::default())
    };
    let mut sock = match open() {
        Ok(s) => {
            let _ = ready.send(Ok(()));
            s
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let fds = [sock.raw_fd()];
    let mut rd = [false];
    let (mut count, mut reord, mut next) = (0u64, 0u64, 0u64);
    let tag = trial.to_be_bytes();
    loop {
        let mut any = false;
        while let Some(mut block) = sock.next_block() {
            any = true;
            while let Some(f) = block.next_frame() {
                let d = f.data;
                if d.len() >= PAYLOAD_OFF + 16 && &d[PAYLOAD_OFF..PAYLOAD_OFF + 4] == MAGIC && d[PAYLOAD_OFF + 4..PAYLOAD_OFF + 8] == tag {
                    let mut s = [0u8; 8];
                    s.copy_from_slice(&d[PAYLOAD_OFF + 8..PAYLOAD_OFF + 16]);
                    let seq = u64::from_be_bytes(s);
                    if seq < next {
                        reord += 1;
                    } else {
                        next = seq + 1;
                    }
                    count += 1;
                }
            }
        }
        received.store(count, Ordering::Relaxed);
        reordered.store(reord, Ordering::Relaxed);
        if done.load(Ordering::Relaxed) && !any {
            break;
        }
        if !any {
            let _ = sys::poll_readable(&fds, &mut rd, 5);
        }
    }
}

fn run_trial(o: &Opts, rate: u64, trial: u32) -> io::Result<TrialResult> {
    let (ready_tx, ready_rx) = mpsc::channel();
    let done = Arc::new(AtomicBool::new(false));
    let received = Arc::new(AtomicU64::new(0));
    let reordered = Arc::new(AtomicU64::new(0));
    let rx_thread = {
        let (o, done, received, reordered) = (o.clone(), done.clone(), received.clone(), reordered.clone());
        std::thread::spawn(move || receiver(o, trial, ready_tx, done, received, reordered))
    };
    let ready = ready_rx.recv().unwrap_or_else(|_| Err(io::Error::other("receiver thread died")));
    if let Err(e) = ready {
        let _ = rx_thread.join();
        return Err(e);
    }
    let o2 = o.clone();
    let tx_thread = std::thread::spawn(move || -> io::Result<(u64, u64, f64)> {
        if let Some(ns) = &o2.tx_ns {
            sys::enter_netns(ns)?;
        }
        sys::precise_sleeps();
        let sock = PacketSocket::open(&o2.tx, &SocketOptions { rx_ring: false, promiscuous: false, ..Default::default() })?;
        let mut frame = template(&o2);
        frame[PAYLOAD_OFF + 4..PAYLOAD_OFF + 8].copy_from_slice(&trial.to_be_bytes());
        let total = (rate as f64 * o2.seconds) as u64;
        let mut batch = TxBatch::new();
        let (mut sent, mut refused) = (0u64, 0u64);
        let start = Instant::now();
        let mut seq = 0u64;
        while seq < total {
            let elapsed = start.elapsed().as_nanos() as u64;
            let due = ((elapsed as u128 * rate as u128 / 1_000_000_000) as u64 + 1).min(total);
            if due <= seq {
                let next_at = Duration::from_nanos(((seq as u128 * 1_000_000_000) / rate as u128) as u64);
                let now = start.elapsed();
                if next_at > now + Duration::from_micros(30) {
                    std::thread::sleep(next_at - now - Duration::from_micros(20));
                }
                continue;
            }
            let n = (due - seq).min(TX_BATCH as u64);
            for _ in 0..n {
                frame[PAYLOAD_OFF + 8..PAYLOAD_OFF + 16].copy_from_slice(&seq.to_be_bytes());
                batch.push(&frame);
                seq += 1;
            }
            let lost_before = batch.lost;
            let ok = sock.send_batch(&mut batch)? as u64;
            refused += batch.lost - lost_before;
            sent += ok;
        }
        Ok((sent, refused, start.elapsed().as_secs_f64()))
    });
    let tx = tx_thread.join().unwrap_or_else(|_| Err(io::Error::other("sender thread panicked")));
    // Let frames in flight arrive.
    std::thread::sleep(Duration::from_millis(200));
    done.store(true, Ordering::Relaxed);
    let _ = rx_thread.join();
    let (sent, refused, secs) = tx?;
    Ok(TrialResult {
        offered: rate,
        sent,
        tx_refused: refused,
        received: received.load(Ordering::Relaxed),
        reordered: reordered.load(Ordering::Relaxed),
        tx_seconds: secs,
    })
}

fn print_trial(r: &TrialResult) {
    println!(
        "trial offered_pps={} achieved_pps={:.0} sent={} tx_refused={} received={} lost={} reordered={}",
        r.offered,
        r.achieved_pps(),
        r.sent,
        r.tx_refused,
        r.received,
        r.lost(),
        r.reordered
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first().cloned() else {
        eprintln!("usage: p4gen trial|search --tx-ns NS --tx IF --rx-ns NS --rx IF [--rate PPS] [--seconds S] ...");
        std::process::exit(2);
    };
    let o = match parse(&args[1..]) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("p4gen: error: {e}");
            std::process::exit(2);
        }
    };
    let result = match cmd.as_str() {
        "trial" => run_trial(&o, o.rate, 1).map(|r| {
            print_trial(&r);
        }),
        "search" => search(&o),
        _ => {
            eprintln!("p4gen: unknown command {cmd:?} (trial or search)");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("p4gen: error: {e}");
        std::process::exit(1);
    }
}

/// Binary search for the highest offered rate with zero loss. A trial whose
/// generator fell more than 2 % short of the offered rate counts as a failure
/// of that rate (it was not really offered).
fn search(o: &Opts) -> io::Result<()> {
    let (mut lo, mut hi) = (o.lo, o.hi);
    let mut trial = 1u32;
    let mut best: Option<TrialResult> = None;
    let mut pass = |rate: u64, trial: &mut u32| -> io::Result<bool> {
        *trial += 1;
        let r = run_trial(o, rate, *trial)?;
        print_trial(&r);
        std::thread::sleep(Duration::from_millis(300));
        let ok = r.lost() == 0 && r.achieved_pps() >= 0.98 * rate as f64;
        if ok && best.map(|b| b.offered < rate).unwrap_or(true) {
            best = Some(r);
        }
        Ok(ok)
    };
    if pass(hi, &mut trial)? {
        lo = hi;
    } else {
        while hi > lo && (hi - lo) as f64 > o.precision * hi as f64 {
            let mid = lo + (hi - lo) / 2;
            if pass(mid, &mut trial)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    println!("zero_loss_pps={lo}");
    Ok(())
}
