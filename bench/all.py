"""`make bench`: every scenario in turn within a time budget, then docs/results.md.

    python -m bench.all [--quick|--standard] [--budget-minutes M] [--scenarios s1,s2,s3,s4,s5]

--standard (what `make bench` runs) gives every scenario the points its study asks for with
shorter trials: about 30 minutes for all five on the 2-core development VM (bench/README.md).

Scenarios run one after another (each in its own process, output passed through); once
the budget is used up the remaining ones are skipped and listed. Finally bench.summary
refreshes docs/results.md from the newest run of each scenario. The minutes each scenario
took are printed at the end.
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
    prof = ap.add_mutually_exclusive_group()
    prof.add_argument("--quick", action="store_true", help="each scenario's --quick")
    prof.add_argument("--standard", action="store_true", help="each scenario's --standard (make bench)")
    ap.add_argument("--budget-minutes", type=float, default=0, help="0: no limit")
    ap.add_argument("--scenarios", default=",".join(ALL))
    ap.add_argument("--out", type=Path, help="results base directory of the scenarios (default bench/results)")
    ap.add_argument("--doc", type=Path, help="summary file (default docs/results.md)")
    ap.add_argument("--prefix", help="prefix of namespace and interface names (each scenario's default: h10)")
    args = ap.parse_args()
    chosen = [s for s in args.scenarios.split(",") if s]
    bad = [s for s in chosen if s not in ALL]
    if bad:
        print(f"bench: error: unknown scenario {', '.join(bad)} (choose from {', '.join(ALL)})", file=sys.stderr)
        return 2
    t0, failed, skipped, took = time.monotonic(), [], [], {}
    flag = ["--quick"] if args.quick else ["--standard"] if args.standard else []
    flag += ["--out", str(args.out)] if args.out else []
    flag += ["--prefix", args.prefix] if args.prefix else []
    for sc in chosen:
        used = (time.monotonic() - t0) / 60
        if args.budget_minutes and used >= args.budget_minutes:
            skipped.append(sc)
            continue
        print(f"== bench {sc} [{chosen.index(sc) + 1}/{len(chosen)}] ({used:.1f} min used)", flush=True)
        t1 = time.monotonic()
        rc = subprocess.run([sys.executable, "-m", f"bench.{sc}", *flag], cwd=ROOT).returncode
        took[sc] = (time.monotonic() - t1) / 60
        if rc:
            failed.append(sc)
    subprocess.run([sys.executable, "-m", "bench.summary", *(["--results", str(args.out)] if args.out else []),
                    *(["--doc", str(args.doc)] if args.doc else [])], cwd=ROOT)
    print("bench: minutes per scenario: " + ", ".join(f"{sc} {m:.1f}" for sc, m in took.items())
          + f"; total {(time.monotonic() - t0) / 60:.1f}")
    if skipped:
        print(f"bench: budget used up, skipped {', '.join(skipped)}")
    if failed:
        print(f"bench: {', '.join(failed)} failed (see above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
