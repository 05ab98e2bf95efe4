//! The packet-processing workers. Each worker owns a receive endpoint on
//! every port it serves (a port's flows are spread over the workers by hash,
//! so a flow stays on one worker and in order, or the whole port goes to one
//! worker: `--spread`) and a transmit endpoint on every port, so nothing is
//! locked per frame.
//!
//! The loop: release shaped frames that are due; take one batch from each
//! receive endpoint (whatever is waiting, at most 64 frames — never waiting
//! for more), run each frame through the pipeline with one snapshot of the
//! tables pinned for the batch, and hand the batch's output to the kernel
//! before the next batch. When nothing is waiting the worker spins briefly
//! only if frames have been arriving less than [`SPIN_MAX_NS`] apart (never in
//! socket mode, where every look is a `recvmmsg`), and
//! otherwise blocks in `poll` (no timeout unless a shaped frame is due), so an
//! idle switch uses no CPU and several switches share the cores.
//!
//! The delay bound (`--queue-delay`): a frame that has waited longer than it
//! since it arrived (the mode's arrival stamp, [`crate::io::Received::waited_ns`])
//! when its batch is taken is dropped and counted (`rx_late`), never run
//! through the pipeline late: after the worker was off the CPU for
//! milliseconds it forwards what is fresh instead of a backlog. Frames held
//! by a shaped port meet the same bound when they leave ([`crate::queues`]).

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use p4engine::{Switch, Worker};

use crate::cli::Level;
use crate::io::{Received, TxEndpoint, WorkerIo};
use crate::log_at;
use crate::ports::Ports;
use crate::queues::{now_ns, too_old, Refused, Shaper};
use crate::sys::{self, MAX_FRAME};
use crate::wire;

/// Where packets sent to the CPU port go (the P4Runtime server's packet-in stream).
pub type PacketInSink = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// Longest a worker spins for the next frame before it blocks: of the order of
/// one sleep and wake-up here (3–20 µs), so spinning never costs much more than
/// the sleep it may save. 50 µs cost 17–20 % more CPU per frame at 50–100
/// kpps than 10 µs, with no lower loss or latency (README, "CPU per
/// forwarded frame at a fixed rate").
pub const SPIN_MAX_NS: u64 = 10_000;

/// What the workers share.
pub struct Dataplane {
    pub switch: Arc<Switch>,
    pub ports: Arc<Ports>,
    pub cpu_port: Option<u32>,
    pub packet_in: Option<PacketInSink>,
}

/// Decides whether to spin: frames that arrived close together recently
/// predict the next one soon. Keeps a moving average of the gaps between
/// the end of an empty check and the next frame.
struct Spin {
    idle_since: Option<u64>,
    gap: u64,
}

impl Spin {
    fn new() -> Spin {
        Spin { idle_since: None, gap: 4 * SPIN_MAX_NS }
    }
    fn worked(&mut self, now: u64) {
        if let Some(t) = self.idle_since.take() {
            self.gap = (self.gap * 7 + now.saturating_sub(t)) / 8;
        }
    }
    fn keep_spinning(&mut self, now: u64) -> bool {
        let since = *self.idle_since.get_or_insert(now);
        let budget = if self.gap > SPIN_MAX_NS { 0 } else { (2 * self.gap).min(SPIN_MAX_NS) };
        now.saturating_sub(since) < budget
    }
    /// The worker is about to block: the wait counts as one long gap.
    fn blocking(&mut self, now: u64) {
        self.idle_since.get_or_insert(now);
    }
}

/// The egress side of one worker: a transmit endpoint, a shaper and
/// counters per port (published to the port's counters once per batch).
struct Egress {
    tx: Vec<TxEndpoint>,
    shapers: Vec<Shaper>,
    dirty: Vec<bool>,
    sent: Vec<u64>,
    sent_bytes: Vec<u64>,
    dropped: Vec<u64>,
    /// Dropped for the delay bound (`--queue-delay`).
    late: Vec<u64>,
    warned: bool,
}

impl Egress {
    fn new(tx: Vec<TxEndpoint>) -> Egress {
        let n = tx.len();
        Egress {
            tx,
            shapers: (0..n).map(|_| Shaper::default()).collect(),
            dirty: vec![false; n],
            sent: vec![0; n],
            sent_bytes: vec![0; n],
            dropped: vec![0; n],
            late: vec![0; n],
            warned: false,
        }
    }

