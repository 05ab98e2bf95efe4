"""S4 virtual switch: VLAN isolation ping matrix, ingress policing, CPU cost at the same load.

    python -m bench.s4 [--quick|--standard] [--duts p4switch,linux,ovs] [--parts isolation,policing,cpu]

isolation  four hosts a, b, c, d in one subnet; ping matrix with all four in one VLAN
           (before) and with a+c in VLAN 10, b+d in VLAN 20 (after): only same-VLAN pairs reach.
policing   ingress rate limit on the senders' switch ports: a=100 and b=50 Mb/s at once, then
           a=100, b=200, c=300 Mb/s at once (and unpoliced); iperf3 UDP offered 1.2x the limit
           (--policing-proto tcp for TCP), configured versus measured and error %. p4switch:
           `ports.P.policer` of the vrouter description; Linux: nftables `limit rate over` in
           the bridge forward hook (this kernel has no tc police action); OVS:
           ingress_policing_rate.
cpu        one iperf3 flow a -> c through each DUT, UDP at the same offered rate (--cpu-mbps)
           and TCP unlimited: CPU seconds of the DUT process (p4switch, ovs-vswitchd; the Linux
           bridge works inside the senders' kernel context, counted in iperf3's CPU) and iperf3's
           own CPU figures. Published: Utomo et al., docs/scenarios.md S4.
Results: bench/results/<stamp>-s4/.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import capture, compare, figures, iperf, published, report
from .common import choose, DUTS, Progress, dut_names, main_guard, parser, pick, profile, profile_note, say, settings
from .dut import OvsNetdev, P4Switch, cpu_seconds
from .netns import BenchError, Topology, sh

PARTS = ("isolation", "policing", "cpu")


def topology(prefix: str, n: int) -> Topology:
    t = Topology(prefix)
    for i in range(n):
        t.add_host("abcdef"[i], ip=f"10.0.0.{i + 1}/24")
    return t


def police(dut, topo: Topology, limits: dict[str, float]) -> None:
    """Configure ingress policing on the named hosts' ports (Mb/s) and start the DUT in L2 mode."""
    if isinstance(dut, P4Switch):
        pol = {f"p{h}": {"cir": f"{m:g}mbit", "cburst": f"{max(64_000, int(m * 1e6 / 8 * 0.01))}"}
               for h, m in limits.items()}
        dut.l2(policers=pol or None, port_policer={f"{topo.prefix}-{h}": f"p{h}" for h in limits})
    elif isinstance(dut, OvsNetdev):
        dut.l2()
        for h, m in limits.items():
            dut.police(topo.host(h), int(m * 1000), max(64, int(m * 10)))
    else:
        # this kernel has no tc police action: nftables limit rules in the bridge forward hook
        dut.l2()
        rules = "\n".join(f'    iifname "{topo.host(h).peer}" limit rate over {int(m * 1e6 / 8 / 1000)} kbytes/second '
                          f'burst {max(64_000, int(m * 1e6 / 8 * 0.01))} bytes drop' for h, m in limits.items())
        if rules:
            script = f"table bridge {topo.prefix}police {{\n  chain police {{\n    type filter hook forward priority 0;\n" \
                     f"{rules}\n  }}\n}}\n"
            p = subprocess.run(["ip", "netns", "exec", topo.sw, "nft", "-f", "-"], input=script, text=True,
                               capture_output=True)
            if p.returncode:
                raise BenchError(f"nft: {p.stderr.strip()[:300]}")


