//! Issue 16 Must 4, the bound in time (`--queue-delay`): a switch that does
//! not run for 150 ms (SIGSTOP: a worker descheduled on a busy machine) does
//! not deliver the frames that arrived meanwhile once it runs again — no
//! frame arrives later than the bound plus scheduling slack after it was
//! sent — and counts them in `p4switch_queue_delay_drops_total`, in every
//! `--io` mode; with `--queue-delay 0` the same frames come through late
//! (so the test sees the feature). At a low rate frames leave after one
//! wake-up, and only frames kept past the bound are dropped. The
//! real binary and generator (`p4gen`, send times in the payload, the
//! kernel's receive time stamps) over veths in namespaces. Needs root.

mod common;

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::netns::*;
use common::*;

/// How long the switch is stopped.
const STOP: Duration = Duration::from_millis(150);
/// Scheduling on a loaded 2-core machine after the worker's check (its
/// transmit, the receiver's softirq) and before the XDP program's stamp.
const SLACK_US: f64 = 20_000.0;
/// The tests of this file run one after another.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The `key=value` numbers of p4gen's `trial` line.
fn trial_keys(out: &str) -> HashMap<String, f64> {
    let line = out.lines().find(|l| l.starts_with("trial ")).unwrap_or_else(|| panic!("no trial line in {out}"));
    line.split_whitespace().filter_map(|kv| kv.split_once('=')).filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?))).collect()
}

/// The value of the first sample of `name` whose labels include every one of
/// `labels` (`key="value"`; the encoder sorts labels by name).
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter_map(|l| l.strip_prefix(name)?.strip_prefix('{')?.split_once("} "))
        .find(|(ls, _)| labels.iter().all(|want| ls.split(',').any(|have| have == *want)))
        .and_then(|(_, v)| v.trim().parse().ok())
}

/// What one run saw.
struct Seen {
    trial: HashMap<String, f64>,
    /// Frames of port 1 dropped as too old when the worker took them.
    rx_late: f64,
    /// How long the switch was really stopped.
    stopped: Duration,
}

impl Seen {
    fn get(&self, key: &str) -> f64 {
        *self.trial.get(key).unwrap_or_else(|| panic!("no {key} in {:?}", self.trial))
    }
}

