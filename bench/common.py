"""Shared command-line options and the DUT runner of the scenario scripts."""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict
from pathlib import Path

from . import rfc2544
from .dut import LinuxKernel, OvsNetdev, P4Switch
from .netns import BenchError
from .rfc2544 import Flow, Search, Settings

DUTS = {"p4switch": P4Switch, "linux": LinuxKernel, "ovs": OvsNetdev}


def output_options(ap: argparse.ArgumentParser, json_file: bool = True) -> None:
    """--json FILE and --pcap DIR, as every benchmark takes them (issue 19 Must 5)."""
    if json_file:
        ap.add_argument("--json", type=Path, metavar="FILE",
                        help="also write the results (with the machine, load average and git revision) to FILE")
    ap.add_argument("--pcap", type=Path, metavar="DIR",
                    help="capture every port of the run (hosts' and switch's interfaces) during its first trial "
                         "into DIR/<namespace>-<interface>.pcap")


def parser(doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    prof = ap.add_mutually_exclusive_group()
    prof.add_argument("--quick", action="store_true", help="short trials, few points: a few minutes on a busy machine")
    prof.add_argument("--standard", action="store_true",
                      help="every point the study asks for, shorter trials and coarser searches (`make bench`: "
                           "all five scenarios in about 30 minutes on 2 cores; see bench/README.md)")
    prof.add_argument("--full", action="store_true",
                      help="the study's method: its trial length and repetitions, medians with min-max (the default "
                           "when no profile is given; hours)")
    ap.add_argument("--repetitions", type=int,
                    help="runs of each point, reported as median and min-max (default: the study's under --full, "
                         "else 1)")
    output_options(ap)
    ap.add_argument("--trial-seconds", type=float, help="length of one trial (default 10, standard 2, quick 0.5)")
    ap.add_argument("--resolution", type=float,
                    help="binary search stops at this fraction (default 0.01, standard 0.02, quick 0.1)")
    ap.add_argument("--loss-tolerance", type=float, default=0.0, help="accepted loss fraction (default 0)")
    ap.add_argument("--line-mbps", type=float, default=1000.0, help="nominal line rate for percentages (default 1000)")
    ap.add_argument("--duts", default="p4switch,linux,ovs", help="comma list of p4switch, linux, ovs "
                    "(p4switch runs $SWITCH when set, e.g. simple_switch_grpc)")
    ap.add_argument("--prefix", default="h10", help="prefix of namespace and interface names (default h10)")
    ap.add_argument("--out", type=Path, help="results base directory (default bench/results)")
    return ap


def profile(args) -> str:
    """quick, standard or full (no profile option)."""
    return "quick" if args.quick else "standard" if getattr(args, "standard", False) else "full"


def repetitions(args, study: int) -> int:
    """Runs per point: --repetitions, else the study's count under the full profile, else 1."""
    if args.repetitions is not None:
        if args.repetitions < 1:
            raise BenchError("--repetitions: at least 1")
        return args.repetitions
    return study if profile(args) == "full" else 1


def pick(args, full, standard, quick):
    """The value of the run's profile."""
    return {"full": full, "standard": standard, "quick": quick}[profile(args)]


def profile_note(args) -> str:
    """Report suffix naming the profile (nothing for a full run)."""
    return {"full": "", "standard": " (--standard profile)", "quick": " (--quick)"}[profile(args)]


def settings(args) -> Settings:
    return Settings(trial_seconds=args.trial_seconds or pick(args, 10.0, 2.0, 0.5),
                    resolution=args.resolution or pick(args, 0.01, 0.02, 0.1),
                    loss_tolerance=args.loss_tolerance, line_bps=args.line_mbps * 1e6,
                    pause=pick(args, 0.3, 0.1, 0.3))


def throughput_from(flows: list[Flow], frame: int, st: Settings, seed_pps: float | None,
                    progress=print, step: float | None = None) -> Search:
    """RFC 2544 throughput (highest rate with loss <= tolerance) searched from a guess:
    the first trial is at `seed_pps` (e.g. the previous frame size's result), then the rate
    moves up or down in steps that start at the resolution and double until a pass and a
    fail bracket the answer, which is then bisected to the resolution (two trials when the
    seed is within the resolution of the answer). Same trial rules as rfc2544.throughput (a trial whose
    generator sent more than 2 % short does not pass; with no loss it marks the result
    generator-limited and caps the search at what the generator did send). Without a
    seed this is rfc2544.throughput."""
    if not seed_pps:
        return rfc2544.throughput(flows, frame, st, progress=progress)
    res = Search(frame)
    top = min(rfc2544.line_rate_pps(frame, st.line_bps), st.max_pps)
    lo, hi = 0.0, top

    def ok(rate: float) -> bool:
        nonlocal hi
        try:
            t = rfc2544.trial(flows, frame, rate, st.trial_seconds)
        except BenchError as e:
            if "did not finish" not in str(e):
                raise
            # the DUT forwards so slowly in the sender's kernel context that the sender could
            # not finish: far above what it can take, a fail
            res.trials.append({"offered_pps": rate, "achieved_pps": 0.0, "sent": 0, "received": 0, "lost": 0,
                               "passed": False, "timed_out": True})
            progress(f"    {frame:5d} B  {rate:10.0f} pps offered: the trial did not finish ({e}), fail")
            hi = min(hi, rate)
            time.sleep(st.pause)
            return False
        short = t.achieved_pps < 0.98 * t.offered_pps
        passed = t.loss_ratio <= st.loss_tolerance and not short
        res.trials.append({**asdict(t), "passed": passed, "generator_short": short})
        progress(f"    {frame:5d} B  {rate:10.0f} pps offered, {t.achieved_pps:10.0f} sent/s, "
                 f"loss {100 * t.loss_ratio:6.2f} %  {'pass' if passed else 'fail'}")
        time.sleep(st.pause)
        if passed:
            return True
        hi = min(hi, rate)
        if short and t.loss_ratio <= st.loss_tolerance:
            res.generator_limited = True
            hi = min(hi, t.achieved_pps * 0.97)
        return False

    rate, grow = min(seed_pps, top), step or st.resolution
    if ok(rate):                              # climb until a fail or the top
        lo = rate
        while lo < top:
            rate = min(top, lo * (1 + grow))
            if not ok(rate):
                break
            lo, grow = rate, grow * 2
    else:                                     # descend until a pass
        while hi > 0:
            rate = hi * (1 - grow)
            if rate < top * 0.001:
                break
            if ok(rate):
                lo = rate
                break
            grow = min(0.5, grow * 2)
    while lo < hi and hi - lo > st.resolution * hi:
        mid = (lo + hi) / 2
        if ok(mid):
            lo = mid
    res.throughput_pps = lo
    res.throughput_mbps = rfc2544.mbps(lo, frame)
    return res


def choose(value: str, allowed, option: str) -> list[str]:
    """The comma list `value` of option `option`, each item one of `allowed`."""
    items = [v.strip() for v in value.split(",") if v.strip()]
    if any(v not in allowed for v in items):
        raise BenchError(f"{option}: choose from {', '.join(allowed)}")
    return items


def dut_names(args) -> list[str]:
    names = [n.strip() for n in args.duts.split(",") if n.strip()]
    bad = [n for n in names if n not in DUTS]
    if bad:
        raise BenchError(f"unknown DUT {', '.join(bad)} (choose from {', '.join(DUTS)})")
    if "ovs" in names and not OvsNetdev.available():
        print("note: Open vSwitch is not installed; skipping the ovs baseline", flush=True)
        names.remove("ovs")
    return names


def say(msg: str) -> None:
    print(msg, flush=True)


class Progress:
    """`SN [k/n] what (elapsed, about M min left)` lines: the time left is the mean time of the
    steps so far times the steps to go (bench.all reads these lines for its total)."""

    def __init__(self, scenario: str, total: int):
        self.scenario, self.total, self.done, self.t0 = scenario, max(total, 1), 0, time.monotonic()

    def step(self, what: str) -> None:
        elapsed = time.monotonic() - self.t0
        left = (f", about {elapsed / self.done * (self.total - self.done) / 60:.1f} min left"
                if self.done else "")
        self.done += 1
        say(f"{self.scenario} [{self.done}/{self.total}] {what} ({elapsed:.0f} s elapsed{left})")


def main_guard(fn) -> int:
    try:
        return fn()
    except BenchError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
