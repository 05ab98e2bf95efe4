//! pcap-file ports (`--use-files WAIT_S`), as in simple_switch: port `P@IFACE`
//! reads `IFACE_in.pcap` and writes `IFACE_out.pcap` (in the current directory).
//!
//! All input files are read first, their packets merged in timestamp order
//! (ties keep the order of the `-i` options, then file order), and run through
//! the pipeline one at a time on one worker, so the output is deterministic.
//! Each output record carries the timestamp of the input packet that caused it.
//! The run ends when every input packet has been processed; since processing
//! is synchronous, the pipeline is drained at that point.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};


use p4engine::Switch;

use crate::cli::Level;
use crate::log_at;
use crate::pcap;
use crate::ports::PacketInSink;

/// One file port.
pub struct FilePort {
    pub number: u32,
    pub iface: String,
    input: Vec<pcap::Record>,
    output: pcap::Writer<std::fs::File>,
    capture: Option<(pcap::Writer<std::fs::File>, pcap::Writer<std::fs::File>)>,
    pub sent: u64,
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
pub fn open(dir: &Path, specs: &[(u32, String)], pcap_dir: Option<&Path>) -> io::Result<Vec<FilePort>> {
    let mut out = Vec::new();
    for (number, iface) in specs {
        let input = pcap::Reader::open(&input_path(dir, iface))?.read_all()?;
        let output = pcap::Writer::create(&output_path(dir, iface))?;
        let capture = match pcap_dir {
            Some(d) => Some((
                pcap::Writer::create(&d.join(format!("{iface}_in.pcap")))?,
                pcap::Writer::create(&d.join(format!("{iface}_out.pcap")))?,
            )),
            None => None,
        };
        out.push(FilePort { number: *number, iface: iface.clone(), input, output, capture, sent: 0 });
    }
    Ok(out)
}

/// Runs all input packets through `switch`; returns the number processed.
/// Stops early (still flushing) if `stop` is set.
pub fn run(
    switch: &Switch,
    ports: &mut [FilePort],
    cpu_port: Option<u32>,
    packet_in: Option<&PacketInSink>,
    stop: &AtomicBool,
) -> io::Result<u64> {
    // (timestamp, port position, index in file)
    let mut order: Vec<(u64, usize, usize)> = Vec::new();
    for (pi, p) in ports.iter().enumerate() {
        for (ri, r) in p.input.iter().enumerate() {
            order.push((r.ts_us, pi, ri));
        }
    }
    order.sort();
    let mut w = switch.new_worker();
    let mut processed = 0u64;
    let mut outputs: Vec<(u32, Vec<u8>)> = Vec::new();
    for (ts, pi, ri) in order {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let frame = std::mem::take(&mut ports[pi].input[ri].data);
        let number = ports[pi].number;
        log_at!(Level::Debug, "port {number} ({}) in: {} bytes", ports[pi].iface, frame.len());
        if let Some((cin, _)) = &mut ports[pi].capture {
            cin.write(ts, &frame)?;
        }
        outputs.clear();
        switch.process(&mut w, number, &frame, &mut |port, bytes| outputs.push((port, bytes.to_vec())));
        for (port, bytes) in &outputs {
            if Some(*port) == cpu_port {
                log_at!(Level::Debug, "packet of {} bytes to the CPU port {port}", bytes.len());
                if let Some(sink) = packet_in {
                    sink(bytes);
                }
                continue;
            }
            match ports.iter_mut().find(|p| p.number == *port) {
                Some(p) => {
                    log_at!(Level::Debug, "port {port} ({}) out: {} bytes", p.iface, bytes.len());
                    p.output.write(ts, bytes)?;
                    if let Some((_, cout)) = &mut p.capture {
                        cout.write(ts, bytes)?;
                    }
                    p.sent += 1;
                }
                None => log_at!(Level::Debug, "egress port {port} is not attached: {} bytes dropped", bytes.len()),
            }
        }
        processed += 1;
    }
    flush(ports)?;
    Ok(processed)
}

/// Flushes outputs and captures.
pub fn flush(ports: &mut [FilePort]) -> io::Result<()> {
    for p in ports.iter_mut() {
        p.output.flush()?;
        if let Some((a, b)) = &mut p.capture {
            a.flush()?;
            b.flush()?;
        }
    }
    Ok(())
}

/// Sleeps `secs` seconds in small steps, returning early if `stop` is set.
pub fn wait(secs: u64, stop: &AtomicBool) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
