"""Benchmark (not a test): how long forwarding stops when the switch or the controller restarts.

    sudo python -m vrouter.bench_recovery [--pps 500] [--switch PATH] [--out build/bench-recovery.json]
                                          [--json FILE] [--pcap DIR]

Builds the campus of topo/campus.yaml on veths: one namespace per access port (address
10.0.VLAN.1N, default gateway the VLAN's interface), its own p4switch on those ports, and
`vrouter run` on the description. Probe flows (UDP, `--pps` datagrams a second, sequence
numbered) run between hosts in one VLAN (bridged) and across VLANs (routed). Then:

1. switch restart: SIGTERM to p4switch, a new one started on the same ports and gRPC
   address at once (retried until it binds). Measured per flow: the time from the SIGTERM
   to the first datagram through the new switch; the goal is <= 1 s for every flow.
2. controller restart: SIGTERM to `vrouter run`, a new one started. Measured: datagrams
   lost (the goal: 0; the switch keeps forwarding and the new daemon writes nothing).
3. ARP burst: `--arp-burst` requests for ca1's gateway from made-up senders, sent by ca1 as
   fast as it can (the description's `arp.rate` raised so that all are answered): how soon the
   last is answered, and the longest gap of a probe flow meanwhile.

The load average before and after is printed with the results: on a busy machine the
times stretch with it. `--pcap DIR` captures every host's interface during the switch restart
(step 1) into DIR/<namespace>-<interface>.pcap (bench/capture.py: headers only; p4switch's
own side of a port is seen at the host's end).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from .bench import ROOT, bench_report, free_port, json_option
from .lab import Host, SwitchProc

TAG = "hbr"
# (from, to): bridged in VLANs 11, 20, 40; routed 11 -> 12, 12 -> 30, 50 -> 11 (the ACL allows both
# ways, for the pings that warm them up). One flow per receiver: it counts the datagrams of one sender.
FLOWS = [("ca1", "ca2"), ("srv1", "srv2"), ("cam1", "cam2"), ("ca3", "cb1"), ("cb2", "mgt2"), ("wifi1", "ca1")]

SENDER = """
import socket, struct, sys, time
dst, pps, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
gap, start, n = 1.0 / pps, time.monotonic(), 0
while True:
    due = start + n * gap
    now = time.monotonic()
    if now - start > seconds:
        break
    if due > now:
        time.sleep(due - now)
    try:
        s.sendto(struct.pack("!Q", n), (dst, 9999))
    except OSError:
        pass
    n += 1
print(n)
"""

RECEIVER = """
import socket, struct, sys, time
seconds = float(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9999))
s.settimeout(0.2)
end, got = time.monotonic() + seconds, []
while time.monotonic() < end:
    try:
        data = s.recv(64)
    except OSError:
        continue
    got.append((struct.unpack("!Q", data[:8])[0], time.monotonic()))
print(" ".join(f"{n}:{t:.6f}" for n, t in got))
"""


ARP_BURST = r"""
import os, socket, struct, sys, time
n, gateway, subnet = int(sys.argv[1]), socket.inet_aton(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
base = socket.inet_aton(subnet)[:3]
frames = []
for i in range(n):
    mac = bytes([0x02]) + os.urandom(5)
    sender = base + bytes([20 + i % 230])
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + mac + sender + bytes(6) + gateway
    frames.append(b"\xff" * 6 + mac + b"\x08\x06" + arp + bytes(18))
print(time.monotonic(), flush=True)
for f in frames:
    try:
        s.send(f)
    except OSError:
        pass
"""

ARP_REPLIES = r"""
import socket, sys, time
n, seconds = int(sys.argv[1]), float(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806))
s.bind(("eth0", 0))
s.settimeout(0.2)
end, got, last = time.monotonic() + seconds, 0, 0.0
while got < n and time.monotonic() < end:
    try:
        frame = s.recv(128)
    except OSError:
        continue
    if frame[20:22] == b"\x00\x02":      # op: reply
        got, last = got + 1, time.monotonic()
