"""P4Runtime entities: builders that encode to protobuf and decoders that read them back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from p4.config.v1 import p4types_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2

from . import codec
from .codec import CodecError
from .plans import action_plan, match_encoder, uint_bytes
from .schema import P4Schema, P4Table, SchemaError


class EntityError(ValueError):
    """An entity that cannot be encoded for (or decoded with) the program's P4Info."""


# --- match fields -----------------------------------------------------------------------


def encode_match(fields, values: dict[str, Any], owner: str, target=None) -> list[p4runtime_pb2.FieldMatch]:
    """Encode `{field name: value}` as FieldMatch messages (sorted by id), leaving wildcards out.

    With `target` (a repeated FieldMatch field) the messages are added to it in place.
    """
    if not isinstance(values, dict):
        raise EntityError(f"{owner}: a match is a dict of field name to value, got {values!r}")
    try:
        if len(values) == 1:  # one key field, the usual route or MAC entry: nothing to sort
            [(name, value)] = values.items()
            resolved = [(*match_encoder(fields, name), value)]
        else:
            resolved = [(*match_encoder(fields, name), value) for name, value in values.items()]
            resolved.sort(key=lambda item: item[0].id)
    except SchemaError as exc:
        raise EntityError(str(exc)) from exc
    out = []
    for mf, encode, value in resolved:
        try:
            parts = encode(value)
        except CodecError as exc:
            raise EntityError(f"{owner}, match field {mf.name} ({mf.match_type}, bit<{mf.bitwidth}>): {exc}") from exc
        if parts is None:
            continue
        kind, a, b = parts
        fm = target.add() if target is not None else p4runtime_pb2.FieldMatch()
        fm.field_id = mf.id
        if kind == "lpm":
            lpm = fm.lpm
            lpm.value, lpm.prefix_len = a, b
        elif kind == "exact":
            fm.exact.value = a
        elif kind == "ternary":
            fm.ternary.value, fm.ternary.mask = a, b
        elif kind == "range":
            fm.range.low, fm.range.high = a, b
        else:
            fm.optional.value = a
        out.append(fm)
    return out


def decode_match(fields, matches, owner: str) -> dict[str, Any]:
    """Decode FieldMatch messages into `{field name: value}`."""
    out: dict[str, Any] = {}
    for fm in matches:
        try:
            mf = fields.get(fm.field_id)
        except SchemaError as exc:
            raise EntityError(f"{owner}: {exc}") from exc
        width, fmt = mf.bitwidth, mf.format
        try:
            kind = fm.WhichOneof("field_match_type")
            if kind == "exact":
                out[mf.name] = codec.decode_value(fm.exact.value, width, fmt)
            elif kind == "lpm":
                out[mf.name] = codec.decode_lpm(fm.lpm.value, fm.lpm.prefix_len, width, fmt)
            elif kind == "ternary":
                out[mf.name] = codec.decode_ternary(fm.ternary.value, fm.ternary.mask, width, fmt)
            elif kind == "range":
                out[mf.name] = codec.decode_range(fm.range.low, fm.range.high, width, fmt)
            elif kind == "optional":
                out[mf.name] = codec.decode_value(fm.optional.value, width, fmt)
            else:
                raise CodecError(f"unsupported match kind {kind!r}")
        except CodecError as exc:
            raise EntityError(f"{owner}, match field {mf.name}: {exc}") from exc
    return out


# --- actions ----------------------------------------------------------------------------


