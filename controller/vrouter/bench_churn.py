"""Benchmark (not a test): the controller's CPU and memory under route churn, against a real switch.

    python -m vrouter.bench_churn [--cycles 200] [--routes 1000] [--step 250]
                                  [--via file|description|both] [--tracemalloc] [--profile FILE]

What `make soak` makes `vrouter run` do, without traffic and in one process: --routes /32
routes (via a resolved neighbour) are rewritten --cycles times, each time with --step routes
out and --step new ones in, and taken the way the daemon takes them. With `--via file` (the
default) they live in the switch's routes file (routefile.py) and Router.take_routes parses,
plans and writes only the lines that changed; with `--via description` they are listed in the
description, which is rewritten and taken whole (daemon.reload_description, then
Router.reload: plan the difference, write it); `both` runs one after the other (A/B, same
switch, same run). Reported per reload: the controller's CPU milliseconds by phase and the
switch process's, and the daemon's CPU microseconds per route write (mean, its GC passes
included); per churn second at the soak's pace (2 reloads a second) that is what the churn
takes from the machine.
Memory: the controller's resident set every 10 % of the cycles, and with --tracemalloc the
Python allocations that grew most from half-way to the end.
The switch is $SWITCH or target/release/p4switch, without ports, on a free loopback port.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import ipaddress
import json
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

from .bench import ROOT
from .daemon import Router, reload_description
from .desired import Neighbor
from .lab import SwitchProc

BASE = ipaddress.IPv4Address("172.16.0.0")
HOP = ipaddress.IPv4Address("10.0.10.2")


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (every thread), from /proc."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Churn:
    """A vrouter Router on a real switch, fed a description whose routes move on every cycle."""

    address: str
    p4info: Path
    config: Path
    workdir: Path
    routes: int = 1000
    step: int = 250
    first: int = 0
    via: str = "file"               # where the routes live: the routes file or the description
    stop: threading.Event = field(default_factory=threading.Event)
    router: Router | None = None

    @property
    def path(self) -> Path:
        return self.workdir / "churn.yaml"

    @property
    def routes_path(self) -> Path:
        return self.workdir / "churn-routes.txt"

    def description(self) -> str:
        lines = [f"pipeline: {{p4info: {self.p4info}, config: {self.config}}}", "switches:", "  s1:",
                 f"    address: {self.address}", "    vlans:",
                 "      10: {interface: {address: 10.0.10.1/24, mac: '00:00:5e:00:01:0a'}}",
                 "    ports: {1: {vlan: 10}}"]
        if self.via == "file":
            return "\n".join([*lines, f"    routes_file: {self.routes_path.name}"]) + "\n"
        lines.append("    routes:")
        lines += [f"      - {{prefix: {BASE + n}/32, via: {HOP}}}" for n in range(self.first, self.first + self.routes)]
        return "\n".join(lines) + "\n"

    def write(self) -> None:
        if self.via == "file":
            text = "".join(f"{BASE + n}/32 via {HOP}\n" for n in range(self.first, self.first + self.routes))
            path = self.routes_path
        else:
            text, path = self.description(), self.path
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)

    def start(self) -> Churn:
        """Write the first description, connect and reconcile, resolve the routes' next hop."""
        self.write()
        if self.via == "file":
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(self.description())
            os.replace(tmp, self.path)
        net = reload_description(self.path)
        self.router = Router(net, net.switches["s1"], election_id=10, stop=self.stop)
        self.router.connect()
        if not self.router.synced:
            raise RuntimeError(f"first reconciliation failed: {self.router.last_error}")
        self.router.learn_neighbor(Neighbor(HOP, "02:00:00:00:00:02", 1, 10))
        self.router.refresh()
        return self

    def cycle(self) -> dict[str, float]:
        """One churn step: CPU seconds of this process by phase (the file's writing not counted)."""
        self.first += self.step
        self.write()
        c0 = time.process_time()
        if self.via == "file":
            self.router.take_routes()
            c1 = time.process_time()
            if not self.router.synced or self.router.refused_routes is not None:
                raise RuntimeError(f"routes not taken: {self.router.last_error}")
            return {"take_routes": c1 - c0}
        net = reload_description(self.path)
        c1 = time.process_time()
        self.router.reload(net)
        c2 = time.process_time()
        if not self.router.synced:
            raise RuntimeError(f"reload failed: {self.router.last_error}")
        return {"description": c1 - c0, "plan_and_write": c2 - c1}

    def close(self) -> None:
        self.stop.set()
        if self.router is not None and self.router.sw is not None:
            self.router.sw.close()


