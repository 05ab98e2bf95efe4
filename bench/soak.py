"""Soak: vrouter.p4 forwarding steady traffic for a long time while the controller churns routes.

    python -m bench.soak [--duration 3600] [--window 300] [--rate PPS] [--updates 1000] [--frame 64]

Two hosts, each in its own routed subnet, behind p4switch running vrouter.p4 configured by
`vrouter run`. First the zero-loss rate of the routed flow is searched (unless --rate
gives it). Then traffic runs at --load (default 90 %) of it, first for --warmup seconds
(default 30, not counted: the first window is quiet and must not pay for the search's
after-effects), then in windows of --window seconds for --duration seconds in all. Windows are quiet (no route updates) or churn ones, by
--pattern: `alternate` (the default: quiet, churn, quiet, churn, ...) or `churn-after-first`
(one quiet window, then churn only). Before a quiet window the bench's writer stops and the
bench waits until `vrouter run` has logged no reconcile for SETTLE_S, so a quiet window holds
no route write (each window records the writer's steps, the controller's reconciles and its
route writes, to show it). In a churn window the controller churns routes: every half second the
description file gets --updates/4 new /32 routes in 172.16.0.0/12 (via the receiving
host) and loses as many old ones, so `vrouter run` (which re-reads a changed file every
0.5 s and writes only the difference) makes --updates route writes per second into the
same LPM table the traffic is routed by. That is `--churn-via description`, the way before
routes files; by default (`--churn-via file`) the routes live in the switch's routes file
(`routes_file:`, controller/vrouter/routefile.py), which is rewritten instead and taken by
difference; `--churn-via both` alternates the two in successive churn windows (A/B in one run,
each on its own 1,000 routes: description routes count up from 172.16.0.0, file routes from
172.24.0.0). Per window the report gives the frames lost,
one-way latency percentiles, the route writes the controller made (from its log), the
resident memory of the switch and the controller, and the CPU milliseconds per second each
party took (the bench's churn thread, the controller, the generator, p4switch per thread
name: cputime.py; unlike loss, comparable between runs on a busy machine). At the end, per
kind of window (quiet, churn) the median, min and max loss % and p99 over its windows and the
pooled loss; the loss attributable to updates (churn median minus quiet median) with an exact
Mann-Whitney U test of churn against quiet windows (ranktest.py) and a verdict; the same for
p99; memory growth from the first to the last window of each kind; and the CPU the churn added
per party (churn windows' mean minus the quiet ones').

Goals (issue 17): memory growth <= 1 %, no loss attributable to the updates.
Results: bench/results/<stamp>-soak/ (results.json, report.md). Needs root.
"""
from __future__ import annotations

import ipaddress
import os
import re
import statistics
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

import yaml

from . import capture, cputime, ranktest, report, rfc2544
from .common import main_guard, output_options, say
from .dut import P4Switch, l3_plan
from .netns import BenchError, Topology

CHURN_BASE = {"description": ipaddress.IPv4Address("172.16.0.0"), "file": ipaddress.IPv4Address("172.24.0.0")}
VIAS = {"file": ("file",), "description": ("description",), "both": ("description", "file")}
CHURN_PERIOD = 0.5          # s between description rewrites (vrouter run polls the file every 0.5 s)
SCHED_POLICY = {"batch": os.SCHED_BATCH, "idle": os.SCHED_IDLE}
ROUTES_KEPT = 1000          # routes present at any time during churn
# libyaml's emitter when PyYAML has it: the pure-Python one took ~80 ms per 1,000-route
# description, twice a second, from the same two cores the switch forwards on.
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
RECONCILED_RE = re.compile(r"event=reconciled .*?writes=(\d+)")
PATTERNS = ("alternate", "churn-after-first")
SETTLE_S = 1.5          # no reconcile for this long before a quiet window: the daemon has taken the
                        # last change (it looks at the routes file every 0.1 s, the description every 0.5)
