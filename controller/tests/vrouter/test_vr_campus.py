"""`make run` in miniature: the campus topology in mininet, the controller, the checked ping matrix, iperf3."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from netns import free_port

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def test_campus_run_reaches_what_the_acl_allows(tmp_path, vrouter_program) -> None:
    if os.geteuid() != 0:
        pytest.fail("the campus test needs root (mininet)")
    text = (ROOT / "topo" / "campus.yaml").read_text()
    desc = tmp_path / "campus.yaml"   # the compiled program under test, not whatever build/ holds
    desc.write_text(f"pipeline: {{p4info: {vrouter_program.p4info}, config: {vrouter_program.json}}}\n" + text)
    metrics, dashboard, switch_metrics = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}", free_port()
    done = subprocess.run([sys.executable, str(ROOT / "topo" / "run_campus.py"), "--file", str(desc), "--no-cli",
                           "--prefix", "hct", "--grpc-port", str(free_port()), "--log-dir", str(tmp_path / "run"),
                           "--metrics-addr", metrics, "--dashboard", dashboard,
                           "--switch-metrics-port", str(switch_metrics)],
                          capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    m = re.search(r"reachability: (\d+)/(\d+) pairs reach, (\d+) blocked by the ACL, 0 unexpected", out)
    assert m and int(m.group(2)) == 14 * 13, out[-3000:]
    assert int(m.group(3)) > 0 and int(m.group(1)) > 140, out[-3000:]
    assert re.search(r"iperf3 .* routed: \d+\.\d Mbit/s", out), out[-2000:]
    # the controller's metrics and the dashboard on the running campus
    m = re.search(rf"metrics http://{metrics}/metrics: (\d+) reconcile runs, (\d+) updates written, (\d+) neighbours, "
                  r"(\d+) learned stations", out)
    assert m and int(m.group(1)) >= 1 and int(m.group(2)) > 50 and int(m.group(3)) >= 10 and int(m.group(4)) >= 10, \
        out[-2000:]
    m = re.search(rf"dashboard http://{dashboard}/: 1/1 switches sampled, (\d+) packets received", out)
    assert m and int(m.group(1)) > 1000, out[-2000:]
    # the switch's own metrics (p4switch --metrics-addr) on the same run
    m = re.search(rf"metrics http://127.0.0.1:{switch_metrics}/metrics: (\d+) frames received, (\d+) sent, "
                  r"(\d+) table hits, (\d+) P4Runtime requests", out)
    assert m and int(m.group(1)) > 1000 and int(m.group(2)) > 1000 and int(m.group(3)) > 1000, out[-2000:]
    assert int(m.group(4)) >= 2, out[-2000:]      # the pipeline and at least one Write


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
