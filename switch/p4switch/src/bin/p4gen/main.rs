//! `p4gen`: a paced packet generator and receiver for benchmarks over veth.
//!
//! ```text
//! p4gen trial  --tx-ns NS --tx IF --rx-ns NS --rx IF --rate PPS [--seconds S] [frame options]
//! p4gen search --tx-ns NS --tx IF --rx-ns NS --rx IF [--lo PPS] [--hi PPS] [--seconds S] [--precision F]
//! p4gen burst  --tx-ns NS --tx IF --rx-ns NS --rx IF --frames N [--line-mbps M] [frame options]
//! p4gen pace   --tx-ns NS --tx IF --rx-ns NS --rx IF --rate PPS [--seconds S] [frame options]
//! ```
//! A sender thread in the transmit namespace hands UDP/IPv4 probe frames
//! ([`frame`]: tag, sequence number, send time) to the kernel in paced
//! batches ([`pacing`], [`sender`]); a receiver thread in the receive
//! namespace reads them from a TPACKET_V3 ring and accounts for loss,
//! duplicates, reordering ([`seqtrack`]) and one-way latency ([`histogram`])
//! ([`receiver`]). `search` is a binary search for the highest zero-loss rate,
//! `burst` an RFC 2544 back-to-back burst (as fast as the sender can, or
//! spaced at a line rate), `pace` a trial that also reads the receiving
//! interface's kernel counters every 100 ms ([`wirecount`]) and prints what
//! reached the wire each second. Output lines are `key=value` pairs.

mod frame;
mod histogram;
mod options;
mod pacing;
mod receiver;
mod search;
mod sender;
mod seqtrack;
mod trial;
mod transmit;
mod wirecount;

use std::io;

use options::{Opts, USAGE};
use pacing::Schedule;

/// A tag base per run, so concurrent p4gen runs whose frames meet (a flooding
/// switch) do not count each other's frames.
fn tag_base() -> u16 {
    let t = sender::realtime_ns();
    (std::process::id() as u16).wrapping_mul(40503) ^ (t as u16) ^ ((t >> 16) as u16)
}

fn trial_total(o: &Opts) -> u64 {
    (o.rate * o.seconds).max(1.0) as u64
}

fn burst(o: &Opts, tag: u16) -> io::Result<()> {
    let frames = o.frames.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "burst needs --frames N"))?;
    let r = trial::run(o, Schedule { rate: o.line_rate_pps(), total: frames }, tag, false)?;
    let line = r.line("burst");
    // `burst` reports the rate it was spaced at as offered_pps (0: as fast as possible).
    println!("{line} line_mbps={}", o.line_mbps.unwrap_or(0.0));
    Ok(())
}

fn pace(o: &Opts, tag: u16) -> io::Result<()> {
    let r = trial::run(o, Schedule { rate: Some(o.rate), total: trial_total(o) }, tag, true)?;
    let sender = r.pace().unwrap_or_default();
    let (wire, wire_drops) = r.wire_pace().unwrap_or_default();
    for (i, (s, w)) in sender.per_second.iter().zip(wire.per_second.iter().chain(std::iter::repeat(&0))).enumerate() {
        let dev = |c: u64| (c as f64 - o.rate) / o.rate * 100.0;
        println!(
            "pace_second n={} target={:.0} sender={} wire={} sender_dev_pct={:.3} wire_dev_pct={:.3}",
            i + 1,
            o.rate,
            s,
            w,
            dev(*s),
            dev(*w)
        );
    }
    println!("{}", r.line("trial"));
    let fmt = |d: Option<f64>| d.map_or("none".to_string(), |d| format!("{d:.3}"));
    println!(
        "pace rate={:.0} windows_1s={} sender_max_dev_pct={} wire_max_dev_pct={} sender_max_dev_100ms_pct={} wire_max_dev_100ms_pct={} wire_rx_drops={} wire_total={}",
        o.rate,
        wire.windows_1s,
        fmt(sender.max_dev_1s_pct),
        fmt(wire.max_dev_1s_pct),
        fmt(sender.max_dev_100ms_pct),
        fmt(wire.max_dev_100ms_pct),
        wire_drops,
        wire.per_second.iter().sum::<u64>()
    );
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first().cloned() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    if cmd == "-h" || cmd == "--help" {
        println!("{USAGE}");
        return;
    }
    if !matches!(cmd.as_str(), "trial" | "search" | "burst" | "pace") {
        eprintln!("p4gen: unknown command {cmd:?} (trial, search, burst or pace)\n{USAGE}");
        std::process::exit(2);
    }
    let o = match options::parse(&args[1..]) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("p4gen: error: {e}");
            std::process::exit(2);
        }
    };
    let tag = tag_base();
    let result = match cmd.as_str() {
        "trial" => trial::run(&o, Schedule { rate: Some(o.rate), total: trial_total(&o) }, tag, false)
            .map(|r| println!("{}", r.line("trial"))),
        "search" => search::run(&o, tag),
        "burst" => burst(&o, tag),
        _ => pace(&o, tag),
    };
    if let Err(e) = result {
        eprintln!("p4gen: error: {e}");
        std::process::exit(1);
    }
}
