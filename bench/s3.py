"""S3 MPLS: PE, P, PE with VPLS between the PEs; implicit null versus explicit null at MPLS MTU 1530 and 9000.

    python -m bench.s3 [--quick|--standard] [--mtus 1530,9000] [--modes implicit-null,explicit-null]
                       [--services vpls,ip] [--duts p4switch,ovs,linux]

Three p4switches in a line, one `vrouter run` daemon. Service `vpls` (what the study
measured): hosts a (10.0.10.2) and b (10.0.10.3) are in one VLAN, one at each PE, bridged
across a pseudowire: PE1 (s1) puts a's frames under pseudowire label 5003 and transport label
1001, P (s2) pops the transport label (implicit null, PHP) or swaps it to 0 (explicit null),
PE2 (s3) pops what is left and bridges the frame to b; the way back the same with transport
label 2002 and pseudowire label 5001. The remote stations are static (`macs`: no flooding
at the start; learning behind pseudowires works as well). The links between switches carry
the MPLS MTU, the host links that MTU - 26 (two labels, control word, the carried Ethernet header), so a
full-size frame fits, as the study's VPLS MTU under MPLS MTU 1530. Service `ip` (the former mode): routed IPv4 over the LSP, s1
pushes 1001 for 10.0.20.0/24 and s3 routes, host links MTU - 4, the way back plain IP.
Per MTU, service and mode: iperf3 TCP a -> b, and the CPU seconds per gigabyte of each
switch; a VPLS run counts the frames PE2 took off the pseudowire (`vrouter show vpls`).
Baselines (this kernel has no mpls_router module, so neither carries Ethernet over MPLS):
`ovs` = three Open vSwitch bridges (userspace datapath) with OpenFlow push_mpls at PE1,
pop_mpls (PHP) or a swap to label 0 at P, pop_mpls at PE2 for explicit null, carrying
routed IPv4; `linux` = the same line of Linux routers without MPLS (plain IP, the "no
MPLS" reference). Published: Myers (MikroTik CHR VPLS, MUM), docs/scenarios.md S3.
--standard: 10 s per run. Results: bench/results/<stamp>-s3/.
"""
from __future__ import annotations

import dataclasses
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from . import capture, compare, figures, iperf, published, report
from .common import Progress, dut_names, main_guard, parser, pick, profile, profile_note, say, settings
from .dut import ROOT, cpu_seconds
from .netns import BenchError, sh
from .s2 import Chain, LinuxChain, OvsChain

LABEL = 1001
SERVICES = ("vpls", "ip")

PUBLISHED = published.load("s3")   # the study's figures, with citation


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


class VplsChain(Chain):
    """PE1 - P - PE2 p4switches with VPLS instance `blue` between the PEs (see the module doc)."""

    PW_AT_PE1, PW_AT_PE2 = 5001, 5003          # pseudowire labels bound by PE1 / PE2
    BACK = 2002                                  # transport label PE2 -> PE1

    def __init__(self, prefix: str, workdir: Path, mode: str, mtu: int):
        super().__init__(prefix, 3, workdir)
        self.mode, self.core_mtu, self.host_mtu = mode, mtu, mtu - 26
        self.a = dataclasses.replace(self.a, ip="10.0.10.2/24", gateway="10.0.10.1")
        self.b = dataclasses.replace(self.b, ip="10.0.10.3/24", gateway="10.0.10.1")

    def description(self) -> dict:
        mtu = self.core_mtu

        def core(address: str, k: int, side: int) -> dict:
            return {"interface": {"address": address, "mac": f"00:00:5e:00:{k:02x}:{side:02x}", "mtu": mtu}}

        def pe(k: int, core_port: int, host_port: int, core_addr: str, lsp_out: int, lsp_in: int, via: str,
               peer: str, in_label: int, out_label: int, remote_mac: str) -> dict:
            return {"address": f"127.0.0.1:{9559 + k}", "device_id": 0, "cpu_port": 255,
                    "vlans": {10: {"name": "customer"}, 40: {"name": "core", **core(core_addr, k, core_port)}},
                    "ports": {host_port: {"name": "customer", "vlan": 10},
                              core_port: {"name": "core", "vlan": 40, "mtu": mtu}},
                    "lsps": [{"name": f"to-{peer}", "role": "ingress", "labels": [lsp_out], "via": via},
                             {"name": f"from-{peer}", "role": "egress", "in_label": lsp_in}],
                    "vpls": {"blue": {"vlan": 10, "pseudowires": [
                        {"peer": peer, "lsp": f"to-{peer}", "in_label": in_label, "out_label": out_label,
                         "macs": [remote_mac]}]}}}

        p = {"address": "127.0.0.1:9561", "device_id": 0, "cpu_port": 255,
             "vlans": {100: {"name": "west", **core("10.255.1.2/30", 2, 1)},
                       200: {"name": "east", **core("10.255.2.1/30", 2, 2)}},
             "ports": {1: {"name": "west", "vlan": 100, "mtu": mtu}, 2: {"name": "east", "vlan": 200, "mtu": mtu}},
             "lsps": [{"name": "pe1-pe2", "role": "transit", "in_label": LABEL, "out_label": self.mode,
                       "via": "10.255.2.2"},
                      {"name": "pe2-pe1", "role": "transit", "in_label": self.BACK, "out_label": self.mode,
                       "via": "10.255.1.1"}]}
        # The egress LSPs bind the transport label in case the P router does not pop it; with
        # implicit or explicit null it arrives popped or as label 0 and they are not used.
        return {"mac_aging": "300s", "switches": {
            "s1": pe(1, 2, 1, "10.255.1.1/30", LABEL, self.BACK, "10.255.1.2", "s3", self.PW_AT_PE1,
                     self.PW_AT_PE2, self.b.mac),
            "s2": p,
            "s3": pe(3, 1, 2, "10.255.2.2/30", self.BACK, LABEL, "10.255.2.1", "s1", self.PW_AT_PE2,
                     self.PW_AT_PE1, self.a.mac)}}

    def pw_frames_at_pe2(self) -> int:
        """Frames PE2 took off the pseudowire (its pw_termination counter), read with `vrouter show vpls`."""
        out = sh(str(ROOT / ".venv" / "bin" / "vrouter"), "show", "vpls", str(self.description_file), "--switch",
                 "s3", "--json", ns=self.sw)
        return sum(int(r["packets_in"]) for r in json.loads(out)["s3"])


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


