//! The sender: enters the transmit namespace, opens the transmit side
//! ([`Transmit`]: UDP GSO super-frames or `sendmmsg`) and hands the frames of a
//! [`Schedule`] to the kernel in batches of at most [`TX_BATCH`] frames.
//!
//! Time stamps are per batch: the clock (CLOCK_REALTIME) is read once, just
//! before the batch's frames are stamped and handed to the kernel, and all
//! frames of the batch carry that time. A frame late in a batch therefore
//! includes, in its measured latency, the time the kernel took to transmit
//! the frames ahead of it in the same batch.
//!
//! Pacing is batched (see [`crate::pacing`]): the loop wakes when about
//! [`QUANTUM_NS`] worth of frames are due (or one frame at low rates), sends
//! every frame due by then, and counts them per 100 ms window.

use std::io;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use p4switch::sys::{self, TX_BATCH};

use crate::frame;
use crate::options::Opts;
use crate::pacing::{Schedule, Windows};
use crate::transmit::Transmit;

/// Time worth of frames the sender lets fall due before it wakes up.
pub const QUANTUM_NS: u64 = 40_000;
/// Below this the sender spins instead of sleeping (a sleep overshoots by tens of µs).
const SPIN_NS: u64 = 5_000;

/// What the sender did.
pub struct Sent {
    /// Frames the kernel accepted.
    pub accepted: u64,
    /// Frames the kernel refused (device queue full).
    pub refused: u64,
    /// From the start until the last batch was handed over.
    pub seconds: f64,
    /// Frames handed over per 100 ms window.
    pub windows: Windows,
    /// Kernel calls (one per batch).
    pub batches: u64,
    /// How the frames were handed over: `gso` or `sendmmsg`.
    pub mode: &'static str,
    /// CPU time of the sending thread (user, system), seconds.
    pub cpu: Option<(f64, f64)>,
}

impl Sent {
    pub fn handed(&self) -> u64 {
        self.accepted + self.refused
    }
}

/// CLOCK_REALTIME in nanoseconds (the clock of the kernel's receive time stamps).
#[inline]
pub fn realtime_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// User and system CPU seconds of the calling thread, from /proc (USER_HZ = 100).
pub fn thread_cpu() -> Option<(f64, f64)> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // fields after the ")" that closes the command name: state is field 3, utime 14, stime 15
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).map(|t| t / 100.0);
    Some((tick(11)?, tick(12)?))
}

/// Opens the socket, reports readiness on `ready`, waits for the start time
/// on `start`, then sends the trial.
pub fn run(
    o: &Opts,
    schedule: Schedule,
    tag: u16,
    ready: mpsc::Sender<io::Result<()>>,
    start: mpsc::Receiver<Instant>,
) -> io::Result<Sent> {
    let open = || -> io::Result<Transmit> {
        if let Some(ns) = &o.tx_ns {
            sys::enter_netns(ns)?;
        }
        sys::precise_sleeps();
        Transmit::open(o, frame::template(o, tag))
    };
    let mut tx = match open() {
        Ok(s) => {
            let _ = ready.send(Ok(()));
            s
        }
        Err(e) => {
            let _ = ready.send(Err(io::Error::new(e.kind(), e.to_string())));
            return Err(e);
        }
    };
    let batch_max = tx.batch_frames().min(TX_BATCH) as u64;
    let mut windows = Windows::new(schedule.nominal_ns());
    let quantum = match schedule.rate {
        Some(r) => ((r * QUANTUM_NS as f64 / 1e9) as u64).clamp(1, batch_max),
        None => batch_max,
    };
    let start = start.recv().map_err(|_| io::Error::other("trial aborted before the start"))?;
    if let Some(wait) = start.checked_duration_since(Instant::now()) {
        std::thread::sleep(wait);
    }
    let cpu0 = thread_cpu();
    let total = schedule.total;
    let (mut seq, mut accepted, mut refused, mut batches) = (0u64, 0u64, 0u64, 0u64);
    while seq < total {
        let now = start.elapsed().as_nanos() as u64;
        let due = schedule.due(now);
        // Wait until a quantum's worth of frames is due (or the rest of the trial).
        let want = (seq + quantum).min(total);
        if due < want {
            let wake = schedule.due_at_ns(want - 1);
            if wake > now {
                if wake > now + SPIN_NS {
                    std::thread::sleep(Duration::from_nanos(wake - now - SPIN_NS / 2));
                }
                continue;
            }
        }
        if due <= seq {
            continue;
        }
        let n = (due - seq).min(batch_max);
        let tx_ns = realtime_ns();
        let handed = tx.send(seq, n as usize, tx_ns).map_err(|e| io::Error::new(e.kind(), format!("{}: send: {e}", o.tx)))?;
        accepted += handed.accepted;
        refused += handed.refused;
        seq += n;
        batches += 1;
        windows.add(now, n);
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, thread_cpu()) {
        (Some(a), Some(b)) => Some((b.0 - a.0, b.1 - a.1)),
        _ => None,
    };
    Ok(Sent { accepted, refused, seconds, windows, batches, mode: tx.mode(), cpu })
}
