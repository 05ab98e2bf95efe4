"""Fixtures for the vrouter tests: vrouter.p4 compiled by the compiler under test, its schema."""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from p4rt import P4Schema, load_p4info

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(__file__).parent / "data"


@dataclass
class Program:
    """Compiled vrouter.p4."""

    json: Path
    p4info: Path


def compile_vrouter(out: Path) -> Program:
    """Compile p4src/vrouter.p4 with $P4C or the project's p4compile."""
    p4c = shlex.split(os.environ["P4C"]) if os.environ.get("P4C") else [str(ROOT / ".venv" / "bin" / "p4compile")]
    prog = Program(out / "vrouter.json", out / "vrouter.p4info.txtpb")
    done = subprocess.run([*p4c, str(ROOT / "p4src" / "vrouter.p4"), "-o", str(prog.json),
                           "--p4runtime-files", str(prog.p4info)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"compiling vrouter.p4 failed:\n{done.stdout}{done.stderr}")
    return prog


@pytest.fixture(scope="session")
def vrouter_program(tmp_path_factory) -> Program:
    """p4src/vrouter.p4 compiled into a temporary folder."""
    return compile_vrouter(tmp_path_factory.mktemp("vrouter-p4"))


@pytest.fixture(scope="session")
def vr_schema(vrouter_program: Program) -> P4Schema:
    """The P4Info schema of vrouter.p4."""
    return P4Schema(load_p4info(vrouter_program.p4info))
