"""simple_switch_CLI's value and match-key syntax, turned into p4rt values.

Values (action parameters, keys): an integer as Python's int(text, 0) reads it
(`10`, `0x0a`, `0b1010`, `0o12`), or, by field width as simple_switch_CLI does, an
IPv4 address for 32-bit fields, a MAC address for 48-bit ones, an IPv6 address for
128-bit ones. Keys by match kind: exact `V`; lpm `V/LEN`; ternary `V&&&MASK`; range
`LOW->HIGH`; optional (a ternary key in BMv2's JSON) `V&&&MASK` with a full or an empty
mask, or `V`. simple_switch_CLI accepts bits outside a mask or prefix (BMv2 ignores
them); P4Runtime refuses them, so they are cleared here.
"""
from __future__ import annotations

import ipaddress
import re


class CliError(Exception):
    """A command the CLI refuses; the text is what the user sees after `Error: `."""


def parse_param(text: str, bitwidth: int, what: str = "value") -> int:
    """One value of `bitwidth` bits in simple_switch_CLI's syntax."""
    number = None
    try:
        if bitwidth == 32 and "." in text:
            number = int(ipaddress.IPv4Address(text))
        elif bitwidth == 48 and ":" in text:
            parts = text.split(":")
            if len(parts) != 6 or not all(re.fullmatch(r"[0-9a-fA-F]{1,2}", p) for p in parts):
                raise ValueError
            number = int("".join(f"{int(p, 16):02x}" for p in parts), 16)
        elif bitwidth == 128 and ":" in text:
            number = int(ipaddress.IPv6Address(text))
    except ValueError:
        kind = {32: "IPv4", 48: "MAC", 128: "IPv6"}[bitwidth]
        raise CliError(f"Error while parsing {text} - Invalid {kind} address") from None
    if number is None:
        try:
            number = int(text, 0)
        except ValueError:
            raise CliError(f"Error while parsing {text} - Invalid input, could not cast to integer, "
                           f"try in hex with 0x prefix") from None
    if number < 0:
        raise CliError(f"Error while parsing {text} - negative {what}")
    if number >= 1 << bitwidth:
        raise CliError(f"Error while parsing {text} - {what} does not fit in {bitwidth} bits")
    return number


def parse_key(text: str, field) -> object:
    """One match key (a p4rt P4Field: name, bitwidth, match_type) as a p4rt match value."""
    bw, kind = field.bitwidth, field.match_type
    full = (1 << bw) - 1
    if kind == "exact":
        return parse_param(text, bw, "key")
    if kind == "lpm":
        value, sep, plen = text.partition("/")
        if not sep:
            raise CliError(f"Invalid LPM value {text}, use '/' to separate prefix and length")
        try:
            length = int(plen)
        except ValueError:
            raise CliError(f"Invalid LPM value {text}: bad prefix length '{plen}'") from None
        if not 0 <= length <= bw:
            raise CliError(f"Invalid LPM value {text}: prefix length {length} is outside 0..{bw}")
        mask = full ^ ((1 << (bw - length)) - 1)
        return (parse_param(value, bw, "key") & mask, length)
    if kind in ("ternary", "optional"):
        value, sep, mask_text = text.partition("&&&")
        if not sep:
            if kind == "optional":
                return parse_param(text, bw, "key")
            raise CliError(f"Invalid ternary value {text}, use '&&&' to separate key and mask")
        v, m = parse_param(value, bw, "key"), parse_param(mask_text, bw, "mask")
        if kind == "ternary":
            return (v & m, m)
        if m == 0:
            return None  # don't care
        if m != full:
            raise CliError(f"Invalid optional value {text}: the mask must be 0 or all ones")
        return v
    if kind == "range":
        low, sep, high = text.partition("->")
        if not sep:
            raise CliError(f"Invalid range value {text}, use '->' to separate range start and range end")
        lo, hi = parse_param(low, bw, "key"), parse_param(high, bw, "key")
        if lo > hi:
            raise CliError(f"start is greater than end in expression {text}")
        return (lo, hi)
    raise CliError(f"match kind {kind} of {field.name} is not supported")


def byte_str(value: int, bitwidth: int, sep: str = ":") -> str:
    """BMv2's printable form of a value: its bytes in hex, `sep` between them."""
    n = max(1, (bitwidth + 7) // 8)
    return sep.join(f"{b:02x}" for b in value.to_bytes(n, "big"))


def key_str(value, field, sep: str = ":") -> str:
    """A match value as simple_switch_CLI prints it (`EXACT-0a:00`, `LPM-0a:00/8`, ...)."""
    bw, kind = field.bitwidth, field.match_type
    if kind == "exact" or (kind == "optional" and value is not None):
        return byte_str(value, bw, sep)
    if kind == "lpm":
        return f"{byte_str(value[0], bw, sep)}/{value[1]}"
    if kind in ("ternary", "optional"):
        v, m = (0, 0) if value is None else value
        return f"{byte_str(v, bw, sep)} &&& {byte_str(m, bw, sep)}"
    lo, hi = value
    return f"{byte_str(lo, bw, sep)} -> {byte_str(hi, bw, sep)}"
