"""Value codecs: Python values to P4Runtime canonical byte strings and back."""

from __future__ import annotations

import enum
import ipaddress
import re
import socket
from typing import Any

_MAC_RE = re.compile(r"^[0-9a-fA-F]{1,2}([:-][0-9a-fA-F]{1,2}){5}$")


class CodecError(ValueError):
    """A value that cannot be encoded or decoded at the requested width."""


class Format(enum.Enum):
    """How a decoded value is presented to the user."""

    INT = "int"
    HEX = "hex"
    MAC = "mac"
    IPV4 = "ipv4"
    IPV6 = "ipv6"
    BYTES = "bytes"

    @classmethod
    def from_annotations(cls, annotations: list[str] | tuple[str, ...]) -> Format:
        """Pick the format a P4Info `@format(...)` annotation asks for (INT if none)."""
        for text in annotations:
            match = re.match(r"^@format\(\s*(\w+)\s*\)$", text.strip())
            if match:
                return _ANNOTATION_FORMATS.get(match.group(1).upper(), cls.INT)
        return cls.INT


_ANNOTATION_FORMATS = {
    "MAC_ADDRESS": Format.MAC,
    "IPV4_ADDRESS": Format.IPV4,
    "IPV6_ADDRESS": Format.IPV6,
    "HEX_STR": Format.HEX,
}


def _check_width(bitwidth: int) -> None:
    if bitwidth <= 0:
        raise CodecError(f"bit width must be positive, got {bitwidth}")


