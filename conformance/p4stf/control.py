"""The STF control commands carried out over P4Runtime through the project's `p4rt` library.

This module only translates STF commands into p4rt entities: name lookups go through
p4rt's P4Schema (plus the spellings p4c's STF files use), values through p4rt's codecs,
and arbitration, pipeline push, writes, reads and digests through p4rt.Switch.
"""
from __future__ import annotations

import re
import threading
import time

from p4rt import (
    Action,
    CounterData,
    ActionProfileGroup,
    ActionProfileMember,
    CloneSessionEntry,
    CodecError,
    CounterEntry,
    DigestEntry,
    DirectCounterEntry,
    DirectMeterEntry,
    EntityError,
    MeterConfig,
    MeterEntry,
    MulticastGroupEntry,
    P4RuntimeError,
    RegisterEntry,
    Replica,
    SchemaError,
    Switch,
    TableEntry,
    ValueSetEntry,
    load_p4info,
)
from p4rt.schema import type_map

from . import stf

_BAD_INPUT = (SchemaError, EntityError, CodecError)


class ControlError(RuntimeError):
    """A control command the switch refused or that names nothing in the P4Info."""


def lookup(directory, name: str):
    """An object of a p4rt Directory by full name, alias or unique dotted suffix.

    p4c's own runner also accepts a plain (undotted) unique suffix; that is the last resort.
    """
    try:
        return directory.get(name)
    except SchemaError as exc:
        hits = [o for o in directory if o.name.endswith(name)]
        if len(hits) == 1:
            return hits[0]
        raise ControlError(str(exc)) from None


def _key_spellings(name: str) -> list[str]:
    """The ways p4c's STF files and P4Infos spell one key field.

    BMv2-style `hdr.h$0.f` is `hdr.h[0].f`; a validity key is `hdr.h.isValid()` in P4
    source, `hdr.h.$valid$` in p4c's P4Info, `hdr.h.valid` in old STF files; p4c's
    runner also tries a trailing `$`."""
    alt = re.sub(r"\$(\d+)", r"[\1]", name)
    out = [name, alt, alt + "$"]
    for tail in (".isValid()", ".$valid$", ".valid"):
        if alt.endswith(tail):
            base = alt[: -len(tail)]
            out += [base + ".isValid()", base + ".$valid$"]
    return list(dict.fromkeys(out))


def lookup_key(table, name: str):
    """A table's match field by name, unique suffix, or one of p4c's spellings of it."""
    fields = table.match_fields
    for cand in _key_spellings(name):
        try:
            return fields.get(cand)
        except SchemaError:
            pass
    # A bare `valid`: the table's one validity key, as p4c's runner takes it.
    if name in ("valid", "isValid()", "$valid$"):
        hits = [f for f in fields if f.name.endswith((".isValid()", ".$valid$"))]
        if len(hits) == 1:
            return hits[0]
    have = ", ".join(fields.names())
    raise ControlError(f"table {table.name} has no key field '{name}' (keys: {have})")


def _failed(what: str, exc: P4RuntimeError) -> ControlError:
    """One line naming the command, the RPC, the status code and the switch's messages."""
    return ControlError(f"{what}: {exc}".replace("\n  ", " ").replace("\n", " "))


def action_of(table, call: stf.ActionCall) -> Action:
    """The p4rt Action for an STF action call on `table` (parameters by name or suffix)."""
    act = lookup(table.actions, call.name)
    given = dict(call.args)
    params = {}
    for p in act.params:
        hits = [k for k in given if k == p.name or p.name.endswith("." + k)]
        if not hits:
            raise ControlError(f"action {act.name}: missing parameter '{p.name}'")
        params[p.name] = given.pop(hits[0])
    if given:
        raise ControlError(f"action {act.name} has no parameter(s) "
                           f"{', '.join(given)} (has: {', '.join(act.params.names())})")
    return Action(act.name, params)

