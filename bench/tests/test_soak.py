"""The soak benchmark (`make soak`). Smoke tests (root): a few seconds of routed traffic in quiet
and churn windows, asserting that the controller really churned routes in churn windows and
wrote none in quiet ones, traffic flowed in all and the report says so. In-process tests (no
root): the window pattern, the writer's pause, the controller-log counting and the attribution
of loss to the updates (the rank test itself: test_ranktest.py)."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench import soak

ROOT = Path(__file__).resolve().parents[2]


def run_soak(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.soak", "--rate", "3000", "--updates", "400",
                           "--prefix", "hskt", "--warmup", "1", "--out", str(tmp_path), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)


def test_soak_churns_routes_under_traffic(tmp_path):
    p = run_soak(tmp_path, "--duration", "7", "--window", "3")       # routes churn in the routes file (the default)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (run,) = tmp_path.iterdir()
    data = json.loads((run / "results.json").read_text())
    windows = data["windows"]
    # alternate (the default): quiet 3 s, churn 3 s, quiet the last 1 s
    assert [(w["churn"], w["seconds"]) for w in windows] == [(False, 3), (True, 3), (False, 1)]
    quiet = [w for w in windows if not w["churn"]]
    busy = [w for w in windows if w["churn"]]
    # quiet means quiet, also right after a churn window: the writer stopped and the controller
    # had taken its last change before the window began
    assert all(w["route_writes"] == 0 and w["reconciles"] == 0 and w["churn_steps"] == 0 for w in quiet), quiet
    assert windows[2]["settle_s"] is not None and windows[2]["settle_s"] >= 1.5
    assert all(w["churn"] and w["via"] == "file" for w in busy)
    # 400 updates/s requested: vrouter wrote a good share of them within the window
    assert sum(w["route_writes"] for w in busy) >= 100
    assert all(w["reconciles"] > 0 and w["churn_steps"] > 0 for w in busy)
    for w in windows:
        assert w["sent"] > 0 and w["received"] > 0
        assert w["switch_rss_kib"] and w["controller_rss_kib"]
        cpu = w["cpu_ms_per_s"]     # CPU per party: the controller and p4switch's worker threads at least
        assert "vrouter" in cpu and any(k.startswith("p4switch p4switch-w") for k in cpu), cpu
    summary = data["summary"]
    assert summary["kinds"]["quiet"]["windows"] == 2 and summary["kinds"]["churn"]["windows"] == 1
    assert summary["kinds"]["quiet"]["route_writes"] == 0
    assert "controller_memory_growth_pct" in summary["kinds"]["quiet"]     # first -> last quiet window
    # the verdict and its p, on one churn window against two quiet ones
    assert summary["loss_test"]["p"] is not None and summary["loss_test"]["verdict"]
    assert summary["loss_attributable_pct"] == pytest.approx(
        soak.loss_pct(busy[0]) - (soak.loss_pct(quiet[0]) + soak.loss_pct(quiet[1])) / 2)
    # a warm-up ran before window 0 and is reported apart, not counted in any window
    assert data["warmup"]["seconds"] == 1 and data["warmup"]["sent"] > 0
    text = (run / "report.md").read_text()
    assert "Warm-up before window 0, not counted: 1 s" in text
    assert "Quiet against churn windows" in text and summary["loss_test"]["verdict"] in text
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
    # the bench's route writer sits with the control plane: nice 10 (at least the bench's), batch
    assert pr["bench churn thread"] == f"nice {max(bench, 10)} batch", pr
    assert "Priorities in effect" in text


def test_make_soak_passes_the_options_the_soak_needs():
    out = subprocess.run(["make", "-n", "soak", "DURATION=400", "WINDOW=200", "CHURN_VIA=both", "RATE=5000",
                          "PATTERN=churn-after-first", "SCHED=idle"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    assert ("-m bench.soak --duration 400 --window 200 --churn-via both --rate 5000 "
            "--pattern churn-after-first --controller-sched idle") in out, out
    out = subprocess.run(["make", "-n", "soak"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    assert "-m bench.soak --duration 3600" in out and "--churn-via" not in out and "--pattern" not in out
    assert "--controller-sched" not in out, out


def test_soak_compares_churn_through_the_description_and_the_routes_file(tmp_path):
    """--churn-via both: churn windows alternate the two ways, each reported on its own; and the
    daemon under SCHED_IDLE (--controller-sched idle) still writes them."""
    p = run_soak(tmp_path, "--duration", "12", "--window", "3", "--churn-via", "both",      # quiet, desc, quiet, file
                 "--controller-sched", "idle")
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    (run,) = tmp_path.iterdir()
    data = json.loads((run / "results.json").read_text())
    busy = [w for w in data["windows"] if w["churn"]]
    assert [w["via"] for w in busy][:2] == ["description", "file"]
    assert all(w["route_writes"] >= 100 and w["received"] > 0 for w in busy[:2]), busy
    summary = data["summary"]
    for via in ("description", "file"):
        assert "vrouter" in summary[f"churn_cpu_ms_per_s ({via})"] and f"churn_loss_ratio ({via})" in summary
        assert summary[f"loss_test ({via})"]["verdict"]
    # the bench's own writer: a YAML description costs it far more than a routes file
    cpu = [w["cpu_ms_per_s"].get("bench churn thread", 0.0) for w in busy[:2]]
    assert cpu[1] < cpu[0], cpu
    assert "churn via" in (run / "report.md").read_text()
    # every thread of the daemon at SCHED_IDLE, and p4switch's control threads (--control-sched
    # idle), its workers not
    pr = data["priorities"]
    assert data["settings"]["controller_sched"] == "idle"
    assert all(pr[k].endswith(" idle") for k in pr if k.startswith("vrouter ")), pr
    assert pr["bench churn thread"].endswith(" idle"), pr
    control = [k for k in pr if k.startswith("p4switch p4rt-")]
    workers = [k for k in pr if k.startswith("p4switch p4switch-w")]
    assert "p4switch p4rt-grpc" in control and workers, pr
    assert all(pr[k].endswith(" idle") for k in control), pr
    assert not any(pr[k].endswith(" idle") for k in workers), pr


# --- in-process: no root, no switch ---

def test_window_patterns():
    assert soak.window_plan(1200, 300, "alternate") == [(300, False), (300, True), (300, False), (300, True)]
    assert soak.window_plan(1200, 300, "churn-after-first") == [(300, False), (300, True), (300, True), (300, True)]
    # what is left of the duration is a last, shorter window if it is 1 s or more
    assert soak.window_plan(7, 3, "alternate") == [(3, False), (3, True), (1, False)]
    assert soak.window_plan(6.5, 3, "alternate") == [(3, False), (3, True)]
    hour = soak.window_plan(3600, 300, "alternate")
    assert sum(c for _, c in hour) == 6 and len(hour) == 12
    with pytest.raises(ValueError):
        soak.window_plan(600, 300, "random")


def test_switch_options_go_to_p4switch_only(tmp_path, monkeypatch):
    """--controller-sched idle becomes p4switch --control-sched idle; BMv2 does not know it."""
    from bench.dut import P4Switch
    args = ("--control-sched", "idle")
    monkeypatch.delenv("SWITCH", raising=False)
    assert P4Switch(None, tmp_path, switch_args=args).switch_args == args
    monkeypatch.setenv("SWITCH", "simple_switch_grpc --log-console")
    assert P4Switch(None, tmp_path, switch_args=args).switch_args == ()


def test_the_writer_stops_when_paused_and_resumes(tmp_path):
    """A real Churn thread writing a real routes file: nothing is written while paused."""
    routes = tmp_path / "routes.txt"
    churn = soak.Churn(None, tmp_path / "desc.yaml", routes, "10.0.2.2", 2000)
    churn.start()
    try:
        churn.resume("file")
        deadline = time.monotonic() + 5
        while churn.steps < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert churn.steps >= 2
        churn.pause()
        steps, text, mtime = churn.steps, routes.read_text(), routes.stat().st_mtime_ns
        time.sleep(3 * soak.CHURN_PERIOD)
        assert (churn.steps, routes.read_text(), routes.stat().st_mtime_ns) == (steps, text, mtime)
        assert len(text.splitlines()) == soak.ROUTES_KEPT
        churn.resume("file")
        deadline = time.monotonic() + 5
        while churn.steps == steps and time.monotonic() < deadline:
            time.sleep(0.05)
        assert churn.steps > steps and routes.read_text() != text
    finally:
        churn.stop.set()
        churn.join(5)


RECONCILED = ("INFO vrouter event=reconciled switch=s1 reason=routes added=250 removed=250 writes=500 "
              "summary=ipv4_route:+250/-250 seconds=0.021\n")


def test_controller_log_counts_reconciles_and_writes_and_waits_for_unfinished_lines(tmp_path):
    path = tmp_path / "s1-vrouter.log"
    log = soak.ControllerLog(path)
    assert log.poll() == (0, 0)         # not there yet
    path.write_text("INFO vrouter event=started file=x\n" + RECONCILED + RECONCILED[:40])
    assert log.poll() == (1, 500)
    with path.open("a") as f:
        f.write(RECONCILED[40:] + "INFO vrouter event=reconciled switch=s1 pipeline_pushed=False writes=3 summary=x\n")
    assert log.poll() == (3, 1003)


def test_settle_waits_until_the_controller_stops_reconciling(tmp_path):
    path = tmp_path / "s1-vrouter.log"
    path.write_text("")
    log = soak.ControllerLog(path)

    def reconcile(until: float) -> None:
        while time.monotonic() < until:
            with path.open("a") as f:
                f.write(RECONCILED)
            time.sleep(0.1)

    t = threading.Thread(target=reconcile, args=(time.monotonic() + 0.6,))
    t.start()
    waited = soak.settle(log, quiet_for=0.3, timeout=5)
    t.join()
    assert waited is not None and waited >= 0.6 + 0.3 - 0.15
    busy = threading.Thread(target=reconcile, args=(time.monotonic() + 1.5,))
    busy.start()
    assert soak.settle(log, quiet_for=0.5, timeout=0.8) is None        # never quiet for 0.5 s
    busy.join()


def window(k: int, churn: bool, lost: int, p99: float, switch: int = 50_000, ctl: int = 54_000) -> dict:
    return {"window": k, "churn": churn, "via": "file" if churn else None, "seconds": 300, "sent": 1_000_000,
            "lost": lost, "lat_p99_us": p99, "route_writes": 300_000 if churn else 0,
            "route_writes_per_s": 1000.0 if churn else 0.0,
            "reconciles": 600 if churn else 0, "churn_steps": 600 if churn else 0,
            "switch_rss_kib": switch, "controller_rss_kib": ctl, "cpu_ms_per_s": {"vrouter": 45.0 if churn else 7.0}}


def test_churn_that_costs_loss_is_attributed_to_it():
    ws = [window(k, k % 2 == 1, 500 + 10 * k if k % 2 else 200 + 5 * k, 4000 if k % 2 else 2800,
                 ctl=54_000 + 100 * k) for k in range(12)]
    s = soak.summarize(ws)
    q, c = s["kinds"]["quiet"], s["kinds"]["churn"]
    assert q["windows"] == c["windows"] == 6
    assert q["loss_pct_min"] == pytest.approx(0.02) and q["loss_pct_max"] == pytest.approx(0.025)
    assert c["loss_pct_median"] == pytest.approx(0.056) and c["loss_pct_pooled"] == pytest.approx(0.056)
    assert s["loss_attributable_pct"] == pytest.approx(0.056 - 0.0225)
    assert s["loss_test"]["p"] == pytest.approx(2 / 924) and s["loss_test"]["verdict"].startswith(
        "churn windows above quiet ones")
    assert s["p99_attributable_us"] == 1200 and s["p99_test"]["verdict"].startswith("churn windows above")
    assert q["route_writes"] == 0 and c["route_writes_per_s"] == 1000
    # memory growth first -> last window of each kind
    assert q["controller_memory_growth_pct"] == pytest.approx(100 * 1000 / 54_000)
    assert c["controller_memory_growth_pct"] == pytest.approx(100 * 1000 / 54_100)
    assert s["controller_memory_growth_pct"] == c["controller_memory_growth_pct"]
    assert s["churn_cpu_ms_per_s"] == {"vrouter": 38.0}


def test_churn_inside_the_quiet_range_is_not_distinguishable():
    lost = [270, 260, 300, 760, 250, 410, 280, 530, 310, 290, 240, 330]     # quiet, churn, quiet, ...
    s = soak.summarize([window(k, k % 2 == 1, n, 3000) for k, n in enumerate(lost)])
    assert s["loss_test"]["ranges_overlap"] and s["loss_test"]["p"] >= soak.ALPHA
    assert s["loss_test"]["verdict"].startswith("not distinguishable from quiet")
    assert s["p99_test"]["verdict"].startswith("not distinguishable")          # all tied


def test_too_few_windows_are_said_to_be_too_few():
    """Two quiet and two churn windows that do not overlap: p can be no lower than 1/3, so the
    verdict says the windows cannot show it rather than "not distinguishable"."""
    s = soak.summarize([window(k, k % 2 == 1, 900 if k % 2 else 100, 3000) for k in range(4)])
    t = s["loss_test"]
    assert not t["ranges_overlap"] and t["p"] == pytest.approx(1 / 3) == t["min_p"]
    assert "cannot show it" in t["verdict"] and "not distinguishable" not in t["verdict"]


def test_report_shows_the_attribution(tmp_path):
    ws = [window(k, k % 2 == 1, 500 if k % 2 else 200, 3000) for k in range(4)]
    data = {"machine": {"cores": 2, "cpu": "test", "git": "abc"}, "load_before": ["0.1", "0.1", "0.1"],
            "load_after": ["0.2", "0.1", "0.1"], "zero_loss": {"given": True, "pps": 1000},
            "settings": {"duration_s": 1200, "window_s": 300, "load": 0.9, "frame": 64, "updates_per_s": 1000,
                         "routes_kept": 1000, "churn_via": "file", "pattern": "alternate"},
            "windows": ws, "summary": soak.summarize(ws), "priorities": {}}
    soak.write_report(tmp_path, data)
    text = (tmp_path / "report.md").read_text()
    assert "pattern alternate" in text and "Quiet against churn windows" in text
    assert "0.0200 (0.0200–0.0200)" in text and "+0.0300" in text
    assert data["summary"]["loss_test"]["verdict"] in text
