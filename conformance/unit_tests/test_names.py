"""P4Info name lookup (full name or unique suffix), value encoding, summary line."""
import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from p4stf import p4info, pcap
from p4stf.cli import summary
from p4stf.control import ControlError, enc
from p4stf.runner import FAIL, NOT_RUN, PASS, Result

INFO = """
tables { preamble { id: 1 name: "MyIngress.fwd" }
  match_fields { id: 1 name: "hdr.ethernet.dstAddr" bitwidth: 48 match_type: EXACT }
  match_fields { id: 2 name: "meta.vrf" bitwidth: 8 match_type: EXACT } }
tables { preamble { id: 2 name: "MyEgress.fwd" } }
tables { preamble { id: 3 name: "MyIngress.acl" } }
"""


@pytest.fixture
def info():
    return text_format.Parse(INFO, p4info_pb2.P4Info())


def test_full_name_and_unique_suffix(info):
    assert p4info.resolve(info.tables, "MyIngress.fwd", "table").preamble.id == 1
    assert p4info.resolve(info.tables, "acl", "table").preamble.id == 3


def test_ambiguous_and_unknown_names(info):
    with pytest.raises(p4info.NameError_, match="ambiguous: MyEgress.fwd, MyIngress.fwd"):
        p4info.resolve(info.tables, "fwd", "table")
    with pytest.raises(p4info.NameError_, match="no table named 'nope'"):
        p4info.resolve(info.tables, "nope", "table")


def test_key_field_suffix(info):
    t = info.tables[0]
    assert p4info.resolve_key(t, "ethernet.dstAddr").id == 1
    assert p4info.resolve_key(t, "vrf").id == 2
    with pytest.raises(p4info.NameError_, match="no key field 'x'"):
        p4info.resolve_key(t, "x")


def test_canonical_encoding():
    assert enc(0, 9, "f") == b"\x00"
    assert enc(0x1FF, 9, "f") == b"\x01\xff"
    assert enc(5, 48, "f") == b"\x05"
    with pytest.raises(ControlError, match="does not fit in 9 bits"):
        enc(0x200, 9, "f")


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
    t = text_format.Parse("""preamble { id: 9 name: "t" }
        match_fields { id: 1 name: "hdr.mpls[0].label" bitwidth: 20 match_type: EXACT }
        match_fields { id: 2 name: "hdr.tag.isValid()" bitwidth: 1 match_type: EXACT }""",
                          p4info_pb2.Table())
    assert p4info.resolve_key(t, "hdr.mpls$0.label").id == 1
    assert p4info.resolve_key(t, "mpls$0.label").id == 1
    assert p4info.resolve_key(t, "hdr.tag.$valid$").id == 2
