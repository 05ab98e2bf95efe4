//! The command line of `simple_switch_grpc`, plus ours: `--workers`, `--spread`,
//! `--io`, `--queue-depth`, `--queue-delay`, `--rx-depth`, `--metrics-addr`, `--exec`,
//! `--control-nice`, `--control-sched`.
//!
//! ```text
//! p4switch [--device-id N] [-i PORT@IFACE]... [--use-files WAIT_S] [--pcap [DIR]]
//!          [--log-console] [--log-file PATH] [-L LEVEL] [--workers N]
//!          [--spread flow|port] [--io auto|xdp|mmap|socket] [--queue-depth N] [--queue-delay US]
//!          [--rx-depth N]
//!          [--metrics-addr HOST:PORT] [--exec plan|interp] [--control-nice N]
//!          [--control-sched batch|idle] [--no-p4 | prog.json]
//!          -- [--grpc-server-addr HOST:PORT] [--cpu-port N] [--drop-port N]
//!             [--no-grpc] [--grpc-server-ssl --grpc-server-cert F --grpc-server-key F
//!              [--grpc-server-cacert F] [--grpc-server-with-client-auth]]
//! ```
//! Options take their value as the next word or after `=`. Errors are strings
//! ready to print after `p4switch: `.

use std::path::PathBuf;

use crate::io::{IoMode, Spread};

/// Default egress queue depth per port, in frames (BMv2's is 64).
pub const DEFAULT_QUEUE_DEPTH: u32 = 256;
/// Default receive queue per port and worker, in frames: as deep as the
/// kernel's own backlog (netdev_max_backlog, 1000), under 2 ms of 64-byte
/// frames at what one worker forwards. It absorbs the worker's moments off the
/// CPU: on 2 cores, 512 held vrouter's zero-loss rate at 172 kpps, 1024 at 372k
/// (switch/p4switch/README.md, "Choosing `--io`").
pub const DEFAULT_RX_DEPTH: u32 = 1024;
/// Default `--queue-delay`, µs (0: off, queues bounded in frames only, as
/// BMv2's): a time bound turns every stall of the worker longer than it into
/// loss, and on a shared 2-core machine a 2 ms bound cut the zero-loss rate
/// 13-fold and dropped the odd frame of 2 kpps traffic (README, "Queues and
/// the admin service", has the A/B) — a drop-in for simple_switch_grpc must
/// not lose what BMv2 delivers late. Asked for, it bounds time (Must 4).
pub const DEFAULT_QUEUE_DELAY_US: u32 = 0;
/// Default `--control-nice`: the control threads (P4Runtime server, its
/// events and idle-timeout threads, digest log, metrics) run at nice 10
/// (and SCHED_BATCH) while the workers keep the process's (0 when started
/// plainly): a worker waking preempts them, yet at
/// weight 110 against 1024 they still get ~10 % of a CPU the workers keep busy,
/// more than a 1,000 routes/s churn needs (a few ms/s), so writes never starve.
pub const DEFAULT_CONTROL_NICE: u32 = 10;

/// Log levels of bmv2 (`-L`), most to least verbose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Off,
}

impl Level {
    pub fn parse(s: &str) -> Result<Level, String> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "trace" => Level::Trace,
            "debug" => Level::Debug,
            "info" => Level::Info,
            "warn" | "warning" => Level::Warn,
            "error" | "critical" => Level::Error,
            "off" => Level::Off,
            _ => return Err(format!("bad log level {s:?} (expected trace, debug, info, warn, error or off)")),
        })
    }
}

/// One `-i PORT@IFACE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortSpec {
    pub port: u32,
    pub iface: String,
}

/// TLS settings of the gRPC server (`--grpc-server-ssl` and friends).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    pub cacert: Option<PathBuf>,
    pub client_auth: bool,
}

