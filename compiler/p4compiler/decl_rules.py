"""Where p4c's front end forbids a kind of type: parameters, variables, fields, tuples.

P4-16 lets `string`, `int`, externs, parsers, controls and packages appear only in some
positions (spec 7.2.x and p4c's TypeInference): an extern or a string is passed without a
direction; a parser or control is a constructor parameter, never an apply parameter or
an action's; only a package takes a package; `int` has no direction and no place in an
action; variables hold values only; a tuple holds no extern, parser, control or package;
`@optional` is for externs and packages. Each rule is checked here, at the declaration
p4c names, with p4c's wording where it has one.
"""
from __future__ import annotations

from . import ast as A
from .check_types import UNKNOWN
from .scope import Scope, Symbol
from .types import BOOL, STRING, Bits, Composite, Enum, IntT, NewType, ObjectT, Tuple, TypeVar, strip_newtype

# the kind of parameter list, as p4c's checkParameters(forbidModules, forbidPackages) sees it
APPLY, ACTION, METHOD, FUNCTION, CTOR, PACKAGE = "apply", "action", "method", "function", "ctor", "package"


def kind_of(ref: A.TypeRef | None, scope: Scope) -> tuple[str, str] | None:
    """What a type reference names among the restricted kinds, without reporting anything:
    ('string'|'int'|'extern'|'parser'|'control'|'package'|'table', how p4c prints it), or None
    for an ordinary (value) type. A declared parser/control (with a body) is 'parser'/'control'
    'parser decl'/'control decl': as a type it is forbidden even where its type declaration is not."""
    if isinstance(ref, A.BaseType):
        return (ref.name, ref.name) if ref.name in ("string", "int") else None
    if not isinstance(ref, A.NamedType):
        return None
    sym = scope.lookup(ref.name)
    if sym is None:
        return None
    if sym.kind == "type":
        t = strip_newtype(sym.type) if sym.type is not None else None
        if t is STRING or isinstance(t, IntT):
            return ("string", "string") if t is STRING else ("int", "int")
        return None
    kind = {"extern_type": "extern", "parser_type": "parser", "parser": "parser decl", "control_type": "control",
            "control": "control decl", "package_type": "package"}.get(sym.kind)
    if kind is None:
        return None
    return kind, (ref.name if kind == "extern" else f"{kind.split()[0]} {ref.name}")


def generic_scope(top: Scope, *type_param_lists: list[str]) -> Scope:
    """The top scope with type parameters shadowing what they name."""
    s = Scope(top)
    for tps in type_param_lists:
        for tp in tps or []:
            s.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
    return s


def check_params(ck, params: list[A.Param], scope: Scope, where: str) -> None:
    """Report each parameter of a list of kind `where` whose type, direction, default value
    or `@optional` p4c refuses there (`ck` is the checker, which reports)."""
    for p in params:
        _default_and_optional(ck, p, where)
        k = kind_of(p.type_ref, scope)
        if k is None:
            continue
        kind, shown = k
        modules_forbidden = where in (APPLY, ACTION)
        sym = scope.lookup(p.type_ref.name) if isinstance(p.type_ref, A.NamedType) else None
        if kind == "extern" and getattr(sym.decl, "type_params", None) and not p.type_ref.args:
            ck.err(p, f"parameter '{p.name}' needs the type arguments of generic extern {shown}")
        if kind.endswith(" decl"):
            ck.err(p, f"parameter '{p.name}' cannot have type {shown} (a parameter names a parser or "
                      f"control type, not a declared {shown.split()[0]})")
        elif kind == "package" and where != PACKAGE:
            ck.err(p, f"parameter '{p.name}' cannot be a package (only a package takes packages)")
        elif p.direction and kind in ("extern", "string"):
            ck.err(p, f"parameter '{p.name}' of type {shown} cannot have a direction")
        elif (modules_forbidden or p.direction) and kind in ("parser", "control"):
            ck.err(p, f"parameter '{p.name}' cannot have type {shown} (parsers and controls are passed "
                      f"only as directionless constructor parameters)")
        elif kind == "int" and p.direction:
            ck.err(p, f"parameter '{p.name}' of type int must be directionless")
        elif kind == "int" and where == ACTION:
            ck.err(p, f"action parameter '{p.name}' cannot have type int")
        elif kind == "extern" and where == ACTION:
            ck.err(p, f"action parameter '{p.name}' cannot have extern type {shown}")