def published_figure(mtu: int, mode: str) -> str | None:
    """The study's figure for this MTU and null mode, as text."""
    pub = next((t["rows"][0] for t in PUBLISHED["tables"] if t["rows"][0][:2] == [mtu, mode]), None)
    return f"{pub[2]:g} Gb/s at {pub[3]:g} % CPU" if pub else None


def service_of(r: dict) -> str:
    """What a run carried: `vpls`, `ip` (routed IPv4 over the LSP) or `-` (no MPLS)."""
    return r.get("service") or ("-" if r["mode"] == "no MPLS" else "ip")


def write_report(d: Path, data: dict, secs: float) -> None:
    m = data["machine"]
    md = [f"# S3 MPLS PE - P - PE with VPLS ({data['stamp']})", "",
          report.load_note(m), "",
          f"{report.machine_line(m)}{data.get('profile_note', '')}. iperf3 TCP, one stream, {secs:g} s.", "",
          f"Published: {published.citation(PUBLISHED)} (Gb/s, peak VM CPU %), VPLS throughput: set beside the "
          "`vpls` rows.", "",
          "Services: `vpls` = hosts a and b in one VLAN, bridged across a pseudowire between the PEs (the frame "
          "under pseudowire and transport labels, RFC 4448 raw mode with control word; host MTU = MPLS MTU - 26); "
          "`ip` = routed IPv4 over the LSP (host MTU = MPLS MTU - 4). The P router pops the transport label "
          "(implicit null) or swaps it to 0 (explicit null, popped by the egress PE).", "",
          "Baselines (neither carries Ethernet over MPLS, so they stand beside `vpls` as references, not as the "
          "same service): `ovs-openflow` = three Open vSwitch bridges (userspace datapath, one ovs-vswitchd, so its "
          "CPU is one figure for all hops) with OpenFlow push_mpls / pop_mpls / set_field mpls_label carrying "
          "routed IPv4; `linux-router` = the same line of Linux routers with plain IP (this kernel has no "
          "mpls_router module): the no-MPLS reference, its forwarding cost is in the senders' kernel context, not "
          "a process.", ""]
    rows = [[r.get("dut", "p4switch"), service_of(r), r["mtu"], r["mode"], r["tcp_mbps"],
             *[r["cpu_s_per_gb"].get(k) for k in ("pe1", "p", "pe2")], r.get("cpu_s_per_gb_all"),
             ", ".join(f"{k} {v:.0f}" for k, v in (r.get("cpu_percent") or {}).items() if v is not None) or None,
             r.get("pw_frames_at_pe2"), published_figure(r["mtu"], r["mode"]) if service_of(r) == "vpls" else None]
            for r in data["runs"]]
    md += [report.md_table(["DUT", "service", "MPLS MTU", "mode", "TCP Mb/s", "PE1 CPU s/GB", "P CPU s/GB",
                            "PE2 CPU s/GB", "all hops CPU s/GB", "CPU % of one core", "frames off the PW at PE2",
                            "published (VPLS)"],
                           rows), ""]
    p4 = {(service_of(r), r["mtu"], r["mode"]): r["tcp_mbps"] for r in data["runs"]
          if r.get("dut", "p4switch") == "p4switch"}
    ratios = [f"MTU {r['mtu']} {m}: p4switch {svc} / {r['dut']} ({'no MPLS' if r['mode'] == 'no MPLS' else 'routed MPLS'})"
              f" = {p4[(svc, r['mtu'], m)] / r['tcp_mbps']:.2f}"
              for r in data["runs"] if r.get("dut") not in (None, "p4switch") and r["tcp_mbps"]
              for m in ([r["mode"]] if r["mode"] != "no MPLS" else ["implicit-null", "explicit-null"])
              for svc in SERVICES if (svc, r["mtu"], m) in p4]
    if ratios:
        md += ["Throughput ratios: " + "; ".join(ratios) + ".", ""]
    md += compare.sections("s3", data)
    md += [f"![{label}]({png.name})" for label, png in figures.make("s3", data, d)] + [""]
    report.write_md(d, md, [(e["what"], e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--mtus", default="1530,9000", help="MPLS MTUs of the core links (default 1530,9000)")
    ap.add_argument("--modes", default="implicit-null,explicit-null")
    ap.add_argument("--services", default="vpls",
                    help="what the p4switch chain carries: vpls (hosts in one VLAN across a pseudowire, the study's "
                         "case), ip (routed IPv4 over the LSP); comma list (default vpls)")
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
    if not modes or any(m not in ("implicit-null", "explicit-null") for m in modes):
        raise BenchError("--modes: implicit-null, explicit-null")
    services = [x for x in args.services.split(",") if x]
    if not services or any(x not in SERVICES for x in services):
        raise BenchError(f"--services: {', '.join(SERVICES)}")
    secs = args.trial_seconds or pick(args, 30.0, 10.0, 3.0)
    capture.arm(args.pcap, args.prefix)
    d = report.new_run("s3", args.out)
    data = {"scenario": "S3", "stamp": d.name, "quick": args.quick, "profile": profile(args),
            "profile_note": profile_note(args), "machine": report.machine(), "seconds_per_run": secs, "runs": []}
    plan = [(mtu, svc, mode, dut) for mtu in mtus for dut in duts
            for svc in (services if dut == "p4switch" else ["ip" if dut == "ovs" else "-"])
            for mode in (modes if dut != "linux" else ["no MPLS"])]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="h10-s3-") as tmp:
        progress = Progress("S3", len(plan))
        for k, (mtu, svc, mode, dut) in enumerate(plan):
            progress.step(f"MTU {mtu}, {svc}, {mode}, {dut}")
            if dut == "p4switch":
                chain = (VplsChain if svc == "vpls" else MplsChain)(args.prefix, Path(tmp), mode, mtu)
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
                c0, w0 = [cpu_seconds([p]) for p in pids], time.monotonic()
                r = iperf.start([(chain.a, chain.b, None)], secs)[0]
                c1, wall = [cpu_seconds([p]) for p in pids], time.monotonic() - w0
                gb = r["received_mbps"] * secs / 8 / 1000
                keys = ("pe1", "p", "pe2") if len(pids) == 3 else ("all",) * len(pids)
                cpu = {n: (b - a) / gb if gb else None for n, a, b in zip(keys, c0, c1)}
                row = {"dut": name, "service": svc, "mtu": mtu, "mode": mode, "tcp_mbps": r["received_mbps"],
                       "cpu_s_per_gb": cpu,
                       "cpu_percent": {n: 100 * (b - a) / wall for n, a, b in zip(keys, c0, c1)},
                       "cpu_s_per_gb_all": sum(v for v in cpu.values() if v is not None) if cpu else None}
                if isinstance(chain, OvsMplsChain):
                    row["lsp_packets_at_p"] = chain.lsp_packets()
                    if not row["lsp_packets_at_p"]:
                        raise BenchError("OVS: the P bridge's MPLS rule matched no packet (the LSP was not used)")
                if isinstance(chain, VplsChain):
                    row["pw_frames_at_pe2"] = chain.pw_frames_at_pe2()
                    if not row["pw_frames_at_pe2"]:
                        raise BenchError("VPLS: PE2 took no frame off the pseudowire (the traffic did not use it)")
                data["runs"].append(row)
                say(f"  {name} {svc}: TCP {row['tcp_mbps']:.0f} Mb/s, CPU s/GB " +
                    (", ".join(f"{k} {v:.2f}" for k, v in cpu.items() if v is not None) or "- (kernel)"))
            except BenchError as e:
                say(f"  {e}")
                data.setdefault("errors", []).append({"what": f"{name} {svc} MTU {mtu} {mode}", "error": str(e)})
            finally:
                chain.down()
            report.write_json(d, data)
    report.finish(d, data, t0, "S3", lambda: write_report(d, data, secs), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
