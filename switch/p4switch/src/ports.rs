//! Ports of the switch: the port-number map, pcap captures (`--pcap`), and the
//! packet-processing workers on AF_PACKET sockets.
//!
//! Each interface gets two sockets: a receive socket with a TPACKET_V3 ring,
//! owned by exactly one worker thread, and a transmit socket shared by all
//! workers (each worker batches its frames per egress port and sends them with
//! `sendmmsg`). Ports are spread over the workers round-robin, so packets from
//! different ports are processed in parallel.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use p4engine::Switch;

use crate::cli::Level;
use crate::log_at;
use crate::pcap;
use crate::sys::{self, PacketSocket, RxFrame, SocketOptions, TxBatch, MAX_FRAME};
use crate::wire;

/// Where packets sent to the CPU port go (the P4Runtime server's packet-in stream).
pub type PacketInSink = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// Counters of one port.
#[derive(Default)]
pub struct PortStats {
    pub rx: AtomicU64,
    pub tx: AtomicU64,
    pub tx_lost: AtomicU64,
    /// Frames larger than a receive slot (dropped).
    pub rx_truncated: AtomicU64,
}

/// A port's capture files (`--pcap DIR`: DIR/IFACE_in.pcap and DIR/IFACE_out.pcap).
pub struct Capture {
    input: Mutex<pcap::Writer<std::fs::File>>,
    output: Mutex<pcap::Writer<std::fs::File>>,
}

impl Capture {
    pub fn create(dir: &Path, iface: &str) -> io::Result<Capture> {
        Ok(Capture {
            input: Mutex::new(pcap::Writer::create(&dir.join(format!("{iface}_in.pcap")))?),
            output: Mutex::new(pcap::Writer::create(&dir.join(format!("{iface}_out.pcap")))?),
        })
    }
    pub fn record_in(&self, frame: &[u8]) {
        if let Ok(mut w) = self.input.lock() {
            let _ = w.write(pcap::now_us(), frame);
        }
    }
    pub fn record_out(&self, frame: &[u8]) {
        if let Ok(mut w) = self.output.lock() {
            let _ = w.write(pcap::now_us(), frame);
        }
    }
    pub fn flush(&self) -> io::Result<()> {
        if let Ok(mut w) = self.input.lock() {
            w.flush()?;
        }
        if let Ok(mut w) = self.output.lock() {
            w.flush()?;
        }
        Ok(())
    }
}

/// One attached interface.
pub struct Port {
    pub number: u32,
    pub iface: String,
    pub tx: PacketSocket,
    pub capture: Option<Capture>,
    pub stats: PortStats,
}

/// All ports, indexed by port number through `index`.
pub struct Ports {
    pub ports: Vec<Port>,
    index: Vec<Option<u16>>,
}

impl Ports {
    fn new(ports: Vec<Port>) -> Ports {
        let mut index = vec![None; 512];
        for (i, p) in ports.iter().enumerate() {
            if let Some(slot) = index.get_mut(p.number as usize) {
                *slot = Some(i as u16);
            }
        }
        Ports { ports, index }
    }
    /// Position of port `number` in `ports`.
    #[inline]
    pub fn position(&self, number: u32) -> Option<usize> {
        self.index.get(number as usize).copied().flatten().map(|i| i as usize)
    }
    /// Sends one frame right away (used for packets the controller injects).
    pub fn send_now(&self, number: u32, frame: &[u8]) -> io::Result<()> {
        let i = self
            .position(number)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no port {number}")))?;
        let p = &self.ports[i];
        if let Some(c) = &p.capture {
            c.record_out(frame);
        }
        p.stats.tx.fetch_add(1, Ordering::Relaxed);
        p.tx.send(frame)
    }
    pub fn flush_captures(&self) {
        for p in &self.ports {
            if let Some(c) = &p.capture {
                if let Err(e) = c.flush() {
                    log_at!(Level::Error, "capture of {}: {e}", p.iface);
                }
            }
        }
    }
}

/// A receive socket with the port it belongs to.
pub struct RxPort {
    pub pos: usize,
    pub number: u32,
    pub sock: PacketSocket,
}

/// Opens both sockets of every `(port, iface)`, turns offloads off and opens
/// the captures. Errors name the interface.
pub fn open(specs: &[(u32, String)], pcap_dir: Option<&Path>) -> io::Result<(Ports, Vec<RxPort>)> {
    let mut ports = Vec::new();
    let mut rx = Vec::new();
    for (pos, (number, iface)) in specs.iter().enumerate() {
        match sys::disable_offloads(iface) {
            Ok(refused) if !refused.is_empty() => {
                log_at!(Level::Info, "{iface}: driver kept offloads on: {}", refused.join(", "))
            }
            _ => {}
        }
        let rx_sock = PacketSocket::open(iface, &SocketOptions::port(sys::port_ring_bytes(specs.len())))?;
        let tx_sock = PacketSocket::open(iface, &SocketOptions::sender(true))?;
        let capture = match pcap_dir {
            Some(d) => Some(Capture::create(d, iface)?),
            None => None,
        };
        ports.push(Port { number: *number, iface: iface.clone(), tx: tx_sock, capture, stats: PortStats::default() });
        rx.push(RxPort { pos, number: *number, sock: rx_sock });
    }
    Ok((Ports::new(ports), rx))
}

