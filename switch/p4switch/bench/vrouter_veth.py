"""vrouter.p4 over veth, as the vrouter controller configures it, against the Linux kernel
(part of `make bench-switch`; needs root, the release build, build/vrouter.json and .venv).

Cases (64-byte UDP frames, host A on switch port 1 -> host B on port 2):
  l2         A and B in VLAN 10, bridged (static stations)
  l3         A in VLAN 10, B in VLAN 20, routed through the router interfaces
  l3_acl     l3 + 10,000 ACL rules the traffic does not match
  mpls_push  l3 traffic to 10.60.0.1, an ingress LSP pushes label 1001 towards B
For each case, each p4switch worker count and the kernel (bridge for l2, router for the
others; the kernel has no ACL here and this kernel no MPLS routing) and 1, 2, 4 flows
(source addresses .10, .11, ... whose flow hashes alternate between two workers):
  zero-loss pps    binary search with p4gen (bench/rfc2544.py), median of REPEAT searches
                   with their spread; `generator_limited` when the generator, not the DUT,
                   fell short at the top
  CPU per packet   during the trial at 90 % of the zero-loss rate: the switch's threads
                   (/proc/PID/task/*/schedstat; user and system time from /proc/PID/stat)
                   and the machine's softirq time (/proc/stat), each divided by the frames
                   received. This kernel counts CPU time by
                   ticks, so softirq work done in the switch's own context appears in both
                   columns; `total` = switch + softirq over-counts p4switch, never the kernel
  latency          one-way p50/p99/p99.9 at 10/50/90 % of the zero-loss rate
CPU and latency come from REPEAT trials at each rate: medians (the CPU figures of the trial
with the median total, so the parts add up) and the spread of total CPU and of p99.
Beside each p4switch row: the kernel's row with the same flows (pps and CPU ratios) and a
kernel trial at that row's own 90 % rate (CPU per packet and p99 at the same offered load).
Generator: its ceiling per flow count (A -> B over one bare veth pair, offered 5 Mpps) and
the softirq time per frame of that bare path at 100 kpps (the floor both DUTs share).
In-process: `bench_vrouter` (ns per packet on one core, the same four cases and the campus
ACL), on each execution path the engine has (compiled plan and interpreter once it has both).

usage: vrouter_veth.py --out FILE.json [--quick] [--repeat N] [--workers 1,2] [--flows 1,2,4]
                       [--cases l2,l3,l3_acl,mpls_push] [--trial-seconds S] [--prefix P]
Prints a table; writes every trial to FILE.json.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bench import capture, rfc2544  # noqa: E402
from bench.common import output_options  # noqa: E402
from bench.dut import LinuxKernel, P4Switch, l3_plan  # noqa: E402
from bench.netns import BenchError, Host, Topology, sh  # noqa: E402

FRAME = 64
CASES = ("l2", "l3", "l3_acl", "mpls_push")
LAT_PERCENTS = (10, 50, 90)
# a row's CPU figures, from its trials at 90 % of the zero-loss rate
CPU_KEYS = ("switch_cpu_ns_per_pkt", "switch_user_ns_per_pkt", "switch_sys_ns_per_pkt", "switch_threads_ns_per_pkt",
            "softirq_ns_per_pkt", "total_cpu_ns_per_pkt", "cpu_spread_pct")
MPLS_FEC_DST = "10.60.0.1"
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def log(msg: str) -> None:
    print(msg, flush=True)


# ---- CPU counters -------------------------------------------------------------------------

def softirq_ns() -> float:
    """Softirq time of all CPUs so far (/proc/stat, ticks of USER_HZ)."""
    f = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return int(f[7]) * TICK_NS


def threads_ns(pids: list[int]) -> dict[str, float]:
    """Run time of the processes' threads so far (schedstat, ns), summed by thread name
    (p4switch's workers are p4switch-w0, -w1 ...)."""
    by_name: dict[str, float] = {}
    for pid in pids:
        for t in Path(f"/proc/{pid}/task").glob("*"):
            try:
                ns = int((t / "schedstat").read_text().split()[0])
                name = (t / "comm").read_text().strip()
            except (OSError, ValueError, IndexError):
                continue
            by_name[name] = by_name.get(name, 0.0) + ns
    return by_name


def user_sys_ns(pids: list[int]) -> tuple[float, float]:
    """User and system time of the processes so far (/proc/PID/stat, ticks of USER_HZ)."""
    user = system = 0.0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            user, system = user + int(f[11]) * TICK_NS, system + int(f[12]) * TICK_NS
        except (OSError, ValueError, IndexError):
            pass
    return user, system


def measured_trial(flows: list[rfc2544.Flow], pps: float, seconds: float, pids: list[int]) -> dict:
    """One trial at `pps` with the CPU the switch and the machine's softirqs spent on it."""
    s0, t0, (u0, k0) = softirq_ns(), threads_ns(pids), user_sys_ns(pids)
    t = rfc2544.trial(flows, FRAME, pps, seconds)
    s1, t1, (u1, k1) = softirq_ns(), threads_ns(pids), user_sys_ns(pids)
    got = max(t.received, 1)
    # by thread name, so a thread that ends during the trial takes nothing away
    ran = {n: ns - t0.get(n, 0.0) for n, ns in sorted(t1.items()) if ns > t0.get(n, 0.0)}
    per_thread = {n: round(ns / got, 1) for n, ns in ran.items()}
    sw, si = sum(ran.values()) / got, (s1 - s0) / got
    return {"offered_pps": t.offered_pps, "achieved_pps": t.achieved_pps, "sent": t.sent,
            "received": t.received, "loss_ratio": t.loss_ratio,
            "switch_cpu_ns_per_pkt": round(sw, 1),
            # the same time split by where it went: user space (engine, rings) and kernel
            "switch_user_ns_per_pkt": round((u1 - u0) / got, 1), "switch_sys_ns_per_pkt": round((k1 - k0) / got, 1),
            "switch_threads_ns_per_pkt": per_thread,
            "softirq_ns_per_pkt": round(si, 1),
            "total_cpu_ns_per_pkt": round(sw + si, 1),
            "p50_us": t.lat_p50_us, "p99_us": t.lat_p99_us, "p999_us": t.lat_p999_us}


def repeated_trial(flows: list[rfc2544.Flow], pps: float, seconds: float, pids: list[int], repeat: int) -> dict:
    """`repeat` measured trials at `pps`: the CPU figures of the trial with the median total
    (so the parts still add up), the median of each latency percentile and of the loss, the
    spread (max - min over the median, %) of total CPU and of p99, and every trial."""
    runs = [measured_trial(flows, pps, seconds, pids) for _ in range(repeat)]
    out = dict(sorted(runs, key=lambda r: r["total_cpu_ns_per_pkt"])[len(runs) // 2])
    for k in ("p50_us", "p99_us", "p999_us", "loss_ratio", "received"):
        if all(r[k] is not None for r in runs):
            out[k] = statistics.median(r[k] for r in runs)

    def spread(k: str) -> float | None:
        vals = [r[k] for r in runs if r[k] is not None]
        mid = statistics.median(vals) if vals else 0
        return round(100 * (max(vals) - min(vals)) / mid, 1) if mid else None
    out.update(cpu_spread_pct=spread("total_cpu_ns_per_pkt"), p99_spread_pct=spread("p99_us"), trials=runs)
    return out


# ---- topologies and DUTs ------------------------------------------------------------------

def topology(prefix: str, case: str) -> Topology:
    topo = Topology(prefix=prefix)
    if case == "l2":
        topo.add_host("a", "10.0.10.2/24", vlan=10)
        topo.add_host("b", "10.0.10.3/24", vlan=10)
    else:
        topo.add_host("a")
        topo.add_host("b")
        l3_plan(topo)
    return topo.up()


def acl_rules(n: int = 10_000) -> list[dict]:
    """n rules from sources the generator never uses, in the shapes users write."""
    out = []
    for i in range(n):
        src = f"192.168.{i // 256 % 256}.{i % 256}/32"
        m = [{"src": src, "protocol": "tcp", "dst_port": 1000 + i % 5000},
             {"src": src, "protocol": "udp", "dst_port": f"{2000 + i % 1000}-{2100 + i % 1000}"},
             {"src": src, "dst": f"10.{i % 200}.0.0/16"},
             {"src": src, "protocol": "icmp"}][i % 4]
        out.append({"name": f"r{i}", "match": m, "action": "deny"})
    return out


def start_dut(dut: str, workers: int, case: str, topo: Topology, workdir: Path):
    a, b = topo.hosts
    if dut == "linux":
        d = LinuxKernel(topo, workdir)
        d.l2() if case == "l2" else d.l3()
    else:
        os.environ["SWITCH"] = f"{ROOT}/target/release/p4switch --workers {workers} --spread flow"
        d = P4Switch(topo, workdir)
        if case == "l2":
            d.l2({a.name: 10, b.name: 10})
        elif case == "l3":
            d.l3()
        elif case == "l3_acl":
            d.l3(acl=acl_rules())
        else:
            d.l3(lsps=[{"name": "push", "role": "ingress", "fec": "10.60.0.0/16", "labels": [1001],
                        "via": b.addr}])
    d.warm_up()
    return d


def flows_for(case: str, topo: Topology, dut, n: int) -> list[rfc2544.Flow]:
    a, b = topo.hosts
    dst = replace(b, ip=f"{MPLS_FEC_DST}/16") if case == "mpls_push" else b
    net = a.addr.rsplit(".", 1)[0]
    return [rfc2544.Flow(replace(a, ip=f"{net}.{10 + i}/24"), dst, b.mac if case == "l2" else dut.gateway_mac(a))
            for i in range(n)]


# ---- the generator alone ------------------------------------------------------------------

def generator(prefix: str, flow_counts: list[int], seconds: float) -> list[dict]:
    """Ceiling and softirq floor of p4gen itself: A -> B over one bare veth pair."""
    a = Host(f"{prefix}-ga", f"{prefix}-ga0", f"{prefix}-gb0", 1, "02:10:00:00:00:01", "10.0.10.2/24")
    b = Host(f"{prefix}-gb", f"{prefix}-gb0", f"{prefix}-ga0", 2, "02:10:00:00:00:02", "10.0.10.3/24")
    for ns in (a.name, b.name):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    out = []
    try:
        for ns in (a.name, b.name):
            sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", a.dev, "netns", a.name, "address", a.mac, "type", "veth", "peer", "name", b.dev,
           "netns", b.name, "address", b.mac)
        for h in (a, b):
            sh("ip", "-n", h.name, "link", "set", h.dev, "up")
            sh("ethtool", "-K", h.dev, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off",
               ns=h.name, check=False)
        for n in flow_counts:
            fl = [rfc2544.Flow(replace(a, ip=f"10.0.10.{10 + i}/24"), b, b.mac) for i in range(n)]
            top = rfc2544.trial(fl, FRAME, 5e6, min(seconds / 3, 0.5))   # 2.5 M frames at most
            floor = measured_trial(fl, 100_000, seconds, [])
            # the sender sends every frame of the trial however long it takes
            received_pps = top.achieved_pps * top.received / max(top.sent, 1)
            out.append({"flows": n, "ceiling_pps": round(top.achieved_pps), "ceiling_received_pps": round(received_pps),
                        "floor_softirq_ns_per_pkt": floor["softirq_ns_per_pkt"], "floor_at_pps": floor["offered_pps"]})
            log(f"generator, {n} flow(s): sends {top.achieved_pps:,.0f} pps into a bare veth pair "
                f"(its receiver gets {received_pps:,.0f}/s); softirq {floor['softirq_ns_per_pkt']:.0f} "
                f"ns/frame of that path at 100 kpps")
    finally:
        for ns in (a.name, b.name):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    return out


# ---- in-process ---------------------------------------------------------------------------

IN_PROCESS_LINE = re.compile(r"^(\w+)(?: \[(\w+)\])?: ([\d.]+) ns/packet")


def in_process(seconds: float) -> list[dict]:
    """bench_vrouter's ns per packet on one core: every case, on every execution path the
    engine has (lines `CASE [plan|interp]: N ns/packet`, or `CASE: N ns/packet` with one)."""
    cmd = ["nice", os.environ.get("CARGO", "cargo"), "run", "--release", "--quiet", "-p", "p4engine", "--example",
           "bench_vrouter", "--", "--seconds", f"{seconds:g}", "--json", str(ROOT / "build" / "vrouter.json")]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        raise BenchError(f"bench_vrouter failed (exit {p.returncode}): {p.stderr.strip()[-400:]}")
    rows = []
    for out in p.stdout.splitlines():
        if m := IN_PROCESS_LINE.match(out):
            rows.append({"case": m[1], "exec": m[2] or "default", "ns_per_packet": float(m[3])})
            log(f"in-process {rows[-1]['exec']:7s} {m[1]:18s} {float(m[3]):7.0f} ns/packet")
    if not rows:
        raise BenchError(f"bench_vrouter printed no 'CASE: N ns/packet' line: {p.stdout.strip()[-400:]}")
    return rows


# ---- one DUT, one case --------------------------------------------------------------------

def measure(case: str, dut: str, workers: int, flow_counts: list[int], args, workdir: Path,
            switch_rows: list[dict]) -> list[dict]:
    """The rows of one DUT in one case; the kernel also runs a trial at the rate of each
    p4switch row it is compared with (`switch_rows`), for CPU and latency at the same load."""
    topo = topology(args.prefix, case)
    rows = []
    d = None
    try:
        t0 = time.monotonic()
        d = start_dut(dut, workers, case, topo, workdir)
        setup_s = time.monotonic() - t0
        st = rfc2544.Settings(trial_seconds=args.trial_seconds, resolution=args.resolution, line_bps=1e11,
                              max_pps=args.hi, pause=0.1)
        for n in flow_counts:
            t_point = time.monotonic()
            fl = flows_for(case, topo, d, n)
            searches = [rfc2544.throughput(fl, FRAME, st, progress=lambda _m: None) for _ in range(args.repeat)]
            rates = [s.throughput_pps for s in searches]
            zl = statistics.median(rates)
            lat = []
            for pct in LAT_PERCENTS:
                lat.append({"percent": pct, **repeated_trial(fl, max(zl * pct / 100, 1000), args.trial_seconds,
                                                             d.pids(), args.repeat)})
            cpu = lat[-1]
            row = {"case": case, "dut": d.name if dut == "linux" else "p4switch", "workers": workers if dut != "linux"
                   else None, "flows": n, "zero_loss_pps": round(zl), "zero_loss_runs_pps": [round(r) for r in rates],
                   "spread_pct": round(100 * (max(rates) - min(rates)) / zl, 1) if zl else None,
                   "generator_limited": any(s.generator_limited for s in searches),
                   "setup_seconds": round(setup_s, 1),
                   "cpu_at_pps": cpu["offered_pps"], **{k: cpu[k] for k in CPU_KEYS},
                   "latency": lat, "searches": [asdict(s) for s in searches]}
            if dut == "linux":
                row["at_switch_rates"] = [
                    {"case": r["case"], "workers": r["workers"],
                     **repeated_trial(fl, r["cpu_at_pps"], args.trial_seconds, [], args.repeat)}
                    for r in switch_rows if r["dut"] == "p4switch" and r["flows"] == n
                    and kernel_case(r["case"]) == case]
            row["seconds"] = round(time.monotonic() - t_point, 1)   # to plan a full profile's length
            rows.append(row)
            log(line(row))
    finally:
        if d is not None:
            d.stop()
        topo.down()
    return rows


def fmt_us(v) -> str:
    return "-" if v is None else f"{v:.0f}"


def line(r: dict) -> str:
    who = r["dut"] + (f" w{r['workers']}" if r["workers"] else "")
    zl = f"{r['zero_loss_pps']:>9,}" + ("*" if r["generator_limited"] else " ")
    spread = f"±{r['spread_pct'] / 2:.0f}%" if r["spread_pct"] else ""
    cpu_spread = f" ±{r['cpu_spread_pct'] / 2:.0f}%" if r["cpu_spread_pct"] else ""
    workers = ", ".join(f"{n.removeprefix('p4switch-')} {v:.0f}" for n, v in r["switch_threads_ns_per_pkt"].items()
                        if n.startswith("p4switch-w"))
    lat = " | ".join(f"{fmt_us(x['p50_us'])}/{fmt_us(x['p99_us'])}/{fmt_us(x['p999_us'])}" for x in r["latency"])
    return (f"{r['case']:10s} {who:14s} {r['flows']:>2} fl {zl} pps {spread:6s} cpu/pkt ns: switch "
            f"{r['switch_cpu_ns_per_pkt']:6.0f} (user {r['switch_user_ns_per_pkt']:.0f}, sys "
            f"{r['switch_sys_ns_per_pkt']:.0f}{'; ' + workers if workers else ''}) + softirq {r['softirq_ns_per_pkt']:6.0f} = "
            f"{r['total_cpu_ns_per_pkt']:6.0f}{cpu_spread}  latency µs p50/p99/p99.9 @10|50|90 %: {lat}")


def compare(runs: list[dict], gen: list[dict]) -> list[dict]:
    """Each p4switch row beside the kernel's row with the same flows (the router for l3_acl and
    mpls_push): pps ratio and CPU per packet, also above the generator's softirq floor."""
    kernel = {(r["case"], r["flows"]): r for r in runs if r["dut"] != "p4switch"}
    same = {(x["case"], x["workers"], r["flows"]): x for r in kernel.values() for x in r["at_switch_rates"]}
    floor = {g["flows"]: g["floor_softirq_ns_per_pkt"] for g in gen}
    ceiling = {g["flows"]: g["ceiling_received_pps"] for g in gen}
    out = []
    for r in runs:
        k = kernel.get((kernel_case(r["case"]), r["flows"]))
        if r["dut"] != "p4switch" or not k:
            continue
        f = floor.get(r["flows"], 0.0)
        c = {"case": r["case"], "workers": r["workers"], "flows": r["flows"], "kernel": k["dut"],
             "pps_ratio": round(r["zero_loss_pps"] / k["zero_loss_pps"], 2) if k["zero_loss_pps"] else None,
             "kernel_generator_limited": k["generator_limited"],
             "cpu_ns_per_pkt": r["total_cpu_ns_per_pkt"], "kernel_cpu_ns_per_pkt": k["total_cpu_ns_per_pkt"],
             "cpu_ratio": round(r["total_cpu_ns_per_pkt"] / k["total_cpu_ns_per_pkt"], 2)
             if k["total_cpu_ns_per_pkt"] else None,
             "floor_ns_per_pkt": f,
             # below ~0.9 the generator was not what stopped p4switch's search
             "of_generator_ceiling": round(r["zero_loss_pps"] / ceiling[r["flows"]], 2)
             if ceiling.get(r["flows"]) else None,
             "cpu_ratio_above_floor": round((r["total_cpu_ns_per_pkt"] - f) / (k["total_cpu_ns_per_pkt"] - f), 2)
             if k["total_cpu_ns_per_pkt"] > f else None}
        at = same.get((r["case"], r["workers"], r["flows"]))
        if at:   # the kernel at this row's own rate (90 % of p4switch's zero-loss rate)
            sw90 = r["latency"][-1]
            c["same_rate"] = {"offered_pps": at["offered_pps"], "kernel_loss_ratio": at["loss_ratio"],
                              "kernel_cpu_ns_per_pkt": at["total_cpu_ns_per_pkt"],
                              "cpu_ratio": round(sw90["total_cpu_ns_per_pkt"] / at["total_cpu_ns_per_pkt"], 2)
                              if at["total_cpu_ns_per_pkt"] else None,
                              "p99_us": sw90["p99_us"], "kernel_p99_us": at["p99_us"],
                              "p99_ratio": round(sw90["p99_us"] / at["p99_us"], 2)
                              if sw90["p99_us"] and at["p99_us"] else None}
        out.append(c)
        if at:
            x = c["same_rate"]
            log(f"{c['case']:10s} w{c['workers']} {c['flows']} fl vs {c['kernel']} at the same {x['offered_pps']:,.0f} "
                f"pps: CPU/pkt x{x['cpu_ratio']} ({at['total_cpu_ns_per_pkt']:.0f} ns for the kernel), p99 "
                f"{fmt_us(x['p99_us'])} vs {fmt_us(x['kernel_p99_us'])} µs = x{x['p99_ratio']}")
        log(f"{c['case']:10s} w{c['workers']} {c['flows']} fl vs {c['kernel']}: pps x{c['pps_ratio']}"
            f" ({c['of_generator_ceiling']} of the generator's ceiling)"
            f"{' (the kernel was generator-limited: at most)' if c['kernel_generator_limited'] else ''}, CPU/pkt "
            f"{c['cpu_ns_per_pkt']:.0f} vs {c['kernel_cpu_ns_per_pkt']:.0f} ns = x{c['cpu_ratio']}"
            + (f" (x{c['cpu_ratio_above_floor']} above the generator's floor of {f:.0f} ns)"
               if c["cpu_ratio_above_floor"] is not None else f" (the kernel's is within the floor, {f:.0f} ns)"))
    return out


def pps_goal(c: dict) -> bool | None:
    """p4switch's zero-loss rate >= the kernel's; None (undecided) when both reached a kernel
    rate that was the generator's limit, not the kernel's."""
    if c["pps_ratio"] is None:
        return False
    return None if c["pps_ratio"] >= 1 and c["kernel_generator_limited"] else c["pps_ratio"] >= 1


GOALS = (  # issue 16's goals for vrouter.p4 over veth, each a test on a comparison row
    ("zero-loss pps >= the kernel's", pps_goal),
    ("CPU per packet <= 1.5x the kernel's at the same rate",
     lambda c: c.get("same_rate", {}).get("cpu_ratio") is not None and c["same_rate"]["cpu_ratio"] <= 1.5),
    ("p99 at 90 % of the zero-loss rate <= 2x the kernel's at the same rate",
     lambda c: c.get("same_rate", {}).get("p99_ratio") is not None and c["same_rate"]["p99_ratio"] <= 2),
)


def goals(comparison: list[dict]) -> list[dict]:
    """Which rows meet each goal (the routed cases; l2 is compared with the bridge)."""
    out = []
    for name, test in GOALS:
        rows = [c for c in comparison if c["case"] != "l2"]
        label = lambda c: f"{c['case']} w{c['workers']} {c['flows']} fl"
        met = [label(c) for c in rows if test(c)]
        undecided = [label(c) for c in rows if test(c) is None]
        out.append({"goal": name, "rows": len(rows), "met": met, "undecided": undecided})
        log(f"goal: {name}: met in {len(met)} of {len(rows)} routed rows" + (f" ({', '.join(met)})" if met else "")
            + (f"; undecided, the generator's limit (p4switch reached it too): {', '.join(undecided)}"
               if undecided else ""))
    return out


def kernel_case(case: str) -> str:
    """The kernel's counterpart: the bridge for l2, the router for the rest (no ACL, no MPLS
    routing in this kernel)."""
    return "l2" if case == "l2" else "l3"


def matrix(cases: list[str], workers: list[int], flows: list[int], quick: bool):
    """(case, DUT, workers, flow counts) to run, p4switch first so the kernel can also be
    measured at p4switch's rates. QUICK runs every value once: l3 carries the worker and
    flow variations, the other cases one flow on the first worker count."""
    for case in cases:
        if not quick:
            for w in workers:
                yield case, "p4switch", w, flows
        else:
            yield case, "p4switch", workers[0], flows[:1]
            if case == "l3" and len(workers) > 1:
                yield case, "p4switch", workers[1], flows[1:] or flows
    for case in sorted({kernel_case(c) for c in cases}):
        yield case, "linux", 0, flows if not quick or case == "l3" or "l3" not in cases else flows[:1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--quick", action="store_true", help="smoke run: short trials, coarse search, a reduced matrix")
    ap.add_argument("--repeat", type=int, default=3,
                    help="zero-loss searches per point and trials per rate (medians, spread)")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--flows", default="1,2,4")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--trial-seconds", type=float, default=2.0)
    ap.add_argument("--resolution", type=float, default=0.02)
    ap.add_argument("--hi", type=float, default=1.5e6, help="top of the search (pps)")
    ap.add_argument("--inprocess-seconds", type=float, default=2.0)
    ap.add_argument("--skip-inprocess", action="store_true")
    ap.add_argument("--prefix", default="p4vb")
    output_options(ap, json_file=False)       # bench-switch.sh writes --json with the whole run's results
    args = ap.parse_args(argv)
    workers = [int(x) for x in args.workers.split(",")]
    flows = [int(x) for x in args.flows.split(",")]
    cases = args.cases.split(",")
    if bad := [c for c in cases if c not in CASES]:
        ap.error(f"unknown case {bad[0]} (cases: {', '.join(CASES)})")
    if args.quick:
        args.repeat, args.trial_seconds, args.resolution, args.inprocess_seconds = 1, 0.3, 0.5, 0.3
        args.hi = min(args.hi, 4e5)   # the sender sends every frame of a trial: fewer at the top
    report = {"frame_bytes": FRAME, "quick": args.quick, "repeat": args.repeat, "trial_seconds": args.trial_seconds,
              "resolution": args.resolution, "loadavg_start": Path("/proc/loadavg").read_text().split()[:3]}
    workdir = Path(tempfile.mkdtemp(prefix="bench-switch-"))
    t_start = time.monotonic()
    try:
        report["in_process"] = [] if args.skip_inprocess else in_process(args.inprocess_seconds)
        report["generator"] = generator(args.prefix, flows, args.trial_seconds)
        capture.arm(args.pcap, f"{args.prefix}-")     # the first trial through the switch, not the generator's
        runs = []
        for case, dut, w, fc in matrix(cases, workers, flows, args.quick):
            runs += measure(case, dut, w, fc, args, workdir, runs)
        report["runs"] = runs
        report["comparison"] = compare(runs, report["generator"])
        report["goals"] = goals(report["comparison"])
        report["seconds"] = round(time.monotonic() - t_start)
        log(f"vrouter.p4 part: {report['seconds']} s")
    except BenchError as e:
        print(f"bench-switch: error: {e}", file=sys.stderr)
        return 1
    finally:
        report["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
        args.out.write_text(json.dumps(report, indent=1, default=str))
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
