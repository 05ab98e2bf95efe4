"""Several p4switches on one machine: do they share the cores fairly? (issue 16 Must 5)

    python -m bench.fairness [--switches 2,3] [--rounds 3] [--seconds 5] [--rate PPS]
                             [--idle-seconds 10] [--workers N] [--io MODE] [--json FILE]

For each number of switches N: N p4switches, each with its own pair of veths in its own
network namespaces (switch/p4switch/bench/netns.sh), all running the engine's L3 fixture
(10,000 routes, as io-sweep.sh), with the switch's defaults (`--workers` = cores, `--io auto`)
unless told. Then:
  idle      nothing sent for --idle-seconds: CPU of each switch in % of one core (Must 5:
            under 1 %);
  overload  N p4gen trials at once, each offering the same --rate to its own switch (far
            above what one switch forwards when it shares the cores with the others and the
            generators): per switch the frames forwarded per second, the CPU seconds it used
            (all its threads, /proc/PID/task/*/schedstat) and the CPU per forwarded frame
            (p4gen sends rate x seconds frames; when it cannot keep that pace on shared
            cores it takes longer, and rates are over the time it took);
            then Jain's fairness index over the switches, J = (sum x)^2 / (N sum x^2), of the
            forwarded rates and of the CPU seconds: 1 = equal shares, 1/N = one switch has all.
Rounds are repeated (--rounds) with the switches restarted; the summary gives the median
index and its range. Prints the load average at start and end: the generators run beside the
switches on the same cores, so absolute rates only compare within one run.
Needs root, the release build (target/release/p4switch, p4gen).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import loadavg, machine, save_json  # noqa: E402

BENCH = ROOT / "switch" / "p4switch" / "bench"
BIN = Path(os.environ.get("BIN", ROOT / "target" / "release"))


def jain(xs: list[float]) -> float | None:
    """Jain's fairness index of the shares `xs`: 1 when all are equal, 1/n when one has all.
    None when nothing was shared out (all zero, or no shares): no switch forwarding anything
    is a failed run, not a fair one."""
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq > 0 else None


def show(j: float | None, what: str = "nothing") -> str:
    """An index for the report; a missing one says why."""
    return f"{j:.3f}" if j is not None else f"none ({what})"


def spread(js: list[float | None], what: str) -> str:
    """Median of the rounds' indexes and their range; rounds without one are counted."""
    have = [j for j in js if j is not None]
    missing = f", {len(js) - len(have)} of {len(js)} rounds without ({what})" if len(have) < len(js) else ""
    if not have:
        return f"none ({what} in every round)"
    return f"{statistics.median(have):.3f} ({min(have):.3f}-{max(have):.3f}){missing}"


def rnd(j: float | None) -> float | None:
    return round(j, 4) if j is not None else None


def cpu_ns(pid: int) -> int:
    """CPU time of every living thread of `pid` so far (ns, schedstat)."""
    total = 0
    for t in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total += int((t / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


class Switches:
    """N switches on their own veths (prefix PREFIXk), started with `args`; stopped on exit."""

    def __init__(self, n: int, prefix: str, program: Path, args: list[str], tmp: Path):
        self.prefixes = [f"{prefix}{k}" for k in range(n)]
        self.program, self.args, self.tmp = program, args, tmp
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Switches":
        try:
            for p in self.prefixes:
                subprocess.run([str(BENCH / "netns.sh"), "up", p], check=True)
            for p in self.prefixes:
                out = open(self.tmp / f"{p}.out", "w")
                self.procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", f"{p}-sw", str(BIN / "p4switch"), *self.args, "-i", f"1@{p}-a1",
                     "-i", f"2@{p}-b1", str(self.program), "--", "--no-grpc"], stdout=out, stderr=subprocess.STDOUT))
            for p, proc in zip(self.prefixes, self.procs):
                self.ready(p, proc)
        except BaseException:
            self.__exit__()
            raise
        return self

    def ready(self, p: str, proc: subprocess.Popen) -> str:
        log = self.tmp / f"{p}.out"
        end = time.monotonic() + 20
        while time.monotonic() < end:
            m = re.search(r"p4switch ready: .*", log.read_text())
            if m:
                return m.group(0)
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"switch {p} did not start: {log.read_text()[-2000:]}")

    def line(self, k: int) -> str:
        m = re.search(r"p4switch ready: .*", (self.tmp / f"{self.prefixes[k]}.out").read_text())
        return m.group(0) if m else ""

    def __exit__(self, *exc) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(2)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for p in self.prefixes:
            subprocess.run([str(BENCH / "netns.sh"), "down", p], check=False)


def idle(sw: Switches, seconds: float) -> list[float]:
    """CPU of each switch over `seconds` of no traffic, % of one core."""
    before = [cpu_ns(p.pid) for p in sw.procs]
    time.sleep(seconds)
    return [round((cpu_ns(p.pid) - b) / (seconds * 1e9) * 100, 3) for p, b in zip(sw.procs, before)]


