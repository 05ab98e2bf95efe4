//! One trial: a receiver thread (and, for `pace`, a counter sampler) ready
//! first, then the sender; the common start time goes to the sender and the
//! sampler once all are ready. After the sender is done, frames in flight get
//! 200 ms to arrive. [`Outcome::line`] prints the `key=value` line scripts parse.

use std::fmt::Write as _;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::options::Opts;
use crate::pacing::{PaceStats, Schedule};
use crate::receiver::{self, Received};
use crate::sender::{self, Sent};
use crate::wirecount;

pub struct Outcome {
    pub schedule: Schedule,
    pub sent: Sent,
    pub rx: Received,
    /// Counter samples of the receiving interface every 100 ms (with `wire`).
    pub wire: Option<Vec<(u64, u64)>>,
}

impl Outcome {
    pub fn lost(&self) -> u64 {
        self.rx.seq.lost(self.sent.handed())
    }

    pub fn achieved_pps(&self) -> f64 {
        if self.sent.seconds > 0.0 {
            self.sent.handed() as f64 / self.sent.seconds
        } else {
            0.0
        }
    }

    pub fn pace(&self) -> Option<PaceStats> {
        let rate = self.schedule.rate?;
        Some(PaceStats::of(self.sent.windows.counts(), rate, self.schedule.nominal_ns()))
    }

    /// Pacing as seen in the receiving interface's counters.
    pub fn wire_pace(&self) -> Option<(PaceStats, u64)> {
        let rate = self.schedule.rate?;
        let (packets, drops) = wirecount::deltas(self.wire.as_ref()?);
        Some((PaceStats::of(&packets, rate, self.schedule.nominal_ns()), drops))
    }

    /// `WORD offered_pps=… achieved_pps=… sent=… tx_refused=… received=… lost=… reordered=…`
    /// followed by the newer keys (scripts match the first seven in this order).
    pub fn line(&self, word: &str) -> String {
        let s = &self.sent;
        let r = &self.rx;
        let mut l = format!(
            "{word} offered_pps={:.0} achieved_pps={:.0} sent={} tx_refused={} received={} lost={} reordered={}",
            self.schedule.rate.unwrap_or(0.0),
            self.achieved_pps(),
            s.accepted,
            s.refused,
            r.seq.unique,
            self.lost(),
            r.seq.reordered
        );
        let _ = write!(
            l,
            " duplicates={} rx_ring_drops={} foreign={} frames={} tx_seconds={:.6} batches={} tx_mode={}",
            r.seq.duplicates,
            r.ring_drops,
            r.seq.foreign,
            self.schedule.total,
            s.seconds,
            s.batches,
            s.mode
        );
        let h = &r.latency;
        let _ = write!(l, " lat_samples={}", h.count());
        if let (Some(min), Some(max)) = (h.min(), h.max()) {
            let us = |ns: Option<u64>| ns.unwrap_or(0) as f64 / 1000.0;
            let _ = write!(
                l,
                " lat_min_us={:.3} lat_p50_us={:.3} lat_p90_us={:.3} lat_p99_us={:.3} lat_p999_us={:.3} lat_max_us={:.3}",
                min as f64 / 1000.0,
                us(h.quantile(0.5)),
                us(h.quantile(0.9)),
                us(h.quantile(0.99)),
                us(h.quantile(0.999)),
                max as f64 / 1000.0
            );
        }
        if r.clock_back > 0 {
            let _ = write!(l, " lat_clock_back={}", r.clock_back);
        }
        if let Some(p) = self.pace() {
            let _ = write!(l, " pace_windows_1s={} pace_windows_100ms={}", p.windows_1s, p.windows_100ms);
            if let Some(d) = p.max_dev_1s_pct {
                let _ = write!(l, " pace_max_dev_pct={d:.3}");
            }
            if let Some(d) = p.max_dev_100ms_pct {
                let _ = write!(l, " pace_max_dev_100ms_pct={d:.3}");
            }
        }
        if let Some((user, sys)) = s.cpu {
            let handed = s.handed().max(1) as f64;
            let _ = write!(l, " tx_user_ns_per_frame={:.1} tx_sys_ns_per_frame={:.1}", user * 1e9 / handed, sys * 1e9 / handed);
        }
        l
    }
}

fn ready_or_err(rx: &mpsc::Receiver<io::Result<()>>, who: &str) -> io::Result<()> {
    rx.recv().unwrap_or_else(|_| Err(io::Error::other(format!("{who} thread died"))))
}

/// Runs one trial of `schedule` with frames tagged `tag`; with `wire`, also
/// samples the receiving interface's counters (`--rx-ns`/`--rx`).
pub fn run(o: &Opts, schedule: Schedule, tag: u16, wire: bool) -> io::Result<Outcome> {
    let done = Arc::new(AtomicBool::new(false));
    let (rx_ready, rx_ready_r) = mpsc::channel();
    let rx_thread = {
        let (o, done) = (o.clone(), done.clone());
        std::thread::spawn(move || receiver::run(&o, tag, schedule.total, rx_ready, done))
    };
    let stop = |done: &AtomicBool| done.store(true, Ordering::Relaxed);
    if let Err(e) = ready_or_err(&rx_ready_r, "receiver") {
        let _ = rx_thread.join();
        return Err(e);
    }
    let mut starts = Vec::new();
    let wire_thread = if wire {
        let (ready, ready_r) = mpsc::channel();
        let (start, start_r) = mpsc::channel();
        let (ns, iface, d) = (o.rx_ns.clone(), o.rx.clone(), done.clone());
        let t = std::thread::spawn(move || wirecount::sample(ns.as_deref(), &iface, ready, start_r, d));
        if let Err(e) = ready_or_err(&ready_r, "counter") {
            stop(&done);
            let _ = t.join();
            let _ = rx_thread.join();
            return Err(e);
        }
        starts.push(start);
        Some(t)
    } else {
        None
    };
    let (tx_ready, tx_ready_r) = mpsc::channel();
    let (start, start_r) = mpsc::channel();
    starts.push(start);
    let tx_thread = {
        let o = o.clone();
        std::thread::spawn(move || sender::run(&o, schedule, tag, tx_ready, start_r))
    };
    let tx = match ready_or_err(&tx_ready_r, "sender") {
        Ok(()) => {
            let at = Instant::now() + Duration::from_millis(5);
            for s in &starts {
                let _ = s.send(at);
            }
            tx_thread.join().unwrap_or_else(|_| Err(io::Error::other("sender thread panicked")))
        }
        Err(e) => {
            let _ = tx_thread.join();
            Err(e)
        }
    };
    drop(starts);
    // Let frames in flight arrive.
    if tx.is_ok() {
        std::thread::sleep(Duration::from_millis(200));
    }
    stop(&done);
    let rx = rx_thread.join().map_err(|_| io::Error::other("receiver thread panicked"));
    let wire = wire_thread.map(|t| t.join().unwrap_or_else(|_| Err(io::Error::other("counter thread panicked"))));
    // The sender's error first: the others only stopped because of it.
    let sent = tx?;
    Ok(Outcome { schedule, sent, rx: rx?, wire: wire.transpose()? })
}
