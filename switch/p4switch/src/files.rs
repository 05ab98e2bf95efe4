//! pcap-file ports (`--use-files WAIT_S`), as in simple_switch: port `P@IFACE`
//! reads `IFACE_in.pcap` and writes `IFACE_out.pcap` (in the current directory).
//!
//! All input files are read first, their packets merged in timestamp order
//! (ties keep the order of the `-i` options, then file order), and run through
//! the pipeline one at a time on one worker, so the output is deterministic.
//! Each output record carries the timestamp of the input packet that caused it.
//! Input is done when every packet has been processed; since processing is
//! synchronous, the pipeline is drained at that point and the outputs are
//! flushed. The switch then exits — unless a P4Runtime server is running, in
//! which case it keeps serving (so a controller can still read counters and
//! send packet-outs, which are written to the output files) until SIGINT/SIGTERM.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;


use p4engine::Switch;

use crate::cli::Level;
use crate::log_at;
use crate::pcap;
use crate::worker::PacketInSink;

/// The input side of one file port.
pub struct FileInput {
    pub number: u32,
    pub iface: String,
    records: Vec<pcap::Record>,
    capture: Option<pcap::Writer<std::fs::File>>,
}

/// The output side of one file port (shared with the P4Runtime server, whose
/// packet-outs are written here too).
pub struct FileOutput {
    pub number: u32,
    pub iface: String,
    output: Mutex<pcap::Writer<std::fs::File>>,
    capture: Option<Mutex<pcap::Writer<std::fs::File>>>,
    pub sent: AtomicU64,
}

/// All output files, by port number.
pub struct FileOutputs {
    pub ports: Vec<FileOutput>,
}

impl FileOutputs {
    /// Writes `frame` to port `number`'s output (and capture). `Ok(false)` if no such port.
    pub fn write(&self, number: u32, ts_us: u64, frame: &[u8]) -> io::Result<bool> {
        let Some(p) = self.ports.iter().find(|p| p.number == number) else { return Ok(false) };
        if let Ok(mut w) = p.output.lock() {
            w.write(ts_us, frame)?;
        }
        if let Some(c) = &p.capture {
            if let Ok(mut w) = c.lock() {
                w.write(ts_us, frame)?;
            }
        }
        p.sent.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }

    /// Flushes outputs and captures.
    pub fn flush(&self) -> io::Result<()> {
        for p in &self.ports {
            if let Ok(mut w) = p.output.lock() {
                w.flush()?;
            }
            if let Some(c) = &p.capture {
                if let Ok(mut w) = c.lock() {
                    w.flush()?;
                }
            }
        }
        Ok(())
    }
}

/// Path of the input file of `iface` in `dir`.
pub fn input_path(dir: &Path, iface: &str) -> PathBuf {
    dir.join(format!("{iface}_in.pcap"))
}

/// Path of the output file of `iface` in `dir`.
pub fn output_path(dir: &Path, iface: &str) -> PathBuf {
    dir.join(format!("{iface}_out.pcap"))
}

/// Reads every input file and creates the output files (and captures).
/// A missing input file is an error naming it.
pub fn open(dir: &Path, specs: &[(u32, String)], pcap_dir: Option<&Path>) -> io::Result<(Vec<FileInput>, FileOutputs)> {
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for (number, iface) in specs {
        let records = pcap::Reader::open(&input_path(dir, iface))?.read_all()?;
        let output = Mutex::new(pcap::Writer::create(&output_path(dir, iface))?);
        let (cap_in, cap_out) = match pcap_dir {
            Some(d) => (
                Some(pcap::Writer::create(&d.join(format!("{iface}_in.pcap")))?),
                Some(Mutex::new(pcap::Writer::create(&d.join(format!("{iface}_out.pcap")))?)),
            ),
            None => (None, None),
        };
        inputs.push(FileInput { number: *number, iface: iface.clone(), records, capture: cap_in });
        outputs.push(FileOutput { number: *number, iface: iface.clone(), output, capture: cap_out, sent: AtomicU64::new(0) });
    }
    Ok((inputs, FileOutputs { ports: outputs }))
}

/// Runs all input packets through `switch`, writing to `outputs`; returns the
/// number processed. Stops early (still flushing) if `stop` is set.
pub fn run(
    switch: &Switch,
    inputs: &mut [FileInput],
    outputs: &FileOutputs,
    cpu_port: Option<u32>,
    packet_in: Option<&PacketInSink>,
    stop: &AtomicBool,
) -> io::Result<u64> {
    // (timestamp, port position, index in file)
    let mut order: Vec<(u64, usize, usize)> = Vec::new();
    for (pi, p) in inputs.iter().enumerate() {
        for (ri, r) in p.records.iter().enumerate() {
            order.push((r.ts_us, pi, ri));
        }
    }
    order.sort();
    let mut w = switch.new_worker();
    crate::log::install_trace(&mut w);
    let mut processed = 0u64;
    let mut produced: Vec<(u32, Vec<u8>)> = Vec::new();
    for (ts, pi, ri) in order {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let inp = &mut inputs[pi];
        let frame = std::mem::take(&mut inp.records[ri].data);
        let number = inp.number;
        log_at!(Level::Debug, "port {number} ({}) in: {} bytes", inp.iface, frame.len());
        if let Some(cin) = &mut inp.capture {
            cin.write(ts, &frame)?;
        }
        produced.clear();
        switch.process(&mut w, number, &frame, &mut |port, bytes| produced.push((port, bytes.to_vec())));
        for (port, bytes) in &produced {
            if Some(*port) == cpu_port {
                log_at!(Level::Debug, "packet of {} bytes to the CPU port {port}", bytes.len());
                if let Some(sink) = packet_in {
                    sink(bytes);
                }
                continue;
            }
            if outputs.write(*port, ts, bytes)? {
                log_at!(Level::Debug, "port {port} out: {} bytes", bytes.len());
            } else {
                log_at!(Level::Debug, "egress port {port} is not attached: {} bytes dropped", bytes.len());
            }
        }
        processed += 1;
    }
    for p in inputs.iter_mut() {
        if let Some(c) = &mut p.capture {
            c.flush()?;
        }
    }
    outputs.flush()?;
    Ok(processed)
}

/// Sleeps `secs` seconds in small steps, returning early if `stop` is set.
pub fn wait(secs: u64, stop: &AtomicBool) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
