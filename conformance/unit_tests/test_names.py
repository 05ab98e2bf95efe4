"""STF names and values translated into p4rt entities (no switch needed), pcap, summary line."""
import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4rt import EntityError, P4Schema, TableEntry
from p4rt.schema import parse_p4info_text

from p4stf import pcap
from p4stf.cli import summary
from p4stf.control import ControlError, action_of, flatten, lookup, lookup_key, match_of
from p4stf.runner import FAIL, NOT_RUN, PASS, Result
from p4stf.stf import ActionCall, KeyMatch

INFO = """
tables { preamble { id: 1 name: "MyIngress.fwd" }
  match_fields { id: 1 name: "hdr.ethernet.dstAddr" bitwidth: 48 match_type: EXACT }
  match_fields { id: 2 name: "meta.vrf" bitwidth: 8 match_type: EXACT }
  action_refs { id: 10 } }
tables { preamble { id: 2 name: "MyEgress.fwd" } }
tables { preamble { id: 3 name: "MyIngress.acl" }
  match_fields { id: 1 name: "hdr.ipv4.dst" bitwidth: 32 match_type: LPM }
  match_fields { id: 2 name: "meta.port" bitwidth: 9 match_type: TERNARY }
  action_refs { id: 10 } }
actions { preamble { id: 10 name: "MyIngress.set_port" alias: "set_port" }
  params { id: 1 name: "port" bitwidth: 9 } }
"""


@pytest.fixture
def schema():
    return P4Schema(text_format.Parse(INFO, p4info_pb2.P4Info()))


def test_full_name_and_unique_suffix(schema):
    assert lookup(schema.tables, "MyIngress.fwd").id == 1
    assert lookup(schema.tables, "acl").id == 3
    assert lookup(schema.tables, "ngress.acl").id == 3  # plain suffix, as p4c's runner allows


def test_ambiguous_and_unknown_names(schema):
    with pytest.raises(ControlError, match="ambiguous: .*MyEgress.fwd"):
        lookup(schema.tables, "fwd")
    with pytest.raises(ControlError, match="no table named 'nope'"):
        lookup(schema.tables, "nope")


def test_key_field_suffix(schema):
    t = schema.table(1)
    assert lookup_key(t, "ethernet.dstAddr").id == 1
    assert lookup_key(t, "vrf").id == 2
    with pytest.raises(ControlError, match="no key field 'x'"):
        lookup_key(t, "x")


def test_keys_and_actions_become_canonical_p4runtime_values(schema):
    t = schema.table(1)
    entry = TableEntry(t.name, match_of(t, [KeyMatch("dstAddr", "value", 5), KeyMatch("vrf", "value", 0x1F)]),
                       action_of(t, ActionCall("set_port", [("port", 0x1FF)])))
    msg = entry.encode_entry(schema)
    assert [m.exact.value for m in msg.match] == [b"\x05", b"\x1f"]
    assert msg.action.action.params[0].value == b"\x01\xff"
    acl = schema.table(3)
    # a value written with 2 hex digits (0x0A******) is an 8-bit prefix; ternary values are masked
    match = match_of(acl, [KeyMatch("dst", "value", 0x0A000000, nibbles=2),
                           KeyMatch("port", "ternary", 0x1FF, mask=0x0F0)])
    msg = TableEntry(acl.name, match, priority=1).encode_entry(schema)
    assert (msg.match[0].lpm.value, msg.match[0].lpm.prefix_len) == (b"\x0a\x00\x00\x00", 8)
    assert (msg.match[1].ternary.value, msg.match[1].ternary.mask) == (b"\xf0", b"\xf0")


def test_values_too_wide_and_bad_parameters_are_refused(schema):
    t = schema.table(1)
    wide = TableEntry(t.name, match_of(t, [KeyMatch("dstAddr", "value", 1), KeyMatch("vrf", "value", 0x100)]))
    with pytest.raises(EntityError, match="vrf"):
        wide.encode_entry(schema)
    with pytest.raises(ControlError, match="missing parameter 'port'"):
        action_of(t, ActionCall("set_port", []))
    with pytest.raises(ControlError, match="has no parameter"):
        action_of(t, ActionCall("set_port", [("port", 1), ("x", 2)]))


