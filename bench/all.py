"""`make bench`: every scenario in turn within a time budget, then docs/results.md.

    python -m bench.all [--quick] [--budget-minutes M] [--scenarios s1,s2,s3,s4,s5]

Scenarios run one after another (each in its own process, output passed through); once
the budget is used up the remaining ones are skipped and listed. Finally bench.summary
refreshes docs/results.md from the newest run of each scenario.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALL = ("s1", "s2", "s3", "s4", "s5")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget-minutes", type=float, default=0, help="0: no limit")
    ap.add_argument("--scenarios", default=",".join(ALL))
    args = ap.parse_args()
    chosen = [s for s in args.scenarios.split(",") if s]
    bad = [s for s in chosen if s not in ALL]
    if bad:
        print(f"bench: error: unknown scenario {', '.join(bad)} (choose from {', '.join(ALL)})", file=sys.stderr)
        return 2
    t0, failed, skipped = time.monotonic(), [], []
    for sc in chosen:
        used = (time.monotonic() - t0) / 60
        if args.budget_minutes and used >= args.budget_minutes:
            skipped.append(sc)
            continue
        print(f"== bench {sc} ({used:.1f} min used)", flush=True)
        rc = subprocess.run([sys.executable, "-m", f"bench.{sc}"] + (["--quick"] if args.quick else []),
                            cwd=ROOT).returncode
        if rc:
            failed.append(sc)
    subprocess.run([sys.executable, "-m", "bench.summary"], cwd=ROOT)
    if skipped:
        print(f"bench: budget used up, skipped {', '.join(skipped)}")
    if failed:
        print(f"bench: {', '.join(failed)} failed (see above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
