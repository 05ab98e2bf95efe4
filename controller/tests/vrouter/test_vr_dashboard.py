"""`vrouter dashboard`: the page and its JSON; end to end in headless Chromium while traffic runs.

The browser test opens the page served by `vrouter dashboard` (Debian's chromium driven by
selenium through chromium-driver) while hosts in namespaces send traffic through p4switch
managed by `vrouter run`, checks that the numbers move, and that once traffic stops they are
the switch's own counters, read over P4Runtime.
"""

from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

from vrouter import names as N
from vrouter.show import _ip as show_ip
from vrouter.dashboard import WEB, Dashboard, Rates
from vrouter.config import load

from browser import browser, close, dashboard_ready, page_value, switch_counters, wait_equal
from netns import VROUTER, ROOT, Daemon, free_port


def test_rates_are_per_second_and_restart_at_a_counter_reset() -> None:
    r = Rates()
    assert r("p1", 10.0, 100, 1000) == (0.0, 0.0)
    assert r("p1", 12.0, 300, 3000) == (100.0, 8000.0)
    assert r("p1", 13.0, 5, 50) == (0.0, 0.0)          # the switch restarted: counters from 0
    assert r("p1", 14.0, 15, 150) == (10.0, 800.0)


def test_page_is_self_contained_and_an_unreachable_switch_is_reported(tmp_path, vrouter_program) -> None:
    path = tmp_path / "net.yaml"
    path.write_text(f"pipeline: {{p4info: {vrouter_program.p4info}, config: {vrouter_program.json}}}\n"
                    f"switches:\n  s1:\n    address: 127.0.0.1:{free_port()}\n    vlans: {{1: {{}}}}\n"
                    "    ports:\n      1: {vlan: 1}\n")
    net = load(path)
    dash = Dashboard(net, ["s1"], path)
    client = dash.app().test_client()
    page = client.get("/")
    assert page.status_code == 200 and b'<script src="dashboard.js">' in page.data
    for name in ("dashboard.html", "dashboard.js", "dashboard.css"):
        text = (WEB / name).read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//", text) and "http://" not in text and "https://" not in text, name
        assert client.get(f"/{name}" if name != "dashboard.html" else "/").status_code == 200
    assert client.get("/etc/passwd").status_code == 404
    dash.samplers[0].sample()                  # nothing listens there
    state = client.get("/api/state").get_json()
    s1 = state["switches"][0]
    assert s1["switch"] == "s1" and s1["ok"] is False and "UNAVAILABLE" in s1["error"], s1
    assert s1["controller"] == {"running": False} and state["interval"] == 1.0


POLICED = "policers:\n  slow: {cir: 100kbit, cburst: 2kb}\n"


