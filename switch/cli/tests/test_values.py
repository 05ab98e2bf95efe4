"""simple_switch_CLI's value and key syntax, BMv2's handle numbering, port maps (no switch)."""
from dataclasses import dataclass

import pytest

from p4switch_cli.handles import Handles
from p4switch_cli.pre import _port_map, _ports
from p4switch_cli.values import CliError, byte_str, key_str, parse_key, parse_param


@dataclass
class Field:
    name: str
    bitwidth: int
    match_type: str


@pytest.mark.parametrize("text,width,value", [
    ("10", 16, 10), ("0x0a", 16, 10), ("0b1010", 8, 10), ("0o12", 8, 10),
    ("10.0.0.1", 32, 0x0A000001), ("00:11:22:33:44:55", 48, 0x001122334455),
    ("2001:db8::1", 128, 0x20010DB8000000000000000000000001),
])
def test_values_as_simple_switch_cli_reads_them(text, width, value):
    assert parse_param(text, width) == value


@pytest.mark.parametrize("text,width,message", [
    ("0x1000", 12, "does not fit in 12 bits"), ("x", 8, "could not cast to integer"),
    ("10.0.0", 32, "Invalid IPv4 address"), ("00:11:22", 48, "Invalid MAC address"),
    ("-1", 8, "negative"),
])
def test_bad_values_are_refused(text, width, message):
    with pytest.raises(CliError, match=message):
        parse_param(text, width)


def test_keys_of_each_match_kind():
    assert parse_key("0x0a", Field("f", 8, "exact")) == 10
    # bits beyond the prefix or outside the mask are cleared (BMv2 ignores them, P4Runtime refuses them)
    assert parse_key("10.1.2.3/16", Field("f", 32, "lpm")) == (0x0A010000, 16)
    assert parse_key("0x1234&&&0xff00", Field("f", 16, "ternary")) == (0x1200, 0xFF00)
    assert parse_key("1->5", Field("f", 16, "range")) == (1, 5)
    assert parse_key("7", Field("f", 8, "optional")) == 7
    assert parse_key("7&&&0xff", Field("f", 8, "optional")) == 7
    assert parse_key("0&&&0", Field("f", 8, "optional")) is None


@pytest.mark.parametrize("text,kind,message", [
    ("10.0.0.0", "lpm", "use '/' to separate"), ("10.0.0.0/33", "lpm", "outside 0..32"),
    ("5", "ternary", "use '&&&'"), ("5", "range", "use '->'"), ("9->5", "range", "greater than end"),
    ("1&&&0xf", "optional", "mask must be 0 or all ones"),
])
def test_bad_keys_are_refused(text, kind, message):
    with pytest.raises(CliError, match=message):
        parse_key(text, Field("f", 32 if kind == "lpm" else 8, kind))


def test_printed_like_bmv2():
    assert byte_str(0x0A01, 12) == "0a:01"
    assert byte_str(5, 9, "") == "0005"
    assert key_str((0x0A000000, 8), Field("f", 32, "lpm")) == "0a:00:00:00/8"
    assert key_str((1, 0xF), Field("f", 8, "ternary")) == "01 &&& 0f"
    assert key_str((1, 5), Field("f", 16, "range")) == "00:01 -> 00:05"


def test_entry_handles_reuse_the_lowest_slot_with_a_new_version():
    h = Handles(versioned=True)
    assert [h.add("a"), h.add("b"), h.add("c")] == [0, 1, 2]
    assert h.remove(1) == "b"
    assert h.add("d") == (1 << 24) | 1
    assert h.get(1) is None  # the stale handle names nothing
    assert h.get((1 << 24) | 1) == "d"
    assert h.remove(1) is None


def test_member_and_node_handles_are_plain_slots():
    h = Handles()
    assert [h.add("a"), h.add("b")] == [0, 1]
    h.remove(0)
    assert h.add("c") == 0


def test_port_maps():
    assert _port_map(_ports(["1", "2", "3"])) == "1110"
    assert _port_map(_ports(["4"])) == "10000"
    with pytest.raises(CliError, match="duplicate"):
        _ports(["1", "1"])
    with pytest.raises(CliError, match="LAGs are not supported"):
        _ports(["1", "|", "2"])
