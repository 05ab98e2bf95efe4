//! The switch's ports: the port-number map, each port's counters, egress
//! queue settings and capture files (`--pcap`), and the plain socket that
//! sends packet-outs. The workers' sockets are opened by [`crate::io`].

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::cli::Level;
use crate::log_at;
use crate::pcap;
use crate::queues::EgressQueue;
use crate::sys::{PacketSocket, SocketOptions};

/// Counters of one port.
#[derive(Default)]
pub struct PortStats {
    /// Frames received: handed to the pipeline, or dropped as too old (`rx_late`).
    pub rx: AtomicU64,
    /// Their bytes (as the pipeline saw them: a VLAN tag the kernel had
    /// moved out is counted).
    pub rx_bytes: AtomicU64,
    /// Frames handed to the kernel for transmission.
    pub tx: AtomicU64,
    /// Their bytes.
    pub tx_bytes: AtomicU64,
    /// Frames the egress queue refused (full, or shaped beyond its depth).
    pub tx_dropped: AtomicU64,
    /// Frames the kernel dropped because the port's receive queue was full.
    pub rx_dropped: AtomicU64,
    /// Frames larger than the switch takes (dropped).
    pub rx_oversize: AtomicU64,
    /// Frames dropped because they had waited longer than `--queue-delay`
    /// when the worker took them from the receive ring.
    pub rx_late: AtomicU64,
    /// Frames dropped at the egress queue because they would have left, or
    /// were released, later than `--queue-delay` after their arrival.
    pub tx_late: AtomicU64,
}

impl PortStats {
    pub fn add(&self, c: &AtomicU64, n: u64) {
        if n > 0 {
            c.fetch_add(n, Ordering::Relaxed);
        }
    }
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
    /// Sends packet-outs (from any thread); taken at exit.
    pub out: Mutex<Option<PacketSocket>>,
    pub capture: Option<Capture>,
    pub stats: PortStats,
    pub queue: EgressQueue,
}

/// All ports, indexed by port number through `index`.
pub struct Ports {
    pub ports: Vec<Port>,
    index: Vec<Option<u16>>,
}

impl Ports {
    /// Opens the packet-out socket and the captures of every `(port, iface)`
    /// and gives every egress queue `depth`.
    pub fn open(specs: &[(u32, String)], pcap_dir: Option<&Path>, depth: u32) -> io::Result<Ports> {
        let mut ports = Vec::new();
        for (number, iface) in specs {
            let capture = match pcap_dir {
                Some(d) => Some(Capture::create(d, iface)?),
                None => None,
            };
            ports.push(Port {
                number: *number,
                iface: iface.clone(),
                out: Mutex::new(Some(PacketSocket::open(iface, &SocketOptions::sender(None))?)),
                capture,
                stats: PortStats::default(),
                queue: EgressQueue::new(depth),
            });
        }
        Ok(Ports::new(ports))
    }

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

    /// Sends one frame right away (packets the controller injects).
    pub fn send_now(&self, number: u32, frame: &[u8]) -> io::Result<()> {
        let i = self
            .position(number)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no port {number}")))?;
        let p = &self.ports[i];
        if let Some(c) = &p.capture {
            c.record_out(frame);
        }
        p.stats.tx.fetch_add(1, Ordering::Relaxed);
        p.stats.tx_bytes.fetch_add(frame.len() as u64, Ordering::Relaxed);
        match &*p.out.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(s) => s.send_shared(frame),
            None => Err(io::Error::new(io::ErrorKind::NotConnected, "the switch is stopping")),
        }
    }

    /// Takes the packet-out sockets (to close them at exit).
    pub fn take_sockets(&self) -> Vec<Box<dyn Send>> {
        self.ports
            .iter()
            .filter_map(|p| p.out.lock().unwrap_or_else(|e| e.into_inner()).take())
            .map(|s| Box::new(s) as Box<dyn Send>)
            .collect()
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

    /// Logs every port's counters (at exit).
    pub fn log_counters(&self) {
        for p in &self.ports {
            let s = &p.stats;
            let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
            log_at!(
                Level::Info,
                "port {} ({}): rx {} tx {} tx-dropped {} rx-dropped {} rx-oversize {} rx-delay-dropped {} tx-delay-dropped {}",
                p.number,
                p.iface,
                g(&s.rx),
                g(&s.tx),
                g(&s.tx_dropped),
                g(&s.rx_dropped),
                g(&s.rx_oversize),
                g(&s.rx_late),
                g(&s.tx_late)
            );
        }
    }
}