def run(churn: Churn, cycles: int, trace: bool = False, switch_pid: int | None = None) -> dict:
    """`cycles` reloads; CPU per reload by phase (medians, ms), RSS samples, top tracemalloc growth."""
    phases: dict[str, list[float]] = {}
    rss: list[tuple[int, int]] = [(0, rss_kib())]
    mark = max(1, cycles // 10)
    snap = None
    started = trace and not tracemalloc.is_tracing()   # a caller may trace from before the start
    if started:
        tracemalloc.start()      # one frame: where each block was allocated
    s0 = cpu_seconds(switch_pid) if switch_pid else None
    c0, t0 = time.process_time(), time.monotonic()
    for i in range(1, cycles + 1):
        for k, v in churn.cycle().items():
            phases.setdefault(k, []).append(v)
        if i % mark == 0:
            rss.append((i, rss_kib()))
        if trace and i == cycles // 2:      # the first half lets every route present be one traced
            gc.collect()                    # live memory only, not cycles the collector has yet to visit
            snap = tracemalloc.take_snapshot()
    out: dict = {"via": churn.via, "cycles": cycles, "routes": churn.routes, "step": churn.step,
                 "wall_s": round(time.monotonic() - t0, 2),
                 "controller_cpu_ms_per_reload": round(1000 * (time.process_time() - c0) / cycles, 2),
                 "phase_ms_median": {k: round(1000 * sorted(v)[len(v) // 2], 2) for k, v in phases.items()},
                 # the daemon's own work per route write, GC passes included (the bench's writing not)
                 "daemon_cpu_us_per_route_write": round(1e6 * sum(map(sum, phases.values())) / cycles
                                                        / (2 * churn.step), 1),
                 "rss_kib": rss}
    if switch_pid:
        out["switch_cpu_ms_per_reload"] = round(1000 * (cpu_seconds(switch_pid) - s0) / cycles, 2)
    if trace and snap is not None:
        gc.collect()
        end = tracemalloc.take_snapshot()
        mine = (tracemalloc.Filter(False, tracemalloc.__file__),)      # not the first snapshot itself
        snap, end = snap.filter_traces(mine), end.filter_traces(mine)
        out["traced_kib"] = {"half_way": round(sum(s.size for s in snap.statistics("filename")) / 1024),
                             "end": round(sum(s.size for s in end.statistics("filename")) / 1024)}
        out["tracemalloc_top_growth"] = [str(d) for d in end.compare_to(snap, "lineno")[:10]]
        if started:
            tracemalloc.stop()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=200)
    ap.add_argument("--routes", type=int, default=1000)
    ap.add_argument("--step", type=int, default=250, help="routes out and in per reload (default 250)")
    ap.add_argument("--via", choices=("file", "description", "both"), default="file",
                    help="where the churned routes live (default file; both: description, then file)")
    ap.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (slower)")
    ap.add_argument("--profile", type=Path, help="write a cProfile of the cycles to FILE")
    args = ap.parse_args()
    results = []
    for via in (("description", "file") if args.via == "both" else (args.via,)):
        load_before = os.getloadavg()
        with tempfile.TemporaryDirectory() as tmp:
            switch = SwitchProc({}, Path(tmp) / "switch.log").start()
            try:
                churn = Churn(switch.address, ROOT / "build" / "vrouter.p4info.txtpb",
                              ROOT / "build" / "vrouter.json", Path(tmp), args.routes, args.step, via=via).start()
                try:
                    prof = cProfile.Profile() if args.profile else None
                    if prof:
                        prof.enable()
                    result = run(churn, args.cycles, args.tracemalloc, switch.proc.pid)
                    if prof:
                        prof.disable()
                        prof.dump_stats(f"{args.profile}.{via}" if args.via == "both" else str(args.profile))
                finally:
                    churn.close()
            finally:
                switch.stop()
        result["load_before"], result["load_after"] = load_before, os.getloadavg()
        print(json.dumps(result, indent=2))
        results.append(result)
    per_s = 1 / 0.5     # the soak's pace: a reload every 0.5 s
    for result in results:
        print(f"routes in the {result['via']}: per churn second ({per_s:g} reloads of {2 * args.step} route writes): "
              f"controller {per_s * result['controller_cpu_ms_per_reload']:.0f} CPU ms (of which the daemon's "
              f"{result['daemon_cpu_us_per_route_write']:.1f} us per route write), switch "
              f"{per_s * result.get('switch_cpu_ms_per_reload', 0):.0f} CPU ms; load average before "
              f"{result['load_before'][0]:.2f}, after {result['load_after'][0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