def _default_and_optional(ck, p: A.Param, where: str) -> None:
    optional = any(a.name == "optional" for a in p.annotations or [])
    if p.default is not None and optional:
        ck.err(p, f"optional parameter '{p.name}' cannot have a default value")
    if p.default is not None and p.direction in ("out", "inout"):
        ck.err(p, f"{p.direction} parameter '{p.name}' cannot have a default value")
    if optional and where in (FUNCTION, CTOR):
        ck.err(p, f"optional parameter '{p.name}' not allowed here (only in extern methods, extern "
                  f"functions and packages)")
    if p.direction and where == PACKAGE:
        ck.err(p, f"package parameter '{p.name}' cannot have a direction (constructor parameters "
                  f"are directionless)")
    elif p.direction and where == CTOR:
        ck.err(p, f"constructor parameter '{p.name}' cannot have a direction")


def check_variable_type(ck, d: A.VarDecl, scope: Scope) -> None:
    """A variable holds a value: not an extern, parser, control or package (instantiate those),
    nor a string or an int."""
    k = kind_of(d.type_ref, scope)
    if k is None:
        return
    kind, shown = k
    if kind in ("string", "int"):
        ck.err(d, f"cannot declare variable '{d.name}' of type {kind}")
    else:
        ck.err(d, f"cannot declare variable '{d.name}' of type {shown} (consider an instantiation)")


def check_tuple_elements(ck, ref: A.TupleType, scope: Scope) -> None:
    """A tuple holds values: not an extern, parser, control or package."""
    for a in ref.args:
        k = kind_of(a, scope)
        if k is not None and k[0] not in ("string", "int"):
            ck.err(a, f"{k[1]} not supported as a tuple field")


def struct_field_ok(ft) -> bool:
    """A struct field may be any value type (p4c's Type_Struct validator): not a string, an
    int, an extern, a parser, a control or a package."""
    t = strip_newtype(ft)
    return not (t is STRING or isinstance(t, (IntT, ObjectT)))


def value_set_elem_ok(t) -> bool:
    """value_set<T>: T is bit/int<W>, bool, an enum, a struct, a tuple or a new type."""
    if isinstance(t, NewType) or t is UNKNOWN or isinstance(t, TypeVar):
        return True
    return isinstance(t, (Bits, Enum, Tuple)) or t == BOOL or (isinstance(t, Composite) and t.is_struct)


def self_references(m: A.MethodProto, ext: A.ExternDecl) -> list[A.NamedType]:
    """The type references to extern `ext` in its own method `m` (unless a type parameter
    hides its name): p4c does not support an extern type mentioning itself."""
    hidden = set(ext.type_params) | set(m.type_params)
    if ext.name in hidden:
        return []
    found: list[A.NamedType] = []

    def walk(ref):
        if isinstance(ref, A.NamedType):
            if ref.name == ext.name:
                found.append(ref)
            for a in ref.args:
                walk(a)
        elif isinstance(ref, A.TupleType):
            for a in ref.args:
                walk(a)
        elif isinstance(ref, (A.StackType, A.ListType)):
            walk(ref.elem)
    for p in m.params:
        walk(p.type_ref)
    if m.ret is not None:
        walk(m.ret)
    return found


def contains_self(decl, args: list) -> bool:
    """Whether a generic type's arguments are (a specialization of) the same type
    (`E<E<bit<8>>>`), or a parser/control whose parameters are (`W<C>` with `control C(W<_> w)`),
    which p4c refuses: 'contains self as type argument'."""
    for a in args:
        a = strip_newtype(a)
        inner = getattr(a, "decl", None)
        if inner is decl:
            return True
        if isinstance(a, ObjectT) and isinstance(inner, (A.ParserDecl, A.ControlDecl, A.ParserTypeDecl,
                                                         A.ControlTypeDecl)):
            if any(getattr(getattr(p.type_ref, "resolved", None), "decl", None) is decl for p in inner.params):
                return True
    return False