def encode_uint(value: int, bitwidth: int) -> bytes:
    """Encode an unsigned `bit<W>` value as the shortest big-endian byte string."""
    if not isinstance(value, int):
        raise CodecError(f"expected an integer, got {value!r}")
    if not 0 <= value < 1 << bitwidth or bitwidth <= 0:
        _check_width(bitwidth)
        raise CodecError(f"value {value} does not fit in bit<{bitwidth}>")
    return value.to_bytes((value.bit_length() + 7) // 8 or 1, "big")


def decode_uint(data: bytes, bitwidth: int) -> int:
    """Decode a `bit<W>` byte string in any padded form, checking it fits the width."""
    _check_width(bitwidth)
    if not data:
        raise CodecError(f"empty byte string for bit<{bitwidth}>")
    value = int.from_bytes(data, "big")
    if value >= 1 << bitwidth:
        raise CodecError(f"byte string {data.hex()} does not fit in bit<{bitwidth}>")
    return value


def encode_int(value: int, bitwidth: int) -> bytes:
    """Encode a signed `int<W>` value as the shortest two's-complement byte string."""
    _check_width(bitwidth)
    if not isinstance(value, int):
        raise CodecError(f"expected an integer, got {value!r}")
    if not -(1 << (bitwidth - 1)) <= value < 1 << (bitwidth - 1):
        raise CodecError(f"value {value} does not fit in int<{bitwidth}>")
    bits = value.bit_length() + 1 if value >= 0 else (~value).bit_length() + 1
    return value.to_bytes(max(1, (bits + 7) // 8), "big", signed=True)


def decode_int(data: bytes, bitwidth: int) -> int:
    """Decode an `int<W>` byte string (sign-extended to any length), checking the width."""
    _check_width(bitwidth)
    if not data:
        raise CodecError(f"empty byte string for int<{bitwidth}>")
    value = int.from_bytes(data, "big", signed=True)
    if not -(1 << (bitwidth - 1)) <= value < 1 << (bitwidth - 1):
        raise CodecError(f"byte string {data.hex()} does not fit in int<{bitwidth}>")
    return value


def canonical(data: bytes) -> bytes:
    """Strip the leading zero bytes of an unsigned byte string (keeping at least one)."""
    stripped = data.lstrip(b"\x00")
    return stripped or b"\x00"


def parse_value(value: Any, bitwidth: int) -> int:
    """Turn an int, MAC/IPv4/IPv6/hex/decimal string, address object or bytes into an int."""
    _check_width(bitwidth)
    if type(value) is str:  # noqa: E721 - the common case first
        number = _parse_text(value.strip(), bitwidth)
    elif isinstance(value, bool):
        number = int(value)
    elif isinstance(value, int):
        number = value
    elif isinstance(value, (bytes, bytearray)):
        if not value:
            raise CodecError(f"empty byte string for bit<{bitwidth}>")
        number = int.from_bytes(value, "big")
    elif isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        number = int(value)
    elif isinstance(value, str):
        number = _parse_text(value.strip(), bitwidth)
    else:
        raise CodecError(f"cannot use {value!r} (a {type(value).__name__}) as a bit<{bitwidth}> value")
    if number < 0 or number >= 1 << bitwidth:
        raise CodecError(f"value {value!r} does not fit in bit<{bitwidth}>")
    return number


def _parse_text(text: str, bitwidth: int) -> int:
    if text.count(".") == 3:
        try:  # the common dotted quad, strictly (no leading zeros), in C
            return int.from_bytes(socket.inet_pton(socket.AF_INET, text), "big")
        except OSError:
            pass  # not one: the checks below say why
    try:
        if _MAC_RE.match(text):
            if len(text) == 17:  # six two-digit groups
                return int(text[0:2] + text[3:5] + text[6:8] + text[9:11] + text[12:14] + text[15:17], 16)
            return int("".join(f"{int(part, 16):02x}" for part in re.split("[:-]", text)), 16)
        if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", text):
            return int(ipaddress.IPv4Address(text))
        if ":" in text:
            return int(ipaddress.IPv6Address(text))
        return int(text.replace("_", ""), 0)
    except ValueError as exc:
        raise CodecError(f"cannot parse {text!r} as a bit<{bitwidth}> value: {exc}") from exc


def encode_value(value: Any, bitwidth: int) -> bytes:
    """Encode any accepted Python value as a canonical `bit<W>` byte string."""
    return encode_uint(parse_value(value, bitwidth), bitwidth)


def format_value(number: int, bitwidth: int, fmt: Format = Format.INT) -> Any:
    """Present an integer in the requested format."""
    if fmt is Format.INT:
        return number
    if fmt is Format.HEX:
        return hex(number)
    if fmt is Format.BYTES:
        return number.to_bytes((bitwidth + 7) // 8, "big")
    if fmt is Format.MAC:
        raw = number.to_bytes(max(6, (bitwidth + 7) // 8), "big")[-6:]
        return ":".join(f"{b:02x}" for b in raw)
    if fmt is Format.IPV4:
        return str(ipaddress.IPv4Address(number & 0xFFFFFFFF))
    if fmt is Format.IPV6:
        return str(ipaddress.IPv6Address(number & ((1 << 128) - 1)))
    raise CodecError(f"unknown format {fmt!r}")


def decode_value(data: bytes, bitwidth: int, fmt: Format = Format.INT) -> Any:
    """Decode a `bit<W>` byte string and present it in the requested format."""
    return format_value(decode_uint(data, bitwidth), bitwidth, fmt)


def encode_mac(text: str) -> bytes:
    """Encode a MAC address string as a canonical 48-bit byte string."""
    if not isinstance(text, str) or not _MAC_RE.match(text.strip()):
        raise CodecError(f"not a MAC address: {text!r}")
    return encode_value(text, 48)


def decode_mac(data: bytes) -> str:
    """Decode a 48-bit byte string as a MAC address string."""
    return decode_value(data, 48, Format.MAC)


def encode_ipv4(text: str) -> bytes:
    """Encode a dotted-quad IPv4 address as a canonical 32-bit byte string."""
    try:
        return encode_uint(int(ipaddress.IPv4Address(text)), 32)
    except ValueError as exc:
        raise CodecError(f"not an IPv4 address: {text!r}") from exc


def decode_ipv4(data: bytes) -> str:
    """Decode a 32-bit byte string as a dotted-quad IPv4 address."""
    return decode_value(data, 32, Format.IPV4)


def encode_ipv6(text: str) -> bytes:
    """Encode an IPv6 address string as a canonical 128-bit byte string."""
    try:
        return encode_uint(int(ipaddress.IPv6Address(text)), 128)
    except ValueError as exc:
        raise CodecError(f"not an IPv6 address: {text!r}") from exc


def decode_ipv6(data: bytes) -> str:
    """Decode a 128-bit byte string as an IPv6 address string."""
    return decode_value(data, 128, Format.IPV6)


# --- match values: prefixes, masks and ranges -------------------------------------------


def parse_prefix(value: Any, bitwidth: int) -> tuple[int, int]:
    """Turn `"10.0.0.0/8"`, `(value, prefix_len)` or a full value into (int, prefix_len)."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise CodecError(f"an LPM value is (value, prefix_len), got {value!r}")
        number, plen = parse_value(value[0], bitwidth), value[1]
    elif isinstance(value, str) and "/" in value:
        text, _, plen_text = value.rpartition("/")
        number = parse_value(text, bitwidth)
        try:
            plen = int(plen_text)
        except ValueError as exc:
            raise CodecError(f"bad prefix length in {value!r}") from exc
    elif isinstance(value, (ipaddress.IPv4Network, ipaddress.IPv6Network)):
        number, plen = parse_value(value.network_address, bitwidth), value.prefixlen
    else:
        number, plen = parse_value(value, bitwidth), bitwidth
    if not isinstance(plen, int) or not 0 <= plen <= bitwidth:
        raise CodecError(f"prefix length {plen!r} of {value!r} is outside 0..{bitwidth}")
    host_mask = (1 << (bitwidth - plen)) - 1
    if number & host_mask:
        raise CodecError(f"{value!r} has bits set beyond its /{plen} prefix")
    return number, plen


def encode_lpm(value: Any, bitwidth: int) -> tuple[bytes, int]:
    """Encode an LPM value as (canonical byte string, prefix_len)."""
    number, plen = parse_prefix(value, bitwidth)
    return encode_uint(number, bitwidth), plen


def decode_lpm(data: bytes, prefix_len: int, bitwidth: int, fmt: Format = Format.INT) -> Any:
    """Decode an LPM value: `"a.b.c.d/n"` for address formats, else (int, prefix_len)."""
    if not 0 <= prefix_len <= bitwidth:
        raise CodecError(f"prefix length {prefix_len} is outside 0..{bitwidth}")
    number = decode_uint(data, bitwidth)
    if fmt is Format.INT:
        return (number, prefix_len)
    return f"{format_value(number, bitwidth, fmt)}/{prefix_len}"


def parse_ternary(value: Any, bitwidth: int) -> tuple[int, int]:
    """Turn `"v&&&m"`, `(value, mask)` or a full value into (int value, int mask)."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise CodecError(f"a ternary value is (value, mask), got {value!r}")
        number, mask = parse_value(value[0], bitwidth), parse_value(value[1], bitwidth)
    elif isinstance(value, str) and "&&&" in value:
        left, _, right = value.partition("&&&")
        number, mask = parse_value(left, bitwidth), parse_value(right, bitwidth)
    else:
        number, mask = parse_value(value, bitwidth), (1 << bitwidth) - 1
    if number & ~mask:
        raise CodecError(f"ternary value {value!r} has bits set outside its mask")
    return number, mask


def encode_ternary(value: Any, bitwidth: int) -> tuple[bytes, bytes]:
    """Encode a ternary value as canonical (value, mask) byte strings."""
    number, mask = parse_ternary(value, bitwidth)
    return encode_uint(number, bitwidth), encode_uint(mask, bitwidth)


def decode_ternary(value: bytes, mask: bytes, bitwidth: int, fmt: Format = Format.INT) -> tuple[Any, Any]:
    """Decode ternary (value, mask) byte strings."""
    return decode_value(value, bitwidth, fmt), decode_value(mask, bitwidth, fmt)


def parse_range(value: Any, bitwidth: int) -> tuple[int, int]:
    """Turn `(low, high)`, `"low..high"` or a single value into (int low, int high)."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise CodecError(f"a range value is (low, high), got {value!r}")
        low, high = parse_value(value[0], bitwidth), parse_value(value[1], bitwidth)
    elif isinstance(value, str) and ".." in value:
        left, _, right = value.partition("..")
        low, high = parse_value(left, bitwidth), parse_value(right, bitwidth)
    else:
        low = high = parse_value(value, bitwidth)
    if low > high:
        raise CodecError(f"range {value!r} has low > high")
    return low, high


def encode_range(value: Any, bitwidth: int) -> tuple[bytes, bytes]:
    """Encode a range as canonical (low, high) byte strings."""
    low, high = parse_range(value, bitwidth)
    return encode_uint(low, bitwidth), encode_uint(high, bitwidth)


def decode_range(low: bytes, high: bytes, bitwidth: int, fmt: Format = Format.INT) -> tuple[Any, Any]:
    """Decode range (low, high) byte strings."""
    return decode_value(low, bitwidth, fmt), decode_value(high, bitwidth, fmt)
