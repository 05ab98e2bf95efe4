"""`vrouter run --metrics-addr`: Prometheus metrics scraped during a real run (hosts in namespaces, p4switch)."""

from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bmv2 import skip_on_bmv2
from netns import Daemon, free_port, vrouter

DESCRIPTION = """
switches:
  s1:
    address: 127.0.0.1:9559
    vlans: {10: {}}
    ports:
      1: {vlan: 10}
      2: {vlan: 10, max_macs: 1, on_limit: drop}
"""


def test_names_follow_prometheus_conventions_and_state_is_read_at_scrape_time() -> None:
    import threading

    from prometheus_client import generate_latest

    from vrouter.config import loads
    from vrouter.daemon import Router
    from vrouter.desired import Neighbor
    from vrouter.metrics import Metrics

    net = loads(DESCRIPTION)
    metrics = Metrics()
    router = Router(net, net.switches["s1"], 10, threading.Event(), metrics=metrics)
    router.metrics.reconciled("start", ok=True, seconds=0.02)
    router.metrics.wrote("sync", ok=30)
    router.metrics.wrote("stations", ok=1, failed=2)
    router.guard.capacity = 100
    assert router.guard.admit(router.rt, 10, "02:00:00:00:00:01", 1, 0.0).reason is None
    router.rt.macs[(10, "02:00:00:00:00:01")] = 1
    router.guard.port_stats(2).refuse("port_limit")
    ip = __import__("ipaddress").IPv4Address("10.0.10.2")
    router.rt.neighbors[ip] = Neighbor(ip, "02:00:00:00:00:01", 1, 10)
    text = generate_latest(metrics.registry).decode()
    samples = [(s.name, s.labels, s.value) for f in text_string_to_metric_families(text) for s in f.samples]
    names = {n for n, _, _ in samples}
    assert all(re.fullmatch(r"vrouter_[a-z_]+", n) for n in names), names
    assert value(samples, "vrouter_reconcile_runs_total", trigger="start", result="ok") == 1
    assert value(samples, "vrouter_converge_seconds_bucket", trigger="start", le="0.025") == 1
    assert value(samples, "vrouter_writes_total", outcome="ok") == 31
    assert value(samples, "vrouter_writes_total", writing="stations", outcome="failed") == 2
    assert value(samples, "vrouter_learned_stations", port="1") == 1
    assert value(samples, "vrouter_stations_learned_total", port="1") == 1
    assert value(samples, "vrouter_learning_refused_total", port="2", reason="port_limit") == 1
    assert value(samples, "vrouter_neighbors", switch="s1") == 1
    assert value(samples, "vrouter_in_sync") == 0 and value(samples, "vrouter_switch_connected") == 0
    assert "# TYPE vrouter_converge_seconds histogram" in text and "# TYPE vrouter_writes_total counter" in text
    assert "# HELP vrouter_learned_stations " in text




