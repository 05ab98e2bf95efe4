"""S5 virtual firewall: two VLANs routed through an ACL of N rules, stateful mode off and on.

    python -m bench.s5 [--quick] [--rules 1,100,1000,10000] [--duts p4switch,linux]

Host a (VLAN 10) and host b (VLAN 20) are routed by the DUT. The rule set has N rules of
which only the last (permit a's subnet to b's subnet) matches the traffic; the others deny
addresses that never appear. Stateful on: p4switch's firewall zones (a's VLAN trusted, b's
untrusted); nftables `ct state` rules on Linux. Per rule count and mode: iperf3 TCP with
10 streams a -> b (as the study did) and 64-byte RFC 2544 throughput. The same rule sets in
nftables on the Linux router are the baseline. Published: Hokkanen, SCENARIOS.md S5.
Results: bench/results/<stamp>-s5/.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import iperf, report, rfc2544
from .common import DUTS, main_guard, parser, say, settings
from .dut import P4Switch, l3_plan
from .netns import BenchError, Topology

PUBLISHED = {"citation": "Hokkanen, \"Evaluation of Virtual Firewall in Private Cloud\" (Fortigate-VM on "
             "Hyper-V), as summarised in SCENARIOS.md S5",
             "vm_to_vm_mbps": 1930, "firewall_mbps": {"1": 1900, "100": 1900, "1000": 1900}}


def decoy(i: int) -> str:
    return f"192.168.{i // 250}.{i % 250 + 1}/32"


def p4_rules(n: int) -> list[dict]:
    acl = [{"name": f"decoy{i}", "match": {"src": decoy(i), "dst": "10.0.20.0/24"}, "action": "deny"}
           for i in range(n - 1)]
    return acl + [{"name": "intended", "match": {"src": "10.0.10.0/24", "dst": "10.0.20.0/24"}, "action": "permit"}]


def nft_script(n: int, stateful: bool, table: str) -> str:
    lines = [f"table inet {table} {{", "  chain forward {", "    type filter hook forward priority 0; policy accept;"]
    if stateful:
        lines.append("    ct state established,related accept")
    lines += [f"    ip saddr {decoy(i)} ip daddr 10.0.20.0/24 drop" for i in range(n - 1)]
    lines.append("    ip saddr 10.0.10.0/24 ip daddr 10.0.20.0/24 " + ("ct state new " if stateful else "") + "accept")
    if stateful:
        lines.append("    ip saddr 10.0.20.0/24 ip daddr 10.0.10.0/24 drop")
    return "\n".join(lines + ["  }", "}", ""])


def outside_can_open(outside, inside) -> bool:
    """Can the untrusted side open a TCP connection to the trusted side? (functional check)"""
    srv = subprocess.Popen(["ip", "netns", "exec", inside.name, "iperf3", "-s", "-1", "-p", "5299"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        r = subprocess.run(["ip", "netns", "exec", outside.name, "timeout", "3", "bash", "-c",
                            f"echo > /dev/tcp/{inside.addr}/5299"], capture_output=True)
        return r.returncode == 0
    finally:
        srv.kill()
        srv.wait()


def measure(name: str, n: int, stateful: bool, args, st, wd: Path) -> dict:
    topo = Topology(args.prefix)
    a, b = topo.add_host("a"), topo.add_host("b")
    l3_plan(topo)
    with topo:
        dut = DUTS[name](topo, wd)
        try:
            if isinstance(dut, P4Switch):
                extra = {"acl": p4_rules(n)}
                if stateful:
                    extra["firewall"] = {"zones": {"inside": [a.vlan], "outside": [b.vlan]},
                                         "pairs": [{"trusted": "inside", "untrusted": "outside"}]}
                dut.l3(**extra)
            else:
                dut.l3()
                p = subprocess.run(["ip", "netns", "exec", topo.sw, "nft", "-f", "-"], text=True, capture_output=True,
                                   input=nft_script(n, stateful, f"{args.prefix}fw"))
                if p.returncode:
                    raise BenchError(f"nft: {p.stderr.strip()[:300]}")
            dut.warm_up()
            opens = outside_can_open(b, a)
            tcp = iperf.start([(a, b, None)], 3 if args.quick else 30, streams=10)[0]
            flows = [rfc2544.Flow(a, b, dut.gateway_mac(a))]
            s = rfc2544.throughput(flows, 64, st, progress=say)
        finally:
            dut.stop()
    r = {"dut": dut.name, "rules": n, "stateful": stateful, "tcp10_mbps": tcp["received_mbps"],
         "outside_can_open": opens, "firewall_as_expected": opens != stateful,
         "rfc2544_64_pps": s.throughput_pps, "rfc2544_64_mbps": s.throughput_mbps,
         "generator_limited": s.generator_limited, "trials": s.trials}
    say(f"  {r['dut']} {n} rules stateful={stateful}: TCP x10 {r['tcp10_mbps']:.0f} Mb/s, "
        f"64 B {r['rfc2544_64_pps']:.0f} pps")
    return r


def write_report(d: Path, data: dict) -> None:
    m = data["machine"]
    md = [f"# S5 virtual firewall ({data['stamp']})", "",
          f"Machine: {m['cores']} cores, {m['cpu']}, kernel {m['kernel']}, load {' '.join(m['loadavg'])} at start, "
          f"git {m['git']}{' (--quick)' if data['quick'] else ''}. Only the last rule matches the traffic.", "",
          f"Published: {PUBLISHED['citation']}: VM to VM {PUBLISHED['vm_to_vm_mbps']} Mb/s, through the "
          f"firewall 1900 Mb/s with 1, 100 and 1000 policies (iperf3, 10 streams).", ""]
    rows = [[r["dut"], r["rules"], "on" if r["stateful"] else "off", r["tcp10_mbps"],
             PUBLISHED["firewall_mbps"].get(str(r["rules"])), r["rfc2544_64_pps"],
             r["rfc2544_64_mbps"], "yes" if r["firewall_as_expected"] else "**no**"] for r in data["runs"]]
    md += [report.md_table(["DUT", "rules", "stateful", "iperf3 TCP x10 Mb/s", "published Mb/s",
                            "64 B zero-loss pps", "64 B Mb/s", "b->a blocked iff stateful"], rows), "",
           "Functional check: with the stateful firewall on, host b (untrusted) must not be able to open a "
           "TCP connection to host a; with it off it must.", ""]
    series = {}
    for r in data["runs"]:
        key = f"{r['dut']} stateful {'on' if r['stateful'] else 'off'}"
        xs, ys = series.setdefault(key, ([], []))
        xs.append(r["rules"])
        ys.append(r["tcp10_mbps"])
    if series:
        png = report.plot_lines(d / "s5-tcp.png", "S5 firewall: iperf3 TCP, 10 streams", "rules", "Mb/s", series,
                                {"Fortigate-VM": ([1, 100, 1000], [1900, 1900, 1900])}, logx=True)
        md += [f"![S5]({png.name})", ""]
    report.write_md(d, md, [(e["what"], e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.set_defaults(duts="p4switch,linux")
    ap.add_argument("--rules", help="comma list of rule counts (default 1,100,1000,10000; quick 1,1000)")
    args = ap.parse_args()
    st = settings(args)
    try:
        counts = [int(x) for x in args.rules.split(",")] if args.rules else ([1, 1000] if args.quick
                                                                            else [1, 100, 1000, 10000])
    except ValueError:
        raise BenchError("--rules takes comma-separated integers")
    if any(c < 1 or c > 60000 for c in counts):
        raise BenchError("--rules: each count must be 1..60000")
    duts = [x for x in args.duts.split(",") if x]
    if any(x not in ("p4switch", "linux") for x in duts):
        raise BenchError("--duts: S5 runs on p4switch and linux (nftables)")
    d = report.new_run("s5", args.out)
    data = {"scenario": "S5", "stamp": d.name, "quick": args.quick, "machine": report.machine(), "runs": []}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="h10-s5-") as tmp:
        for n in counts:
            for stateful in (False, True):
                for name in duts:
                    say(f"S5 {n} rules, stateful {stateful}, {name} ({time.monotonic() - t0:.0f} s elapsed)")
                    try:
                        data["runs"].append(measure(name, n, stateful, args, st, Path(tmp)))
                    except BenchError as e:
                        say(f"  {e}")
                        data.setdefault("errors", []).append({"what": f"{name} {n} rules stateful={stateful}",
                                                              "error": str(e)})
                    report.write_json(d, data)
    data["seconds"] = time.monotonic() - t0
    report.write_json(d, data)
    write_report(d, data)
    say(f"S5 done in {data['seconds']:.0f} s: {d / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
