"""`make bench`: every scenario in turn within a time budget, then docs/results.md.

    python -m bench.all [--quick|--standard] [--budget-minutes M] [--scenarios s1,s2,s3,s4,s5]

--standard (what `make bench` runs) gives every scenario the points its study asks for with
shorter trials: about 30 minutes for all five on the 2-core development VM (bench/README.md).

Scenarios run one after another (each in its own process, output passed through); once
the budget is used up the remaining ones are skipped and listed. Progress: before each
scenario, and at every `SN [k/n]` step line a scenario prints, a `bench: ... left` line with
the time left in total: the running scenario's own estimate (its steps so far) plus the
measured durations of the scenarios still to come (ESTIMATE_MINUTES, scaled by how the
finished ones compared with their estimates). Finally bench.summary refreshes
docs/results.md from the newest run of each scenario. The minutes each scenario took are
printed at the end.
"""
from __future__ import annotations

import argparse
import os
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from .report import QUIET_LOAD

ROOT = Path(__file__).resolve().parent.parent
ALL = ("s1", "s2", "s3", "s4", "s5")
# minutes per scenario on the 2-core development VM (bench/README.md, "Profiles"): standard
# measured 2026-11-21; quick from smoke runs; full from the trial counts (hours: a quiet machine)
ESTIMATE_MINUTES = {
    "quick": {"s1": 3.0, "s2": 2.0, "s3": 1.5, "s4": 1.5, "s5": 3.0},
    "standard": {"s1": 9.4, "s2": 11.5, "s3": 2.2, "s4": 3.5, "s5": 10.6},
    "full": {"s1": 480.0, "s2": 180.0, "s3": 12.0, "s4": 12.0, "s5": 420.0},
}
STEP = re.compile(r"^S\d \[(\d+)/(\d+)\]")


class TimeLeft:
    """Minutes left in a `make bench`: the running scenario by its steps, the rest by estimate."""

    def __init__(self, chosen: list[str], profile: str):
        self.todo, self.est, self.ratio = list(chosen), ESTIMATE_MINUTES[profile], 1.0
        self.took: dict[str, float] = {}

    def start(self, sc: str) -> None:
        self.sc, self.t0, self.frac = sc, time.monotonic(), 0.0
        self.todo.remove(sc)

    def step(self, k: int, n: int) -> None:
        self.frac = (k - 1) / n

    def finish(self) -> float:
        minutes = (time.monotonic() - self.t0) / 60
        self.took[self.sc] = minutes
        done = [s for s in self.took if self.est.get(s)]
        if done:
            self.ratio = sum(self.took[s] for s in done) / sum(self.est[s] for s in done)
        return minutes

    def minutes(self) -> float:
        elapsed = (time.monotonic() - self.t0) / 60
        current = (elapsed / self.frac - elapsed) if self.frac > 0 else max(0.0, self.est[self.sc] * self.ratio - elapsed)
        return current + sum(self.est[s] for s in self.todo) * self.ratio


def settle(limit_s: float) -> None:
    """Wait (at most `limit_s`) for the 1-minute load average to fall to report.QUIET_LOAD, so that a
    scenario does not start inside the previous one's load and its report need not warn about it."""
    t0 = time.monotonic()
    if os.getloadavg()[0] <= QUIET_LOAD or limit_s <= 0:
        return
    print(f"bench: waiting up to {limit_s:.0f} s for the load average ({os.getloadavg()[0]:.2f}) to fall to "
          f"{QUIET_LOAD}", flush=True)
    while os.getloadavg()[0] > QUIET_LOAD and time.monotonic() - t0 < limit_s:
        time.sleep(5)
    print(f"bench: load average {os.getloadavg()[0]:.2f} after {time.monotonic() - t0:.0f} s", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    prof = ap.add_mutually_exclusive_group()
    prof.add_argument("--quick", action="store_true", help="each scenario's --quick")
    prof.add_argument("--standard", action="store_true", help="each scenario's --standard (make bench)")
    ap.add_argument("--budget-minutes", type=float, default=0, help="0: no limit")
    ap.add_argument("--settle-seconds", type=float, default=180,
                    help=f"before each scenario, wait up to this long for the load average to fall to {QUIET_LOAD}")
    ap.add_argument("--scenarios", default=",".join(ALL))
    ap.add_argument("--out", type=Path, help="results base directory of the scenarios (default bench/results)")
    ap.add_argument("--doc", type=Path, help="summary file (default docs/results.md)")
    ap.add_argument("--prefix", help="prefix of namespace and interface names (each scenario's default: h10)")
    ap.add_argument("--pcap", type=Path, metavar="DIR", help="each scenario's --pcap DIR/sN (captures of one trial)")
    ap.add_argument("--json", type=Path, metavar="FILE",
                    help="one file with every scenario's results (each scenario's --json, gathered)")
    args = ap.parse_args()
    chosen = [s for s in args.scenarios.split(",") if s]
    bad = [s for s in chosen if s not in ALL]
    if bad:
        print(f"bench: error: unknown scenario {', '.join(bad)} (choose from {', '.join(ALL)})", file=sys.stderr)
        return 2
    t0, failed, skipped = time.monotonic(), [], []
    left = TimeLeft(chosen, "quick" if args.quick else "standard" if args.standard else "full")
    flag = ["--quick"] if args.quick else ["--standard"] if args.standard else []
    flag += ["--out", str(args.out)] if args.out else []
    flag += ["--prefix", args.prefix] if args.prefix else []
    for sc in chosen:
        used = (time.monotonic() - t0) / 60
        if args.budget_minutes and used >= args.budget_minutes:
            skipped.append(sc)
            continue
        settle(args.settle_seconds)
        left.start(sc)
        print(f"== bench {sc} [{chosen.index(sc) + 1}/{len(chosen)}] ({used:.1f} min used, about "
              f"{left.minutes():.1f} min left)", flush=True)
        extra = ["--pcap", str(args.pcap / sc)] if args.pcap else []
        extra += ["--json", str(args.json.with_name(f"{args.json.stem}-{sc}.json"))] if args.json else []
        p = subprocess.Popen([sys.executable, "-m", f"bench.{sc}", *flag, *extra], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, bufsize=1)
        for line in p.stdout:
            print(line, end="", flush=True)
            m = STEP.match(line)
            if m:
                left.step(int(m.group(1)), int(m.group(2)))
                print(f"bench: {sc} step {m.group(1)}/{m.group(2)}, {(time.monotonic() - t0) / 60:.1f} min used, "
                      f"about {left.minutes():.1f} min left in all", flush=True)
        if p.wait():
            failed.append(sc)
        left.finish()
    if args.json:
        parts = {sc: args.json.with_name(f"{args.json.stem}-{sc}.json") for sc in left.took}
        args.json.write_text(json.dumps({sc: json.loads(f.read_text()) for sc, f in parts.items() if f.exists()},
                                        indent=1))
        for f in parts.values():
            f.unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "bench.summary", *(["--results", str(args.out)] if args.out else []),
                    *(["--doc", str(args.doc)] if args.doc else [])], cwd=ROOT)
    print("bench: minutes per scenario: " + ", ".join(f"{sc} {m:.1f}" for sc, m in left.took.items())
          + f"; total {(time.monotonic() - t0) / 60:.1f}")
    if skipped:
        print(f"bench: budget used up, skipped {', '.join(skipped)}")
    if failed:
        print(f"bench: {', '.join(failed)} failed (see above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