SETTLE_TIMEOUT = 30.0
ALPHA = 0.05            # significance level of the verdicts


def rss_kib(pid: int) -> int | None:
    """Resident set size of a process in KiB (None once it has gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


class Churn(threading.Thread):
    """Every CHURN_PERIOD replaces `per_step` routes of the current `via` (the description or the
    routes file) with as many new ones.

    Routes are /32s counted up from CHURN_BASE[via], so every step's prefixes are new ones (no
    insert ever meets a stale entry) and each place holds ROUTES_KEPT routes throughout."""

    def __init__(self, dut: P4Switch, path: Path, routes_path: Path, via: str, updates_per_s: int,
                 sched: str = "batch"):
        super().__init__(name="churn", daemon=True)
        self.dut, self.path, self.routes_path, self.via = dut, path, routes_path, via
        self.sched = sched      # the writer's class: the controller's (see lower_self)
        self.per_step = max(1, int(updates_per_s * CHURN_PERIOD / 2))
        self.next = {k: ROUTES_KEPT for k in CHURN_BASE}
        self.mode = "file"      # where the routes churn in the current window
        self.active = threading.Event()
        self.stop = threading.Event()
        self.lock = threading.Lock()    # held while a step writes: pause() waits for it
        self.steps = 0
        self.tid: int | None = None     # for its CPU time (cputime.thread)
        self.lowered = threading.Event()    # set once the thread runs at its class

    @staticmethod
    def prefix(n: int, via: str = "description") -> str:
        return f"{CHURN_BASE[via] + n}/32"

    def routes(self, first: int, last: int) -> list[dict]:
        return [{"prefix": self.prefix(n), "via": self.via} for n in range(first, last)]

    def routes_text(self, first: int, last: int) -> str:
        """The routes file's lines (routefile.py)."""
        return "".join(f"{self.prefix(n, 'file')} via {self.via}\n" for n in range(first, last))

    def write(self, first: int, last: int) -> None:
        if self.mode == "file":
            text, path = self.routes_text(first, last), self.routes_path
        else:
            desc = dict(self.dut.desc)
            sw = dict(desc["switches"]["s1"])
            sw["routes"] = self.routes(first, last)
            desc["switches"] = {"s1": sw}
            text, path = yaml.dump(desc, Dumper=DUMPER, sort_keys=False), self.path
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)      # the daemon never reads half a file

    def pause(self) -> None:
        """Stop churning; returns once no step is under way (no write after this)."""
        self.active.clear()
        with self.lock:
            pass

    def resume(self, mode: str) -> None:
        self.mode = mode
        self.active.set()

    def lower_self(self) -> None:
        """The writer stands in for a routing daemon, part of the control plane: it runs at nice 10
        (at least the bench's) under the controller's policy, so that what a churn window costs the
        data plane is the controller's and the switch's work, not the bench's own formatting of the
        routes file at the generator's priority."""
        os.sched_setscheduler(self.tid, SCHED_POLICY[self.sched], os.sched_param(0))
        os.setpriority(os.PRIO_PROCESS, self.tid, max(10, os.getpriority(os.PRIO_PROCESS, self.tid)))

    def run(self) -> None:
        self.tid = threading.get_native_id()
        self.lower_self()
        self.lowered.set()
        while not self.stop.is_set():
            if not self.active.wait(0.1):
                continue
            t = time.monotonic()
            with self.lock:
                if not self.active.is_set():    # paused while we waited
                    continue
                self.next[self.mode] += self.per_step
                self.write(self.next[self.mode] - ROUTES_KEPT, self.next[self.mode])
                self.steps += 1
            self.stop.wait(max(0.0, CHURN_PERIOD - (time.monotonic() - t)))


