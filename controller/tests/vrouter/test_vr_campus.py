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
    done = subprocess.run([sys.executable, str(ROOT / "topo" / "run_campus.py"), "--file", str(desc), "--no-cli",
                           "--prefix", "h9t", "--grpc-port", str(free_port()), "--log-dir", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    m = re.search(r"reachability: (\d+)/(\d+) pairs reach, (\d+) blocked by the ACL, 0 unexpected", out)
    assert m and int(m.group(2)) == 14 * 13, out[-3000:]
    assert int(m.group(3)) > 0 and int(m.group(1)) > 140, out[-3000:]
    assert re.search(r"iperf3 .* routed: \d+\.\d Mbit/s", out), out[-2000:]
