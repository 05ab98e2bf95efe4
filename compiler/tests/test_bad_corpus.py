"""Every program in tests/bad/<phase>/ fails with exactly the diagnostics pinned in its .err file."""
import glob
import os

import pytest

from conftest import HERE
from p4compiler.diag import CompileError
from p4compiler.driver import compile_file

CASES = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "bad", "*", "*.p4")))


def diagnostics(rel: str) -> list[str]:
    with pytest.raises(CompileError) as ei:
        compile_file(rel)
    return [f"{d.span}: {d.severity}: {d.message}" for d in ei.value.diagnostics]


def test_corpus_is_large_enough():
    assert len(CASES) >= 40
    assert {c.split(os.sep)[1] for c in CASES} >= {"preprocess", "lex", "parse", "check", "lower"}


@pytest.mark.parametrize("rel", CASES)
def test_bad_program(rel, monkeypatch):
    monkeypatch.chdir(HERE)
    with open(os.path.join(HERE, rel[:-3] + ".err")) as f:
        expected = [line for line in f.read().splitlines() if line]
    assert diagnostics(rel) == expected
