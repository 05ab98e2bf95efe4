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


# The end-to-end lab: three hosts in namespaces (two in VLAN 10, one in VLAN 20) on one switch.
DESCRIPTION = """
{top}mac_aging: {aging}
pipeline: {{p4info: {p4info}, config: {json}}}
switches:
  s1:
    address: {address}
    vlans:
      10: {{name: classrooms, interface: {{address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}}}
      20: {{name: servers, interface: {{address: 10.0.20.1/24, mac: "00:00:5e:00:01:14"}}}}
    ports:
      1: {{vlan: 10}}
      2: {{vlan: 10}}
      3: {{vlan: 20}}
    acl:
      - {{name: no-telnet, match: {{protocol: tcp, dst_port: 23}}, action: deny}}
{extra}"""

BLOCK_H1 = "      - {name: h1-not-to-servers, match: {src: 10.0.10.11/32, dst: 10.0.20.0/24}, action: deny}\n"


@pytest.fixture
def lab(tmp_path, vrouter_program):
    """(hosts by name, the switch, write(extra, aging, top) -> description path, tmp_path)."""
    from netns import Host, network

    tag = f"hc{os.getpid() % 10000}"
    hosts = [Host("h1", 1, "10.0.10.11/24", "10.0.10.1", tag), Host("h2", 2, "10.0.10.12/24", "10.0.10.1", tag),
             Host("h3", 3, "10.0.20.11/24", "10.0.20.1", tag)]
    with network(tag, hosts, tmp_path / "switch.log") as switch:
        path = tmp_path / "lab.yaml"

        def write(extra: str = "", aging: str = "300s", top: str = "") -> Path:
            path.write_text(DESCRIPTION.format(p4info=vrouter_program.p4info, json=vrouter_program.json,
                                               address=switch.address, extra=extra, aging=aging, top=top))
            return path

        write()
        yield {h.name: h for h in hosts}, switch, write, tmp_path
