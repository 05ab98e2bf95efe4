"""Benchmark (not a test): how fast the daemon learns 1,000 MACs on a switch holding many routes.

    sudo python -m vrouter.bench_learning [--macs 1000] [--routes 10000] [--switch PATH]
                                           [--out build/bench-learning.json] [--json FILE] [--pcap DIR]

Creates one veth pair (`hcbl0a` switch side, `hcbl0b` sender side), starts its own switch
with port 1 on it, runs the daemon's `Router` in this process on a description with one
VLAN and `--routes` static routes, then sends one broadcast frame from each of `--macs`
source MACs into port 1. The switch raises learning digests; the router installs the
stations. Measured: seconds from the first frame until every station is written, the
entity updates written, the write RPC phases, and the entities the planner compared
(`planned`: the size of every diff it computed). Removes the veth and the switch after.
`--pcap DIR` captures both ends of the veth while the MACs are learned (bench/capture.py:
DIR/host-<interface>.pcap, headers only).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from p4rt import TableEntry

from . import daemon as D
from .bench import ROOT, bench_report, free_port, json_option, start_switch
from .config import load

SWITCH_SIDE, SENDER_SIDE = "hcbl0a", "hcbl0b"


def description(address: str, routes: int) -> str:
    # the learning limiter (100 stations/s per port by default) is not what this measures
    lines = ["learning: {rate: 100000, max_macs_per_port: 65536, max_macs_per_vlan: 65536}", "switches:", "  s1:", f"    address: {address}", "    vlans:",
             "      10: {interface: {address: 10.0.10.1/24, mac: '00:00:5e:00:01:0a'}}",
             "    ports: {1: {vlan: 10}}"]
    if routes:
        lines.append("    routes:")
        lines += [f"      - {{prefix: 10.{100 + i // 65536 % 100}.{i // 256 % 256}.{i % 256}/32, via: 10.0.10.2}}"
                  for i in range(routes)]
    return "\n".join(lines) + "\n"


def frames(count: int) -> list[bytes]:
    """Broadcast frames from 02:00:00:00:xx:xx (EtherType 0x88b5, local experimental)."""
    out = []
    for i in range(count):
        src = bytes([2, 0, 0, 0, (i >> 8) & 0xFF, i & 0xFF])
        out.append(b"\xff" * 6 + src + b"\x88\xb5" + bytes(46))
    return out


class Counting:
    """Wraps the daemon's plan writer and planner: counts updates, write phases and compared entities."""

    def __init__(self) -> None:
        self.updates = self.phases = self.planned = self.plans = 0
        self.write_plan, self.plan = D.write_plan, D.plan
        self.plan_stations = getattr(D, "plan_stations", None)

    def __enter__(self) -> Counting:
        def write_plan(sw, p):
            self.updates += len(p)
            self.phases += len(p.updates())
            return self.write_plan(sw, p)

        def plan(canon, desired, actual):
            actual = list(actual)
            self.plans += 1
            self.planned += len(actual) + len(desired.entities) + len(desired.acl)
            return self.plan(canon, desired, actual)

        def plan_stations(canon, net, sw, macs, actual, touched):
            p = self.plan_stations(canon, net, sw, macs, actual, touched)
            self.plans += 1
            self.planned += 2 * len(touched)     # each station's two entries (and an old port's one)
            return p

        D.write_plan, D.plan = write_plan, plan
        if self.plan_stations is not None:
            D.plan_stations = plan_stations
        return self

    def __exit__(self, *exc) -> None:
        D.write_plan, D.plan = self.write_plan, self.plan
        if self.plan_stations is not None:
            D.plan_stations = self.plan_stations

    def snapshot(self) -> tuple[int, int, int, int]:
        return self.updates, self.phases, self.planned, self.plans


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--macs", type=int, default=1000)
    ap.add_argument("--routes", type=int, default=10_000)
    ap.add_argument("--switch", default=os.environ.get("SWITCH", str(ROOT / "target" / "release" / "p4switch")))
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-learning.json")
    json_option(ap)
    ap.add_argument("--pcap", type=Path, metavar="DIR",
                    help="capture both ends of the veth while the MACs are learned into DIR/host-<interface>.pcap")
    return ap


def main() -> int:
    args = parser().parse_args()
    if os.geteuid() != 0:
        print("bench_learning: needs root (it creates a veth pair)", file=sys.stderr)
        return 1
    if not 1 <= args.macs <= 65536:
        print("bench_learning: --macs must be 1-65536", file=sys.stderr)
        return 1
    machine = bench_report().machine() if args.json else None
    capture = None
    if args.pcap:
        bench_report()                   # puts the repository on the path for bench.capture
        from bench import capture
        capture.arm(args.pcap, devices=[(None, SENDER_SIDE), (None, SWITCH_SIDE)])
    subprocess.run(["ip", "link", "del", SWITCH_SIDE], capture_output=True)
    sh("ip", "link", "add", SWITCH_SIDE, "type", "veth", "peer", "name", SENDER_SIDE)
    proc = None
    stop = threading.Event()
    try:
        for dev in (SWITCH_SIDE, SENDER_SIDE):
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1"], capture_output=True)
            sh("ip", "link", "set", dev, "up")
        port = free_port()
        address = f"127.0.0.1:{port}"
        proc = start_switch(args.switch, port, f"1@{SWITCH_SIDE}")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "learn.yaml"
            path.write_text(description(address, args.routes))
            net = load(path)
        router = D.Router(net, net.switches["s1"], 10, stop)
        router.RESOLVE_EVERY = 1e9          # no ARP for the routes' next hop during the run
        router.last_resolve = time.monotonic()
        t0 = time.monotonic()
        router.connect()
        sync_s = time.monotonic() - t0
        with Counting() as count, socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as tx, \
                (capture.once("learning") if capture else contextlib.nullcontext()):
            tx.bind((SENDER_SIDE, 0))
            t0 = time.monotonic()
            for frame in frames(args.macs):
                tx.send(frame)
            deadline = t0 + 300
            while len(router.rt.macs) < args.macs and time.monotonic() < deadline:
                router.poll(router.sw, time.monotonic())
            seconds = time.monotonic() - t0
            updates, phases, planned, plans = count.snapshot()
        learned = len(router.rt.macs)
        on_switch = sum(1 for _ in router.sw.read(TableEntry("ingress.bridge.l2_unicast")))
        router.sw.close()
        result = {"macs": args.macs, "routes": args.routes, "learned": learned, "l2_unicast_on_switch": on_switch,
                  "seconds": round(seconds, 3), "updates_written": updates, "write_phases": phases,
                  "diffs_computed": plans, "entities_compared": planned, "initial_sync_s": round(sync_s, 3)}
        print(f"{learned} of {args.macs} MACs learned with {args.routes} routes on the switch in {seconds:.2f} s: "
              f"{updates} updates in {phases} write phases; {plans} diffs comparing {planned} entities "
              f"(l2_unicast on the switch: {on_switch}; first sync {sync_s:.2f} s)")
    finally:
        stop.set()
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        subprocess.run(["ip", "link", "del", SWITCH_SIDE], capture_output=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": os.uname().nodename, "cpus": os.cpu_count(),
                                    "load_avg": os.getloadavg(), "result": result}, indent=2))
    print(f"results: {args.out}")
    if args.json:
        print(f"results also in {bench_report().save_json(args.json, {'benchmark': 'bench-learning', 'result': result}, machine)}")
    return 0 if learned == args.macs else 1


if __name__ == "__main__":
    sys.exit(main())
