"""The one reader of tool output shared by the corpus report, the runner and p4c_errors.py."""
from p4stf import toolout


def test_first_line_is_the_first_match_else_the_first_non_blank_line():
    assert toolout.first_line(["", "  warning: w", "x.p4(3): Error: e  ", "error 2"], r"error") == "x.p4(3): Error: e"
    assert toolout.first_line("\n  \n first\nsecond\n", r"DIFFERS") == "first"
    assert toolout.first_line([], r"x") == "" and toolout.first_line("", r"x") == ""


def test_first_error_takes_p4c_bugs_too_and_is_short():
    assert toolout.first_error("warning\nIn file x.p4\nCompiler Bug: oops\nerror: later") == "Compiler Bug: oops"
    assert toolout.first_error("no mark here\nnor here") == "no mark here"
    assert len(toolout.first_error("error: " + "x" * 500)) == 200


def _tool(path, out: str) -> str:
    path.write_text(f"#!/bin/sh\nprintf '{out}'\n")
    path.chmod(0o755)
    return str(path)


def test_version_line_and_p4c_release(tmp_path):
    p4c = _tool(tmp_path / "p4c", "/usr/bin/p4c\\nVersion 1.2.4.8 (SHA: 32893b7e87 BUILD: Release)\\n")
    assert toolout.version_line(p4c) == "Version 1.2.4.8 (SHA: 32893b7e87 BUILD: Release)"
    assert toolout.p4c_release(p4c) == (1, 2, 4, 8)
    other = _tool(tmp_path / "other", "p4compile 0.1\\n")
    assert toolout.version_line(other) == "p4compile 0.1" and toolout.p4c_release(other) is None
    assert toolout.version_line(str(tmp_path / "missing")) == "?"
    assert toolout.p4c_release(str(tmp_path / "missing")) is None
