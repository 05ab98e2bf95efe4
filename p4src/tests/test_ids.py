"""Stable P4Runtime identities of vrouter.p4 (issue 18 Must 5).

- Every P4Info name (objects, match fields, action parameters) is the one in
  v1model_p4info_names.txt: a rename of a file, control or instance must not
  change what the controller sees.
- Every object the controller names carries the id pinned in include/ids.p4
  (NoAction excepted: see ids.p4 for why).
- The learning digests have the same id in the v1model P4Info and on the TNA
  program's Digest instances: p4c's name hash, which v1model cannot change.
- ids.p4 itself: one prefix byte per kind, no id twice, every live id used by
  exactly one object, and "next free" above every id of its kind.
"""
from __future__ import annotations

import re
from pathlib import Path

from p4.config.v1 import p4info_pb2

HERE = Path(__file__).resolve().parent
IDS = (HERE.parent / "include" / "ids.p4").read_text()
NAMES = HERE / "v1model_p4info_names.txt"

KINDS = ("tables", "actions", "counters", "direct_counters", "meters", "direct_meters", "registers",
         "action_profiles", "digests", "controller_packet_metadata")
PREFIX = {"tables": 0x02, "actions": 0x01, "action_profiles": 0x11, "counters": 0x12, "direct_counters": 0x13,
          "meters": 0x14, "direct_meters": 0x15, "registers": 0x16, "digests": 0x17,
          "controller_packet_metadata": 0x04}
UNPINNED = {("actions", "NoAction")}
TNA = (HERE.parent / "tna" / "vrouter.p4").read_text()


def objects(info: p4info_pb2.P4Info):
    for kind in KINDS:
        for obj in getattr(info, kind):
            yield kind, obj


def describe(kind: str, obj) -> str:
    line = f"{kind} {obj.preamble.name}"
    if kind == "tables":
        line += " " + ",".join(f"{m.id}:{m.name}" for m in obj.match_fields)
    elif kind == "actions":
        line += " " + ",".join(f"{p.id}:{p.name}" for p in obj.params)
    elif kind == "controller_packet_metadata":
        pass
    return line.rstrip()


def pinned_ids() -> dict[str, int]:
    return {name: int(value, 16) for name, value in re.findall(r"#define (ID_\w+)\s+0x([0-9a-f]{8})", IDS)}


def retired_ids() -> set[int]:
    out = set()
    for listed in re.findall(r"retired: ([^*\n]+)", IDS):
        out |= {int(v, 16) for v in re.findall(r"0x([0-9a-f]{8})", listed)}
    return out


def test_p4info_names_are_the_published_ones(p4info):
    expected = {line for line in NAMES.read_text().splitlines() if line and not line.startswith("#")}
    actual = {describe(kind, obj) for kind, obj in objects(p4info)}
    assert sorted(actual - expected) == [], "new or renamed in the P4Info (add to v1model_p4info_names.txt?)"
    assert sorted(expected - actual) == [], "gone from the P4Info"


def test_every_object_has_its_pinned_id(p4info):
    live = {v for name, v in pinned_ids().items() if not name.startswith("ID_TNA_")} - retired_ids()
    unpinned = [f"{kind} {obj.preamble.name} {obj.preamble.id:#010x}" for kind, obj in objects(p4info)
                if (kind, obj.preamble.name) not in UNPINNED and obj.preamble.id not in live]
    assert unpinned == [], "objects without an id from include/ids.p4"
    used = [obj.preamble.id for kind, obj in objects(p4info)]
    assert sorted(live - set(used)) == [], "ids.p4 ids no object uses (retire them instead)"


def test_match_fields_and_parameters_are_numbered_in_order(p4info):
    for table in p4info.tables:
        assert [m.id for m in table.match_fields] == list(range(1, len(table.match_fields) + 1)), table.preamble.name
    for action in p4info.actions:
        assert [p.id for p in action.params] == list(range(1, len(action.params) + 1)), action.preamble.name


def test_ids_file_is_consistent():
    ids = pinned_ids()
    assert len(set(ids.values())) == len(ids), "an id is given twice"
    kind_of = {v: k for k, v in PREFIX.items()}
    for name, value in ids.items():
        assert value >> 24 in kind_of, f"{name}: {value:#010x} has no P4Runtime kind prefix"
    for prefix, next_free in re.findall(r"---- \w[\w ]*: 0x([0-9a-f]{2}) ---- next free 0x([0-9a-f]{8})", IDS):
        p, nf = int(prefix, 16), int(next_free, 16)
        assert nf >> 24 == p, f"next free {nf:#010x} is not of kind {p:#04x}"
        taken = [v for v in list(ids.values()) + list(retired_ids()) if v >> 24 == p]
        assert all(v < nf for v in taken), f"next free {nf:#010x} is not above every id of kind {p:#04x}"


def tna_digest_ids() -> dict[str, int]:
    """The TNA program's Digest instances: P4Info name (from @name) -> @id (from ids.p4)."""
    ids = pinned_ids()
    found = re.findall(r'@id\((ID_\w+)\)\s*@name\("\.(\w+)"\)\s*Digest<', TNA)
    return {name: ids[macro] for macro, name in found}


def test_digests_have_one_id_in_both_programs(p4info):
    """p4c ignores @id on v1model's digest() (it names a struct), so the v1model P4Info has
    p4c's name-hash ids; the TNA program must pin its Digest instances to those."""
    from p4compiler.p4info import jenkins_one_at_a_time
    v1model = {d.preamble.name: d.preamble.id for d in p4info.digests}
    assert sorted(v1model) == ["mac_learn_digest_t", "pw_learn_digest_t"]
    assert tna_digest_ids() == v1model
    for name, value in v1model.items():
        assert value == 0x17000000 | jenkins_one_at_a_time(name.encode()) & 0xFFFFFF, name