    fn push(&mut self, ports: &Ports, pos: usize, frame: &[u8]) {
        let depth = ports.ports[pos].queue.depth();
        match self.tx[pos].queue(frame, depth) {
            Ok(true) => {
                self.dirty[pos] = true;
                self.sent[pos] += 1;
                self.sent_bytes[pos] += frame.len() as u64;
            }
            Ok(false) => self.dropped[pos] += 1,
            Err(e) => {
                self.dropped[pos] += 1;
                if !self.warned {
                    self.warned = true;
                    log_at!(Level::Warn, "{}: send: {e}", ports.ports[pos].iface);
                }
            }
        }
    }

    /// One output frame of the pipeline for port position `pos`, from a
    /// frame that arrived at `arrived` (ns of [`now_ns`]). Unshaped, it goes
    /// to the transmit ring, which the kernel drains when the batch is
    /// flushed (within the batch: no check of its age is needed there).
    fn emit(&mut self, ports: &Ports, pos: usize, frame: &[u8], now: u64, arrived: u64) {
        let q = &ports.ports[pos].queue;
        if q.rate_pps() == 0 && self.shapers[pos].is_empty() {
            return self.push(ports, pos, frame);
        }
        match q.reserve(now, arrived) {
            Err(Refused::Full) => self.dropped[pos] += 1,
            Err(Refused::Late) => self.late[pos] += 1,
            Ok(t) if t <= now && self.shapers[pos].is_empty() => self.push(ports, pos, frame),
            Ok(t) => {
                self.shapers[pos].hold(t, arrived, frame);
                q.held(1);
            }
        }
    }

    /// Sends shaped frames that are due (dropping those held past the delay
    /// bound: their worker was off the CPU); returns how many left the shaper.
    fn release_due(&mut self, ports: &Ports, now: u64) -> usize {
        let mut n = 0;
        for pos in 0..self.shapers.len() {
            if self.shapers[pos].next_due().is_some_and(|t| t <= now) {
                let q = &ports.ports[pos].queue;
                let mut shaper = std::mem::take(&mut self.shapers[pos]);
                let (sent, late) = shaper.release(now, q.max_wait_ns(), &mut |f| self.push(ports, pos, f));
                q.held(-((sent + late) as i64));
                self.late[pos] += late as u64;
                n += sent + late;
                self.shapers[pos] = shaper;
            }
        }
        n
    }

    /// When the next shaped frame is due.
    fn next_due(&self) -> Option<u64> {
        self.shapers.iter().filter_map(|s| s.next_due()).min()
    }

    /// Hands every queued frame to the kernel and publishes the counters.
    fn flush(&mut self, ports: &Ports) {
        for pos in 0..self.tx.len() {
            if self.dirty[pos] {
                self.dirty[pos] = false;
                match self.tx[pos].flush() {
                    Ok(refused) => {
                        self.sent[pos] -= refused.min(self.sent[pos]);
                        self.dropped[pos] += refused;
                    }
                    Err(e) => {
                        if !self.warned {
                            self.warned = true;
                            log_at!(Level::Warn, "{}: send: {e}", ports.ports[pos].iface);
                        }
                    }
                }
            }
            let st = &ports.ports[pos].stats;
            st.add(&st.tx, std::mem::take(&mut self.sent[pos]));
            st.add(&st.tx_bytes, std::mem::take(&mut self.sent_bytes[pos]));
            st.add(&st.tx_dropped, std::mem::take(&mut self.dropped[pos]));
            st.add(&st.tx_late, std::mem::take(&mut self.late[pos]));
        }
    }
}

/// Turns a received frame into the wire frame the pipeline sees: puts back a
/// VLAN tag the kernel moved out, and completes a checksum left for offload.
fn wire_frame<'a>(got: &'a Received<'_>, scratch: &'a mut [u8]) -> &'a [u8] {
    let f = &got.frame;
    let partial = f.csum_not_ready || (got.csum_unknown && wire::checksum_left_for_offload(f.data));
    if f.vlan.is_none() && !partial {
        return f.data;
    }
    let n = match f.vlan {
        Some((tpid, tci)) => match wire::insert_vlan(f.data, tpid, tci, scratch) {
            Some(n) => n,
            None => return f.data,
        },
        None => {
            let n = f.data.len().min(scratch.len());
            scratch[..n].copy_from_slice(&f.data[..n]);
            n
        }
    };
    if partial {
        wire::complete_l4_checksum(&mut scratch[..n]);
    }
    &scratch[..n]
}