@dataclass
class Action:
    """An action call with named parameters: `Action("set_nhop", {"port": 1})`."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    def encode(self, schema: P4Schema, table: P4Table | None = None,
               msg: p4runtime_pb2.Action | None = None) -> p4runtime_pb2.Action:
        """Encode as a p4.v1.Action (into `msg` if given), checking the action belongs to the table."""
        try:
            plan = action_plan(table.actions if table is not None else schema.actions, self.name)
        except SchemaError as exc:
            raise EntityError(str(exc)) from exc
        if msg is None:
            msg = p4runtime_pb2.Action()
        msg.action_id = plan.id
        params = self.params
        if not isinstance(params, dict):
            raise EntityError(f"action {plan.action.name}: params are a dict of name to value, got {params!r}")
        add = msg.params.add
        for name, param_id, width, limit in plan.params:
            if name not in params:
                raise EntityError(f"action {plan.action.name}: missing parameter {name!r}")
            value = params[name]
            if type(value) is int and 0 <= value < limit:  # noqa: E721 - the usual case, checked here
                data = uint_bytes(value)
            else:
                try:
                    data = codec.encode_value(value, width)
                except CodecError as exc:
                    raise EntityError(f"action {plan.action.name}, parameter {name} (bit<{width}>): {exc}") from exc
            p = add()
            p.param_id, p.value = param_id, data
        if len(params) != len(plan.params):
            given = [name for name in params if name not in plan.names]
            known = ", ".join(plan.action.params.names()) or "none"
            raise EntityError(f"action {plan.action.name}: unknown parameter(s) {', '.join(map(repr, given))}; "
                              f"known: {known}")
        return msg

    @classmethod
    def decode(cls, msg: p4runtime_pb2.Action, schema: P4Schema) -> Action:
        """Decode a p4.v1.Action."""
        try:
            action = schema.actions.get(msg.action_id)
            params = {}
            for p in msg.params:
                param = action.params.get(p.param_id)
                params[param.name] = codec.decode_value(p.value, param.bitwidth, param.format)
        except (SchemaError, CodecError) as exc:
            raise EntityError(f"action id {msg.action_id}: {exc}") from exc
        return cls(action.name, params)


def _as_action(value: Action | str) -> Action:
    return Action(value) if isinstance(value, str) else value


@dataclass
class CounterData:
    """Byte and packet counts."""

    packets: int = 0
    bytes: int = 0

    def encode(self) -> p4runtime_pb2.CounterData:
        """Encode as p4.v1.CounterData."""
        return p4runtime_pb2.CounterData(byte_count=self.bytes, packet_count=self.packets)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.CounterData) -> CounterData:
        """Decode p4.v1.CounterData."""
        return cls(packets=msg.packet_count, bytes=msg.byte_count)


@dataclass
class MeterConfig:
    """Two-rate three-colour meter rates (per second) and bursts; all -1 means unconfigured."""

    cir: int
    cburst: int
    pir: int
    pburst: int
    eburst: int = 0

    def encode(self) -> p4runtime_pb2.MeterConfig:
        """Encode as p4.v1.MeterConfig."""
        return p4runtime_pb2.MeterConfig(cir=self.cir, cburst=self.cburst, pir=self.pir, pburst=self.pburst,
                                         eburst=self.eburst)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.MeterConfig) -> MeterConfig:
        """Decode p4.v1.MeterConfig."""
        return cls(msg.cir, msg.cburst, msg.pir, msg.pburst, msg.eburst)


@dataclass
class MeterCounterData:
    """Per-colour counts of a meter."""

    green: CounterData = field(default_factory=CounterData)
    yellow: CounterData = field(default_factory=CounterData)
    red: CounterData = field(default_factory=CounterData)

    def encode(self) -> p4runtime_pb2.MeterCounterData:
        """Encode as p4.v1.MeterCounterData."""
        return p4runtime_pb2.MeterCounterData(green=self.green.encode(), yellow=self.yellow.encode(),
                                              red=self.red.encode())

    @classmethod
    def decode(cls, msg: p4runtime_pb2.MeterCounterData) -> MeterCounterData:
        """Decode p4.v1.MeterCounterData."""
        return cls(CounterData.decode(msg.green), CounterData.decode(msg.yellow), CounterData.decode(msg.red))


# --- entities ---------------------------------------------------------------------------


class Entity:
    """Base of all entity builders."""

    kind: ClassVar[str] = ""

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:  # pragma: no cover - abstract
        """Encode as a p4.v1.Entity."""
        raise NotImplementedError

    def encode_into(self, schema: P4Schema, msg: p4runtime_pb2.Entity) -> None:
        """Encode into an existing p4.v1.Entity (avoids copies for big batches)."""
        msg.CopyFrom(self.encode(schema))

    def describe(self) -> str:
        """A short human-readable name for error messages."""
        return repr(self)


@dataclass
class TableEntry(Entity):
    """A table entry; an empty table name reads all tables, an empty match reads the whole table.

    `action` is an `Action` (or action name); indirect tables take `member_id`, `group_id` or
    `one_shot` (a list of `Action` or `(Action, weight)`) instead.
    """

    table: str = ""
    match: dict[str, Any] = field(default_factory=dict)
    action: Action | str | None = None
    priority: int = 0
    is_default: bool = False
    member_id: int | None = None
    group_id: int | None = None
    one_shot: list[Action | tuple[Action, int]] | None = None
    idle_timeout_ns: int = 0
    metadata: bytes = b""
    counter_data: CounterData | None = None
    meter_config: MeterConfig | None = None
    meter_counter_data: MeterCounterData | None = None
    is_const: bool = False
    time_since_last_hit_ns: int | None = None

    kind: ClassVar[str] = "table_entry"

    def describe(self) -> str:
        """Table name and match, for error messages."""
        what = "default entry" if self.is_default else f"match {self.match}"
        prio = f" priority {self.priority}" if self.priority else ""
        return f"table entry {self.table or '*'} {what}{prio}"

    def encode_entry(self, schema: P4Schema, msg: p4runtime_pb2.TableEntry | None = None) -> p4runtime_pb2.TableEntry:
        """Encode as a p4.v1.TableEntry (into `msg` if given)."""
        if msg is None:
            msg = p4runtime_pb2.TableEntry()
        if not self.table:
            msg.SetInParent()  # an empty TableEntry is a wildcard read: it must still be present
            if self.match or self.action is not None:
                raise EntityError("a table entry with a match or an action needs a table name")
            return msg
        try:
            table = schema.tables.get(self.table)
        except SchemaError as exc:
            raise EntityError(str(exc)) from exc
        msg.table_id = table.id
        encode_match(table.match_fields, self.match, table.match_fields.owner, msg.match)  # "table <name>"
        action = self.action
        if self.member_id is not None or self.group_id is not None or self.one_shot is not None:
            given = (action, self.member_id, self.group_id, self.one_shot)
            if sum(x is not None for x in given) > 1:
                raise EntityError(f"table {table.name}: give only one of action, member_id, group_id, one_shot")
        if action is not None:
            (Action(action) if type(action) is str else action).encode(schema, table, msg.action.action)  # noqa: E721
        elif self.member_id is not None:
            msg.action.action_profile_member_id = self.member_id
        elif self.group_id is not None:
            msg.action.action_profile_group_id = self.group_id
        elif self.one_shot is not None:
            action_set = msg.action.action_profile_action_set
            for item in self.one_shot:
                action, weight = item if isinstance(item, tuple) else (item, 1)
                member = action_set.action_profile_actions.add(weight=weight)
                _as_action(action).encode(schema, table, member.action)
        if self.priority:
            msg.priority = self.priority
        if self.is_default:
            msg.is_default_action = True
        if self.idle_timeout_ns:
            msg.idle_timeout_ns = self.idle_timeout_ns
        if self.metadata:
            msg.metadata = self.metadata
        if self.counter_data is not None:
            msg.counter_data.CopyFrom(self.counter_data.encode())
        if self.meter_config is not None:
            msg.meter_config.CopyFrom(self.meter_config.encode())
        if self.meter_counter_data is not None:
            msg.meter_counter_data.CopyFrom(self.meter_counter_data.encode())
        return msg

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.Entity()
        self.encode_entry(schema, msg.table_entry)
        return msg

    def encode_into(self, schema: P4Schema, msg: p4runtime_pb2.Entity) -> None:
        """Encode into an existing p4.v1.Entity."""
        self.encode_entry(schema, msg.table_entry)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.TableEntry, schema: P4Schema) -> TableEntry:
        """Decode a p4.v1.TableEntry."""
        if msg.table_id == 0:
            return cls()
        try:
            table = schema.tables.get(msg.table_id)
        except SchemaError as exc:
            raise EntityError(str(exc)) from exc
        entry = cls(
            table.name,
            decode_match(table.match_fields, msg.match, f"table {table.name}"),
            priority=msg.priority,
            is_default=msg.is_default_action,
            idle_timeout_ns=msg.idle_timeout_ns,
            metadata=msg.metadata,
            # A const table's entries are const even when the switch leaves the flag unset (BMv2's PI does).
            is_const=msg.is_const or table.is_const,
        )
        which = msg.action.WhichOneof("type") if msg.HasField("action") else None
        if which == "action":
            entry.action = Action.decode(msg.action.action, schema)
        elif which == "action_profile_member_id":
            entry.member_id = msg.action.action_profile_member_id
        elif which == "action_profile_group_id":
            entry.group_id = msg.action.action_profile_group_id
        elif which == "action_profile_action_set":
            entry.one_shot = [
                (Action.decode(a.action, schema), a.weight)
                for a in msg.action.action_profile_action_set.action_profile_actions
            ]
        if msg.HasField("counter_data"):
            entry.counter_data = CounterData.decode(msg.counter_data)
        if msg.HasField("meter_config"):
            entry.meter_config = MeterConfig.decode(msg.meter_config)
        if msg.HasField("meter_counter_data"):
            entry.meter_counter_data = MeterCounterData.decode(msg.meter_counter_data)
        if msg.HasField("time_since_last_hit"):
            entry.time_since_last_hit_ns = msg.time_since_last_hit.elapsed_ns
        return entry


@dataclass
class ActionProfileMember(Entity):
    """A member of an action profile: an action with its parameters."""

    profile: str = ""
    member_id: int | None = None
    action: Action | str | None = None

    kind: ClassVar[str] = "action_profile_member"

    def describe(self) -> str:
        """Profile and member id, for error messages."""
        return f"action profile member {self.profile or '*'}[{self.member_id}]"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.ActionProfileMember()
        if self.profile:
            profile = _lookup(schema.action_profiles, self.profile)
            msg.action_profile_id = profile.id
        if self.member_id is not None:
            msg.member_id = self.member_id
        if self.action is not None:
            msg.action.CopyFrom(_as_action(self.action).encode(schema))
        return p4runtime_pb2.Entity(action_profile_member=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.ActionProfileMember, schema: P4Schema) -> ActionProfileMember:
        """Decode a p4.v1.ActionProfileMember."""
        profile = _lookup(schema.action_profiles, msg.action_profile_id).name if msg.action_profile_id else ""
        action = Action.decode(msg.action, schema) if msg.HasField("action") else None
        return cls(profile, msg.member_id, action)


@dataclass
class GroupMember:
    """A member reference inside an action profile group."""

    member_id: int
    weight: int = 1
    watch_port: bytes = b""


@dataclass
class ActionProfileGroup(Entity):
    """A group of action profile members (for action selectors)."""

    profile: str = ""
    group_id: int | None = None
    members: list[GroupMember | int | tuple[int, int]] = field(default_factory=list)
    max_size: int = 0

    kind: ClassVar[str] = "action_profile_group"

    def describe(self) -> str:
        """Profile and group id, for error messages."""
        return f"action profile group {self.profile or '*'}[{self.group_id}]"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.ActionProfileGroup(max_size=self.max_size)
        if self.profile:
            msg.action_profile_id = _lookup(schema.action_profiles, self.profile).id
        if self.group_id is not None:
            msg.group_id = self.group_id
        for item in self.members:
            if isinstance(item, int):
                item = GroupMember(item)
            elif isinstance(item, tuple):
                item = GroupMember(*item)
            member = msg.members.add(member_id=item.member_id, weight=item.weight)
            if item.watch_port:
                member.watch_port = item.watch_port
        return p4runtime_pb2.Entity(action_profile_group=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.ActionProfileGroup, schema: P4Schema) -> ActionProfileGroup:
        """Decode a p4.v1.ActionProfileGroup."""
        profile = _lookup(schema.action_profiles, msg.action_profile_id).name if msg.action_profile_id else ""
        members = [GroupMember(m.member_id, m.weight, m.watch_port) for m in msg.members]
        return cls(profile, msg.group_id, members, msg.max_size)


@dataclass
class CounterEntry(Entity):
    """One cell of an indexed counter (index None reads every cell)."""

    counter: str = ""
    index: int | None = None
    data: CounterData | None = None

    kind: ClassVar[str] = "counter_entry"

    def describe(self) -> str:
        """Counter name and index, for error messages."""
        return f"counter {self.counter or '*'}[{'*' if self.index is None else self.index}]"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.CounterEntry()
        if self.counter:
            msg.counter_id = _lookup(schema.counters, self.counter).id
        if self.index is not None:
            msg.index.index = self.index
        if self.data is not None:
            msg.data.CopyFrom(self.data.encode())
        return p4runtime_pb2.Entity(counter_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.CounterEntry, schema: P4Schema) -> CounterEntry:
        """Decode a p4.v1.CounterEntry."""
        name = _lookup(schema.counters, msg.counter_id).name if msg.counter_id else ""
        index = msg.index.index if msg.HasField("index") else None
        data = CounterData.decode(msg.data) if msg.HasField("data") else None
        return cls(name, index, data)


@dataclass
class DirectCounterEntry(Entity):
    """The direct counter cell of one table entry."""

    table_entry: TableEntry = field(default_factory=TableEntry)
    data: CounterData | None = None

    kind: ClassVar[str] = "direct_counter_entry"

    def describe(self) -> str:
        """The table entry's description, for error messages."""
        return f"direct counter of {self.table_entry.describe()}"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.DirectCounterEntry(table_entry=self.table_entry.encode_entry(schema))
        if self.data is not None:
            msg.data.CopyFrom(self.data.encode())
        return p4runtime_pb2.Entity(direct_counter_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.DirectCounterEntry, schema: P4Schema) -> DirectCounterEntry:
        """Decode a p4.v1.DirectCounterEntry."""
        data = CounterData.decode(msg.data) if msg.HasField("data") else None
        return cls(TableEntry.decode(msg.table_entry, schema), data)


