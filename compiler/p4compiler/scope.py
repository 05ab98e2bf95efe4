"""Symbols and lexical scopes used by the checker and the lowering."""
from __future__ import annotations

from dataclasses import dataclass, field

from .diag import Reporter, Span
from .types import Type


@dataclass(eq=False)
class Symbol:
    kind: str        # type, typevar, const, var, param, action, table, instance, function,
                     # extern_function, state, value_set, parser, control, match_kind, package
    name: str
    decl: object = None
    type: Type | None = None
    value: object = None            # constants: folded value
    overloads: list = field(default_factory=list)
    direction: str = ""            # params
    owner: object = None            # enclosing parser/control/action decl
    span: Span | None = None


class Scope:
    def __init__(self, parent: "Scope | None" = None, owner: object = None):
        self.names: dict[str, Symbol] = {}
        self.parent = parent
        self.owner = owner if owner is not None else (parent.owner if parent else None)

    def lookup(self, name: str) -> Symbol | None:
        s: Scope | None = self
        while s is not None:
            sym = s.names.get(name)
            if sym is not None:
                return sym
            s = s.parent
        return None

    def root(self) -> "Scope":
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def declare(self, sym: Symbol, span: Span | None, rep: Reporter) -> None:
        old = self.names.get(sym.name)
        if old is not None:
            # overloads of functions/methods by argument count are allowed
            if old.kind in ("extern_function", "action", "function") and sym.kind == old.kind and old.kind != "action":
                old.overloads.extend(sym.overloads)
                return
            where = f" (previous declaration at {old.span})" if old.span and old.span.line else ""
            rep.error(span, f"duplicate declaration of '{sym.name}'{where}")
            return
        sym.span = span
        self.names[sym.name] = sym