/// Everything the command line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub device_id: u64,
    pub ports: Vec<PortSpec>,
    /// `--use-files WAIT_S`: pcap-file ports, start after WAIT_S seconds.
    pub use_files: Option<u64>,
    /// `--pcap [DIR]`: capture every port to DIR/IFACE_in.pcap and DIR/IFACE_out.pcap.
    pub pcap_dir: Option<PathBuf>,
    pub log_console: bool,
    pub log_file: Option<PathBuf>,
    pub log_level: Level,
    pub no_p4: bool,
    pub json: Option<PathBuf>,
    pub workers: Option<usize>,
    /// `--io`: how ports move frames (see [`crate::io`]).
    pub io: IoMode,
    /// `--spread`: flow unless told (see [`Spread`]).
    pub spread: Spread,
    /// `--queue-depth`: egress queue per port, frames.
    pub queue_depth: u32,
    /// `--queue-delay`: longest wait inside the switch, µs (0: no bound).
    pub queue_delay_us: u32,
    /// `--rx-depth`: receive queue per port and worker, frames.
    pub rx_depth: u32,
    /// `--metrics-addr`: serve Prometheus metrics there (off by default).
    pub metrics_addr: Option<String>,
    /// `--exec`: the engine's execution path.
    pub exec: p4engine::ExecMode,
    /// `--control-nice`: the control threads' nice value, at least the
    /// process's own (0: left as the workers, no SCHED_BATCH).
    pub control_nice: u32,
    /// `--control-sched`: the control threads' scheduling class (batch
    /// unless told; idle applies at `--control-nice 0` too).
    pub control_sched: crate::sys::Sched,
    pub grpc_addr: String,
    /// `--no-grpc` (ours): run without the P4Runtime server.
    pub no_grpc: bool,
    pub tls: Option<TlsOptions>,
    pub cpu_port: Option<u32>,
    pub drop_port: u32,
    /// `--max-digest-rate` (ours): digest data per second sent to controllers (0: no cap).
    pub max_digest_rate: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            device_id: 0,
            ports: Vec::new(),
            use_files: None,
            pcap_dir: None,
            log_console: false,
            log_file: None,
            log_level: Level::Info,
            no_p4: false,
            json: None,
            workers: None,
            io: IoMode::Auto,
            spread: Spread::Flow,
            queue_depth: DEFAULT_QUEUE_DEPTH,
            queue_delay_us: DEFAULT_QUEUE_DELAY_US,
            rx_depth: DEFAULT_RX_DEPTH,
            metrics_addr: None,
            exec: p4engine::ExecMode::Plan,
            control_nice: DEFAULT_CONTROL_NICE,
            control_sched: crate::sys::Sched::Batch,
            grpc_addr: DEFAULT_GRPC_ADDR.to_string(),
            no_grpc: false,
            tls: None,
            cpu_port: None,
            drop_port: 511,
            max_digest_rate: p4runtime_server::DEFAULT_MAX_DIGEST_RATE,
        }
    }
}

/// Default P4Runtime address. bmv2 listens on 0.0.0.0:9559; we default to the
/// loopback address so a switch is not reachable from the network by accident.
pub const DEFAULT_GRPC_ADDR: &str = "127.0.0.1:9559";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Box<Options>),
    Help,
    Version,
}

pub const USAGE: &str = "\
usage: p4switch [options] [--no-p4 | PROGRAM.json] [-- target options]

  a P4 software switch with the command line of simple_switch_grpc

