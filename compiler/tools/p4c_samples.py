#!/usr/bin/env python3
"""Valid programs that a compiler change must not newly refuse (a development aid, not a test).

Compiles, in-process with the p4compile found under --compiler (default: this checkout's),
p4c's valid samples (`testdata/p4_16_samples/*.p4`, each from its own folder) and the public
programs people bring, with the flags their own builds pass: the 12 p4lang/tutorials
solutions (`--p4v 16`), the 4 SAI-P4 instantiations of sonic-pins (`--arch v1model`),
fabric-tna's v1model program and its TNA program (front end only) in 4 profiles each
(plain, -DWITH_INT, -DWITH_UPF, both). Each program's verdict is "OK" or its first error.

With --baseline (the JSON of an earlier run, e.g. of the commit before the change, made
with --compiler on an exported copy), prints every program whose verdict changed and calls
it a NEW REFUSAL when the baseline compiled it, or refused it only for not being a
`V1Switch` program, and the new verdict is another error.

Usage: .venv/bin/python compiler/tools/p4c_samples.py --p4c P4C_CHECKOUT --ext EXT_DIR
           [--compiler DIR] [--baseline OLD.json] [-j N] OUT.json
Exit status: 1 when there is a new refusal, 0 otherwise.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import sys
import tempfile
from multiprocessing import Pool
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROFILES = ([], ["-DWITH_INT"], ["-DWITH_UPF"], ["-DWITH_UPF", "-DWITH_INT"])
# refusals that say only that the program is outside what p4compile lowers
NOT_V1SWITCH = ("program has no 'main' package instantiation", "only v1model's V1Switch")


def programs(p4c: str, ext: str) -> list[tuple[str, list[str]]]:
    """(path, extra options) of every program to compile."""
    jobs = [(p, []) for p in sorted(glob.glob(os.path.join(p4c, "testdata", "p4_16_samples", "*.p4")))]
    fabric = os.path.join(ext, "fabric-tna", "p4src")
    for d in PROFILES:
        jobs.append((os.path.join(fabric, "v1model", "fabric_v1model.p4"), ["--arch", "v1model", "-I", fabric] + d))
        jobs.append((os.path.join(fabric, "tna", "fabric_tna.p4"),
                     ["--arch", "tna", "-I", fabric, "-I", os.path.join(fabric, "tna")] + d))
    for n in ("middleblock", "tor", "fabric_border_router", "wbb"):
        jobs.append((os.path.join(ext, "sonic-pins", "sai_p4", "instantiations", "google", f"{n}.p4"),
                     ["--arch", "v1model"]))
    jobs += [(p, ["--p4v", "16"]) for p in sorted(glob.glob(os.path.join(ext, "tutorials", "exercises", "*",
                                                                         "solution", "*.p4")))]
    return [(p, extra) for p, extra in jobs if os.path.isfile(p)]


def compile_one(job: tuple[str, list[str]]) -> tuple[str, str]:
    """(program and options, "OK" or its first error line), compiled from its own folder."""
    from p4compiler import cli
    path, extra = job
    err = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="p4c-samples-") as tmp:
        os.chdir(os.path.dirname(path))
        front_end_only = "tna" in extra      # --arch tna: type-checked only, no output files
        outputs = [] if front_end_only else ["-o", os.path.join(tmp, "out.json"),
                                             "--p4runtime-files", os.path.join(tmp, "out.p4info.txtpb")]
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = cli.main([path, *extra, *outputs])
    errors = [line for line in err.getvalue().splitlines() if "error" in line]
    return " ".join([path, *extra]), "OK" if rc == 0 else (errors[0] if errors else err.getvalue()[:200])


def compared(now: dict, base: dict) -> list[str]:
    """One line per program whose verdict changed, NEW REFUSAL first."""
    def fine(v):
        return v == "OK" or any(s in v for s in NOT_V1SWITCH)
    new, changed = [], []
    for key, v in now.items():
        b = base.get(key)
        if b is None or b == v:
            continue
        if fine(b) and not fine(v):
            new.append(f"NEW REFUSAL {key}\n   was: {b}\n   now: {v}")
        else:
            changed.append(f"changed {key}\n   was: {b}\n   now: {v}")
    return new + changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="write {program and options: verdict} here (JSON)")
    ap.add_argument("--p4c", required=True, help="a p4c checkout (its testdata/p4_16_samples)")
    ap.add_argument("--ext", required=True, help="the folder holding fabric-tna, sonic-pins and tutorials")
    ap.add_argument("--compiler", default=str(HERE.parent), help="the folder holding the p4compiler package")
    ap.add_argument("--baseline", default="", help="an earlier run's JSON to compare with")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.compiler))
    jobs = programs(args.p4c, args.ext)
    with Pool(args.jobs, maxtasksperchild=50) as pool:
        now = dict(pool.map(compile_one, jobs, chunksize=8))
    Path(args.out).write_text(json.dumps(now, indent=0))
    print(f"p4c_samples: {sum(v == 'OK' for v in now.values())} of {len(now)} compile")
    if not args.baseline:
        return 0
    lines = compared(now, json.loads(Path(args.baseline).read_text()))
    print("\n".join(lines) if lines else "no verdict changed")
    return 1 if any(x.startswith("NEW REFUSAL") for x in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
