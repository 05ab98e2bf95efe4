"""Binding a call's arguments to the parameters of what it calls: by position or by name,
defaults and `@optional` parameters filling what is left out. Shared by the checker, which
checks the arity, and the lowering, which binds the arguments in parameter order."""
from __future__ import annotations

from . import ast as A


def is_optional(p: A.Param) -> bool:
    """A parameter annotated @optional (an architecture's): its argument may be left out."""
    return any(a.name == "optional" for a in (p.annotations or []))


def arity_ok(params: list[A.Param], args: list[A.Argument]) -> bool:
    """Whether the arguments fit the parameters: every name known, every parameter without a
    default or @optional given one."""
    if any(a.name for a in args):
        names = {p.name for p in params}
        if not all(a.name in names for a in args if a.name):
            return False
        given = {a.name for a in args if a.name}
        return all(p.name in given or p.default is not None or is_optional(p) for p in params)
    required = sum(1 for p in params if p.default is None and not is_optional(p))
    return required <= len(args) <= len(params)


def order_args(params: list[A.Param], args: list[A.Argument]) -> list[A.Expr | None]:
    """The argument expression of each parameter, in parameter order (its default, or None for
    an optional one left out)."""
    if any(a.name for a in args):
        by = {a.name: a.expr for a in args}
        return [by.get(p.name, p.default) for p in params]
    out: list[A.Expr | None] = [a.expr for a in args]
    out += [p.default for p in params[len(args):]]
    return out