/// A `p4gen trial` of `rate` frames/s for `seconds` from host a to host b
/// through a switch in `mode` with `--queue-delay delay_us` (1 worker,
/// receive ring of 4096 frames: the stop must not overflow it); with `stop`,
/// the switch is stopped for [`STOP`] 40 % into the trial. `tag` keeps the
/// tests' namespaces apart.
fn run(tag: char, mode: &str, delay_us: u32, rate: u32, seconds: f64, stop: bool) -> Seen {
    // One at a time: three switches and generators at once on 2 cores would measure each other.
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let topo = Topo::new(&format!("d{tag}{}", &mode[..1]));
    let dir = TempDir::new(&format!("delay-{tag}-{mode}"));
    let d = delay_us.to_string();
    let args = ["--io", mode, "--workers", "1", "--rx-depth", "4096", "--queue-delay", &d, "--metrics-addr", "127.0.0.1:0"];
    let (mut sw, line) = topo.start_switch(&dir.0, &cross_connect(), &args, &["--no-grpc"]);
    assert!(line.contains(&format!("io {mode}")), "{line}");
    let metrics = line.split("metrics on http://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_else(|| panic!("{line}")).to_string();
    let gen = Command::new(env!("CARGO_BIN_EXE_p4gen"))
        .args(["trial", "--tx-ns", &topo.ns("a"), "--tx", &topo.dev("a0"), "--rx-ns", &topo.ns("b"), "--rx", &topo.dev("b0")])
        .args(["--rate", &rate.to_string(), "--seconds", &seconds.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run p4gen");
    let pid = sw.0.id().to_string();
    let mut stopped = Duration::ZERO;
    if stop {
        std::thread::sleep(Duration::from_secs_f64(seconds * 0.4));
        assert!(Command::new("kill").args(["-STOP", &pid]).status().unwrap().success());
        let t0 = Instant::now();
        std::thread::sleep(STOP);
        assert!(Command::new("kill").args(["-CONT", &pid]).status().unwrap().success());
        stopped = t0.elapsed();
    }
    let out = gen.wait_with_output().expect("p4gen");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "p4gen: {text}{}", String::from_utf8_lossy(&out.stderr));
    let metrics = metrics_in(&topo.ns("s"), &metrics);
    let rx_late = sample(&metrics, "p4switch_queue_delay_drops_total", &[r#"port="1""#, r#"where="rx""#])
        .unwrap_or_else(|| panic!("no rx delay drops of port 1 in {metrics}"));
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    assert!(sw.0.wait().unwrap().success(), "{mode}: clean exit");
    Seen { trial: trial_keys(&text), rx_late, stopped }
}

#[test]
fn a_stopped_switch_delivers_no_stale_frame_and_counts_them_in_every_mode() {
    let (rate, bound_us) = (20_000u32, 1000u32);
    for mode in ["xdp", "mmap", "socket"] {
        let s = run('s', mode, bound_us, rate, 1.0, true);
        let (lost, max_us) = (s.get("lost"), s.get("lat_max_us"));
        eprintln!("{mode}, --queue-delay {bound_us}, stopped {:?}: lost {lost}, rx delay drops {}, latency max {max_us} µs, p99 {} µs",
                  s.stopped, s.rx_late, s.get("lat_p99_us"));
        assert!(max_us <= bound_us as f64 + SLACK_US, "{mode}: a frame arrived {max_us} µs after it was sent (bound {bound_us} µs)");
        // What arrived while the switch was stopped, but for the last bound's worth.
        let stale = rate as f64 * (s.stopped.as_secs_f64() - bound_us as f64 * 1e-6);
        assert!(s.rx_late >= 0.5 * stale, "{mode}: {} frames counted as too old, ~{stale:.0} arrived during the stop", s.rx_late);
        // Every frame the switch dropped as too old is lost to the receiver, and little else is.
        assert!(lost >= s.rx_late && lost <= s.rx_late + 0.01 * s.get("sent"), "{mode}: lost {lost}, counted {}", s.rx_late);
    }
}

#[test]
fn without_the_bound_a_stopped_switch_delivers_the_stale_frames_late() {
    for mode in ["xdp", "mmap"] {
        let s = run('o', mode, 0, 20_000, 1.0, true);
        let max_us = s.get("lat_max_us");
        eprintln!("{mode}, --queue-delay 0, stopped {:?}: lost {}, latency max {max_us} µs", s.stopped, s.get("lost"));
        assert!(max_us >= 0.5 * STOP.as_secs_f64() * 1e6, "{mode}: the frames held during the stop arrive late (max {max_us} µs)");
        assert_eq!(s.rx_late, 0.0, "{mode}: nothing counted without a bound");
    }
}

/// At a low rate the bound costs nothing: frames are forwarded after one
/// wake-up (p50 far below the bound) and none is dropped — unless the worker
/// is kept off the CPU past the bound (a loaded test machine: the harness runs
/// it at nice 10 next to builds; one run at load 5 lost 118 frames of 2,000,
/// a 60 ms stall), and then each lost frame is one counted as too old, never
/// a frame dropped for a wrong clock or a missing stamp (which would lose
/// them all).
#[test]
fn at_a_low_rate_frames_are_forwarded_after_one_wake_up_and_only_stale_ones_dropped() {
    for mode in ["xdp", "mmap", "socket"] {
        let s = run('l', mode, 1000, 2_000, 1.0, false);
        let (lost, p50) = (s.get("lost"), s.get("lat_p50_us"));
        eprintln!("{mode}: lost {lost}, rx delay drops {}, latency p50 {p50} µs, max {} µs", s.rx_late, s.get("lat_max_us"));
        assert_eq!(lost, s.rx_late, "{mode}: every frame lost is one counted as too old");
        assert!(lost < 1_000.0, "{mode}: {lost} of 2,000 frames dropped at 2 kpps");
        assert!(p50 < 500.0, "{mode}: p50 {p50} µs: more than one wake-up");
    }
}
