"""One CLI session on one switch: the p4rt connection and the handles the commands use.

P4Runtime has no handles, so the session keeps them: every table entry, action profile
member and group, and multicast node gets the number BMv2 would have printed. What the
switch already holds when the session starts is adopted first, in the order the switch
reads it back (entries get handles 0, 1, ... per table; members and groups keep their
P4Runtime ids as handles; each multicast group's replicas become one node per rid).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from p4rt import (
    ActionProfileGroup,
    ActionProfileMember,
    EntityError,
    MulticastGroupEntry,
    P4RuntimeError,
    SchemaError,
    Switch,
    TableEntry,
)

from .handles import Handles
from .values import CliError


@dataclass
class Node:
    """A multicast node of BMv2's packet replication engine: one rid, a set of ports."""

    rid: int
    ports: list[int]
    groups: set[int] = field(default_factory=set)


class Session:
    """The switch, its P4Info schema and the handle tables; `out` prints a result line."""

    def __init__(self, sw: Switch, out=print, err=None) -> None:
        self.sw = sw
        self.schema = sw.schema
        self.out = out
        self.err = err or (lambda text: print(text, file=sys.stderr))
        self.entries: dict[str, Handles[TableEntry]] = {t.name: Handles(versioned=True)
                                                        for t in self.schema.tables}
        self.members: dict[str, dict[int, ActionProfileMember]] = {p.name: {}
                                                                   for p in self.schema.action_profiles}
        self.groups: dict[str, dict[int, ActionProfileGroup]] = {p.name: {}
                                                                 for p in self.schema.action_profiles}
        self.nodes: Handles[Node] = Handles()
        self.mc_groups: dict[int, list[int]] = {}  # group id -> node handles, in order
        self.adopt()

    # --- what the switch already holds ------------------------------------------------
    def adopt(self) -> None:
        for e in self.read(TableEntry(), "read the switch's table entries"):
            if isinstance(e, TableEntry) and e.table and not e.is_default and not e.is_const:
                self.entries[e.table].add(e)
        for e in self.read_if_supported(ActionProfileMember()):
            self.members[e.profile][e.member_id] = e
        for e in self.read_if_supported(ActionProfileGroup()):
            self.groups[e.profile][e.group_id] = e
        for g in self.read_if_supported(MulticastGroupEntry()):
            handles = []
            for r in g.replicas:
                node = next((self.nodes.get(h) for h in handles if self.nodes.get(h).rid == r.instance), None)
                if node is None:
                    node = Node(r.instance, [], {g.group_id})
                    handles.append(self.nodes.add(node))
                node.ports.append(r.port)
            self.mc_groups[g.group_id] = handles

    # --- p4rt calls with the CLI's errors ----------------------------------------------
    def read(self, entity, what: str) -> list:
        try:
            return list(self.sw.read(entity))
        except P4RuntimeError as exc:
            raise CliError(f"{what}: {exc}") from None
        except (EntityError, SchemaError) as exc:
            raise CliError(str(exc)) from None

    def read_if_supported(self, entity) -> list:
        """A read where "none" is an answer: a switch that cannot read this kind
        (UNIMPLEMENTED) has none, and so has one that answers NOT_FOUND for one object."""
        try:
            return list(self.sw.read(entity))
        except P4RuntimeError as exc:
            if exc.code is not None and exc.code.name in ("UNIMPLEMENTED", "NOT_FOUND"):
                return []
            raise CliError(f"read {entity.describe()}: {exc}") from None

    def write(self, kind: str, entities) -> None:
        """INSERT / MODIFY / DELETE; the switch's refusal becomes a CliError with its message."""
        try:
            {"INSERT": self.sw.insert, "MODIFY": self.sw.modify, "DELETE": self.sw.delete}[kind](entities)
        except P4RuntimeError as exc:
            raise CliError(_switch_message(exc)) from None
        except (EntityError, SchemaError) as exc:
            raise CliError(str(exc)) from None

    # --- names ------------------------------------------------------------------------
    def table(self, name: str):
        try:
            return self.schema.tables.get(name)
        except SchemaError as exc:
            raise CliError(f"Invalid table name ({name}): {exc}") from None

    def profile(self, name: str):
        try:
            return self.schema.action_profiles.get(name)
        except SchemaError as exc:
            raise CliError(f"Invalid action profile name ({name}): {exc}") from None

    def extern(self, kind: str, name: str):
        """A counter, meter or register (indexed or direct) by name: (object, is_direct)."""
        direct = {"counter": self.schema.direct_counters, "meter": self.schema.direct_meters}.get(kind)
        indexed = {"counter": self.schema.counters, "meter": self.schema.meters,
                   "register": self.schema.registers}[kind]
        try:
            return indexed.get(name), False
        except SchemaError as exc:
            if direct is not None:
                try:
                    return direct.get(name), True
                except SchemaError:
                    pass
            raise CliError(f"Invalid {kind} name ({name}): {exc}") from None

    def entry(self, table, handle_text: str) -> tuple[int, TableEntry]:
        handle = parse_handle(handle_text, "entry handle")
        e = self.entries[table.name].get(handle)
        if e is None:
            raise CliError(f"Invalid table operation (INVALID_HANDLE): table {table.name} has no "
                           f"entry with handle {handle}")
        return handle, e


def need_args(args: list[str], n: int, at_least: bool = False) -> None:
    """simple_switch_CLI's argument-count errors."""
    if len(args) < n:
        raise CliError("Insufficient number of args")
    if not at_least and len(args) != n:
        raise CliError(f"Wrong number of args, expected {n} but got {len(args)}")


def parse_handle(text: str, what: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise CliError(f"Bad format for {what}") from None
    if value < 0:
        raise CliError(f"Bad format for {what}")
    return value


def parse_int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise CliError(f"Bad format for {what}, expected integer") from None


def _switch_message(exc: P4RuntimeError) -> str:
    """The switch's own words: for a failed Write, each different code and message of the
    failed updates once (with how many updates it was, for a many-cell write)."""
    errors = getattr(exc, "errors", None)
    if not errors:
        return str(exc)
    seen: dict[str, int] = {}
    for e in errors:
        text = f"{e.code}: {e.message}"
        seen[text] = seen.get(text, 0) + 1
    return "; ".join(t if n == 1 else f"{t} ({n} updates)" for t, n in seen.items())