def test_pcap_roundtrip(tmp_path):
    path = str(tmp_path / "a.pcap")
    pcap.write(path, [b"\x01\x02", b"\x03" * 70])
    assert pcap.read(path) == [b"\x01\x02", b"\x03" * 70]
    with open(path, "ab") as f:
        f.write(b"\x00" * 10)  # torn record is ignored
    assert len(pcap.read(path)) == 2


def test_summary_final_line():
    rs = [Result("a", "x", PASS), Result("b", "x", FAIL), Result("c", "y", NOT_RUN)]
    text = summary(rs)
    assert text.splitlines()[-1] == "1 passed, 1 failed, 1 not run"
    assert summary([Result("a", "x", PASS)]).splitlines()[-1] == "1 passed, 0 failed"


def test_bmv2_style_key_spellings():
    info = text_format.Parse("""tables { preamble { id: 9 name: "t" }
        match_fields { id: 1 name: "hdr.mpls[0].label" bitwidth: 20 match_type: EXACT }
        match_fields { id: 2 name: "hdr.tag.isValid()" bitwidth: 1 match_type: EXACT } }""",
                             p4info_pb2.P4Info())
    t = P4Schema(info).table("t")
    assert lookup_key(t, "hdr.mpls$0.label").id == 1
    assert lookup_key(t, "mpls$0.label").id == 1
    assert lookup_key(t, "hdr.tag.$valid$").id == 2


def test_digest_values_flatten_to_bit_patterns():
    info = parse_p4info_text("""
        digests { preamble { id: 5 name: "learn_t" }
          type_spec { struct { name: "learn_t" } } }
        type_info { structs { key: "learn_t" value {
          members { name: "a" type_spec { bitstring { int { bitwidth: 8 } } } }
          members { name: "b" type_spec { bitstring { bit { bitwidth: 9 } } } }
          members { name: "ok" type_spec { bool { } } } } } }""")
    schema = P4Schema(info)
    spec = schema.digest("learn_t").type_spec
    assert flatten({"a": -1, "b": 0x1FF, "ok": True}, spec, schema) == [0xFF, 0x1FF, 1]


def test_keys_left_out_take_p4c_defaults(schema):
    # p4c's runner fills an exact key left out with 0, and wildcards the other kinds.
    t = schema.table(1)
    assert match_of(t, [KeyMatch("vrf", "value", 1)]) == {1: 0, 2: 1}
    acl = schema.table(3)
    assert match_of(acl, [KeyMatch("port", "value", 3)]) == {2: (3, 0x1FF)}


def test_ternary_value_without_mask_masks_the_written_digits(schema):
    # p4c's runner: `0x0a` is 0x0a&&&0xff even on a wider field; a decimal value masks all.
    acl = schema.table(3)
    assert match_of(acl, [KeyMatch("port", "value", 0x0A, nibbles=2)])[2] == (0x0A, 0xFF)
    assert match_of(acl, [KeyMatch("port", "value", 0x0A, nibbles=1)])[2] == (0x0A, 0xF)
    assert match_of(acl, [KeyMatch("port", "value", 10)])[2] == (10, 0x1FF)


def test_lpm_key_written_with_nibble_wildcards(schema):
    from p4stf.stf import parse_key_value
    acl = schema.table(3)
    assert match_of(acl, [parse_key_value("dst", "0x0a******")])[1] == (0x0A000000, 8)
    assert match_of(acl, [parse_key_value("dst", "0x0a0b****")])[1] == (0x0A0B0000, 16)


def test_validity_key_spellings_of_both_compilers():
    # p4compile names a validity key hdr.tag.isValid(), p4c hdr.tag.$valid$.
    for field in ("hdr.tag.isValid()", "hdr.tag.$valid$"):
        info = text_format.Parse(f"""tables {{ preamble {{ id: 9 name: "t" }}
            match_fields {{ id: 2 name: "{field}" bitwidth: 1 match_type: EXACT }} }}""",
                                 p4info_pb2.P4Info())
        t = P4Schema(info).table("t")
        for spelling in ("hdr.tag.isValid()", "tag.isValid()", "hdr.tag.$valid$", "tag.valid", "valid"):
            assert lookup_key(t, spelling).id == 2, (field, spelling)
