"""Our P4Info equals p4c's, object by object, for our own programs (fixtures in
tests/p4c_p4info/, made with p4c; see the README there)."""
from pathlib import Path

import pytest
from p4compiler.driver import compile_file
from p4compiler.p4info_diff import differences, load

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "p4c_p4info"
PROGRAMS = {
    "p4info_features": "compiler/tests/programs/p4info_features.p4",
    "enum_and_type_keys": "conformance/tests/tables/enum_and_type_keys.p4",
    "value_set": "conformance/tests/parser/value_set.p4",
    "action_data_and_locals": "conformance/tests/lang/action_data_and_locals.p4",
    "const_entries_named_constants": "conformance/tests/tables/const_entries_named_constants.p4",
    "valid_key": "conformance/tests/tables/valid_key.p4",
    "action_selector_group": "conformance/tests/tables/action_selector_group.p4",
    "direct_meter_colors": "conformance/tests/externs/direct_meter_colors.p4",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_p4info_equals_p4cs(name):
    ours = compile_file(str(ROOT / PROGRAMS[name])).p4info
    theirs = load(str(FIXTURES / f"{name}.p4info.txtpb"))
    assert [f"{kind} {obj}\n{text}" for kind, obj, text in differences(ours, theirs)] == []


def test_every_fixture_is_checked():
    assert {p.name.split(".")[0] for p in FIXTURES.glob("*.txtpb")} == set(PROGRAMS)
