"""`make run`: the campus topology (S1) with the vrouter controller, a reachability matrix and iperf3.

    python topo/run_campus.py [--file topo/campus.yaml] [--no-cli] [--prefix P] [--grpc-port N] [--hold]

Needs root. Starts mininet with every P4 switch-router of the description, a host per
access port and a link per pair of linked ports (`ports.P.link`), runs `vrouter run` on the
description, prints the ping matrix (expected from the ACLs on the way, checked), runs
iperf3 between two VLANs, then opens the mininet CLI when a terminal is attached.
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
import urllib.request
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "controller"))

from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402

from campus import CampusTopo, HostPlan, SwitchPlan, host_plan, l2_domains, link_plan  # noqa: E402
import procs  # noqa: E402
from p4switch import P4Switch  # noqa: E402
from vrouter.config import ConfigError, load  # noqa: E402


def acl_allows(sw, src, dst, in_port: int, vlan: int | None, protocol: int = 1) -> bool:
    """Does one switch's ACL let the packet through (first matching rule wins; no rule: yes)?"""
    for rule in sw.acl:
        m = rule.match
        if m.src is not None and src not in m.src:
            continue
        if m.dst is not None and dst not in m.dst:
            continue
        if m.protocol is not None and m.protocol != protocol:
            continue
        if m.vlan is not None and m.vlan != vlan:
            continue
        if m.in_port is not None and m.in_port != in_port:
            continue
        if any(v is not None for v in (m.src_mac, m.dst_mac, m.ether_type, m.dscp, m.src_port, m.dst_port)):
            continue
        return rule.action != "deny"
    return True


class Paths:
    """Which switches a packet between two hosts enters, and on which port, for the expected matrix.

    Bridged (same L2 domain): the shortest chain of links from the source's switch to the
    destination's. Routed: to the switch holding the source's gateway, then on to the
    destination's switch. Every switch entered applies its ACL to the frame (in its VLAN).
    """

    def __init__(self, net, links) -> None:
        self.net, self.domains = net, l2_domains(net)
        self.adj: dict[str, list[tuple[str, int]]] = {name: [] for name in net.switches}
        for link in links:
            self.adj[link.a].append((link.b, link.b_port))
            self.adj[link.b].append((link.a, link.a_port))

    def _walk(self, start: str, goal: str) -> list[tuple[str, int]]:
        """(switch, ingress port) of each switch after `start` on a shortest way to `goal`."""
        back: dict[str, tuple[str, int] | None] = {start: None}
        todo = [start]
        while todo and goal not in back:
            here = todo.pop(0)
            for nxt, port in self.adj[here]:
                if nxt not in back:
                    back[nxt] = (here, port)
                    todo.append(nxt)
        steps, node = [], goal
        while node in back and back[node] is not None:
            prev, port = back[node]
            steps.append((node, port))
            node = prev
        return steps[::-1]

    def _vlan(self, switch: str, domain) -> int | None:
        return next((v for (s, v), d in self.domains.items() if s == switch and d == domain), None)

    def allowed(self, a: HostPlan, b: HostPlan) -> bool:
        """Does a ping request from a reach b through every ACL on its way?"""
        visits = [(a.switch, a.port, a.vlan)]
        legs = [(a.switch, b.switch, a.domain)] if a.domain == b.domain else \
            [(a.switch, a.router, a.domain), (a.router, b.switch, b.domain)]
        for start, goal, domain in legs:
            visits += [(sw, port, self._vlan(sw, domain)) for sw, port in self._walk(start, goal)]
        return all(acl_allows(self.net.switches[sw], a.address.ip, b.address.ip, port, vlan)
                   for sw, port, vlan in visits)


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
    col = max(5, *(len(n) - len(common) for n in names))
    print("ping matrix (row pings column): o = reaches, . = no reply (ACL), ! = not what the ACL says")
    print(" " * (width + 1) + " ".join(n[len(common):].rjust(col) for n in names))
    bad = 0
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("-".rjust(col))
                continue
            ok, expect = got.get((a, b), False), want[(a, b)]
            bad += ok != expect
            cells.append(("o" if ok else ".") + ("!" if ok != expect else ""))
        print(a.ljust(width + 1) + " ".join(c.rjust(col) for c in cells))
    return bad


