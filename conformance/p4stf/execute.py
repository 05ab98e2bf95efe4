"""Carry out one STF control or check command on a connected Controller.

Both port modes use these: pcap files (phase by phase) and veth pairs (in file order).
"""
from __future__ import annotations

from . import stf
from .control import ControlError, Controller


class ControlState:
    """What carrying out control commands in file order needs to remember."""

    def __init__(self) -> None:
        self.priority = 100000  # automatic priorities: first entry highest


def _add(ctl: Controller, c: stf.Add, state: ControlState) -> None:
    ctl.add(c, state.priority)
    state.priority -= 1


def _mirroring_add(ctl: Controller, c: stf.MirroringAdd) -> None:
    if c.group is not None:
        ctl.flush_multicast()
    ctl.mirroring_add(c)


# The Controller method that carries out each command (Add and MirroringAdd need more).
_CONTROLS = {
    stf.SetDefault: "set_default", stf.RemoveAll: "remove_all", stf.McGroupCreate: "mc_group_create",
    stf.McNodeCreate: "mc_node_create", stf.McNodeUpdate: "mc_node_update",
    stf.McNodeAssociate: "mc_node_associate", stf.MirroringDelete: "mirroring_delete",
    stf.MemberAdd: "member_add", stf.GroupAdd: "group_add", stf.RegisterWrite: "register_write",
    stf.RegisterReset: "register_reset", stf.CounterWrite: "counter_write", stf.MeterConfig: "meter_config",
    stf.MeterSetRates: "meter_set_rates", stf.ValueSetAdd: "value_set_add",
    stf.DirectMeterConfig: "direct_meter_config",
}
assert set(_CONTROLS) | {stf.Add, stf.MirroringAdd} == set(stf.CONTROL_COMMANDS)


def apply_control(ctl: Controller, c, state: ControlState) -> None:
    """Carry out one STF control command on the switch."""
    if isinstance(c, stf.Add):
        _add(ctl, c, state)
    elif isinstance(c, stf.MirroringAdd):
        _mirroring_add(ctl, c)
    elif type(c) in _CONTROLS:
        getattr(ctl, _CONTROLS[type(c)])(c)
    else:
        raise ControlError(f"stf line {c.line}: not a control command")


def enable_digests(ctl: Controller, cmds: list) -> None:
    """Turn on every digest a check command names (once each), before packets flow."""
    enabled: dict[str, int] = {}
    for c in cmds:
        if isinstance(c, (stf.CheckDigest, stf.CheckDigestData)):
            if c.digest not in enabled:
                enabled[c.digest] = ctl.enable_digest(c.digest)
            c.digest_id = enabled[c.digest]


_OPS = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__,
        ">": int.__gt__, ">=": int.__ge__}


def _check_counter(ctl: Controller, c: stf.CheckCounter) -> list[str]:
    pkts, byts = ctl.counter(c)
    if c.op is None:  # counter_read NAME INDEX: reading it is the test
        return []
    got = byts if c.kind == "bytes" else pkts
    if _OPS[c.op](got, c.value):
        return []
    ref = f"${c.handle}" if c.handle is not None else c.index
    return [f"check_counter {c.counter}({ref}) {c.kind or 'packets'} {c.op} {c.value} "
            f"(stf line {c.line}): actual {got} (bytes {byts}, packets {pkts})"]


def _check_direct_counter(ctl: Controller, c: stf.CheckDirectCounter) -> list[str]:
    pkts, byts = ctl.direct_counter(c)
    got = byts if c.kind == "bytes" else pkts
    if _OPS[c.op](got, c.value):
        return []
    return [f"check_direct_counter {c.table} {c.kind or 'packets'} {c.op} {c.value} "
            f"(stf line {c.line}): actual {got} (bytes {byts}, packets {pkts})"]


def _check_digest_data(ctl: Controller, c: stf.CheckDigestData) -> list[str]:
    items = ctl.digest_data.get(getattr(c, "digest_id", -1), [])
    if tuple(c.values) in items:
        return []
    seen = "; ".join(" ".join(f"{v:#x}" for v in it) for it in items) or "none"
    return [f"check_digest_data {c.digest} {' '.join(f'{v:#x}' for v in c.values)} "
            f"(stf line {c.line}): not received (received: {seen})"]


def _check_digest(ctl: Controller, c: stf.CheckDigest) -> list[str]:
    got = ctl.digests.get(getattr(c, "digest_id", -1), 0)
    if _OPS[c.op](got, c.count):
        return []
    return [f"check_digest {c.digest} {c.op} {c.count} (stf line {c.line}): "
            f"received {got} digest message(s)"]


def _register_read(ctl: Controller, c: stf.RegisterRead) -> list[str]:
    got = ctl.register_read(c)
    if c.expected is None or got == c.expected:
        return []
    return [f"register_read {c.register}[{c.index}] (stf line {c.line}): "
            f"expected {c.expected:#x}, actual {got:#x}"]


def _read_only(method: str):
    """Commands whose test is that the read succeeds (p4c's runner only prints them)."""
    def run(ctl: Controller, c) -> list[str]:
        getattr(ctl, method)(c)
        return []
    return run


_CHECKS = {
    stf.CheckCounter: _check_counter,
    stf.CheckDirectCounter: _check_direct_counter,
    stf.CheckDigestData: _check_digest_data,
    stf.CheckDigest: _check_digest,
    stf.RegisterRead: _register_read,
    stf.MirroringGet: _read_only("mirroring_get"),
    stf.MeterGetRates: _read_only("meter_get_rates"),
}
assert set(_CHECKS) == set(stf.CHECK_COMMANDS)


def run_checks(ctl: Controller, checks: list) -> list[str]:
    """Carry out check commands; one message per failed check (reads that fail included)."""
    fails = []
    for c in checks:
        try:
            fails += _CHECKS[type(c)](ctl, c)
        except ControlError as exc:
            fails.append(f"stf line {c.line}: {exc}")
    return fails
