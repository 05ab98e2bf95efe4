"""docs/p4-program.md is the controller's contract: check it against the program.

Compiles p4src/vrouter.p4 with $P4C (default: .venv/bin/p4compile; conftest.py), then checks
that every P4Info object the controller can touch is named in the document,
that the controller-header metadata ids are as documented, and that the drop
and packet-in reason numbers in include/constants.p4 are the documented ones.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "p4-program.md").read_text()
CONSTANTS = (ROOT / "p4src" / "include" / "constants.p4").read_text()


def documented(name: str) -> bool:
    return f"`{name}`" in DOC or f"`{name}(" in DOC


def test_tables_and_their_keys_are_documented(p4info):
    missing = []
    for table in p4info.tables:
        if not documented(table.preamble.name):
            missing.append(table.preamble.name)
        for field in table.match_fields:
            if not documented(field.name):
                missing.append(f"{table.preamble.name} key {field.name}")
    assert not missing, f"not in docs/p4-program.md: {missing}"


def test_actions_and_their_parameters_are_documented(p4info):
    missing = []
    for action in p4info.actions:
        name = action.preamble.name
        if name == "NoAction":
            continue
        if not documented(name):
            missing.append(name)
        for param in action.params:
            if param.name not in DOC:
                missing.append(f"{name} param {param.name}")
    assert not missing, f"not in docs/p4-program.md: {missing}"


def test_externs_and_digest_are_documented(p4info):
    names = [x.preamble.name for x in (
        *p4info.counters, *p4info.direct_counters, *p4info.meters,
        *p4info.registers, *p4info.action_profiles, *p4info.digests)]
    assert names, "P4Info has no counters/meters/registers/digests"
    missing = [n for n in names if not documented(n)]
    assert not missing, f"not in docs/p4-program.md: {missing}"


def test_controller_header_metadata_ids(p4info):
    headers = {m.preamble.name: {(md.name, md.id, md.bitwidth) for md in m.metadata}
               for m in p4info.controller_packet_metadata}
    assert headers["packet_in"] == {("ingress_port", 1, 9), ("vlan_id", 2, 12),
                                    ("_pad", 3, 3), ("reason", 4, 8)}
    assert headers["packet_out"] == {("egress_port", 1, 9), ("submit_to_ingress", 2, 1),
                                     ("_pad", 3, 6)}


@pytest.mark.parametrize("kind,prefix,section", [
    ("drop_reason_t", "DROP_", "## 5."),
    ("cpu_reason_t", "CPU_REASON_", "## 6."),
])
def test_reason_numbers_match_the_document(kind, prefix, section):
    codes = {name: int(num) for name, num in re.findall(
        rf"const {kind} {prefix}(\w+)\s*=\s*(\d+);", CONSTANTS) if name != "NONE"}
    assert codes, f"no {kind} constants found"
    text = DOC[DOC.index(section):]
    text = text[:text.index("\n## ", 1)]
    rows = {name: int(num) for num, name in re.findall(r"^\| (\d+) \| `(\w+)` \|", text, re.M)}
    assert rows == codes