def _digits_mask(k: stf.KeyMatch, full: int) -> int:
    """The mask p4c's runner gives a ternary key written without one: the written digits
    (`0x0a` is `0x0a&&&0xff`, even on a wider field); a decimal value masks every bit."""
    if k.nibbles is None:
        return full
    return ((1 << (k.nibbles * k.bits_per_digit)) - 1) & full


def match_of(table, keys: list[stf.KeyMatch]) -> dict:
    """The p4rt match dict (by field id) of an STF key list, with p4c's defaults for keys
    left out: exact 0, other kinds a wildcard (p4rt leaves wildcards out)."""
    by_id = {}
    for k in keys:
        by_id[lookup_key(table, k.name).id] = k
    match = {}
    for mf in table.match_fields:
        k = by_id.get(mf.id)
        bw = mf.bitwidth
        full = (1 << bw) - 1
        what = f"{table.name} key {mf.name}"
        mt = mf.match_type
        if k is None:
            if mt == "exact":
                match[mf.id] = 0
            continue
        if mt == "exact":
            if k.kind != "value":
                raise ControlError(f"{what}: exact field given a {k.kind} value")
            match[mf.id] = k.value
        elif mt == "lpm":
            if k.kind == "lpm":
                plen = k.prefix
            elif k.kind == "value":
                # a bare value written with fewer digits is a prefix, as in p4c's runner
                plen = bw if k.nibbles is None else min(bw, k.nibbles * k.bits_per_digit)
            elif k.kind == "ternary" and k.nibbles is not None:
                # 0x0a****** : the prefix is the digits before the first '*' (p4c's runner
                # counts every non-'*' digit, which is the same for a well-formed prefix)
                plen = bin(k.mask).count("1")
            else:
                raise ControlError(f"{what}: lpm field given a {k.kind} value")
            if plen is None or plen > bw:
                raise ControlError(f"{what}: prefix length {plen} > {bw}")
            mask = full ^ ((1 << (bw - plen)) - 1)
            match[mf.id] = (k.value & mask, plen)
        elif mt == "ternary":
            if k.kind == "ternary":
                mask = k.mask & full
            elif k.kind == "value":
                mask = _digits_mask(k, full)
            else:
                raise ControlError(f"{what}: ternary field given a {k.kind} value")
            # a value too wide for the field is left whole for p4rt's width check
            match[mf.id] = (k.value & mask if k.value <= full else k.value, mask)
        elif mt == "range":
            if k.kind == "range":
                match[mf.id] = (k.value, k.high)
            elif k.kind == "value":
                match[mf.id] = (k.value, k.value)
            else:
                raise ControlError(f"{what}: range field given a {k.kind} value")
        elif mt == "optional":
            if k.kind == "ternary" and k.mask & full == 0:
                continue
            if k.kind not in ("value", "ternary") or (k.kind == "ternary" and k.mask & full != full):
                raise ControlError(f"{what}: optional field takes a value or a full wildcard")
            match[mf.id] = k.value
        else:
            raise ControlError(f"{what}: unsupported match type {mt}")
    return match


