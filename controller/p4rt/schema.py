"""P4Info schema: the program's tables, actions and externs, looked up by name, suffix or id."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from google.protobuf import json_format, text_format
from google.protobuf.message import DecodeError
from p4.config.v1 import p4info_pb2, p4types_pb2

from .codec import Format


class SchemaError(LookupError):
    """A name or id that the P4Info does not define, or a P4Info that cannot be read."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class P4Field:
    """A match field, action parameter or packet metadata field."""

    id: int
    name: str
    bitwidth: int
    match_type: str = ""
    format: Format = Format.INT
    annotations: tuple[str, ...] = ()

    @property
    def alias(self) -> str:
        """Fields have no alias; their name is the key."""
        return self.name


T = TypeVar("T")


class Directory(Generic[T]):
    """Objects of one kind, found by full name, alias, unique dotted suffix or id."""

    def __init__(self, kind: str, items: list[T], owner: str = "") -> None:
        self.kind = kind
        self.owner = owner
        self._items = list(items)
        self._by_id = {item.id: item for item in self._items}  # type: ignore[attr-defined]
        self._by_name = {item.name: item for item in self._items}  # type: ignore[attr-defined]
        self._by_alias = {item.alias: item for item in self._items if item.alias}  # type: ignore[attr-defined]
        self.cache: dict = {}  # name -> what p4rt.plans compiled for that item (encoders)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except SchemaError:
            return False
        return True

    def __getitem__(self, key: str | int) -> T:
        return self.get(key)

    def names(self) -> list[str]:
        """Full names in P4Info order."""
        return [item.name for item in self._items]  # type: ignore[attr-defined]

    def get(self, key: str | int) -> T:
        """Look up by id, full name, alias or a unique suffix of the dotted name."""
        found = self._by_name.get(key) if isinstance(key, str) else None
        if found is not None:
            return found
        where = f" of {self.owner}" if self.owner else ""
        if isinstance(key, int) and not isinstance(key, bool):
            try:
                return self._by_id[key]
            except KeyError:
                raise SchemaError(f"no {self.kind}{where} has id {key}") from None
        if not isinstance(key, str) or not key:
            raise SchemaError(f"a {self.kind} is named by a non-empty string or an id, got {key!r}")
        if key in self._by_name:
            return self._by_name[key]
        if key in self._by_alias:
            return self._by_alias[key]
        matches = [item for item in self._items if item.name.endswith("." + key)]  # type: ignore[attr-defined]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            names = ", ".join(m.name for m in matches)  # type: ignore[attr-defined]
            raise SchemaError(f"{self.kind} name {key!r}{where} is ambiguous: {names}")
        candidates = sorted(set(self.names()) | set(self._by_alias))
        close = difflib.get_close_matches(key, candidates, n=5, cutoff=0.5)
        if not close:
            # Compare against last name components too (`ipv4_lpn` vs `MyIngress.ipv4_lpm`).
            tails = {name.rsplit(".", 1)[-1]: name for name in self.names()}
            close = [tails[t] for t in difflib.get_close_matches(key, list(tails), n=5, cutoff=0.5)]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        if not candidates:
            hint = f"; the program has no {self.kind}s"
        raise SchemaError(f"no {self.kind}{where} named {key!r}{hint}")


@dataclass(frozen=True)
class P4Action:
    """An action and its parameters."""

    id: int
    name: str
    alias: str
    params: Directory[P4Field]
    pb: p4info_pb2.Action = field(repr=False, compare=False)


@dataclass(frozen=True)
class P4Table:
    """A match-action table."""

    id: int
    name: str
    alias: str
    match_fields: Directory[P4Field]
    actions: Directory[P4Action]
    action_scopes: dict[int, str]
    size: int
    implementation_id: int
    direct_resource_ids: tuple[int, ...]
    const_default_action_id: int
    supports_idle_timeout: bool
    is_const: bool
    pb: p4info_pb2.Table = field(repr=False, compare=False)

    @property
    def needs_priority(self) -> bool:
        """True when entries need a priority (a ternary, range or optional field)."""
        return any(f.match_type in ("ternary", "range", "optional") for f in self.match_fields)


@dataclass(frozen=True)
class P4Extern:
    """A named P4 object with an id: action profile, counter, meter, register, digest..."""

    id: int
    name: str
    alias: str
    kind: str
    size: int = 0
    unit: str = ""
    table_id: int = 0
    table_ids: tuple[int, ...] = ()
    with_selector: bool = False
    bitwidth: int = 0
    signed: bool = False
    type_spec: p4types_pb2.P4DataTypeSpec | None = field(default=None, repr=False, compare=False)
    match_fields: Directory[P4Field] | None = field(default=None, repr=False, compare=False)
    pb: object = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class P4PacketMetadata:
    """The `packet_in` or `packet_out` controller header and its fields."""

    id: int
    name: str
    alias: str
    fields: Directory[P4Field]


