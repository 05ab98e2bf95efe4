"""Scale benchmark (issue 16, Must 7): 1,000,000 IPv4 routes in vrouter.p4's routing table.

    make bench-scale [SCALE_ROUTES=1000000] [SCALE_RUNS=3]
    python switch/runtime/bench/scale.py [--routes N] [--runs R] [--switch PATH] [--skip-e2e] [--skip-pps]

A benchmark, not a test: it prints numbers (and build/bench-scale.json) and exits 0 unless
something fails outright. vrouter.p4 declares ipv4_route with 16,384 entries; the bench loads
build/vrouter.json and its P4Info with that one size raised to fit the routes (nothing else changes).

1. Server rate and memory, R runs (median printed): a fresh p4switch (no ports) gets the pipeline
   over P4Runtime, then the Rust client `scale_load` (switch/runtime/examples) writes N /24
   routes in batches of 1,000 over loopback gRPC; p4switch's VmRSS before and after gives bytes
   per route. Goals: >= 100,000 entries/s, <= 200 B/route.
2. End to end through the Python client p4rt (controller/p4rt): the same N routes as p4rt
   TableEntry objects, inserted in batches of 1,000 into a fresh p4switch, once in order (each
   batch waits for the previous reply) and once with 4 Write RPCs in flight. Goal >= 50,000/s.
3. In-process ns/packet of the routed case (engine example bench_vrouter, thread CPU time) with
   N more routes against 10: goal within 10 %.
The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TABLE = "ingress.routing.ipv4_route"
IN_FLIGHT = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmRSS:")))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (5 min {five:.2f}, {os.cpu_count()} CPUs)"


def sized_program(build: Path, out: Path, size: int) -> tuple[Path, Path]:
    """build/vrouter.{json,p4info.txtpb} with ipv4_route sized `size`."""
    prog = json.loads((build / "vrouter.json").read_text())
    found = 0
    for pipe in prog["pipelines"]:
        for t in pipe["tables"]:
            if t["name"] == TABLE:
                t["max_size"] = size
                found += 1
    text = (build / "vrouter.p4info.txtpb").read_text()
    at = text.index(f'name: "{TABLE}"')
    m = re.compile(r"\n  size: \d+").search(text, at)
    if not found or not m:
        raise SystemExit(f"cannot find {TABLE} in {build}/vrouter.*")
    text = text[:m.start()] + f"\n  size: {size}" + text[m.end():]
    (out / "vrouter.json").write_text(json.dumps(prog))
    (out / "vrouter.p4info.txtpb").write_text(text)
    return out / "vrouter.p4info.txtpb", out / "vrouter.json"


class P4Switch:
    """p4switch with no ports and no program, P4Runtime on a free loopback port."""

    def __init__(self, binary: str) -> None:
        self.address = f"127.0.0.1:{free_port()}"
        self.proc = subprocess.Popen([binary, "--no-p4", "--", "--grpc-server-addr", self.address],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        host, port = self.address.split(":")
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection((host, int(port)), timeout=0.2).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise SystemExit(f"{binary} did not start")
                time.sleep(0.05)

    def rss(self) -> int:
        return rss_kib(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def set_pipeline(address: str, p4info: Path, config: Path) -> None:
    from p4rt import Switch
    with Switch(address, election_id=1).connect() as sw:
        sw.set_pipeline(p4info, config)


def server_run(binary: str, loader: Path, p4info: Path, config: Path, routes: int) -> dict:
    sw = P4Switch(binary)
    try:
        set_pipeline(sw.address, p4info, config)
        time.sleep(0.5)
        before = sw.rss()
        out = subprocess.run([str(loader), "--addr", sw.address, "--routes", str(routes), "--batch", "1000"],
                             capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            raise SystemExit(f"scale_load failed:\n{out.stdout}\n{out.stderr}")
        time.sleep(0.5)
        after = sw.rss()
        rate = float(re.search(r"([0-9.]+) entries/s$", out.stdout.strip()).group(1))
        progress = [int(x) for x in re.findall(r"progress \d+ routes, (\d+) entries/s", out.stdout)]
        return {"entries_per_s": round(rate), "rss_before_kib": before, "rss_after_kib": after,
                "bytes_per_route": round((after - before) * 1024 / routes, 1),
                "first_tenth_per_s": progress[0] if progress else None,
                "last_tenth_per_s": progress[-1] if progress else None}
    finally:
        sw.stop()


def e2e_run(binary: str, p4info: Path, config: Path, routes: int, in_flight: int = 1) -> dict:
    """p4rt end to end: entity objects built in chunks (timed apart), inserted in batches of 1,000,
    `in_flight` Write RPCs outstanding (1: each batch waits for the previous one's reply)."""
    from p4rt import Action, Switch, TableEntry
    sw_proc = P4Switch(binary)
    build_s = insert_s = 0.0
    try:
        with Switch(sw_proc.address, election_id=1).connect() as sw:
            sw.set_pipeline(p4info, config)
            chunk = 50_000
            for start in range(0, routes, chunk):
                t0 = time.perf_counter()
                made = [TableEntry(TABLE, {"ipv4_dst": f"{16 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.0/24"},
                                   Action("ingress.routing.route_to_nexthop", {"nexthop_id": 1 + i % 4000}))
                        for i in range(start, min(start + chunk, routes))]
                t1 = time.perf_counter()
                sw.insert(made, batch_size=1000, in_flight=in_flight)
                t2 = time.perf_counter()
                build_s += t1 - t0
                insert_s += t2 - t1
        return {"in_flight": in_flight, "insert_per_s": round(routes / insert_s), "with_entity_building_per_s": round(routes / (insert_s + build_s)),
                "rss_after_kib": sw_proc.rss()}
    finally:
        sw_proc.stop()


def pps_run(config: Path, routes: int, seconds: float) -> dict:
    out = {}
    for extra in (0, routes):
        cmd = ["cargo", "run", "--release", "--quiet", "-p", "p4engine", "--example", "bench_vrouter", "--",
               "--json", str(config), "--seconds", str(seconds)] + (["--routes", str(extra)] if extra else [])
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1800)
        if res.returncode != 0:
            raise SystemExit(f"bench_vrouter failed:\n{res.stdout}\n{res.stderr}")
        # "l3_routed: N ns/packet", or "l3_routed [plan]: ..." once the engine prints both paths
        m = re.search(r"^l3_routed(?: \[plan\])?: (\d+) ns/packet", res.stdout, re.M)
        # the first case runs in a fresh process: later ones reuse memory the previous case freed
        mem = re.search(r"^\w+(?: \[\w+\])?: \d+ more routes .* \((\d+) B/route\)", res.stdout, re.M)
        out["ns_routed_10_routes" if not extra else "ns_routed_many_routes"] = int(m.group(1))
        if mem:
            out["engine_bytes_per_route"] = int(mem.group(1))
    out["slowdown_pct"] = round((out["ns_routed_many_routes"] / out["ns_routed_10_routes"] - 1) * 100, 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--switch", default=str(ROOT / "target" / "release" / "p4switch"))
    ap.add_argument("--loader", default=str(ROOT / "target" / "release" / "examples" / "scale_load"))
    ap.add_argument("--seconds", type=float, default=2.0, help="per in-process case")
    ap.add_argument("--skip-e2e", action="store_true")
    ap.add_argument("--skip-pps", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-scale.json")
    ap.add_argument("--json", type=Path, metavar="FILE",
                    help="also write the results with the machine, load average and git revision to FILE")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "controller"))
    sys.path.insert(0, str(ROOT))
    from bench import report     # the one machine header every benchmark's --json carries
    machine = report.machine()
    load_before = load()
    print(f"load average before: {load_before}")
    results: dict = {"routes": args.routes, "load_before": load_before}
    with tempfile.TemporaryDirectory() as tmp:
        p4info, config = sized_program(ROOT / "build", Path(tmp), max(args.routes + 16384, 16384))
        runs = [server_run(args.switch, Path(args.loader), p4info, config, args.routes) for _ in range(args.runs)]
        for i, r in enumerate(runs, 1):
            print(f"server run {i}: {r['entries_per_s']:,} entries/s (first tenth {r['first_tenth_per_s']:,}/s, "
                  f"last tenth {r['last_tenth_per_s']:,}/s); p4switch RSS {r['rss_before_kib']:,} -> "
                  f"{r['rss_after_kib']:,} KiB = {r['bytes_per_route']} B/route")
        results["server_runs"] = runs
        results["server_entries_per_s_median"] = statistics.median(r["entries_per_s"] for r in runs)
        results["bytes_per_route_median"] = statistics.median(r["bytes_per_route"] for r in runs)
        print(f"server: median {results['server_entries_per_s_median']:,.0f} entries/s (goal >= 100,000), "
              f"median {results['bytes_per_route_median']} B/route (goal <= 200)")
        if not args.skip_e2e:
            # In order (the default of p4rt's write) and with 4 RPCs in flight (vrouter's writes
            # within one phase, whose updates do not depend on each other).
            for key, in_flight in (("p4rt_end_to_end", 1), ("p4rt_end_to_end_in_flight", IN_FLIGHT)):
                e = e2e_run(args.switch, p4info, config, args.routes, in_flight)
                results[key] = e
                print(f"p4rt end to end, {in_flight} write(s) in flight: {e['insert_per_s']:,} entries/s inserting "
                      f"(goal >= 50,000); {e['with_entity_building_per_s']:,}/s counting the building of the "
                      f"TableEntry objects")
        if not args.skip_pps:
            p = pps_run(config, args.routes, args.seconds)
            results["in_process"] = p
            print(f"in-process l3_routed: {p['ns_routed_10_routes']} ns/packet with the campus routes, "
                  f"{p['ns_routed_many_routes']} ns/packet with {args.routes:,} more ({p['slowdown_pct']:+} %, "
                  f"goal within 10 %); the engine alone: {p.get('engine_bytes_per_route')} B/route")
    results["load_after"] = load()
    print(f"load average after: {results['load_after']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    if args.json:
        report.save_json(args.json, {"benchmark": "bench-scale", **results}, machine)
    print(f"results: {args.out}" + (f" and {args.json}" if args.json else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
