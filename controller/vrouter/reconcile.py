"""Read what a switch holds, recover its run-time state, and write the plan."""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import logging
import time
from dataclasses import dataclass

import grpc
from p4.v1 import p4runtime_pb2
from p4rt import P4RuntimeError, P4RuntimeWriteError, Switch, TableEntry, Update, UpdateError, tls_credentials

from . import names as N
from .config import ConfigError, Network, SwitchConfig
from .desired import Desired, Neighbor, Pw, Runtime, desired_state
from .plan import Canon, Item, Plan, plan
from .program import capacity_problems

log = logging.getLogger("vrouter")
E = p4runtime_pb2.Entity


def open_switch(cfg: SwitchConfig, election_id: int, **kwargs) -> Switch:
    """A p4rt client for the switch (over TLS when the description says so); not connected yet."""
    credentials = None
    if cfg.tls is not None:
        credentials = tls_credentials(cfg.tls.ca, cfg.tls.cert, cfg.tls.key)
    return Switch(cfg.address, device_id=cfg.device_id, election_id=election_id, credentials=credentials,
                  server_name=cfg.tls.server_name if cfg.tls is not None else None, **kwargs)


def _read(sw: Switch, entities: list[p4runtime_pb2.Entity]) -> list[p4runtime_pb2.Entity]:
    try:
        return list(sw.read_raw(entities))
    except P4RuntimeError as exc:
        if exc.code in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.NOT_FOUND):
            return []
        raise


def read_actual(sw: Switch, canon: Canon, desired: Desired) -> list[Item]:
    """Every entity of the switch that the controller manages, in canonical form."""
    schema = canon.schema
    items: list[Item] = []

    def take(msgs) -> None:
        for msg in msgs:
            item = canon.item_pb(msg)
            if item is not None:
                items.append(item)

    for entry in sw.read(TableEntry()):   # the fast (wire.py) decoder; canonical form re-encodes
        if entry.is_default or entry.is_const or not entry.table:
            continue
        items.append(canon.item(entry))
    prof = schema.action_profiles.get(N.ECMP_SELECTOR).id
    take(_read(sw, [E(action_profile_member={"action_profile_id": prof}),
                    E(action_profile_group={"action_profile_id": prof})]))
    take(_read(sw, [E(packet_replication_engine_entry={"multicast_group_entry": {}}),
                    E(packet_replication_engine_entry={"clone_session_entry": {}})]))
    take(_read(sw, [E(digest_entry={"digest_id": schema.digests.get(N.LEARN_DIGEST).id})]))
    # Meters: only the cells the description uses or the switch's policer entries point at.
    cells = set(desired.meters)
    for item in items:
        if item.key[0] != "table":
            continue
        table, parts = item.key[1], item.key[2]
        if table == N.PORT_POLICER:
            cells.add((N.PORT_METER, parts[0][2]))
        elif table == N.VLAN_POLICER:
            cells.add((N.VLAN_METER, parts[0][2]))
        elif table == N.ACL and item.value[0][1] == "ingress.acl.police":
            meter_param = schema.actions.get("ingress.acl.police").params.get("meter_id").id
            for pid, value in item.value[0][2]:
                if pid == meter_param:
                    cells.add((N.ACL_METER, value))
    if cells:
        reads = [E(meter_entry={"meter_id": schema.meters.get(m).id, "index": {"index": i}}) for m, i in sorted(cells)]
        take(_read(sw, reads))
    return items


def recover_runtime(canon: Canon, actual: list[Item]) -> Runtime:
    """Neighbours and learned stations as the switch holds them (what a previous daemon wrote)."""
    schema = canon.schema
    rt = Runtime()
    members: dict[int, dict[str, int]] = {}
    for item in actual:
        if item.key[0] == "member" and item.value[0] == "ingress.nexthop.set_nexthop":
            params = schema.actions.get(item.value[0]).params
            members[item.key[2]] = {params.get(pid).name: v for pid, v in item.value[1]}
    nh_param = schema.actions.get("ingress.routing.route_to_nexthop").params.get("nexthop_id").id
    learning = canon.table(N.L2_LEARNING).match_fields
    pw_learning = canon.table(N.PW_LEARNING).match_fields if N.PW_LEARNING in schema.tables else None
    for item in actual:
        if item.key[0] != "table":
            continue
        table, parts = item.key[1], item.key[2]
        value, idle = item.value
        if table == N.IPV4_ROUTE and parts and parts[0][3] == 32 and value[:2] == ("action",
                                                                                 "ingress.routing.route_to_nexthop"):
            nid = dict(value[2])[nh_param]
            m = members.get(nid)
            if nid >= N.NEIGHBOR_BASE and m is not None:
                ip = ipaddress.IPv4Address(parts[0][2])
                mac = ":".join(f"{b:02x}" for b in m["dst_mac"].to_bytes(6, "big"))
                rt.neighbors[ip] = Neighbor(ip, mac, m["port"], m["vlan_id"])
                rt.nexthop_ids[ip] = nid
        elif table == N.L2_LEARNING and idle:
            f = {learning.get(fid).name: v for fid, _, v, _ in parts}
            mac = ":".join(f"{b:02x}" for b in f["src_mac"].to_bytes(6, "big"))
            rt.macs[(f["vlan_id"], mac)] = f["ingress_port"]
        elif table == N.PORT_SECURITY:
            rt.locked_ports.add(parts[0][2])
        elif table == N.PW_LEARNING and idle and pw_learning is not None:
            f = {pw_learning.get(fid).name: v for fid, _, v, _ in parts}
            mac = ":".join(f"{b:02x}" for b in f["src_mac"].to_bytes(6, "big"))
            rt.macs[(f["vlan_id"], mac)] = Pw(f["pw_label"])
    return rt


