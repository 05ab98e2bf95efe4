//! What `p4switch` does once its command line is parsed: load the program,
//! open the ports, start the P4Runtime server and the workers, print the ready
//! line, and stop cleanly on SIGINT/SIGTERM (or at the end of the pcap input).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use p4engine::{Switch, SwitchConfig};

use crate::cli::{Level, Options};
use crate::log_at;
use crate::ports::{self, Dataplane};
use crate::{files, grpc, sys};

/// Reads and loads a BMv2 JSON file; the error names the file and the JSON path.
pub fn load_file(path: &Path) -> Result<p4engine::Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    p4engine::load_program(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Default worker count: one per port, at most the number of CPUs.
pub fn default_workers(ports: usize) -> usize {
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    ports.clamp(1, cpus.max(1))
}

/// Runs the switch until stopped. Errors are messages for the user.
pub fn run(o: &Options) -> Result<(), String> {
    let stop = sys::stop_flag().map_err(|e| format!("signal handlers: {e}"))?;
    let switch = Arc::new(Switch::new(SwitchConfig {
        drop_port: o.drop_port,
        cpu_port: o.cpu_port,
        device_id: o.device_id,
    }));
    if let Some(path) = &o.json {
        let program = load_file(path)?;
        switch.set_program(program);
        log_at!(Level::Info, "loaded {}", path.display());
    }
    if let Some(dir) = &o.pcap_dir {
        if !dir.is_dir() {
            return Err(format!("--pcap {}: not a directory", dir.display()));
        }
    }
    let specs: Vec<(u32, String)> = o.ports.iter().map(|p| (p.port, p.iface.clone())).collect();

    if let Some(wait_s) = o.use_files {
        let (mut inputs, outputs) =
            files::open(Path::new("."), &specs, o.pcap_dir.as_deref()).map_err(|e| e.to_string())?;
        let outputs = Arc::new(outputs);
        let transmit: p4runtime_server::Transmit = {
            let outputs = outputs.clone();
            Arc::new(move |port: u32, frame: &[u8]| {
                match outputs.write(port, crate::pcap::now_us(), frame) {
                    Ok(true) => {}
                    Ok(false) => log_at!(Level::Debug, "packet-out to unattached port {port} dropped"),
                    Err(e) => log_at!(Level::Error, "writing port {port}: {e}"),
                }
            })
        };
        let server = grpc::start(o, &switch, transmit)?;
        println!("{}", ready_line(o, &server));
        files::wait(wait_s, stop);
        let sink = server.as_ref().and_then(|s| s.packet_in.clone());
        let n = files::run(&switch, &mut inputs, &outputs, o.cpu_port, sink.as_ref(), stop).map_err(|e| e.to_string())?;
        log_at!(Level::Info, "pcap input done: {n} packets processed");
        for p in &outputs.ports {
            log_at!(Level::Info, "port {} ({}): {} packets written", p.number, p.iface, p.sent.load(Ordering::Relaxed));
        }
        if let Some(server) = server {
            // Keep serving P4Runtime (counter reads, packet-outs) until stopped.
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            server.stop();
            let _ = outputs.flush();
        }
        return Ok(());
    }

    let (ports, rx) = ports::open(&specs, o.pcap_dir.as_deref()).map_err(|e| e.to_string())?;
    let ports = Arc::new(ports);
    let transmit: p4runtime_server::Transmit = {
        let ports = ports.clone();
        Arc::new(move |port: u32, frame: &[u8]| {
            if let Err(e) = ports.send_now(port, frame) {
                log_at!(Level::Debug, "packet-out to port {port}: {e}");
            }
        })
    };
    let server = grpc::start(o, &switch, transmit)?;
    let dp = Arc::new(Dataplane {
        switch: switch.clone(),
        ports: ports.clone(),
        cpu_port: o.cpu_port,
        packet_in: server.as_ref().and_then(|s| s.packet_in.clone()),
    });
    let workers = o.workers.unwrap_or_else(|| default_workers(specs.len()));
    let mut threads = Vec::new();
    for (i, group) in ports::assign(rx, workers).into_iter().enumerate() {
        let dp = dp.clone();
        let t = std::thread::Builder::new()
            .name(format!("p4switch-w{i}"))
            .spawn(move || ports::worker_loop(&dp, group, stop))
            .map_err(|e| format!("worker thread: {e}"))?;
        threads.push(t);
    }
    println!("{}", ready_line(o, &server));
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    log_at!(Level::Info, "stopping");
    for t in threads {
        let _ = t.join();
    }
    if let Some(server) = server {
        server.stop();
    }
    ports.flush_captures();
    for p in &ports.ports {
        log_at!(
            Level::Info,
            "port {} ({}): rx {} tx {} tx-lost {}",
            p.number,
            p.iface,
            p.stats.rx.load(Ordering::Relaxed),
            p.stats.tx.load(Ordering::Relaxed),
            p.stats.tx_lost.load(Ordering::Relaxed)
        );
    }
    Ok(())
}

fn ready_line(o: &Options, server: &Option<grpc::Server>) -> String {
    let ports: Vec<String> = o.ports.iter().map(|p| format!("{}@{}", p.port, p.iface)).collect();
    let grpc = match server {
        Some(s) => format!("P4Runtime on {}", s.addr),
        None => "no P4Runtime server".to_string(),
    };
    let mode = if o.use_files.is_some() { " (pcap files)" } else { "" };
    use std::io::Write;
    let _ = std::io::stdout().flush();
    format!("p4switch ready: device {}, ports [{}]{mode}, {grpc}", o.device_id, ports.join(" "))
}