@dataclass
class MeterEntry(Entity):
    """One cell of an indexed meter (index None reads every cell; config None = unconfigured)."""

    meter: str = ""
    index: int | None = None
    config: MeterConfig | None = None
    counter_data: MeterCounterData | None = None

    kind: ClassVar[str] = "meter_entry"

    def describe(self) -> str:
        """Meter name and index, for error messages."""
        return f"meter {self.meter or '*'}[{'*' if self.index is None else self.index}]"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.MeterEntry()
        if self.meter:
            msg.meter_id = _lookup(schema.meters, self.meter).id
        if self.index is not None:
            msg.index.index = self.index
        if self.config is not None:
            msg.config.CopyFrom(self.config.encode())
        if self.counter_data is not None:
            msg.counter_data.CopyFrom(self.counter_data.encode())
        return p4runtime_pb2.Entity(meter_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.MeterEntry, schema: P4Schema) -> MeterEntry:
        """Decode a p4.v1.MeterEntry."""
        name = _lookup(schema.meters, msg.meter_id).name if msg.meter_id else ""
        index = msg.index.index if msg.HasField("index") else None
        config = MeterConfig.decode(msg.config) if msg.HasField("config") else None
        counts = MeterCounterData.decode(msg.counter_data) if msg.HasField("counter_data") else None
        return cls(name, index, config, counts)


