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
    loop_index: bool = False        # a `for` loop's variable: a constant once the loop is unrolled
    span: Span | None = None


class Scope:
    def __init__(self, parent: "Scope | None" = None, owner: object = None, hides_locals: bool = False):
        self.names: dict[str, Symbol] = {}
        self.parent = parent
        self.owner = owner if owner is not None else (parent.owner if parent else None)
        # An initializer block's functions (e.g. a RegisterAction's apply) run in the extern,
        # not in the control: from inside, the enclosing scopes' variables do not exist (p4c:
        # "declaration not found"); parameters, constants and instances stay visible. The
        # checker sets it unless the abstract method is @synchronous.
        self.hides_locals = hides_locals

    def lookup(self, name: str) -> Symbol | None:
        sym, hidden = self._find(name)
        return None if hidden else sym

    def hidden_local(self, name: str) -> Symbol | None:
        """The enclosing control's variable that `name` would be, were it not hidden."""
        sym, hidden = self._find(name)
        return sym if hidden else None

    def _find(self, name: str) -> tuple[Symbol | None, bool]:
        s: Scope | None = self
        hiding = False
        while s is not None:
            sym = s.names.get(name)
            if sym is not None:
                return sym, hiding and sym.kind == "var"
            hiding = hiding or s.hides_locals
            s = s.parent
        return None, False

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
