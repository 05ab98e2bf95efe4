"""compiler/tools/p4c_samples.py: the programs it compiles and how it compares two runs."""
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("p4c_samples", HERE.parent / "tools" / "p4c_samples.py")
p4c_samples = importlib.util.module_from_spec(spec)
sys.modules["p4c_samples"] = p4c_samples
spec.loader.exec_module(p4c_samples)

GOOD = (HERE / "programs" / "basic.p4").read_text()
BAD = "#include <core.p4>\nconst bit<8> x = 1 + true;\n"


def test_a_new_refusal_fails_the_run(tmp_path):
    samples = tmp_path / "p4c" / "testdata" / "p4_16_samples"
    samples.mkdir(parents=True)
    (samples / "good.p4").write_text(GOOD)
    (samples / "bad.p4").write_text(BAD)
    good, bad = str(samples / "good.p4"), str(samples / "bad.p4")
    base = tmp_path / "base.json"
    base.write_text(json.dumps({good: "OK", bad: "OK"}))
    out = tmp_path / "now.json"
    rc = p4c_samples.main([str(out), "--p4c", str(tmp_path / "p4c"), "--ext", str(tmp_path / "no-ext"),
                           "--baseline", str(base), "-j", "1"])
    now = json.loads(out.read_text())
    assert now[good] == "OK"
    assert "error" in now[bad]
    assert rc == 1


def test_comparison():
    now = {"a.p4": "OK", "b.p4": "b.p4:3:1: error: type mismatch", "c.p4": "c.p4:1:1: error: other"}
    assert p4c_samples.compared(now, now) == []
    # refused before only for not being a V1Switch program: a real error now is new
    lines = p4c_samples.compared(now, {"b.p4": "b.p4:9:1: error: unsupported: package P (only v1model's V1Switch)",
                                       "c.p4": "c.p4:2:1: error: something else", "a.p4": "a.p4:1:1: error: x"})
    assert lines[0].startswith("NEW REFUSAL b.p4")
    assert [x.split()[:2] for x in lines[1:]] == [["changed", "a.p4"], ["changed", "c.p4"]]
