"""S3 MPLS: ingress PE, P, egress PE; implicit null versus explicit null at MPLS MTU 1530 and 9000.

    python -m bench.s3 [--quick|--standard] [--mtus 1530,9000] [--modes implicit-null,explicit-null]
                       [--duts p4switch,ovs,linux]

The S2 chain with three p4switches: s1 (ingress PE) pushes label 1001 for 10.0.20.0/24,
s2 (P) swaps it to implicit null (PHP: s3 receives plain IP) or explicit null (label 0,
popped and routed by s3). The links between switches carry the MPLS MTU, the host links
MTU - 4 so a full-size labelled packet fits. Per MTU and mode: iperf3 TCP a -> b, and the
CPU seconds per gigabyte of each switch. The way back (b -> a) is plain IP routing.
Baselines (this kernel has no mpls_router module): `ovs` = three Open vSwitch bridges
(userspace datapath) with OpenFlow push_mpls at PE1, pop_mpls (PHP) or a swap to label 0 at
P, pop_mpls at PE2 for explicit null; `linux` = the same line of Linux routers without MPLS
(plain IP, the "no MPLS" reference). VPLS (Ethernet over the LSP) is not measured: vrouter.p4
pops to IPv4 only. Published: Myers (MikroTik CHR MPLS, MUM), SCENARIOS.md S3.
--standard: 10 s per run. Results: bench/results/<stamp>-s3/.
"""
from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

from . import iperf, report
from .common import dut_names, main_guard, parser, pick, profile, profile_note, say, settings
from .dut import cpu_seconds
from .netns import BenchError
from .s2 import Chain, LinuxChain, OvsChain

LABEL = 1001

PUBLISHED = report.reference("s3_myers.json")   # the study's figures, with citation


class MplsChain(Chain):
    def __init__(self, prefix: str, workdir: Path, mode: str, mtu: int):
        super().__init__(prefix, 3, workdir)
        self.mode, self.core_mtu, self.host_mtu = mode, mtu, mtu - 4

    def description(self) -> dict:
        d = super().description()
        pe1, p = d["switches"]["s1"], d["switches"]["s2"]
        pe1["routes"] = [r for r in pe1.get("routes", []) if r["prefix"] != "10.0.20.0/24"]
        pe1["lsps"] = [{"name": "to-pe2", "role": "ingress", "fec": "10.0.20.0/24", "labels": [LABEL],
                        "via": "10.255.1.2"}]
        p["lsps"] = [{"name": "pe1-pe2", "role": "transit", "in_label": LABEL, "out_label": self.mode,
                      "via": "10.255.2.2"}]
        if not pe1["routes"]:
            del pe1["routes"]
        return d


class OvsMplsChain(OvsChain):
    """PE1 - P - PE2 as three OVS bridges (userspace datapath) with OpenFlow MPLS actions:
    PE1 pushes LABEL on IPv4 to 10.0.20.0/24; P pops it (implicit null, PHP) or swaps it
    to 0 (explicit null) and PE2 pops label 0; every hop rewrites the MACs, IP hops
    decrement the IP TTL and P the MPLS TTL. The way back is plain IP, as on the P4 line."""

    def __init__(self, prefix: str, workdir: Path, mode: str, mtu: int):
        super().__init__(prefix, 3, workdir)
        self.mode, self.core_mtu, self.host_mtu = mode, mtu, mtu - 4

    def hop_flows(self, k: int) -> list[str]:
        flows = super().hop_flows(k)
        east, back = flows[0], flows[1]
        macs = east.split("actions=")[1].split(",dec_ttl")[0]      # mod_dl_src:..,mod_dl_dst:..
        if k == 1:
            east = (f"priority=100,in_port=1,ip,nw_dst=10.0.20.0/24,actions=dec_ttl,push_mpls:0x8847,"
                    f"set_field:{LABEL}->mpls_label,{macs},output:2")
        elif k == 2:
            act = "pop_mpls:0x0800" if self.mode == "implicit-null" else "set_field:0->mpls_label"
            east = f"priority=100,in_port=1,mpls,mpls_label={LABEL},actions=dec_mpls_ttl,{act},{macs},output:2"
        elif self.mode == "explicit-null":
            east = f"priority=100,in_port=1,mpls,mpls_label=0,actions=pop_mpls:0x0800,{macs},output:2"
        return [east, back]

    def lsp_packets(self) -> int:
        """Packets the P bridge label-switched (its MPLS rule's OpenFlow counter)."""
        out = self.ovs.ofctl("dump-flows", self.bridge(2), "mpls")
        return sum(int(x) for x in re.findall(r"n_packets=(\d+)", out))


def published(mtu: int, mode: str) -> str | None:
    """The study's figure for this MTU and null mode, as text."""
    pub = PUBLISHED["gbps"].get(str(mtu), {}).get(mode)
    return f"{pub[0]} Gb/s at {pub[1]} % CPU" if pub else None


