"""`make run`: the campus topology (S1) with the vrouter controller, a reachability matrix and iperf3.

    python topo/run_campus.py [--file topo/campus.yaml] [--no-cli] [--prefix P] [--grpc-port N]

Needs root. Starts mininet with one P4 switch-router and a host per access port, runs
`vrouter run` on the description, prints the ping matrix (expected from the ACL, checked),
runs iperf3 between two VLANs, then opens the mininet CLI when a terminal is attached.
Everything it started is stopped on the way out. Exit status 0 when the matrix matched.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "controller"))

from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402

from campus import CampusTopo, host_plan  # noqa: E402
from p4switch import P4Switch  # noqa: E402
from vrouter.config import ConfigError, load  # noqa: E402


def allowed(sw, src_host, dst_host, protocol: int = 1) -> bool:
    """Does the ACL let a packet from src to dst through (first matching rule wins; no rule: yes)?"""
    src, dst = src_host.address.ip, dst_host.address.ip
    for rule in sw.acl:
        m = rule.match
        if m.src is not None and src not in m.src:
            continue
        if m.dst is not None and dst not in m.dst:
            continue
        if m.protocol is not None and m.protocol != protocol:
            continue
        if m.vlan is not None and m.vlan != src_host.vlan:
            continue
        if m.in_port is not None and m.in_port != src_host.port:
            continue
        if any(v is not None for v in (m.src_mac, m.dst_mac, m.ether_type, m.dscp, m.src_port, m.dst_port)):
            continue
        return rule.action != "deny"
    return True


def ping_matrix(net, plans) -> dict[tuple[str, str], bool]:
    """Every ordered pair pinged once (in parallel per source), failures retried once."""
    result: dict[tuple[str, str], bool] = {}
    for attempt in range(2):
        procs = {}
        for a in plans:
            targets = [b for b in plans if b is not a and not result.get((a.name, b.name))]
            if not targets:
                continue
            script = " ".join(f"(ping -n -c1 -W1 {b.address.ip} >/dev/null 2>&1 && echo {b.name} ok "
                              f"|| echo {b.name} no) &" for b in targets) + " wait"
            procs[a.name] = net.get(a.name).popen(["sh", "-c", script], stdout=subprocess.PIPE, text=True)
        for name, proc in procs.items():
            out, _ = proc.communicate(timeout=60)
            for line in out.split("\n"):
                if line.strip():
                    target, verdict = line.split()
                    result[(name, target)] = verdict == "ok"
    return result


def print_matrix(plans, got, want) -> int:
    """Print the matrix (o reach, . blocked, ! unexpected); return the number of unexpected cells."""
    names = [p.name for p in plans]
    width = max(map(len, names))
    common = os.path.commonprefix(names)
    print("ping matrix (row pings column): o = reaches, . = no reply (ACL), ! = not what the ACL says")
    print(" " * (width + 1) + " ".join(n[len(common):][:5].rjust(5) for n in names))
    bad = 0
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("-".rjust(5))
                continue
            ok, expect = got.get((a, b), False), want[(a, b)]
            bad += ok != expect
            cells.append(("o" if ok else ".") + ("!" if ok != expect else ""))
        print(a.ljust(width + 1) + " ".join(c.rjust(5) for c in cells))
    return bad


def iperf(net, client, server, seconds: int = 3) -> float | None:
    """iperf3 TCP throughput client -> server in Mbit/s."""
    srv = net.get(server.name)
    srv.cmd("iperf3 -s -1 -D --logfile /dev/null")
    time.sleep(0.5)
    out = net.get(client.name).cmd(f"iperf3 -c {server.address.ip} -t {seconds} -J")
    try:   # the server (-1) exits after this one test
        return json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e6
    except (ValueError, KeyError):
        print(f"iperf3 failed: {out[-500:]}")
        return None


def clean(switch_name: str, plans) -> None:
    """`mn -c` for this topology's own names only: links left behind by an interrupted run."""
    for h in plans:
        subprocess.run(["ip", "link", "del", f"{switch_name}-eth{h.port}"], capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=HERE / "campus.yaml")
    ap.add_argument("--no-cli", action="store_true", help="never open the mininet CLI")
    ap.add_argument("--prefix", default="", help="prefix for mininet node names (avoid clashes)")
    ap.add_argument("--grpc-port", type=int, help="override the switch's gRPC port of the description")
    ap.add_argument("--log-dir", type=Path, default=ROOT / "build" / "run")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("run_campus: needs root (mininet)", file=sys.stderr)
        return 2
    try:
        net_desc = load(args.file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    name, sw = next(iter(net_desc.switches.items()))
    args.log_dir.mkdir(parents=True, exist_ok=True)
    # The controller runs on a copy: absolute program paths, and the gRPC port if overridden.
    tree = yaml.safe_load(args.file.read_text())
    tree["pipeline"] = {"p4info": str(net_desc.p4info.resolve()), "config": str(net_desc.device_config.resolve())}
    grpc_port = int(sw.address.rsplit(":", 1)[1])
    if args.grpc_port:
        grpc_port = args.grpc_port
        tree["switches"][name]["address"] = f"127.0.0.1:{grpc_port}"
    desc_file = args.log_dir / args.file.name
    desc_file.write_text(f"# generated by run_campus.py from {args.file}\n" + yaml.safe_dump(tree, sort_keys=False))
    os.environ.setdefault("VROUTER_CONFIG", str(desc_file))
    plans = host_plan(sw, args.prefix)
    setLogLevel("warning")
    clean(args.prefix + name, plans)
    topo = CampusTopo(hosts=plans, switch_name=args.prefix + name, grpc_port=grpc_port, log_dir=str(args.log_dir))
    net = Mininet(topo=topo, switch=P4Switch, controller=None, build=True, autoStaticArp=False)
    daemon = None
    status = 1
    try:
        try:
            net.start()
        except RuntimeError as exc:
            print(f"run_campus: {exc}", file=sys.stderr)
            return 1
        for h in plans:
            host = net.get(h.name)
            host.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
            # the switch sees frames as they are on the wire: no checksum offload, no GSO/TSO super-frames
            host.cmd(f"ethtool -K {host.defaultIntf().name} tx off rx off tso off gso off gro off >/dev/null 2>&1")
        log_path = args.log_dir / "vrouter.log"
        log = log_path.open("w")
        daemon = subprocess.Popen([sys.executable, "-m", "vrouter.cli", "run", str(desc_file)], stdout=log,
                                  stderr=subprocess.STDOUT, cwd=ROOT / "controller",
                                  env={**os.environ, "PYTHONPATH": str(ROOT / "controller")})
        deadline = time.monotonic() + 30
        while "event=reconciled" not in log_path.read_text():
            if daemon.poll() is not None or time.monotonic() > deadline:
                print(f"controller did not come up; log:\n{log_path.read_text()[-3000:]}")
                return 1
            time.sleep(0.2)
        print(f"campus: {len(plans)} hosts in {len(sw.vlans)} VLANs on {args.prefix + name} "
              f"({os.environ.get('SWITCH', 'p4switch')}), controller log {log_path}")
        for h in plans:   # each host says hello to its gateway (the router learns it)
            net.get(h.name).cmd(f"ping -n -c1 -W1 {h.gateway} >/dev/null 2>&1")
        want = {(a.name, b.name): allowed(sw, a, b) and allowed(sw, b, a) for a in plans for b in plans if a is not b}
        got = ping_matrix(net, plans)
        bad = print_matrix(plans, got, want)
        reached = sum(got.values())
        print(f"reachability: {reached}/{len(got)} pairs reach, {len(got) - reached} blocked by the ACL, "
              f"{bad} unexpected")
        by_vlan: dict[int, list] = {}
        for h in plans:
            by_vlan.setdefault(h.vlan, []).append(h)
        vlans = sorted(by_vlan)
        client, server = by_vlan[vlans[0]][0], by_vlan[vlans[2] if len(vlans) > 2 else vlans[-1]][0]
        mbps = iperf(net, client, server)
        if mbps is not None:
            print(f"iperf3 {client.name} (VLAN {client.vlan}) -> {server.name} (VLAN {server.vlan}), routed: "
                  f"{mbps:.1f} Mbit/s")
        status = 0 if bad == 0 and mbps is not None else 1
        if sys.stdin.isatty() and not args.no_cli:
            from mininet.cli import CLI
            print("mininet CLI (the controller keeps running; `exit` tears everything down)")
            CLI(net)
    finally:
        if daemon is not None and daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()
        net.stop()
        clean(args.prefix + name, plans)
    return status


if __name__ == "__main__":
    sys.exit(main())