options:
  -i, --interface PORT@IFACE  attach port number PORT to interface IFACE (repeatable)
      --device-id N           device id (default 0)
      --use-files WAIT_S      pcap-file ports: read IFACE_in.pcap, write IFACE_out.pcap,
                              start after WAIT_S seconds, exit when all input is done
      --pcap [DIR]            capture every port to DIR/IFACE_in.pcap, DIR/IFACE_out.pcap
      --log-console           write the log to stdout
      --log-file PATH         write the log to PATH
  -L, --log-level LEVEL       trace|debug|info|warn|error|off (default info);
                              debug and trace log every packet's path
      --workers N             packet-processing threads (default: the number of CPUs)
      --spread MODE           flow|port: a port's frames shared among the workers by
                              flow hash (each flow stays in order; an action's registers are
                              locked while it runs, as in BMv2), or all to one worker (meters
                              and registers also see different flows in arrival order);
                              default flow (auto: an alias of flow, kept for old scripts)
      --io MODE               auto|xdp|mmap|socket: AF_XDP, AF_PACKET rings, or plain AF_PACKET
                              sockets (default auto: the first that works, in that order)
      --queue-depth N         egress queue per port in frames (default 256; beyond it frames
                              are dropped and counted); set_queue_depth changes it at run time
      --queue-delay US        longest a frame may wait inside the switch, in µs, from its arrival
                              to its departure (default 0 = no bound, frames only, as BMv2); an
                              older frame is dropped and counted, never forwarded late
      --rx-depth N            receive queue per port and worker in frames (default 1024)
      --metrics-addr HOST:PORT  serve Prometheus metrics at http://HOST:PORT/metrics (off by
                              default; port 0 picks a free port, logged at info level)
      --exec plan|interp      run packets through the compiled plan (default) or the reference
                              interpreter (slower; both must give the same packets)
      --control-nice N        run the control threads (P4Runtime, metrics) at nice N (at least the
                              process's own) as SCHED_BATCH, the workers staying at the process's,
                              so forwarding comes first (0..19, default 10; 0 = as the workers)
      --control-sched batch|idle  the control threads' class (default batch); idle (also at
                              --control-nice 0): in practice CPU only when a core has nothing else
                              to run, so on a machine kept busy P4Runtime answers can wait long
      --no-p4                 start without a program (load one over P4Runtime)
  -h, --help                  this text
      --version               version

target options (after --):
      --grpc-server-addr HOST:PORT  P4Runtime server address (default 127.0.0.1:9559;
                                    bmv2 listens on 0.0.0.0:9559)
      --no-grpc                     no P4Runtime server
      --max-digest-rate N           digest data per second sent to controllers, over all
                                    digests (default 10000; 0 = no cap); beyond it they are
                                    dropped, counted and logged (a learning flood)
      --cpu-port N                  port whose packets go to/come from the controller
      --drop-port N                 port number meaning drop (default 511)
      --grpc-server-ssl             serve TLS; with --grpc-server-cert F --grpc-server-key F,
                                    --grpc-server-cacert F, --grpc-server-with-client-auth
";

fn parse_num<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, String> {
    v.parse::<T>().map_err(|_| format!("{opt}: bad number {v:?}"))
}