class ControllerLog:
    """Reconciles and the writes they made, as `vrouter run` logs them (`event=reconciled ...
    writes=N`), counted so far; read on from where the last look stopped."""

    def __init__(self, path: Path):
        self.path, self.offset, self.rest = path, 0, b""
        self.reconciles = self.writes = 0

    def poll(self) -> tuple[int, int]:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            chunk = b""
        self.offset += len(chunk)
        lines = (self.rest + chunk).split(b"\n")
        self.rest = lines.pop()         # a line not yet finished
        for line in lines:
            m = RECONCILED_RE.search(line.decode(errors="replace"))
            if m:
                self.reconciles += 1
                self.writes += int(m.group(1))
        return self.reconciles, self.writes


def settle(log: ControllerLog, quiet_for: float = SETTLE_S, timeout: float = SETTLE_TIMEOUT) -> float | None:
    """Wait until the controller has logged no reconcile for `quiet_for` s: seconds waited, or
    None if it was still reconciling after `timeout`."""
    t0 = last = time.monotonic()
    seen = log.poll()[0]
    while time.monotonic() - last < quiet_for:
        if time.monotonic() - t0 > timeout:
            return None
        time.sleep(0.1)
        now = log.poll()[0]
        if now != seen:
            seen, last = now, time.monotonic()
    return time.monotonic() - t0


