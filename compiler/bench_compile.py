#!/usr/bin/env python3
"""Speed benchmark (not a test): compile a generated ~1500-line v1model program.

Goal from issue 3: under 2 s and under 300 MB. Prints wall time (best and median of
N runs, each a fresh compilation in this process) and the peak RSS of the process.
Usage: .venv/bin/python compiler/bench_compile.py [--runs N] [--lines N] [--out FILE]
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lines", type=int, default=1500, help="approximate program size")
    ap.add_argument("--out", default=None, help="also write the result line to this file")
    args = ap.parse_args()
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
    print(line)
    if args.out:
        with open(args.out, "w") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
