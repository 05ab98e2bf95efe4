"""Smoke test of `make bench-fairness` (bench/fairness.py): two switches side by side, a short
idle spell and a short overload, one round; the figures are there and possible. No timing
pass/fail. Needs root and the release build (target/release/p4switch, p4gen); ~15 s."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.fairness import jain, spread  # noqa: E402


def test_jain_index_is_one_for_equal_shares_and_one_over_n_for_one_taker():
    assert jain([5.0, 5.0, 5.0]) == pytest.approx(1.0)
    assert jain([9.0, 0.0, 0.0]) == pytest.approx(1 / 3)
    assert jain([3.0, 1.0]) == pytest.approx(16 / 20)


def test_jain_index_is_none_when_nothing_was_shared_and_the_report_says_so():
    assert jain([0.0, 0.0]) is None, "nothing forwarded is no fairness at all"
    assert jain([]) is None
    assert spread([None, None], "nothing forwarded") == "none (nothing forwarded in every round)"
    assert spread([0.5, None, 1.0], "nothing forwarded") == "0.750 (0.500-1.000), 1 of 3 rounds without (nothing forwarded)"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")
def test_two_switches_idle_and_overloaded(tmp_path):
    out = tmp_path / "fair.json"
    p = subprocess.run([sys.executable, "-m", "bench.fairness", "--switches", "2", "--rounds", "1", "--seconds", "1",
                        "--rate", "100000", "--idle-seconds", "1", "--prefix", "p4fst", "--json", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "Jain's index: forwarded" in p.stdout and "load average at end" in p.stdout, p.stdout
    r = json.loads(out.read_text())
    assert r["machine"]["loadavg"] and r["machine"]["loadavg_end"]
    (run,) = r["runs"]
    assert run["switches"] == 2 and len(run["idle_cpu_pct"]) == 2 and len(run["overload"]) == 2
    assert all(0 <= x < 100 for x in run["idle_cpu_pct"]), run
    for sw in run["overload"]:
        assert 0 < sw["forwarded_pps"] <= 110_000 and sw["cpu_s"] > 0, sw
    assert 0.5 <= run["jain_forwarded"] <= 1.0 and 0.5 <= run["jain_cpu"] <= 1.0, run