@dataclass
class Result:
    """What one reconciliation did."""

    switch: str
    plan: Plan
    seconds: float
    written: bool


@contextlib.contextmanager
def gc_paused():
    """Building tens of thousands of small tuples triggers full GC passes (5-10x slower); pause them.
    Also around a routes-file update: its few thousand short-lived objects started 4-5 young and
    some full collections per take (~15 % of its CPU), while they die by reference count anyway."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def compute_plan(sw: Switch, net: Network, cfg: SwitchConfig, rt: Runtime | None = None,
                 check: bool = True) -> tuple[Plan, Canon, Runtime]:
    """Read the switch and plan; without `rt`, the run-time state is recovered from the switch.
    With `check`, a state that needs more entries than a table holds is refused first."""
    with gc_paused():
        return _compute_plan(sw, net, cfg, rt, check)


def check_capacity(sw: Switch, net: Network, cfg: SwitchConfig, want: Desired) -> None:
    """Refuse a description that needs more entries in a table than the running program
    gives it, before anything is written (the switch would take the first entries and
    refuse the rest)."""
    problems = capacity_problems(sw.schema, net, cfg, want)
    if problems:
        raise ConfigError(problems)


def _compute_plan(sw: Switch, net: Network, cfg: SwitchConfig, rt: Runtime | None,
                  check: bool) -> tuple[Plan, Canon, Runtime]:
    canon = Canon(sw.schema)
    first = desired_state(net, cfg, rt or Runtime())
    if check:
        check_capacity(sw, net, cfg, first)
    actual = read_actual(sw, canon, first)
    if rt is None:
        rt = recover_runtime(canon, actual)
        first = desired_state(net, cfg, rt)
    return plan(canon, first, actual), canon, rt


BATCH = 1000
IN_FLIGHT = 4          # Write RPCs outstanding within one phase


def _batches(sw: Switch, phase: list[Update]) -> list[list[Update]]:
    """A phase's updates grouped by table, in batches of at most BATCH and at most the table's size."""
    groups: dict[str, list[Update]] = {}
    for u in phase:
        groups.setdefault(u.entity.table if isinstance(u.entity, TableEntry) else type(u.entity).__name__,
                          []).append(u)
    out = []
    for name, updates in groups.items():
        size = sw.schema.tables[name].size if name in sw.schema.tables else 0
        step = max(1, min(BATCH, size or BATCH))
        out += [updates[i:i + step] for i in range(0, len(updates), step)]
    return out


def write_plan(sw: Switch, p: Plan, canon: Canon | None = None) -> None:
    """Write a plan phase by phase, in batches sized to each table (with `canon`, table entries
    are encoded from their canonical integers: Canon.filler).

    Updates the switch refuses do not stop the phases after them (the deletes free room for
    the next attempt); every refusal is raised at the end in one P4RuntimeWriteError. A failed
    RPC (the switch went away) stops at once.
    """
    failures: list[UpdateError] = []
    code = None
    for phase in p.updates(canon):
        # A phase's updates do not depend on each other (levels order the ones that do), so its
        # batches may be in flight together; the next phase waits for all of them.
        try:
            sw.write_batches(_batches(sw, phase), in_flight=IN_FLIGHT)
        except P4RuntimeWriteError as exc:
            if not exc.errors:
                raise
            failures += exc.errors
            code = exc.code
    if failures:
        raise P4RuntimeWriteError(code, "", failures)


def ensure_pipeline(sw: Switch, net: Network) -> bool:
    """Install the program unless the switch already runs it; True if it was pushed."""
    from p4rt import P4Schema, load_p4info

    info = load_p4info(net.p4info)
    try:
        running = sw.get_pipeline("P4INFO_AND_COOKIE")
        if running.p4info is not None and _canonical(running.p4info) == _canonical(info):
            sw.schema = P4Schema(info)
            return False
    except P4RuntimeError as exc:
        if exc.code != grpc.StatusCode.FAILED_PRECONDITION:
            raise
    sw.set_pipeline(info, net.device_config)
    return True


def _canonical(info) -> bytes:
    """A P4Info's bytes with its type_info maps in key order (deterministic serialization sorts
    map entries), so a switch that returns them in another order is not taken for another program."""
    return info.SerializeToString(deterministic=True)


def reconcile(sw: Switch, net: Network, cfg: SwitchConfig, rt: Runtime | None = None,
              dry_run: bool = False) -> tuple[Result, Canon, Runtime]:
    """Plan and (unless dry_run) write; returns the result, the canon used and the run-time state."""
    start = time.monotonic()
    p, canon, rt = compute_plan(sw, net, cfg, rt, check=not dry_run)
    if not dry_run and len(p):
        write_plan(sw, p, canon)
    return Result(cfg.name, p, time.monotonic() - start, not dry_run), canon, rt
