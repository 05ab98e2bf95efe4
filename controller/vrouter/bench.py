"""Benchmark (not a test): apply 1,000 ACL rules and 10,000 routes to a real switch.

    python -m vrouter.bench [--switch PATH] [--out build/bench-controller.json] [--json FILE]

Starts its own switch on a free loopback port, compiles nothing (uses build/vrouter.*),
and times: loading the description, the first apply (empty switch), a second apply
(must write nothing), and moving one ACL rule (must write 2 entries); then the raw p4rt write
rate end to end (16,000 route inserts in batches of 1,000, three runs; goal >= 50,000/s), in
order and with 4 Write RPCs in flight (as vrouter writes the independent updates of a phase).
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
from .reconcile import IN_FLIGHT, ensure_pipeline, reconcile

ROOT = Path(__file__).resolve().parents[2]


def bench_report():
    """bench/report.py of the repository: the machine, load average and git revision header that
    every benchmark's `--json FILE` carries (one helper for all, beside controller/)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench import report
    return report


def json_option(ap) -> None:
    ap.add_argument("--json", type=Path, metavar="FILE",
                    help="also write the results (with the machine, load average and git revision) to FILE")


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


def write_rate(address: str, entries: int, p4info: Path, config: Path, runs: int = 3) -> dict:
    """P4Runtime inserts through p4rt, batches of 1,000 route entries, end to end (encode, send, switch
    applies, reply): entries/s of each run, and the client's own CPU time per entry; then a wildcard read
    and delete_all of the same entries."""
    from p4rt import Action, TableEntry

    table = "ingress.routing.ipv4_route"
    made = [TableEntry(table, {"ipv4_dst": f"10.{100 + i // 65536 % 100}.{i // 256 % 256}.{i % 256}/32"},
                       Action("ingress.routing.route_to_nexthop", {"nexthop_id": 1 + i % 4000}))
            for i in range(entries)]
    out: dict = {"entries": entries, "batch": 1000, "insert_per_s": [], "client_cpu_us_per_entry": [],
                 "insert_in_flight_per_s": [], "read_per_s": [], "delete_per_s": []}
    with Switch(address, election_id=1).connect() as sw:
        sw.set_pipeline(p4info, config)
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            sw.insert(made, batch_size=1000)
            t1, c1 = time.perf_counter(), time.process_time()
            got = sum(1 for _ in sw.read(TableEntry(table)))
            t2 = time.perf_counter()
            deleted = sw.delete_all()
            t3 = time.perf_counter()
            assert got == entries and deleted >= entries, (got, deleted)
            out["insert_per_s"].append(round(entries / (t1 - t0)))
            out["client_cpu_us_per_entry"].append(round((c1 - c0) / entries * 1e6, 1))
            out["read_per_s"].append(round(got / (t2 - t1)))
            out["delete_per_s"].append(round(deleted / (t3 - t2)))
            t0 = time.perf_counter()
            sw.insert(made, batch_size=1000, in_flight=IN_FLIGHT)
            out["insert_in_flight_per_s"].append(round(entries / (time.perf_counter() - t0)))
            sw.delete_all()
    out["insert_per_s_median"] = sorted(out["insert_per_s"])[runs // 2]
    out["insert_in_flight_per_s_median"] = sorted(out["insert_in_flight_per_s"])[runs // 2]
    return out


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switch", default=os.environ.get("SWITCH", str(ROOT / "target" / "release" / "p4switch")))
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-controller.json")
    json_option(ap)
    return ap


def main() -> int:
    args = parser().parse_args()
    machine = bench_report().machine() if args.json else None
    load_before = os.getloadavg()
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
        rate = write_rate(address, 16_000, probe.p4info, probe.device_config)
        results["p4rt_writes_batches_of_1000"] = rate
        floor = 10_000 / rate["insert_per_s_median"]
        ratio = results["routes_10000"]["apply_s"] / floor
        results["routes_10000_vs_raw_writes"] = round(ratio, 2)
        print(f"{'p4rt insert, 1,000/batch':22s} {', '.join(f'{r:,}' for r in rate['insert_per_s'])} entries/s "
              f"(median {rate['insert_per_s_median']:,}; goal >= 50,000), client CPU "
              f"{', '.join(map(str, rate['client_cpu_us_per_entry']))} us/entry; read "
              f"{', '.join(f'{r:,}' for r in rate['read_per_s'])}/s; delete_all "
              f"{', '.join(f'{r:,}' for r in rate['delete_per_s'])}/s ({rate['entries']:,} /32 routes)")
        print(f"{'p4rt insert, 4 in flight':22s} {', '.join(f'{r:,}' for r in rate['insert_in_flight_per_s'])} "
              f"entries/s (median {rate['insert_in_flight_per_s_median']:,}; goal >= 50,000)")
        print(f"{'':22s} vrouter apply of 10,000 routes / the same count of raw writes = {ratio:.2f}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": os.uname().nodename, "cpus": os.cpu_count(),
                                    "load_before": load_before, "load_after": os.getloadavg(),
                                    "results": results}, indent=2))
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    print(f"results: {args.out}")
    if args.json:
        print(f"results also in {bench_report().save_json(args.json, {'benchmark': 'bench-controller', 'results': results}, machine)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