def scrape(address: str) -> list[tuple[str, dict[str, str], float]]:
    """Every sample of the endpoint: (name, labels, value)."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    return [(s.name, s.labels, s.value) for family in text_string_to_metric_families(text) for s in family.samples]


def value(samples, name: str, **labels: str) -> float:
    """The sum of the samples named `name` whose labels include `labels` (0 if none)."""
    return sum(v for n, lab, v in samples if n == name and all(lab.get(k) == w for k, w in labels.items()))


def wait_metric(address: str, name: str, at_least: float, timeout: float = 20, **labels: str):
    """Scrape until the metric reaches `at_least`; the last scrape."""
    deadline = time.monotonic() + timeout
    while True:
        samples = scrape(address)
        if value(samples, name, **labels) >= at_least or time.monotonic() > deadline:
            return samples
        time.sleep(0.2)


@pytest.mark.integration
def test_metrics_follow_reconciles_writes_learning_neighbours_limits_and_recovery(lab) -> None:
    hosts, switch, write, tmp = lab
    h1, h2, h3 = hosts["h1"], hosts["h2"], hosts["h3"]
    path = write()      # port 2 may hold one station; the first one locks it (frames from other sources dropped)
    path.write_text(path.read_text().replace("2: {vlan: 10}", "2: {vlan: 10, max_macs: 1, on_limit: drop}"))
    address = f"127.0.0.1:{free_port()}"
    daemon = Daemon(path, tmp / "vrouter.log", args=("--metrics-addr", address))
    try:
        line = daemon.wait_for("event=reconciled")
        written = int(re.search(r"writes=(\d+)", line).group(1))
        assert written > 10, line
        daemon.wait_for("event=metrics_serving")
        s = scrape(address)
        sw = {"switch": "s1"}
        # the first reconciliation: one run, its writes all applied, its duration observed
        assert value(s, "vrouter_reconcile_runs_total", trigger="start", result="ok", **sw) == 1
        assert value(s, "vrouter_reconcile_runs_total", result="failed", **sw) == 0
        assert value(s, "vrouter_writes_total", writing="sync", outcome="ok", **sw) == written
        assert value(s, "vrouter_writes_total", outcome="failed", **sw) == 0
        assert value(s, "vrouter_converge_seconds_count", trigger="start", **sw) == 1
        assert 0 < value(s, "vrouter_converge_seconds_sum", trigger="start", **sw) < 10
        assert value(s, "vrouter_in_sync", **sw) == 1 and value(s, "vrouter_switch_connected", **sw) == 1
        assert value(s, "vrouter_neighbors", **sw) == 0 and value(s, "vrouter_learned_stations", **sw) == 0

        # routed traffic: both hosts resolved by ARP, their stations learned, each a write of its own
        assert h1.reaches(h3.ip), daemon.text()[-2000:]
        s = wait_metric(address, "vrouter_neighbors", 2, **sw)
        assert value(s, "vrouter_neighbors", **sw) == 2
        s = wait_metric(address, "vrouter_learned_stations", 2, **sw)
        macs = json.loads(vrouter("show", "macs", str(path), "--json").stdout)["s1"]
        learned = {str(m["port"]) for m in macs if m["type"] == "learned"}
        assert learned >= {"1", "3"}
        assert value(s, "vrouter_learned_stations", **sw) == len([m for m in macs if m["type"] == "learned"])
        for port in learned:
            assert value(s, "vrouter_learned_stations", port=port, **sw) >= 1
            assert value(s, "vrouter_stations_learned_total", port=port, **sw) >= 1
        assert value(s, "vrouter_writes_total", writing="stations", outcome="ok", **sw) >= 2
        assert value(s, "vrouter_writes_total", writing="neighbors_and_ports", outcome="ok", **sw) >= 2
        assert value(s, "vrouter_packet_ins_total", reason="ARP", **sw) >= 2
        assert value(s, "vrouter_digest_lists_total", **sw) >= 1

        # port 2 reaches its limit of one station: locked, the action counted
        assert h2.reaches("10.0.10.1")
        s = wait_metric(address, "vrouter_limit_actions_total", 1, action="drop", **sw)
        assert value(s, "vrouter_limit_actions_total", action="drop", **sw) == 1
        assert value(s, "vrouter_port_locked", port="2", **sw) == 1
        assert value(s, "vrouter_port_locked", port="1", **sw) == 0
        before = scrape(address)

        # the switch restarts: a recovery reconciliation, its time to converge, the program pushed again
        mark = len(daemon.text())
        switch.kill()
        daemon.wait_for("event=switch_lost", start=mark)
        switch.start()
        daemon.wait_for("event=recovered", start=mark, timeout=30)
        s = wait_metric(address, "vrouter_recovery_seconds_count", 1, **sw)
        assert value(s, "vrouter_recovery_seconds_count", **sw) == 1
        assert value(s, "vrouter_reconcile_runs_total", trigger="recovery", result="ok", **sw) == 1
        assert value(s, "vrouter_converge_seconds_count", trigger="recovery", **sw) == 1
        assert value(s, "vrouter_writes_total", writing="sync", outcome="ok", **sw) > \
            value(before, "vrouter_writes_total", writing="sync", outcome="ok", **sw)
        assert value(s, "vrouter_in_sync", **sw) == 1
    finally:
        code = daemon.stop()
    assert code == 0, daemon.text()[-2000:]


@pytest.mark.integration
def test_metrics_address_in_use_is_refused_with_one_line(lab) -> None:
    hosts, switch, write, tmp = lab
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        address = f"127.0.0.1:{busy.getsockname()[1]}"
        done = vrouter("run", str(write()), "--metrics-addr", address, timeout=30)
    assert done.returncode == 1
    assert f"vrouter: cannot serve metrics on {address}: Address already in use" in done.stderr, done.stderr
    bad = vrouter("run", str(write()), "--metrics-addr", "9101")
    assert bad.returncode == 2 and "'9101' is not HOST:PORT" in bad.stderr


def host_counter(host, name: str) -> int:
    """A counter of the host's interface as its kernel keeps it (rx_packets, tx_packets)."""
    return int(host.run("cat", f"/sys/class/net/eth0/statistics/{name}").strip())


def quiet_counts(hosts, address: str) -> tuple[dict[str, int], list]:
    """The hosts' kernel counters and a scrape of the switch taken while no frame moved between them."""
    for _ in range(10):
        before = {f"{h.name}.{c}": host_counter(h, c) for h in hosts for c in ("tx_packets", "rx_packets")}
        time.sleep(0.2)   # frames on their way through the switch have arrived
        s = scrape(address)
        after = {f"{h.name}.{c}": host_counter(h, c) for h in hosts for c in ("tx_packets", "rx_packets")}
        if before == after:
            return after, s
    raise AssertionError("the hosts never stopped sending")