@dataclass
class DirectMeterEntry(Entity):
    """The direct meter cell of one table entry."""

    table_entry: TableEntry = field(default_factory=TableEntry)
    config: MeterConfig | None = None
    counter_data: MeterCounterData | None = None

    kind: ClassVar[str] = "direct_meter_entry"

    def describe(self) -> str:
        """The table entry's description, for error messages."""
        return f"direct meter of {self.table_entry.describe()}"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.DirectMeterEntry(table_entry=self.table_entry.encode_entry(schema))
        if self.config is not None:
            msg.config.CopyFrom(self.config.encode())
        if self.counter_data is not None:
            msg.counter_data.CopyFrom(self.counter_data.encode())
        return p4runtime_pb2.Entity(direct_meter_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.DirectMeterEntry, schema: P4Schema) -> DirectMeterEntry:
        """Decode a p4.v1.DirectMeterEntry."""
        config = MeterConfig.decode(msg.config) if msg.HasField("config") else None
        counts = MeterCounterData.decode(msg.counter_data) if msg.HasField("counter_data") else None
        return cls(TableEntry.decode(msg.table_entry, schema), config, counts)


@dataclass
class RegisterEntry(Entity):
    """One cell of a register (index None reads every cell)."""

    register: str = ""
    index: int | None = None
    value: Any = None

    kind: ClassVar[str] = "register_entry"

    def describe(self) -> str:
        """Register name and index, for error messages."""
        return f"register {self.register or '*'}[{'*' if self.index is None else self.index}]"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.RegisterEntry()
        if self.register:
            register = _lookup(schema.registers, self.register)
            msg.register_id = register.id
            if self.value is not None:
                try:
                    msg.data.CopyFrom(encode_data(self.value, register.type_spec, schema))
                except CodecError as exc:
                    raise EntityError(f"register {register.name}: {exc}") from exc
        elif self.value is not None:
            raise EntityError("a register entry with a value needs a register name")
        if self.index is not None:
            msg.index.index = self.index
        return p4runtime_pb2.Entity(register_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.RegisterEntry, schema: P4Schema) -> RegisterEntry:
        """Decode a p4.v1.RegisterEntry."""
        index = msg.index.index if msg.HasField("index") else None
        if not msg.register_id:
            return cls("", index)
        register = _lookup(schema.registers, msg.register_id)
        value = None
        if msg.HasField("data"):
            try:
                value = decode_data(msg.data, register.type_spec, schema)
            except CodecError as exc:
                raise EntityError(f"register {register.name}: {exc}") from exc
        return cls(register.name, index, value)


