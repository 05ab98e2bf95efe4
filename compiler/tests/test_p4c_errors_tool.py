"""compiler/tools/p4c_errors.py: the disagreement classes, with stand-in reference compilers."""
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("p4c_errors", HERE.parent / "tools" / "p4c_errors.py")
p4c_errors = importlib.util.module_from_spec(spec)
sys.modules["p4c_errors"] = p4c_errors      # dataclasses look their module up there
spec.loader.exec_module(p4c_errors)

GOOD = (HERE / "programs" / "basic.p4").read_text()
BAD = "#include <core.p4>\nheader h_t { bit<8> f; }\nconst bit<8> x = 1 + true;\n"


def _tool(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def test_classes_and_exit_status(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "good.p4").write_text(GOOD)
    (corpus / "bad.p4").write_text(BAD)
    # A reference that refuses everything: good.p4 is then a program only p4c refuses.
    refuse = _tool(tmp_path / "p4test", "echo 'x.p4(1): [--Werror=type-error] error: nope' >&2; exit 1")
    out = tmp_path / "r.json"
    rc = p4c_errors.main([str(corpus), "--p4test", refuse, "--json", str(out), "--report", str(tmp_path / "r.md"), "-j", "2"])
    rows = {Path(r["program"]).name: r for r in json.loads(out.read_text())}
    assert rows["bad.p4"]["class"] == "both refuse"
    assert rows["good.p4"]["class"] == "only p4c refuses"
    assert rows["good.p4"]["refs"]["p4test"]["first"].endswith("error: nope")
    assert rc == 1
    # A reference that accepts everything: bad.p4 is refused by p4compile alone (exit 0).
    accept = _tool(tmp_path / "p4c-bm2-ss", "exit 0")
    rc = p4c_errors.main([str(corpus), "--p4c-bm2-ss", accept, "--json", str(out), "-k", "bad"])
    (row,) = json.loads(out.read_text())
    assert row["class"] == "only p4compile refuses" and "error" in row["ours"]["first"]
    assert rc == 0


def test_a_crashing_reference_is_no_verdict(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "bad.p4").write_text(BAD)
    bug = _tool(tmp_path / "p4test", "echo 'Compiler Bug: oops' >&2; exit 1")
    out = tmp_path / "r.json"
    p4c_errors.main([str(corpus), "--p4test", bug, "--json", str(out), "--report", str(tmp_path / "r.md")])
    assert json.loads(out.read_text())[0]["class"] == "reference crashed"


def test_a_proper_error_before_a_compiler_bug_is_a_refusal():
    out = "x.p4(72): [--Werror=expected] error: Expected a direct counter\nCompiler Bug: x.p4(60): unknown type\n"
    assert p4c_errors.judge(1, out, ("Compiler Bug",)).verdict == "refused"
    assert p4c_errors.judge(1, "Compiler Bug: oops\n", ("Compiler Bug",)).verdict == "crash"
    assert p4c_errors.judge(None, "", ()).verdict == "crash"


def test_the_place_of_the_first_error_is_compared(tmp_path):
    corpus = tmp_path / "p4_16_errors"       # the folder's name says "errors": not an error line
    corpus.mkdir()
    (corpus / "bad.p4").write_text(BAD)
    out = tmp_path / "r.json"
    for lines, want in (("3", "same line"), ("1 3", "a p4c error line"), ("1", "other line")):
        body = "; ".join(f"echo \"$(pwd)/bad.p4({n}): [--Werror=type-error] error: nope\"" for n in lines.split())
        ref = _tool(tmp_path / "p4test", f"echo \"$(pwd)/bad.p4(1): [--Wwarn=shadow] warning: w\"; {body}; exit 1")
        p4c_errors.main([str(corpus), "--p4test", ref, "--json", str(out), "--report", str(tmp_path / "r.md")])
        (row,) = json.loads(out.read_text())
        assert row["class"] == "both refuse" and row["place"] == want, (lines, row)
        assert "error: nope" in row["refs"]["p4test"]["first"]
    report = (tmp_path / "r.md").read_text()
    assert "| both refuse | 1 |  |  | 1 |  |" in report and "## both refuse, on another line" in report
