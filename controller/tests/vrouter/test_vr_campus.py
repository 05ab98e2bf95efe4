"""`make run` in miniature: the campus topology in mininet, the controller, the checked ping matrix, iperf3;
and on the same running campus, the dashboard in headless Chromium while hosts send traffic."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bmv2 import is_bmv2, skip_on_bmv2
from netns import free_port

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def test_two_switches_joined_by_a_trunk_reach_each_other(tmp_path, vrouter_program) -> None:
    """topo/two-switches.yaml: both switches are built; hosts of s2 use s1's interfaces over the trunk."""
    if os.geteuid() != 0:
        pytest.fail("the campus test needs root (mininet)")
    text = (ROOT / "topo" / "two-switches.yaml").read_text()
    desc = tmp_path / "two-switches.yaml"
    desc.write_text(f"pipeline: {{p4info: {vrouter_program.p4info}, config: {vrouter_program.json}}}\n" + text)
    base = free_port()
    done = subprocess.run([sys.executable, str(ROOT / "topo" / "run_campus.py"), "--file", str(desc), "--no-cli",
                           "--prefix", "hc2", "--grpc-port", str(base), "--log-dir", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "4 hosts in 3 VLANs on hc2s1, hc2s2" in out, out[-3000:]
    # staff1 (s1) <-> staff2 (s2) bridged over the trunk, staff2 <-> guest1 routed by s1 and back (router on
    # a stick), guest1 (s2) -> srv1 (s1) denied by s1's ACL: exactly the two srv1/guest1 pairs fail
    assert "reachability: 10/12 pairs reach, 2 blocked by the ACL, 0 unexpected" in out, out[-3000:]
    assert "across switches: 6/8 pairs of hosts on different switches reach" in out, out[-3000:]
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("hc2")}
    assert rows["hc2staff2"] == ["o", "o", "-", "o"] and rows["hc2guest1"] == [".", "o", "o", "-"], rows
    assert re.search(r"iperf3 hc2staff1 \(VLAN 10\) -> hc2guest1 \(VLAN 30\), routed: \d+\.\d Mbit/s", out), out


class Campus:
    """`make run --dashboard ... --hold` as a child: its output so far, its hosts, and the addresses it serves."""

    def __init__(self, desc: Path, log_dir: Path, prefix: str = "hct") -> None:
        self.prefix, self.log_dir = prefix, log_dir
        self.grpc, self.metrics, self.dashboard = free_port(), f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
        self.switch_metrics = None if is_bmv2() else free_port()   # p4switch's own endpoint (--metrics-addr)
        more = [] if self.switch_metrics is None else ["--switch-metrics-port", str(self.switch_metrics)]
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "topo" / "run_campus.py"), "--file", str(desc),
                                     "--no-cli", "--hold", "--prefix", prefix, "--grpc-port", str(self.grpc),
                                     "--log-dir", str(log_dir), "--metrics-addr", self.metrics,
                                     "--dashboard", self.dashboard, *more],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        self.hosts: dict[str, tuple[int, str]] = {}      # name without prefix: (pid, address)

    def read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def out(self) -> str:
        return "".join(self.lines)

    def wait_held(self, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while "holding until stdin closes\n" not in self.lines:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.reader.join(timeout=5)
                raise AssertionError(f"the campus did not come up:\n{self.out[-4000:]}")
            time.sleep(0.2)
        line = next(x for x in self.lines if x.startswith("hosts: "))
        for word in line.split()[1:]:
            name, _, rest = word.partition("=")
            pid, _, address = rest.partition("/")
            self.hosts[name.removeprefix(self.prefix)] = (int(pid), address)

    def ip(self, host: str) -> str:
        return self.hosts[host][1]

    def on(self, host: str, *command: str) -> list[str]:
        """A command line run in a host's network namespace."""
        return ["nsenter", "-t", str(self.hosts[host][0]), "-n", *command]

    def stop(self) -> int:
        """Close its stdin (the end of --hold); SIGTERM if it is still busy after 60 s, SIGKILL after 30 more."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.terminate()     # its teardown, as a user's kill
            try:
                code = self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()      # what it started dies with it (parent-death signal)
                code = self.proc.wait()
        self.reader.join(timeout=5)
        return code

    def processes(self) -> list[str]:
        """What it started that is still running: switches, controller and dashboard, the hosts' shells."""
        patterns = [f"127.0.0.1:{self.grpc + i}( |$)" for i in range(2)] + [str(self.log_dir), f"mininet:{self.prefix}"]
        found = []
        for pattern in patterns:
            done = subprocess.run(["pgrep", "-af", pattern], capture_output=True, text=True)
            found += [line for line in done.stdout.splitlines() if line.split()[0] != str(self.proc.pid)]
        return found

    def links(self) -> list[str]:
        """Its interfaces left in this namespace (links between two switches have both ends here)."""
        out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        return re.findall(rf"^\d+: ({self.prefix}[^:@]+)", out, re.M)


@pytest.fixture(scope="module")
def campus(tmp_path_factory, vrouter_program):
    """The campus of `make run`, with the controller's and the switch's metrics and the dashboard, held up."""
    if os.geteuid() != 0:
        pytest.fail("the campus test needs root (mininet)")
    tmp = tmp_path_factory.mktemp("campus")
    desc = tmp / "campus.yaml"   # the compiled program under test, not whatever build/ holds
    desc.write_text(f"pipeline: {{p4info: {vrouter_program.p4info}, config: {vrouter_program.json}}}\n"
                    + (ROOT / "topo" / "campus.yaml").read_text())
    run = Campus(desc, tmp / "run")
    try:
        run.wait_held()
        yield run
    finally:
        code = run.stop()
    assert code == 0, run.out[-4000:]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_campus_leaves_no_process_behind(tmp_path, vrouter_program, sig) -> None:
    """Issue 15: run_campus killed (a user's kill, or a test's SIGKILL) takes its switches, controller, dashboard
    and hosts with it; before, the switch kept its gRPC port and the controller kept running."""
    if os.geteuid() != 0:
        pytest.fail("the campus test needs root (mininet)")
    desc = tmp_path / "two-switches.yaml"
    desc.write_text(f"pipeline: {{p4info: {vrouter_program.p4info}, config: {vrouter_program.json}}}\n"
                    + (ROOT / "topo" / "two-switches.yaml").read_text())
    run = Campus(desc, tmp_path / "run", prefix="hck")
    try:
        run.wait_held()
        started = run.processes()
        assert sum("simple_switch" in p or "p4switch" in p for p in started) == 2, started
        assert sum("vrouter.cli" in p for p in started) == 2 and sum("mininet:hck" in p for p in started) == 6, started
        os.kill(run.proc.pid, sig)
        assert run.proc.wait(timeout=60) == (128 + sig if sig == signal.SIGTERM else -sig)
        deadline = time.monotonic() + 20
        while run.processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert run.processes() == [], f"left behind after {sig.name}"
        # SIGTERM goes through the teardown; after SIGKILL the trunk between s1 and s2 (both ends here, no
        # namespace to take it along) stays until the next run with these names (run_campus.clean) or below
        if sig == signal.SIGTERM:
            assert run.links() == []
    finally:
        run.stop()
        for line in run.processes():   # a failed run leaves nothing behind either
            os.kill(int(line.split()[0]), signal.SIGKILL)
        for name in run.links():
            subprocess.run(["ip", "link", "del", name], capture_output=True)


def test_campus_run_reaches_what_the_acl_allows(campus) -> None:
    out = campus.out
    m = re.search(r"reachability: (\d+)/(\d+) pairs reach, (\d+) blocked by the ACL, 0 unexpected", out)
    assert m and int(m.group(2)) == 14 * 13, out[-3000:]
    assert int(m.group(3)) > 0 and int(m.group(1)) > 140, out[-3000:]
    assert re.search(r"iperf3 .* routed: \d+\.\d Mbit/s", out), out[-2000:]
    # the controller's metrics and the dashboard on the running campus
    m = re.search(rf"metrics http://{campus.metrics}/metrics: (\d+) reconcile runs, (\d+) updates written, "
                  r"(\d+) neighbours, (\d+) learned stations", out)
    assert m and int(m.group(1)) >= 1 and int(m.group(2)) > 50 and int(m.group(3)) >= 10 and int(m.group(4)) >= 10, \
        out[-2000:]
    m = re.search(rf"dashboard http://{campus.dashboard}/: 1/1 switches sampled, (\d+) packets received", out)
    assert m and int(m.group(1)) > 1000, out[-2000:]


def test_campus_switch_serves_its_own_metrics(campus) -> None:
    skip_on_bmv2("no metrics endpoint (p4switch --metrics-addr)")
    out = campus.out
    # the switch's own metrics (p4switch --metrics-addr) on the same run
    m = re.search(rf"metrics http://127.0.0.1:{campus.switch_metrics}/metrics: (\d+) frames received, (\d+) sent, "
                  r"(\d+) table hits, (\d+) P4Runtime requests", out)
    assert m and int(m.group(1)) > 1000 and int(m.group(2)) > 1000 and int(m.group(3)) > 1000, out[-2000:]
    assert int(m.group(4)) >= 2, out[-2000:]      # the pipeline and at least one Write


def test_the_dashboard_in_a_browser_shows_the_campus_traffic_and_the_switch_counters(campus) -> None:
    """Issue 19: headless Chromium on the page while the campus carries traffic; afterwards the switch's numbers."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from vrouter import names as N
    from vrouter.show import _ip as show_ip

    from browser import (browser, close, dashboard_ready, full_page_screenshot, page_number, page_value,
                         switch_counters, wait_equal)

    c = campus
    state = dashboard_ready(c.dashboard)["switches"][0]
    port = {p["name"]: p["port"] for p in state["ports"]}
    traffic: list[subprocess.Popen] = []
    driver = None

    def ping(src: str, dst: str, *opts: str) -> subprocess.Popen:
        return subprocess.Popen(c.on(src, "ping", "-q", *opts, c.ip(dst)), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    try:
        driver = browser()
        driver.get(f"http://{c.dashboard}/")
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, f'[id="s1-port-{port["wifi3"]}"]'))
        # Then 10 s of traffic: routed classroom -> server (20/s), bridged inside classroom A, WiFi -> server
        # through the WiFi VLAN's policer (1 KB at 50/s), WiFi -> management and CCTV -> classroom that the
        # ACL denies (10/s), and a telnet attempt (no-telnet).
        traffic = [ping("ca1", "srv1", "-i", "0.05", "-c", "200"), ping("ca2", "ca3", "-i", "0.1", "-c", "100"),
                   ping("wifi1", "srv2", "-s", "1000", "-i", "0.02", "-c", "500"),
                   ping("wifi2", "mgt1", "-i", "0.1", "-c", "100"), ping("cam1", "ca1", "-i", "0.1", "-c", "100"),
                   subprocess.Popen(c.on("cb1", "timeout", "2", "bash", "-c", f"echo > /dev/tcp/{c.ip('srv2')}/23"),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        time.sleep(1.5)
        # While traffic runs: the numbers change, rates and plots show it.
        ca1, srv1, wifi1 = f"s1-port-{port['ca1']}", f"s1-port-{port['srv1']}", f"s1-port-{port['wifi1']}"
        first = page_number(driver, ca1, "rx_packets")
        time.sleep(2.5)
        assert page_number(driver, ca1, "rx_packets") > first
        assert page_number(driver, ca1, "rx_pps") > 5
        assert page_number(driver, srv1, "tx_bps") > 0
        assert page_number(driver, wifi1, "rx_bps") > 100_000
        points, lines = driver.execute_script(f"const p = document.querySelector('[id=\"{ca1}\"] svg.plot'); "
                                              "return [p.dataset.points, p.querySelectorAll('polyline').length]")
        assert int(points) >= 2 and lines == 2, (points, lines)
        assert page_number(driver, "s1-policer-vlan_meter-50", "green_bps") > 100_000
        assert page_number(driver, "s1-vlan-50", "pps") > 20
        acl = {page_value(driver, f"s1-acl-{i}", "match"): (i, int(page_number(driver, f"s1-acl-{i}", "priority")))
               for i in range(4)}
        wifi_rule = next(i for m, (i, _) in acl.items() if "10.0.30.0/24" in m)
        assert page_number(driver, f"s1-acl-{wifi_rule}", "pps") > 5
        # The campus as described: six VLANs with their interfaces, every host a neighbour on its port.
        assert page_value(driver, "s1-vlan-11", "ports") == f"{port['ca1']} {port['ca2']} {port['ca3']}"
        assert page_value(driver, "s1-interface-50", "address") == "10.0.50.1/24"
        assert page_value(driver, f"s1-neighbor-{c.ip('srv1')}", "port") == str(port["srv1"])
        assert page_value(driver, f"s1-neighbor-{c.ip('wifi1')}", "port") == str(port["wifi1"])
        assert "learned stations" in driver.find_element(By.ID, "switch-s1").text
        origins = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert origins and all(o.startswith(f"http://{c.dashboard}/") for o in origins), origins
        # The picture of controller/README.md, taken while the traffic runs
        # (VROUTER_DASHBOARD_SCREENSHOT=controller/dashboard.png).
        if os.environ.get("VROUTER_DASHBOARD_SCREENSHOT"):
            full_page_screenshot(driver, os.environ["VROUTER_DASHBOARD_SCREENSHOT"])

        for t in traffic:
            t.wait(timeout=60)
        # Traffic over: every port's counters, the VLANs, the routes of the flows, every ACL rule and the
        # policer's colours on the page are the switch's counters.
        with switch_counters(f"127.0.0.1:{c.grpc}") as sw:
            for name, number in sorted(port.items()):
                for field, counter in (("rx_packets", "ingress.ingress_port_counter"),
                                       ("tx_packets", "egress.egress_port_counter")):
                    wait_equal(f"{name} (port {number}) {field}", lambda: page_value(driver, f"s1-port-{number}", field),
                               lambda: sw.counter(counter, number))
            for vlan in (11, 20, 50):
                wait_equal(f"VLAN {vlan} packets", lambda: page_value(driver, f"s1-vlan-{vlan}", "packets"),
                           lambda: sw.counter("ingress.vlan_counter", vlan))
            for host, least in (("srv1", 190), ("srv2", 480)):
                prefix = f"{c.ip(host)}/32"
                assert wait_equal(f"route {prefix}", lambda: page_value(driver, f"s1-route-{prefix}", "packets"),
                                  lambda: sw.direct(N.IPV4_ROUTE, lambda e: show_ip(e.match["ipv4_dst"]) == prefix)) \
                    >= least
            for match, (i, priority) in acl.items():
                hits = wait_equal(f"ACL {match}", lambda: page_value(driver, f"s1-acl-{i}", "packets"),
                                  lambda: sw.direct(N.ACL, lambda e: e.priority == priority))
                denied_pings = "10.0.30.0/24" in match or "10.0.11.0/24" in match    # 100 pings each
                assert hits >= (100 if denied_pings else 1), (match, hits)
            for k, color in enumerate(("green", "yellow", "red")):
                n = wait_equal(f"WiFi policer {color}",
                               lambda: page_value(driver, "s1-policer-vlan_meter-50", f"{color}_bps", "data-packets"),
                               lambda: sw.counter("ingress.vlan_meter_color_counter", 50 * 4 + k))
                assert color != "green" or n >= 500, n
    finally:
        close(driver, traffic)
