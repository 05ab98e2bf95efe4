"""Midend pass: one copy of a generic function per set of types it is called with.

P4-16 lets a function have type parameters, inferred at each call
(`T max<T>(in T a, in T b)`, `max(x, y)` with `x`, `y` of type bit<8>). The checker types
the generic body once and binds the type parameters at each call (the call's
`CallTarget.binding`); lowering inlines a function with the types of its parameters and
locals, so it needs them concrete. This pass adds, after the generic function, a copy
whose type parameters are replaced by the bound types (`max__1`, with `T` read as
`bit<8>`), and points the call at it; calls with the same types share a copy. The driver
checks the program again after each round (a copy may call another generic function:
rounds go on until nothing changes, at most MAX_ROUNDS), so lowering never meets a type
variable there.

A call whose types cannot be written back as a type reference (a specialized generic
struct, a type variable) is left alone; lowering then refuses it as before.
"""
from __future__ import annotations

import copy
from dataclasses import fields

from . import ast as A
from .types import (BOOL, ERROR, MATCH_KIND, STRING, Bits, Composite, Enum, NewType, ObjectT, P4List, Simple,
                    Stack, Tuple, Varbit)

MAX_ROUNDS = 8      # generic functions calling generic functions, nested this deep


class Specializer:
    """Rounds of the pass over one program; the copies made are remembered across rounds."""
    def __init__(self, program: A.Program):
        self.program = program
        self.changed = False
        self.names = {d.name for d in program.decls}
        self.copies: dict[tuple, A.FunctionDecl] = {}     # (function's id, type names) -> its copy

    def run(self) -> bool:
        """One round on the checked program: redirect every call of a generic function with
        concrete types to the copy for those types; True if anything changed (then the
        program must be checked again)."""
        self.changed = False
        self.walk(self.program)
        return self.changed

    def walk(self, node) -> None:
        if isinstance(node, list):
            for x in list(node):        # copies inserted now are checked before their round
                self.walk(x)
            return
        if not isinstance(node, A.Node):
            return
        if isinstance(node, A.Call):
            self.call(node)
        for f in fields(node):
            if f.init:
                self.walk(getattr(node, f.name))

    def call(self, call: A.Call) -> None:
        tgt = call.target
        decl = tgt.decl if tgt is not None and tgt.kind == "function" else None
        if not isinstance(decl, A.FunctionDecl) or not decl.proto.type_params or not isinstance(call.func, A.Name):
            return
        types = [tgt.binding.get(tp) for tp in decl.proto.type_params]
        refs = [_type_ref(t, call.span) if t is not None else None for t in types]
        if any(r is None for r in refs):
            return
        key = (id(decl), tuple(str(t) for t in types))
        spec = self.copies.get(key)
        if spec is None:
            spec = self.copy(decl, dict(zip(decl.proto.type_params, refs)))
            self.copies[key] = spec
        call.func = A.Name(call.func.span, spec.name, call.func.top_level)
        call.type_args = []
        self.changed = True

    def copy(self, decl: A.FunctionDecl, subst: dict[str, A.TypeRef]) -> A.FunctionDecl:
        """The function with its type parameters replaced, declared right after it."""
        n = 1
        while f"{decl.name}__{n}" in self.names:
            n += 1
        name = f"{decl.name}__{n}"
        self.names.add(name)
        proto = _clone(decl.proto, subst)
        proto.name, proto.type_params = name, []
        spec = A.FunctionDecl(decl.span, name, list(decl.annotations), proto, _clone(decl.body, subst))
        decls = self.program.decls
        decls.insert(decls.index(decl) + 1, spec)
        return spec


def _clone(n, subst: dict[str, A.TypeRef]):
    """A copy of the subtree `n` with each type parameter named in `subst` replaced by a
    fresh copy of its type reference (the checker fills in the rest again)."""
    if isinstance(n, list):
        return [_clone(x, subst) for x in n]
    if not isinstance(n, A.Node):
        return n
    if isinstance(n, A.NamedType) and not n.args and n.name in subst:
        return copy.deepcopy(subst[n.name])
    c = copy.copy(n)
    for f in fields(n):
        if f.init:
            setattr(c, f.name, _clone(getattr(n, f.name), subst))
    return c


def _type_ref(t, span) -> A.TypeRef | None:
    """A type reference that the checker resolves, in the top scope, to `t`; None if `t`
    cannot be written so."""
    if isinstance(t, Bits):
        return A.BitType(span, A.IntLiteral(span, t.width), t.signed)
    if isinstance(t, Varbit):
        return A.VarbitType(span, A.IntLiteral(span, t.width))
    if t in (BOOL, ERROR, STRING, MATCH_KIND):
        return A.BaseType(span, t.kind)
    if isinstance(t, Simple) and t.kind in ("packet_in", "packet_out"):
        return A.NamedType(span, t.kind)
    if isinstance(t, (Composite, Enum, NewType)) and "<" not in t.tname:
        return A.NamedType(span, t.tname)
    if isinstance(t, ObjectT) and t.kind == "extern" and not t.type_args:
        return A.NamedType(span, t.tname)
    if isinstance(t, Stack):
        elem = _type_ref(t.elem, span)
        return A.StackType(span, elem, A.IntLiteral(span, t.size)) if elem is not None else None
    if isinstance(t, P4List):
        elem = _type_ref(t.elem, span)
        return A.ListType(span, elem) if elem is not None else None
    if isinstance(t, Tuple):
        args = [_type_ref(e, span) for e in t.elems]
        return A.TupleType(span, args) if all(a is not None for a in args) else None
    return None
