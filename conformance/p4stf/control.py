"""The STF control commands carried out over P4Runtime (gRPC) on a running switch.

Kept to what STF needs: pipeline push, table entries, default actions, action
profile members/groups, multicast groups, clone sessions, counters, registers, meters.
"""
from __future__ import annotations

import queue
import threading
import time

import grpc
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc as pb_grpc
from p4.config.v1 import p4info_pb2

from . import stf
from .p4info import NameError_, Schema, resolve, resolve_key


class ControlError(RuntimeError):
    """A control command the switch refused or that names nothing in the P4Info."""


def enc(value: int, bitwidth: int, what: str) -> bytes:
    """Canonical (shortest) big-endian bytes of an unsigned value of `bitwidth` bits."""
    if value < 0 or (bitwidth and value >> bitwidth):
        raise ControlError(f"{what}: value {value:#x} does not fit in {bitwidth} bits")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


_CODE_NAMES = ["OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
               "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
               "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
               "UNAUTHENTICATED"]


def _rpc_text(exc: grpc.RpcError) -> str:
    text = f"{exc.code().name}: {exc.details()}"
    try:
        from google.rpc import status_pb2
        for k, v in exc.trailing_metadata() or ():
            if k == "grpc-status-details-bin":
                st = status_pb2.Status.FromString(v)
                errs = []
                for d in st.details:
                    e = pb.Error()
                    if d.Unpack(e) and e.canonical_code != 0:
                        try:
                            code = grpc.StatusCode[_CODE_NAMES[e.canonical_code]].name
                        except (IndexError, KeyError):
                            code = str(e.canonical_code)
                        errs.append(f"{code}: {e.message}")
                if errs:
                    text += " [" + "; ".join(errs) + "]"
    except Exception:  # details are a courtesy; the status line is enough
        pass
    return text