class Controller:
    """A primary P4Runtime client for one device (a p4rt.Switch) plus the STF command state."""

    def __init__(self, addr: str, device_id: int = 0, timeout: float = 10.0,
                 carry: "Controller | None" = None):
        self.addr = addr
        self.sw = Switch(addr, device_id=device_id, election_id=1, rpc_timeout=30.0)
        try:
            self.sw.connect(timeout=timeout)
        except P4RuntimeError as exc:
            raise ControlError(f"no usable P4Runtime server at {addr}: {exc}") from None
        if not self.sw.is_primary:
            arb = self.sw.arbitration
            self.sw.close()
            raise ControlError(f"not primary: {arb}")
        self._mc: dict[int, list[int]] = {}  # group -> node handles
        self._mc_written: set[int] = set()
        self._mc_flushed: dict[int, list[tuple[int, int]]] = {}
        self._nodes: dict[int, tuple[int, list[int]]] = {}  # handle -> (rid, ports)
        self._entries: dict[str, tuple[str, dict]] = {}  # `add ... = H`: H -> (table, match)
        self._auto_member = 1 << 24
        self._vsets: dict[str, list[dict]] = {}
        # Digests received, by digest id; shared with the Controller of the phase before
        # (files mode restarts the switch between phases) so counts run over the whole file.
        self.digests: dict[int, int] = carry.digests if carry else {}
        self.digest_data: dict[int, list[tuple[int, ...]]] = carry.digest_data if carry else {}
        self._digest_reader: threading.Thread | None = None

    @property
    def schema(self):
        return self.sw.schema

    def _collect_digests(self) -> None:
        """Count digest data items per digest id (p4rt acknowledges each list)."""
        try:
            for d in self.sw.digests():
                spec = self.schema.digest(d.digest_id).type_spec
                self.digests[d.digest_id] = self.digests.get(d.digest_id, 0) + len(d.data)
                self.digest_data.setdefault(d.digest_id, []).extend(
                    tuple(flatten(v, spec, self.schema)) for v in d.data)
        except (P4RuntimeError, SchemaError):
            pass  # the stream ended with the connection

    def close(self) -> None:
        self.sw.close()

    # --- pipeline -----------------------------------------------------------
    def set_pipeline(self, p4info_path: str, json_path: str) -> None:
        try:
            info = load_p4info(p4info_path)
        except SchemaError as exc:
            raise ControlError(str(exc)) from None
        try:
            self.sw.set_pipeline(info, json_path)
        except P4RuntimeError as exc:
            raise _failed("set pipeline", exc) from None

    def _write(self, what: str, kind: str, entity) -> None:
        """One Write (an entity or a list of them); errors name `what`."""
        try:
            if kind == "INSERT":
                self.sw.insert(entity)
            elif kind == "DELETE":
                self.sw.delete(entity)
            else:
                self.sw.modify(entity)
        except P4RuntimeError as exc:
            raise _failed(what, exc) from None
        except _BAD_INPUT as exc:
            raise ControlError(f"{what}: {exc}") from None

    def _read(self, what: str, entity) -> list:
        try:
            return list(self.sw.read(entity))
        except P4RuntimeError as exc:
            raise _failed(what, exc) from None
        except _BAD_INPUT as exc:
            raise ControlError(f"{what}: {exc}") from None

    # --- tables -------------------------------------------------------------
    def add(self, cmd: stf.Add, auto_priority: int) -> None:
        assert self.schema is not None
        table = lookup(self.schema.tables, cmd.table)
        entry = TableEntry(table.name, match_of(table, cmd.keys))
        if table.needs_priority:
            # STF priorities start at 0 (p4c's own files use 0), P4Runtime's at 1;
            # shifting by one keeps their order (larger wins in both).
            entry.priority = cmd.priority + 1 if cmd.priority is not None else auto_priority
        elif cmd.priority is not None:
            raise ControlError(f"table {table.name} has no ternary/range/optional "
                               f"key, so it takes no priority")
        self._table_action(table, cmd.action, entry)
        self._write(f"add {cmd.table} (stf line {cmd.line})", "INSERT", entry)
        if cmd.handle:
            self._entries[cmd.handle] = (table.name, entry.match, entry.priority)

    def _table_action(self, table, call: stf.ActionCall, entry: TableEntry) -> None:
        if table.implementation_id:
            prof = self.schema.action_profile(table.implementation_id)
            if call.name in ("member", "group") and len(call.args) == 1 and not call.args[0][0]:
                if call.name == "member":
                    entry.member_id = call.args[0][1]
                else:
                    entry.group_id = call.args[0][1]
                return
            # A plain action on a profile table: make a member for it.
            self._auto_member += 1
            self._member(prof, table, self._auto_member, call)
            entry.member_id = self._auto_member
            return
        entry.action = action_of(table, call)

    def set_default(self, cmd: stf.SetDefault) -> None:
        assert self.schema is not None
        table = lookup(self.schema.tables, cmd.table)
        entry = TableEntry(table.name, action=action_of(table, cmd.action), is_default=True)
        self._write(f"setdefault {cmd.table} (stf line {cmd.line})", "MODIFY", entry)

    # --- action profiles ------------------------------------------------------
    def _member(self, prof, table, member_id: int, call: stf.ActionCall) -> None:
        member = ActionProfileMember(prof.name, member_id, action_of(table, call))
        self._write(f"member {member_id} of {prof.name}", "INSERT", member)

    def _profile_table(self, prof):
        for tid in prof.table_ids:
            return self.schema.table(tid)
        raise ControlError(f"action profile {prof.name} is used by no table")

    def member_add(self, cmd: stf.MemberAdd) -> None:
        prof = lookup(self.schema.action_profiles, cmd.profile)
        self._member(prof, self._profile_table(prof), cmd.member, cmd.action)

    def group_add(self, cmd: stf.GroupAdd) -> None:
        prof = lookup(self.schema.action_profiles, cmd.profile)
        group = ActionProfileGroup(prof.name, cmd.group, [(mid, 1) for mid in cmd.members],
                                   max_size=max(len(cmd.members), 1))
        self._write(f"group_add {cmd.group} (stf line {cmd.line})", "INSERT", group)

    # --- packet replication -----------------------------------------------------
    # simple_switch_CLI builds a group from nodes (a rid and ports each); P4Runtime writes
    # the whole group. Groups are written when packets are about to flow (flush).
    def mc_group_create(self, cmd: stf.McGroupCreate) -> None:
        self._mc.setdefault(cmd.group, [])

    def mc_node_create(self, cmd: stf.McNodeCreate) -> None:
        self._nodes[cmd.handle] = (cmd.rid, cmd.ports)

    def mc_node_update(self, cmd: stf.McNodeUpdate) -> None:
        if cmd.handle not in self._nodes:
            raise ControlError(f"stf line {cmd.line}: no node with handle {cmd.handle}")
        self._nodes[cmd.handle] = (self._nodes[cmd.handle][0], cmd.ports)

    def mc_node_associate(self, cmd: stf.McNodeAssociate) -> None:
        if cmd.group not in self._mc:
            raise ControlError(f"stf line {cmd.line}: multicast group {cmd.group} not created")
        if cmd.handle not in self._nodes:
            raise ControlError(f"stf line {cmd.line}: no node with handle {cmd.handle}")
        self._mc[cmd.group].append(cmd.handle)

    def _replicas(self, group: int) -> list[tuple[int, int]]:
        return [(port, self._nodes[h][0]) for h in self._mc.get(group, []) for port in self._nodes[h][1]]

    def flush_multicast(self) -> None:
        """Write the multicast groups built by mc_* commands (insert, then modify)."""
        for grp in self._mc:
            reps = self._replicas(grp)
            if self._mc_flushed.get(grp) == reps:
                continue
            self._mc_flushed[grp] = reps
            entry = MulticastGroupEntry(grp, [Replica(port, rid) for port, rid in reps])
            self._write(f"multicast group {grp}",
                        "MODIFY" if grp in self._mc_written else "INSERT", entry)
            self._mc_written.add(grp)

    def mirroring_add(self, cmd: stf.MirroringAdd) -> None:
        if cmd.port is not None:
            replicas = [Replica(cmd.port, 0)]
        else:
            replicas = [Replica(port, rid) for port, rid in self._replicas(cmd.group)]
        self._write(f"mirroring_add {cmd.session} (stf line {cmd.line})", "INSERT",
                    CloneSessionEntry(cmd.session, replicas))

    def mirroring_delete(self, cmd: stf.MirroringDelete) -> None:
        self._write(f"mirroring_delete {cmd.session} (stf line {cmd.line})", "DELETE",
                    CloneSessionEntry(cmd.session))

    def mirroring_get(self, cmd: stf.MirroringGet) -> CloneSessionEntry:
        got = [e for e in self._read(f"mirroring_get {cmd.session}", CloneSessionEntry(cmd.session))
               if isinstance(e, CloneSessionEntry) and e.session_id == cmd.session]
        if not got:
            raise ControlError(f"mirroring_get {cmd.session}: no such clone session")
        return got[0]

    # --- tables, continued ------------------------------------------------------
    def remove_all(self, cmd: stf.RemoveAll) -> None:
        """Delete every entry of every table that is not const (p4c's `remove all`)."""
        for table in self.schema.tables:
            if table.is_const:
                continue
            entries = [e for e in self._read(f"remove all: read {table.name}", TableEntry(table.name))
                       if isinstance(e, TableEntry) and not e.is_default]
            if entries:
                self._write(f"remove all: {table.name} (stf line {cmd.line})", "DELETE", entries)

    # --- externs --------------------------------------------------------------
    def counter(self, cmd: stf.CheckCounter) -> tuple[int, int]:
        """(packets, bytes) of an indexed counter cell, or of the direct counter of the
        entry added with `= HANDLE` (`check_counter NAME($HANDLE)`)."""
        if cmd.handle is not None:
            return self._handle_counter(cmd)
        try:
            c = lookup(self.schema.counters, cmd.counter)
        except ControlError:
            try:
                d = lookup(self.schema.direct_counters, cmd.counter)
            except ControlError:
                d = None
            if d is None:
                raise
            raise ControlError(f"{d.name} is a direct counter; name an entry with "
                               f"check_counter {cmd.counter}($HANDLE) or check_direct_counter") from None
        got = self._read(f"check_counter {cmd.counter}", CounterEntry(c.name, cmd.index))
        if not got or got[0].data is None:
            raise ControlError(f"counter {c.name}[{cmd.index}]: empty read")
        return got[0].data.packets, got[0].data.bytes

    def _handle_counter(self, cmd: stf.CheckCounter) -> tuple[int, int]:
        if cmd.handle not in self._entries:
            raise ControlError(f"check_counter {cmd.counter}(${cmd.handle}): no entry was added "
                               f"with '= {cmd.handle}'")
        table, match, priority = self._entries[cmd.handle]
        return self._direct_counter_of(f"check_counter {cmd.counter}(${cmd.handle})",
                                       self.schema.tables.get(table), match, priority)

    def counter_write(self, cmd: stf.CounterWrite) -> None:
        c = lookup(self.schema.counters, cmd.counter)
        self._write(f"counter_write {cmd.counter} (stf line {cmd.line})", "MODIFY",
                    CounterEntry(c.name, cmd.index, CounterData(cmd.packets, cmd.bytes)))

    def direct_counter(self, cmd: stf.CheckDirectCounter) -> tuple[int, int]:
        """Counter data of the entry of cmd.table whose match equals cmd.keys."""
        table = lookup(self.schema.tables, cmd.table)
        return self._direct_counter_of(f"check_direct_counter {cmd.table}", table,
                                       match_of(table, cmd.keys), None)

    def _direct_counter_of(self, what: str, table, match: dict, priority: int | None) -> tuple[int, int]:
        try:
            want = TableEntry(table.name, match).encode_entry(self.schema)
            query = DirectCounterEntry(TableEntry(table.name)).encode(self.schema)
            got = list(self.sw.read_raw([query]))
        except P4RuntimeError as exc:
            raise _failed(what, exc) from None
        except _BAD_INPUT as exc:
            raise ControlError(f"{what}: {exc}") from None
        key = sorted(m.SerializeToString() for m in want.match)
        for e in got:
            d = e.direct_counter_entry
            if priority and d.table_entry.priority != priority:
                continue
            if sorted(m.SerializeToString() for m in d.table_entry.match) == key:
                return d.data.packet_count, d.data.byte_count
        raise ControlError(f"{table.name}: no entry with that key among {len(got)} "
                           f"direct counter entries read")

    def register_write(self, cmd: stf.RegisterWrite) -> None:
        r = lookup(self.schema.registers, cmd.register)
        value = cmd.value
        if r.signed and r.bitwidth and value >> (r.bitwidth - 1) == 1:
            value -= 1 << r.bitwidth  # STF writes the bit pattern; p4rt takes signed ints
        self._write(f"register_write {cmd.register}", "MODIFY", RegisterEntry(r.name, cmd.index, value))

    def register_read(self, cmd: stf.RegisterRead) -> int:
        r = lookup(self.schema.registers, cmd.register)
        got = self._read(f"register_read {cmd.register}", RegisterEntry(r.name, cmd.index))
        if not got or got[0].value is None:
            raise ControlError(f"register {r.name}[{cmd.index}]: empty read")
        value = got[0].value
        if isinstance(value, int) and value < 0:
            value += 1 << r.bitwidth  # the bit pattern, as STF writes it
        return int(value)

    def register_reset(self, cmd: stf.RegisterReset) -> None:
        """Every cell to 0 (P4Runtime has no reset: one MODIFY per cell, in one Write)."""
        r = lookup(self.schema.registers, cmd.register)
        self._write(f"register_reset {cmd.register} (stf line {cmd.line})", "MODIFY",
                    [RegisterEntry(r.name, i, 0) for i in range(r.size)])

    def enable_digest(self, name: str) -> int:
        """Ask for every digest of `name` at once (list size 1, no timeout)."""
        d = lookup(self.schema.digests, name)
        self._write(f"digest {d.name}", "INSERT",
                    DigestEntry(d.name, max_list_size=1, max_timeout_ns=0, ack_timeout_ns=1_000_000_000))
        if self._digest_reader is None:
            self._digest_reader = threading.Thread(target=self._collect_digests, daemon=True,
                                                   name="p4stf-digests")
            self._digest_reader.start()
        return d.id

    def value_set_add(self, cmd: stf.ValueSetAdd) -> None:
        """Add a member to a parser value_set (P4Runtime writes the whole set: MODIFY)."""
        vs = lookup(self.schema.value_sets, cmd.value_set)
        if len(vs.match_fields) != 1:
            raise ControlError(f"value set {vs.name}: only single-field sets are supported")
        mf = next(iter(vs.match_fields))
        k = cmd.key
        if mf.match_type == "ternary":
            mask = k.mask if k.kind == "ternary" else (1 << mf.bitwidth) - 1
            value = (k.value & mask, mask)
        elif k.kind == "ternary":
            raise ControlError(f"value set {vs.name}: field {mf.name} is {mf.match_type}; "
                               f"a masked value needs a ternary field")
        else:
            value = k.value
        members = self._vsets.setdefault(vs.name, [])
        members.append({mf.name or mf.id: value})  # p4c leaves the field of a bit<W> set unnamed
        self._write(f"value_set_add {cmd.value_set} (stf line {cmd.line})", "MODIFY",
                    ValueSetEntry(vs.name, list(members)))

    def meter_config(self, cmd: stf.MeterConfig) -> None:
        m = lookup(self.schema.meters, cmd.meter)
        config = MeterConfig(cmd.cir, cmd.cburst, cmd.pir, cmd.pburst)
        self._write(f"meter_config {cmd.meter} (stf line {cmd.line})", "MODIFY",
                    MeterEntry(m.name, cmd.index, config))

    def meter_set_rates(self, cmd: stf.MeterSetRates) -> None:
        """simple_switch_CLI rates (per microsecond, committed then peak) as P4Runtime's
        (per second); `meter_array_set_rates` configures every cell."""
        m = lookup(self.schema.meters, cmd.meter)
        if len(cmd.rates) != 2:
            raise ControlError(f"meter_set_rates {cmd.meter}: v1model meters take two "
                               f"RATE:BURST pairs (committed, peak), got {len(cmd.rates)}")
        (cr, cb), (pr, pb) = cmd.rates
        config = MeterConfig(round(cr * 1e6), cb, round(pr * 1e6), pb)
        cells = range(m.size) if cmd.index is None else [cmd.index]
        verb = "meter_array_set_rates" if cmd.index is None else "meter_set_rates"
        self._write(f"{verb} {cmd.meter} (stf line {cmd.line})", "MODIFY",
                    [MeterEntry(m.name, i, config) for i in cells])

    def meter_get_rates(self, cmd: stf.MeterGetRates) -> MeterEntry:
        m = lookup(self.schema.meters, cmd.meter)
        got = self._read(f"meter_get_rates {cmd.meter}", MeterEntry(m.name, cmd.index))
        if not got:
            raise ControlError(f"meter {m.name}[{cmd.index}]: empty read")
        return got[0]

    def direct_meter_config(self, cmd: stf.DirectMeterConfig) -> None:
        """Configure the direct meter of the table entry with the given key."""
        table = lookup(self.schema.tables, cmd.table)
        if table.needs_priority:
            raise ControlError(f"direct_meter_config: table {table.name} needs "
                               f"priorities; use a table with exact/lpm keys")
        entry = TableEntry(table.name, match_of(table, cmd.keys))
        self._write(f"direct_meter_config {cmd.table} (stf line {cmd.line})", "MODIFY",
                    DirectMeterEntry(entry, MeterConfig(*cmd.rates)))

    # --- data-plane state across a switch restart ---------------------------------
    def snapshot(self) -> list:
        """Every non-zero register cell, counter cell and direct counter, as entities that
        `restore` writes back into a fresh switch running the same program."""
        out: list = []
        for r in self.schema.registers:
            cells = self._read(f"snapshot: register {r.name}", RegisterEntry(r.name))
            out += [e for e in cells if isinstance(e, RegisterEntry) and e.value]
        for c in self.schema.counters:
            cells = self._read(f"snapshot: counter {c.name}", CounterEntry(c.name))
            out += [e for e in cells if isinstance(e, CounterEntry) and e.data is not None
                    and (e.data.packets or e.data.bytes)]
        for d in self.schema.direct_counters:
            table = self.schema.table(d.table_id)
            cells = self._read(f"snapshot: direct counter of {table.name}",
                               DirectCounterEntry(TableEntry(table.name)))
            out += [e for e in cells if isinstance(e, DirectCounterEntry) and e.data is not None
                    and (e.data.packets or e.data.bytes)]
        return out

    def restore(self, entities: list) -> None:
        if entities:
            self._write("restore state from the previous phase", "MODIFY", entities)


