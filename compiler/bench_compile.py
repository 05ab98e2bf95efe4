#!/usr/bin/env python3
"""Speed benchmark (not a test): compile a generated ~1500-line v1model program.

Goal from issue 3: under 2 s and under 300 MB. Prints wall time (best and median of
N runs, each a fresh compilation in this process) and the peak RSS of the process.
With --fabric DIR (a stratum/fabric-tna checkout) it also times the `p4compile` command on
fabric-tna's largest profile, p4src/v1model/fabric_v1model.p4 with -DWITH_UPF -DWITH_INT
(issue 15 Must 9: <= 2 s, <= 300 MB). The load average is printed beside the numbers.
Usage: .venv/bin/python compiler/bench_compile.py [--runs N] [--lines N] [--fabric DIR] [--out FILE] [--json FILE]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from p4compiler.driver import compile_file  # noqa: E402
from p4compiler.p4info import serialize  # noqa: E402


def generate(n_features: int) -> str:
    """A program with n_features header types, parser states, tables and actions."""
    out = ["#include <core.p4>", "#include <v1model.p4>", ""]
    out.append("header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }")
    for i in range(n_features):
        out += [f"header h{i}_t {{", f"    bit<8> kind;", f"    bit<16> len;", f"    bit<32> addr;",
                f"    bit<8> next;", "}"]
    out.append("struct headers_t {")
    out.append("    ethernet_t eth;")
    out += [f"    h{i}_t h{i};" for i in range(n_features)]
    out.append("}")
    out.append("struct meta_t {")
    out += [f"    bit<32> m{i};" for i in range(n_features)]
    out.append("}")
    out.append("parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {")
    out.append("    state start {")
    out.append("        pkt.extract(hdr.eth);")
    out.append("        transition select(hdr.eth.etherType) {")
    out += [f"            16w{0x1000 + i}: parse_h{i};" for i in range(n_features)]
    out.append("            default: accept;")
    out.append("        }")
    out.append("    }")
    for i in range(n_features):
        nxt = f"parse_h{i + 1}" if i + 1 < n_features else "accept"
        out += [f"    state parse_h{i} {{", f"        pkt.extract(hdr.h{i});",
                f"        transition select(hdr.h{i}.next) {{", f"            8w1: {nxt};",
                "            default: accept;", "        }", "    }"]
    out.append("}")
    out.append("control VC(inout headers_t hdr, inout meta_t meta) { apply { } }")
    out.append("control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {")
    out.append("    direct_counter(CounterType.packets_and_bytes) dc0;")
    for i in range(n_features):
        out += [f"    action set{i}(bit<9> port, bit<32> v) {{",
                f"        sm.egress_spec = port;",
                f"        meta.m{i} = v + hdr.h{i}.addr;",
                f"        hdr.h{i}.len = hdr.h{i}.len - 1;",
                "    }",
                f"    table t{i} {{",
                f"        key = {{ hdr.h{i}.addr: lpm; hdr.h{i}.kind: ternary; }}",
                f"        actions = {{ set{i}; NoAction; }}",
                f"        size = {1024 + i};",
                "    }"]
    out.append("    apply {")
    for i in range(n_features):
        out += [f"        if (hdr.h{i}.isValid()) {{", f"            t{i}.apply();",
                f"            meta.m{i} = meta.m{i} + 1;", "        }"]
    out.append("    }")
    out.append("}")
    out.append("control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }")
    out.append("control CC(inout headers_t hdr, inout meta_t meta) { apply { } }")
    out.append("control D(packet_out pkt, in headers_t hdr) {")
    out.append("    apply {")
    out.append("        pkt.emit(hdr.eth);")
    out += [f"        pkt.emit(hdr.h{i});" for i in range(n_features)]
    out.append("    }")
    out.append("}")
    out.append("V1Switch(P(), VC(), I(), E(), CC(), D()) main;")
    return "\n".join(out) + "\n"


def time_command(argv: list[str], env: dict) -> tuple[float, float]:
    """Wall time (s) and peak RSS (MB) of one run of a command (its own rusage, not the
    maximum over every child this process ever had)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench: command failed ({proc.returncode}): {' '.join(argv)}")
    return elapsed, usage.ru_maxrss / 1024


