"""The P4-16 abstract syntax tree, declared once. Every node carries a source span.

The checker (p4compiler.check) fills in the fields declared with `checked()`: every
expression's `type` (and folded constant value), what each name (`sym`) and call
(`target`) resolves to, the types of parameters, instances and type references. They
are not constructor arguments; lowering reads them, and only the checker writes them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass

from .diag import Span


def checked(default=None):
    """A field the checker fills in (not set by the parser, not shown in dumps)."""
    return field(default=default, init=False, repr=False, compare=False)


@dataclass(eq=False)
class Node:
    span: Span

    def children(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Node):
                yield v
            elif isinstance(v, list):
                for x in v:
                    if isinstance(x, Node):
                        yield x


class StrArg(str):
    """A string literal argument of an annotation (as opposed to a name or expression token)."""


@dataclass(eq=False)
class Annotation(Node):
    name: str
    args: list  # of python values: str, int, or raw token text
    body: list = field(default_factory=list)  # the tokens between the brackets: (kind, text), commas included
    structured: bool = False  # @a[...] (P4-16 structured annotation) rather than @a(...)
    tokens: list = field(default_factory=list, repr=False, compare=False)  # the body's lexer tokens (expressions are parsed from them by the checker)

    def arg(self, i: int = 0):
        return self.args[i] if i < len(self.args) else None


# ------------------------------------------------------------------- types
@dataclass(eq=False)
class TypeRef(Node):
    resolved: "Type | None" = checked()


@dataclass(eq=False)
class NamedType(TypeRef):
    name: str
    args: list[TypeRef] = field(default_factory=list)


@dataclass(eq=False)
class BitType(TypeRef):
    width: "Expr | None"
    signed: bool = False


@dataclass(eq=False)
class VarbitType(TypeRef):
    width: "Expr"


@dataclass(eq=False)
class BaseType(TypeRef):
    name: str  # bool, error, string, void, int, match_kind, packet_in...


@dataclass(eq=False)
class DontCareType(TypeRef):
    pass


@dataclass(eq=False)
class StackType(TypeRef):
    elem: TypeRef
    size: "Expr"


@dataclass(eq=False)
class TupleType(TypeRef):
    args: list[TypeRef]


@dataclass(eq=False)
class ListType(TypeRef):
    """`list<T>` (P4-16 1.2.4): any number of values of one type."""
    elem: TypeRef


# -------------------------------------------------------------- expressions
@dataclass(eq=False)
class Expr(Node):
    type: "Type | None" = checked()
    folded: object = checked()   # the value of a constant expression, before conversion to its type


@dataclass(eq=False)
class IntLiteral(Expr):
    value: int
    width: int | None = None
    signed: bool = False


@dataclass(eq=False)
class BoolLiteral(Expr):
    value: bool


@dataclass(eq=False)
class StringLiteral(Expr):
    value: str


@dataclass(eq=False)
class Name(Expr):
    name: str
    top_level: bool = False  # `.name`
    sym: "Symbol | None" = checked()


@dataclass(eq=False)
class Member(Expr):
    expr: Expr
    name: str


@dataclass(eq=False)
class Index(Expr):
    expr: Expr
    index: Expr


@dataclass(eq=False)
class Slice(Expr):
    expr: Expr
    hi: Expr
    lo: Expr


@dataclass(eq=False)
class Argument(Node):
    name: str | None
    expr: Expr  # DontCare for `_`


@dataclass(eq=False)
class Call(Expr):
    func: Expr
    type_args: list[TypeRef]
    args: list[Argument]
    target: "CallTarget | None" = checked()

    def target_kind(self) -> str | None:
        return self.target.kind if self.target is not None else None


@dataclass(eq=False)
class Unary(Expr):
    op: str  # '!', '~', '-', '+'
    expr: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(eq=False)
class Cast(Expr):
    to: TypeRef
    expr: Expr


@dataclass(eq=False)
class ListExpr(Expr):
    items: list[Expr]


@dataclass(eq=False)
class StructInit(Expr):
    names: list[str]
    values: list[Expr]
    type_name: TypeRef | None = None


@dataclass(eq=False)
class Mask(Expr):
    value: Expr
    mask: Expr


@dataclass(eq=False)
class Range(Expr):
    lo: Expr
    hi: Expr


@dataclass(eq=False)
class DontCare(Expr):
    pass


@dataclass(eq=False)
class DefaultExpr(Expr):
    pass


@dataclass(eq=False)
class TypeExpr(Expr):
    """A type used where an expression is expected (e.g. `bit<8>` in a cast context)."""
    ref: TypeRef


# --------------------------------------------------------------- statements
@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Assign(Stmt):
    lhs: Expr
    rhs: Expr


@dataclass(eq=False)
class CallStmt(Stmt):
    call: Call


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None = None


@dataclass(eq=False)
class Block(Stmt):
    stmts: list[Stmt]
    annotations: list[Annotation] = field(default_factory=list)


@dataclass(eq=False)
class SwitchCase(Node):
    labels: list[Expr]  # Name (action/const), expr, or DefaultExpr
    body: Block | None  # None: fall through


@dataclass(eq=False)
class Switch(Stmt):
    expr: Expr
    cases: list[SwitchCase]


@dataclass(eq=False)
class Exit(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None = None


@dataclass(eq=False)
class Empty(Stmt):
    pass


@dataclass(eq=False)
class For(Stmt):
    """`for (init; cond; update) body` (P4-16 1.2.4); init holds declarations and
    assignments, update assignments and calls. Unrolled before lowering (unroll.py)."""
    init: list[Stmt]
    cond: Expr | None
    update: list[Stmt]
    body: Stmt


@dataclass(eq=False)
class ForIn(Stmt):
    """`for (T x in collection) body`: a range `a .. b` (both ends included), a header
    stack or a list expression. Unrolled before lowering (unroll.py)."""
    var: VarDecl
    collection: Expr
    body: Stmt


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


# ------------------------------------------------------------- declarations
@dataclass(eq=False)
class Decl(Node):
    name: str
    annotations: list[Annotation]


@dataclass(eq=False)
class VarDecl(Decl, Stmt):
    type_ref: TypeRef
    init: Expr | None = None
    symbol: "Symbol | None" = checked()    # the variable the declaration introduces


@dataclass(eq=False)
class ConstDecl(Decl, Stmt):
    type_ref: TypeRef
    value: Expr


@dataclass(eq=False)
class FieldDecl(Decl):
    type_ref: TypeRef


@dataclass(eq=False)
class HeaderDecl(Decl):
    fields: list[FieldDecl]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False)
class HeaderUnionDecl(Decl):
    fields: list[FieldDecl]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False)
class StructDecl(Decl):
    fields: list[FieldDecl]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False)
class EnumMember(Node):
    name: str
    value: Expr | None


@dataclass(eq=False)
class EnumDecl(Decl):
    members: list[EnumMember]
    underlying: TypeRef | None = None


@dataclass(eq=False)
class ErrorDecl(Decl):
    members: list[EnumMember]


@dataclass(eq=False)
class MatchKindDecl(Decl):
    members: list[EnumMember]


@dataclass(eq=False)
class TypedefDecl(Decl):
    type_ref: TypeRef
    newtype: bool = False
    # `typedef struct s {...} t;` declares the struct before the typedef, but only `t` names it
    # afterwards (as in p4c): the inner type's name, which the checker then forgets
    inner_name: str = ""


@dataclass(eq=False)
class Param(Decl):
    direction: str  # '', 'in', 'out', 'inout'
    type_ref: TypeRef
    default: Expr | None = None
    resolved_type: "Type | None" = checked()


@dataclass(eq=False)
class MethodProto(Decl):
    """A function/method prototype (extern method, extern function, constructor)."""
    ret: TypeRef | None  # None for constructors
    type_params: list[str]
    params: list[Param]
    abstract: bool = False
    extern_type_params: list = checked()   # the type parameters of the extern a method belongs to


@dataclass(eq=False)
class ExternDecl(Decl):
    type_params: list[str]
    methods: list[MethodProto]


@dataclass(eq=False)
class ExternFunctionDecl(Decl):
    proto: MethodProto


@dataclass(eq=False)
class FunctionDecl(Decl):
    proto: MethodProto
    body: Block
    ret_type: "Type | None" = checked()


@dataclass(eq=False)
class ActionDecl(Decl):
    params: list[Param]
    body: Block


@dataclass(eq=False)
class ParserTypeDecl(Decl):
    type_params: list[str]
    params: list[Param]


@dataclass(eq=False)
class ControlTypeDecl(Decl):
    type_params: list[str]
    params: list[Param]


@dataclass(eq=False)
class PackageTypeDecl(Decl):
    type_params: list[str]
    params: list[Param]


@dataclass(eq=False)
class Instantiation(Decl, Stmt):
    type_ref: TypeRef
    args: list[Argument]
    initializer: list[Decl] | None = None
    resolved_type: "Type | None" = checked()


@dataclass(eq=False)
class SelectCase(Node):
    keyset: Expr  # ListExpr for tuples, DefaultExpr, DontCare, Mask, Range, value
    next_state: str
    next_span: Span | None = None


@dataclass(eq=False)
class Select(Expr):
    exprs: list[Expr]
    cases: list[SelectCase]


@dataclass(eq=False)
class ParserState(Decl):
    stmts: list[Stmt]
    transition: "str | Select | None"
    transition_span: Span | None = None


@dataclass(eq=False)
class ValueSetDecl(Decl, Stmt):
    elem: TypeRef
    size: Expr


@dataclass(eq=False)
class ParserDecl(Decl):
    type_params: list[str]
    params: list[Param]
    ctor_params: list[Param]
    locals: list[Decl]
    states: list[ParserState]


@dataclass(eq=False)
class KeyElement(Node):
    expr: Expr
    match_kind: str
    annotations: list[Annotation]


@dataclass(eq=False)
class ActionRef(Node):
    name: str
    args: list[Argument]
    annotations: list[Annotation]
    expr: Expr | None = None
    sym: "Symbol | None" = checked()


@dataclass(eq=False)
class TableEntry(Node):
    keys: list[Expr]
    action: ActionRef
    priority: Expr | None
    annotations: list[Annotation]
    is_const: bool = True


@dataclass(eq=False)
class TableProperty(Node):
    name: str
    value: object  # Expr, list[KeyElement], list[ActionRef], list[TableEntry]
    is_const: bool
    annotations: list[Annotation]


@dataclass(eq=False)
class TableDecl(Decl):
    properties: list[TableProperty]
    action_syms: dict = checked()   # action name -> Symbol, of the `actions` list

    def prop(self, name: str) -> TableProperty | None:
        for p in self.properties:
            if p.name == name:
                return p
        return None


@dataclass(eq=False)
class ControlDecl(Decl):
    type_params: list[str]
    params: list[Param]
    ctor_params: list[Param]
    locals: list[Decl]
    body: Block


@dataclass(eq=False)
class Program(Node):
    decls: list[Decl]


def dump(node, indent: int = 0) -> str:
    """Readable tree dump for --dump-ast."""
    pad = "  " * indent
    if isinstance(node, list):
        return "".join(dump(x, indent) for x in node)
    if not is_dataclass(node):
        return f"{pad}{node!r}\n"
    out = [f"{pad}{type(node).__name__} @{node.span.line}:{node.span.col}"]
    simple = []
    nested = []
    for f in fields(node):
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        if isinstance(v, Node) or (isinstance(v, list) and v and isinstance(v[0], Node)):
            nested.append((f.name, v))
        elif v not in (None, [], ""):
            simple.append(f"{f.name}={v!r}")
    out[0] += " " + " ".join(simple) + "\n"
    for name, v in nested:
        out.append(f"{pad}  .{name}:\n")
        out.append(dump(v, indent + 2))
    return "".join(out)


def fresh_name(base: str, taken: set) -> str:
    """`base`, or `base_N` with the first N that is not in `taken`; the result is added to it."""
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name