/// Per-frame work: checks, capture, the pipeline, the output.
struct Frames<'a> {
    dp: &'a Dataplane,
    w: &'a mut Worker,
    eg: &'a mut Egress,
    scratch: &'a mut [u8],
    /// The port's delay bound, ns (0: none).
    max_wait: u64,
    pinned: bool,
    count: u64,
    bytes: u64,
    oversize: u64,
    /// Frames that had waited longer than `max_wait` (dropped).
    late: u64,
}

impl Frames<'_> {
    fn handle(&mut self, pos: usize, got: Received<'_>, now: u64) {
        let dp = self.dp;
        let port = &dp.ports.ports[pos];
        self.count += 1;
        if got.frame.wire_len > got.frame.data.len() || got.frame.data.len() > MAX_FRAME {
            // A frame cut short by its receive slot must not be forwarded.
            if self.oversize == 0 && port.stats.rx_oversize.load(Ordering::Relaxed) == 0 {
                log_at!(Level::Warn, "port {} ({}): a {}-byte frame did not fit the receive buffer of {} bytes \
                        (MTU raised after the switch started?); frames like it are dropped",
                        port.number, port.iface, got.frame.wire_len, got.frame.data.len());
            }
            self.oversize += 1;
            return;
        }
        if too_old(got.waited_ns, self.max_wait) {
            // Stale (the worker was off the CPU): dropped, never forwarded
            // late; still a frame the port received (counted in rx as well).
            self.late += 1;
            self.bytes += (got.frame.data.len() + if got.frame.vlan.is_some() { 4 } else { 0 }) as u64;
            return;
        }
        if !self.pinned {
            // One snapshot of the program and its tables for the whole batch.
            dp.switch.pin(self.w);
            self.pinned = true;
        }
        // On the worker's clock (`now` was read before the batch, so the
        // egress queue sees the frame at most this loop's work older).
        let arrived = now.saturating_sub(got.waited_ns);
        let frame = wire_frame(&got, self.scratch);
        self.bytes += frame.len() as u64;
        if let Some(c) = &port.capture {
            c.record_in(frame);
        }
        if crate::log::enabled(Level::Debug) {
            log_at!(Level::Debug, "port {} ({}) in: {} bytes", port.number, port.iface, frame.len());
        }
        let eg = &mut *self.eg;
        dp.switch.process(self.w, port.number, frame, &mut |out_port, bytes| emit(dp, eg, out_port, bytes, now, arrived));
    }
}

fn emit(dp: &Dataplane, eg: &mut Egress, port: u32, frame: &[u8], now: u64, arrived: u64) {
    if Some(port) == dp.cpu_port {
        log_at!(Level::Debug, "packet of {} bytes to the CPU port {port}", frame.len());
        if let Some(sink) = &dp.packet_in {
            sink(frame);
        }
        return;
    }
    let Some(pos) = dp.ports.position(port) else {
        log_at!(Level::Debug, "egress port {port} is not attached: {} bytes dropped", frame.len());
        return;
    };
    let p = &dp.ports.ports[pos];
    log_at!(Level::Debug, "port {port} ({}) out: {} bytes", p.iface, frame.len());
    if let Some(c) = &p.capture {
        c.record_out(frame);
    }
    eg.emit(&dp.ports, pos, frame, now, arrived);
}

/// Wake-ups an endpoint may report without giving frames before the worker
/// stops waiting on it (a socket whose interface is gone stays readable).
const MAX_EMPTY_WAKEUPS: u32 = 1000;

