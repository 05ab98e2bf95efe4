"""Semantic types of P4-16 (after typedefs are resolved)."""
from __future__ import annotations

from dataclasses import dataclass, field


# Sizes users write, bounded so that a typo of 30 digits is refused at once instead of
# filling memory. MAX_WIDTH is p4c's (bit<W>, varbit<W>, `Ww` literals, '++' results,
# constant-folded shifts); a header stack allocates every element in each packet's BMv2
# PHV, so 4096 elements is already far past any real protocol; sizes that P4Info stores
# as int32 (table size, value_set size) and `@id` values that must fit its 32-bit ids.
MAX_WIDTH = 2048
MAX_STACK_SIZE = 4096
MAX_SHIFT = 256          # BMv2 shifts by at most 256 bits (p4c's bmv2 back end refuses more)
MAX_INT32 = (1 << 31) - 1


class Type:
    def __str__(self) -> str:
        return self.name()

    def name(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, eq=True)
class Bits(Type):
    width: int
    signed: bool = False

    def name(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"


@dataclass(frozen=True, eq=True)
class Varbit(Type):
    width: int

    def name(self) -> str:
        return f"varbit<{self.width}>"


@dataclass(frozen=True, eq=True)
class IntT(Type):
    """Infinite-precision integer (unsized literals and constants)."""
    def name(self) -> str:
        return "int"


@dataclass(frozen=True, eq=True)
class Simple(Type):
    kind: str  # bool, string, error, void, match_kind, dontcare, packet_in, packet_out, state

    def name(self) -> str:
        return self.kind


BOOL = Simple("bool")
STRING = Simple("string")
ERROR = Simple("error")
VOID = Simple("void")
MATCH_KIND = Simple("match_kind")
DONTCARE = Simple("dontcare")
STATE = Simple("state")
INT = IntT()


@dataclass(eq=False)
class Composite(Type):
    """header, header_union or struct."""
    kind: str  # 'header', 'header_union', 'struct'
    tname: str
    fields: list[tuple[str, Type]]
    decl: object = None
    annotations: list = field(default_factory=list)
    field_annotations: dict = field(default_factory=dict)
    # layout() computed once the fields are complete: (number of fields, layout)
    _layout: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def name(self) -> str:
        return self.tname

    def field(self, name: str) -> Type | None:
        for n, t in self.fields:
            if n == name:
                return t
        return None

    @property
    def is_header(self) -> bool:
        return self.kind == "header"

    def layout(self) -> list[tuple[tuple[str, ...], "Type", str]]:
        """A header's fields as BMv2 stores them: (path, leaf type, JSON field name).

        Struct-typed fields are flattened in declaration order; as p4c does, a header
        that has any is stored with every field renamed `_<path>_<leaf><index>`."""
        cached = self._layout
        if cached is not None and cached[0] == len(self.fields):
            return cached[1]
        leaves: list = []

        def walk(path, t):
            st = strip_newtype(t)
            if isinstance(st, Composite) and st.is_struct:
                for n, ft in st.fields:
                    walk(path + (n,), ft)
            else:
                leaves.append((path, t))
        for n, ft in self.fields:
            walk((n,), ft)
        flat = len(leaves) != len(self.fields)
        out = [(path, t, f"_{'_'.join(path)}{i}" if flat else path[0]) for i, (path, t) in enumerate(leaves)]
        self._layout = (len(self.fields), out)  # fields are complete once lowering asks
        return out

    @property
    def is_union(self) -> bool:
        return self.kind == "header_union"

    @property
    def is_struct(self) -> bool:
        return self.kind == "struct"


@dataclass(eq=False)
class Stack(Type):
    elem: Type
    size: int

    def name(self) -> str:
        return f"{self.elem.name()}[{self.size}]"


@dataclass(eq=False)
class Enum(Type):
    tname: str
    members: list[str]
    underlying: Bits | None = None
    values: dict[str, int] = field(default_factory=dict)
    decl: object = None

    def name(self) -> str:
        return self.tname


@dataclass(eq=False)
class NewType(Type):
    """`type T N;` a distinct type over T."""
    tname: str
    base: Type

    def name(self) -> str:
        return self.tname


@dataclass(eq=False)
class Tuple(Type):
    elems: list[Type]

    def name(self) -> str:
        return "tuple<" + ", ".join(e.name() for e in self.elems) + ">"


@dataclass(eq=False)
class P4List(Type):
    """`list<T>` (P4-16 1.2.4): a list of any length whose elements are all of type `elem`."""
    elem: Type

    def name(self) -> str:
        return f"list<{self.elem.name()}>"


@dataclass(eq=False)
class ListT(Type):
    """Type of a `{a, b}` list expression before it is matched against a target."""
    elems: list[Type]

    def name(self) -> str:
        return "list<" + ", ".join(e.name() for e in self.elems) + ">"


@dataclass(eq=False)
class StructInitT(Type):
    names: list[str]
    elems: list[Type]

    def name(self) -> str:
        return "{" + ", ".join(f"{n}: {e.name()}" for n, e in zip(self.names, self.elems)) + "}"


@dataclass(eq=False)
class TypeVar(Type):
    tname: str

    def name(self) -> str:
        return self.tname


@dataclass(eq=False)
class ObjectT(Type):
    """Externs, parsers, controls, packages, tables, actions: things that are not values."""
    kind: str      # 'extern', 'parser', 'control', 'package', 'table', 'action', 'function'
    tname: str
    decl: object = None
    type_args: dict = field(default_factory=dict)

    def name(self) -> str:
        return self.tname


def strip_newtype(t: Type) -> Type:
    while isinstance(t, NewType):
        t = t.base
    return t


def bit_width(t: Type) -> int | None:
    t = strip_newtype(t)
    if isinstance(t, Bits):
        return t.width
    if t == BOOL:
        return 1
    if isinstance(t, Enum) and t.underlying is not None:
        return t.underlying.width
    return None


def same_type(a: Type, b: Type) -> bool:
    if a is b:
        return True
    if isinstance(a, (Bits, Varbit, IntT, Simple)):
        return a == b
    if isinstance(a, Stack) and isinstance(b, Stack):
        return a.size == b.size and same_type(a.elem, b.elem)
    if isinstance(a, Tuple) and isinstance(b, Tuple):
        return len(a.elems) == len(b.elems) and all(same_type(x, y) for x, y in zip(a.elems, b.elems))
    if isinstance(a, P4List) and isinstance(b, P4List):
        return same_type(a.elem, b.elem)
    if isinstance(a, NewType) and isinstance(b, NewType):
        return a.tname == b.tname
    if isinstance(a, Composite) and isinstance(b, Composite):
        return a.tname == b.tname and a.kind == b.kind
    if isinstance(a, Enum) and isinstance(b, Enum):
        return a.tname == b.tname
    if isinstance(a, ObjectT) and isinstance(b, ObjectT):
        return a.tname == b.tname
    if isinstance(a, Simple) and isinstance(b, ObjectT) or isinstance(b, Simple) and isinstance(a, ObjectT):
        return a.name() == b.name()
    return False


def header_bits(t: Composite) -> int:
    total = 0
    for _, ft in t.fields:
        w = bit_width(ft)
        if w is None and isinstance(ft, Varbit):
            w = 0
        total += w or 0
    return total