def write_report(d: Path, data: dict, secs: float) -> None:
    m = data["machine"]
    md = [f"# S3 MPLS PE - P - PE ({data['stamp']})", "",
          f"Machine: {m['cores']} cores, {m['cpu']}, kernel {m['kernel']}, load {' '.join(m['loadavg'])} at start, "
          f"git {m['git']}{data.get('profile_note', '')}. iperf3 TCP, one stream, {secs:g} s.", "",
          f"Published: {PUBLISHED['citation']} (Gb/s, CPU %).", "",
          "Baselines: `ovs-openflow` = three Open vSwitch bridges (userspace datapath, one ovs-vswitchd, so its "
          "CPU is one figure for all hops) with OpenFlow push_mpls / pop_mpls / set_field mpls_label; "
          "`linux-router` = the same line of Linux routers with plain IP (this kernel has no mpls_router "
          "module): the no-MPLS reference, its forwarding cost is in the senders' kernel context, not a process.",
          "", "**Gap: VPLS** (Ethernet over the LSP, what the study measured) is not run: vrouter.p4 pops only to "
          "IPv4 (DROP_MPLS_UNSUPPORTED otherwise) and has no pseudowire; the LSP carries routed IPv4 here.", ""]
    rows = [[r.get("dut", "p4switch"), r["mtu"], r["mode"], r["tcp_mbps"],
             *[r["cpu_s_per_gb"].get(k) for k in ("pe1", "p", "pe2")], r.get("cpu_s_per_gb_all"),
             published(r["mtu"], r["mode"])] for r in data["runs"]]
    md += [report.md_table(["DUT", "MPLS MTU", "mode", "TCP Mb/s", "PE1 CPU s/GB", "P CPU s/GB", "PE2 CPU s/GB",
                            "all hops CPU s/GB", "published"], rows), ""]
    p4 = {(r["mtu"], r["mode"]): r["tcp_mbps"] for r in data["runs"] if r.get("dut", "p4switch") == "p4switch"}
    ratios = [f"MTU {r['mtu']} {m}: p4switch / {r['dut']}"
              f"{' (no MPLS)' if r['mode'] == 'no MPLS' else ''} = {p4[(r['mtu'], m)] / r['tcp_mbps']:.2f}"
              for r in data["runs"] if r.get("dut") not in (None, "p4switch") and r["tcp_mbps"]
              for m in ([r["mode"]] if r["mode"] != "no MPLS" else ["implicit-null", "explicit-null"])
              if (r["mtu"], m) in p4]
    if ratios:
        md += ["Throughput ratios: " + "; ".join(ratios) + ".", ""]
    report.write_md(d, md, [(e["what"], e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--mtus", default="1530,9000", help="MPLS MTUs of the core links (default 1530,9000)")
    ap.add_argument("--modes", default="implicit-null,explicit-null")
    args = ap.parse_args()
    settings(args)
    duts = dut_names(args)
    try:
        mtus = [int(x) for x in args.mtus.split(",")]
    except ValueError:
        raise BenchError("--mtus takes comma-separated integers")
    if any(not 1280 <= m <= 9200 for m in mtus):
        raise BenchError("--mtus: 1280..9200")
    modes = [m for m in args.modes.split(",") if m]
    if any(m not in ("implicit-null", "explicit-null") for m in modes):
        raise BenchError("--modes: implicit-null, explicit-null")
    secs = args.trial_seconds or pick(args, 30.0, 10.0, 3.0)
    d = report.new_run("s3", args.out)
    data = {"scenario": "S3", "stamp": d.name, "quick": args.quick, "profile": profile(args),
            "profile_note": profile_note(args), "machine": report.machine(), "runs": []}
    plan = [(mtu, mode, dut) for mtu in mtus for dut in duts for mode in (modes if dut != "linux" else ["no MPLS"])]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="h10-s3-") as tmp:
        for k, (mtu, mode, dut) in enumerate(plan):
            say(f"S3 [{k + 1}/{len(plan)}] MTU {mtu}, {mode}, {dut} ({time.monotonic() - t0:.0f} s elapsed)")
            if dut == "p4switch":
                chain = MplsChain(args.prefix, Path(tmp), mode, mtu)
            elif dut == "ovs":
                chain = OvsMplsChain(args.prefix, Path(tmp), mode, mtu)
            else:
                chain = LinuxChain(args.prefix, 3, Path(tmp))
                chain.core_mtu, chain.host_mtu = mtu, mtu - 4
            name = {"p4switch": "p4switch", "ovs": "ovs-openflow", "linux": "linux-router"}[dut]
            try:
                chain.up()
                chain.start()
                pids = chain.pids()
                c0 = [cpu_seconds([p]) for p in pids]
                r = iperf.start([(chain.a, chain.b, None)], secs)[0]
                c1 = [cpu_seconds([p]) for p in pids]
                gb = r["received_mbps"] * secs / 8 / 1000
                keys = ("pe1", "p", "pe2") if len(pids) == 3 else ("all",) * len(pids)
                cpu = {n: (b - a) / gb if gb else None for n, a, b in zip(keys, c0, c1)}
                row = {"dut": name, "mtu": mtu, "mode": mode, "tcp_mbps": r["received_mbps"], "cpu_s_per_gb": cpu,
                       "cpu_s_per_gb_all": sum(v for v in cpu.values() if v is not None) if cpu else None}
                if isinstance(chain, OvsMplsChain):
                    row["lsp_packets_at_p"] = chain.lsp_packets()
                    if not row["lsp_packets_at_p"]:
                        raise BenchError("OVS: the P bridge's MPLS rule matched no packet (the LSP was not used)")
                data["runs"].append(row)
                say(f"  {name}: TCP {row['tcp_mbps']:.0f} Mb/s, CPU s/GB " +
                    (", ".join(f"{k} {v:.2f}" for k, v in cpu.items() if v is not None) or "- (kernel)"))
            except BenchError as e:
                say(f"  {e}")
                data.setdefault("errors", []).append({"what": f"{name} MTU {mtu} {mode}", "error": str(e)})
            finally:
                chain.down()
            report.write_json(d, data)
    report.finish(d, data, t0, "S3", lambda: write_report(d, data, secs))
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
