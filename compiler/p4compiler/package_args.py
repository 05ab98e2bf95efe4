"""Checks that each parser/control passed to a package fits the package's parameter.

`V1Switch<H, M>(Parser<H, M> p, VerifyChecksum<H, M> vr, ...)` (and TNA's `Pipeline`) names,
for every argument, a parser or control type. As p4c unifies them, the parser/control given
must have that type's parameters: as many (an `@optional` one or one with a default value
may be left out at the end), each with the same direction and type, where the package's
type parameters (`H`, `M`) are bound by the first argument that fixes them and must agree
in all the others. A type parameter that no argument binds (a default value written with the
variable itself does not) is refused, as p4c cannot infer it either.
"""
from __future__ import annotations

from . import ast as A
from .call_args import is_optional, order_args
from .check_types import UNKNOWN
from .scope import Scope, Symbol
from .types import ObjectT, Type, TypeVar, same_type


def check_package_args(ck, d: A.Instantiation, pkg: A.PackageTypeDecl, binding: dict[str, Type]) -> None:
    """Report (through the checker `ck`) every argument of the package instantiation `d` whose
    parameters do not match the package's parameter type. `binding` holds the package's type
    arguments given explicitly (`V1Switch<H, M>(...)`); inferred ones are added to it."""
    for p, a in zip(pkg.params, order_args(pkg.params, d.args)):
        if a is None or not isinstance(p.type_ref, A.NamedType):
            continue
        want = ck.top.lookup(p.type_ref.name)
        given = a.type
        if want is None or not isinstance(want.decl, (A.ParserTypeDecl, A.ControlTypeDecl)):
            continue
        if not isinstance(given, ObjectT) or not isinstance(given.decl, (A.ParserDecl, A.ControlDecl)):
            continue       # a wrong kind of argument is the caller's error (bind/arity checks)
        if given.decl.type_params or len(p.type_ref.args) != len(want.decl.type_params):
            continue       # generic parsers/controls: their types are bound per instance
        _match(ck, a, p, want.decl, given.decl, pkg, binding)


def _match(ck, arg: A.Expr, p: A.Param, want: A.ParserTypeDecl | A.ControlTypeDecl,
           given: A.ParserDecl | A.ControlDecl, pkg: A.PackageTypeDecl, binding: dict[str, Type]) -> None:
    kind = "parser" if isinstance(want, A.ParserTypeDecl) else "control"
    where = f"argument '{p.name}' of {pkg.name} ({kind} {want.name})"
    required = sum(1 for q in want.params if not is_optional(q) and q.default is None)
    if not required <= len(given.params) <= len(want.params):
        ck.err(arg, f"{kind} {given.name} has {len(given.params)} parameters, {where} needs {len(want.params)}")
        return
    scope = _type_scope(ck, p.type_ref, want, pkg, binding)
    for q, g in zip(want.params, given.params):
        if g.direction != q.direction:
            ck.err(g, f"parameter '{g.name}' of {kind} {given.name} is {_dir(g.direction)}, "
                      f"{where} needs {_dir(q.direction)} ('{q.name}')")
            continue
        qt = ck._resolve_type(q.type_ref, scope)   # not resolve_type: the shared declaration keeps its own types
        gt = g.resolved_type
        if gt is None or gt is UNKNOWN or qt is UNKNOWN:
            continue
        if isinstance(qt, TypeVar):
            if qt.tname in binding:
                qt = binding[qt.tname]
            else:
                binding[qt.tname] = gt
                continue
        if not same_type(gt, qt):
            ck.err(g, f"parameter '{g.name}' of {kind} {given.name} has type {gt}, {where} needs {qt} ('{q.name}')")


def _type_scope(ck, ref: A.NamedType, want, pkg: A.PackageTypeDecl, binding: dict[str, Type]) -> Scope:
    """Names for resolving the parser/control type's parameters: its own type parameters
    stand for the package's type arguments (`Parser<H, M>` in V1Switch), which are the types
    bound so far or still type variables of the package."""
    outer = Scope(ck.top)
    for tp in pkg.type_params:
        outer.names[tp] = Symbol("type", tp, None, binding.get(tp, TypeVar(tp)))
    inner = Scope(ck.top)
    for tp, targ in zip(want.type_params, ref.args):
        inner.names[tp] = Symbol("type", tp, None, ck._resolve_type(targ, outer))
    return inner


def _dir(direction: str) -> str:
    return f"'{direction}'" if direction else "directionless"


def check_package_type_vars(ck, d: A.Instantiation, pkg: A.PackageTypeDecl, given: dict[str, Type]) -> None:
    """A package's type variables are inferred from the arguments, given or default: a default
    value binds those of its parameter's type unless it is itself written with one of them
    (p4c: `package P<H>(C<H> c = nothing<H>())` then `P() main` cannot bind `H`, while
    `= nothing()`, a control of fixed types, binds it). One that only `@optional` parameters
    left out mention is a don't-care (TNA's `Switch(pipe)`). The first variable that no
    explicit type argument and no such parameter binds is reported at the instance, as p4c does."""
    used: set[str] = set()
    for p, a in zip(pkg.params, order_args(pkg.params, d.args)):     # a default where none is given
        circular = a is not None and a is p.default and _mentions(a, set(pkg.type_params))
        if (a is not None and not circular) or is_optional(p):
            used |= _names_in(p.type_ref)
    for tp in pkg.type_params:
        if tp not in given and tp not in used:
            ck.err(d, f"{d.name}: could not infer a type for variable {tp} of package {pkg.name} "
                      f"(no argument binds it; a default value written with it does not)")
            return


def _names_in(ref) -> set[str]:
    """The type names a type reference mentions, type arguments included."""
    if isinstance(ref, A.NamedType):
        out = {ref.name}
        for a in ref.args:
            out |= _names_in(a)
        return out
    if isinstance(ref, A.TupleType):
        return set().union(*(_names_in(a) for a in ref.args))
    if isinstance(ref, (A.StackType, A.ListType)):
        return _names_in(ref.elem)
    return set()


def _mentions(node, names: set[str]) -> bool:
    """Whether an expression names one of `names` as a type (`nothing<H>()`)."""
    if isinstance(node, A.NamedType) and node.name in names:
        return True
    if isinstance(node, list):
        return any(_mentions(x, names) for x in node)
    return isinstance(node, A.Node) and any(_mentions(c, names) for c in node.children())