def flatten(value, spec, schema) -> list[int]:
    """A digest value decoded by p4rt as its fields' bit patterns in member order.

    p4rt decodes `int<N>` fields as signed numbers; STF writes the bit pattern.
    """
    kind = spec.WhichOneof("type_spec") if spec is not None else None
    if isinstance(value, bool):
        return [int(value)]
    if isinstance(value, int):
        if value < 0 and kind == "bitstring" and spec.bitstring.HasField("int"):
            value += 1 << spec.bitstring.int.bitwidth
        return [value]
    if isinstance(value, dict):
        specs = {}
        if kind in ("struct", "header"):
            types = schema.type_info().structs if kind == "struct" else schema.type_info().headers
            decl = type_map(types).get(getattr(spec, kind).name)
            specs = {m.name: m.type_spec for m in decl.members} if decl is not None else {}
        return [v for name, m in value.items() for v in flatten(m, specs.get(name), schema)]
    if isinstance(value, (list, tuple)):
        specs = list(spec.tuple.members) if kind == "tuple" else []
        return [v for i, m in enumerate(value)
                for v in flatten(m, specs[i] if i < len(specs) else None, schema)]
    return []


def wait_for_port(addr: str, timeout: float) -> bool:
    """True once something accepts TCP connections on host:port."""
    import socket
    host, port = addr.rsplit(":", 1)
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection((host, int(port)), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False