def iperf(net, client, server, seconds: int = 3) -> float | None:
    """iperf3 TCP throughput client -> server in Mbit/s; None (and why, printed) when it fails twice.

    Bounded: iperf3 has no overall time limit (a client whose server went quiet waits for
    its control messages for ever), so the client runs under `timeout`; the server is our
    child, waited for until it listens (late under load) and stopped afterwards.
    """
    for _ in range(2):
        srv = net.get(server.name).popen(["iperf3", "-s", "-1"], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, preexec_fn=procs.die_with_parent)
        try:
            deadline = time.monotonic() + 10
            while ":5201 " not in net.get(server.name).cmd("ss -Hltn sport = :5201") and time.monotonic() < deadline:
                time.sleep(0.1)
            started = time.monotonic()
            out = net.get(client.name).cmd(f"timeout {seconds + 30} iperf3 -c {server.address.ip} -t {seconds} "
                                           "--connect-timeout 5000 -J; echo exit=$?")
            body, _, code = out.rpartition("exit=")
            try:
                return json.loads(body)["end"]["sum_received"]["bits_per_second"] / 1e6
            except (ValueError, KeyError, TypeError):
                print(f"iperf3 failed (exit {code.strip()} after {time.monotonic() - started:.0f} s): "
                      f"{body.strip()[-500:]}", flush=True)
        finally:
            procs.stop(srv, timeout=2)
    return None


def metric_totals(address: str, skip=lambda sample: False) -> dict[str, float]:
    """Every sample of a Prometheus endpoint summed by name (labels folded), or OSError."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    total: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not skip(sample):
                total[sample.name] = total.get(sample.name, 0) + sample.value
    return total


def metrics_summary(address: str) -> str:
    """One line from the controller's metrics endpoint."""
    try:
        total = metric_totals(address, skip=lambda s: s.name == "vrouter_writes_total"
                              and s.labels.get("outcome") != "ok")
    except OSError as exc:
        return f"metrics http://{address}/metrics: not answering ({exc})"
    return (f"metrics http://{address}/metrics: {total.get('vrouter_reconcile_runs_total', 0):.0f} reconcile runs, "
            f"{total.get('vrouter_writes_total', 0):.0f} updates written, "
            f"{total.get('vrouter_neighbors', 0):.0f} neighbours, "
            f"{total.get('vrouter_learned_stations', 0):.0f} learned stations")


def switch_metrics_summary(node: str, address: str) -> str:
    """One line from a p4switch's metrics endpoint (--switch-metrics-port)."""
    try:
        total = metric_totals(address)
    except OSError as exc:
        return f"{node} metrics http://{address}/metrics: not answering ({exc})"
    return (f"{node} metrics http://{address}/metrics: {total.get('p4switch_port_rx_packets_total', 0):.0f} frames "
            f"received, {total.get('p4switch_port_tx_packets_total', 0):.0f} sent, "
            f"{total.get('p4switch_table_hits_total', 0):.0f} table hits, "
            f"{total.get('p4switch_p4runtime_requests_total', 0):.0f} P4Runtime requests")


