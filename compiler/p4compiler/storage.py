"""Where P4 values live in BMv2: header instances, stacks, unions, scalar fields.

Lowering maps every P4 variable/parameter to a Loc; struct values are flattened
into a StructLoc of their fields' Locs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .types import Composite, Stack, Type, strip_newtype


class Loc:
    pass


@dataclass(eq=False)
class FieldLoc(Loc):
    header: str
    field: str
    type: Type

    def json(self) -> dict:
        return {"type": "field", "value": [self.header, self.field]}


@dataclass(eq=False)
class HeaderLoc(Loc):
    name: str
    type: Composite
    stack: "StackLoc | None" = None
    index: int | None = None

    def field(self, name: str) -> "FieldLoc | StructLoc":
        """The field `name`: a scalar, or (a struct-typed field) a struct of the header's flat fields."""
        leaves = [(path[1:], t, flat) for path, t, flat in self.type.layout() if path[0] == name]
        if len(leaves) == 1 and not leaves[0][0]:
            return FieldLoc(self.name, leaves[0][2], leaves[0][1])
        return _nested(self.name, strip_newtype(self.type.field(name)), leaves)

    def leaf_fields(self) -> list[FieldLoc]:
        """Every stored field, in order (struct-typed fields flattened)."""
        return [FieldLoc(self.name, flat, t) for _, t, flat in self.type.layout()]

    def json(self) -> dict:
        return {"type": "header", "value": self.name}


def _nested(header: str, t: Composite, leaves: list) -> "StructLoc":
    """StructLoc of a struct-typed header field over its flattened leaves ((subpath, type, flat name))."""
    sl = StructLoc(t)
    for n, ft in t.fields:
        sub = [(path[1:], lt, flat) for path, lt, flat in leaves if path[0] == n]
        if len(sub) == 1 and not sub[0][0]:
            sl.fields[n] = FieldLoc(header, sub[0][2], sub[0][1])
        else:
            sl.fields[n] = _nested(header, strip_newtype(ft), sub)
    return sl


@dataclass(eq=False)
class UnionLoc(Loc):
    name: str
    type: Composite
    members: dict[str, HeaderLoc] = field(default_factory=dict)
    stack: "StackLoc | None" = None
    index: int | None = None

    def json(self) -> dict:
        return {"type": "header_union", "value": self.name}


@dataclass(eq=False)
class StackLoc(Loc):
    name: str
    type: Stack
    elems: list = field(default_factory=list)  # HeaderLoc or UnionLoc

    @property
    def is_union_stack(self) -> bool:
        return self.type.elem.kind == "header_union"

    def json(self) -> dict:
        return {"type": "header_union_stack" if self.is_union_stack else "header_stack", "value": self.name}


@dataclass(eq=False)
class StructLoc(Loc):
    type: Composite
    fields: dict[str, Loc] = field(default_factory=dict)


@dataclass(eq=False)
class ValueLoc(Loc):
    """An r-value bound to a name (in-parameters bound to constants, runtime data)."""
    operand: dict
    type: Type

    def json(self) -> dict:
        return self.operand


@dataclass(eq=False)
class ObjLoc(Loc):
    """A non-value object: extern instance, table, control/parser instance."""
    kind: str
    name: str
    decl: object
    json: dict | None = None       # its BMv2 object (extern instances); a table binding it fills in more
    ctor_env: dict = field(default_factory=dict)   # parser/control instances: constructor parameter -> Loc
    objects: dict = field(default_factory=dict)    # parser/control instances: their own objects, made once
    applies: int = 0               # parser instances: call sites given a copy of its states so far


def leaves(loc: Loc) -> list[Loc]:
    """Field and header leaves of a (possibly struct) location, in declaration order."""
    if isinstance(loc, StructLoc):
        out = []
        for v in loc.fields.values():
            out.extend(leaves(v))
        return out
    return [loc]


@dataclass(eq=False)
class DynHeaderLoc(Loc):
    """Element of a header stack selected by a run-time index."""
    stack: StackLoc
    index: dict  # BMv2 operand

    def header_expr(self) -> dict:
        return {"type": "expression", "value": {"op": "dereference_header_stack",
                                                "left": {"type": "header_stack", "value": self.stack.name},
                                                "right": self.index}}

    def field(self, name: str) -> "DynFieldLoc":
        elem = self.stack.type.elem
        names = [f for f, _ in elem.fields]
        return DynFieldLoc(self.stack.name, name, elem.field(name), self, names.index(name))


@dataclass(eq=False)
class DynFieldLoc(FieldLoc):
    dyn: DynHeaderLoc = None
    offset: int = 0

    def json(self) -> dict:
        return {"type": "expression", "value": {"op": "access_field", "left": self.dyn.header_expr(),
                                                "right": self.offset}}


@dataclass(eq=False)
class LastLoc(Loc):
    """`stack.last` in a parser: fields read as BMv2 stack_field."""
    stack: StackLoc

    def field(self, name: str) -> ValueLoc:
        return ValueLoc({"type": "stack_field", "value": [self.stack.name, name]}, self.stack.type.elem.field(name))
