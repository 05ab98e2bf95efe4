"""CPU seconds (user + system) of processes and threads, read from /proc.

CPU time is what a party took from the machine whatever else ran beside it, so it can be
compared between runs on a busy machine where loss and latency cannot. Threads are reported
by name (p4switch names its workers `p4switch-wN`, its gRPC runtime threads `p4rt-grpc`, ...).
"""
from __future__ import annotations

import os
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def stat_fields(path: Path) -> tuple[str, list[str]] | None:
    """(name, fields from field 3 on) of one /proc/.../stat file (fields[0] is field 3, state, of
    proc(5)); None once it has gone. The name, in parentheses, may hold spaces."""
    try:
        text = path.read_text()
    except OSError:
        return None
    return text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()


def task_stats(pid: int) -> dict[str, tuple[str, list[str]]]:
    """tid -> stat_fields() of every living thread of a process ({} once it has gone)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    got = {tid: stat_fields(Path(f"/proc/{pid}/task/{tid}/stat")) for tid in tids}
    return {tid: g for tid, g in got.items() if g}


def _stat_seconds(path: Path) -> tuple[str, float] | None:
    """(name, utime + stime in seconds) of one /proc/.../stat file; None once it has gone."""
    got = stat_fields(path)
    return (got[0], _seconds(got[1])) if got else None


def _seconds(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / TICK


def process(pid: int) -> float | None:
    """CPU seconds of a whole process (every thread, living or ended)."""
    got = _stat_seconds(Path(f"/proc/{pid}/stat"))
    return got[1] if got else None


def thread(pid: int, tid: int) -> float | None:
    """CPU seconds of one thread."""
    got = _stat_seconds(Path(f"/proc/{pid}/task/{tid}/stat"))
    return got[1] if got else None


def by_thread(pid: int) -> dict[str, float]:
    """CPU seconds of a process's living threads, keyed `name#tid` (see ms_per_s)."""
    return {f"{name}#{tid}": _seconds(fields) for tid, (name, fields) in task_stats(pid).items()}


def ms_per_s(before: dict[str, float], after: dict[str, float], seconds: float) -> dict[str, float]:
    """CPU milliseconds per wall second between two readings, summed per key with any `#tid` cut
    off: a thread is compared with itself (one born since counts from 0; one that ended since,
    e.g. a gRPC runtime thread, is missing from both sums rather than making its name's negative)."""
    out: dict[str, float] = {}
    for k, v in after.items():
        name = k.split("#")[0]
        out[name] = out.get(name, 0.0) + v - before.get(k, 0.0)
    return {k: round(1000.0 * v / seconds, 1) for k, v in sorted(out.items())}
