"""Types the checker gives to expressions that are not P4 values (errors, methods, table results)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .types import Type


class Unknown(Type):
    """Type of an expression that already produced an error (suppresses follow-up errors)."""
    def name(self) -> str:
        return "<error>"


UNKNOWN = Unknown()


@dataclass(eq=False)
class MethodRef(Type):
    """A method or function that can be called: what `f` in `f(...)` denotes."""
    kind: str              # builtin, extern_method, extern_function, action, function, table_apply, apply
    mname: str
    obj: object = None     # the receiver expression (or None)
    protos: list = None    # candidate A.MethodProto (extern methods/functions)
    decl: object = None    # action/function/table/parser/control decl
    recv_type: Type | None = None

    def name(self) -> str:
        return f"method {self.mname}"


@dataclass(eq=False)
class CallTarget:
    """What a call resolves to: the checker's answer for every A.Call (its `target`)."""
    kind: str              # ctor, action, table_apply, apply, function, extern_function, extern_method, builtin
    decl: object = None    # the type (ctor), action, table, parser/control, function or extern declaration
    proto: object = None   # the chosen A.MethodProto (function, extern_function, extern_method)
    obj: object = None     # the receiver expression (extern methods, builtins)
    binding: dict = field(default_factory=dict)   # type parameter -> type (extern functions and methods)
    name: str = ""         # the method's name (builtins: isValid, extract, lookahead, ...)
    recv_type: Type | None = None   # the receiver's type (builtins)


@dataclass(eq=False)
class TableResult(Type):
    table: object
    def name(self) -> str:
        return "table apply result"


@dataclass(eq=False)
class ActionRun(Type):
    table: object
    def name(self) -> str:
        return "action_run"


@dataclass(eq=False)
class TypeName(Type):
    """A type used as an expression (e.g. `MyEnum` in `MyEnum.A`, `error`)."""
    target: Type
    def name(self) -> str:
        return f"type {self.target.name()}"