def dashboard_summary(address: str) -> str:
    """One line from the dashboard's JSON (waits for its first sample of every switch)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(f"http://{address}/api/state", timeout=5) as resp:
                state = json.loads(resp.read())
            if all(s["ok"] for s in state["switches"]) or time.monotonic() > deadline:
                break
        except OSError as exc:
            if time.monotonic() > deadline:
                return f"dashboard http://{address}/: not answering ({exc})"
        time.sleep(0.3)
    ok = [s for s in state["switches"] if s["ok"]]
    rx = sum(p["rx_packets"] for s in ok for p in s["ports"])
    return (f"dashboard http://{address}/: {len(ok)}/{len(state['switches'])} switches sampled, "
            f"{rx} packets received on their ports")


def clean(nodes: dict[str, str], plans, links) -> None:
    """`mn -c` for this topology's own names only: links left behind by an interrupted run."""
    ends = [(h.switch, h.port) for h in plans] + [(l.a, l.a_port) for l in links] + [(l.b, l.b_port) for l in links]
    for switch, port in ends:
        subprocess.run(["ip", "link", "del", f"{nodes[switch]}-eth{port}"], capture_output=True)


def stop_on_signal() -> None:
    """SIGTERM and SIGHUP end run_campus through its teardown (as Ctrl-C does); further ones wait for it."""
    def handler(signum, frame):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=HERE / "campus.yaml")
    ap.add_argument("--no-cli", action="store_true", help="never open the mininet CLI")
    ap.add_argument("--prefix", default="", help="prefix for mininet node names (avoid clashes)")
    ap.add_argument("--grpc-port", type=int, help="override the gRPC ports of the description: switch i (from 0, in "
                    "file order) listens on N+i")
    ap.add_argument("--log-dir", type=Path, default=ROOT / "build" / "run")
    ap.add_argument("--metrics-addr", metavar="HOST:PORT", help="the controller serves Prometheus metrics there")
    ap.add_argument("--switch-metrics-port", type=int, metavar="N", help="p4switch i (from 0, in file order) serves "
                    "Prometheus metrics on 127.0.0.1:N+i")
    ap.add_argument("--dashboard", metavar="HOST:PORT", help="serve `vrouter dashboard` there while the network runs")
    ap.add_argument("--hold", action="store_true", help="after the summaries, print each host's PID and address and "
                    "keep everything running until stdin closes (a test drives traffic with `nsenter -t PID -n`)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("run_campus: needs root (mininet)", file=sys.stderr)
        return 2
    try:
        net_desc = load(args.file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    args.log_dir.mkdir(parents=True, exist_ok=True)
    # The controller runs on a copy: absolute program paths, and the gRPC ports if overridden.
    tree = yaml.safe_load(args.file.read_text())
    tree["pipeline"] = {"p4info": str(net_desc.p4info.resolve()), "config": str(net_desc.device_config.resolve())}
    switches: dict[str, SwitchPlan] = {}
    for i, (name, sw) in enumerate(net_desc.switches.items()):
        grpc_port = int(sw.address.rsplit(":", 1)[1])
        if args.grpc_port:
            grpc_port = args.grpc_port + i
            tree["switches"][name]["address"] = f"127.0.0.1:{grpc_port}"
        metrics_port = args.switch_metrics_port + i if args.switch_metrics_port else None
        switches[name] = SwitchPlan(args.prefix + name, grpc_port, sw.device_id, sw.cpu_port, metrics_port)
    nodes = {name: s.node for name, s in switches.items()}
    desc_file = args.log_dir / args.file.name
    desc_file.write_text(f"# generated by run_campus.py from {args.file}\n" + yaml.safe_dump(tree, sort_keys=False))
    os.environ.setdefault("VROUTER_CONFIG", str(desc_file))
    plans = host_plan(net_desc, args.prefix)
    links = link_plan(net_desc)
    names = [h.name for h in plans]
    clash = sorted({n for n in names if names.count(n) > 1} | (set(names) & set(nodes.values())))
    if clash:
        print(f"run_campus: {args.file}: host names used twice: {', '.join(clash)} (ports.P.name must be unique "
              "across the switches and differ from the switch names)", file=sys.stderr)
        return 2
    if not plans:
        print(f"run_campus: {args.file}: no host to place (no access port in a VLAN with a router interface)",
              file=sys.stderr)
        return 2
    setLogLevel("warning")
    stop_on_signal()
    clean(nodes, plans, links)
    topo = CampusTopo(switches=switches, hosts=plans, links=links, log_dir=str(args.log_dir))
    net = Mininet(topo=topo, switch=P4Switch, controller=None, build=True, autoStaticArp=False)
    daemon = dashboard = None
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
        env = {**os.environ, "PYTHONPATH": str(ROOT / "controller")}
        extra = ["--metrics-addr", args.metrics_addr] if args.metrics_addr else []
        daemon = procs.start([sys.executable, "-m", "vrouter.cli", "run", str(desc_file), *extra], stdout=log,
                             stderr=subprocess.STDOUT, cwd=ROOT / "controller", env=env)
        if args.dashboard:
            dashboard = procs.start([sys.executable, "-m", "vrouter.cli", "dashboard", str(desc_file),
                                     "--listen", args.dashboard], stdout=log, stderr=subprocess.STDOUT,
                                    cwd=ROOT / "controller", env=env)
        deadline = time.monotonic() + 30
        while not all(f"event=reconciled switch={name} " in log_path.read_text() for name in switches):
            if daemon.poll() is not None or time.monotonic() > deadline:
                print(f"controller did not come up; log:\n{log_path.read_text()[-3000:]}")
                return 1
            time.sleep(0.2)
        domains = {h.domain for h in plans}
        print(f"campus: {len(plans)} hosts in {len(domains)} VLANs on {', '.join(nodes.values())} "
              f"({os.environ.get('SWITCH', 'p4switch')}), controller log {log_path}")
        for h in plans:   # each host says hello to its gateway (the router learns it)
            net.get(h.name).cmd(f"ping -n -c1 -W1 {h.gateway} >/dev/null 2>&1")
        paths = Paths(net_desc, links)
        want = {(a.name, b.name): paths.allowed(a, b) and paths.allowed(b, a)
                for a in plans for b in plans if a is not b}
        got = ping_matrix(net, plans)
        bad = print_matrix(plans, got, want)
        reached = sum(got.values())
        print(f"reachability: {reached}/{len(got)} pairs reach, {len(got) - reached} blocked by the ACL, "
              f"{bad} unexpected")
        if len(switches) > 1:
            switch_of = {h.name: h.switch for h in plans}
            across = [ok for (a, b), ok in got.items() if switch_of[a] != switch_of[b]]
            print(f"across switches: {sum(across)}/{len(across)} pairs of hosts on different switches reach")
        by_domain: dict[tuple, list] = {}
        for h in plans:
            by_domain.setdefault(h.domain, []).append(h)
        keys = sorted(by_domain)
        client, server = by_domain[keys[0]][0], by_domain[keys[2] if len(keys) > 2 else keys[-1]][0]
        mbps = iperf(net, client, server)
        if mbps is not None:
            print(f"iperf3 {client.name} (VLAN {client.vlan}) -> {server.name} (VLAN {server.vlan}), routed: "
                  f"{mbps:.1f} Mbit/s")
        status = 0 if bad == 0 and mbps is not None else 1
        if args.metrics_addr:
            print(metrics_summary(args.metrics_addr))
        for s in switches.values():
            if s.metrics_port:
                print(switch_metrics_summary(s.node, f"127.0.0.1:{s.metrics_port}"))
        if args.dashboard:
            print(dashboard_summary(args.dashboard))
        if args.hold:
            print("hosts: " + " ".join(f"{h.name}={net.get(h.name).pid}/{h.address.ip}" for h in plans))
            print("holding until stdin closes", flush=True)
            sys.stdin.read()
        elif sys.stdin.isatty() and not args.no_cli:
            from mininet.cli import CLI
            print("mininet CLI (the controller keeps running; `exit` tears everything down)")
            CLI(net)
    finally:
        for proc in (dashboard, daemon):
            procs.stop(proc)
        net.stop()
        clean(nodes, plans, links)
    return status


if __name__ == "__main__":
    sys.exit(main())