/// The loop of one worker thread; returns its endpoints when `stop` is set
/// (the caller closes them, in parallel: closing a packet socket waits for a
/// kernel grace period).
pub fn run(dp: &Dataplane, io: WorkerIo, stop: &AtomicBool) -> WorkerIo {
    let WorkerIo { mut rx, tx } = io;
    let mut eg = Egress::new(tx);
    let mut w = dp.switch.new_worker();
    crate::log::install_trace(&mut w);
    let mut scratch = vec![0u8; MAX_FRAME + 64];
    let mut fds: Vec<RawFd> = rx.iter().map(|(_, r)| r.raw_fd()).collect();
    fds.push(sys::stop_fd());
    let mut ready = vec![false; fds.len()];
    let mut woke = vec![false; rx.len()];
    let mut empty = vec![0u32; rx.len()];
    let mut drops_seen = vec![0u64; rx.len()];
    let mut spin = Spin::new();
    // Socket mode: every look is a recvmmsg, so no spinning and no second look after a short batch.
    let syscall_looks = rx.iter().any(|(_, r)| r.look_is_syscall());
    let mut next_stats = now_ns() + 1_000_000_000;
    while !stop.load(Ordering::Relaxed) {
        let now = now_ns();
        let mut busy = eg.release_due(&dp.ports, now) > 0;
        for (k, (pos, r)) in rx.iter_mut().enumerate() {
            let pos = *pos;
            let max_wait = dp.ports.ports[pos].queue.max_wait_ns();
            let mut fr = Frames { dp, w: &mut w, eg: &mut eg, scratch: &mut scratch, max_wait, pinned: false, count: 0, bytes: 0, oversize: 0, late: 0 };
            let result = r.receive(max_wait > 0, &mut |got| fr.handle(pos, got, now));
            let (count, bytes, oversize, late, pinned) = (fr.count, fr.bytes, fr.oversize, fr.late, fr.pinned);
            if pinned {
                dp.switch.unpin(&mut w);
            }
            let port = &dp.ports.ports[pos];
            match result {
                Ok((_, too_long)) => port.stats.add(&port.stats.rx_oversize, oversize + too_long),
                Err(e) => log_at!(Level::Warn, "port {} ({}): receive: {e}", port.number, port.iface),
            }
            port.stats.add(&port.stats.rx, count - oversize.min(count));
            port.stats.add(&port.stats.rx_late, late);
            port.stats.add(&port.stats.rx_bytes, bytes);
            if count > 0 {
                // A readable wake-up that brought frames is not an empty one
                // (counting it cost a getsockopt per wake-up in the packet modes).
                woke[k] = false;
                empty[k] = 0;
                busy |= !syscall_looks || count >= sys::RX_BATCH as u64; // a full recvmmsg batch: more may wait
            } else if std::mem::take(&mut woke[k]) {
                empty[k] += 1;
                if let Some(e) = r.take_error() {
                    log_at!(Level::Warn, "port {} ({}): {e}", port.number, port.iface);
                }
                if empty[k] == MAX_EMPTY_WAKEUPS {
                    log_at!(Level::Warn, "port {} ({}): readable but no frames {MAX_EMPTY_WAKEUPS} times; no longer waiting on it \
                            (interface gone?)", port.number, port.iface);
                    fds[k] = -1;
                }
            }
        }
        eg.flush(&dp.ports);
        if busy {
            spin.worked(now);
            continue;
        }
        let now = now_ns();
        if now >= next_stats {
            next_stats = now + 1_000_000_000;
            for (k, (pos, r)) in rx.iter().enumerate() {
                let st = &dp.ports.ports[*pos].stats;
                st.add(&st.rx_dropped, r.take_drops(&mut drops_seen[k]));
            }
        }
        if !syscall_looks && spin.keep_spinning(now) {
            std::hint::spin_loop();
            continue;
        }
        spin.blocking(now);
        let timeout = eg.next_due().map(|t| Duration::from_nanos(t.saturating_sub(now)));
        match sys::poll_fds(&fds, &mut ready, timeout) {
            Ok(_) => {
                for (k, r) in ready.iter().take(woke.len()).enumerate() {
                    woke[k] = *r;
                }
            }
            Err(e) => {
                log_at!(Level::Error, "poll: {e}");
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
    for (k, (pos, r)) in rx.iter().enumerate() {
        let st = &dp.ports.ports[*pos].stats;
        st.add(&st.rx_dropped, r.take_drops(&mut drops_seen[k]));
    }
    WorkerIo { rx, tx: eg.tx }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spin_follows_the_gaps_between_frames() {
        let mut s = Spin::new();
        // Fresh: no spinning (an idle switch blocks at once).
        assert!(!s.keep_spinning(1_000));
        // Frames 2 µs apart for a while: the worker spins up to twice that.
        let mut t = 10_000;
        for _ in 0..50 {
            s.keep_spinning(t);
            t += 2_000;
            s.worked(t);
        }
        assert!(s.keep_spinning(t + 100));
        assert!(s.keep_spinning(t + 3_000));
        assert!(!s.keep_spinning(t + 5_000), "never more than twice the usual gap");
        // A long wait in poll raises the average above the limit: no more spinning.
        s.blocking(t + 4_500);
        for _ in 0..20 {
            t += 10_000_000;
            s.worked(t);
            s.blocking(t);
        }
        s.worked(t + 1);
        assert!(!s.keep_spinning(t + 2));
    }
}