_MATCH_TYPES = {
    p4info_pb2.MatchField.EXACT: "exact",
    p4info_pb2.MatchField.LPM: "lpm",
    p4info_pb2.MatchField.TERNARY: "ternary",
    p4info_pb2.MatchField.RANGE: "range",
    p4info_pb2.MatchField.OPTIONAL: "optional",
}

_TEXT_SUFFIXES = (".txt", ".txtpb", ".textproto", ".pbtxt", ".prototxt")
_BINARY_SUFFIXES = (".bin", ".pb", ".binpb")


def parse_p4info_text(text: str) -> p4info_pb2.P4Info:
    """Parse a text-format P4Info."""
    return text_format.Parse(text, p4info_pb2.P4Info())


def parse_p4info_json(text: str) -> p4info_pb2.P4Info:
    """Parse a JSON P4Info."""
    return json_format.Parse(text, p4info_pb2.P4Info())


def p4info_to_text(info: p4info_pb2.P4Info) -> str:
    """Write a P4Info in protobuf text format."""
    return text_format.MessageToString(info)


def p4info_to_json(info: p4info_pb2.P4Info) -> str:
    """Write a P4Info as JSON."""
    return json_format.MessageToJson(info)


def type_map(container) -> dict:
    """A P4TypeInfo map field (`structs`, `headers`, ...) as a plain dict."""
    return dict(container.items())


