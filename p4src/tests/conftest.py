"""Shared fixture: vrouter.p4 compiled once per test session with $P4C."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from p4.config.v1 import p4info_pb2

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "p4src" / "vrouter.p4"
P4C = os.environ.get("P4C", str(ROOT / ".venv" / "bin" / "p4compile"))


@pytest.fixture(scope="session")
def vrouter_build(tmp_path_factory) -> tuple[Path, Path]:
    """(BMv2 JSON, binary P4Info) of vrouter.p4: one compile for every test of the session."""
    out = tmp_path_factory.mktemp("vrouter")
    json_path, info_path = out / "vrouter.json", out / "vrouter.p4info.bin"
    proc = subprocess.run(
        [P4C, str(PROGRAM), "-o", str(json_path), "--p4runtime-files", str(info_path)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{P4C} failed:\n{proc.stdout}\n{proc.stderr}"
    return json_path, info_path


@pytest.fixture(scope="session")
def p4info(vrouter_build) -> p4info_pb2.P4Info:
    return p4info_pb2.P4Info.FromString(vrouter_build[1].read_bytes())
