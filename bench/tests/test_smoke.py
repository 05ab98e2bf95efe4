"""Smoke test of the benchmark harness (`make test`): a tiny S1 and S4 run on p4switch and
the Linux kernel, asserting that the reports are written and the numbers are sane, and that
S1's `--json FILE` and `--pcap DIR` give the results with the machine and captures of every
port. No timing pass/fail: the numbers only have to be possible, not good. Needs root.

Both runs start at once (different name prefixes) and each test waits for its own; the
S1 run uses a 100 Mb/s nominal line so the search, the loss curve and the bursts are short."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import rfc2544  # noqa: E402

LINE_MBPS = 100.0
RUNS = {
    "s1": ["bench.s1", "--quick", "--sizes", "64", "--cases", "l2", "--duts", "p4switch,linux",
           "--trial-seconds", "0.1", "--resolution", "0.5", "--extras-sizes", "64", "--line-mbps", str(LINE_MBPS),
           "--json", "{out}/s1.json", "--pcap", "{out}/pcap"],
    "s4": ["bench.s4", "--parts", "isolation", "--duts", "p4switch,linux"],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Start every harness run at once; each test then waits for its own."""
    procs = {}
    for name, (module, *args) in RUNS.items():
        out = tmp_path_factory.mktemp(name)
        extra = tmp_path_factory.mktemp(f"{name}-files")
        args = [a.replace("{out}", str(extra)) for a in args]
        procs[name] = (out, subprocess.Popen([sys.executable, "-m", module, "--out", str(out), "--prefix",
                                              f"h10t{name[-1]}", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, text=True), extra)
    yield procs
    for _, p, _ in procs.values():
        if p.poll() is None:
            p.kill()
            p.wait()


def finished(runs, name: str) -> Path:
    out, p, _ = runs[name]
    text, _ = p.communicate(timeout=300)
    assert p.returncode == 0, text[-3000:]
    dirs = sorted(out.iterdir())
    assert len(dirs) == 1, dirs
    return dirs[0]


@pytest.mark.parametrize("frame, pps", [(64, 1_488_095), (1518, 81_274), (9136, 13_652)])
def test_line_rate_counts_preamble_and_gap(frame, pps):
    assert abs(rfc2544.line_rate_pps(frame, 1e9) - pps) < 1


def test_s1_tiny_run_writes_a_sane_report(runs):
    d = finished(runs, "s1")
    data = json.loads((d / "results.json").read_text())
    assert {"results.json", "report.md", "s1-l2.png"} <= {p.name for p in d.iterdir()}
    assert (d / "s1-l2.png").stat().st_size > 1000
    assert not data.get("errors")
    assert [r["dut"] for r in data["runs"]] == ["p4switch", "linux-bridge"]
    for r in data["runs"]:
        row = r["sizes"]["64"]
        assert 0 < row["throughput_pps"] <= rfc2544.line_rate_pps(64, LINE_MBPS * 1e6)
        assert row["throughput_mbps"] == pytest.approx(row["throughput_pps"] * 64 * 8 / 1e6)
        assert all(t["sent"] >= t["received"] >= 0 for t in row["trials"])
        lat = row["latency"]
        assert lat["one_way_samples"] > 0 and lat["duplicates"] == 0
        assert 0 < lat["one_way_p50_us"] <= lat["one_way_p99_us"] <= lat["one_way_max_us"] < 1e6
        assert [p["percent"] for p in row["loss_curve"]] == [10, 50, 100]
        assert all(0 <= p["loss_percent"] <= 100 for p in row["loss_curve"])
        assert row["back_to_back"]["burst_frames"] >= 0
    report = (d / "report.md").read_text()
    assert "| 64 |" in report and "published" in report and "158.32" in report   # Table 3's figure beside ours
    assert "Published beside ours" in report and "116.9" in report               # and the physical switch's (Table 4)


def test_s1_json_file_has_the_results_machine_load_and_git_revision(runs):
    d = finished(runs, "s1")
    files = runs["s1"][2]
    data = json.loads((files / "s1.json").read_text())
    assert data["runs"] == json.loads((d / "results.json").read_text())["runs"]
    m = data["machine"]
    assert len(m["loadavg"]) == 3 and len(m["loadavg_end"]) == 3 and float(m["loadavg"][0]) >= 0
    assert len(m["git_revision"]) == 40 and m["cores"] >= 1


def test_s1_pcap_has_every_port_of_one_trial(runs):
    finished(runs, "s1")
    pcap = runs["s1"][2] / "pcap"
    names = sorted(p.name for p in pcap.glob("*.pcap"))
    # hosts a and b (their ends) and the switch namespace's two ports, for the first trial (p4switch)
    assert names == ["h10t1-a-h10t1-a0.pcap", "h10t1-b-h10t1-b0.pcap", "h10t1-sw-h10t1-a1.pcap",
                     "h10t1-sw-h10t1-b1.pcap"], names
    sizes = {n: (pcap / n).stat().st_size for n in names}
    frame = 16 + 60                                   # pcap record header + a 64-byte frame without FCS
    # what a sent to the switch and what b received from it, on the hosts' ends of the links (the
    # switch's own side shows nothing: AF_XDP receive and qdisc-bypass transmit skip tcpdump's taps)
    for n in ("h10t1-a-h10t1-a0.pcap", "h10t1-b-h10t1-b0.pcap"):
        assert sizes[n] > 24 + 100 * frame, sizes
    assert "capture of one trial: p4gen trial, 64 B" in (pcap / "capture.txt").read_text()


def test_s4_isolation_matrix_before_and_after(runs):
    d = finished(runs, "s4")
    data = json.loads((d / "results.json").read_text())
    assert not data.get("errors")
    for name, r in data["isolation"].items():
        assert sum(r["before"]["matrix"].values()) == 12, (name, r["before"])
        assert sorted(p for p, ok in r["after"]["matrix"].items() if ok) == ["a->c", "b->d", "c->a", "d->b"], name
    assert "VLAN isolation" in (d / "report.md").read_text()
