"""Every P4 program of the repository (outside this bad-input corpus) compiles.

A program is a .p4 file that instantiates the V1Switch package; include-only
files are compiled as part of the programs that include them."""
import glob
import os

import pytest

from conftest import HERE
from jsoncheck import problems
from p4compiler.driver import Options, compile_file

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SKIP_DIRS = (os.path.join(ROOT, "compiler", "tests", "bad"), os.path.join(ROOT, ".venv"),
             os.path.join(ROOT, "target"), os.path.join(ROOT, "build"))


def programs() -> list[str]:
    out = []
    for path in glob.glob(os.path.join(ROOT, "**", "*.p4"), recursive=True):
        if path.startswith(SKIP_DIRS):
            continue
        try:
            with open(path, errors="replace") as f:
                if "V1Switch" not in f.read() or path.endswith(os.path.join("p4include", "v1model.p4")):
                    continue
        except OSError:
            continue
        out.append(os.path.relpath(path, ROOT))
    return sorted(out)


PROGRAMS = programs()


def test_found_programs():
    assert os.path.join("compiler", "tests", "programs", "basic.p4") in PROGRAMS


@pytest.mark.parametrize("rel", PROGRAMS)
def test_compiles(rel):
    path = os.path.join(ROOT, rel)
    res = compile_file(path, Options(include_dirs=[os.path.dirname(path)]))
    assert res.json["pipelines"] and res.json["parsers"]
    assert problems(res.json) == []