def window_plan(duration: float, window: float, pattern: str) -> list[tuple[float, bool]]:
    """(seconds, churn?) per window: whole windows, then what is left if it is 1 s or more."""
    whole = int(duration // window)
    lengths = [window] * whole + ([duration - whole * window] if duration - whole * window >= 1 else [])
    if pattern == "alternate":
        return [(s, k % 2 == 1) for k, s in enumerate(lengths)]
    if pattern == "churn-after-first":
        return [(s, k > 0) for k, s in enumerate(lengths)]
    raise ValueError(f"unknown pattern {pattern!r} (one of {', '.join(PATTERNS)})")


POLICIES = {0: "normal", 3: "batch", 5: "idle"}


def priorities(pid: int) -> dict[str, str]:
    """Nice value and scheduling policy of a process's threads by name (proc(5) stat fields 19
    and 41), e.g. {"p4switch-w0": "nice 0", "p4rt-grpc": "nice 10 batch"}: who comes first on a
    busy CPU (p4switch --control-nice, vrouter run --nice)."""
    return dict(sorted((name, priority_of(f)) for name, f in cputime.task_stats(pid).values()))


def priority_of(f: list[str]) -> str:
    """"nice N" and the policy unless normal, from a thread's stat_fields()."""
    policy = POLICIES.get(int(f[38]), f"policy {f[38]}")
    return f"nice {f[16]}" + ("" if policy == "normal" else f" {policy}")


def cpu_seconds(dut: P4Switch, churn: Churn) -> dict[str, float]:
    """CPU seconds so far of every party of the soak (see cputime.py)."""
    out: dict[str, float] = {}
    me = os.getpid()
    if churn.tid is not None:
        out["bench churn thread"] = cputime.thread(me, churn.tid) or 0.0
    kids = os.times()
    out["generator (p4gen)"] = kids.children_user + kids.children_system   # trials are waited for
    if dut.ctl is not None:
        out["vrouter"] = cputime.process(dut.ctl.pid) or 0.0
    if dut.proc is not None:
        out |= {f"p4switch {name}": s for name, s in cputime.by_thread(dut.proc.pid).items()}
    return out


def run(args) -> dict:
    topo = Topology(args.prefix, 1500)
    topo.add_host("a")
    topo.add_host("b")
    l3_plan(topo)
    work = Path(args.workdir)
    data: dict = {"machine": report.machine(), "load_before": loadavg(), "settings": {
        "duration_s": args.duration, "window_s": args.window, "load": args.load, "frame": args.frame,
        "updates_per_s": args.updates, "routes_kept": ROUTES_KEPT, "churn_via": args.churn_via,
        "pattern": args.pattern, "controller_sched": args.controller_sched}, "windows": []}
    vias = VIAS[args.churn_via]
    with topo:
        a, b = topo.hosts
        # the switch's control threads in the same class as the daemon (p4switch --control-sched)
        dut = P4Switch(topo, work, ctl_args=("--sched", args.controller_sched),
                       switch_args=("--control-sched", args.controller_sched))
        churn = None
        try:
            churn = Churn(dut, work / f"{dut.name}-vrouter.yaml", work / f"{dut.name}-routes.txt", b.addr,
                          args.updates, args.controller_sched)
            extra: dict = {}
            if "description" in vias:
                extra["routes"] = churn.routes(0, ROUTES_KEPT)
            if "file" in vias:
                churn.routes_path.write_text(churn.routes_text(0, ROUTES_KEPT))
                extra["routes_file"] = churn.routes_path.name      # beside the description
            first = ", ".join(Churn.prefix(0, v) for v in vias)
            dut.l3(**extra)
            dut.warm_up()
            churn.start()               # idle until the first churn window; its class set first
            churn.lowered.wait(5)
            data["priorities"] = {"bench": f"nice {os.nice(0)}",
                                  "bench churn thread": priority_of(cputime.stat_fields(
                                      Path(f"/proc/self/task/{churn.tid}/stat"))[1]),
                                  **{f"vrouter {k}": v for k, v in priorities(dut.ctl.pid).items()},
                                  **{f"p4switch {k}": v for k, v in priorities(dut.proc.pid).items()}}
            say("soak: priorities " + ", ".join(f"{k} {v}" for k, v in data["priorities"].items()))
            flows = [rfc2544.Flow(a, b, dut.gateway_mac(a))]
            if args.rate:
                zero_loss = args.rate
                data["zero_loss"] = {"given": True, "pps": zero_loss}
            else:
                say("soak: searching the zero-loss rate (no churn)")
                st = rfc2544.Settings(trial_seconds=args.search_seconds, resolution=0.05)
                s = rfc2544.throughput(flows, args.frame, st, progress=say)
                zero_loss = s.throughput_pps
                data["zero_loss"] = {"given": False, "pps": zero_loss, "generator_limited": s.generator_limited}
                if not zero_loss:
                    raise BenchError("no rate passed with zero loss: nothing to soak")
            rate = zero_loss * args.load
            say(f"soak: {rate:.0f} pps ({100 * args.load:.0f} % of {zero_loss:.0f}), {args.frame} B, "
                f"windows of {args.window:g} s for {args.duration:g} s; first route {first}")
            warmup = getattr(args, "warmup", 0.0)
            if warmup > 0:      # the first window, quiet under `alternate`, must not pay the search's after-effects
                t = rfc2544.trial(flows, args.frame, rate, warmup)
                data["warmup"] = {"seconds": warmup, "sent": t.sent, "lost": t.lost, "lat_p99_us": t.lat_p99_us}
                say(f"  warm-up ({warmup:g} s, not counted): sent {t.sent} lost {t.lost} p99 {t.lat_p99_us} µs")
            log = ControllerLog(work / f"{dut.name}-vrouter.log")
            churns = 0
            for k, (seconds, busy) in enumerate(window_plan(args.duration, args.window, args.pattern)):
                if busy:
                    churn.resume(vias[churns % len(vias)])
                    churns += 1
                    settled = 0.0
                else:       # the writer stops, then the daemon takes what it last wrote
                    churn.pause()
                    settled = settle(log)
                    if settled is None:
                        say(f"  window {k}: the controller still reconciles {SETTLE_TIMEOUT:g} s after the "
                            f"writer stopped: this quiet window is not quiet")
                reconciles0, writes0 = log.poll()
                steps0 = churn.steps
                cpu0, t0 = cpu_seconds(dut, churn), time.monotonic()
                t = rfc2544.trial(flows, args.frame, rate, seconds)
                cpu = cputime.ms_per_s(cpu0, cpu_seconds(dut, churn), time.monotonic() - t0)
                reconciles, writes = log.poll()
                row = {"window": k, "churn": busy, "via": churn.mode if busy else None, "seconds": seconds,
                       **asdict(t), "settle_s": settled,
                       "route_writes": writes - writes0, "reconciles": reconciles - reconciles0,
                       "churn_steps": churn.steps - steps0,
                       "switch_rss_kib": rss_kib(dut.proc.pid) if dut.proc else None,
                       "controller_rss_kib": rss_kib(dut.ctl.pid) if dut.ctl else None,
                       "cpu_ms_per_s": cpu, "loadavg": loadavg()}
                row["route_writes_per_s"] = row["route_writes"] / seconds
                data["windows"].append(row)
                say(f"  window {k} ({'churn via ' + churn.mode if busy else 'quiet'}): sent {t.sent} lost {t.lost} "
                    f"p50 {t.lat_p50_us} p99 {t.lat_p99_us} µs, {row['route_writes_per_s']:.0f} route writes/s "
                    f"({row['reconciles']} reconciles, {row['churn_steps']} writer steps), "
                    f"switch {row['switch_rss_kib']} KiB, controller {row['controller_rss_kib']} KiB")
                say("    CPU ms/s: " + ", ".join(f"{k} {v:g}" for k, v in cpu.items() if v))
        finally:
            if churn:
                churn.stop.set()
            dut.stop()
    data["load_after"] = loadavg()
    data["summary"] = summarize(data["windows"])
    return data


def loss_pct(w: dict) -> float | None:
    return 100.0 * w["lost"] / w["sent"] if w["sent"] else None


def kind_summary(ws: list[dict]) -> dict:
    """One kind of window (quiet or churn): loss % and p99 as median, min and max over its
    windows, the pooled loss (all its frames together), what the controller did in them, and
    memory growth from its first window to its last."""
    loss = [x for x in map(loss_pct, ws) if x is not None]
    p99 = [w["lat_p99_us"] for w in ws if w.get("lat_p99_us") is not None]
    sent = sum(w["sent"] for w in ws)
    out: dict = {"windows": len(ws)}
    for name, xs in (("loss_pct", loss), ("p99_us", p99)):
        if xs:
            out |= {f"{name}_median": statistics.median(xs), f"{name}_min": min(xs), f"{name}_max": max(xs)}
    out["loss_pct_pooled"] = 100.0 * sum(w["lost"] for w in ws) / sent if sent else None
    for k in ("route_writes", "reconciles", "churn_steps"):
        out[k] = sum(w.get(k, 0) for w in ws)
    out["route_writes_per_s"] = out["route_writes"] / sum(w["seconds"] for w in ws)
    if len(ws) >= 2:
        for who in ("switch", "controller"):
            first, last = ws[0][f"{who}_rss_kib"], ws[-1][f"{who}_rss_kib"]
            if first and last:
                out[f"{who}_memory_growth_pct"] = 100.0 * (last - first) / first
    return out


def compare(churn: list[float], quiet: list[float]) -> dict:
    """What churn windows add over quiet ones (median minus median) and whether the windows can
    tell it from chance: an exact Mann-Whitney U test (two-sided) of churn against quiet values.
    "Not distinguishable" is said only when the test finds nothing and the two ranges overlap;
    disjoint ranges that too few windows cannot test are said to be so."""
    if not churn or not quiet:
        return {"verdict": "needs quiet and churn windows"}
    diff = statistics.median(churn) - statistics.median(quiet)
    t = ranktest.mann_whitney(churn, quiet)
    overlap = min(churn) <= max(quiet) and min(quiet) <= max(churn)
    side = "above" if t.u > len(churn) * len(quiet) / 2 else "below"
    p = f"Mann-Whitney p = {t.p:.3g}{'' if t.exact else ' (normal approximation)'}"
    if t.p < ALPHA:
        verdict = f"churn windows {side} quiet ones ({p} < {ALPHA:g})"
    elif overlap:
        verdict = f"not distinguishable from quiet (ranges overlap, {p})"
    else:
        verdict = (f"churn windows all {side} quiet ones, but {len(churn)} and {len(quiet)} windows cannot "
                   f"show it ({p}; the smallest possible is {t.min_p:.3g})")
    return {"difference": diff, "u": t.u, "p": t.p, "exact": t.exact, "min_p": t.min_p,
            "ranges_overlap": overlap, "verdict": verdict}


def summarize(windows: list[dict]) -> dict:
    quiet = [w for w in windows if not w["churn"]]
    busy = [w for w in windows if w["churn"]]
    out: dict = {}
    kinds = {"quiet": kind_summary(quiet) if quiet else None, "churn": kind_summary(busy) if busy else None}
    if kinds["quiet"] and kinds["quiet"]["loss_pct_pooled"] is not None:
        out["quiet_loss_ratio"] = kinds["quiet"]["loss_pct_pooled"] / 100
    if busy:
        out |= churn_summary(busy, quiet)
        for who in ("switch", "controller"):
            if f"{who}_memory_growth_pct" in kinds["churn"]:
                out[f"{who}_memory_growth_pct"] = kinds["churn"][f"{who}_memory_growth_pct"]
        p99 = [w["lat_p99_us"] for w in busy if w.get("lat_p99_us") is not None]
        if len(p99) >= 2:
            out["p99_drift_us"] = p99[-1] - p99[0]
    values = lambda ws, key: [x for x in (key(w) for w in ws) if x is not None]
    p99_of = lambda w: w.get("lat_p99_us")
    loss = compare(values(busy, loss_pct), values(quiet, loss_pct))
    p99 = compare(values(busy, p99_of), values(quiet, p99_of))
    out["loss_attributable_pct"] = loss.get("difference")
    out["p99_attributable_us"] = p99.get("difference")
    out["kinds"] = kinds
    out["loss_test"], out["p99_test"] = loss, p99
    vias = sorted({w.get("via") or "description" for w in busy})
    if len(vias) > 1:      # A/B: the same per way of churning
        for via in vias:
            ws = [w for w in busy if (w.get("via") or "description") == via]
            out |= {f"{k} ({via})": v for k, v in churn_summary(ws, quiet).items()}
            out[f"loss_test ({via})"] = compare(values(ws, loss_pct), values(quiet, loss_pct))
    return out


def churn_summary(busy: list[dict], quiet: list[dict]) -> dict:
    """Loss, route writes and added CPU per party of some churn windows (against the quiet ones' mean)."""
    out: dict = {}
    sent = sum(w["sent"] for w in busy)
    out["churn_loss_ratio"] = sum(w["lost"] for w in busy) / sent if sent else None
    out["route_writes_per_s"] = sum(w["route_writes"] for w in busy) / sum(w["seconds"] for w in busy)
    quiet = [w for w in quiet if "cpu_ms_per_s" in w]
    if quiet:
        mean = lambda ws, k: sum(w["cpu_ms_per_s"].get(k, 0.0) for w in ws) / len(ws)
        parties = sorted({k for w in busy for k in w["cpu_ms_per_s"]})
        out["churn_cpu_ms_per_s"] = {k: round(mean(busy, k) - mean(quiet, k), 1) for k in parties}
    return out


def cpu_table(windows: list[dict]) -> str:
    """Parties as rows, windows as columns (CPU ms/s)."""
    parties = sorted({k for w in windows for k in w.get("cpu_ms_per_s", {})})
    return report.md_table(["party"] + [f"window {w['window']}{' (churn, ' + str(w.get('via')) + ')' if w['churn'] else ''}"
                                        for w in windows],
                           [[k] + [w.get("cpu_ms_per_s", {}).get(k) for w in windows] for k in parties])


def attribution_table(s: dict) -> str:
    """Quiet against churn windows: what the updates cost, with the test's verdict."""
    q, c = s["kinds"]["quiet"] or {}, s["kinds"]["churn"] or {}

    def spread(k: dict, name: str, fmt: str) -> str | None:
        if f"{name}_median" not in k:
            return None
        return (f"{k[f'{name}_median']:{fmt}} ({k[f'{name}_min']:{fmt}}–{k[f'{name}_max']:{fmt}})")

    def num(x, fmt: str) -> str | None:
        return None if x is None else f"{x:{fmt}}"

    lt, pt = s["loss_test"], s["p99_test"]
    rows = [["loss %: median (min–max)", spread(q, "loss_pct", ".4f"), spread(c, "loss_pct", ".4f"),
             num(lt.get("difference"), "+.4f"), num(lt.get("p"), ".3g"), lt["verdict"]],
            ["loss %: pooled", num(q.get("loss_pct_pooled"), ".4f"), num(c.get("loss_pct_pooled"), ".4f"),
             None, None, ""],
            ["p99 µs: median (min–max)", spread(q, "p99_us", ".0f"), spread(c, "p99_us", ".0f"),
             num(pt.get("difference"), "+.0f"), num(pt.get("p"), ".3g"), pt["verdict"]],
            ["route writes / reconciles / writer steps",
             *(f"{k['route_writes']} / {k['reconciles']} / {k['churn_steps']}" if k else None for k in (q, c)),
             None, None, ""]]
    for who in ("switch", "controller"):
        rows.append([f"{who} memory, first → last window %",
                     *(num(k.get(f"{who}_memory_growth_pct"), "+.2f") for k in (q, c)), None, None, "goal ≤ 1 %"])
    return ("Quiet against churn windows (loss attributable to updates = churn median − quiet median; "
            "two-sided exact Mann-Whitney U test over window values, ranktest.py):\n\n"
            + report.md_table([" ", f"quiet ({q.get('windows', 0)} windows)", f"churn ({c.get('windows', 0)} windows)",
                               "churn − quiet", "p", "verdict"], rows))


def write_report(d: Path, data: dict) -> None:
    s, st = data["summary"], data["settings"]
    zl = data["zero_loss"]
    md = [f"# Soak: vrouter.p4 under traffic while the controller churns routes",
          "",
          f"Machine: {data['machine']['cores']} cores, {data['machine']['cpu']}, git {data['machine']['git']}; "
          f"load average before {' '.join(data['load_before'])}, after {' '.join(data['load_after'])}.",
          "" if float(data["load_before"][0]) <= 0.5 else
          "**The load average at start exceeded 0.5: loss and latency may reflect other work on the machine.**",
          f"Traffic: one routed flow of {st['frame']} B frames at {100 * st['load']:.0f} % of the zero-loss rate "
          f"({zl['pps']:.0f} pps, {'given' if zl['given'] else 'searched without churn'}"
          f"{', generator-limited' if zl.get('generator_limited') else ''}); {st['duration_s']:g} s in windows of "
          f"{st['window_s']:g} s, pattern {st.get('pattern', 'churn-after-first')}: quiet windows make no route "
          f"update, churn windows {st['updates_per_s']} route updates/s requested ({st['routes_kept']} /32 routes present, replaced through `vrouter run`: via "
          f"{st.get('churn_via', 'description')}).",
          (f"Warm-up before window 0, not counted: {data['warmup']['seconds']:g} s, {data['warmup']['lost']} of "
           f"{data['warmup']['sent']} lost, p99 {data['warmup']['lat_p99_us']} µs." if data.get("warmup") else
           "No warm-up: window 0 began right after the rate search."),
          "",
          report.md_table(["window", "churn via", "sent", "lost", "loss %", "p50 µs", "p99 µs", "p99.9 µs",
                           "route writes/s", "reconciles", "writer steps", "switch RSS KiB", "controller RSS KiB"],
                          [[w["window"], w.get("via") or "yes" if w["churn"] else "no", w["sent"], w["lost"],
                            f"{loss_pct(w):.4f}" if w["sent"] else None, w.get("lat_p50_us"),
                            w.get("lat_p99_us"), w.get("lat_p999_us"), w["route_writes_per_s"], w.get("reconciles"),
                            w.get("churn_steps"), w["switch_rss_kib"], w["controller_rss_kib"]]
                           for w in data["windows"]]),
          "",
          attribution_table(s),
          "",
          "CPU milliseconds per second, per party (cputime.py; the churn thread is the bench's own "
          "route writer, idle in quiet windows):",
          "",
          cpu_table(data["windows"]),
          "",
          "Priorities in effect (nice, policy; p4switch `--control-nice` and `--control-sched`, `vrouter run --nice` and `--sched`): "
          + ", ".join(f"{k} {v}" for k, v in data.get("priorities", {}).items()) + ".",
          "",
          "| summary | value | goal |", "|---|---|---|"]
    goals = {"switch_memory_growth_pct": "<= 1 %", "controller_memory_growth_pct": "<= 1 %",
             "churn_loss_ratio": "= quiet windows'", "loss_attributable_pct": "0", "route_writes_per_s": f">= {st['updates_per_s']}"}
    goals |= {f"{k} ({via})": v for k, v in list(goals.items()) for via in ("file", "description")}
    for k, v in s.items():
        if k == "kinds" or k.startswith(("loss_test", "p99_test")):
            continue        # in the attribution table
        if isinstance(v, dict):
            v = ", ".join(f"{party} {ms:+g}" for party, ms in v.items())
        md.append(f"| {k} | {v:.4g} | {goals.get(k, '')} |" if isinstance(v, float) else f"| {k} | {v} | |")
    report.write_md(d, md, [])


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--duration", type=float, default=3600.0, help="seconds of traffic in all (default 3600)")
    ap.add_argument("--window", type=float, default=300.0, help="seconds per reported window (default 300)")
    ap.add_argument("--rate", type=float, help="zero-loss rate in pps (default: searched first)")
    ap.add_argument("--load", type=float, default=0.9, help="fraction of the zero-loss rate offered (default 0.9)")
    ap.add_argument("--updates", type=int, default=1000, help="route updates per second requested (default 1000)")
    ap.add_argument("--churn-via", choices=tuple(VIAS), default="file",
                    help="where routes churn: the routes file (default), the description, or both in "
                         "alternate churn windows (A/B)")
    ap.add_argument("--pattern", choices=PATTERNS, default="alternate",
                    help="quiet and churn windows: alternate (quiet, churn, quiet, ...; the default) or "
                         "churn-after-first (one quiet window, then churn)")
    ap.add_argument("--warmup", type=float, default=30.0,
                    help="seconds of traffic at the soak's rate before the first window, not counted (default 30)")
    ap.add_argument("--controller-sched", choices=("batch", "idle"), default="batch",
                    help="`vrouter run --sched` and p4switch `--control-sched`: the scheduling policy of the "
                         "daemon and of the switch's control threads (default batch, as both; idle lets "
                         "them run only on a core nothing else wants)")
    ap.add_argument("--frame", type=int, default=64, help="frame size in bytes, FCS included (default 64)")
    ap.add_argument("--search-seconds", type=float, default=2.0, help="trial length of the rate search (default 2)")
    ap.add_argument("--prefix", default="hsk", help="prefix of namespace and interface names (default hsk)")
    ap.add_argument("--out", type=Path, help="results base directory (default bench/results)")
    output_options(ap)
    args = ap.parse_args(argv)
    if args.window <= 0 or args.duration < 2 * args.window:
        ap.error("--duration must hold at least two windows (a quiet one and a churn one)")

    def go() -> int:
        d = report.new_run("soak", args.out)
        args.workdir = str(d)
        capture.arm(args.pcap, args.prefix)       # the first trial of the rate search
        t0 = time.monotonic()
        data = run(args)
        report.finish(d, data, t0, "soak", lambda: write_report(d, data), args.json)
        return 0
    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())
