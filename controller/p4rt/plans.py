"""Encoders compiled once per match field and action, cached on the schema's directories.

Writing 1,000s of entries per second, the per-entry work should be a dict lookup and the
value's conversion: the field's kind, width and id, the action's parameter list and the
common value shapes (an int, a dotted-quad prefix) are resolved here once. Any value the
fast cases do not recognise goes through the general codec, which gives the same bytes and
the same errors.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from . import codec
from .schema import Directory, P4Action, P4Field

# A match field's encoder: value -> (kind, a, b), or None for a wildcard (left out of the entry).
MatchEncoder = Callable[[Any], "tuple[str, Any, Any] | None"]

_pton = socket.inet_pton
_AF_INET = socket.AF_INET


def uint_bytes(value: int) -> bytes:
    """The shortest big-endian bytes of a non-negative int already checked against its width."""
    return value.to_bytes((value.bit_length() + 7) // 8 or 1, "big")


def general_match(mf: P4Field, value: Any) -> tuple[str, Any, Any] | None:
    """Any value of any match kind, through the general codec."""
    width = mf.bitwidth
    match mf.match_type:
        case "exact":
            return ("exact", codec.encode_value(value, width), None)
        case "lpm":
            data, plen = codec.encode_lpm(value, width)
            return None if plen == 0 else ("lpm", data, plen)
        case "ternary":
            data, mask = codec.encode_ternary(value, width)
            return None if mask == b"\x00" else ("ternary", data, mask)
        case "range":
            low, high = codec.parse_range(value, width)
            if low == 0 and high == (1 << width) - 1:
                return None
            return ("range", codec.encode_uint(low, width), codec.encode_uint(high, width))
        case "optional":
            return None if value is None else ("optional", codec.encode_value(value, width), None)
        case other:
            raise codec.CodecError(f"match kind {other!r} is not supported by p4rt")


def _compile_match(mf: P4Field) -> MatchEncoder:
    width, limit = mf.bitwidth, 1 << mf.bitwidth

    def general(value: Any) -> tuple[str, Any, Any] | None:
        return general_match(mf, value)

    if mf.match_type == "exact" and width > 0:
        def exact(value: Any) -> tuple[str, Any, Any] | None:
            if type(value) is int and 0 <= value < limit:  # noqa: E721 - bool goes the general way
                return ("exact", uint_bytes(value), None)
            return general(value)
        return exact
    if mf.match_type == "lpm" and width == 32:
        def lpm32(value: Any) -> tuple[str, Any, Any] | None:
            if type(value) is str:  # noqa: E721 - "a.b.c.d/n", the usual IPv4 route
                text, slash, plen_text = value.rpartition("/")
                if slash and text.count(".") == 3:
                    try:
                        raw, plen = _pton(_AF_INET, text), int(plen_text)
                    except (OSError, ValueError):
                        return general(value)  # it says why
                    if 0 < plen <= 32 and not int.from_bytes(raw, "big") & ((1 << (32 - plen)) - 1):
                        return ("lpm", raw.lstrip(b"\x00") or b"\x00", plen)
            return general(value)
        return lpm32
    return general


def match_encoder(fields: Directory[P4Field], name: str) -> tuple[P4Field, MatchEncoder]:
    """The field `name` (full name, alias or suffix) of a table and its encoder; SchemaError if unknown."""
    cache = fields.cache
    found = cache.get(name) if type(name) is str else None  # noqa: E721 - ids and odd keys are looked up
    if found is None:
        mf = fields.get(name)
        found = (mf, _compile_match(mf))
        if type(name) is str:  # noqa: E721
            cache[name] = found
    return found


class ActionPlan:
    """An action's id and its parameters in P4Info order, with their widths."""

    __slots__ = ("action", "id", "params", "names")

    def __init__(self, action: P4Action) -> None:
        self.action = action
        self.id = action.id
        self.params = [(p.name, p.id, p.bitwidth, 1 << p.bitwidth) for p in action.params]
        self.names = frozenset(p.name for p in action.params)


def action_plan(actions: Directory[P4Action], name: str) -> ActionPlan:
    """The plan of action `name` among `actions` (a table's or the program's); SchemaError if unknown."""
    cache = actions.cache
    plan = cache.get(name) if type(name) is str else None  # noqa: E721 - ids and odd keys are looked up
    if plan is None:
        plan = ActionPlan(actions.get(name))
        if type(name) is str:  # noqa: E721
            cache[name] = plan
    return plan
