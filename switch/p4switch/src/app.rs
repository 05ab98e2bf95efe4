//! What `p4switch` does once its command line is parsed: load the program,
//! open the ports, start the P4Runtime server (with the admin service) and
//! the workers, print the ready line, and stop on SIGINT/SIGTERM (or at the
//! end of the pcap input) within tens of milliseconds: the signal wakes every
//! waiting thread through one eventfd, the workers finish their batch, the
//! server ends its streams with UNAVAILABLE and has until [`STOP_GRACE`]
//! after the signal to stop, captures are flushed.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use p4engine::{Switch, SwitchConfig};

use crate::admin::AdminServer;
use crate::cli::{Level, Options};
use crate::io::{self, Depths};
use crate::log_at;
use crate::ports::Ports;
use crate::worker::{self, Dataplane};
use crate::{files, grpc, metrics, sys};

/// How long after the stop began the P4Runtime server's threads are waited
/// for: its grace for requests in flight ([`p4runtime_server::server::STOP_GRACE`],
/// 30 ms) and its teardown; the ports close meanwhile.
pub const STOP_GRACE: Duration = Duration::from_millis(50);

/// Reads and loads a BMv2 JSON file; the error names the file and the JSON path.
pub fn load_file(path: &Path) -> Result<p4engine::Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    p4engine::load_program(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Default worker count: one per CPU.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Drops every value on its own thread: closing a packet or XDP socket waits
/// for a kernel grace period (~10 ms here), and closed one after another a
/// switch's dozen sockets would take far longer than the stop should. Join
/// the threads returned to know they are closed.
fn close_in_parallel(parts: Vec<Box<dyn Send>>) -> Vec<std::thread::JoinHandle<()>> {
    parts.into_iter().filter_map(|p| std::thread::Builder::new().spawn(move || drop(p)).ok()).collect()
}

fn join_all(threads: Vec<std::thread::JoinHandle<()>>) {
    for t in threads {
        let _ = t.join();
    }
}

/// Blocks until SIGINT/SIGTERM.
fn wait_for_stop(stop: &AtomicBool) {
    let fds = [sys::stop_fd()];
    let mut ready = [false];
    while !stop.load(Ordering::Relaxed) {
        let _ = sys::poll_fds(&fds, &mut ready, Some(Duration::from_secs(1)));
    }
}

/// Runs the switch until stopped. Errors are messages for the user.
pub fn run(o: &Options) -> Result<(), String> {
    let stop = sys::stop_flag().map_err(|e| format!("signal handlers: {e}"))?;
    let switch = Arc::new(Switch::new(SwitchConfig { drop_port: o.drop_port, cpu_port: o.cpu_port, device_id: o.device_id, exec: o.exec }));
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
        return run_files(o, &switch, &specs, wait_s, stop);
    }

    let ports = Arc::new(Ports::open(&specs, o.pcap_dir.as_deref(), o.queue_depth).map_err(|e| e.to_string())?);
    for p in &ports.ports {
        p.queue.set_delay_us(o.queue_delay_us)?;
    }
    let workers = o.workers.unwrap_or_else(default_workers);
    let ifaces: Vec<String> = specs.iter().map(|(_, i)| i.clone()).collect();
    let spread = o.spread;
    let mut opened = io::open(&ifaces, workers, o.io, spread, Depths { rx: o.rx_depth, tx: o.queue_depth, stamp: o.queue_delay_us > 0 }).map_err(|e| e.to_string())?;
    log_at!(Level::Info, "ports: {} with {workers} workers, {spread}", opened.mode);
    match o.queue_delay_us {
        0 => log_at!(Level::Info, "no delay bound (--queue-delay 0): queues are bounded in frames only"),
        us => log_at!(Level::Info, "frames that waited over {us} µs inside the switch are dropped and counted (--queue-delay)"),
    }
    let transmit: p4runtime_server::Transmit = {
        let ports = ports.clone();
        Arc::new(move |port: u32, frame: &[u8]| {
            if let Err(e) = ports.send_now(port, frame) {
                log_at!(Level::Debug, "packet-out to port {port}: {e}");
            }
        })
    };
    let device = grpc::DeviceSlot::default();
    let admin = AdminServer::new(ports.clone(), o.device_id, device.clone()).routes();
    let (server, metrics) = start_control(o.control_nice, o.control_sched, || {
        let server = grpc::start(o, &switch, transmit, admin, &device)?;
        let sources = metrics::Sources { switch: switch.clone(), ports: Some(ports.clone()), device: server.as_ref().and_then(|s| s.device()) };
        Ok((server, start_metrics(o, sources)?))
    })?;
    let dp = Arc::new(Dataplane {
        switch: switch.clone(),
        ports: ports.clone(),
        cpu_port: o.cpu_port,
        packet_in: server.as_ref().and_then(|s| s.packet_in.clone()),
    });
    let mode = opened.mode;
    let mut threads = Vec::new();
    let endpoints = std::mem::take(&mut opened.workers);
    for (i, wio) in endpoints.into_iter().enumerate() {
        let dp = dp.clone();
        let t = std::thread::Builder::new()
            .name(format!("p4switch-w{i}"))
            .spawn(move || worker::run(&dp, wio, stop))
            .map_err(|e| format!("worker thread: {e}"))?;
        threads.push(t);
    }
    println!("{}", ready_line(o, &server, &metrics, Some(&format!("io {mode}, {workers} workers, {spread}"))));
    wait_for_stop(stop);
    log_at!(Level::Info, "stopping");
    // Stop listening first, so a new switch can bind the address at once.
    let stopping = server.map(|s| s.begin_stop());
    // The XDP program first (what is left of `opened` once the workers took
    // their sockets): the kernel detaches it one port at a time under its
    // rtnl lock, 1-10 ms a port, the longest part of a stop with many ports;
    // the workers finish and their sockets close meanwhile.
    let detaching = close_in_parallel(opened.into_parts());
    let mut parts = Vec::new();
    for t in threads {
        if let Ok(wio) = t.join() {
            parts.extend(wio.into_parts());
        }
    }
    parts.extend(ports.take_sockets());
    join_all(close_in_parallel(parts));
    join_all(detaching);
    if let Some(s) = stopping {
        s.wait(STOP_GRACE);
    }
    ports.flush_captures();
    ports.log_counters();
    Ok(())
}

