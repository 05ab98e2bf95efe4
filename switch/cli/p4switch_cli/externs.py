"""Counter, register and meter commands.

A direct counter or meter is named like an indexed one; its index is the handle of the
table entry it belongs to, as in simple_switch_CLI. Meter rates are simple_switch_CLI's
(units per microsecond, bursts in units); P4Runtime's are per second.
"""
from __future__ import annotations

import sys

from p4rt import (
    CounterData,
    CounterEntry,
    DirectCounterEntry,
    DirectMeterEntry,
    MeterConfig,
    MeterEntry,
    RegisterEntry,
    TableEntry,
)

from .session import Session, need_args, parse_int
from .values import CliError


def _index(text: str) -> int:
    try:
        i = int(text, 0)
    except ValueError:
        raise CliError("Bad format for index") from None
    if i < 0:
        raise CliError("Bad format for index")
    return i


def _direct_entry(s: Session, obj, index: int) -> tuple[str, TableEntry]:
    table = s.schema.table(obj.table_id)
    e = s.entries[table.name].get(index)
    if e is None:
        raise CliError(f"Invalid table operation (INVALID_HANDLE): table {table.name} has no entry "
                       f"with handle {index}")
    return table.name, TableEntry(table.name, e.match, priority=e.priority)


def _check_index(obj, index: int, kind: str) -> None:
    if obj.size and index >= obj.size:
        raise CliError(f"Invalid {kind} operation (INVALID_INDEX): {obj.name} has {obj.size} cells")


def _read_cell(s: Session, kind: str, args: list[str], note: bool = False) -> tuple[int, list]:
    """Read one cell of a counter or meter: (index, entities read). A direct one's index
    is the handle of its table entry."""
    need_args(args, 2)
    obj, direct = s.extern(kind, args[0])
    index = _index(args[1])
    if not direct:
        _check_index(obj, index, kind)
        cell = (CounterEntry if kind == "counter" else MeterEntry)(obj.name, index)
        return index, s.read(cell, f"read {obj.name}[{index}]")
    table, entry = _direct_entry(s, obj, index)
    if note:
        s.out(f"this is the direct {kind} for table {table}")
    cell = (DirectCounterEntry if kind == "counter" else DirectMeterEntry)(entry)
    return index, s.read(cell, f"read the direct {kind} of {table}")


def counter_read(s: Session, args: list[str]) -> None:
    """Read counter value: counter_read <name> <index>"""
    index, got = _read_cell(s, "counter", args, note=True)
    data = got[0].data if got and got[0].data is not None else CounterData()
    s.out(f"{args[0]}[{index}]= ({data.bytes} bytes, {data.packets} packets)")


def counter_write(s: Session, args: list[str]) -> None:
    """Write counter value: counter_write <name> <index> <packets> <bytes>"""
    need_args(args, 4)
    c, direct = s.extern("counter", args[0])
    index = _index(args[1])
    data = CounterData(parse_int(args[2], "packets"), parse_int(args[3], "bytes"))
    if direct:
        table, entry = _direct_entry(s, c, index)
        s.out(f"writing to direct counter for table {table}")
        s.write("MODIFY", DirectCounterEntry(entry, data))
    else:
        _check_index(c, index, "counter")
        s.write("MODIFY", CounterEntry(c.name, index, data))
    s.out(f"{args[0]}[{index}] has been updated")


def counter_reset(s: Session, args: list[str]) -> None:
    """Reset counter: counter_reset <name>"""
    need_args(args, 1)
    c, direct = s.extern("counter", args[0])
    if direct:
        table = s.schema.table(c.table_id)
        s.out(f"this is the direct counter for table {table.name}")
        cells = [DirectCounterEntry(TableEntry(table.name, e.match, priority=e.priority), CounterData())
                 for _, e in s.entries[table.name].items()]
    else:
        cells = [CounterEntry(c.name, i, CounterData()) for i in range(c.size)]
    if cells:
        s.write("MODIFY", cells)


