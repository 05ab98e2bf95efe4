#!/usr/bin/env python3
"""Random and mutated frames through vrouter.p4 as the controller configures it.

Runs the `fuzz_frames` example of the P4Runtime server crate: a switch with no
ports that serves P4Runtime, configured by `vrouter apply` from the full
example description of docs/controller.md (VLANs, access and trunk ports,
routes with ECMP, ACL, policers, MPLS LSPs, VPLS) with build/vrouter.json
(`make build-p4`), then the frames in-process. Prints the run's coverage
(fuzz/frame_coverage.py): parser states, tables, table x action pairs,
branches and drop reasons reached out of vrouter.p4's, executions and exec/s.
Exit status 0 only if the controller configured the switch and no frame
crashed, hung or misbehaved; findings are kept in build/fuzz/.

    .venv/bin/python fuzz/frames.py --frames 100000 --seed 1
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import frame_coverage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "examples" / "fuzz_frames",
                    help="the fuzz_frames example (cargo build --release -p p4runtime-server --example fuzz_frames)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole run")
    ap.add_argument("--verbose", action="store_true", help="also list the points of every kind not reached")
    args = ap.parse_args(argv)
    bmv2 = ROOT / "build" / "vrouter.json"
    for need, how in ((args.binary, "cargo build --release -p p4runtime-server --example fuzz_frames"),
                      (bmv2, "make build-p4")):
        if not need.exists():
            print(f"frames: {need} is missing: run {how}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="fuzz-frames-") as tmp:
        tmpd = Path(tmp)
        cov = tmpd / "coverage.txt"
        try:
            done = subprocess.run([str(args.binary), "--frames", str(args.frames), "--seed", str(args.seed),
                                   "--cpu-port", "255", "--coverage", str(cov)], cwd=tmp, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"frames: no result after {args.timeout:.0f} s", file=sys.stderr)
            return 1
        for f in tmpd.glob("fuzz-frame-*.bin"):
            keep = ROOT / "build" / "fuzz" / f.name
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_bytes(f.read_bytes())
            print(f"frames: finding kept as {keep}")
        if cov.exists():
            print(frame_coverage.report(cov, bmv2, args.verbose), flush=True)
        elif done.returncode == 0:
            print("frames: fuzz_frames wrote no coverage", file=sys.stderr)
            return 2
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
