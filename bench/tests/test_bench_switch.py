"""Smoke test of `make bench-switch` (switch/p4switch/bench/bench-switch.sh) in its QUICK=1 mode:
every step runs (generator ceiling, Linux bridge, p4switch L3 and L3 + ACL over veth) and the
JSON report has possible numbers. No timing pass/fail. Needs root; ~20 s."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_switch_quick_writes_a_report_with_every_figure():
    env = {**os.environ, "QUICK": "1", "SKIP_INPROCESS": "1", "NS_PREFIX": "p4bq"}
    p = subprocess.run([str(ROOT / "switch/p4switch/bench/bench-switch.sh")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    m = re.search(r"results: \S+\.txt, (\S+\.json)", p.stdout)
    assert m, p.stdout
    report = json.loads(Path(m.group(1)).read_text())
    assert report["quick"] is True and report["workers"] == 1
    for key in ("generator_ceiling_pps", "linux_bridge_pps", "p4switch_l3_pps", "p4switch_l3_acl_pps"):
        assert 1_000 <= report[key] <= 100_000_000, (key, report[key])
