"""The frame fuzzer reports coverage: the summary line `make test-fuzz` and
`make fuzz` print says what vrouter.p4 the frames reached, and a short run
reaches a floor of it (a broken trace, set-up or report fails here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[1]
ROOT = FUZZ.parent
sys.path.insert(0, str(FUZZ))
import frame_coverage  # noqa: E402

CONSTANTS = "const drop_reason_t DROP_NONE = 0;\nconst drop_reason_t DROP_A = 1;\nconst drop_reason_t DROP_B = 2;\n"
PROGRAM = {
    "parsers": [{"name": "parser", "parse_states": [{"name": "start"}, {"name": "parse_ipv4"}]}],
    "pipelines": [{"name": "ingress", "conditionals": [{"name": "node_2"}], "tables": [
        {"name": "tbl_act", "key": [], "actions": ["act"], "default_entry": {"action_const": True}},
        {"name": "MyIngress.route", "key": [{"match_type": "lpm"}], "actions": ["MyIngress.fwd", "NoAction"],
         "default_entry": {"action_const": False}},
    ]}],
}


def test_summary_counts_what_the_run_reached_out_of_the_program():
    run = frame_coverage.read_run(
        "execs 1000\nseconds 0.5\nseeds 3\nstate parser start\t1000\ntable tbl_act\t9\npair tbl_act act\t9\n"
        "table MyIngress.route\t7\npair MyIngress.route MyIngress.fwd\t5\nbranch node_2 true\t4\n"
        "drop ingress 2\t6\ndrop egress 2\t1\n", CONSTANTS)
    line, missed = frame_coverage.summary(run, frame_coverage.program_points(PROGRAM, CONSTANTS))
    got = frame_coverage.parse(line)
    assert got is not None, line
    assert got["parser states"] == (1, 2)
    assert got["tables"] == (1, 1)  # p4c's keyless const-default wrapper is not a table to look up
    assert got["table x action pairs"] == (1, 2)
    assert got["branches"] == (1, 2)
    assert got["drop reasons"] == (1, 2)
    assert got["execs"] == (1000, 0) and got["exec/s"] == (2000, 0)
    assert missed["drop reasons"] == {"drop A"}


def run_frames(frames: int, seed: int) -> str:
    binary = ROOT / "target" / "release" / "examples" / "fuzz_frames"
    assert binary.exists(), "build it: cargo build --release -p p4runtime-server --example fuzz_frames"
    assert (ROOT / "build" / "vrouter.json").exists(), "run make build-p4"
    done = subprocess.run([sys.executable, str(FUZZ / "frames.py"), "--frames", str(frames), "--seed", str(seed),
                           "--verbose"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def summary_of(out: str) -> dict:
    found = [frame_coverage.parse(line) for line in out.splitlines()]
    found = [f for f in found if f]
    assert len(found) == 1, out
    return found[0]


# Floors under what 10,000 frames of seed 1 reach (21/21, 14/23, 26/62, 132/304, 12/30), so that
# only a regression of the fuzzer, its set-up or the report trips them.
FLOORS = {"parser states": 0.6, "tables": 0.45, "table x action pairs": 0.3, "branches": 0.3, "drop reasons": 0.25}


def test_ten_thousand_frames_reach_a_floor_of_vrouter_p4():
    got = summary_of(run_frames(10_000, 1))
    assert got["execs"][0] == 10_000 and got["exec/s"][0] > 0
    for kind, floor in FLOORS.items():
        reached, of = got[kind]
        assert of > 0, f"vrouter.p4 has no {kind}?"
        assert reached >= floor * of, f"{kind}: {reached}/{of} under the floor {floor:.0%}"


def test_the_same_seed_reaches_the_same_coverage():
    first, second = (run_frames(3_000, 7) for _ in range(2))
    not_reached = [line for line in first.splitlines() if "not reached" in line]
    assert not_reached and not_reached == [line for line in second.splitlines() if "not reached" in line]
    a, b = summary_of(first), summary_of(second)
    assert {k: a[k] for k in FLOORS} == {k: b[k] for k in FLOORS}


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