class Controller:
    """A primary P4Runtime client for one device."""

    def __init__(self, addr: str, device_id: int = 0, timeout: float = 10.0):
        self.addr = addr
        self.device_id = device_id
        self.election = pb.Uint128(high=0, low=1)
        self.channel = grpc.insecure_channel(addr)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            self.channel.close()
            raise ControlError(f"no P4Runtime server at {addr} after {timeout:.0f}s") from None
        self.stub = pb_grpc.P4RuntimeStub(self.channel)
        self._out: queue.Queue = queue.Queue()
        self._stream = self.stub.StreamChannel(iter(self._out.get, None))
        req = pb.StreamMessageRequest()
        req.arbitration.device_id = device_id
        req.arbitration.election_id.CopyFrom(self.election)
        self._out.put(req)
        try:
            first = next(self._stream)
        except grpc.RpcError as exc:
            self.close()
            raise ControlError(f"arbitration failed: {_rpc_text(exc)}") from None
        if not first.HasField("arbitration") or first.arbitration.status.code != 0:
            self.close()
            raise ControlError(f"not primary: {first}")
        self.schema: Schema | None = None
        self._mc: dict[int, list[tuple[int, int]]] = {}
        self._mc_written: set[int] = set()
        self._mc_flushed: dict[int, list[tuple[int, int]]] = {}
        self._nodes: dict[int, tuple[int, list[int]]] = {}
        self._auto_member = 1 << 24
        self._vsets: dict[int, list[stf.KeyMatch]] = {}
        self.digests: dict[int, int] = {}
        self.digest_data: dict[int, list[tuple[int, ...]]] = {}
        self._reader = threading.Thread(target=self._read_stream, daemon=True)
        self._reader.start()

    def _read_stream(self) -> None:
        """Count digest data items per digest id and acknowledge each list."""
        try:
            for msg in self._stream:
                if msg.HasField("digest"):
                    d = msg.digest
                    self.digests[d.digest_id] = self.digests.get(d.digest_id, 0) + len(d.data)
                    self.digest_data.setdefault(d.digest_id, []).extend(
                        tuple(_flatten(item)) for item in d.data)
                    ack = pb.StreamMessageRequest()
                    ack.digest_ack.digest_id = d.digest_id
                    ack.digest_ack.list_id = d.list_id
                    self._out.put(ack)
        except grpc.RpcError:
            pass

    def close(self) -> None:
        self._out.put(None)
        try:
            self._stream.cancel()
        except Exception:
            pass
        self.channel.close()

    # --- pipeline -----------------------------------------------------------
    def set_pipeline(self, info: p4info_pb2.P4Info, device_config: bytes) -> None:
        req = pb.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, election_id=self.election,
            action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(info)
        req.config.p4_device_config = device_config
        try:
            self.stub.SetForwardingPipelineConfig(req, timeout=30)
        except grpc.RpcError as exc:
            raise ControlError(f"SetForwardingPipelineConfig: {_rpc_text(exc)}") from None
        self.schema = Schema(info)

    def _write(self, what: str, *updates: pb.Update) -> None:
        req = pb.WriteRequest(device_id=self.device_id, election_id=self.election)
        req.updates.extend(updates)
        try:
            self.stub.Write(req, timeout=10)
        except grpc.RpcError as exc:
            raise ControlError(f"{what}: {_rpc_text(exc)}") from None

    def _read(self, what: str, entity: pb.Entity) -> list[pb.Entity]:
        req = pb.ReadRequest(device_id=self.device_id)
        req.entities.add().CopyFrom(entity)
        out = []
        try:
            for resp in self.stub.Read(req, timeout=10):
                out.extend(resp.entities)
        except grpc.RpcError as exc:
            raise ControlError(f"{what}: {_rpc_text(exc)}") from None
        return out

    # --- tables -------------------------------------------------------------
    def _action(self, table, call: stf.ActionCall, out: pb.Action) -> None:
        assert self.schema is not None
        act = self.schema.action_of_table(table, call.name)
        out.action_id = act.preamble.id
        given = dict(call.args)
        for p in act.params:
            hits = [k for k in given if k == p.name or p.name.endswith("." + k)]
            if not hits:
                raise ControlError(f"action {act.preamble.name}: missing parameter '{p.name}'")
            value = given.pop(hits[0])
            out.params.add(param_id=p.id, value=enc(value, p.bitwidth,
                                                     f"{act.preamble.name}({p.name})"))
        if given:
            raise ControlError(f"action {act.preamble.name} has no parameter(s) "
                               f"{', '.join(given)} (has: {', '.join(p.name for p in act.params)})")

    def _match(self, table, keys: list[stf.KeyMatch], entry: pb.TableEntry) -> bool:
        """Fill entry.match; True if the table needs a priority."""
        by_id = {}
        for k in keys:
            mf = resolve_key(table, k.name)
            by_id[mf.id] = k
        needs_prio = False
        M = p4info_pb2.MatchField
        for mf in table.match_fields:
            k = by_id.get(mf.id)
            bw = mf.bitwidth
            full = (1 << bw) - 1
            what = f"{table.preamble.name} key {mf.name}"
            mt = mf.match_type
            if mt in (M.TERNARY, M.RANGE, M.OPTIONAL):
                needs_prio = True
            if k is None:
                if mt == M.EXACT:
                    raise ControlError(f"{what}: exact key field missing from add")
                continue  # wildcard
            fm = pb.FieldMatch(field_id=mf.id)
            if mt == M.EXACT:
                if k.kind != "value":
                    raise ControlError(f"{what}: exact field given a {k.kind} value")
                fm.exact.value = enc(k.value, bw, what)
            elif mt == M.LPM:
                if k.kind == "lpm":
                    plen = k.prefix
                elif k.kind == "value":
                    plen = bw if k.nibbles is None else min(bw, k.nibbles * k.bits_per_digit)
                else:
                    raise ControlError(f"{what}: lpm field given a {k.kind} value")
                if plen is None or plen > bw:
                    raise ControlError(f"{what}: prefix length {plen} > {bw}")
                if plen == 0:
                    continue
                if k.kind == "value" and k.nibbles and k.nibbles * k.bits_per_digit < bw:
                    # written as the leading digits only, like p4c's runner does
                    pass
                mask = full ^ ((1 << (bw - plen)) - 1)
                fm.lpm.value = enc(k.value & mask, bw, what)
                fm.lpm.prefix_len = plen
            elif mt == M.TERNARY:
                if k.kind == "ternary":
                    value, mask = k.value, k.mask & full
                elif k.kind == "value":
                    value, mask = k.value, full
                else:
                    raise ControlError(f"{what}: ternary field given a {k.kind} value")
                enc(value, bw, what)
                if mask == 0:
                    continue
                fm.ternary.value = enc(value & mask, bw, what)
                fm.ternary.mask = enc(mask, bw, what)
            elif mt == M.RANGE:
                if k.kind == "range":
                    lo, hi = k.value, k.high
                elif k.kind == "value":
                    lo = hi = k.value
                else:
                    raise ControlError(f"{what}: range field given a {k.kind} value")
                if lo == 0 and hi == full:
                    continue
                fm.range.low = enc(lo, bw, what)
                fm.range.high = enc(hi, bw, what)
            elif mt == M.OPTIONAL:
                if k.kind == "ternary" and k.mask & full == 0:
                    continue
                if k.kind not in ("value", "ternary") or (k.kind == "ternary" and k.mask & full != full):
                    raise ControlError(f"{what}: optional field takes a value or a full wildcard")
                fm.optional.value = enc(k.value, bw, what)
            else:
                raise ControlError(f"{what}: unsupported match type {mt}")
            entry.match.append(fm)
        return needs_prio

    def add(self, cmd: stf.Add, auto_priority: int) -> None:
        assert self.schema is not None
        try:
            table = self.schema.table(cmd.table)
            entry = pb.TableEntry(table_id=table.preamble.id)
            if self._match(table, cmd.keys, entry):
                # STF priorities start at 0 (p4c's own files use 0), P4Runtime's at 1;
                # shifting by one keeps their order (larger wins in both).
                entry.priority = cmd.priority + 1 if cmd.priority is not None else auto_priority
            elif cmd.priority is not None:
                raise ControlError(f"table {table.preamble.name} has no ternary/range/optional "
                                   f"key, so it takes no priority")
            self._table_action(table, cmd.action, entry)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        upd = pb.Update(type=pb.Update.INSERT)
        upd.entity.table_entry.CopyFrom(entry)
        self._write(f"add {cmd.table} (stf line {cmd.line})", upd)

    def _table_action(self, table, call: stf.ActionCall, entry: pb.TableEntry) -> None:
        if table.implementation_id:
            prof = self.schema.profile_by_id(table.implementation_id)
            if call.name in ("member", "group") and len(call.args) == 1 and not call.args[0][0]:
                if call.name == "member":
                    entry.action.action_profile_member_id = call.args[0][1]
                else:
                    entry.action.action_profile_group_id = call.args[0][1]
                return
            # A plain action on a profile table: make a member for it.
            self._auto_member += 1
            self._member(prof, table, self._auto_member, call)
            entry.action.action_profile_member_id = self._auto_member
            return
        self._action(table, call, entry.action.action)

    def set_default(self, cmd: stf.SetDefault) -> None:
        assert self.schema is not None
        try:
            table = self.schema.table(cmd.table)
            entry = pb.TableEntry(table_id=table.preamble.id, is_default_action=True)
            self._action(table, cmd.action, entry.action.action)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        upd = pb.Update(type=pb.Update.MODIFY)
        upd.entity.table_entry.CopyFrom(entry)
        self._write(f"setdefault {cmd.table} (stf line {cmd.line})", upd)

    # --- action profiles ------------------------------------------------------
    def _member(self, prof, table, member_id: int, call: stf.ActionCall) -> None:
        m = pb.ActionProfileMember(action_profile_id=prof.preamble.id, member_id=member_id)
        self._action(table, call, m.action)
        upd = pb.Update(type=pb.Update.INSERT)
        upd.entity.action_profile_member.CopyFrom(m)
        self._write(f"member {member_id} of {prof.preamble.name}", upd)

    def _profile_table(self, prof):
        for t in self.schema.info.tables:
            if t.preamble.id in prof.table_ids:
                return t
        raise ControlError(f"action profile {prof.preamble.name} is used by no table")

    def member_add(self, cmd: stf.MemberAdd) -> None:
        try:
            prof = self.schema.profile(cmd.profile)
            self._member(prof, self._profile_table(prof), cmd.member, cmd.action)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None

    def group_add(self, cmd: stf.GroupAdd) -> None:
        try:
            prof = self.schema.profile(cmd.profile)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        g = pb.ActionProfileGroup(action_profile_id=prof.preamble.id, group_id=cmd.group,
                                  max_size=max(len(cmd.members), 1))
        for mid in cmd.members:
            g.members.add(member_id=mid, weight=1)
        upd = pb.Update(type=pb.Update.INSERT)
        upd.entity.action_profile_group.CopyFrom(g)
        self._write(f"group_add {cmd.group} (stf line {cmd.line})", upd)

    # --- packet replication -----------------------------------------------------
    def mc_group_create(self, cmd: stf.McGroupCreate) -> None:
        self._mc.setdefault(cmd.group, [])

    def mc_node_create(self, cmd: stf.McNodeCreate) -> None:
        self._nodes[cmd.handle] = (cmd.rid, cmd.ports)

    def mc_node_associate(self, cmd: stf.McNodeAssociate) -> None:
        if cmd.group not in self._mc:
            raise ControlError(f"stf line {cmd.line}: multicast group {cmd.group} not created")
        if cmd.handle not in self._nodes:
            raise ControlError(f"stf line {cmd.line}: no node with handle {cmd.handle}")
        rid, ports = self._nodes[cmd.handle]
        self._mc[cmd.group].extend((p, rid) for p in ports)

    def flush_multicast(self) -> None:
        """Write the multicast groups built by mc_* commands (insert, then modify)."""
        for grp, reps in self._mc.items():
            if self._mc_flushed.get(grp) == reps:
                continue
            self._mc_flushed[grp] = list(reps)
            e = pb.MulticastGroupEntry(multicast_group_id=grp)
            for port, rid in reps:
                e.replicas.add(egress_port=port, instance=rid)
            upd = pb.Update(type=pb.Update.MODIFY if grp in self._mc_written else pb.Update.INSERT)
            upd.entity.packet_replication_engine_entry.multicast_group_entry.CopyFrom(e)
            self._write(f"multicast group {grp}", upd)
            self._mc_written.add(grp)

    def mirroring_add(self, cmd: stf.MirroringAdd) -> None:
        e = pb.CloneSessionEntry(session_id=cmd.session)
        if cmd.port is not None:
            e.replicas.add(egress_port=cmd.port, instance=0)
        else:
            for port, rid in self._mc.get(cmd.group, []):
                e.replicas.add(egress_port=port, instance=rid)
        upd = pb.Update(type=pb.Update.INSERT)
        upd.entity.packet_replication_engine_entry.clone_session_entry.CopyFrom(e)
        self._write(f"mirroring_add {cmd.session} (stf line {cmd.line})", upd)

    # --- externs --------------------------------------------------------------
    def counter(self, cmd: stf.CheckCounter) -> tuple[int, int]:
        try:
            c = self.schema.counter(cmd.counter)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        if c.preamble.id >> 24 == 0x13:  # P4Runtime id prefix of direct counters
            raise ControlError(f"{c.preamble.name} is a direct counter; check_counter reads "
                               f"indexed counters only")
        ent = pb.Entity()
        ent.counter_entry.counter_id = c.preamble.id
        ent.counter_entry.index.index = cmd.index
        got = self._read(f"check_counter {cmd.counter}", ent)
        if not got:
            raise ControlError(f"counter {c.preamble.name}[{cmd.index}]: empty read")
        d = got[0].counter_entry.data
        return d.packet_count, d.byte_count

    def direct_counter(self, cmd: stf.CheckDirectCounter) -> tuple[int, int]:
        """Counter data of the entry of cmd.table whose match equals cmd.keys."""
        try:
            table = self.schema.table(cmd.table)
            want = pb.TableEntry(table_id=table.preamble.id)
            self._match(table, cmd.keys, want)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        ent = pb.Entity()
        ent.direct_counter_entry.table_entry.table_id = table.preamble.id
        got = self._read(f"check_direct_counter {cmd.table}", ent)
        key = sorted(m.SerializeToString() for m in want.match)
        for e in got:
            d = e.direct_counter_entry
            if sorted(m.SerializeToString() for m in d.table_entry.match) == key:
                return d.data.packet_count, d.data.byte_count
        raise ControlError(f"{table.preamble.name}: no entry with that key among {len(got)} "
                           f"direct counter entries read")

    def register_write(self, cmd: stf.RegisterWrite) -> None:
        try:
            r = self.schema.register(cmd.register)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        bw = r.type_spec.bitstring.bit.bitwidth or r.type_spec.bitstring.int.bitwidth
        upd = pb.Update(type=pb.Update.MODIFY)
        e = upd.entity.register_entry
        e.register_id = r.preamble.id
        e.index.index = cmd.index
        e.data.bitstring = enc(cmd.value, bw, r.preamble.name)
        self._write(f"register_write {cmd.register}", upd)

    def register_read(self, cmd: stf.RegisterRead) -> int:
        try:
            r = self.schema.register(cmd.register)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        ent = pb.Entity()
        ent.register_entry.register_id = r.preamble.id
        ent.register_entry.index.index = cmd.index
        got = self._read(f"register_read {cmd.register}", ent)
        if not got:
            raise ControlError(f"register {r.preamble.name}[{cmd.index}]: empty read")
        return int.from_bytes(got[0].register_entry.data.bitstring, "big")

    def digest_id(self, name: str) -> int:
        try:
            return resolve(self.schema.info.digests, name, "digest").preamble.id
        except NameError_ as exc:
            raise ControlError(str(exc)) from None

    def enable_digest(self, name: str) -> int:
        """Ask for every digest of `name` at once (list size 1, no timeout)."""
        try:
            d = resolve(self.schema.info.digests, name, "digest")
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        upd = pb.Update(type=pb.Update.INSERT)
        e = upd.entity.digest_entry
        e.digest_id = d.preamble.id
        e.config.max_timeout_ns = 0
        e.config.max_list_size = 1
        e.config.ack_timeout_ns = 1_000_000_000
        self._write(f"digest {d.preamble.name}", upd)
        return d.preamble.id

    def value_set_add(self, cmd: stf.ValueSetAdd) -> None:
        """Add a member to a parser value_set (P4Runtime writes the whole set: MODIFY)."""
        try:
            vs = resolve(self.schema.info.value_sets, cmd.value_set, "value set")
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        if len(vs.match) != 1:
            raise ControlError(f"value set {vs.preamble.name}: only single-field sets are supported")
        members = self._vsets.setdefault(vs.preamble.id, [])
        members.append(cmd.key)
        mf = vs.match[0]
        upd = pb.Update(type=pb.Update.MODIFY)
        e = upd.entity.value_set_entry
        e.value_set_id = vs.preamble.id
        M = p4info_pb2.MatchField
        for k in members:
            fm = e.members.add().match.add(field_id=mf.id)
            what = f"value set {vs.preamble.name}"
            if mf.match_type == M.TERNARY or k.kind == "ternary":
                mask = k.mask if k.kind == "ternary" else (1 << mf.bitwidth) - 1
                fm.ternary.value = enc(k.value & mask, mf.bitwidth, what)
                fm.ternary.mask = enc(mask, mf.bitwidth, what)
            else:
                fm.exact.value = enc(k.value, mf.bitwidth, what)
        self._write(f"value_set_add {cmd.value_set} (stf line {cmd.line})", upd)

    def meter_config(self, cmd: stf.MeterConfig) -> None:
        try:
            m = self.schema.meter(cmd.meter)
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        upd = pb.Update(type=pb.Update.MODIFY)
        e = upd.entity.meter_entry
        e.meter_id = m.preamble.id
        e.index.index = cmd.index
        _meter_rates(e.config, (cmd.cir, cmd.cburst, cmd.pir, cmd.pburst))
        self._write(f"meter_config {cmd.meter} (stf line {cmd.line})", upd)

    def direct_meter_config(self, cmd: stf.DirectMeterConfig) -> None:
        """Configure the direct meter of the table entry with the given key."""
        try:
            table = self.schema.table(cmd.table)
            upd = pb.Update(type=pb.Update.MODIFY)
            e = upd.entity.direct_meter_entry
            e.table_entry.table_id = table.preamble.id
            if self._match(table, cmd.keys, e.table_entry):
                raise ControlError(f"direct_meter_config: table {table.preamble.name} needs "
                                   f"priorities; use a table with exact/lpm keys")
        except NameError_ as exc:
            raise ControlError(str(exc)) from None
        _meter_rates(e.config, cmd.rates)
        self._write(f"direct_meter_config {cmd.table} (stf line {cmd.line})", upd)


def _flatten(data) -> list[int]:
    """A P4Data value as the list of its bitstrings in member order."""
    kind = data.WhichOneof("data")
    if kind == "bitstring":
        return [int.from_bytes(data.bitstring, "big")]
    if kind == "bool":
        return [int(data.bool)]
    if kind in ("struct", "tuple"):
        return [v for m in getattr(data, kind).members for v in _flatten(m)]
    if kind == "header":
        return [int.from_bytes(b, "big") for b in data.header.bitstrings]
    if kind == "enum_value":
        return [int.from_bytes(data.enum_value, "big")]
    return []


def _meter_rates(cfg, rates) -> None:
    cfg.cir, cfg.cburst, cfg.pir, cfg.pburst = rates


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