@pytest.mark.integration
def test_the_page_shows_live_counters_that_match_the_switch(lab) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    hosts, switch, write, tmp = lab
    h1, h2, h3 = hosts["h1"], hosts["h2"], hosts["h3"]
    path = write(top=POLICED)
    path.write_text(path.read_text().replace("2: {vlan: 10}", "2: {vlan: 10, policer: slow}"))
    env = {**os.environ, "VROUTER_STATE_DIR": str(tmp / "state")}
    daemon = Daemon(path, tmp / "vrouter.log", env=env)
    listen = f"127.0.0.1:{free_port()}"
    dash_log = (tmp / "dashboard.log").open("w")
    dash = subprocess.Popen([*VROUTER, "dashboard", str(path), "--listen", listen], stdout=dash_log,
                            stderr=subprocess.STDOUT, cwd=ROOT / "controller", env=env)
    traffic: list[subprocess.Popen] = []
    driver = None
    try:
        daemon.wait_for("event=reconciled")
        assert h1.reaches(h3.ip)
        dashboard_ready(listen)
        # Traffic: routed h1 -> h3 (20 pings/s for 8 s), policed h2 -> h1 (1 KB pings at 50/s, 400 kbit/s
        # against a 100 kbit/s policer), a telnet attempt the ACL denies.
        ping = lambda h, *a: subprocess.Popen(["ip", "netns", "exec", h.ns, "ping", "-q", *a],  # noqa: E731
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        traffic = [ping(h1, "-i", "0.05", "-c", "160", h3.ip), ping(h2, "-s", "1000", "-i", "0.02", "-c", "400", h1.ip)]
        h1.run("timeout", "2", "bash", "-c", f"echo > /dev/tcp/{h3.ip}/23")

        driver = browser()
        driver.get(f"http://{listen}/")
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, '[id="s1-port-1"]'))
        # While traffic runs: the numbers change, rates and plots show it.
        first = int(page_value(driver, "s1-port-1", "rx_packets"))
        time.sleep(2.5)
        second = int(page_value(driver, "s1-port-1", "rx_packets"))
        assert second > first, (first, second)
        assert float(page_value(driver, "s1-port-1", "rx_pps")) > 5
        assert float(page_value(driver, "s1-port-3", "tx_bps")) > 0
        points, lines = driver.execute_script("const p = document.querySelector('[id=\"s1-port-1\"] svg.plot'); "
                                              "return [p.dataset.points, p.querySelectorAll('polyline').length]")
        assert int(points) >= 2 and lines == 2, (points, lines)
        assert float(page_value(driver, "s1-policer-port_meter-2", "red_bps")) > 0
        assert float(page_value(driver, "s1-policer-port_meter-2", "green_bps")) > 0

        # The controller's state: both hosts resolved, the VLANs and interfaces of the description.
        assert page_value(driver, "s1-neighbor-10.0.20.11", "port") == "3"
        assert page_value(driver, "s1-neighbor-10.0.10.11", "port") == "1"
        assert page_value(driver, "s1-vlan-10", "ports") == "1 2"
        assert page_value(driver, "s1-interface-20", "address") == "10.0.20.1/24"
        assert "learned stations" in driver.find_element(By.ID, "switch-s1").text
        # No resource came from anywhere but the dashboard itself (the page works offline).
        origins = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert origins and all(o.startswith(f"http://{listen}/") for o in origins), origins

        for t in traffic:
            t.wait(timeout=30)
        # Traffic over: the page's numbers are the switch's counters.
        with switch_counters(switch.address) as sw:
            for port, field, name in ((1, "rx_packets", "ingress.ingress_port_counter"),
                                      (3, "tx_packets", "egress.egress_port_counter"),
                                      (2, "rx_packets", "ingress.ingress_port_counter")):
                n = wait_equal(f"port {port} {field}", lambda: page_value(driver, f"s1-port-{port}", field),
                               lambda: sw.counter(name, port))
                assert n > 100
            wait_equal("VLAN 10 packets", lambda: page_value(driver, "s1-vlan-10", "packets"),
                       lambda: sw.counter("ingress.vlan_counter", 10))
            assert wait_equal("route 10.0.20.11/32", lambda: page_value(driver, "s1-route-10.0.20.11/32", "packets"),
                              lambda: sw.direct(N.IPV4_ROUTE, lambda e: show_ip(e.match["ipv4_dst"]) == "10.0.20.11/32")) >= 150
            assert wait_equal("ACL no-telnet hits", lambda: page_value(driver, "s1-acl-0", "packets"),
                              lambda: sw.direct(N.ACL, lambda e: True)) >= 1
            for c, color in enumerate(("green", "yellow", "red")):
                wait_equal(f"policer {color}",
                           lambda: page_value(driver, "s1-policer-port_meter-2", f"{color}_bps", "data-packets"),
                           lambda: sw.counter("ingress.port_meter_color_counter", 2 * 4 + c))
    finally:
        close(driver, traffic)
        dash.terminate()
        dash_code = dash.wait(timeout=10)
        dash_log.close()
        code = daemon.stop()
    assert dash_code == 0, (tmp / "dashboard.log").read_text()[-2000:]
    assert code == 0, daemon.text()[-2000:]
