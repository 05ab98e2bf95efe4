"""P4Info schema lookups: by full name, alias, unique suffix and id; errors name close matches."""

from __future__ import annotations

import pytest
from sample_p4info import P4INFO_TEXT
from p4rt import P4Schema, SchemaError, load_p4info
from p4rt.schema import p4info_to_json, p4info_to_text, parse_p4info_text


@pytest.mark.parametrize("key", ["MyIngress.ipv4_lpm", "ipv4_lpm", 33554433])
def test_table_lookup(schema, key):
    assert schema.table(key).id == 33554433


def test_suffix_lookup_on_dotted_names(schema):
    assert schema.table("MyEgress.acl").id == 33554435
    assert schema.table("acl").id == 33554434  # the alias wins over the suffix
    assert schema.action("set_nhop").name == "MyIngress.set_nhop"
    assert schema.table("ipv4_lpm").match_fields.get("hdr.ipv4.dstAddr").bitwidth == 32
    assert schema.table("ipv4_lpm").match_fields.get("dstAddr").id == 1


def test_unknown_name_lists_close_names(schema):
    with pytest.raises(SchemaError) as err:
        schema.table("ipv4_lmp")
    assert "no table named 'ipv4_lmp'" in str(err.value)
    assert "ipv4_lpm" in str(err.value)


def test_unknown_id(schema):
    with pytest.raises(SchemaError, match="no action has id 7"):
        schema.action(7)


def test_ambiguous_suffix_names_all_candidates(schema, p4info):
    p4info.tables[1].preamble.alias = "MyIngress.acl"
    schema = P4Schema(p4info)
    with pytest.raises(SchemaError) as err:
        schema.table("acl")
    assert "ambiguous" in str(err.value)
    assert "MyIngress.acl" in str(err.value) and "MyEgress.acl" in str(err.value)


def test_table_properties(schema):
    acl = schema.table("acl")
    assert acl.needs_priority and acl.supports_idle_timeout
    assert [f.match_type for f in acl.match_fields] == ["ternary", "range", "optional", "exact"]
    assert not schema.table("ipv4_lpm").needs_priority
    assert schema.table("ipv4_lpm").action_scopes[16777219] == "DEFAULT_ONLY"
    counter, meter = schema.direct_resources(schema.table("ipv4_lpm"))
    assert counter.name == "MyIngress.lpm_counter" and meter is None
    assert schema.action_profile("ecmp_selector").with_selector


def test_externs(schema):
    assert schema.counter("port_counter").size == 512
    assert schema.counter("port_counter").unit == "BOTH"
    assert schema.meter("port_meter").unit == "BYTES"
    assert schema.direct_meter("acl_meter").table_id == 33554434
    assert schema.register("flow_reg").bitwidth == 32
    assert schema.register("signed_reg").signed
    assert schema.digest("mac_learn_digest_t").id == 385875969
    assert schema.value_set("tpids").match_fields.get("etherType").bitwidth == 16
    assert [f.name for f in schema.controller_header("packet_in").fields] == ["ingress_port", "reason"]


def test_param_lookup_error_names_the_action(schema):
    with pytest.raises(SchemaError, match="param of action MyIngress.set_nhop named 'prt'; did you mean port"):
        schema.action("set_nhop").params.get("prt")


@pytest.mark.parametrize("suffix", [".txtpb", ".txt", ".bin", ".json", ".unknown"])
def test_load_p4info_formats(tmp_path, p4info, suffix):
    path = tmp_path / f"prog.p4info{suffix}"
    if suffix == ".bin":
        path.write_bytes(p4info.SerializeToString())
    elif suffix == ".json":
        path.write_text(p4info_to_json(p4info))
    else:
        path.write_text(P4INFO_TEXT)
    loaded = load_p4info(path)
    assert loaded == p4info
    assert "mac_learn_digest_t" in P4Schema(loaded).type_info().structs


def test_load_p4info_errors(tmp_path):
    with pytest.raises(SchemaError, match="cannot read P4Info"):
        load_p4info(tmp_path / "missing.txtpb")
    bad = tmp_path / "bad.txtpb"
    bad.write_text("tables { preamble { id: x } }")
    with pytest.raises(SchemaError, match="not a valid P4Info"):
        load_p4info(bad)


def test_text_round_trip(p4info):
    text = p4info_to_text(p4info)
    assert 'key: "mac_learn_digest_t"' in text
    assert parse_p4info_text(text) == p4info
