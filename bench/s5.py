"""S5 virtual firewall: two VLANs routed through an ACL of N rules, stateful mode off and on.

    python -m bench.s5 [--quick|--standard] [--rules 1,100,1000,10000] [--duts p4switch,linux] [--nat on,off]

Host a (VLAN 10) and host b (VLAN 20) are routed by the DUT. The rule set has N rules of
which only the last (permit a's subnet to b's subnet) matches the traffic; the others deny
addresses that never appear. Stateful on: p4switch's firewall zones (a's VLAN trusted, b's
untrusted); nftables `ct state` rules on Linux. Per rule count and mode: iperf3 TCP with
10 streams a -> b (as the study did) and 64-byte RFC 2544 throughput (searched from the
previous rule count's result, or the same DUT's stateless one: common.throughput_from). The same rule sets in
nftables on the Linux router are the baseline. As the study measured NAT off and on, the
stateful runs are repeated with NAT on: masquerade towards b (p4switch: b's router interface
`nat: masquerade`, vrouter.p4's data-plane NAPT; nftables: `masquerade` in postrouting).
With NAT on, a check also asserts that b saw a's TCP connection coming from the router's
address (the translation happened).

Correctness checks per run: a flow whose source matches the first decoy rule must not
arrive at b (p4gen, 1 s), and afterwards the per-rule counters (p4switch: the ACL's
direct counters via `vrouter show acl`; nftables: `counter` on every rule) must show
packets only on that decoy and the intended rule. Published: Hokkanen, docs/scenarios.md S5.
Results: bench/results/<stamp>-s5/.
"""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import capture, compare, figures, iperf, published, report, rfc2544
from .common import DUTS, Progress, main_guard, parser, pick, profile, profile_note, say, settings, throughput_from
from .dut import ROOT, P4Switch, l3_plan
from .netns import BenchError, Topology, sh

PUBLISHED = published.load("s5")   # the study's tables, with citation
STUDY_TCP_SECONDS = 900.0      # Hokkanen, section 6: iperf3 -t 900 -P 10
TABLE11 = {r[0]: r for r in published.table(PUBLISHED, "Table 11")["rows"]}   # policies -> [n, no NAT, NAT]


ACL_TABLE = "ingress.acl.acl_ingress_table"


def acl_capacity(p4info: Path = ROOT / "build" / "vrouter.p4info.txtpb") -> int | None:
    """Entries vrouter.p4's ACL table holds (its size in the P4Info), None if unknown."""
    try:
        text = p4info.read_text()
    except OSError:
        return None
    for block in text.split("\ntables {")[1:]:
        if f'name: "{ACL_TABLE}"' in block:
            m = re.search(r"^  size: (\d+)", block, flags=re.M)
            return int(m.group(1)) if m else None
    return None


def decoy(i: int) -> str:
    return f"192.168.{i // 250}.{i % 250 + 1}/32"


def p4_rules(n: int) -> list[dict]:
    acl = [{"name": f"decoy{i}", "match": {"src": decoy(i), "dst": "10.0.20.0/24"}, "action": "deny"}
           for i in range(n - 1)]
    return acl + [{"name": "intended", "match": {"src": "10.0.10.0/24", "dst": "10.0.20.0/24"}, "action": "permit"}]


DECOY_SRC = decoy(0).split("/")[0]


def nft_script(n: int, stateful: bool, table: str, nat_dev: str | None = None) -> str:
    """The rule set in nftables; every ACL rule has a counter (evaluated only when its
    match succeeds, so it costs nothing on the rules the traffic does not match)."""
    lines = [f"table inet {table} {{", "  chain forward {", "    type filter hook forward priority 0; policy accept;"]
    if stateful:
        lines.append("    ct state established,related accept")
    lines += [f"    ip saddr {decoy(i)} ip daddr 10.0.20.0/24 counter drop" for i in range(n - 1)]
    lines.append("    ip saddr 10.0.10.0/24 ip daddr 10.0.20.0/24 " + ("ct state new " if stateful else "")
                 + "counter accept")
    if stateful:
        lines.append("    ip saddr 10.0.20.0/24 ip daddr 10.0.10.0/24 drop")
    lines.append("  }")
    if nat_dev:
        lines += ["  chain postrouting {", "    type nat hook postrouting priority 100; policy accept;",
                  f'    oifname "{nat_dev}" masquerade', "  }"]
    return "\n".join(lines + ["}", ""])


