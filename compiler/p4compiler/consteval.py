"""Compile-time evaluation: folds constant expressions with infinite precision.

Integers are Python ints; a result is wrapped to its expression's width only when the
expression has a sized type (bit<W>/int<W>), as the P4-16 specification requires.
"""
from __future__ import annotations

from . import ast as A
from .types import BOOL, Bits, Composite, Enum, Stack, Varbit, bit_width, header_bits, strip_newtype


def const_value(e: A.Expr, env: dict | None = None):
    """Fold a compile-time constant: int (infinite precision, wrapped to the
    expression's width when it has one), bool, or None if not constant. `env` gives
    values to variables (symbol -> value), as when a loop is unrolled."""
    try:
        return _const(e, env)
    except (ZeroDivisionError, RecursionError, ValueError, OverflowError, MemoryError):
        return None


def _wrap(v: int, t) -> int:
    st = strip_newtype(t) if t is not None else None
    if isinstance(st, Bits):
        m = (1 << st.width) - 1
        v &= m
        if st.signed and st.width and v >> (st.width - 1):
            v -= 1 << st.width
    return v


def _const(e: A.Expr, env: dict | None = None):
    if not isinstance(e, A.Expr):  # e.g. a missing optional argument
        return None
    t = e.type
    folded = e.folded
    if folded is not None:
        return _wrap(folded, t)
    if isinstance(e, A.IntLiteral):
        if e.width is not None:
            return _wrap(e.value, Bits(e.width, e.signed))
        return _wrap(e.value, t)
    if isinstance(e, A.BoolLiteral):
        return e.value
    if isinstance(e, A.Name):
        sym = e.sym
        if env and sym in env:
            return _wrap(env[sym], t)
        if sym is not None and sym.kind == "const" and isinstance(sym.value, (int, bool)):
            v = sym.value
            return v if isinstance(v, bool) else _wrap(v, t)
        return None
    if isinstance(e, A.Member):
        bt = e.expr.type
        if type(bt).__name__ == "TypeName" and isinstance(bt.target, Enum) and bt.target.underlying:
            return bt.target.values.get(e.name)
        if isinstance(strip_newtype(bt), Stack) and e.name == "size":
            return strip_newtype(bt).size
        return None
    if isinstance(e, A.Unary):
        v = _const(e.expr, env)
        if v is None:
            return None
        if e.op == "!":
            return not v
        if e.op == "-":
            return _wrap(-v, t)
        if e.op == "+":
            return v
        if e.op == "~":
            return _wrap(~v, t)
    if isinstance(e, A.Binary):
        a = _const(e.left, env)
        if a is None:
            return None
        if e.op == "&&" and a is False:
            return False
        if e.op == "||" and a is True:
            return True
        b = _const(e.right, env)
        if b is None:
            return None
        op = e.op
        if op == "&&":
            return bool(b)
        if op == "||":
            return bool(b)
        if op == "==":
            return a == b
        if op == "!=":
            return a != b
        if op == "<":
            return a < b
        if op == ">":
            return a > b
        if op == "<=":
            return a <= b
        if op == ">=":
            return a >= b
        st = strip_newtype(t)
        if op == "++":
            rw = bit_width(e.right.type) or 0
            return _wrap((a << rw) | (b & ((1 << rw) - 1)), t)
        if op == "|+|" or op == "|-|":
            r = a + b if op == "|+|" else a - b
            if isinstance(st, Bits):
                lo, hi = (-(1 << (st.width - 1)), (1 << (st.width - 1)) - 1) if st.signed else (0, (1 << st.width) - 1)
                r = max(lo, min(hi, r))
            return r
        if op in ("<<",) and b > 4096:
            return _wrap(0, t) if isinstance(st, Bits) else None
        f = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b,
             "%": lambda: a % b, "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
             "<<": lambda: a << b, ">>": lambda: a >> b}.get(op)
        if f is None:
            return None
        if isinstance(st, Bits) and st.signed is False:
            a &= (1 << st.width) - 1
        return _wrap(f(), t)
    if isinstance(e, A.Ternary):
        c = _const(e.cond, env)
        if c is None:
            return None
        return _const(e.then if c else e.other, env)
    if isinstance(e, A.Cast):
        v = _const(e.expr, env)
        if v is None:
            return None
        st = strip_newtype(t)
        if st == BOOL:
            return bool(v)
        if isinstance(v, bool):
            v = int(v)
        if isinstance(st, Enum):
            return v
        return _wrap(v, t)
    if isinstance(e, A.Slice):
        v = _const(e.expr, env)
        hi, lo = _const(e.hi, env), _const(e.lo, env)
        if v is None or hi is None or lo is None:
            return None
        return (v >> lo) & ((1 << (hi - lo + 1)) - 1)
    if isinstance(e, A.Call):
        tgt = e.target
        if tgt and tgt.kind == "builtin" and tgt.name in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
            rt = tgt.recv_type
            if isinstance(rt, Composite):
                bits = header_bits(rt)
                if tgt.name.startswith("max"):
                    bits += sum(ft.width for _, ft in rt.fields if isinstance(ft, Varbit))
                return bits if tgt.name.endswith("Bits") else (bits + 7) // 8
    return None