/// Parses the arguments (without the program name).
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let mut o = Options::default();
    let mut it = args.into_iter().peekable();
    let mut target_section = false;
    let mut ssl = false;
    let mut tls = TlsOptions::default();
    while let Some(arg) = it.next() {
        if arg == "--" && !target_section {
            target_section = true;
            continue;
        }
        // Split --opt=value.
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        // -iVALUE and -LVALUE.
        let (name, inline) = if !name.starts_with("--") && name.len() > 2 && (name.starts_with("-i") || name.starts_with("-L")) {
            (name[..2].to_string(), Some(name[2..].to_string()))
        } else {
            (name, inline)
        };
        let value = |it: &mut std::iter::Peekable<I::IntoIter>| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().ok_or_else(|| format!("{name} needs a value")),
            }
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--version" => return Ok(Command::Version),
            "-i" | "--interface" => {
                let v = value(&mut it)?;
                let (p, iface) = v
                    .split_once('@')
                    .ok_or_else(|| format!("-i {v:?}: expected PORT@IFACE, e.g. 1@veth0"))?;
                let port: u32 = parse_num("-i", p)?;
                if port >= 512 {
                    return Err(format!("-i {v:?}: port {port} does not fit in 9 bits (0..511)"));
                }
                if iface.is_empty() {
                    return Err(format!("-i {v:?}: empty interface name"));
                }
                if o.ports.iter().any(|q| q.port == port) {
                    return Err(format!("-i {v:?}: port {port} given twice"));
                }
                if o.ports.iter().any(|q| q.iface == iface) {
                    return Err(format!("-i {v:?}: interface {iface} given twice"));
                }
                o.ports.push(PortSpec { port, iface: iface.to_string() });
            }
            "--device-id" => o.device_id = parse_num(&name, &value(&mut it)?)?,
            "--use-files" => o.use_files = Some(parse_num(&name, &value(&mut it)?)?),
            "--pcap" => {
                // The directory is optional (bmv2: --pcap or --pcap DIR).
                let dir = match inline.clone() {
                    Some(v) => Some(v),
                    None => match it.peek() {
                        Some(next) if !next.starts_with('-') && !next.ends_with(".json") => it.next(),
                        _ => None,
                    },
                };
                o.pcap_dir = Some(PathBuf::from(dir.unwrap_or_else(|| ".".into())));
            }
            "--log-console" => o.log_console = true,
            "--log-file" => o.log_file = Some(PathBuf::from(value(&mut it)?)),
            "-L" | "--log-level" => o.log_level = Level::parse(&value(&mut it)?)?,
            "--workers" => {
                let n: usize = parse_num(&name, &value(&mut it)?)?;
                if n == 0 || n > 256 {
                    return Err(format!("--workers {n}: expected 1..256"));
                }
                o.workers = Some(n);
            }
            "--io" => o.io = IoMode::parse(&value(&mut it)?)?,
            "--spread" => {
                o.spread = match value(&mut it)?.as_str() {
                    // `auto` once chose per program; every program is spread
                    // by flow now, so it stays only as an alias.
                    "auto" | "flow" => Spread::Flow,
                    "port" => Spread::Port,
                    v => return Err(format!("--spread {v:?}: expected flow or port")),
                }
            }
            "--queue-depth" => {
                let n: u32 = parse_num(&name, &value(&mut it)?)?;
                if n == 0 || n > crate::queues::MAX_DEPTH {
                    return Err(format!("--queue-depth {n}: expected 1..{}", crate::queues::MAX_DEPTH));
                }
                o.queue_depth = n;
            }
            "--queue-delay" => {
                let n: u32 = parse_num(&name, &value(&mut it)?)?;
                crate::queues::check_delay(n).map_err(|_| format!("--queue-delay {n}: expected 0 (no bound)..{} µs", crate::queues::MAX_DELAY_US))?;
                o.queue_delay_us = n;
            }
            "--rx-depth" => {
                let n: u32 = parse_num(&name, &value(&mut it)?)?;
                if !(32..=65_536).contains(&n) {
                    return Err(format!("--rx-depth {n}: expected 32..65536"));
                }
                o.rx_depth = n;
            }
            "--metrics-addr" => o.metrics_addr = Some(value(&mut it)?),
            "--exec" => {
                o.exec = match value(&mut it)?.as_str() {
                    "plan" => p4engine::ExecMode::Plan,
                    "interp" => p4engine::ExecMode::Interpreter,
                    v => return Err(format!("--exec {v}: expected plan or interp")),
                }
            }
            "--control-nice" => {
                let n: u32 = parse_num(&name, &value(&mut it)?)?;
                if n > 19 {
                    return Err(format!("--control-nice {n}: expected 0..19"));
                }
                o.control_nice = n;
            }
            "--control-sched" => o.control_sched = crate::sys::Sched::parse(&value(&mut it)?)?,
            "--no-p4" => o.no_p4 = true,
            "--thrift-port" => {
                // Accepted for compatibility with scripts written for bmv2; there is no Thrift server.
                let _ = value(&mut it)?;
            }
            "--grpc-server-addr" => o.grpc_addr = value(&mut it)?,
            "--no-grpc" => o.no_grpc = true,
            "--max-digest-rate" => o.max_digest_rate = parse_num(&name, &value(&mut it)?)?,
            "--cpu-port" => {
                let p: u32 = parse_num(&name, &value(&mut it)?)?;
                if p >= 512 {
                    return Err(format!("--cpu-port {p}: does not fit in 9 bits"));
                }
                o.cpu_port = Some(p);
            }
            "--drop-port" => {
                let p: u32 = parse_num(&name, &value(&mut it)?)?;
                if p >= 512 {
                    return Err(format!("--drop-port {p}: does not fit in 9 bits"));
                }
                o.drop_port = p;
            }
            "--grpc-server-ssl" => ssl = true,
            "--grpc-server-cert" => tls.cert = Some(PathBuf::from(value(&mut it)?)),
            "--grpc-server-key" => tls.key = Some(PathBuf::from(value(&mut it)?)),
            "--grpc-server-cacert" => tls.cacert = Some(PathBuf::from(value(&mut it)?)),
            "--grpc-server-with-client-auth" => tls.client_auth = true,
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s} (see p4switch --help)"));
            }
            _ => {
                if o.json.is_some() {
                    return Err(format!("more than one program given ({arg})"));
                }
                o.json = Some(PathBuf::from(arg));
            }
        }
    }
    if o.no_p4 && o.json.is_some() {
        return Err("--no-p4 and a program file are mutually exclusive".into());
    }
    if !o.no_p4 && o.json.is_none() {
        return Err("no program: give PROGRAM.json or --no-p4 (see p4switch --help)".into());
    }
    if ssl {
        if tls.cert.is_none() || tls.key.is_none() {
            return Err("--grpc-server-ssl needs --grpc-server-cert and --grpc-server-key".into());
        }
        o.tls = Some(tls);
    } else if tls != TlsOptions::default() {
        return Err("--grpc-server-cert/-key/-cacert need --grpc-server-ssl".into());
    }
    if o.cpu_port.is_some() && o.cpu_port == Some(o.drop_port) {
        return Err("--cpu-port and --drop-port are the same port".into());
    }
    if let Some(c) = o.cpu_port {
        if o.ports.iter().any(|p| p.port == c) {
            return Err(format!("--cpu-port {c} is also attached to an interface with -i"));
        }
    }
    Ok(Command::Run(Box::new(o)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &str) -> Result<Options, String> {
        match parse(args.split_whitespace().map(String::from))? {
            Command::Run(o) => Ok(*o),
            c => panic!("unexpected {c:?}"),
        }
    }

    #[test]
    fn bmv2_style_command_line() {
        let o = run("--device-id 3 -i 1@veth0 -i 2@veth2 --pcap /tmp/caps prog.json --log-console -L debug \
                     -- --grpc-server-addr 0.0.0.0:50051 --cpu-port 255")
            .unwrap();
        assert_eq!(o.device_id, 3);
        assert_eq!(o.ports, vec![PortSpec { port: 1, iface: "veth0".into() }, PortSpec { port: 2, iface: "veth2".into() }]);
        assert_eq!(o.pcap_dir, Some(PathBuf::from("/tmp/caps")));
        assert_eq!(o.json, Some(PathBuf::from("prog.json")));
        assert!(o.log_console);
        assert_eq!(o.log_level, Level::Debug);
        assert_eq!(o.grpc_addr, "0.0.0.0:50051");
        assert_eq!(o.cpu_port, Some(255));
        assert_eq!(o.drop_port, 511);
        assert_eq!(o.max_digest_rate, p4runtime_server::DEFAULT_MAX_DIGEST_RATE);
        assert_eq!(run("--no-p4 -- --max-digest-rate 500").unwrap().max_digest_rate, 500);
        assert_eq!(run("--no-p4 -- --max-digest-rate=0").unwrap().max_digest_rate, 0);
    }

    #[test]
    fn io_and_queue_options() {
        let o = run("--io xdp --queue-depth 64 --rx-depth 1024 --workers 2 --spread flow p.json").unwrap();
        assert_eq!((o.io, o.queue_depth, o.rx_depth, o.workers, o.spread), (IoMode::Xdp, 64, 1024, Some(2), Spread::Flow));
        assert_eq!(run("--spread port p.json").unwrap().spread, Spread::Port);
        assert_eq!(run("--spread auto p.json").unwrap().spread, Spread::Flow, "alias");
        assert_eq!(run("p.json").unwrap().spread, Spread::Flow, "default");
        let o = run("p.json").unwrap();
        assert_eq!((o.io, o.queue_depth, o.rx_depth), (IoMode::Auto, DEFAULT_QUEUE_DEPTH, DEFAULT_RX_DEPTH));
        assert_eq!(o.metrics_addr, None, "metrics are off by default");
        assert_eq!(run("--metrics-addr 127.0.0.1:9100 p.json").unwrap().metrics_addr.as_deref(), Some("127.0.0.1:9100"));
        assert_eq!(o.exec, p4engine::ExecMode::Plan);
        assert_eq!(run("--exec interp p.json").unwrap().exec, p4engine::ExecMode::Interpreter);
        assert_eq!(run("--exec=jit p.json").unwrap_err(), "--exec jit: expected plan or interp");
        assert_eq!(o.control_nice, DEFAULT_CONTROL_NICE);
        assert_eq!(run("--control-nice 0 p.json").unwrap().control_nice, 0);
        assert_eq!(run("--control-nice=19 p.json").unwrap().control_nice, 19);
        assert_eq!(run("--control-nice 20 p.json").unwrap_err(), "--control-nice 20: expected 0..19");
        assert_eq!(o.queue_delay_us, DEFAULT_QUEUE_DELAY_US);
        assert_eq!(run("--queue-delay 0 p.json").unwrap().queue_delay_us, 0, "0: no bound");
        assert_eq!(run("--queue-delay=2500 p.json").unwrap().queue_delay_us, 2500);
    }

    #[test]
    fn control_sched_is_batch_unless_told() {
        use crate::sys::Sched;
        assert_eq!(run("p.json").unwrap().control_sched, Sched::Batch);
        assert_eq!(run("--control-sched idle p.json").unwrap().control_sched, Sched::Idle);
        assert_eq!(run("--control-sched=batch p.json").unwrap().control_sched, Sched::Batch);
        // idle does not need a nice value: at --control-nice 0 it still applies
        let o = run("--control-nice 0 --control-sched idle p.json").unwrap();
        assert_eq!((o.control_nice, o.control_sched), (0, Sched::Idle));
        assert_eq!(run("--control-sched fifo p.json").unwrap_err(), "--control-sched \"fifo\": expected batch or idle");
        assert_eq!(run("p.json --control-sched").unwrap_err(), "--control-sched needs a value");
    }

    #[test]
    fn defaults_and_equals_forms() {
        let o = run("--no-p4 --interface=0@eth0 -i1@eth1 --use-files=2 --pcap --log-level=trace").unwrap();
        assert_eq!(o.grpc_addr, DEFAULT_GRPC_ADDR);
        assert_eq!(o.use_files, Some(2));
        assert_eq!(o.pcap_dir, Some(PathBuf::from(".")));
        assert_eq!(o.ports.len(), 2);
        assert_eq!(o.cpu_port, None);
        assert_eq!(o.log_level, Level::Trace);
        // --pcap followed by the program keeps the program.
        let o = run("--pcap prog.json").unwrap();
        assert_eq!(o.pcap_dir, Some(PathBuf::from(".")));
        assert_eq!(o.json, Some(PathBuf::from("prog.json")));
    }

    #[test]
    fn errors_are_clear() {
        let cases = [
            ("-i 1veth0 p.json", "PORT@IFACE"),
            ("-i 600@x p.json", "9 bits"),
            ("-i 1@a -i 1@b p.json", "given twice"),
            ("--bogus p.json", "unknown option --bogus"),
            ("", "no program"),
            ("--no-p4 p.json", "mutually exclusive"),
            ("-L loud p.json", "bad log level"),
            ("--device-id x p.json", "bad number"),
            ("p.json -- --cpu-port 511", "same port"),
            ("p.json -i", "needs a value"),
            ("a.json b.json", "more than one"),
            ("p.json -- --grpc-server-ssl", "--grpc-server-cert"),
            ("--workers 0 p.json", "--workers"),
            ("--spread rss p.json", "--spread \"rss\": expected flow or port"),
            ("--io fast p.json", "expected auto, xdp, mmap or socket"),
            ("--queue-depth 0 p.json", "--queue-depth 0"),
            ("--rx-depth 8 p.json", "--rx-depth 8"),
            ("--queue-delay 2000000 p.json", "--queue-delay 2000000"),
            ("--queue-delay 1ms p.json", "--queue-delay: bad number"),
            ("p.json -- --max-digest-rate lots", "--max-digest-rate: bad number"),
        ];
        for (args, want) in cases {
            let e = run(args).unwrap_err();
            assert!(e.contains(want), "{args:?}: {e}");
        }
        assert_eq!(parse(vec!["--help".to_string()]).unwrap(), Command::Help);
    }
}
