"""Reports and plots from recorded results (issue 19 Must 3 and 4): every published table
beside ours row by row, every published figure's axes as PNG and SVG, by `make bench-report`
from stored result files. No traffic: the results are the fixtures of fixtures.py."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import compare, figures, published  # noqa: E402
from bench.tests import fixtures  # noqa: E402

FIGURES = {"s1": ["s1-l2", "s1-l3-one", "s1-l3-two"], "s2": ["s2-throughput", "s2-jitter", "s2-loss"],
           "s3": ["s3-mpls"], "s4": ["s4-policing", "s4-cpu"], "s5": ["s5-rules-nat"]}


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    """`make bench-report` over a results folder holding one recorded run of each scenario."""
    tmp = tmp_path_factory.mktemp("summary")
    results = tmp / "results"
    for sc, make in fixtures.ALL.items():
        d = results / f"20260101T000000Z-{sc}"
        d.mkdir(parents=True)
        (d / "results.json").write_text(json.dumps(make()))
    doc = tmp / "docs" / "results.md"
    p = subprocess.run([sys.executable, "-m", "bench.summary", "--results", str(results), "--doc", str(doc)],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return results, doc


@pytest.mark.parametrize("sc", fixtures.ALL)
def test_every_figure_is_drawn_as_png_and_svg(sc, summary):
    _, doc = summary
    for name in FIGURES[sc]:
        png = doc.parent / "results" / f"{name}.png"
        assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 5000
        svg = png.with_suffix(".svg").read_text()
        assert "<svg" in svg and "published" in svg       # the legend names the study's series
        assert f"(results/{name}.png)" in doc.read_text()


def test_s1_puts_every_size_of_both_published_series_beside_ours():
    md = "\n".join(compare.sections("s1", fixtures.s1()))
    ref = published.load("s1")
    assert "Marcel" in md and ref["title"] in md
    for case, (vm, phys) in compare.S1_TABLES.items():
        assert f"{vm} (CHR VM) and {phys} (physical switch)" in md
    # 9136 B, one routed flow: the VM's 697.8 and the physical switch's 370.2 (Table 6), ours median and spread
    row = next(l for l in md.splitlines() if l.startswith("| 9136 |") and "697.8" in l)
    assert "370.2" in row and "n=3" in row
    assert sum(l.startswith("| ") and l[2].isdigit() for l in md.splitlines()) == 16 * 3
    assert "Table 9" in md and "not reproduced" in md            # production tables listed with the reason
    assert "Method differences" in md and "PassMark" in md


def test_s2_gives_all_ten_loads_per_hop_count_with_udp_tcp_jitter_and_loss():
    md = "\n".join(compare.sections("s2", fixtures.s2()))
    for hops in (1, 2, 3):
        assert f"### {hops} router(s) in the line" in md
    three = md.split("### 3 router(s)")[1]
    row = next(l for l in three.splitlines() if l.startswith("| 1000 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "620.6" and cells[6] == "16.803" and cells[8] == "829.267"   # Tables V, VII, section B3
    assert cells[1].startswith("970.0 (960.0–980.0, n=3)") and cells[7] == "990.0"     # ours: UDP median, TCP at 1000
    assert "30 repetitions" in md or "repetitions: 30" in md


def test_s3_s4_s5_put_the_published_figures_beside_ours():
    s3 = "\n".join(compare.sections("s3", fixtures.s3()))
    assert "| 1530 | explicit-null | 1.05 | 8.3 | 77 | 20 |" in s3
    s4 = "\n".join(compare.sections("s4", fixtures.s4()))
    assert "| after | VM 1 → VM 3 (a->c) | yes | yes | yes |" in s4
    assert "| after | VM 1 → VM 2 (a->b) | no | no | no |" in s4
    assert "| 200 | 198.15 | 196.0 | 196.0 |" in s4 and "| none | 902.32 |" in s4
    assert "| TCP | send | 14.55 | 5.28 | 33.6 | 6.33 |" in s4 and "before and after VLAN isolation" in s4
    s5 = "\n".join(compare.sections("s5", fixtures.s5()))
    assert "| 1 | off | 1900 | 1799.9 | 1799.9 |" in s5 and "| 1 | on | 1890 |" in s5
    assert "Table 12" in s5 and "not reproduced" in s5


def test_bench_report_writes_the_summary_from_stored_results_alone(summary):
    results, doc = summary
    text = doc.read_text()
    for sc in FIGURES:
        assert (doc.parent / "results" / f"{sc}.json").exists()     # the stored results the plots come from
    assert text.count("## Published beside ours") == 5 and "697.8" in text and "16.803" in text
    # again, from the stored copies only (the run folders gone): the same summary
    subprocess.run(["rm", "-rf", str(results)], check=True)
    p = subprocess.run([sys.executable, "-m", "bench.summary", "--results", str(results), "--doc", str(doc)],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    again = doc.read_text()
    assert again.count("## Published beside ours") == 5 and "From docs/results/s2.json" in again


@pytest.mark.parametrize("sc", fixtures.ALL)
def test_each_scenario_writes_its_report_from_recorded_results(sc, tmp_path, monkeypatch):
    import importlib
    from bench.rfc2544 import Settings
    mod = importlib.import_module(f"bench.{sc}")
    drawn = []       # the plots themselves are checked above; here only that the report shows them
    monkeypatch.setattr(figures, "make", lambda s, data, out: drawn.append(s) or
                        [(n, out / f"{n}.png") for n in FIGURES[s]])
    data = fixtures.ALL[sc]()
    args = {"s1": (Settings(trial_seconds=60.0, resolution=0.01, loss_tolerance=0.0, line_bps=1e9),),
            "s3": (10.0,)}.get(sc, ())
    mod.write_report(tmp_path, data, *args)
    md = (tmp_path / "report.md").read_text()
    assert "## Published beside ours" in md and "Method differences" in md
    assert drawn == [sc] and all(f"({name}.png)" in md for name in FIGURES[sc])


@pytest.mark.parametrize("sc", fixtures.ALL)
def test_each_report_gives_the_load_at_start_and_end_and_warns_when_the_machine_was_busy(sc, tmp_path, monkeypatch):
    import importlib
    from bench.rfc2544 import Settings
    mod = importlib.import_module(f"bench.{sc}")
    monkeypatch.setattr(figures, "make", lambda s, data, out: [])
    args = {"s1": (Settings(trial_seconds=60.0, resolution=0.01, loss_tolerance=0.0, line_bps=1e9),),
            "s3": (10.0,)}.get(sc, ())
    for start, busy in ((["0.10", "0.20", "0.30"], False), (["1.73", "1.47", "1.31"], True)):
        data = fixtures.ALL[sc]()
        data["machine"] = {**data["machine"], "loadavg": start, "loadavg_end": ["0.90", "0.80", "0.70"]}
        mod.write_report(tmp_path, data, *args)
        head = (tmp_path / "report.md").read_text().splitlines()[:4]
        note = next(line for line in head if "Load average" in line)
        assert f"{' '.join(start)} at start, 0.90 0.80 0.70 at end" in note
        assert ("exceeded 0.5" in note) == busy


def test_make_bench_waits_for_the_load_to_settle_before_a_scenario(monkeypatch, capsys):
    from bench import all as bench_all
    loads = iter([1.7, 1.7, 1.2, 0.8, 0.45, 0.45])
    monkeypatch.setattr(bench_all.os, "getloadavg", lambda: (next(loads), 0.0, 0.0))
    monkeypatch.setattr(bench_all.time, "sleep", lambda s: None)
    bench_all.settle(180)
    out = capsys.readouterr().out
    assert "waiting up to 180 s" in out and "load average 0.45" in out


def test_summary_shows_the_published_tables_once_when_the_run_wrote_its_own_report(tmp_path, monkeypatch):
    from bench import s3
    run = tmp_path / "results" / "20260101T000000Z-s3"
    run.mkdir(parents=True)
    data = fixtures.ALL["s3"]()
    (run / "results.json").write_text(json.dumps(data))
    monkeypatch.setattr(figures, "make", lambda s, d, out: [])
    s3.write_report(run, data, 10.0)
    assert "Published beside ours" in (run / "report.md").read_text()
    doc = tmp_path / "docs" / "results.md"
    p = subprocess.run([sys.executable, "-m", "bench.summary", "--results", str(tmp_path / "results"),
                        "--doc", str(doc)], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert doc.read_text().count("### Published beside ours") == 1