fn run_files(o: &Options, switch: &Arc<Switch>, specs: &[(u32, String)], wait_s: u64, stop: &AtomicBool) -> Result<(), String> {
    let (mut inputs, outputs) = files::open(Path::new("."), specs, o.pcap_dir.as_deref()).map_err(|e| e.to_string())?;
    let outputs = Arc::new(outputs);
    let transmit: p4runtime_server::Transmit = {
        let outputs = outputs.clone();
        Arc::new(move |port: u32, frame: &[u8]| match outputs.write(port, crate::pcap::now_us(), frame) {
            Ok(true) => {}
            Ok(false) => log_at!(Level::Debug, "packet-out to unattached port {port} dropped"),
            Err(e) => log_at!(Level::Error, "writing port {port}: {e}"),
        })
    };
    let (server, metrics) = start_control(o.control_nice, o.control_sched, || {
        let server = grpc::start(o, switch, transmit, tonic::service::Routes::default(), &Default::default())?;
        let sources = metrics::Sources { switch: switch.clone(), ports: None, device: server.as_ref().and_then(|s| s.device()) };
        Ok((server, start_metrics(o, sources)?))
    })?;
    println!("{}", ready_line(o, &server, &metrics, None));
    files::wait(wait_s, stop);
    let sink = server.as_ref().and_then(|s| s.packet_in.clone());
    let n = files::run(switch, &mut inputs, &outputs, o.cpu_port, sink.as_ref(), stop).map_err(|e| e.to_string())?;
    log_at!(Level::Info, "pcap input done: {n} packets processed");
    for p in &outputs.ports {
        log_at!(Level::Info, "port {} ({}): {} packets written", p.number, p.iface, p.sent.load(Ordering::Relaxed));
    }
    if let Some(server) = server {
        // Keep serving P4Runtime (counter reads, packet-outs) until stopped.
        wait_for_stop(stop);
        server.begin_stop().wait(STOP_GRACE);
        let _ = outputs.flush();
    }
    Ok(())
}

/// Runs `start` on a thread of its own that first lowers its priority to
/// nice `nice` (`--control-nice`; [`sys::lower_thread_priority`]; never above
/// the process's own: a switch started under `nice -n 15` keeps 15) under
/// `sched` (`--control-sched`: SCHED_BATCH, or SCHED_IDLE, which applies at
/// nice 0 too): every
/// thread the control plane starts there (the P4Runtime server's runtime,
/// events and idle threads, the digest log, metrics) inherits it, while the
/// calling thread, which starts the workers afterwards, keeps its own. So the
/// scheduler prefers a worker to a control thread (README, "Forwarding before
/// control"), and a burst of writes delays control more than forwarding.
fn start_control<T: Send>(nice: u32, sched: sys::Sched, start: impl FnOnce() -> Result<T, String> + Send) -> Result<T, String> {
    std::thread::scope(|s| {
        let t = std::thread::Builder::new().name("p4switch-ctl".into()).spawn_scoped(s, || {
            let own = sys::thread_nice().unwrap_or(0);
            if nice > 0 || sched == sys::Sched::Idle {
                // Absolute, as systemd's Nice=: a switch started niced on a
                // shared machine does not push its control plane further down
                // against other niced work than it would be there anyway.
                let to = own.max(nice as i32);
                match sys::lower_thread_priority(to, sched) {
                    Ok(()) => log_at!(Level::Info, "control threads at nice {to} ({}), workers at nice {own}", sched.name()),
                    Err(e) => log_at!(Level::Warn, "--control-nice {nice}, {}: {e}; control threads keep the workers' priority", sched.name()),
                }
            } else {
                log_at!(Level::Info, "control threads at the workers' priority (nice {own}; --control-nice 0)");
            }
            start()
        });
        match t {
            Ok(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(e) => Err(format!("control start-up thread: {e}")),
        }
    })
}

/// Starts the metrics endpoint if `--metrics-addr` was given.
fn start_metrics(o: &Options, src: metrics::Sources) -> Result<Option<metrics::Endpoint>, String> {
    match &o.metrics_addr {
        Some(addr) => Ok(Some(metrics::serve(addr, metrics::registry(src)?)?)),
        None => Ok(None),
    }
}

fn ready_line(o: &Options, server: &Option<grpc::Server>, metrics: &Option<metrics::Endpoint>, io: Option<&str>) -> String {
    let ports: Vec<String> = o.ports.iter().map(|p| format!("{}@{}", p.port, p.iface)).collect();
    let mut grpc = match server {
        Some(s) => format!("P4Runtime on {}", s.addr),
        None => "no P4Runtime server".to_string(),
    };
    if let Some(m) = metrics {
        // Before the P4Runtime address, which scripts take from the end of the line.
        grpc = format!("metrics on http://{}/metrics, {grpc}", m.addr);
    }
    let mode = match io {
        Some(m) => format!(" ({m})"),
        None if o.use_files.is_some() => " (pcap files)".to_string(),
        None => String::new(),
    };
    use std::io::Write;
    let _ = std::io::stdout().flush();
    format!("p4switch ready: device {}, ports [{}]{mode}, {grpc}", o.device_id, ports.join(" "))
}
