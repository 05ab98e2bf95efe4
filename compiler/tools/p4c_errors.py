#!/usr/bin/env python3
"""Where p4compile and p4c disagree on bad programs (a development aid, not a test).

Runs `p4compile` and the reference compilers (`p4test`, p4c's front and mid end, and/or
`p4c-bm2-ss`, which adds the BMv2 back end) over every `.p4` file of the given folders,
e.g. p4c's own error corpus `testdata/p4_16_errors` and `testdata/p4_16_bmv_errors`, and
reports each program that one refuses and the other accepts, with both first error lines.

p4test is run as p4c's own test driver runs it (`--arch v1model` when the program includes
v1model.p4, `--p4runtime-files`, `--maxErrorCount 100`), p4c-bm2-ss plainly. A program
counts as refused by the references when any reference given refuses it. Without any
reference, the folders are taken to hold only bad programs (p4c's error corpus: its tests
expect an error, though a few of them only warn).

A refusal of ours that is only "no main" or "not v1model's V1Switch" is counted apart: our
checker found nothing wrong, the program is merely outside what p4compile compiles. A crash (traceback, internal error, timeout) is never a refusal.

Usage: .venv/bin/python compiler/tools/p4c_errors.py [--p4test P] [--p4c-bm2-ss P]
           [--p4compile P] [-j N] [--report FILE] [--json FILE] [-k SUBSTR] DIR...
Exit status: 0 when there is no disagreement in the refusing direction and no crash, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from p4stf.toolout import first_error  # shared with the p4stf corpus report (installed in .venv)

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60   # seconds per compiler run; a hang is reported as a crash

# Our refusals that are not a front-end check p4c makes (the program is outside what we
# compile at all): counted apart so that "refused" means refused for a reason.
OTHER_REASON = re.compile(r"program has no 'main' package instantiation|unsupported: package .*only v1model's V1Switch")


@dataclass
class Verdict:
    verdict: str          # "accepted", "refused" or "crash"
    first: str            # the first error line (or the crash's), "" when accepted


@dataclass
class Row:
    program: str
    ours: Verdict
    refs: dict            # tool name -> Verdict


def run(cmd: list[str], cwd: str) -> tuple[int | None, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=TIMEOUT)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return None, f"timeout after {TIMEOUT} s"


def judge(rc: int | None, out: str, crash_marks: tuple[str, ...]) -> Verdict:
    """A crash is a signal, a timeout, or a crash mark before any error of the program's
    (p4c may report a proper error and then trip over it: that is a refusal)."""
    marks = [out.find(m) for m in crash_marks if m in out]
    proper = re.search(r"\berror:", out[:min(marks)] if marks else out)
    if rc is None or rc < 0 or (marks and not proper):
        return Verdict("crash", first_error(out) or f"exit status {rc}")
    if rc == 0:
        return Verdict("accepted", "")
    return Verdict("refused", first_error(out))


def uses_v1model(path: Path) -> bool:
    try:
        return re.search(r"include.*v1model\.p4", path.read_text(errors="replace")) is not None
    except OSError:
        return False


def check_one(path: Path, args, tmp: str) -> Row:
    cwd = str(path.parent)
    stem = f"{abs(hash(str(path))):x}-{path.stem}"    # two folders may hold the same name
    rc, out = run([*args.p4compile, str(path), "-o", os.path.join(tmp, stem + ".json"),
                   "--p4runtime-files", os.path.join(tmp, stem + ".p4info.txt")], cwd)
    ours = judge(rc, out, ("Traceback", "internal error"))
    refs = {}
    if args.p4test:
        cmd = [args.p4test, "--maxErrorCount", "100", "--p4runtime-files", os.path.join(tmp, stem + ".ref.txt")]
        if uses_v1model(path):
            cmd += ["--arch", "v1model"]
        rc, out = run(cmd + [str(path)], cwd)
        refs["p4test"] = judge(rc, out, ("Compiler Bug",))
    if args.p4c_bm2_ss:
        rc, out = run([args.p4c_bm2_ss, str(path), "-o", os.path.join(tmp, stem + ".ref.json")], cwd)
        refs["p4c-bm2-ss"] = judge(rc, out, ("Compiler Bug",))
    return Row(str(path), ours, refs)


def reference_refuses(row: Row) -> bool | None:
    """True/False as the references judge the program; None if one of them crashed."""
    if not row.refs:
        return True
    if any(v.verdict == "crash" for v in row.refs.values()):
        return None
    return any(v.verdict == "refused" for v in row.refs.values())


def classify(row: Row) -> str:
    ref = reference_refuses(row)
    if row.ours.verdict == "crash":
        return "p4compile crashed"
    if ref is None:
        return "reference crashed"
    if ref and row.ours.verdict == "accepted":
        return "only p4c refuses"
    if not ref and row.ours.verdict == "refused":
        return "only p4compile refuses"
    if ref and OTHER_REASON.search(row.ours.first):
        return "both refuse (ours: not a V1Switch program)"
    return "both refuse" if ref else "both accept"


CLASSES = ("both refuse", "both refuse (ours: not a V1Switch program)", "only p4c refuses",
           "only p4compile refuses", "both accept", "p4compile crashed", "reference crashed")


def report(rows: list[Row], args, seconds: float) -> str:
    counts = {c: 0 for c in CLASSES}
    for r in rows:
        counts[classify(r)] += 1
    refs = ", ".join(n for n, on in (("p4test", args.p4test), ("p4c-bm2-ss", args.p4c_bm2_ss)) if on) \
        or "none (every program taken as bad)"
    lines = [f"# p4compile against p4c on {', '.join(args.dirs)}", "",
             f"{len(rows)} programs, references: {refs}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{seconds:.0f} s, load average {os.getloadavg()[0]:.1f}", "",
             "| class | programs |", "|---|---:|"]
    lines += [f"| {c} | {n} |" for c, n in counts.items() if n or c in CLASSES[:4]]
    for cls in ("only p4c refuses", "only p4compile refuses", "p4compile crashed", "reference crashed",
                "both refuse (ours: not a V1Switch program)"):
        hits = [r for r in rows if classify(r) == cls]
        if not hits:
            continue
        lines += ["", f"## {cls}", ""]
        for r in hits:
            lines.append(f"- `{Path(r.program).parent.name}/{Path(r.program).name}`")
            if r.ours.first:
                lines.append(f"  - p4compile: {r.ours.first}")
            for name, v in r.refs.items():
                if v.first:
                    lines.append(f"  - {name}: {v.first}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="folders of .p4 programs (not searched recursively)")
    ap.add_argument("--p4compile", default=str(ROOT / ".venv" / "bin" / "p4compile"),
                    help="our compiler (a command line; default the project's)")
    ap.add_argument("--p4test", default="", help="p4c's p4test (front and mid end)")
    ap.add_argument("--p4c-bm2-ss", dest="p4c_bm2_ss", default="", help="p4c's BMv2 compiler")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-k", dest="filter", default="", help="only programs whose name contains this")
    ap.add_argument("--report", default="", help="write the Markdown report here (default: print it)")
    ap.add_argument("--json", default="", help="write every verdict here")
    args = ap.parse_args(argv)
    args.p4compile = args.p4compile.split()
    programs = sorted(p for d in args.dirs for p in Path(d).glob("*.p4") if args.filter in p.name)
    if not programs:
        print(f"p4c_errors: no .p4 programs in {' '.join(args.dirs)}", file=sys.stderr)
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="p4c-errors-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda p: check_one(p, args, tmp), programs))
    text = report(rows, args, time.monotonic() - started)
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        Path(args.report).write_text(text)
        print("\n".join(text.splitlines()[:14]))
        print(f"report: {args.report}")
    else:
        print(text, end="")
    if args.json:
        Path(args.json).write_text(json.dumps([{**asdict(r), "class": classify(r)} for r in rows], indent=1))
    bad = [r for r in rows if classify(r) in ("only p4c refuses", "p4compile crashed")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
