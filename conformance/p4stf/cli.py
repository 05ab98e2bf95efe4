"""Command line: `p4stf PROG.p4 PROG.stf` or `p4stf --all DIR` (one area per subfolder)."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

from .runner import FAIL, NOT_RUN, PASS, Options, Result, run_case_on_each

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))


class _QuietPipe:
    """stdout that stops writing (instead of raising) once the reader has gone away,
    so `p4stf ... | head` still stops every switch it started."""

    def __init__(self, out):
        self._out = out
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._out.write(text)
            except BrokenPipeError:
                self._gone = True
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._out.flush()
            except BrokenPipeError:
                self._gone = True


def _default_p4c() -> str:
    env = os.environ.get("P4C")
    if env:
        return env
    venv = os.path.join(os.path.dirname(sys.executable), "p4compile")
    return venv if os.path.exists(venv) else (shutil.which("p4compile") or "p4compile")


def _default_switch() -> str:
    env = os.environ.get("SWITCH")
    if env:
        return env
    built = os.path.join(_REPO, "target", "release", "p4switch")
    return built if os.path.exists(built) else (shutil.which("p4switch") or "p4switch")


def discover(root: str) -> list[tuple[str, str, str, str]]:
    """(area, name, p4, stf) for every NAME.stf with a NAME.p4 beside it under root."""
    cases = []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".stf"):
                continue
            stem = f[:-4]
            p4 = os.path.join(d, stem + ".p4")
            rel = os.path.relpath(d, root)
            area = rel.split(os.sep)[0] if rel != "." else "."
            cases.append((area, stem, p4, os.path.join(d, f)))
    return sorted(cases)


def _print_result(r: Result, verbose: bool, n_switches: int = 1) -> None:
    tag = {PASS: "PASS", FAIL: "FAIL", NOT_RUN: "NOT RUN"}[r.status]
    on = f" [switch {r.switch}]" if n_switches > 1 else ""
    line = f"{tag:8} {r.area + '/' if r.area else ''}{r.name}{on} ({r.seconds:.1f}s)"
    if r.reason:
        line += f": {r.reason}"
    print(line, flush=True)
    if r.skipped:
        print("    skipped: " + "; ".join(r.skipped))
    if r.details and (r.status != PASS or verbose):
        print(r.details)


def summary(results: list[Result]) -> str:
    areas: dict[str, list[int]] = {}
    for r in results:
        row = areas.setdefault(r.area or ".", [0, 0, 0])
        row[[PASS, FAIL, NOT_RUN].index(r.status)] += 1
    w = max([len("total")] + [len(a) for a in areas])
    out = [f"{'area':<{w}}  passed  failed  not run", "-" * (w + 26)]
    tot = [0, 0, 0]
    for a in sorted(areas):
        p, f, n = areas[a]
        tot = [tot[0] + p, tot[1] + f, tot[2] + n]
        out.append(f"{a:<{w}}  {p:6}  {f:6}  {n:7}")
    out.append("-" * (w + 26))
    out.append(f"{'total':<{w}}  {tot[0]:6}  {tot[1]:6}  {tot[2]:7}")
    final = f"{tot[0]} passed, {tot[1]} failed"
    if tot[2]:
        final += f", {tot[2]} not run"
    out.append(final)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="p4stf",
        description="Run STF tests (p4c's simple test format) against a P4 compiler and a "
                    "v1model switch. Toolchain from $P4C / $SWITCH (defaults: p4compile, p4switch).")
    ap.add_argument("files", nargs="*", help="PROG.p4 PROG.stf")
    ap.add_argument("--all", metavar="DIR", help="run every NAME.stf + NAME.p4 under DIR; "
                    "the first subfolder is the feature area")
    ap.add_argument("-k", metavar="TEXT", action="append", default=[],
                    help="with --all: only cases whose area/name contains TEXT (repeatable)")
    ap.add_argument("--p4c", default=None, help="compiler command (default $P4C or p4compile)")
    ap.add_argument("--switch", action="append", default=None,
                    help="switch command (default $SWITCH or p4switch); repeat it to run every "
                         "case on each switch from one compile (switch 2's files go to "
                         "BUILD_DIR/switch2, ...), with a summary per switch")
    ap.add_argument("--build-dir", default=os.path.join("build", "conformance"),
                    help="where compiled programs, pcaps and switch logs go (default %(default)s)")
    ap.add_argument("--wait", type=float, default=2.0,
                    help="seconds the switch waits (--use-files WAIT) so control commands land "
                         "before packets are read (default %(default)s)")
    ap.add_argument("--ports", choices=["files", "veth"], default="files",
                    help="files: pcap files via --use-files (default; control commands must "
                         "precede packets); veth: live veth pairs, commands in file order (root)")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="cases run at once (default 1; each has its own ports, build folder, "
                         "gRPC and Thrift ports and device id)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--compiled", nargs=2, metavar=("JSON", "P4INFO_BIN"),
                    help="with PROG.p4 PROG.stf: run on this compile of PROG.p4 (BMv2 JSON, binary "
                         "P4Info) instead of compiling it again, e.g. several STF files of one program")
    ap.add_argument("-v", "--verbose", action="store_true", help="print details of passing cases too")
    corpus = ap.add_argument_group(
        "p4c corpus", "--corpus P4C_CHECKOUT runs p4c's v1model STF samples in configurations "
                      "a (p4compile + p4switch), b (p4c-bm2-ss + p4switch), c (p4c-bm2-ss + "
                      "simple_switch_grpc), d (p4compile + simple_switch_grpc) and classifies every failure")
    corpus.add_argument("--corpus", metavar="P4C_CHECKOUT", help="path of a p4c source checkout")
    corpus.add_argument("--configs", default="a,b,c,d", help="configurations to run (default %(default)s)")
    corpus.add_argument("--ref-p4c", help="reference compiler (default: p4c-bm2-ss on PATH)")
    corpus.add_argument("--ref-switch", help="reference switch (default: simple_switch_grpc on PATH)")
    corpus.add_argument("--report", metavar="FILE.md", help="write the Markdown report here")
    a = ap.parse_args(argv)
    sys.stdout = _QuietPipe(sys.stdout)
    switches = a.switch or [_default_switch()]
    opts_list = [Options(p4c=a.p4c or _default_p4c(), switch=sw,
                         build_dir=a.build_dir if k == 0 else os.path.join(a.build_dir, f"switch{k + 1}"),
                         wait=a.wait, ports=a.ports) for k, sw in enumerate(switches)]
    opts = opts_list[0]
    if a.corpus:
        if len(switches) > 1:
            ap.error("--corpus takes one --switch (the configurations name the others)")
        from . import corpus as corpus_mod
        build = a.build_dir if a.build_dir != ap.get_default("build_dir") else os.path.join("build", "p4c-corpus")
        shown = ["p4stf"] + [x for x in (argv if argv is not None else sys.argv[1:])]
        return corpus_mod.main(a.corpus, a.configs, opts.p4c, opts.switch, a.ref_p4c, a.ref_switch,
                               build, a.jobs, a.wait, a.k, a.report, a.json, " ".join(shown),
                               verbose=a.verbose)
    if a.all:
        if a.files:
            ap.error("give either --all DIR or PROG.p4 PROG.stf")
        if not os.path.isdir(a.all):
            ap.error(f"--all: no such directory: {a.all}")
        cases = discover(a.all)
        if a.k:
            cases = [c for c in cases if any(k in f"{c[0]}/{c[1]}" for k in a.k)]
        if not cases:
            ap.error(f"no NAME.stf files under {a.all}")
    else:
        if len(a.files) != 2:
            ap.error("expected PROG.p4 PROG.stf (or --all DIR)")
        p4, stf_path = a.files
        if p4.endswith(".stf"):
            p4, stf_path = stf_path, p4
        cases = [("", os.path.splitext(os.path.basename(p4))[0], p4, stf_path)]
    if a.compiled and a.all:
        ap.error("--compiled goes with one PROG.p4 PROG.stf, not --all")
    n = len(opts_list)
    if n == 1:
        print(f"p4stf: P4C={opts.p4c} SWITCH={opts.switch}", flush=True)
    else:
        print(f"p4stf: P4C={opts.p4c}, each case compiled once and run on {n} switches:", flush=True)
        for k, o in enumerate(opts_list, 1):
            print(f"p4stf: switch {k}: {o.switch}", flush=True)

    def one(case) -> list[Result]:
        area, name, p4, stf_path = case
        if not os.path.exists(p4):
            out = [Result(name, area, FAIL, reason=f"no P4 program {p4}") for _ in opts_list]
        else:
            try:
                out = run_case_on_each(opts_list, p4, stf_path, area, name,
                                       compiled=tuple(a.compiled) if a.compiled else None)
            except Exception as exc:  # one broken case must not hide the others' results
                out = [Result(name, area, FAIL, reason=f"runner error: {type(exc).__name__}: {exc}")
                       for _ in opts_list]
        for k, r in enumerate(out, 1):
            r.switch = k
        return out

    results = []
    try:
        if a.jobs <= 1:
            for case in cases:
                for r in one(case):
                    results.append(r)
                    _print_result(r, a.verbose, n)
        else:
            from concurrent.futures import ThreadPoolExecutor, as_completed
            with ThreadPoolExecutor(max_workers=a.jobs) as pool:
                for fut in as_completed([pool.submit(one, c) for c in cases]):
                    for r in fut.result():
                        results.append(r)
                        _print_result(r, a.verbose, n)
    except KeyboardInterrupt:
        print("interrupted")
        return 130
    results.sort(key=lambda r: (r.switch, r.area, r.name))
    for k, o in enumerate(opts_list, 1):
        print()
        if n > 1:
            print(f"switch {k}: {o.switch}")
        print(summary([r for r in results if r.switch == k]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{key: v for key, v in r.__dict__.items() if key != "compiled"} for r in results],
                      f, indent=1)
    return 1 if any(r.status == FAIL for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
