"""Value codecs against the P4Runtime specification's bytestring examples (section "Bytestrings")."""

from __future__ import annotations

import pytest

from p4rt import codec
from p4rt.codec import CodecError, Format

# Table "Examples of Valid Bytestring Encoding": (signed, width, value, bytes, canonical?)
SPEC_VALID = [
    (False, 8, 99, b"\x63", True),
    (False, 16, 99, b"\x00\x63", False),
    (False, 16, 99, b"\x63", True),
    (False, 16, 12388, b"\x30\x64", True),
    (False, 16, 12388, b"\x00\x30\x64", False),
    (False, 12, 99, b"\x00\x63", False),
    (False, 12, 99, b"\x63", True),
    (False, 12, 99, b"\x00\x00\x63", False),
    (True, 8, 99, b"\x63", True),
    (True, 8, -99, b"\x9d", True),
    (True, 8, -99, b"\xff\x9d", False),
    (True, 12, -739, b"\xfd\x1d", True),
    (True, 16, 0, b"\x00\x00", False),
    (True, 16, 0, b"\x00", True),
]

# Table "Examples of Invalid Bytestring Encoding": (signed, width, bytes)
SPEC_INVALID = [
    (False, 8, b"\x01\x63"),
    (False, 8, b""),
    (False, 16, b"\x01\x00\x63"),
    (False, 12, b"\x10\x63"),
    (False, 12, b"\x01\x00\x63"),
    (False, 12, b"\x00\x40\x63"),
    (True, 8, b"\x00\x9d"),
    (True, 12, b"\x8d\x1d"),
    (True, 16, b""),
]


def _ids(case) -> str:
    signed, width, *rest = case
    return f"{'int' if signed else 'bit'}{width}-{rest[-2 if len(rest) > 1 else -1]!r}"


@pytest.mark.parametrize("case", SPEC_VALID, ids=[_ids(c) for c in SPEC_VALID])
def test_spec_valid_bytestrings_decode(case):
    signed, width, value, data, _ = case
    decode = codec.decode_int if signed else codec.decode_uint
    assert decode(data, width) == value


@pytest.mark.parametrize("case", [c for c in SPEC_VALID if c[4]], ids=[_ids(c) for c in SPEC_VALID if c[4]])
def test_spec_canonical_bytestrings_encode(case):
    signed, width, value, data, _ = case
    encode = codec.encode_int if signed else codec.encode_uint
    assert encode(value, width) == data


@pytest.mark.parametrize("case", SPEC_INVALID, ids=[_ids(c) for c in SPEC_INVALID])
def test_spec_invalid_bytestrings_rejected(case):
    signed, width, data = case
    decode = codec.decode_int if signed else codec.decode_uint
    with pytest.raises(CodecError):
        decode(data, width)


@pytest.mark.parametrize(
    "value,width,expected",
    [
        (0, 9, b"\x00"),
        (511, 9, b"\x01\xff"),
        ("0x1ff", 9, b"\x01\xff"),
        ("10.0.0.1", 32, b"\x0a\x00\x00\x01"),
        ("0.0.0.1", 32, b"\x01"),
        ("00:00:00:00:00:01", 48, b"\x01"),
        ("aa:bb:cc:dd:ee:ff", 48, b"\xaa\xbb\xcc\xdd\xee\xff"),
        ("AA-BB-CC-DD-EE-0F", 48, b"\xaa\xbb\xcc\xdd\xee\x0f"),
        ("2001:db8::1", 128, bytes.fromhex("20010db8000000000000000000000001")),
        ("::1", 128, b"\x01"),
        (b"\x00\x00\x07", 16, b"\x07"),
        (True, 1, b"\x01"),
    ],
    ids=lambda v: repr(v),
)
def test_encode_value_forms(value, width, expected):
    assert codec.encode_value(value, width) == expected


@pytest.mark.parametrize(
    "value,width",
    [(512, 9), (-1, 8), ("1.2.3.4", 16), ("aa:bb:cc:dd:ee:ff", 32), ("nonsense", 8), (1.5, 8), (b"", 8), ("2001:db8::1", 64)],
    ids=lambda v: repr(v),
)
def test_encode_value_rejects_what_does_not_fit(value, width):
    with pytest.raises(CodecError) as err:
        codec.encode_value(value, width)
    assert str(width) in str(err.value) or repr(value) in str(err.value) or "empty" in str(err.value)


def test_address_round_trips():
    assert codec.decode_mac(codec.encode_mac("00:11:22:33:44:55")) == "00:11:22:33:44:55"
    assert codec.decode_ipv4(codec.encode_ipv4("10.1.2.3")) == "10.1.2.3"
    assert codec.decode_ipv4(b"\x00\x00\x00\x00\x01") == "0.0.0.1"
    assert codec.decode_ipv6(codec.encode_ipv6("fe80::1")) == "fe80::1"
    with pytest.raises(CodecError):
        codec.encode_mac("00:11:22:33:44")
    with pytest.raises(CodecError):
        codec.encode_ipv4("300.1.1.1")
    with pytest.raises(CodecError):
        codec.encode_ipv6("fe80:::1")


def test_prefixes():
    assert codec.encode_lpm("10.0.0.0/8", 32) == (b"\x0a\x00\x00\x00", 8)
    assert codec.encode_lpm(("10.1.0.0", 16), 32) == (b"\x0a\x01\x00\x00", 16)
    assert codec.encode_lpm("2001:db8::/32", 128) == (bytes.fromhex("20010db8") + bytes(12), 32)
    assert codec.encode_lpm("0.0.0.0/0", 32) == (b"\x00", 0)
    assert codec.decode_lpm(b"\x0a\x00\x00\x00", 8, 32, Format.IPV4) == "10.0.0.0/8"
    assert codec.decode_lpm(b"\x0a\x00\x00\x00", 8, 32) == (0x0A000000, 8)
    with pytest.raises(CodecError, match="beyond its /8 prefix"):
        codec.encode_lpm("10.0.0.1/8", 32)
    with pytest.raises(CodecError, match="outside 0..32"):
        codec.encode_lpm("10.0.0.0/33", 32)


def test_ternary_and_range():
    assert codec.encode_ternary("10.0.0.0&&&255.0.0.0", 32) == (b"\x0a\x00\x00\x00", b"\xff\x00\x00\x00")
    assert codec.encode_ternary((0x10, 0xF0), 8) == (b"\x10", b"\xf0")
    assert codec.decode_ternary(b"\x10", b"\xf0", 8) == (0x10, 0xF0)
    with pytest.raises(CodecError, match="outside its mask"):
        codec.encode_ternary((0x11, 0xF0), 8)
    assert codec.encode_range((80, 443), 16) == (b"\x50", b"\x01\xbb")
    assert codec.encode_range("1..2", 16) == (b"\x01", b"\x02")
    assert codec.decode_range(b"\x50", b"\x01\xbb", 16) == (80, 443)
    with pytest.raises(CodecError, match="low > high"):
        codec.encode_range((5, 4), 16)


def test_format_from_annotations():
    assert Format.from_annotations(["@format(IPV4_ADDRESS)"]) is Format.IPV4
    assert Format.from_annotations(["@format(MAC_ADDRESS)"]) is Format.MAC
    assert Format.from_annotations(["@name(\"x\")"]) is Format.INT