def bench_report():
    """bench/report.py: the machine, load average and git revision header of every benchmark's --json."""
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from bench import report
    return report


def bench_fabric(checkout: str, runs: int, env: dict) -> tuple[str, bool]:
    """The p4compile command on fabric-tna's v1model program, largest profile."""
    src = os.path.join(checkout, "p4src")
    prog = os.path.join(src, "v1model", "fabric_v1model.p4")
    if not os.path.isfile(prog):
        raise SystemExit(f"bench: no {prog} (give --fabric a stratum/fabric-tna checkout)")
    with tempfile.TemporaryDirectory() as d:
        argv = [sys.executable, "-m", "p4compiler", "--arch", "v1model", "-I", src, "-DWITH_UPF", "-DWITH_INT", prog,
                "-o", os.path.join(d, "fabric.json"), "--p4runtime-files", os.path.join(d, "fabric.p4info.txtpb")]
        results = [time_command(argv, env) for _ in range(runs)]
    times = [t for t, _ in results]
    rss = max(r for _, r in results)
    ok = max(times) <= 2 and rss <= 300
    return (f"p4compile bench: fabric-tna fabric_v1model.p4 -DWITH_UPF -DWITH_INT (command with output files): "
            f"median {statistics.median(times):.3f} s, best {min(times):.3f} s, max {max(times):.3f} s, "
            f"peak RSS {rss:.0f} MB; {runs} runs (goal <= 2 s, <= 300 MB): {'PASS' if ok else 'FAIL'}"), ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lines", type=int, default=1500, help="approximate program size")
    ap.add_argument("--fabric", default=None, metavar="DIR",
                    help="also time fabric-tna's largest v1model profile from this checkout")
    ap.add_argument("--out", default=None, help="also write the result lines to this file")
    ap.add_argument("--json", default=None, metavar="FILE",
                    help="also write the results with the machine, load average and git revision to FILE")
    args = ap.parse_args()
    machine = bench_report().machine() if args.json else None
    load_before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    n = 1
    while len(generate(n).splitlines()) < args.lines:
        n += 1
    text = generate(n)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bench.p4")
        with open(path, "w") as f:
            f.write(text)
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            res = compile_file(path)
            serialize(res.p4info, "text")
            times.append(time.perf_counter() - t0)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # the whole command as a user runs it: interpreter start, imports, output files
        cli_times = []
        env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.abspath(__file__))}
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "p4compiler", path, "-o", os.path.join(d, "b.json"),
                            "--p4runtime-files", os.path.join(d, "b.p4info.txtpb")], check=True, env=env)
            cli_times.append(time.perf_counter() - t0)
        cli_rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    ok = max(cli_times) < 2 and max(rss_mb, cli_rss_mb) < 300
    line = (f"p4compile bench: {len(text.splitlines())} lines, {n} features; in-process best {min(times):.3f} s, "
            f"median {statistics.median(times):.3f} s, peak RSS {rss_mb:.0f} MB; command line (p4compile with "
            f"output files) median {statistics.median(cli_times):.3f} s, max {max(cli_times):.3f} s, peak RSS "
            f"{cli_rss_mb:.0f} MB; {args.runs} runs (goal < 2 s, < 300 MB): {'PASS' if ok else 'FAIL'}")
    lines = [line]
    results = {"benchmark": "bench-compiler", "lines": len(text.splitlines()), "features": n, "runs": args.runs,
               "in_process_s": times, "in_process_peak_rss_mb": rss_mb, "command_s": cli_times,
               "command_peak_rss_mb": cli_rss_mb, "goal_met": ok}
    if args.fabric:
        fabric_line, fabric_ok = bench_fabric(args.fabric, args.runs, env)
        lines.append(fabric_line)
        results["fabric"] = {"line": fabric_line, "goal_met": fabric_ok}
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append(f"load average before/after: {load_before} / {load} (2 cores shared with other jobs)")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    if args.json:
        bench_report().save_json(Path(args.json), results, machine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