@dataclass
class Replica:
    """A copy of a packet: egress port and instance (egress_rid)."""

    port: int
    instance: int = 0


def _replicas(items: list[Replica | tuple[int, int] | int]) -> list[p4runtime_pb2.Replica]:
    out = []
    for item in items:
        if isinstance(item, int):
            item = Replica(item)
        elif isinstance(item, tuple):
            item = Replica(*item)
        out.append(p4runtime_pb2.Replica(egress_port=item.port, instance=item.instance))
    return out


def _decode_replicas(msgs) -> list[Replica]:
    out = []
    for r in msgs:
        port = int.from_bytes(r.port, "big") if r.WhichOneof("port_kind") == "port" else r.egress_port
        out.append(Replica(port, r.instance))
    return out


@dataclass
class MulticastGroupEntry(Entity):
    """A multicast group of the packet replication engine (group id 0 reads all groups)."""

    group_id: int = 0
    replicas: list[Replica | tuple[int, int] | int] = field(default_factory=list)
    metadata: bytes = b""

    kind: ClassVar[str] = "multicast_group_entry"

    def describe(self) -> str:
        """Group id, for error messages."""
        return f"multicast group {self.group_id or '*'}"

    def encode(self, schema: P4Schema | None = None) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.MulticastGroupEntry(multicast_group_id=self.group_id, replicas=_replicas(self.replicas),
                                                metadata=self.metadata)
        return p4runtime_pb2.Entity(packet_replication_engine_entry={"multicast_group_entry": msg})

    @classmethod
    def decode(cls, msg: p4runtime_pb2.MulticastGroupEntry, schema: P4Schema | None = None) -> MulticastGroupEntry:
        """Decode a p4.v1.MulticastGroupEntry."""
        return cls(msg.multicast_group_id, _decode_replicas(msg.replicas), msg.metadata)


@dataclass
class CloneSessionEntry(Entity):
    """A clone (mirror) session of the packet replication engine (session id 0 reads all)."""

    session_id: int = 0
    replicas: list[Replica | tuple[int, int] | int] = field(default_factory=list)
    class_of_service: int = 0
    packet_length_bytes: int = 0

    kind: ClassVar[str] = "clone_session_entry"

    def describe(self) -> str:
        """Session id, for error messages."""
        return f"clone session {self.session_id or '*'}"

    def encode(self, schema: P4Schema | None = None) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.CloneSessionEntry(session_id=self.session_id, replicas=_replicas(self.replicas),
                                              class_of_service=self.class_of_service,
                                              packet_length_bytes=self.packet_length_bytes)
        return p4runtime_pb2.Entity(packet_replication_engine_entry={"clone_session_entry": msg})

    @classmethod
    def decode(cls, msg: p4runtime_pb2.CloneSessionEntry, schema: P4Schema | None = None) -> CloneSessionEntry:
        """Decode a p4.v1.CloneSessionEntry."""
        return cls(msg.session_id, _decode_replicas(msg.replicas), msg.class_of_service, msg.packet_length_bytes)


