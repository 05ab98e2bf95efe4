"""Options every benchmark takes and the progress `make bench` prints (issue 19 Must 5 and 3).
Fast: no traffic (the smoke test runs --json and --pcap for real)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import all as bench_all  # noqa: E402
from bench.common import Progress, parser, repetitions  # noqa: E402


@pytest.mark.parametrize("sc", ["s1", "s2", "s3", "s4", "s5"])
def test_every_scenario_takes_json_pcap_full_and_repetitions(sc):
    p = subprocess.run([sys.executable, "-m", f"bench.{sc}", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for opt in ("--json FILE", "--pcap DIR", "--full", "--repetitions", "--quick", "--standard"):
        assert opt in p.stdout, (sc, opt)


def test_full_profile_uses_the_study_repetitions_unless_told():
    ap = parser("x\n")
    assert repetitions(ap.parse_args([]), 30) == 30
    assert repetitions(ap.parse_args(["--full"]), 3) == 3
    assert repetitions(ap.parse_args(["--standard"]), 30) == 1
    assert repetitions(ap.parse_args(["--quick", "--repetitions", "2"]), 30) == 2


def test_progress_lines_say_the_step_and_the_time_left(capsys, monkeypatch):
    clock = iter([0.0, 0.0, 60.0, 120.0])
    monkeypatch.setattr("bench.common.time.monotonic", lambda: next(clock))
    p = Progress("S2", 3)
    p.step("1 x p4switch, 100 Mb/s offered")
    p.step("1 x p4switch, 200 Mb/s offered")
    p.step("1 x p4switch, 300 Mb/s offered")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "S2 [1/3] 1 x p4switch, 100 Mb/s offered (0 s elapsed)"
    assert lines[1] == "S2 [2/3] 1 x p4switch, 200 Mb/s offered (60 s elapsed, about 2.0 min left)"
    assert lines[2].endswith("(120 s elapsed, about 1.0 min left)")
    assert all(bench_all.STEP.match(l) for l in lines)      # what `make bench` reads for its total


def test_make_bench_time_left_adds_the_running_scenario_and_the_estimates_of_the_rest(monkeypatch):
    now = [0.0]
    monkeypatch.setattr("bench.all.time.monotonic", lambda: now[0])
    est = bench_all.ESTIMATE_MINUTES["standard"]
    left = bench_all.TimeLeft(["s1", "s2", "s3"], "standard")
    left.start("s1")
    assert left.minutes() == pytest.approx(est["s1"] + est["s2"] + est["s3"])
    now[0] = 120.0                        # 2 minutes in, the 3rd of 10 steps starts: 8 minutes to go
    left.step(3, 10)
    assert left.minutes() == pytest.approx(8 + est["s2"] + est["s3"])
    now[0] = 60 * 2 * est["s1"]           # s1 took twice its estimate: the rest is scaled by 2
    left.finish()
    left.start("s2")
    assert left.minutes() == pytest.approx(2 * (est["s2"] + est["s3"]))


VROUTER_BENCHMARKS = {"vrouter.bench": ("--json FILE",), "vrouter.bench_learning": ("--json FILE", "--pcap DIR"),
                      "vrouter.bench_recovery": ("--json FILE", "--pcap DIR")}


@pytest.mark.parametrize("module", sorted(VROUTER_BENCHMARKS))
def test_the_controller_benchmarks_take_json_and_pcap_where_they_have_ports(module):
    """make bench-controller, bench-learning and bench-recovery (issue 19 Must 5)."""
    p = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for opt in VROUTER_BENCHMARKS[module]:
        assert opt in " ".join(p.stdout.split()), (module, opt)


def test_a_benchmarks_json_file_starts_with_the_machine_load_and_git_revision(tmp_path):
    from bench import report
    from vrouter.bench import bench_report
    assert bench_report() is report                 # the controller's benchmarks use this one header
    start = report.machine()
    path = report.save_json(tmp_path / "out" / "bench.json", {"benchmark": "x", "results": {"a": 1}}, start)
    data = json.loads(path.read_text())
    assert list(data)[0] == "machine" and data["results"] == {"a": 1}
    for key in ("cores", "cpu", "kernel", "loadavg", "loadavg_end", "git", "git_revision", "git_dirty", "started"):
        assert key in data["machine"], key
    assert len(data["machine"]["git_revision"]) == 40 and len(data["machine"]["loadavg_end"]) == 3


@pytest.mark.parametrize("script", ["bench-switch.sh", "stop-idle.sh"])
def test_the_shell_benchmarks_take_json_file(script):
    """make bench-switch's and bench-stop-idle's scripts refuse a bad option or a --json without
    FILE before doing anything (their runs need root)."""
    path = ROOT / "switch" / "p4switch" / "bench" / script
    p = subprocess.run(["bash", str(path), "--bogus"], capture_output=True, text=True)
    assert p.returncode == 2 and "options: --json FILE" in p.stderr
    p = subprocess.run(["bash", str(path), "--json"], capture_output=True, text=True)
    assert p.returncode == 2 and "--json needs FILE" in p.stderr


def test_the_shell_benchmarks_write_their_json_with_the_header_taken_at_start(tmp_path):
    """What bench-switch.sh runs: `bench.report machine` at start, `bench.report save` at the end."""
    run = [sys.executable, "-m", "bench.report"]
    start = subprocess.run(run + ["machine"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    (tmp_path / "start.json").write_text(start)
    (tmp_path / "data.json").write_text('{"stamp": "x", "p4switch_l3_pps": 1}')
    subprocess.run(run + ["save", str(tmp_path / "out.json"), "--machine", str(tmp_path / "start.json"),
                          "--data", str(tmp_path / "data.json")], cwd=ROOT, check=True, capture_output=True)
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["p4switch_l3_pps"] == 1
    assert data["machine"]["started"] == json.loads(start)["started"]
    for key in ("loadavg", "loadavg_end", "git_revision", "cores"):
        assert key in data["machine"], key


def test_bench_compiler_writes_its_json_with_the_header(tmp_path):
    """make bench-compiler (compiler/bench_compile.py --json FILE), on a tiny program: the file
    carries the machine header and the timings it printed."""
    out = tmp_path / "compile.json"
    subprocess.run([sys.executable, str(ROOT / "compiler" / "bench_compile.py"), "--runs", "1", "--lines", "50",
                    "--json", str(out)], cwd=ROOT, check=True, capture_output=True)
    data = json.loads(out.read_text())
    assert data["benchmark"] == "bench-compiler" and len(data["command_s"]) == 1
    assert len(data["machine"]["git_revision"]) == 40 and "loadavg_end" in data["machine"]


def test_bench_scale_takes_json_file():
    """make bench-scale (switch/runtime/bench/scale.py); the run itself loads 1 M routes."""
    p = subprocess.run([sys.executable, str(ROOT / "switch" / "runtime" / "bench" / "scale.py"), "--help"],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0 and "--json FILE" in p.stdout


@pytest.mark.parametrize("command,options", [
    (["-m", "bench.soak"], ("--json FILE", "--pcap DIR")),
    ([str(ROOT / "switch" / "p4switch" / "bench" / "vrouter_veth.py")], ("--pcap DIR",)),
])
def test_soak_and_the_vrouter_part_of_bench_switch_take_their_output_options(command, options):
    p = subprocess.run([sys.executable, *command, "--help"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for opt in options:
        assert opt in " ".join(p.stdout.split()), (command, opt)

