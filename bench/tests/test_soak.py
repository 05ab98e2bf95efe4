"""Smoke test of the soak benchmark (`make soak`): a few seconds of routed traffic, a quiet
window then a churn window, asserting that the controller really churned routes, traffic
flowed in both windows and the report says so. Needs root."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def soak(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.soak", "--rate", "3000", "--updates", "400",
                           "--prefix", "hskt", "--out", str(tmp_path), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)


def test_soak_churns_routes_under_traffic(tmp_path):
    p = soak(tmp_path, "--duration", "7", "--window", "3")       # routes churn in the routes file (the default)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (run,) = tmp_path.iterdir()
    data = json.loads((run / "results.json").read_text())
    windows = data["windows"]
    assert len(windows) >= 2
    quiet, busy = windows[0], windows[1:]
    assert not quiet["churn"] and quiet["route_writes"] == 0
    assert all(w["churn"] and w["via"] == "file" for w in busy)
    # 400 updates/s requested: vrouter wrote a good share of them within the window
    assert sum(w["route_writes"] for w in busy) >= 100
    for w in windows:
        assert w["sent"] > 0 and w["received"] > 0
        assert w["switch_rss_kib"] and w["controller_rss_kib"]
        cpu = w["cpu_ms_per_s"]     # CPU per party: the controller and p4switch's worker threads at least
        assert "vrouter" in cpu and any(k.startswith("p4switch p4switch-w") for k in cpu), cpu
    assert "controller_memory_growth_pct" in data["summary"] or len(busy) < 2
    text = (run / "report.md").read_text()
    assert "route writes/s" in text and "load average before" in text and "CPU milliseconds per second" in text
    assert "vrouter" in data["summary"]["churn_cpu_ms_per_s"]
    # forwarding before control: p4switch's control threads and the controller at nice 10 (at
    # least the bench's own: helpers run it under nice -n 10), batch, the workers as started
    pr = data["priorities"]
    nice = lambda k: int(pr[k].split()[1])
    workers = [nice(k) for k in pr if k.startswith("p4switch p4switch-w")]
    control = [nice(k) for k in pr if k.startswith(("p4switch p4rt-", "vrouter "))]
    bench = int(pr["bench"].split()[1])
    assert workers and set(workers) == {bench} and set(control) == {max(bench, 10)}, pr
    assert all(pr[k].endswith("batch") for k in pr if k.startswith(("p4switch p4rt-", "vrouter "))), pr
    assert "Priorities in effect" in text


def test_make_soak_passes_the_options_the_soak_needs():
    out = subprocess.run(["make", "-n", "soak", "DURATION=400", "WINDOW=200", "CHURN_VIA=both", "RATE=5000"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    assert "-m bench.soak --duration 400 --window 200 --churn-via both --rate 5000" in out, out
    out = subprocess.run(["make", "-n", "soak"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    assert "-m bench.soak --duration 3600" in out and "--churn-via" not in out, out


def test_soak_compares_churn_through_the_description_and_the_routes_file(tmp_path):
    """--churn-via both: churn windows alternate the two ways, each reported on its own."""
    p = soak(tmp_path, "--duration", "10", "--window", "3", "--churn-via", "both")
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (run,) = tmp_path.iterdir()
    data = json.loads((run / "results.json").read_text())
    busy = [w for w in data["windows"] if w["churn"]]
    assert [w["via"] for w in busy][:2] == ["description", "file"]
    assert all(w["route_writes"] >= 100 and w["received"] > 0 for w in busy[:2]), busy
    summary = data["summary"]
    for via in ("description", "file"):
        assert "vrouter" in summary[f"churn_cpu_ms_per_s ({via})"] and f"churn_loss_ratio ({via})" in summary
    # the bench's own writer: a YAML description costs it far more than a routes file
    cpu = [w["cpu_ms_per_s"].get("bench churn thread", 0.0) for w in busy[:2]]
    assert cpu[1] < cpu[0], cpu
    assert "churn via" in (run / "report.md").read_text()
