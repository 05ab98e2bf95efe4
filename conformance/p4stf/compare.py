"""Compare the packets a switch sent with an STF file's expectations, port by port."""
from __future__ import annotations

from dataclasses import dataclass

from .stf import Expect


def matches(exp: Expect, data: bytes) -> bool:
    """True when `data` satisfies one expect line ('*' nibbles, '$' exact length)."""
    if exp.pattern is None:
        return True
    got = data.hex().upper()
    if len(got) < len(exp.pattern):
        return False
    if exp.exact and len(got) != len(exp.pattern):
        return False
    return all(p == "*" or p == g for p, g in zip(exp.pattern, got))


def _groups(hexs: str) -> list[str]:
    return [hexs[i:i + 2] for i in range(0, len(hexs), 2)]


def render_diff(exp: Expect, data: bytes, width: int = 16) -> str:
    """Expected vs actual hex, 16 bytes a row, '^^' under each differing byte."""
    want = _groups(exp.pattern or "")
    got = _groups(data.hex().upper())
    n = max(len(want), len(got))
    lines = []
    for row in range(0, max(n, 1), width):
        w = want[row:row + width]
        g = got[row:row + width]
        marks = []
        for i in range(row, min(row + width, n)):
            wb = want[i] if i < len(want) else None
            gb = got[i] if i < len(got) else None
            if wb is None:
                bad = exp.exact
            elif gb is None:
                bad = True
            else:
                bad = any(p != "*" and p != q for p, q in zip(wb, gb))
            marks.append("^^" if bad else "  ")
        lines.append(f"  {row:04x} expected: {' '.join(w)}")
        lines.append(f"  {row:04x} actual:   {' '.join(g)}")
        if any(m.strip() for m in marks):
            lines.append(" " * 17 + " ".join(marks).rstrip())
    extra = ""
    if len(got) < len(want):
        extra = f"  actual is {len(got)} bytes, expected at least {len(want)}"
    elif exp.exact and len(got) != len(want):
        extra = f"  actual is {len(got)} bytes, expected exactly {len(want)} ('$')"
    if extra:
        lines.append(extra)
    return "\n".join(lines)


@dataclass
class PortReport:
    port: int
    ok: bool
    text: str


def compare(expects: list[Expect], outputs: dict[int, list[bytes]],
            open_ports: list[int]) -> list[PortReport]:
    """Check every port in order; a port with no expect line must stay silent."""
    by_port: dict[int, list[Expect]] = {}
    for e in expects:
        by_port.setdefault(e.port, []).append(e)
    reports = []
    for port in sorted(set(by_port) | set(outputs) | set(open_ports)):
        want = by_port.get(port, [])
        got = outputs.get(port, [])
        problems = []
        for i in range(max(len(want), len(got))):
            if i >= len(got):
                e = want[i]
                problems.append(f"port {port} packet #{i + 1}: MISSING (stf line {e.line})\n"
                                f"  expected: {' '.join(_groups(e.pattern or '(any packet)'))}")
            elif i >= len(want):
                problems.append(f"port {port} packet #{i + 1}: EXTRA, not expected\n"
                                f"  actual:   {' '.join(_groups(got[i].hex().upper()))}")
            elif not matches(want[i], got[i]):
                problems.append(f"port {port} packet #{i + 1}: DIFFERS (stf line {want[i].line})\n"
                                + render_diff(want[i], got[i]))
        if problems:
            reports.append(PortReport(port, False, "\n".join(problems)))
        elif want or got:
            reports.append(PortReport(port, True, f"port {port}: {len(got)} packet(s) as expected"))
    return reports