def _signed_bits(r, value) -> int:
    """A register value read back (p4rt gives int<W> signed) as its bit pattern."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value < 0:
        return value + (1 << r.bitwidth)
    return int(value)


def register_read(s: Session, args: list[str]) -> None:
    """Read register value: register_read <name> [index]"""
    need_args(args, 1, at_least=True)
    r, _ = s.extern("register", args[0])
    if len(args) > 1:
        need_args(args, 2)
        index = _index(args[1])
        _check_index(r, index, "register")
        got = s.read(RegisterEntry(r.name, index), f"read {r.name}[{index}]")
        value = _signed_bits(r, got[0].value) if got and got[0].value is not None else 0
        s.out(f"{args[0]}[{index}]= {value}")
        return
    sys.stderr.write("register index omitted, reading entire array\n")
    got = sorted(s.read(RegisterEntry(r.name), f"read {r.name}"), key=lambda e: e.index)
    s.out(f"{args[0]}= " + ", ".join(str(_signed_bits(r, e.value)) for e in got))


def _register_value(r, text: str) -> int:
    value = parse_int(text, "value, must be an integer")
    if value < 0 or value >= 1 << r.bitwidth:
        raise CliError(f"value {text} does not fit in the {r.bitwidth}-bit cells of {r.name}")
    if r.signed and value >> (r.bitwidth - 1):
        value -= 1 << r.bitwidth  # the bit pattern written; p4rt takes int<W> as signed
    return value


def register_write(s: Session, args: list[str]) -> None:
    """Write register value: register_write <name> <index> <value>"""
    need_args(args, 3)
    r, _ = s.extern("register", args[0])
    index = _index(args[1])
    _check_index(r, index, "register")
    s.write("MODIFY", RegisterEntry(r.name, index, _register_value(r, args[2])))


def register_reset(s: Session, args: list[str]) -> None:
    """Reset all the cells in the register array to 0: register_reset <name>"""
    need_args(args, 1)
    r, _ = s.extern("register", args[0])
    if r.size:
        s.write("MODIFY", [RegisterEntry(r.name, i, 0) for i in range(r.size)])


def _rates(texts: list[str]) -> MeterConfig:
    """Two RATE:BURST pairs (committed, peak) in CLI units as a P4Runtime MeterConfig."""
    if len(texts) != 2:
        raise CliError(f"Invalid number of rates, expected 2 but got {len(texts)}")
    pairs = []
    for t in texts:
        r, sep, b = t.partition(":")
        try:
            rate, burst = float(r), int(b)
        except ValueError:
            raise CliError("Error while parsing rates") from None
        if not sep or rate < 0 or burst < 0:
            raise CliError("Error while parsing rates")
        pairs.append((round(rate * 1e6), burst))
    (cir, cburst), (pir, pburst) = pairs
    return MeterConfig(cir, cburst, pir, pburst)


def meter_set_rates(s: Session, args: list[str]) -> None:
    """Configure rates for a meter: meter_set_rates <name> <index> <rate_1>:<burst_1> <rate_2>:<burst_2>
Rate uses units/microsecond and burst uses units where units is bytes or packets"""
    need_args(args, 2, at_least=True)
    m, direct = s.extern("meter", args[0])
    index = _index(args[1])
    config = _rates(args[2:])
    if direct:
        _, entry = _direct_entry(s, m, index)
        s.write("MODIFY", DirectMeterEntry(entry, config))
    else:
        _check_index(m, index, "meter")
        s.write("MODIFY", MeterEntry(m.name, index, config))


def meter_array_set_rates(s: Session, args: list[str]) -> None:
    """Configure rates for an entire meter array: meter_array_set_rates <name> <rate_1>:<burst_1> <rate_2>:<burst_2>"""
    need_args(args, 1, at_least=True)
    m, direct = s.extern("meter", args[0])
    if direct:
        raise CliError(f"{m.name} is a direct meter: configure it per entry with meter_set_rates")
    config = _rates(args[1:])
    if m.size:
        s.write("MODIFY", [MeterEntry(m.name, i, config) for i in range(m.size)])


def meter_get_rates(s: Session, args: list[str]) -> None:
    """Retrieve rates for a meter: meter_get_rates <name> <index>"""
    _, got = _read_cell(s, "meter", args)
    config = got[0].config if got else None
    if config is None or config.cir < 0:
        s.out("WARNING: expected 2 rates but only received 0")
        return
    for i, (rate, burst) in enumerate(((config.cir, config.cburst), (config.pir, config.pburst))):
        s.out(f"{i}: info rate = {rate / 1e6}, burst size = {burst}")


COMMANDS = {f.__name__: f for f in (
    counter_read, counter_write, counter_reset, register_read, register_write, register_reset,
    meter_set_rates, meter_array_set_rates, meter_get_rates)}