def nft_counts(sw: str, table: str) -> list[tuple[str, int]]:
    """(source prefix, packets) of every counted rule, in rule order."""
    out = sh("nft", "list", "chain", "inet", table, "forward", ns=sw)
    return [(m.group(1), int(m.group(2))) for m in
            re.finditer(r"ip saddr (\S+) ip daddr \S+ (?:ct state new )?counter packets (\d+)", out)]


def p4_counts(sw: str, desc: Path) -> list[tuple[str, int]]:
    """(source prefix, packets) of every ACL entry, from its direct counter (`vrouter show acl`)."""
    out = sh(str(ROOT / ".venv" / "bin" / "vrouter"), "show", "--json", "acl", str(desc), ns=sw, timeout=120)
    try:
        rows = json.loads(out)
    except ValueError:
        raise BenchError(f"vrouter show acl: not JSON: {out[:200]}")
    if isinstance(rows, dict):      # {switch: rows}
        rows = next(iter(rows.values()), [])
    res = []
    for r in rows:
        m = re.search(r"src\S*=(\S+?)(?:,|\s|$)", r.get("match", "")) or re.search(r"(\d+\.\d+\.\d+\.\d+/\d+)",
                                                                                r.get("match", ""))
        res.append((m.group(1) if m else r.get("match", ""), int(r.get("packets") or 0)))
    return res


def rule_check(counts: list[tuple[str, int]], n: int, decoy_sent: int) -> dict:
    """Only the intended rule (10.0.10.0/24) and the first decoy (the decoy flow) counted packets."""
    hit = {src: c for src, c in counts if c}
    intended = sum(c for src, c in counts if src.startswith("10.0.10."))
    decoy0 = sum(c for src, c in counts if src.startswith(DECOY_SRC))
    others = {src: c for src, c in hit.items() if not src.startswith(("10.0.10.", DECOY_SRC))}
    ok = len(counts) == n and intended > 0 and decoy0 >= decoy_sent and not others
    return {"rules_read": len(counts), "intended_packets": intended, "decoy0_packets": decoy0,
            "other_rules_hit": others, "ok": ok}


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


