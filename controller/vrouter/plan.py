"""Reconciliation: compare desired entities with what a switch holds and plan the writes.

Entities are compared in a canonical form (names, integers), so a plan is a
pure function of (desired, actual) and unit tests need no switch. Writes go in a safe
order: resources before their users on the way in (meters, groups, members, then next
hops, then routes), users before resources on the way out.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from p4.v1 import p4runtime_pb2
from p4rt import (ActionProfileGroup, ActionProfileMember, CloneSessionEntry, DigestEntry, Entity, MeterConfig,
                  MeterEntry, MulticastGroupEntry, P4Schema, TableEntry, Update, codec, decode_entity,
                  table_entry_key)
from p4rt.plans import uint_bytes

from . import names as N
from .config import Network, Route, SwitchConfig
from .desired import Desired, Pw, Runtime, learned_station, resolved_neighbors, route_entries, station_entries

ACL_GAP = 1024              # priority step between consecutive ACL rules when numbering afresh
MAX_PRIORITY = (1 << 31) - 1
UNCONFIGURED = (-1, -1, -1, -1)

Key = tuple
Value = Any


@dataclass
class Item:
    """One entity in canonical form: identity `key`, compared `value`, and the entity to write."""

    key: Key
    value: Value
    entity: Any                 # a p4rt Entity, or a raw p4.v1.Entity read from the switch
    level: int                  # write order: 0 resources ... 3 users
    shown: Any = None           # what `describe` renders, if not `entity` (deletions carry only keys)


@dataclass
class Plan:
    """The writes that turn `actual` into `desired`, in a safe order."""

    inserts: list[Item] = field(default_factory=list)
    modifies: list[Item] = field(default_factory=list)
    deletes: list[Item] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.inserts) + len(self.modifies) + len(self.deletes)

    def updates(self, canon: Canon | None = None) -> list[list[Update]]:
        """Write phases: inserts/modifies by rising level, then deletes by falling level; with
        `canon`, table entries are encoded from their canonical form (Canon.filler).

        The last phase in and the first phase out share one Write when they are of the same level
        (entries of one level never use each other) and no entry leaves where another comes with
        the same match (an ACL rule moving to a new priority keeps make-before-break): routes
        that came and went cost one round trip, not two."""
        fill = canon.filler if canon is not None else (lambda item, key_only=False: None)
        ins: list[tuple[int, list[Update]]] = []
        for level in range(4):
            batch = [Update("INSERT", i.entity, fill(i)) for i in self.inserts if i.level == level]
            batch += [Update("MODIFY", i.entity, fill(i)) for i in self.modifies if i.level == level]
            if batch:
                ins.append((level, batch))
        outs: list[tuple[int, list[Update]]] = []
        for level in reversed(range(4)):
            batch = [Update("DELETE", i.entity, fill(i, True)) for i in self.deletes if i.level == level]
            if batch:
                outs.append((level, batch))
        if ins and outs and ins[-1][0] == outs[0][0] and not self._replaced(outs[0][0]):
            ins[-1][1].extend(outs.pop(0)[1])
        return [batch for _, batch in ins + outs]

    def _replaced(self, level: int) -> bool:
        """Whether an entry of `level` is deleted while one with the same match comes (or changes)."""
        coming = {i.key[:3] for i in (*self.inserts, *self.modifies) if i.level == level}
        return any(d.key[:3] in coming for d in self.deletes if d.level == level)

    def summary(self) -> str:
        """`3 inserts, 1 modify, 0 deletes`."""
        words = (("insert", "inserts"), ("modify", "modifies"), ("delete", "deletes"))
        counts = (len(self.inserts), len(self.modifies), len(self.deletes))
        return ", ".join(f"{n} {one if n == 1 else many}" for n, (one, many) in zip(counts, words))


class Canon:
    """Canonical keys and values of entities for one P4Info."""

    def __init__(self, schema: P4Schema) -> None:
        self.schema = schema
        self._tables: dict[str, Any] = {}
        self._table_ids: dict[int, Any] = {}
        self._actions: dict[int, Any] = {}
        self._field_specs: dict[int, dict] = {}
        self._action_specs: dict[tuple, Any] = {}
        self._action_ids: dict[str, int] = {}
        self._lpm_fields: dict[tuple[str, str], tuple[str, int]] = {}
        self._action_wire: dict[Value, bytes] = {}     # canonical action -> its p4.v1.TableAction, serialized

    def table(self, name_or_id: str | int):
        cache = self._tables if isinstance(name_or_id, str) else self._table_ids
        t = cache.get(name_or_id)
        if t is None:
            t = cache[name_or_id] = self.schema.tables.get(name_or_id)
        return t

    def _fields(self, table) -> dict[str, tuple[int, str, int]]:
        spec = self._field_specs.get(table.id)
        if spec is None:
            spec = self._field_specs[table.id] = {mf.name: (mf.id, mf.match_type, mf.bitwidth)
                                                  for mf in table.match_fields}
            for mf in table.match_fields:   # aliases (short names) as well
                spec.setdefault(mf.name.split(".")[-1], (mf.id, mf.match_type, mf.bitwidth))
        return spec

    def _action_spec(self, table, name: str) -> tuple[str, list[tuple[int, str, int]]]:
        key = (table.id if table is not None else 0, name)
        spec = self._action_specs.get(key)
        if spec is None:
            act = (table.actions if table is not None else self.schema.actions).get(name)
            spec = self._action_specs[key] = (act.name, [(p.id, p.name, p.bitwidth) for p in act.params])
            self._action_ids[act.name] = act.id
        return spec

    def _params(self, table, action) -> tuple:
        name, params = self._action_spec(table, action.name)
        given = action.params
        return (name, tuple((pid, codec.parse_value(given[pname], width)) for pid, pname, width in params))

    def match_key(self, table, match: dict) -> tuple:
        """Canonical match: sorted (field id, kind, int, int|None), wildcards left out."""
        spec = self._fields(table)
        parts = []
        for name, value in match.items():
            fid, kind, width = spec[name]
            if kind == "exact":
                parts.append((fid, kind, codec.parse_value(value, width), None))
            elif kind == "lpm":
                number, plen = codec.parse_prefix(value, width)
                if plen:
                    parts.append((fid, kind, number, plen))
            elif kind == "ternary":
                number, mask = codec.parse_ternary(value, width)
                if mask:
                    parts.append((fid, kind, number, mask))
            elif kind == "range":
                low, high = codec.parse_range(value, width)
                if (low, high) != (0, (1 << width) - 1):
                    parts.append((fid, kind, low, high))
            elif value is not None:
                parts.append((fid, kind, codec.parse_value(value, width), None))
        parts.sort()
        return tuple(parts)

    def lpm_key(self, table_name: str, field: str, prefix: ipaddress.IPv4Network, priority: int = 0) -> Key:
        """The key `item` gives an entry matching only `field` to `prefix`, without building the entry
        (a route withdrawn needs only its key; parsing its text back was most of the cost)."""
        found = self._lpm_fields.get((table_name, field))
        if found is None:
            table = self.table(table_name)
            found = self._lpm_fields[table_name, field] = (table.name, self._fields(table)[field][0])
        name, fid = found
        parts = ((fid, "lpm", int(prefix.network_address), prefix.prefixlen),) if prefix.prefixlen else ()
        return ("table", name, parts, priority)

    def route_item(self, e: TableEntry, prefix: ipaddress.IPv4Network, value: Value | None = None) -> Item:
        """`item` of a route's ipv4_route entry (route_entry), its key from the prefix's integers
        rather than parsed back from the entry's text (a third of planning a route); `value`, if
        given, is that of an entry with the same action."""
        if value is None:
            value = (("action", *self._params(self.table(e.table), e.action)), e.idle_timeout_ns)
        return Item(self.lpm_key(e.table, "ipv4_dst", prefix), value, e, 3)

    # desired side (p4rt entities) -------------------------------------------------------

    def item(self, e: Entity) -> Item:
        """The canonical item of a p4rt entity."""
        if isinstance(e, TableEntry):
            table = self.table(e.table)
            parts = self.match_key(table, e.match)
            if e.member_id is not None:
                value: Value = ("member", e.member_id)
            elif e.group_id is not None:
                value = ("group", e.group_id)
            else:
                value = ("action", *self._params(table, e.action))
            level = 2 if table.name == N.NEXTHOP else 3
            return Item(("table", table.name, parts, e.priority), (value, e.idle_timeout_ns), e, level)
        if isinstance(e, ActionProfileMember):
            return Item(("member", e.profile, e.member_id), self._params(None, e.action), e, 0)
        if isinstance(e, ActionProfileGroup):
            members = tuple(sorted((m[0], m[1]) if isinstance(m, tuple) else (m, 1) if isinstance(m, int)
                                   else (m.member_id, m.weight) for m in e.members))
            return Item(("group", e.profile, e.group_id), members, e, 1)
        if isinstance(e, MulticastGroupEntry):
            return Item(("mcast", e.group_id), _replicas(e.replicas), e, 0)
        if isinstance(e, CloneSessionEntry):
            return Item(("clone", e.session_id), (_replicas(e.replicas), e.class_of_service, e.packet_length_bytes),
                        e, 0)
        if isinstance(e, MeterEntry):
            c = e.config
            value = UNCONFIGURED if c is None else (c.cir, c.cburst, c.pir, c.pburst)
            return Item(("meter", e.meter, e.index), value, e, 0)
        if isinstance(e, DigestEntry):
            return Item(("digest", e.digest), (e.max_list_size, e.max_timeout_ns, e.ack_timeout_ns), e, 0)
        raise TypeError(f"no canonical form for {e!r}")

    # writing from the canonical form ------------------------------------------------------

    def filler(self, item: Item, key_only: bool = False) -> Callable[[p4runtime_pb2.Entity], None] | None:
        """An encoder of a table entry's item from its canonical integers (p4rt Update.fill), or
        None where the entity carries more than the canonical form holds. Encoding the entity
        instead parses its text values (prefixes, MACs) a second time: half an update's cost."""
        e = item.entity
        if type(e) is not TableEntry or item.key[0] != "table":  # noqa: E721 - read-back messages encode themselves
            return None
        if not key_only and (e.is_default or e.one_shot is not None or e.metadata or e.counter_data is not None
                             or e.meter_config is not None or e.meter_counter_data is not None):
            return None
        return partial(self._fill, item.key, None if key_only else item.value)

    def _fill(self, key: Key, value: Value | None, msg: p4runtime_pb2.Entity) -> None:
        """The p4.v1.TableEntry of (key, value), or of the key alone: the bytes p4rt gives the entity
        (shortest big-endian values, fields by id, wildcards left out as match_key leaves them)."""
        _, name, parts, priority = key
        te = msg.table_entry
        te.table_id = self.table(name).id
        add = te.match.add
        for fid, kind, a, b in parts:
            fm = add()
            fm.field_id = fid
            if kind == "lpm":
                fm.lpm.value, fm.lpm.prefix_len = uint_bytes(a), b
            elif kind == "exact":
                fm.exact.value = uint_bytes(a)
            elif kind == "ternary":
                fm.ternary.value, fm.ternary.mask = uint_bytes(a), uint_bytes(b)
            elif kind == "range":
                fm.range.low, fm.range.high = uint_bytes(a), uint_bytes(b)
            else:
                fm.optional.value = uint_bytes(a)
        if priority:
            te.priority = priority
        if value is None:
            return
        what, idle = value
        data = self._action_wire.get(what)
        if data is None:        # many entries share an action (routes through one hop): build it once
            ta = p4runtime_pb2.TableAction()
            if what[0] == "action":
                ta.action.action_id = self._action_ids[what[1]]
                param = ta.action.params.add
                for pid, number in what[2]:
                    p = param()
                    p.param_id, p.value = pid, uint_bytes(number)
            elif what[0] == "member":
                ta.action_profile_member_id = what[1]
            else:
                ta.action_profile_group_id = what[1]
            if len(self._action_wire) >= 4096:      # bounded: next-hop entries carry one MAC each
                self._action_wire.clear()
            data = self._action_wire[what] = ta.SerializeToString()
        te.action.MergeFromString(data)     # one call into protobuf instead of one per field
        if idle:
            te.idle_timeout_ns = idle

    # actual side (raw p4.v1.Entity from a read) ------------------------------------------

    def item_pb(self, msg: p4runtime_pb2.Entity) -> Item | None:
        """The canonical item of an entity read from the switch (None for ones we never manage)."""
        kind = msg.WhichOneof("entity")
        if kind == "table_entry":
            te = msg.table_entry
            if te.is_default_action or te.is_const or self.schema.tables.get(te.table_id).is_const:
                return None
            item = self.item(TableEntry.decode(te, self.schema))
            item.entity = msg
            return item
        if kind == "action_profile_member":
            m = msg.action_profile_member
            profile = self.schema.action_profiles.get(m.action_profile_id).name
            act = self.schema.actions.get(m.action.action_id)
            params = tuple(sorted((p.param_id, _int(p.value)) for p in m.action.params))
            return Item(("member", profile, m.member_id), (act.name, params), msg, 0)
        if kind == "action_profile_group":
            g = msg.action_profile_group
            profile = self.schema.action_profiles.get(g.action_profile_id).name
            members = tuple(sorted((m.member_id, m.weight or 1) for m in g.members))
            return Item(("group", profile, g.group_id), members, msg, 1)
        if kind == "packet_replication_engine_entry":
            pre = msg.packet_replication_engine_entry
            if pre.HasField("multicast_group_entry"):
                mg = pre.multicast_group_entry
                reps = tuple(sorted((_port(r), r.instance) for r in mg.replicas))
                return Item(("mcast", mg.multicast_group_id), reps, msg, 0)
            cs = pre.clone_session_entry
            reps = tuple(sorted((_port(r), r.instance) for r in cs.replicas))
            return Item(("clone", cs.session_id), (reps, cs.class_of_service, cs.packet_length_bytes), msg, 0)
        if kind == "meter_entry":
            me = msg.meter_entry
            name = self.schema.meters.get(me.meter_id).name
            c = me.config
            value = UNCONFIGURED if not me.HasField("config") or c.cir < 0 else (c.cir, c.cburst, c.pir, c.pburst)
            return Item(("meter", name, me.index.index), value, msg, 0)
        if kind == "digest_entry":
            d = msg.digest_entry
            if not d.HasField("config"):
                return None
            name = self.schema.digests.get(d.digest_id).name
            c = d.config
            return Item(("digest", name), (c.max_list_size, c.max_timeout_ns, c.ack_timeout_ns), msg, 0)
        return None

    def describe(self, item: Item) -> str:
        """One readable line for an item (used by `vrouter diff`)."""
        e = item.shown if item.shown is not None else item.entity
        if isinstance(e, p4runtime_pb2.Entity):
            e = decode_entity(e, self.schema)
        return describe_entity(e)