def ping_matrix(topo: Topology) -> dict[str, bool]:
    """Does each host reach each other one (one echo, 1 s timeout)? All pairs at once, so
    the unreachable ones cost one timeout in total, not one each."""
    procs = {f"{a.name[-1]}->{b.name[-1]}": subprocess.Popen(
                 ["ip", "netns", "exec", a.name, "ping", "-n", "-c1", "-W1", b.addr],
                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for a in topo.hosts for b in topo.hosts if a is not b}
    return {pair: " 0% packet loss" in p.communicate(timeout=30)[0] for pair, p in procs.items()}


def isolation(name: str, args, wd: Path) -> dict:
    res = {}
    for phase, vlan_of in (("before", None), ("after", {"a": 10, "b": 20, "c": 10, "d": 20})):
        topo = topology(args.prefix, 4)
        with topo:
            dut = DUTS[name](topo, wd)
            try:
                dut.l2({f"{topo.prefix}-{k}": v for k, v in vlan_of.items()} if vlan_of else None)
                res["dut"] = dut.name
                got = ping_matrix(topo)
            finally:
                dut.stop()
        same = lambda p: vlan_of is None or vlan_of[p[0]] == vlan_of[p[-1]]
        res[phase] = {"matrix": got, "expected": {p: same(p) for p in got},
                      "unexpected": sorted(p for p in got if got[p] != same(p))}
        say(f"  isolation {phase} on {res['dut']}: {sum(got.values())}/{len(got)} pairs reach, "
            f"{len(res[phase]['unexpected'])} unexpected")
    return res


def policing(name: str, args, wd: Path) -> dict:
    runs = {"unpoliced": {"a": None}, "two tenants": {"a": 100, "b": 50},
            "three tenants": {"a": 100, "b": 200, "c": 300}}
    secs = pick(args, 30, 8, 3)
    res = {"runs": []}
    for label, limits in runs.items():
        topo = topology(args.prefix, 6)
        with topo:
            dut = DUTS[name](topo, wd)
            try:
                police(dut, topo, {h: m for h, m in limits.items() if m})
                res["dut"] = dut.name
                recv = {"a": "d", "b": "e", "c": "f"}
                pairs = [(topo.host(h), topo.host(recv[h]),
                          None if args.policing_proto == "tcp" else (m * 1.2 if m else args.unpoliced_mbps))
                         for h, m in limits.items()]
                got = iperf.start(pairs, secs)
            finally:
                dut.stop()
        for (h, m), g in zip(limits.items(), got):
            err = 100 * (g["received_mbps"] - m) / m if m else None
            res["runs"].append({"run": label, "host": h, "configured_mbps": m, **g, "error_percent": err})
            say(f"  policing {label} on {res['dut']}: {h} configured {m or '-'} Mb/s, "
                f"measured {g['received_mbps']:.1f} Mb/s")
    return res


def cpu(name: str, args, wd: Path) -> dict:
    """CPU of the switch and of the iperf3 ends for UDP and TCP a -> c, with all four hosts in
    one VLAN (before isolation) and with a, c in VLAN 10 and b, d in VLAN 20 (after), as the
    study measured before and after isolation (Figure 6) and per protocol (Table 3)."""
    secs = pick(args, 30, 8, 3)
    res = {"runs": []}
    for (phase, vlan_of), (proto, rate) in ((p, q) for p in (("before", None), ("after", {"a": 10, "b": 20, "c": 10, "d": 20}))
                                            for q in (("udp", args.cpu_mbps), ("tcp", None))):
        topo = topology(args.prefix, 4)
        with topo:
            dut = DUTS[name](topo, wd)
            try:
                dut.l2({f"{topo.prefix}-{k}": v for k, v in vlan_of.items()} if vlan_of else None)
                res["dut"] = dut.name
                sh("ping", "-n", "-c1", "-W1", "10.0.0.3", ns=topo.host("a").name, check=False)
                pids = dut.pids()
                c0, t0 = cpu_seconds(pids), time.monotonic()
                g = iperf.start([(topo.host("a"), topo.host("c"), rate)], secs)[0]
                c1, t1 = cpu_seconds(pids), time.monotonic()
            finally:
                dut.stop()
        dut_cpu = 100 * (c1 - c0) / (t1 - t0) if pids else None
        gbytes = g["received_mbps"] * secs / 8 / 1000
        res["runs"].append({"protocol": proto, "phase": phase, **g, "dut_cpu_percent": dut_cpu,
                            "dut_cpu_seconds_per_gb": (c1 - c0) / gbytes if pids and gbytes else None})
        say(f"  cpu {proto} {phase} isolation on {res['dut']}: {g['received_mbps']:.1f} Mb/s, DUT CPU "
            f"{'-' if dut_cpu is None else f'{dut_cpu:.0f} %'}, iperf3 sender {g['sender_cpu_percent']:.0f} %")
    return res


def write_report(d: Path, data: dict) -> None:
    ref = published.load("s4")
    m = data["machine"]
    md = [f"# S4 virtual switch: isolation, policing, CPU ({data['stamp']})", "",
          report.load_note(m), "",
          f"{report.machine_line(m)}, {m['ovs'] or 'no OVS'}{data.get('profile_note', '')}. iperf3 runs of "
          f"{data.get('seconds_per_run', '?')} s.", "",
          f"Published: {published.citation(ref)}: every table beside ours in \"Published beside ours\".", ""]
    iso = data.get("isolation", {})
    if iso:
        md += ["## VLAN isolation (ping matrix: reaching pairs of 12)", ""]
        rows = [[r["dut"], sum(r["before"]["matrix"].values()), sum(r["after"]["matrix"].values()),
                 ", ".join(r["after"]["unexpected"] + r["before"]["unexpected"]) or "none"] for r in iso.values()]
        md += [report.md_table(["DUT", "before (expect 12)", "after (expect 4)", "unexpected pairs"], rows),
               ""]
    pol = data.get("policing", {})
    if pol:
        md += ["## Ingress policing: configured versus measured", ""]
        fig7 = published.table(ref, "Figure 7 and text")
        pub = published.series(fig7, "configured_mbps", "measured_mbps")
        unpoliced = published.table(ref, "Figure 7 and text (unpoliced)")["rows"][0][0]
        rows = []
        for r in pol.values():
            for x in r["runs"]:
                rows.append([r["dut"], x["run"], x["host"], x["configured_mbps"], x["received_mbps"],
                             x["error_percent"], pub.get(x["configured_mbps"]) if x["run"] == "three tenants"
                             else (unpoliced if x["run"] == "unpoliced" else None)])
        md += [report.md_table(["DUT", "run", "sender", "configured Mb/s", "measured Mb/s", "error %",
                                "published Mb/s"], rows), ""]
    cp = data.get("cpu", {})
    if cp:
        md += ["## CPU at the same load", ""]
        rows = [[r["dut"], x.get("phase", "before"), x["protocol"], x["offered_mbps"], x["received_mbps"], x["dut_cpu_percent"],
                 x["dut_cpu_seconds_per_gb"], x["sender_cpu_percent"], x["receiver_cpu_percent"]]
                for r in cp.values() for x in r["runs"]]
        md += [report.md_table(["DUT", "isolation", "proto", "offered Mb/s", "received Mb/s", "DUT process CPU %",
                                "DUT CPU s/GB", "iperf3 sender CPU %", "iperf3 receiver CPU %"], rows), "",
               "The Linux bridge has no process of its own: its work is in the senders' kernel context.",
               ""]
    md += compare.sections("s4", data)
    md += [f"![{label}]({png.name})" for label, png in figures.make("s4", data, d)] + [""]
    report.write_md(d, md, [(f"{e['part']} on {e['dut']}", e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--parts", default=",".join(PARTS), help="comma list of isolation, policing, cpu")
    ap.add_argument("--policing-proto", choices=("udp", "tcp"), default="udp")
    ap.add_argument("--unpoliced-mbps", type=float, default=1000.0, help="UDP offered rate of the unpoliced run")
    ap.add_argument("--cpu-mbps", type=float, help="UDP rate of the CPU comparison (default 200, quick 100)")
    args = ap.parse_args()
    settings(args)
    args.cpu_mbps = args.cpu_mbps or (100.0 if args.quick else 200.0)
    parts = choose(args.parts, PARTS, "--parts")
    duts = dut_names(args)
    capture.arm(args.pcap, args.prefix)
    d = report.new_run("s4", args.out)
    data = {"scenario": "S4", "stamp": d.name, "quick": args.quick, "profile": profile(args),
            "profile_note": profile_note(args), "seconds_per_run": pick(args, 30, 8, 3), "machine": report.machine()}
    t0 = time.monotonic()
    fns = {"isolation": isolation, "policing": policing, "cpu": cpu}
    with tempfile.TemporaryDirectory(prefix="h10-s4-") as tmp:
        progress = Progress("S4", len(parts) * len(duts))
        for part in parts:
            for name in duts:
                progress.step(f"{part} on {name}")
                try:
                    data.setdefault(part, {})[name] = fns[part](name, args, Path(tmp))
                except BenchError as e:
                    say(f"  {name}: {e}")
                    data.setdefault("errors", []).append({"part": part, "dut": name, "error": str(e)})
                report.write_json(d, data)
    report.finish(d, data, t0, "S4", lambda: write_report(d, data), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