def overload(sw: Switches, rate: int, seconds: float) -> list[dict]:
    """One p4gen trial per switch, all at once; per switch what it forwarded and the CPU it took."""
    before = [cpu_ns(p.pid) for p in sw.procs]
    t0 = time.monotonic()
    gens = [subprocess.Popen([str(BIN / "p4gen"), "trial", "--tx-ns", f"{p}-a", "--tx", f"{p}-a0", "--rx-ns", f"{p}-b",
                              "--rx", f"{p}-b0", "--rate", str(rate), "--seconds", str(seconds)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for p in sw.prefixes]
    try:
        outs = [g.communicate(timeout=seconds * 100 + 60)[0] for g in gens]
    finally:
        for g in gens:
            if g.poll() is None:
                g.kill()
                g.wait()
    wall = time.monotonic() - t0
    after = [cpu_ns(p.pid) for p in sw.procs]
    rows = []
    for p, out, b, a in zip(sw.prefixes, outs, before, after):
        kv = dict(re.findall(r"(\w+)=(\S+)", out))
        if "received" not in kv:
            raise RuntimeError(f"p4gen for {p}: {out[-1000:]}")
        # p4gen sends rate x seconds frames; when it cannot keep the pace (the cores are shared)
        # it takes longer: rates are over the time it took (tx_seconds)
        received, cpu_s = int(kv["received"]), (a - b) / 1e9
        tx_s = float(kv.get("tx_seconds", seconds)) or seconds
        rows.append({"switch": p, "offered_pps": rate, "achieved_pps": float(kv.get("achieved_pps", 0)),
                     "sent": int(kv.get("sent", 0)), "received": received, "tx_seconds": round(tx_s, 3),
                     "forwarded_pps": round(received / tx_s), "cpu_s": round(cpu_s, 3),
                     "cpu_ns_per_frame": round(cpu_s * 1e9 / received) if received else None,
                     "wall_s": round(wall, 2)})
    return rows


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0], epilog=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--switches", default="2,3", help="numbers of switches to run side by side (default 2,3)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each overload trial")
    ap.add_argument("--rate", type=int, default=1_000_000, help="frames/s offered to each switch (default 1,000,000)")
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, help="p4switch --workers (default: its own, the number of cores)")
    ap.add_argument("--io", help="p4switch --io (default: its own, auto)")
    ap.add_argument("--prefix", default="p4fair", help="network namespace name prefix")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write every round to FILE (with the machine and load)")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("bench.fairness: needs root (network namespaces)", file=sys.stderr)
        return 2
    counts = [int(x) for x in a.switches.split(",")]
    args = (["--workers", str(a.workers)] if a.workers else []) + (["--io", a.io] if a.io else [])
    m = machine()
    print(f"fairness: {a.switches} switches side by side, {a.rounds} rounds, L3 fixture, {a.rate} pps offered to each "
          f"for {a.seconds:g} s, idle {a.idle_seconds:g} s, switch args {args or 'default'}; {os.cpu_count()} cores")
    print(f"load average at start: {' '.join(loadavg())}", flush=True)
    results: dict = {"rate_pps": a.rate, "seconds": a.seconds, "idle_seconds": a.idle_seconds, "switch_args": args,
                     "runs": []}
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        program = tmp / "l3.json"
        program.write_text(subprocess.run([sys.executable, str(BENCH / "mkprog.py"),
                                           str(ROOT / "switch/engine/fixtures/l3.json")],
                                          check=True, capture_output=True, text=True).stdout)
        for r in range(1, a.rounds + 1):
            for n in counts:
                with Switches(n, a.prefix, program, args, tmp) as sw:
                    if r == 1 and n == counts[0]:
                        print(f"  ({sw.line(0)})")
                    idle_pct = idle(sw, a.idle_seconds)
                    rows = overload(sw, a.rate, a.seconds)
                fwd = [x["forwarded_pps"] for x in rows]
                cpu = [x["cpu_s"] for x in rows]
                run = {"round": r, "switches": n, "idle_cpu_pct": idle_pct, "overload": rows,
                       "jain_forwarded": rnd(jain(fwd)), "jain_cpu": rnd(jain(cpu)),
                       "loadavg": loadavg()}
                results["runs"].append(run)
                print(f"round {r}, {n} switches (load {run['loadavg'][0]}): idle CPU "
                      + ", ".join(f"{x:.2f}" for x in idle_pct) + " % of a core")
                for x in rows:
                    print(f"    {x['switch']}: forwarded {x['forwarded_pps']:>9,} pps, CPU {x['cpu_s']:6.2f} s, "
                          f"{x['cpu_ns_per_frame'] or 0:>6,} ns/frame (generator sent {x['achieved_pps']:,.0f} pps)")
                print(f"    Jain's index: forwarded {show(run['jain_forwarded'], 'nothing forwarded')}, "
                      f"CPU {show(run['jain_cpu'], 'no CPU used')}", flush=True)
    print("summary (median of rounds, range):")
    for n in counts:
        rs = [x for x in results["runs"] if x["switches"] == n]
        jf, jc = [x["jain_forwarded"] for x in rs], [x["jain_cpu"] for x in rs]
        idle_max = max(max(x["idle_cpu_pct"]) for x in rs)
        fwd = [sum(y["forwarded_pps"] for y in x["overload"]) for x in rs]
        print(f"  {n} switches: Jain forwarded {spread(jf, 'nothing forwarded')}, "
              f"CPU {spread(jc, 'no CPU used')}; all together forwarded "
              f"{statistics.median(fwd):,.0f} pps; idle: at most {idle_max:.2f} % of a core per switch")
    print(f"load average at end: {' '.join(loadavg())}")
    if a.json:
        save_json(a.json, results, m)
        print(f"results: {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