def _int(data: bytes) -> int:
    return int.from_bytes(data, "big")


def _port(r) -> int:
    return int.from_bytes(r.port, "big") if r.WhichOneof("port_kind") == "port" else r.egress_port


def _replicas(items) -> tuple:
    out = []
    for r in items:
        if isinstance(r, int):
            out.append((r, 0))
        elif isinstance(r, tuple):
            out.append(r)
        else:
            out.append((r.port, r.instance))
    return tuple(sorted(out))


def _short(name: str) -> str:
    return name.split(".")[-1]


_IPV4_FIELDS = {"ipv4_src", "ipv4_dst", "ipv4_addr"}
_MAC_FIELDS = {"src_mac", "dst_mac"}
_RANGE_FIELDS = {"l4_src_port", "l4_dst_port"}


def _num(value: Any, width: int) -> int:
    return codec.parse_value(value, width)


def format_field(name: str, value: Any) -> str:
    """A match value as an operator writes it: 10.0.0.0/24, aa:bb:.., 80-443, 6."""
    try:
        if name in _IPV4_FIELDS:
            if isinstance(value, str):
                return value
            number, mask = (value if isinstance(value, tuple) else (value, 0xFFFFFFFF))
            number, mask = _num(number, 32), _num(mask, 32)
            plen = bin(mask).count("1")
            text = ".".join(str(b) for b in number.to_bytes(4, "big"))
            return text if plen == 32 else f"{text}/{plen}" if mask == (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF \
                else f"{text}&&&{mask:#x}"
        if name in _MAC_FIELDS or name == "mac":
            v = value.split("&&&")[0] if isinstance(value, str) else value[0] if isinstance(value, tuple) else value
            return v if isinstance(v, str) else ":".join(f"{b:02x}" for b in _num(v, 48).to_bytes(6, "big"))
        if name in _RANGE_FIELDS and isinstance(value, tuple):
            low, high = value
            return str(low) if low == high else f"{low}-{high}"
        if isinstance(value, tuple):
            v, mask = value
            if name == "tcp_flags":
                return f"{v:#04x}&&&{mask:#04x}"
            return str(v) if mask in (0xFF, 0xFFF, 0x1FF, 0xFFFF, 0x3F) else f"{v}&&&{mask:#x}"
    except Exception:  # display only: never fail on an odd value
        pass
    return str(value)


def describe_entity(e: Entity) -> str:
    """A one-line rendering of a p4rt entity."""
    if isinstance(e, TableEntry):
        match = " ".join(f"{k}={format_field(k, v)}" for k, v in e.match.items()) or "*"
        prio = f" prio={e.priority}" if e.priority else ""
        if e.member_id is not None:
            act = f"member {e.member_id}"
        elif e.group_id is not None:
            act = f"group {e.group_id}"
        elif e.action is not None:
            a = e.action
            act = f"{_short(a.name)}({', '.join(f'{k}={v}' for k, v in a.params.items())})"
        else:
            act = "?"
        aging = " aging" if e.idle_timeout_ns else ""
        return f"{_short(e.table)} {match}{prio} -> {act}{aging}"
    if isinstance(e, ActionProfileMember):
        a = e.action
        return f"member {e.member_id} -> {_short(a.name)}({', '.join(f'{k}={v}' for k, v in a.params.items())})"
    if isinstance(e, ActionProfileGroup):
        return f"group {e.group_id} -> members {[m if isinstance(m, int) else m[0] if isinstance(m, tuple) else m.member_id for m in e.members]}"
    if isinstance(e, MulticastGroupEntry):
        return f"multicast group {e.group_id} -> ports {[r.port if not isinstance(r, int) else r for r in e.replicas]}"
    if isinstance(e, CloneSessionEntry):
        return f"clone session {e.session_id} -> ports {[r.port if not isinstance(r, int) else r for r in e.replicas]}"
    if isinstance(e, MeterEntry):
        c = e.config
        if c is None or c.cir < 0:
            return f"meter {_short(e.meter)}[{e.index}] unconfigured"
        return f"meter {_short(e.meter)}[{e.index}] cir={c.cir}B/s cburst={c.cburst}B pir={c.pir}B/s pburst={c.pburst}B"
    if isinstance(e, DigestEntry):
        return f"digest {e.digest} max_list_size={e.max_list_size} max_timeout_ns={e.max_timeout_ns}"
    return repr(e)


# --- ACL priorities ----------------------------------------------------------------------


def assign_priorities(idents: list[Any], current: dict[Any, list[int]], gap: int = ACL_GAP) -> list[int]:
    """Priorities for rules in list order (first = highest) that keep as many current ones as possible.

    `current` maps a rule identity (match + action) to the priorities it has on the switch.
    The longest run of rules whose current priorities already fall in list order keeps them;
    the others go into the gaps between. Only when a gap is too small is the list renumbered.
    """
    n = len(idents)
    pools = {k: sorted(v, reverse=True) for k, v in current.items()}
    cur: list[int | None] = []
    for ident in idents:
        pool = pools.get(ident)
        cur.append(pool.pop(0) if pool else None)
    keep = _longest_decreasing(cur)
    prios: list[int | None] = [cur[i] if i in keep else None for i in range(n)]
    i = 0
    while i < n:
        if prios[i] is not None:
            i += 1
            continue
        j = i
        while j < n and prios[j] is None:
            j += 1
        count = j - i
        lo = prios[j] if j < n else 0
        hi = prios[i - 1] if i > 0 else lo + (count + 1) * gap
        if hi - lo - 1 < count or hi > MAX_PRIORITY:
            return [(n - k) * gap for k in range(n)]  # no room: number afresh
        step = (hi - lo) / (count + 1)
        for k in range(count):
            prios[i + k] = int(hi - step * (k + 1))
        i = j
    return [p for p in prios]  # type: ignore[misc]


def _longest_decreasing(values: list[int | None]) -> set[int]:
    """Indexes of a longest strictly decreasing subsequence of the non-None values (O(n log n))."""
    import bisect
    tails: list[int] = []      # tails[k] = -value of the smallest-tail subsequence of length k+1
    tail_idx: list[int] = []
    prev: dict[int, int] = {}
    for i, v in enumerate(values):
        if v is None:
            continue
        pos = bisect.bisect_left(tails, -v)
        if pos == len(tails):
            tails.append(-v)
            tail_idx.append(i)
        else:
            tails[pos] = -v
            tail_idx[pos] = i
        prev[i] = tail_idx[pos - 1] if pos else -1
    out: set[int] = set()
    k = tail_idx[-1] if tail_idx else -1
    while k != -1:
        out.add(k)
        k = prev[k]
    return out


# --- the diff ----------------------------------------------------------------------------


def plan(canon: Canon, desired: Desired, actual: Iterable[Item]) -> Plan:
    """The writes that make a switch holding `actual` match `desired`."""
    have: dict[Key, Item] = {}
    for item in actual:
        have[item.key] = item
    want: dict[Key, Item] = {}
    for e in desired.entities:
        item = canon.item(e)
        want[item.key] = item
    # ACL: rules keep their current priorities where the order allows.
    acl_items = []
    for e in desired.acl:
        item = canon.item(e)
        acl_items.append(item)
    current: dict[Any, list[int]] = {}
    for key, item in have.items():
        if key[0] == "table" and key[1] == N.ACL:
            current.setdefault((key[2], item.value), []).append(key[3])
    prios = assign_priorities([(i.key[2], i.value) for i in acl_items], current)
    for item, prio in zip(acl_items, prios):
        item.entity = TableEntry(item.entity.table, item.entity.match, item.entity.action, priority=prio)
        item.key = (*item.key[:3], prio)
        want[item.key] = item
    out = Plan()
    for key, item in want.items():
        old = have.get(key)
        if key[0] == "meter":
            if old is None or old.value != item.value:
                out.modifies.append(item)
        elif old is None:
            out.inserts.append(item)
        elif old.value != item.value:
            out.modifies.append(item)
    for key, old in have.items():
        if key in want:
            continue
        if key[0] == "meter":
            if old.value != UNCONFIGURED:
                out.modifies.append(Item(key, UNCONFIGURED, MeterEntry(key[1], key[2], MeterConfig(-1, -1, -1, -1)), 0))
        else:
            out.deletes.append(_deletion(old))
    return out


def plan_scope(canon: Canon, entities: Iterable[Entity], actual: dict[Key, Item], scope: Iterable[Key]) -> Plan:
    """The writes that make the keys in `scope` (and those of `entities`) hold exactly `entities`.

    For run-time changes that touch a few known entries (a learned, moved or aged station):
    nothing outside the scope is compared, so the cost does not grow with the switch's tables.
    """
    return _scope_plan({item.key: item for item in map(canon.item, entities)}, actual, scope)


def _scope_plan(want: dict[Key, Item], actual: dict[Key, Item], scope: Iterable[Key]) -> Plan:
    out = Plan()
    for key, item in want.items():
        old = actual.get(key)
        if old is None:
            out.inserts.append(item)
        elif old.value != item.value:
            out.modifies.append(item)
    for key in dict.fromkeys(scope):
        old = actual.get(key)
        if key not in want and old is not None:
            out.deletes.append(_deletion(old))
    return out


def plan_stations(canon: Canon, net: Network, sw: SwitchConfig, macs: dict[tuple[int, str], int | Pw],
                  actual: dict[Key, Item], touched: dict[tuple[int, str], int | Pw | None]) -> Plan:
    """The writes for learned stations that appeared, moved or aged out, and nothing else.

    `macs` is the run-time station table after the change ((VLAN, MAC) -> port, or Pw behind a
    pseudowire); `touched` maps each changed station to where it was before the change (None if new).
    """
    want: list[Entity] = []
    scope: list[Key] = []
    for (vlan, mac), old in touched.items():
        port = macs.get((vlan, mac))
        if port is not None:
            want += learned_station(net, sw, vlan, mac, port)
        for p in {old, port} - {None}:
            scope += [canon.item(e).key for e in station_entries(vlan, mac, p)]
    return plan_scope(canon, want, actual, scope)


def plan_routes(canon: Canon, sw: SwitchConfig, rt: Runtime, actual: dict[Key, Item],
                added: Iterable[Route], removed: Iterable[Route]) -> Plan:
    """The writes for single-next-hop and black-hole routes that came and went, and nothing else
    (ECMP routes number their groups by their order in the description: those need `plan`).
    A prefix a resolved neighbour's host route holds is left to the neighbour, as in desired_state."""
    resolved = resolved_neighbors(sw, rt)
    hosts = {ipaddress.IPv4Network(ip) for ip in resolved}
    want = []
    values: dict[int, Value] = {}      # canonical value per shared Action (route_entries)
    for r, e in route_entries((r for r in added if r.prefix not in hosts), resolved):
        item = canon.route_item(e, r.prefix, values.get(id(e.action)))
        values[id(e.action)] = item.value
        want.append(item)
    scope = [canon.lpm_key(N.IPV4_ROUTE, "ipv4_dst", r.prefix) for r in removed if r.prefix not in hosts]
    return _scope_plan({item.key: item for item in want}, actual, scope)


def _deletion(item: Item) -> Item:
    """A DELETE needs only the key: strip read-back data (counters, action) from table entries."""
    msg = item.entity
    if isinstance(msg, TableEntry):
        return Item(item.key, item.value, TableEntry(msg.table, msg.match, priority=msg.priority), item.level,
                    shown=msg)
    if isinstance(msg, p4runtime_pb2.Entity) and msg.WhichOneof("entity") == "table_entry":
        return Item(item.key, item.value, table_entry_key(msg), item.level, shown=msg)
    return item