@pytest.mark.integration
def test_switch_and_controller_metrics_follow_the_packets(lab) -> None:
    """p4switch --metrics-addr and vrouter run --metrics-addr scraped during routed traffic: the switch's port
    counters equal the hosts' kernel counters, the routing table's hits grow by the routed frames, P4Runtime
    writes and packet-ins/digests move together with the controller's own counters."""
    skip_on_bmv2("no metrics endpoint (p4switch --metrics-addr)")
    hosts, switch, write, tmp = lab
    h1, h3 = hosts["h1"], hosts["h3"]
    sw_address = f"127.0.0.1:{free_port()}"
    switch.stop()
    switch.extra += ["--metrics-addr", sw_address]
    switch.start()
    ctl_address = f"127.0.0.1:{free_port()}"
    daemon = Daemon(write(), tmp / "vrouter.log", args=("--metrics-addr", ctl_address))
    try:
        daemon.wait_for("event=reconciled")
        daemon.wait_for("event=metrics_serving")
        s = scrape(sw_address)
        names = {n for n, _, _ in s}
        assert all(re.fullmatch(r"(p4switch|process)_[a-z0-9_]+", n) for n in names), names
        assert value(s, "p4switch_p4runtime_requests_total", rpc="SetForwardingPipelineConfig", code="OK") == 1
        writes = value(s, "p4switch_p4runtime_requests_total", rpc="Write", code="OK")
        assert writes >= 1
        assert value(s, "p4switch_p4runtime_request_duration_seconds_count", rpc="Write", code="OK") == writes
        assert value(s, "p4switch_p4runtime_request_duration_seconds_bucket", rpc="Write", code="OK", le="+Inf") == writes
        assert value(s, "p4switch_queue_capacity_frames", port="1", interface=h1.switch_side) == 256
        assert value(s, "process_cpu_seconds_total") > 0 and value(s, "process_resident_memory_bytes") > 1e6

        assert h1.reaches(h3.ip), daemon.text()[-2000:]      # ARP (packet-ins), learning (digests), first pings
        s = wait_metric(ctl_address, "vrouter_neighbors", 2, switch="s1")
        c = scrape(ctl_address)
        s = scrape(sw_address)
        assert value(s, "p4switch_p4runtime_requests_total", rpc="Write", code="OK") > writes, "stations written"
        assert value(s, "p4switch_p4runtime_packet_in_total") >= value(c, "vrouter_packet_ins_total") >= 2
        assert value(s, "p4switch_p4runtime_digest_lists_total") >= value(c, "vrouter_digest_lists_total") >= 1
        assert value(s, "p4switch_p4runtime_digest_entries_total") >= value(s, "p4switch_p4runtime_digest_lists_total")
        assert value(s, "p4switch_p4runtime_packet_out_total") >= 1, "ARP replies from the controller"

        # 20 routed pings h1 -> h3 and their replies, counted by the hosts' kernels and by the switch
        k0, s0 = quiet_counts([h1, h3], sw_address)
        assert h1.ping(h3.ip, count=20, wait=2)
        k1, s1 = quiet_counts([h1, h3], sw_address)

        def delta(name: str, **labels: str) -> float:
            return value(s1, name, **labels) - value(s0, name, **labels)

        p1, p3 = {"port": "1", "interface": h1.switch_side}, {"port": "3", "interface": h3.switch_side}
        sent1, got1 = k1["h1.tx_packets"] - k0["h1.tx_packets"], k1["h1.rx_packets"] - k0["h1.rx_packets"]
        sent3, got3 = k1["h3.tx_packets"] - k0["h3.tx_packets"], k1["h3.rx_packets"] - k0["h3.rx_packets"]
        assert sent1 >= 20 and sent3 >= 20
        assert delta("p4switch_port_rx_packets_total", **p1) == sent1
        assert delta("p4switch_port_tx_packets_total", **p1) == got1
        assert delta("p4switch_port_rx_packets_total", **p3) == sent3
        assert delta("p4switch_port_tx_packets_total", **p3) == got3
        assert delta("p4switch_port_rx_bytes_total", **p1) >= 98 * 20     # 98-byte echo requests
        assert delta("p4switch_port_tx_drops_total") == 0 and delta("p4switch_port_rx_drops_total") == 0
        routed = delta("p4switch_table_hits_total", table="ingress.routing.ipv4_route")
        assert 40 <= routed <= sent1 + sent3, (routed, sent1, sent3)
        assert delta("process_cpu_seconds_total") >= 0
    finally:
        code = daemon.stop()
    assert code == 0, daemon.text()[-2000:]
