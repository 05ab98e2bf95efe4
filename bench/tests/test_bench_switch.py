"""Smoke test of `make bench-switch` (switch/p4switch/bench/bench-switch.sh) in its QUICK=1 mode:
every step runs (vrouter.p4 in-process and, as the controller configures it, over veth for L2, L3, L3 + 10k ACL
and MPLS push, with 1/2/4 flows and 1/2 workers, the Linux bridge and router, the generator's
ceiling) and the JSON report holds every figure with possible values in consistent units. No
timing pass/fail. Needs root, `make build`; ~1.5 min."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = {"l2", "l3", "l3_acl", "mpls_push"}
IN_PROCESS = {"l2_bridged", "l3_routed", "l3_routed_acl", "l3_routed_acl10k", "mpls_push"}


def run_quick() -> dict:
    env = {**os.environ, "QUICK": "1", "NS_PREFIX": "p4bq"}
    p = subprocess.run([str(ROOT / "switch/p4switch/bench/bench-switch.sh")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    m = re.search(r"results: \S+\.txt, (\S+\.json)", p.stdout)
    assert m, p.stdout
    report = json.loads(Path(m.group(1)).read_text())
    report["_stdout"] = p.stdout
    return report


def check_latency(where, lat: list[dict]) -> None:
    assert [x["percent"] for x in lat] == [10, 50, 90], where
    for x in lat:
        assert x["received"] > 0, (where, x)
        # microseconds: above a veth hop's floor, below a second
        assert 0.5 <= x["p50_us"] <= x["p99_us"] <= x["p999_us"] <= 1e6, (where, x)


def check_cpu(where, r: dict) -> None:
    # nanoseconds of CPU per forwarded packet; the parts add up to the total
    assert 0 <= r["switch_cpu_ns_per_pkt"] < 1e7 and 0 <= r["softirq_ns_per_pkt"] < 1e7, (where, r)
    assert abs(r["switch_cpu_ns_per_pkt"] + r["softirq_ns_per_pkt"] - r["total_cpu_ns_per_pkt"]) < 0.2, (where, r)
    assert r["switch_user_ns_per_pkt"] >= 0 and r["switch_sys_ns_per_pkt"] >= 0, (where, r)


def test_bench_switch_quick_reports_every_figure_for_vrouter_and_the_kernel():
    report = run_quick()
    assert report["quick"] is True
    for k in ("load_average_start", "load_average_end"):
        assert len(report[k].split()) == 3, report[k]
    v = report["vrouter"]
    assert len(v["loadavg_start"]) == 3 and len(v["loadavg_end"]) == 3

    # in-process: every case on every execution path the engine has, in ns per packet
    paths = {r["exec"] for r in v["in_process"]}
    for path in paths:
        assert {r["case"] for r in v["in_process"] if r["exec"] == path} == IN_PROCESS, v["in_process"]
    for r in v["in_process"]:
        assert 10 <= r["ns_per_packet"] <= 1e6, r

    assert [g["flows"] for g in v["generator"]] == [1, 2, 4]
    for g in v["generator"]:
        assert 10_000 <= g["ceiling_pps"] <= 100_000_000, g
        assert 0 <= g["floor_softirq_ns_per_pkt"] < 1e6, g
    assert "generator, 1 flow(s): sends" in report["_stdout"]

    runs = v["runs"]
    p4 = [r for r in runs if r["dut"] == "p4switch"]
    assert {r["case"] for r in p4} == CASES
    assert {r["workers"] for r in p4} == {1, 2} and {r["flows"] for r in p4} == {1, 2, 4}
    kernel = {r["case"]: r["dut"] for r in runs if r["dut"] != "p4switch"}
    assert kernel == {"l2": "linux-bridge", "l3": "linux-router"}
    for r in runs:
        where = (r["case"], r["dut"], r["workers"], r["flows"])
        # something crossed: the search found a rate without loss, in frames per second
        assert 100 <= r["zero_loss_pps"] <= 100_000_000, where
        assert r["zero_loss_runs_pps"] and r["spread_pct"] is not None, where
        assert 0 < r["cpu_at_pps"] <= max(r["zero_loss_pps"], 1000), where   # 90 % of it, 1000 at least
        check_cpu(where, r)
        for x in r["latency"]:
            check_cpu(where, x)
        check_latency(where, r["latency"])
        if r["dut"] != "p4switch":
            assert r["switch_cpu_ns_per_pkt"] == 0, where   # the kernel's cost is all softirq
        else:   # by thread: the workers (p4switch-w0, -w1) did the forwarding
            threads = r["switch_threads_ns_per_pkt"]
            assert any(n.startswith("p4switch-w") for n in threads), (where, threads)
            assert abs(sum(threads.values()) - r["switch_cpu_ns_per_pkt"]) < 1 + len(threads) * 0.1, (where, threads)
    # issue 16's goals, each judged on the routed rows
    assert len(v["goals"]) == 3
    for g in v["goals"]:
        assert g["rows"] == len([r for r in p4 if r["case"] != "l2"]) and len(g["met"]) <= g["rows"], g
    # every p4switch row is put beside the kernel's
    assert len(v["comparison"]) == len(p4)
    for c in v["comparison"]:
        assert c["pps_ratio"] is not None and c["pps_ratio"] > 0, c
        assert c["of_generator_ceiling"] > 0, c   # the generator's ceiling with as many flows
        # and beside the kernel carrying the same offered rate
        x = c["same_rate"]
        assert x["offered_pps"] > 0 and x["kernel_cpu_ns_per_pkt"] >= 0, c
        # softirq time comes in ticks: a short quick trial may see none of them
        assert x["cpu_ratio"] is not None or x["kernel_cpu_ns_per_pkt"] == 0, c
        assert 0.5 <= x["kernel_p99_us"] <= 1e6 and x["p99_ratio"] > 0, c