@dataclass
class DigestEntry(Entity):
    """The stream configuration of a digest (all None: no config, as for DELETE)."""

    digest: str = ""
    max_list_size: int | None = None
    max_timeout_ns: int | None = None
    ack_timeout_ns: int | None = None

    kind: ClassVar[str] = "digest_entry"

    def describe(self) -> str:
        """Digest name, for error messages."""
        return f"digest {self.digest or '*'}"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.DigestEntry()
        if self.digest:
            msg.digest_id = _lookup(schema.digests, self.digest).id
        if any(v is not None for v in (self.max_list_size, self.max_timeout_ns, self.ack_timeout_ns)):
            msg.config.max_list_size = self.max_list_size or 0
            msg.config.max_timeout_ns = self.max_timeout_ns or 0
            msg.config.ack_timeout_ns = self.ack_timeout_ns or 0
        return p4runtime_pb2.Entity(digest_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.DigestEntry, schema: P4Schema) -> DigestEntry:
        """Decode a p4.v1.DigestEntry."""
        name = _lookup(schema.digests, msg.digest_id).name if msg.digest_id else ""
        if not msg.HasField("config"):
            return cls(name)
        c = msg.config
        return cls(name, c.max_list_size, c.max_timeout_ns, c.ack_timeout_ns)


@dataclass
class ValueSetEntry(Entity):
    """The members of a parser value set, each a `{field: value}` match."""

    value_set: str = ""
    members: list[dict[str, Any]] = field(default_factory=list)

    kind: ClassVar[str] = "value_set_entry"

    def describe(self) -> str:
        """Value set name, for error messages."""
        return f"value set {self.value_set or '*'}"

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Entity:
        """Encode as a p4.v1.Entity."""
        msg = p4runtime_pb2.ValueSetEntry()
        if self.value_set:
            vs = _lookup(schema.value_sets, self.value_set)
            msg.value_set_id = vs.id
            for member in self.members:
                msg.members.add().match.extend(encode_match(vs.match_fields, member, f"value set {vs.name}"))
        return p4runtime_pb2.Entity(value_set_entry=msg)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.ValueSetEntry, schema: P4Schema) -> ValueSetEntry:
        """Decode a p4.v1.ValueSetEntry."""
        if not msg.value_set_id:
            return cls()
        vs = _lookup(schema.value_sets, msg.value_set_id)
        return cls(vs.name, [decode_match(vs.match_fields, m.match, f"value set {vs.name}") for m in msg.members])


def _lookup(directory, key: str | int):
    try:
        return directory.get(key)
    except SchemaError as exc:
        raise EntityError(str(exc)) from exc


_DECODERS: dict[str, Any] = {
    "table_entry": TableEntry,
    "action_profile_member": ActionProfileMember,
    "action_profile_group": ActionProfileGroup,
    "counter_entry": CounterEntry,
    "direct_counter_entry": DirectCounterEntry,
    "meter_entry": MeterEntry,
    "direct_meter_entry": DirectMeterEntry,
    "register_entry": RegisterEntry,
    "digest_entry": DigestEntry,
    "value_set_entry": ValueSetEntry,
}


def decode_entity(msg: p4runtime_pb2.Entity, schema: P4Schema) -> Entity:
    """Decode any p4.v1.Entity into its builder class."""
    kind = msg.WhichOneof("entity")
    if kind == "packet_replication_engine_entry":
        pre = msg.packet_replication_engine_entry
        if pre.WhichOneof("type") == "multicast_group_entry":
            return MulticastGroupEntry.decode(pre.multicast_group_entry)
        if pre.WhichOneof("type") == "clone_session_entry":
            return CloneSessionEntry.decode(pre.clone_session_entry)
        raise EntityError("packet replication engine entry with no multicast group or clone session")
    if kind not in _DECODERS:
        raise EntityError(f"entity kind {kind!r} is not supported by p4rt")
    return _DECODERS[kind].decode(getattr(msg, kind), schema)


def table_entry_key(msg: p4runtime_pb2.Entity) -> p4runtime_pb2.Entity | None:
    """For a read-back table entry, the Entity naming only its key (table, match, priority), as a
    DELETE wants it; None for other entities, const entries and default entries."""
    if msg.WhichOneof("entity") != "table_entry":
        return None
    te = msg.table_entry
    if te.is_const or te.is_default_action:
        return None
    key = p4runtime_pb2.Entity()
    key.table_entry.table_id = te.table_id
    key.table_entry.match.extend(te.match)
    key.table_entry.priority = te.priority
    return key


# --- updates ----------------------------------------------------------------------------

UPDATE_TYPES = ("INSERT", "MODIFY", "DELETE")
_UPDATE_VALUES = {name: p4runtime_pb2.Update.Type.Value(name) for name in UPDATE_TYPES}


