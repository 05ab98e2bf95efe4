"""Shared command-line options and the DUT runner of the scenario scripts."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .dut import LinuxKernel, OvsNetdev, P4Switch
from .netns import BenchError
from .rfc2544 import Settings

DUTS = {"p4switch": P4Switch, "linux": LinuxKernel, "ovs": OvsNetdev}


def parser(doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    ap.add_argument("--quick", action="store_true", help="short trials, few sizes: a few minutes on a busy machine")
    ap.add_argument("--trial-seconds", type=float, help="length of one trial (default 10, quick 0.5)")
    ap.add_argument("--resolution", type=float, help="binary search stops at this fraction (default 0.01, quick 0.1)")
    ap.add_argument("--loss-tolerance", type=float, default=0.0, help="accepted loss fraction (default 0)")
    ap.add_argument("--line-mbps", type=float, default=1000.0, help="nominal line rate for percentages (default 1000)")
    ap.add_argument("--duts", default="p4switch,linux,ovs", help="comma list of p4switch, linux, ovs "
                    "(p4switch runs $SWITCH when set, e.g. simple_switch_grpc)")
    ap.add_argument("--prefix", default="h10", help="prefix of namespace and interface names (default h10)")
    ap.add_argument("--out", type=Path, help="results base directory (default bench/results)")
    return ap


def settings(args) -> Settings:
    q = args.quick
    return Settings(trial_seconds=args.trial_seconds or (0.5 if q else 10.0),
                    resolution=args.resolution or (0.1 if q else 0.01),
                    loss_tolerance=args.loss_tolerance, line_bps=args.line_mbps * 1e6)


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


def main_guard(fn) -> int:
    try:
        return fn()
    except BenchError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