/// Shared state of the workers.
pub struct Dataplane {
    pub switch: Arc<Switch>,
    pub ports: Arc<Ports>,
    pub cpu_port: Option<u32>,
    pub packet_in: Option<PacketInSink>,
}

/// Emits one frame produced by the pipeline: to the CPU port sink, or into the
/// egress port's batch (flushed when full).
fn emit(dp: &Dataplane, batches: &mut [TxBatch], port: u32, frame: &[u8]) {
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
    let b = &mut batches[pos];
    b.push(frame);
    if b.is_full() {
        flush_one(dp, b, pos);
    }
}

fn flush_one(dp: &Dataplane, b: &mut TxBatch, pos: usize) {
    let p = &dp.ports.ports[pos];
    let n = b.len() as u64;
    let lost_before = b.lost;
    if let Err(e) = p.tx.send_batch(b) {
        log_at!(Level::Warn, "{}: send: {e}", p.iface);
    }
    let lost = b.lost - lost_before;
    p.stats.tx.fetch_add(n.saturating_sub(lost), Ordering::Relaxed);
    p.stats.tx_lost.fetch_add(lost, Ordering::Relaxed);
}

/// Prepares a received frame: puts back a stripped VLAN tag and completes a
/// checksum left for offload; returns the frame to process.
fn wire_frame<'a>(f: &'a RxFrame<'_>, scratch: &'a mut [u8]) -> &'a [u8] {
    if f.vlan.is_none() && !f.csum_not_ready {
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
    if f.csum_not_ready {
        wire::complete_l4_checksum(&mut scratch[..n]);
    }
    &scratch[..n]
}

/// The loop of one worker thread: receive from `rx`, run the pipeline, batch
/// and send; returns when `stop` is set.
pub fn worker_loop(dp: &Dataplane, mut rx: Vec<RxPort>, stop: &AtomicBool) {
    let mut w = dp.switch.new_worker();
    crate::log::install_trace(&mut w);
    let mut batches: Vec<TxBatch> = dp.ports.ports.iter().map(|_| TxBatch::new()).collect();
    let mut scratch = vec![0u8; MAX_FRAME + 64];
    let fds: Vec<i32> = rx.iter().map(|p| p.sock.raw_fd()).collect();
    let mut ready = vec![false; fds.len()];
    while !stop.load(Ordering::Relaxed) {
        let mut busy = false;
        for p in rx.iter_mut() {
            let port = &dp.ports.ports[p.pos];
            let Some(mut block) = p.sock.next_block() else { continue };
            busy = true;
            // One snapshot of the program and its tables for the whole batch.
            dp.switch.pin(&mut w);
            let mut count = 0u64;
            while let Some(f) = block.next_frame() {
                count += 1;
                if f.wire_len > f.data.len() {
                    // Slots are sized from the MTU at start-up; a frame cut short must not be forwarded.
                    if port.stats.rx_truncated.fetch_add(1, Ordering::Relaxed) == 0 {
                        log_at!(Level::Warn, "port {} ({}): a {}-byte frame did not fit the receive slot of {} bytes \
                                (MTU raised after the switch started?); frames like it are dropped",
                                p.number, port.iface, f.wire_len, f.data.len());
                    }
                    continue;
                }
                let frame = wire_frame(&f, &mut scratch);
                if let Some(c) = &port.capture {
                    c.record_in(frame);
                }
                if crate::log::enabled(Level::Debug) {
                    log_at!(Level::Debug, "port {} ({}) in: {} bytes", p.number, port.iface, frame.len());
                }
                dp.switch.process(&mut w, p.number, frame, &mut |out_port, bytes| {
                    emit(dp, &mut batches, out_port, bytes)
                });
            }
            drop(block);
            port.stats.rx.fetch_add(count, Ordering::Relaxed);
            dp.switch.unpin(&mut w);
            for (pos, b) in batches.iter_mut().enumerate() {
                if !b.is_empty() {
                    flush_one(dp, b, pos);
                }
            }
        }
        if !busy {
            match sys::poll_readable(&fds, &mut ready, 100) {
                Ok(_) => {
                    // Readable without a block to read: a socket error (interface down or gone).
                    for (p, r) in rx.iter_mut().zip(&ready) {
                        if *r && !p.sock.block_ready() {
                            if let Some(e) = p.sock.take_error() {
                                let iface = &dp.ports.ports[p.pos].iface;
                                log_at!(Level::Warn, "port {} ({iface}): {e}", p.number);
                            }
                        }
                    }
                }
                Err(e) => {
                    log_at!(Level::Error, "poll: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        }
    }
    log_socket_stats(dp, &rx);
}

/// Logs the kernel's receive counters of the worker's sockets (ring overflows show as drops).
fn log_socket_stats(dp: &Dataplane, rx: &[RxPort]) {
    for p in rx {
        if let Ok((packets, drops)) = p.sock.take_stats() {
            log_at!(Level::Info, "port {} ({}): kernel delivered {packets}, dropped {drops} (receive ring full)",
                    p.number, dp.ports.ports[p.pos].iface);
        }
    }
}

/// Splits receive ports over `workers` threads round-robin.
pub fn assign(rx: Vec<RxPort>, workers: usize) -> Vec<Vec<RxPort>> {
    let n = workers.max(1);
    let mut out: Vec<Vec<RxPort>> = (0..n).map(|_| Vec::new()).collect();
    for (i, p) in rx.into_iter().enumerate() {
        out[i % n].push(p);
    }
    out.retain(|v| !v.is_empty());
    out
}