@dataclass
class Update:
    """One update of a Write request.

    `fill`, if given, encodes the entity into the request's p4.v1.Entity in place of `entity`'s
    own encoder: a caller that holds the entity in canonical form (ids and integers, e.g. the
    controller's planner) skips parsing its text values again. It must give the same message;
    `entity` still names the update in errors."""

    type: str
    entity: Entity | p4runtime_pb2.Entity | bytes  # bytes: a serialized p4.v1.Entity
    fill: Callable[[p4runtime_pb2.Entity], None] | None = None

    def __post_init__(self) -> None:
        if self.type not in UPDATE_TYPES:
            raise EntityError(f"update type must be one of {', '.join(UPDATE_TYPES)}, got {self.type!r}")

    def encode(self, schema: P4Schema) -> p4runtime_pb2.Update:
        """Encode as a p4.v1.Update (raw Entity messages pass through untouched)."""
        msg = p4runtime_pb2.Update()
        self.encode_into(schema, msg)
        return msg

    def encode_into(self, schema: P4Schema, msg: p4runtime_pb2.Update) -> None:
        """Encode into an existing p4.v1.Update."""
        msg.type = _UPDATE_VALUES[self.type]
        if self.fill is not None:
            self.fill(msg.entity)
            return
        entity = self.entity
        if isinstance(entity, Entity):
            entity.encode_into(schema, msg.entity)
        elif isinstance(entity, p4runtime_pb2.Entity):
            msg.entity.CopyFrom(entity)
        elif isinstance(entity, bytes):
            msg.entity.ParseFromString(entity)
        else:
            raise EntityError(f"an update needs an entity, got {self.entity!r}")

    def describe(self) -> str:
        """Update type and entity, for error messages."""
        if isinstance(self.entity, bytes):
            return f"{self.type} {p4runtime_pb2.Entity.FromString(self.entity)}".replace("\n", " ").strip()
        if isinstance(self.entity, p4runtime_pb2.Entity):
            return f"{self.type} {self.entity}".replace("\n", " ").strip()
        return f"{self.type} {self.entity.describe()}"


def insert(entity: Entity | p4runtime_pb2.Entity) -> Update:
    """An INSERT update."""
    return Update("INSERT", entity)


def modify(entity: Entity | p4runtime_pb2.Entity) -> Update:
    """A MODIFY update."""
    return Update("MODIFY", entity)


def delete(entity: Entity | p4runtime_pb2.Entity) -> Update:
    """A DELETE update."""
    return Update("DELETE", entity)


# --- stream messages --------------------------------------------------------------------


@dataclass
class PacketOut:
    """A packet sent by the controller with `packet_out` header fields."""

    payload: bytes
    metadata: dict[str, Any] = field(default_factory=dict)

    def encode(self, schema: P4Schema) -> p4runtime_pb2.PacketOut:
        """Encode as a p4.v1.PacketOut."""
        msg = p4runtime_pb2.PacketOut(payload=bytes(self.payload))
        if not self.metadata:
            return msg
        header = _lookup(schema.packet_metadata, "packet_out")
        for name, value in self.metadata.items():
            meta = _lookup(header.fields, name)
            try:
                msg.metadata.add(metadata_id=meta.id, value=codec.encode_value(value, meta.bitwidth))
            except CodecError as exc:
                raise EntityError(f"packet_out field {meta.name} (bit<{meta.bitwidth}>): {exc}") from exc
        return msg


@dataclass
class PacketIn:
    """A packet sent to the controller with its `packet_in` header fields."""

    payload: bytes
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def decode(cls, msg: p4runtime_pb2.PacketIn, schema: P4Schema | None) -> PacketIn:
        """Decode a p4.v1.PacketIn (metadata by id when no schema is known)."""
        metadata: dict[str, Any] = {}
        header = None
        if schema is not None and "packet_in" in schema.packet_metadata:
            header = schema.packet_metadata.get("packet_in")
        for m in msg.metadata:
            if header is not None and m.metadata_id in header.fields:
                meta = header.fields.get(m.metadata_id)
                try:
                    metadata[meta.name] = codec.decode_value(m.value, meta.bitwidth, meta.format)
                except CodecError as exc:
                    raise EntityError(f"packet_in field {meta.name}: {exc}") from exc
            else:
                metadata[str(m.metadata_id)] = int.from_bytes(m.value, "big")
        return cls(msg.payload, metadata)


@dataclass
class DigestList:
    """A batch of digest messages from the switch."""

    digest: str
    list_id: int
    data: list[Any]
    timestamp: int = 0
    digest_id: int = 0

    @classmethod
    def decode(cls, msg: p4runtime_pb2.DigestList, schema: P4Schema) -> DigestList:
        """Decode a p4.v1.DigestList using the digest's type from the P4Info."""
        digest = _lookup(schema.digests, msg.digest_id)
        try:
            data = [decode_data(d, digest.type_spec, schema) for d in msg.data]
        except CodecError as exc:
            raise EntityError(f"digest {digest.name}: {exc}") from exc
        return cls(digest.name, msg.list_id, data, msg.timestamp, msg.digest_id)


@dataclass
class IdleTimeout:
    """An idle-timeout notification: the entries that expired."""

    entries: list[TableEntry]
    timestamp: int = 0

    @classmethod
    def decode(cls, msg: p4runtime_pb2.IdleTimeoutNotification, schema: P4Schema) -> IdleTimeout:
        """Decode a p4.v1.IdleTimeoutNotification."""
        return cls([TableEntry.decode(e, schema) for e in msg.table_entry], msg.timestamp)


# --- P4Data (register cells and digests) ------------------------------------------------