def check_instantiated_ctor(ck, decl, args: list, node) -> bool:
    """What p4c refuses only once a declaration is instantiated: an extern constructor that
    takes a parser, control or package (TypeInference: 'parameter cannot have type'), and a
    parser constructed inside a control or a control inside a parser (inlining: 'instantiation
    of parser in control'). Reported at the parameter, as p4c does; True if anything was."""
    found = False
    if isinstance(decl, A.ExternDecl):
        for m in decl.methods:
            if m.ret is None and m.name == decl.name and len(m.params) == len(args):
                scope = generic_scope(ck.top, decl.type_params, m.type_params)
                for p in m.params:
                    k = kind_of(p.type_ref, scope)
                    if k is not None and k[0].split()[0] in ("parser", "control", "package"):
                        found = True
                        ck.err(p, f"parameter '{p.name}' of the constructor of extern {decl.name} cannot have "
                                  f"type {k[1]} (an extern is not given parsers, controls or packages)")
    elif isinstance(decl, (A.ParserDecl, A.ControlDecl)):
        own = "parser" if isinstance(decl, A.ParserDecl) else "control"
        other = "control" if own == "parser" else "parser"
        for p in decl.ctor_params:
            k = kind_of(p.type_ref, ck.top)
            if k is not None and k[0].split()[0] == other:
                found = True
                ck.err(p, f"parameter '{p.name}': instantiation of {other} in {own} {decl.name} (a {own} can "
                          f"only apply {own}s)")
    return found


def check_type_params(ck, d: A.Decl) -> None:
    """A declaration's type parameters (and each extern method's) have distinct names."""
    lists = [getattr(d, "type_params", None) or []]
    if isinstance(d, A.ExternDecl):
        lists += [m.type_params for m in d.methods]
    elif isinstance(d, (A.FunctionDecl, A.ExternFunctionDecl)):
        lists.append(d.proto.type_params)
    for tps in lists:
        seen = set()
        for tp in tps:
            if tp in seen:
                ck.err(d, f"duplicate type parameter '{tp}' in {d.name}")
            seen.add(tp)


def has_call(e) -> bool:
    """Whether an expression calls anything (then it is no compile-time constant)."""
    if isinstance(e, A.Call):
        return True
    if isinstance(e, A.Node):
        return any(has_call(getattr(e, f)) for f in e.__dataclass_fields__ if f != "span")
    if isinstance(e, list):
        return any(has_call(x) for x in e)
    return False


KIND_NAMES = {"var": "variable", "param": "parameter"}


def variable_in(e) -> "A.Name | None":
    """The first name of a variable or parameter (checked) in an expression that must be a
    compile-time constant, or None."""
    if isinstance(e, A.Name):
        sym = e.sym
        if sym is None or sym.kind not in ("var", "param") or sym.loop_index:
            return None
        # a parser's or control's constructor parameter is a compile-time constant
        return None if sym.decl in getattr(sym.owner, "ctor_params", ()) else e
    if isinstance(e, A.Node):
        for f in e.__dataclass_fields__:
            if f != "span":
                found = variable_in(getattr(e, f))
                if found is not None:
                    return found
    elif isinstance(e, list):
        for x in e:
            found = variable_in(x)
            if found is not None:
                return found
    return None


def check_structured_annotations(ck, node) -> None:
    """A structured annotation (`@a[...]`) is the only annotation of its name on an element
    (p4c: 'duplicate name for structured annotation'). Walks declarations, not expressions."""
    annos = getattr(node, "annotations", None)
    if isinstance(annos, list) and len(annos) > 1:
        reported = set()
        for a in annos:
            if isinstance(a, A.Annotation) and a.structured and a.name not in reported \
                    and sum(1 for b in annos if isinstance(b, A.Annotation) and b.name == a.name) > 1:
                reported.add(a.name)
                ck.err(a, f"@{a.name}: duplicate name for a structured annotation")
    for f in getattr(node, "__dataclass_fields__", ()):
        if f in ("span", "annotations"):
            continue
        v = getattr(node, f)
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, A.Node) and not isinstance(x, A.Expr):
                check_structured_annotations(ck, x)