def load_p4info(path: str | Path) -> p4info_pb2.P4Info:
    """Read a P4Info file in text, binary or JSON protobuf format (chosen by extension)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SchemaError(f"cannot read P4Info {path}: {exc.strerror}") from exc
    info = p4info_pb2.P4Info()
    name = path.name.lower()
    try:
        if name.endswith(".json"):
            info = parse_p4info_json(data.decode())
        elif name.endswith(_BINARY_SUFFIXES):
            info.ParseFromString(data)
        elif name.endswith(_TEXT_SUFFIXES):
            info = parse_p4info_text(data.decode())
        else:
            try:
                info = parse_p4info_text(data.decode())
            except (text_format.ParseError, UnicodeDecodeError):
                info = p4info_pb2.P4Info.FromString(data)
    except (text_format.ParseError, json_format.ParseError, DecodeError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{path}: not a valid P4Info: {exc}") from exc
    return info


def _field(pb, match_type: str = "") -> P4Field:
    annotations = tuple(pb.annotations)
    return P4Field(pb.id, pb.name, pb.bitwidth, match_type, Format.from_annotations(annotations), annotations)


def _match_fields(pbs, owner: str) -> Directory[P4Field]:
    fields = []
    for mf in pbs:
        kind = _MATCH_TYPES.get(mf.match_type) if mf.HasField("match_type") else mf.other_match_type
        fields.append(_field(mf, kind or "unspecified"))
    return Directory("match field", fields, owner)


def _preamble(pb) -> tuple[int, str, str]:
    return pb.preamble.id, pb.preamble.name, pb.preamble.alias


class P4Schema:
    """A P4Info with lookups for every kind of object it describes."""

    def __init__(self, p4info: p4info_pb2.P4Info) -> None:
        self.p4info = p4info
        self.actions: Directory[P4Action] = Directory(
            "action",
            [
                P4Action(*_preamble(a), Directory("param", [_field(p) for p in a.params], f"action {a.preamble.name}"), a)
                for a in p4info.actions
            ],
        )
        tables = []
        for t in p4info.tables:
            owner = f"table {t.preamble.name}"
            refs = [self.actions.get(ref.id) for ref in t.action_refs]
            scopes = {ref.id: p4info_pb2.ActionRef.Scope.Name(ref.scope) for ref in t.action_refs}
            tables.append(
                P4Table(
                    *_preamble(t),
                    match_fields=_match_fields(t.match_fields, owner),
                    actions=Directory("action", refs, owner),
                    action_scopes=scopes,
                    size=t.size,
                    implementation_id=t.implementation_id,
                    direct_resource_ids=tuple(t.direct_resource_ids),
                    const_default_action_id=t.const_default_action_id,
                    supports_idle_timeout=t.idle_timeout_behavior == p4info_pb2.Table.NOTIFY_CONTROL,
                    is_const=t.is_const_table,
                    pb=t,
                )
            )
        self.tables: Directory[P4Table] = Directory("table", tables)
        self.action_profiles: Directory[P4Extern] = Directory(
            "action profile",
            [
                P4Extern(*_preamble(p), "action_profile", size=p.size, table_ids=tuple(p.table_ids),
                         with_selector=p.with_selector, pb=p)
                for p in p4info.action_profiles
            ],
        )
        self.counters: Directory[P4Extern] = Directory(
            "counter",
            [P4Extern(*_preamble(c), "counter", size=c.size, unit=_unit(c.spec), pb=c) for c in p4info.counters],
        )
        self.direct_counters: Directory[P4Extern] = Directory(
            "direct counter",
            [P4Extern(*_preamble(c), "direct_counter", unit=_unit(c.spec), table_id=c.direct_table_id, pb=c)
             for c in p4info.direct_counters],
        )
        self.meters: Directory[P4Extern] = Directory(
            "meter",
            [P4Extern(*_preamble(m), "meter", size=m.size, unit=_unit(m.spec), pb=m) for m in p4info.meters],
        )
        self.direct_meters: Directory[P4Extern] = Directory(
            "direct meter",
            [P4Extern(*_preamble(m), "direct_meter", unit=_unit(m.spec), table_id=m.direct_table_id, pb=m)
             for m in p4info.direct_meters],
        )
        self.registers: Directory[P4Extern] = Directory(
            "register",
            [P4Extern(*_preamble(r), "register", size=r.size, type_spec=r.type_spec,
                      bitwidth=_bitwidth(r.type_spec)[0], signed=_bitwidth(r.type_spec)[1], pb=r)
             for r in p4info.registers],
        )
        self.digests: Directory[P4Extern] = Directory(
            "digest", [P4Extern(*_preamble(d), "digest", type_spec=d.type_spec, pb=d) for d in p4info.digests]
        )
        self.value_sets: Directory[P4Extern] = Directory(
            "value set",
            [P4Extern(*_preamble(v), "value_set", size=v.size,
                      match_fields=_match_fields(v.match, f"value set {v.preamble.name}"), pb=v)
             for v in p4info.value_sets],
        )
        self.packet_metadata: Directory[P4PacketMetadata] = Directory(
            "controller packet metadata",
            [P4PacketMetadata(*_preamble(c), Directory("metadata field", [_field(m) for m in c.metadata],
                                                       f"controller header {c.preamble.name}"))
             for c in p4info.controller_packet_metadata],
        )

    @classmethod
    def load(cls, path: str | Path) -> P4Schema:
        """Read a P4Info file (text, binary or JSON) into a schema."""
        return cls(load_p4info(path))

    # Short lookups by kind (name, alias, unique suffix or id).
    def table(self, key: str | int) -> P4Table:
        """Look up a table."""
        return self.tables.get(key)

    def action(self, key: str | int) -> P4Action:
        """Look up an action."""
        return self.actions.get(key)

    def action_profile(self, key: str | int) -> P4Extern:
        """Look up an action profile or selector."""
        return self.action_profiles.get(key)

    def counter(self, key: str | int) -> P4Extern:
        """Look up an indexed counter."""
        return self.counters.get(key)

    def direct_counter(self, key: str | int) -> P4Extern:
        """Look up a direct counter."""
        return self.direct_counters.get(key)

    def meter(self, key: str | int) -> P4Extern:
        """Look up an indexed meter."""
        return self.meters.get(key)

    def direct_meter(self, key: str | int) -> P4Extern:
        """Look up a direct meter."""
        return self.direct_meters.get(key)

    def register(self, key: str | int) -> P4Extern:
        """Look up a register."""
        return self.registers.get(key)

    def digest(self, key: str | int) -> P4Extern:
        """Look up a digest."""
        return self.digests.get(key)

    def value_set(self, key: str | int) -> P4Extern:
        """Look up a parser value set."""
        return self.value_sets.get(key)

    def controller_header(self, key: str | int) -> P4PacketMetadata:
        """Look up the `packet_in` or `packet_out` controller header."""
        return self.packet_metadata.get(key)

    def type_info(self) -> p4types_pb2.P4TypeInfo:
        """The named types (structs, headers, enums) of the program."""
        return self.p4info.type_info

    def direct_resources(self, table: P4Table) -> tuple[P4Extern | None, P4Extern | None]:
        """The direct counter and direct meter attached to a table, if any."""
        counter = next((c for c in self.direct_counters if c.table_id == table.id), None)
        meter = next((m for m in self.direct_meters if m.table_id == table.id), None)
        return counter, meter


def _unit(spec) -> str:
    return type(spec).Unit.Name(spec.unit)


def _bitwidth(spec: p4types_pb2.P4DataTypeSpec) -> tuple[int, bool]:
    if spec.HasField("bitstring"):
        bs = spec.bitstring
        if bs.HasField("bit"):
            return bs.bit.bitwidth, False
        if bs.HasField("int"):
            return bs.int.bitwidth, True
        if bs.HasField("varbit"):
            return bs.varbit.max_bitwidth, False
    return 0, False