print(got, last)
"""


def python_in(host: Host, script: str, *args: str) -> subprocess.Popen:
    """A Python script run in the host's namespace, its stdout piped."""
    return subprocess.Popen(["ip", "netns", "exec", host.ns, sys.executable, "-c", script, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def campus(address: str) -> tuple[dict, list[Host]]:
    """topo/campus.yaml on `address`, with the compiled program of build/, and its hosts."""
    desc = yaml.safe_load((ROOT / "topo" / "campus.yaml").read_text())
    desc["pipeline"] = {"p4info": str(ROOT / "build" / "vrouter.p4info.txtpb"), "config": str(ROOT / "build" /
                                                                                                "vrouter.json")}
    sw = next(iter(desc["switches"].values()))
    sw["address"] = address
    desc["arp"] = {"rate": 100_000}     # the ARP burst measures the daemon, not its per-port rate limit
    hosts, per_vlan = [], {}
    for number, port in sorted(sw["ports"].items()):
        vlan = port["vlan"]
        per_vlan[vlan] = per_vlan.get(vlan, 0) + 1
        gateway = sw["vlans"][vlan]["interface"]["address"].split("/")[0]
        hosts.append(Host(port["name"], number, f"10.0.{vlan}.{10 + per_vlan[vlan]}/24", gateway, TAG))
    return desc, hosts


class Daemon:
    def __init__(self, path: Path, log: Path, env: dict) -> None:
        self.path, self.log, self.env = path, log, env
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log.open("a") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "vrouter.cli", "run", str(self.path)], stdout=out,
                                         stderr=subprocess.STDOUT, env=self.env, cwd=ROOT / "controller")

    def wait_for(self, needle: str, start: int = 0, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.log.read_text()[start:].splitlines():
                if needle in line:
                    return line
            time.sleep(0.05)
        raise RuntimeError(f"no {needle!r} in the daemon's log: {self.log.read_text()[-1500:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=15)


def probe(hosts: dict[str, Host], pps: float, seconds: float):
    """Start every flow; returns a function that waits for them and gives [(flow, sent, arrivals)]."""
    receivers = {dst: python_in(hosts[dst], RECEIVER, str(seconds + 1.5)) for dst in {d for _, d in FLOWS}}
    time.sleep(0.3)
    senders = [(src, dst, python_in(hosts[src], SENDER, hosts[dst].ip, str(pps), str(seconds)))
               for src, dst in FLOWS]

    def collect() -> list[tuple[str, int, list[float]]]:
        sent = {(s, d): int(p.communicate(timeout=seconds + 30)[0] or 0) for s, d, p in senders}
        arrivals: dict[str, list[tuple[int, float]]] = {}
        for dst, p in receivers.items():
            text = p.communicate(timeout=seconds + 30)[0]
            arrivals[dst] = [(int(n), float(t)) for n, t in (item.split(":") for item in text.split())]
        out = []
        for (src, dst), n in sent.items():
            out.append((f"{src}->{dst}", n, [t for _, t in arrivals[dst]]))
        return out
    return collect


def wait_all_forwarding(hosts: dict[str, Host], timeout: float = 30) -> None:
    """Ping across every flow until each answers (ARP resolved, stations learned)."""
    deadline = time.monotonic() + timeout
    for src, dst in FLOWS:
        while True:
            done = subprocess.run(["ip", "netns", "exec", hosts[src].ns, "ping", "-n", "-q", "-c", "1", "-W", "1",
                                   hosts[dst].ip], capture_output=True)
            if done.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{src} does not reach {dst}")


def arp_burst(hosts: dict[str, Host], pps: float, n: int) -> dict:
    """`n` ARP requests for ca1's gateway from made-up senders of its subnet, sent as fast as the
    host can: how soon the router answered them all (the punt path and the daemon), and how long
    the probe flows stopped meanwhile."""
    h = hosts["ca1"]
    subprocess.run(["ip", "netns", "exec", h.ns, "ip", "link", "set", "eth0", "promisc", "on"], check=True)
    collect = probe(hosts, pps, 5.0)
    time.sleep(1.0)
    replies = python_in(h, ARP_REPLIES, str(n), "8")
    time.sleep(0.2)
    burst = python_in(h, ARP_BURST, str(n), h.gateway, h.ip)
    t0 = float(burst.communicate(timeout=60)[0])
    got, last = replies.communicate(timeout=60)[0].split()
    flows = collect()
    gaps = {}
    for name, _, times in flows:
        inside = [t for t in times if t0 - 0.5 <= t <= float(last) + 0.5] or [t0]
        gaps[name] = round(max(b - a for a, b in zip(inside, inside[1:])) if len(inside) > 1 else 0.0, 3)
    seconds = float(last) - t0 if int(got) else None
    return {"requests": n, "answered": int(got), "seconds": round(seconds, 3) if seconds else None,
            "answers_per_s": round(int(got) / seconds) if seconds else 0, "longest_flow_gap_s": gaps,
            "worst_gap_s": max(gaps.values())}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switch", default=os.environ.get("SWITCH", str(ROOT / "target" / "release" / "p4switch")))
    ap.add_argument("--pps", type=float, default=500.0, help="datagrams per second per flow")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-recovery.json")
    ap.add_argument("--workdir", type=Path, help="keep the description, switch and daemon logs here")
    ap.add_argument("--arp-burst", type=int, default=2000, help="ARP requests in the burst")
    json_option(ap)
    ap.add_argument("--pcap", type=Path, metavar="DIR",
                    help="capture every host's interface during the switch restart into "
                         "DIR/<namespace>-<interface>.pcap")
    return ap


def main() -> int:
    args = parser().parse_args()
    if os.geteuid() != 0:
        print("bench-recovery needs root (network namespaces)", file=sys.stderr)
        return 2
    report_mod = bench_report() if args.json or args.pcap else None
    machine = report_mod.machine() if args.json else None
    capture = None
    if args.pcap:
        from bench import capture        # importable now: bench_report() put the repository on the path
        capture.arm(args.pcap, f"{TAG}-")
    load_before = os.getloadavg()
    grpc_port = free_port()
    desc, host_list = campus(f"127.0.0.1:{grpc_port}")
    hosts = {h.name: h for h in host_list}
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        path = work / "campus.yaml"
        path.write_text(yaml.safe_dump(desc, sort_keys=False))
        env = {**os.environ, "VROUTER_STATE_DIR": str(work / "state"),
               "PYTHONPATH": str(ROOT / "controller")}
        switch = SwitchProc({h.port: h.switch_side for h in host_list}, work / "switch.log", grpc_port,
                            command=shlex.split(args.switch))
        daemon = Daemon(path, work / "vrouter.log", env)
        try:
            for h in host_list:
                h.destroy()
                h.create()
            switch.start()
            daemon.start()
            daemon.wait_for("event=reconciled")
            wait_all_forwarding(hosts)

            # 1. switch restart (captured with --pcap)
            with capture.once("switch restart") if capture else contextlib.nullcontext():
                seconds = 6.0
                collect = probe(hosts, args.pps, seconds)
                time.sleep(1.5)
                mark = len(daemon.log.read_text())
                t_kill = time.monotonic()
                print(f"SIGTERM to the switch at {time.time():.3f}", file=sys.stderr)
                exit_s = switch.stop()
                start_s = switch.start().started_after
                recovered = daemon.wait_for("event=recovered", start=mark, timeout=30)
                flows = collect()
            restored = {}
            for name, sent, times in flows:
                after = [t for t in times if t > t_kill + exit_s]
                restored[name] = round(after[0] - t_kill, 3) if after else None
            results["switch_restart"] = {
                "switch_exit_s": round(exit_s, 3), "switch_start_s": round(start_s, 3),
                "daemon_recovered_s": float(re.search(r"seconds=([0-9.]+)", recovered).group(1)),
                "forwarding_restored_s": restored,
                "worst_s": max((v for v in restored.values() if v is not None), default=None),
                "flows_not_restored": [k for k, v in restored.items() if v is None]}
            wait_all_forwarding(hosts)

            # 2. controller restart
            seconds = 6.0
            collect = probe(hosts, args.pps, seconds)
            time.sleep(1.5)
            mark = len(daemon.log.read_text())
            daemon.stop()
            daemon.start()
            line = daemon.wait_for("event=reconciled", start=mark, timeout=30)
            flows = collect()
            lost = {name: sent - len(times) for name, sent, times in flows}
            results["controller_restart"] = {"lost": lost, "total_lost": sum(lost.values()),
                                             "sent": sum(s for _, s, _ in flows),
                                             "writes": int(re.search(r"writes=(\d+)", line).group(1))}

            # 3. a burst of ARP requests (spoofed senders) to the router, while the flows run
            results["arp_burst"] = arp_burst(hosts, args.pps, args.arp_burst)
        finally:
            daemon.stop()
            switch.stop()
            for h in host_list:
                h.destroy()
    load_after = os.getloadavg()
    report = {"machine": os.uname().nodename, "cpus": os.cpu_count(), "load_before": load_before,
              "load_after": load_after, "pps_per_flow": args.pps, "flows": [f"{s}->{d}" for s, d in FLOWS],
              "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    if args.json:
        report_mod.save_json(args.json, {"benchmark": "bench-recovery", "pps_per_flow": args.pps,
                                         "flows": report["flows"], "results": results}, machine)
    sr, cr = results["switch_restart"], results["controller_restart"]
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} ({os.cpu_count()} CPUs)")
    print(f"switch restart: p4switch exited in {sr['switch_exit_s']:.3f} s, the new one listened after "
          f"{sr['switch_start_s']:.3f} s; daemon recovered after {sr['daemon_recovered_s']:.3f} s")
    for name, s in sr["forwarding_restored_s"].items():
        print(f"  {name:14s} forwarding restored {s if s is not None else 'NOT'} s after SIGTERM")
    print(f"  worst {sr['worst_s']} s (goal <= 1 s)")
    print(f"controller restart: {cr['total_lost']} of {cr['sent']} datagrams lost (goal 0), "
          f"the new daemon wrote {cr['writes']} updates")
    ab = results["arp_burst"]
    print(f"ARP burst: {ab['answered']} of {ab['requests']} requests answered in {ab['seconds']} s "
          f"({ab['answers_per_s']:,}/s); longest gap of a probe flow meanwhile {ab['worst_gap_s']} s")
    print(f"results: {args.out}" + (f" and {args.json}" if args.json else ""))
    return 0 if not sr["flows_not_restored"] else 1


if __name__ == "__main__":
    sys.exit(main())