def connection_source(inside, outside) -> str | None:
    """The source address `outside` sees on a TCP connection from `inside` (the router's
    address when NAT is on, inside's own otherwise); None if the connection failed."""
    srv = subprocess.Popen(["ip", "netns", "exec", outside.name, "timeout", "5", "python3", "-c",
                            "import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
                            "s.bind(('', 5298)); s.listen(1); c, a = s.accept(); print(a[0])"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(0.5)
        subprocess.run(["ip", "netns", "exec", inside.name, "timeout", "3", "bash", "-c",
                        f"echo > /dev/tcp/{outside.addr}/5298"], capture_output=True)
        out, _ = srv.communicate(timeout=6)
        return out.strip() or None
    except subprocess.TimeoutExpired:
        return None
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()


def decoy_flow(a, b, gw_mac: str, n: int) -> dict | None:
    """A 1000 pps flow for 1 s from a with the first decoy rule's source address: the
    decoy rule must drop all of it. None with 1 rule (there is no decoy then)."""
    if n < 2:
        return None
    fake = dataclasses.replace(a, ip=f"{DECOY_SRC}/32")
    t = rfc2544.trial([rfc2544.Flow(fake, b, gw_mac)], 64, 1000, 1.0)
    return {"sent": t.sent, "received": t.received, "dropped_all": t.sent > 0 and t.received == 0}


def measure(name: str, n: int, stateful: bool, nat: bool, args, st, wd: Path, seed: float | None) -> dict:
    topo = Topology(args.prefix)
    a, b = topo.add_host("a"), topo.add_host("b")
    l3_plan(topo)
    table = f"{args.prefix}fw"
    with topo:
        dut = DUTS[name](topo, wd)
        try:
            t0 = time.monotonic()
            if isinstance(dut, P4Switch):
                extra = {"acl": p4_rules(n)}
                if stateful:
                    extra["firewall"] = {"zones": {"inside": [a.vlan], "outside": [b.vlan]},
                                         "pairs": [{"trusted": "inside", "untrusted": "outside"}]}
                dut.l3(**extra)
                if nat:
                    desc = dut.desc
                    desc["switches"]["s1"]["vlans"][b.vlan]["interface"]["nat"] = "masquerade"
                    dut.reconfigure(desc)
            else:
                dut.l3()
                # no reverse-path filter: the decoy flow's source must reach the rules, not die before them
                for key in ("all", "default", a.peer):
                    sh("sysctl", "-qw", f"net.ipv4.conf.{key}.rp_filter=0", ns=topo.sw, check=False)
                p = subprocess.run(["ip", "netns", "exec", topo.sw, "nft", "-f", "-"], text=True, capture_output=True,
                                   input=nft_script(n, stateful, table, b.peer if nat else None))
                if p.returncode:
                    raise BenchError(f"nft: {p.stderr.strip()[:300]}")
            setup_s = time.monotonic() - t0
            dut.warm_up()
            opens = outside_can_open(b, a)
            seen_from = connection_source(a, b)
            gw = dut.gateway_mac(a)
            dec = decoy_flow(a, b, gw, n)
            tcp = iperf.start([(a, b, None)], args.tcp_seconds, streams=10)[0]
            flows = [rfc2544.Flow(a, b, gw)]
            s = throughput_from(flows, 64, st, seed, progress=say)
            counts = (p4_counts(topo.sw, dut.workdir / f"{dut.name}-vrouter.yaml") if isinstance(dut, P4Switch)
                      else nft_counts(topo.sw, table))
        finally:
            dut.stop()
    r = {"dut": dut.name, "rules": n, "stateful": stateful, "nat": nat, "setup_seconds": setup_s,
         "tcp10_mbps": tcp["received_mbps"],
         "outside_can_open": opens, "firewall_as_expected": opens != stateful, "decoy_flow": dec,
         "b_sees_source": seen_from, "nat_as_expected": seen_from == (b.gateway if nat else a.addr),
         "rule_counters": rule_check(counts, n, dec["sent"] if dec else 0),
         "rfc2544_64_pps": s.throughput_pps, "rfc2544_64_mbps": s.throughput_mbps,
         "generator_limited": s.generator_limited, "trials": s.trials}
    say(f"  {r['dut']} {n} rules stateful={stateful} nat={nat}: TCP x10 {r['tcp10_mbps']:.0f} Mb/s, "
        f"64 B {r['rfc2544_64_pps']:.0f} pps; decoy flow "
        f"{'(no decoy rule)' if dec is None else str(dec['received']) + '/' + str(dec['sent']) + ' arrived'}, "
        f"rule counters {'as expected' if r['rule_counters']['ok'] else 'NOT as expected: ' + str(r['rule_counters'])}; "
        f"b sees a's TCP from {seen_from} ({'as expected' if r['nat_as_expected'] else 'NOT as expected'})")
    return r


def write_report(d: Path, data: dict) -> None:
    m = data["machine"]
    md = [f"# S5 virtual firewall ({data['stamp']})", "",
          report.load_note(m), "",
          f"{report.machine_line(m)}{data.get('profile_note', '')}. Only the last rule matches the traffic.", "",
          f"Published: {published.citation(PUBLISHED)}: Table 11 (stateful, 1/100/1000 policies, NAT off and on) "
          "beside the stateful rows; every table in \"Published beside ours\".", "",
          "NAT: the stateful rule sets run with NAT off and on on both DUTs (masquerade towards b: p4switch's "
          "data-plane NAPT, docs/p4-program.md 11a; nftables `masquerade`).", ""]
    yes = lambda ok: "yes" if ok else "**no**"
    rows = [[r["dut"], r["rules"], "on" if r["stateful"] else "off", "on" if r.get("nat") else "off",
             r["tcp10_mbps"], compare.pub(TABLE11[r["rules"]][2 if r.get("nat") else 1])
             if r["stateful"] and r["rules"] in TABLE11 else None, r["rfc2544_64_pps"],
             r["rfc2544_64_mbps"], yes(r["firewall_as_expected"]),
             f"{yes(r['decoy_flow']['dropped_all'])} ({r['decoy_flow']['received']}/{r['decoy_flow']['sent']})"
             if r.get("decoy_flow") else "no decoy (1 rule)",
             yes(r["rule_counters"]["ok"]) if "rule_counters" in r else None,
             f"{yes(r['nat_as_expected'])} ({r['b_sees_source']})" if "nat_as_expected" in r else None]
            for r in data["runs"]]
    md += [report.md_table(["DUT", "rules", "stateful", "NAT", "iperf3 TCP x10 Mb/s", "published Mb/s (Table 11)",
                            "64 B zero-loss pps", "64 B Mb/s", "b->a blocked iff stateful",
                            "decoy flow dropped (arrived/sent)", "only intended + decoy rule counted",
                            "b sees a's TCP from the router iff NAT (source seen)"], rows), "",
           "Correctness checks: (1) with the stateful firewall on, host b (untrusted) must not be able to open a "
           "TCP connection to host a; with it off it must. (2) A 1 s, 1000 pps flow from a whose source "
           f"address ({DECOY_SRC}) matches the first decoy rule must not arrive at b. (3) After all the traffic, "
           "the per-rule packet counters (p4switch: ACL direct counters read with `vrouter show acl`; nftables: "
           "`counter` on each rule) must be zero on every rule except the intended one (the measured "
           "traffic) and the first decoy (the decoy flow). (4) A TCP connection from a to b must arrive from the "
           "router's address on b's side with NAT on, from a's own address with it off.", ""]
    p4 = {(r["rules"], r["stateful"], bool(r.get("nat"))): r for r in data["runs"] if r["dut"] != "linux-router"}
    key = lambda r: (r["rules"], r["stateful"], bool(r.get("nat")))
    ratios = [[r["rules"], "on" if r["stateful"] else "off", "on" if r.get("nat") else "off",
               p4[key(r)]["tcp10_mbps"] / r["tcp10_mbps"] if r["tcp10_mbps"] else None,
               p4[key(r)]["rfc2544_64_pps"] / r["rfc2544_64_pps"] if r["rfc2544_64_pps"] else None]
              for r in data["runs"] if r["dut"] == "linux-router" and key(r) in p4]
    if ratios:
        md += ["Ratios p4switch / nftables (same rule count, stateful mode and NAT mode):", "",
               report.md_table(["rules", "stateful", "NAT", "TCP x10 ratio", "64 B pps ratio"], ratios), ""]
    for g in {g["gap"] for g in data.get("gaps", [])}:
        md += [f"**Gap:** {g}.", ""]
    bad = [r for r in data["runs"] if "rule_counters" in r and not r["rule_counters"]["ok"]]
    for r in bad:
        md.append(f"- {r['dut']} {r['rules']} rules stateful={r['stateful']}: counters {r['rule_counters']}")
    if bad:
        md.append("")
    md += compare.sections("s5", data)
    md += [f"![{label}]({png.name})" for label, png in figures.make("s5", data, d)] + [""]
    report.write_md(d, md, [(e["what"], e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.set_defaults(duts="p4switch,linux")
    ap.add_argument("--rules", help="comma list of rule counts (default 1,100,1000,10000; quick 1,1000)")
    ap.add_argument("--nat", default="off,on", help="NAT modes of the stateful runs (both DUTs): off,on")
    ap.add_argument("--tcp-seconds", type=float, help="length of the iperf3 TCP run (--full: the study's 900; "
                    "standard 5, quick 3)")
    args = ap.parse_args()
    st = settings(args)
    args.tcp_seconds = args.tcp_seconds or pick(args, STUDY_TCP_SECONDS, 5.0, 3.0)
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
    nats = [x.strip() for x in args.nat.split(",") if x.strip()]
    if not nats or any(x not in ("off", "on") for x in nats):
        raise BenchError("--nat: off, on or off,on")
    capture.arm(args.pcap, args.prefix)
    d = report.new_run("s5", args.out)
    data = {"scenario": "S5", "stamp": d.name, "quick": args.quick, "profile": profile(args),
            "profile_note": profile_note(args), "machine": report.machine(), "tcp_seconds": args.tcp_seconds,
            "runs": []}
    t0 = time.monotonic()
    plan = [(n, stateful, name, nat) for n in counts for stateful in (False, True) for name in duts
            for nat in ([x == "on" for x in nats] if stateful else [False])]
    seeds: dict[tuple, float] = {}
    cap = acl_capacity()
    with tempfile.TemporaryDirectory(prefix="h10-s5-") as tmp:
        progress = Progress("S5", len(plan))
        for k, (n, stateful, name, nat) in enumerate(plan):
            progress.step(f"{n} rules, stateful {stateful}, NAT {nat}, {name}")
            if name == "p4switch" and cap is not None and n > cap:
                gap = (f"vrouter.p4's ACL table ({ACL_TABLE}) holds {cap} entries (its size in "
                       f"build/vrouter.p4info.txtpb); {n} rules do not fit, not measured")
                say(f"  {gap}")
                data.setdefault("gaps", []).append({"rules": n, "stateful": stateful, "gap": gap})
                continue
            try:
                # seed: this configuration's previous rule count, else the same DUT's stateless result
                seed = seeds.get((name, stateful, nat)) or seeds.get((name, False, False))
                r = measure(name, n, stateful, nat, args, st, Path(tmp), seed)
                seeds[(name, stateful, nat)] = r["rfc2544_64_pps"] or None
                data["runs"].append(r)
            except BenchError as e:
                say(f"  {e}")
                data.setdefault("errors", []).append({"what": f"{name} {n} rules stateful={stateful} nat={nat}",
                                                      "error": str(e)})
            report.write_json(d, data)
    report.finish(d, data, t0, "S5", lambda: write_report(d, data), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