def encode_data(value: Any, spec: p4types_pb2.P4DataTypeSpec, schema: P4Schema) -> p4data_pb2.P4Data:
    """Encode a Python value as P4Data following a P4Info type spec."""
    if isinstance(value, p4data_pb2.P4Data):
        return value
    kind = spec.WhichOneof("type_spec")
    info = schema.type_info()
    if kind == "bitstring":
        bs = spec.bitstring
        which = bs.WhichOneof("type_spec")
        if which == "bit":
            return p4data_pb2.P4Data(bitstring=codec.encode_value(value, bs.bit.bitwidth))
        if which == "int":
            return p4data_pb2.P4Data(bitstring=codec.encode_int(value, bs.int.bitwidth))
        data = codec.encode_uint(codec.parse_value(value, bs.varbit.max_bitwidth), bs.varbit.max_bitwidth)
        return p4data_pb2.P4Data(varbit={"bitstring": data, "bitwidth": bs.varbit.max_bitwidth})
    if kind == "bool":
        return p4data_pb2.P4Data(bool=bool(value))
    if kind == "tuple":
        items = [encode_data(v, s, schema) for v, s in zip(value, spec.tuple.members, strict=True)]
        return p4data_pb2.P4Data(tuple={"members": items})
    if kind == "struct":
        members = info.structs[spec.struct.name].members
        _check_keys(value, [m.name for m in members], f"struct {spec.struct.name}")
        return p4data_pb2.P4Data(struct={"members": [encode_data(value[m.name], m.type_spec, schema) for m in members]})
    if kind == "header":
        members = info.headers[spec.header.name].members
        if value is None:
            return p4data_pb2.P4Data(header={"is_valid": False})
        _check_keys(value, [m.name for m in members], f"header {spec.header.name}")
        bits = [codec.encode_value(value[m.name], m.type_spec.bit.bitwidth) for m in members]
        return p4data_pb2.P4Data(header={"is_valid": True, "bitstrings": bits})
    if kind == "serializable_enum":
        enum = info.serializable_enums[spec.serializable_enum.name]
        if isinstance(value, str):
            for member in enum.members:
                if member.name == value:
                    return p4data_pb2.P4Data(enum_value=member.value)
            raise CodecError(f"{value!r} is not a member of enum {spec.serializable_enum.name}")
        return p4data_pb2.P4Data(enum_value=codec.encode_value(value, enum.underlying_type.bitwidth))
    if kind == "enum":
        return p4data_pb2.P4Data(enum=str(value))
    if kind == "error":
        return p4data_pb2.P4Data(error=str(value))
    raise CodecError(f"P4 type {kind!r} is not supported by p4rt; pass a p4.v1.P4Data message")


def _check_keys(value: Any, names: list[str], what: str) -> None:
    if not isinstance(value, dict) or set(value) != set(names):
        raise CodecError(f"{what} needs a dict with keys {names}, got {value!r}")


def decode_data(data: p4data_pb2.P4Data, spec: p4types_pb2.P4DataTypeSpec, schema: P4Schema) -> Any:
    """Decode P4Data into a Python value following a P4Info type spec."""
    kind = data.WhichOneof("data")
    info = schema.type_info()
    spec_kind = spec.WhichOneof("type_spec")
    if kind == "bitstring":
        if spec_kind == "bitstring" and spec.bitstring.HasField("int"):
            return codec.decode_int(data.bitstring, spec.bitstring.int.bitwidth)
        if spec_kind == "bitstring" and spec.bitstring.HasField("bit"):
            return codec.decode_uint(data.bitstring, spec.bitstring.bit.bitwidth)
        return int.from_bytes(data.bitstring, "big")
    if kind == "varbit":
        return int.from_bytes(data.varbit.bitstring, "big")
    if kind == "bool":
        return data.bool
    if kind == "tuple":
        specs = list(spec.tuple.members) if spec_kind == "tuple" else []
        return [decode_data(m, specs[i] if i < len(specs) else p4types_pb2.P4DataTypeSpec(), schema)
                for i, m in enumerate(data.tuple.members)]
    if kind == "struct":
        if spec_kind != "struct" or spec.struct.name not in info.structs:
            return [decode_data(m, p4types_pb2.P4DataTypeSpec(), schema) for m in data.struct.members]
        members = info.structs[spec.struct.name].members
        if len(members) != len(data.struct.members):
            raise CodecError(f"struct {spec.struct.name} has {len(members)} members, got {len(data.struct.members)}")
        return {m.name: decode_data(d, m.type_spec, schema) for m, d in zip(members, data.struct.members)}
    if kind == "header":
        if not data.header.is_valid:
            return None
        if spec_kind != "header" or spec.header.name not in info.headers:
            return [int.from_bytes(b, "big") for b in data.header.bitstrings]
        members = info.headers[spec.header.name].members
        return {m.name: codec.decode_uint(b, m.type_spec.bit.bitwidth) for m, b in zip(members, data.header.bitstrings)}
    if kind == "enum":
        return data.enum
    if kind == "error":
        return data.error
    if kind == "enum_value":
        return int.from_bytes(data.enum_value, "big")
    return data
