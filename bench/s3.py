"""S3 MPLS: ingress PE, P, egress PE; implicit null versus explicit null at MPLS MTU 1530 and 9000.

    python -m bench.s3 [--quick] [--mtus 1530,9000] [--modes implicit-null,explicit-null]

The S2 chain with three p4switches: s1 (ingress PE) pushes label 1001 for 10.0.20.0/24,
s2 (P) swaps it to implicit null (PHP: s3 receives plain IP) or explicit null (label 0,
popped and routed by s3). The links between switches carry the MPLS MTU, the host links
MTU - 4 so a full-size labelled packet fits. Per MTU and mode: iperf3 TCP a -> b, and the
CPU seconds per gigabyte of each switch. The way back (b -> a) is plain IP routing.
Published: Myers (MikroTik CHR MPLS, MUM), SCENARIOS.md S3. Results: bench/results/<stamp>-s3/.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from . import iperf, report
from .common import main_guard, parser, say, settings
from .dut import cpu_seconds
from .netns import BenchError
from .s2 import Chain

PUBLISHED = {"citation": "Myers, \"ISP Design - Using MikroTik CHR as an MPLS router\" (MUM talk), VPLS on Hyper-V, "
             "as summarised in SCENARIOS.md S3",
             "gbps": {"1530": {"implicit-null": [4.4, 15], "explicit-null": [8.3, 20]},
                      "9000": {"implicit-null": [9.9, 7], "explicit-null": [9.9, 16]}}}


class MplsChain(Chain):
    def __init__(self, prefix: str, workdir: Path, mode: str, mtu: int):
        super().__init__(prefix, 3, workdir)
        self.mode, self.core_mtu, self.host_mtu = mode, mtu, mtu - 4

    def description(self) -> dict:
        d = super().description()
        pe1, p = d["switches"]["s1"], d["switches"]["s2"]
        pe1["routes"] = [r for r in pe1.get("routes", []) if r["prefix"] != "10.0.20.0/24"]
        pe1["lsps"] = [{"name": "to-pe2", "role": "ingress", "fec": "10.0.20.0/24", "labels": [1001],
                        "via": "10.255.1.2"}]
        p["lsps"] = [{"name": "pe1-pe2", "role": "transit", "in_label": 1001, "out_label": self.mode,
                      "via": "10.255.2.2"}]
        if not pe1["routes"]:
            del pe1["routes"]
        return d


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--mtus", default="1530,9000", help="MPLS MTUs of the core links (default 1530,9000)")
    ap.add_argument("--modes", default="implicit-null,explicit-null")
    args = ap.parse_args()
    settings(args)
    try:
        mtus = [int(x) for x in args.mtus.split(",")]
    except ValueError:
        raise BenchError("--mtus takes comma-separated integers")
    if any(not 1280 <= m <= 9200 for m in mtus):
        raise BenchError("--mtus: 1280..9200")
    modes = [m for m in args.modes.split(",") if m]
    if any(m not in ("implicit-null", "explicit-null") for m in modes):
        raise BenchError("--modes: implicit-null, explicit-null")
    secs = args.trial_seconds or (3.0 if args.quick else 30.0)
    d = report.new_run("s3", args.out)
    data = {"scenario": "S3", "stamp": d.name, "quick": args.quick, "machine": report.machine(), "runs": []}
    with tempfile.TemporaryDirectory(prefix="h10-s3-") as tmp:
        for mtu in mtus:
            for mode in modes:
                say(f"S3 MTU {mtu}, {mode}")
                chain = MplsChain(args.prefix, Path(tmp), mode, mtu)
                try:
                    chain.up()
                    chain.start()
                    pids = chain.pids()
                    c0 = [cpu_seconds([p]) for p in pids]
                    r = iperf.start([(chain.a, chain.b, None)], secs)[0]
                    c1 = [cpu_seconds([p]) for p in pids]
                    gb = r["received_mbps"] * secs / 8 / 1000
                    row = {"mtu": mtu, "mode": mode, "tcp_mbps": r["received_mbps"],
                           "cpu_s_per_gb": {n: (b - a) / gb if gb else None
                                            for n, a, b in zip(("pe1", "p", "pe2"), c0, c1)}}
                    data["runs"].append(row)
                    say(f"  TCP {row['tcp_mbps']:.0f} Mb/s, CPU s/GB " +
                        ", ".join(f"{k} {v:.2f}" for k, v in row["cpu_s_per_gb"].items() if v is not None))
                except BenchError as e:
                    say(f"  {e}")
                    data.setdefault("errors", []).append({"what": f"MTU {mtu} {mode}", "error": str(e)})
                finally:
                    chain.down()
                report.write_json(d, data)
    report.write_json(d, data)
    m = data["machine"]
    md = [f"# S3 MPLS PE - P - PE ({data['stamp']})", "",
          f"Machine: {m['cores']} cores, {m['cpu']}, kernel {m['kernel']}, load {' '.join(m['loadavg'])} at start, "
          f"git {m['git']}{' (--quick)' if data['quick'] else ''}. iperf3 TCP, one stream, {secs:g} s.", "",
          f"Published: {PUBLISHED['citation']} (Gb/s, CPU %).", ""]
    rows = [[r["mtu"], r["mode"], r["tcp_mbps"], *[r["cpu_s_per_gb"][k] for k in ("pe1", "p", "pe2")],
             "{} Gb/s at {} % CPU".format(*PUBLISHED["gbps"].get(str(r["mtu"]), {}).get(r["mode"], ["–", "–"]))]
            for r in data["runs"]]
    md += [report.md_table(["MPLS MTU", "mode", "TCP Mb/s", "PE1 CPU s/GB", "P CPU s/GB", "PE2 CPU s/GB",
                            "published"], rows), ""]
    report.write_md(d, md, [(e["what"], e["error"]) for e in data.get("errors", [])])
    say(f"S3 done: {d / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
