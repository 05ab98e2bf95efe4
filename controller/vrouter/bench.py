"""Benchmark (not a test): apply 1,000 ACL rules and 10,000 routes to a real switch.

    python -m vrouter.bench [--switch PATH] [--out build/bench-controller.json]

Starts its own switch on a free loopback port, compiles nothing (uses build/vrouter.*),
and times: loading the description, the first apply (empty switch), a second apply
(must write nothing), and moving one ACL rule (must write 2 entries).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from p4rt import Switch

from .config import load, loads
from .reconcile import ensure_pipeline, reconcile

ROOT = Path(__file__).resolve().parents[2]


def description(routes: int, rules: int, address: str, move: bool = False) -> str:
    lines = ["switches:", "  s1:", f"    address: {address}", "    vlans:",
             "      10: {interface: {address: 10.0.10.1/24, mac: '00:00:5e:00:01:0a'}}",
             "    ports: {1: {vlan: 10}}", "    routes:"]
    lines += [f"      - {{prefix: 10.{100 + i // 65536 % 100}.{i // 256 % 256}.{i % 256}/32, via: 10.0.10.2}}"
              for i in range(routes)]
    order = list(range(rules))
    if move and rules > 10:
        order.insert(1, order.pop(rules - 2))
    lines.append("    acl:")
    lines += [f"      - {{match: {{src: 172.16.{i // 256}.{i % 256}/32, protocol: tcp, dst_port: {1 + i}}}, "
              f"action: deny}}" for i in order]
    return "\n".join(lines) + "\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_switch(switch: str, port: int, *ports: str) -> subprocess.Popen:
    """Starts `switch` with no program, gRPC on 127.0.0.1:`port` and the given
    `-i` port specs, and waits (up to 10 s) until the port accepts connections."""
    args = [switch]
    for p in ports:
        args += ["-i", p]
    proc = subprocess.Popen(args + ["--no-p4", "--", "--grpc-server-addr", f"127.0.0.1:{port}", "--cpu-port", "255"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc


def timed_apply(path: Path, fresh: bool) -> dict:
    t0 = time.monotonic()
    net = load(path)
    t1 = time.monotonic()
    cfg = net.switches["s1"]
    with Switch(cfg.address, election_id=1).connect() as sw:
        ensure_pipeline(sw, net)
        if fresh:
            sw.delete_all()
        t2 = time.monotonic()
        result, _, _ = reconcile(sw, net, cfg)
    t3 = time.monotonic()
    return {"load_s": round(t1 - t0, 3), "apply_s": round(t3 - t2, 3), "writes": len(result.plan),
            "summary": result.plan.summary()}


def baseline_insert(address: str, routes: int, p4info: Path, config: Path) -> float:
    """The same number of route entries written straight through p4rt (no read, no plan): the floor."""
    from p4rt import Action, TableEntry

    with Switch(address, election_id=1).connect() as sw:
        sw.set_pipeline(p4info, config)
        entries = [TableEntry("ingress.routing.ipv4_route",
                              {"ipv4_dst": f"10.{100 + i // 65536 % 100}.{i // 256 % 256}.{i % 256}/32"},
                              Action("ingress.routing.route_to_cpu")) for i in range(routes)]
        t0 = time.monotonic()
        sw.insert(entries, batch_size=2000)
        seconds = time.monotonic() - t0
        sw.delete_all()
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switch", default=os.environ.get("SWITCH", str(ROOT / "target" / "release" / "p4switch")))
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-controller.json")
    args = ap.parse_args()
    port = free_port()
    address = f"127.0.0.1:{port}"
    proc = start_switch(args.switch, port)
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            cases = [("routes_10000", 10_000, 0, False, True), ("routes_10000_again", 10_000, 0, False, False),
                     ("acl_1000", 0, 1000, False, True), ("acl_1000_again", 0, 1000, False, False),
                     ("acl_1000_move_one", 0, 1000, True, False)]
            for name, routes, rules, move, fresh in cases:
                path = base / f"{name}.yaml"
                path.write_text(description(routes, rules, address, move))
                results[name] = timed_apply(path, fresh)
                print(f"{name:22s} load {results[name]['load_s']:6.3f} s  apply {results[name]['apply_s']:6.3f} s  "
                      f"{results[name]['summary']}")
        probe = loads(description(0, 0, address), "probe.yaml")
        floor = baseline_insert(address, 10_000, probe.p4info, probe.device_config)
        results["baseline_p4rt_insert_10000_routes"] = {"apply_s": round(floor, 3)}
        ratio = results["routes_10000"]["apply_s"] / floor if floor else float("nan")
        results["routes_10000_vs_baseline"] = round(ratio, 2)
        print(f"{'baseline p4rt insert':22s}              apply {floor:6.3f} s  10,000 routes straight through p4rt "
              f"(no read, no plan); vrouter apply / baseline = {ratio:.2f}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": os.uname().nodename, "cpus": os.cpu_count(),
                                    "load_avg": os.getloadavg(), "results": results}, indent=2))
    print(f"results: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
