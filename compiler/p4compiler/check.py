"""Name resolution and type checking.

Walks the AST once, declares every name in its scope, resolves type references,
gives every expression a `type` (and Names a `sym`, Calls a `target`), folds
constants with infinite precision, and collects every error it finds.
"""
from __future__ import annotations

from contextlib import contextmanager

from . import ast as A
from .call_args import arity_ok
from .check_expr import ExprChecker
from .check_types import UNKNOWN, ActionRun, Unknown
from .diag import Reporter, Span
from .scope import Scope, Symbol
from .types import (BOOL, DONTCARE, ERROR, INT, MATCH_KIND, IntT, STATE, STRING, VOID, Bits, Composite, Enum, NewType, ObjectT,
                    P4List, Simple, Stack, Tuple, Type, TypeVar, Varbit, bit_width, same_type, strip_newtype,
                    MAX_INT32, MAX_STACK_SIZE, MAX_WIDTH)
from .package_args import check_package_args, check_package_type_vars
from .annotation_rules import check_annotation_bodies
from . import decl_rules as R
from .visitor import Visitor


class Checker(Visitor):
    """Declares names, resolves types, checks declarations and statements (named pass
    `visit_<Stmt>`) and, through its expression part `exprs`, types every expression; all
    errors are collected in the reporter."""
    def __init__(self, rep: Reporter):
        self.rep = rep
        self.top = Scope()
        self.errors: list[str] = []
        self.match_kinds: list[str] = []
        self.program: A.Program | None = None
        self.new_types: dict[str, NewType] = {}
        self.enums: list[Enum] = []
        self.main: A.Instantiation | None = None
        self.declaring: A.Decl | None = None    # the top-level type being declared (self-references)
        self.defaults_to_no_action: A.TableDecl | None = None   # the first table without default_action
        self.value_switch: A.Switch | None = None   # the first switch on a value (not on action_run)
        self.runtime_division: A.Binary | None = None  # the first '/' or '%' p4c cannot strength-reduce
        self.nested_out_call: tuple | None = None  # the first extern call passing a nested struct out (call, param, name, type)
        self.exprs = ExprChecker(self)      # expressions, calls and coercions (check_expr.py)

    # ------------------------------------------------------------ helpers
    def err(self, node_or_span, msg: str) -> None:
        span = node_or_span if isinstance(node_or_span, Span) else getattr(node_or_span, "span", None)
        self.rep.error(span, msg)

    def declare(self, scope: Scope, sym: Symbol, span: Span) -> None:
        scope.declare(sym, span, self.rep)

    @contextmanager
    def type_errors_at(self, span: Span):
        """Report the type mismatches found inside at `span`: p4c reports a keyset or a
        switch label of the wrong type at the select or switch expression it is compared with."""
        saved, scratch = self.rep, Reporter()
        self.rep = scratch
        try:
            yield
        finally:
            self.rep = saved
            for w in scratch.warnings:
                saved.warning(w.span, w.message)
            for d in scratch.diagnostics:
                moved = d.message.startswith(("type mismatch", "cannot use int for")) and \
                    ("keyset value" in d.message or "switch label" in d.message)   # a range or mask: at itself
                saved.error(span if moved else d.span, d.message)

    # ------------------------------------------------------------ program
    def run(self, program: A.Program) -> None:
        self.program = program
        self.top.declare(Symbol("type", "error", None, ERROR), None, self.rep)
        for d in program.decls:
            self.declaring = d
            R.check_type_params(self, d)
            R.check_structured_annotations(self, d)
            try:
                self.global_decl(d)
            except RecursionError:
                self.err(d, "declaration nested too deeply")
            self.declaring = None
        for d in program.decls:     # after every declaration: annotations may name later ones
            check_annotation_bodies(self, d)
        if self.defaults_to_no_action is not None:
            self.default_no_action(self.defaults_to_no_action)

    def global_decl(self, d: A.Decl) -> None:
        """Declare one top-level declaration (types, errors, match kinds, externs, parsers,
        controls, actions, functions, constants, instances) in the top scope and check what can
        be checked on its own."""
        s = self.top
        if isinstance(d, (A.HeaderDecl, A.HeaderUnionDecl, A.StructDecl)):
            kind = {A.HeaderDecl: "header", A.HeaderUnionDecl: "header_union", A.StructDecl: "struct"}[type(d)]
            t = Composite(kind, d.name, [], d, d.annotations)
            self.declare(s, Symbol("type", d.name, d, t), d.span)
            inner = Scope(s)
            for tp in d.type_params:
                inner.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
            seen = set()
            for f in d.fields:
                ft = self.resolve_type(f.type_ref, inner)
                if f.name in seen:
                    self.err(f, f"duplicate field '{f.name}' in {kind} {d.name}")
                seen.add(f.name)
                if not isinstance(ft, TypeVar):  # a generic type's fields are checked where it is specialized
                    self.check_field_type(kind, f.name, ft, f.type_ref)
                t.fields.append((f.name, ft))
                t.field_annotations[f.name] = f.annotations
            if kind == "header":
                varbits = [f for f, (_, ft) in zip(d.fields, t.fields) if isinstance(ft, Varbit)]
                if len(varbits) > 1:     # at the first of them, as p4c
                    self.err(varbits[0], f"header {d.name} has more than one varbit field")
        elif isinstance(d, A.EnumDecl):
            self.enum_decl(d, s)
        elif isinstance(d, A.ErrorDecl):
            for m in d.members:
                if m.name in self.errors:
                    self.err(m, f"duplicate error member '{m.name}'")
                else:
                    self.errors.append(m.name)
        elif isinstance(d, A.MatchKindDecl):
            for m in d.members:
                if m.name in self.match_kinds:
                    self.err(m, f"duplicate match_kind '{m.name}'")
                    continue
                self.match_kinds.append(m.name)
                self.declare(s, Symbol("match_kind", m.name, m, MATCH_KIND), m.span)
        elif isinstance(d, A.TypedefDecl):
            base = self.resolve_type(d.type_ref, s)
            if d.newtype:
                if not (isinstance(base, (Bits, NewType, Unknown)) or base == BOOL):
                    self.err(d, f"'type' can only be applied to base types (bit<W>, int<W>, bool or another 'type'), not {base}")
                t = NewType(d.name, base)
                self.new_types[d.name] = t
            else:
                t = base
            self.declare(s, Symbol("type", d.name, d, t), d.span)
            inner = s.names.get(d.inner_name) if d.inner_name else None
            if inner is not None and inner.kind == "type" and inner.decl is not None:
                del s.names[d.inner_name]     # p4c: only the typedef's name is declared
        elif isinstance(d, A.ConstDecl):
            self.const_decl(d, s)
        elif isinstance(d, A.ExternDecl):
            sym = Symbol("extern_type", d.name, d, ObjectT("extern", d.name, d))
            self.declare(s, sym, d.span)
            for m in d.methods:
                m.extern_type_params = d.type_params
                if m.name == d.name and m.ret is not None:
                    self.err(m, f"invalid constructor {d.name}: a constructor cannot have a return type")
                for ref in R.self_references(m, d):
                    self.self_reference(ref, d)
                self.method_proto(m, R.generic_scope(s, d.type_params, m.type_params), R.CTOR if m.ret is None else R.METHOD)
        elif isinstance(d, A.ExternFunctionDecl):
            self.declare(s, Symbol("extern_function", d.name, d, None, overloads=[d.proto]), d.span)
            R.check_params(self, d.proto.params, R.generic_scope(s, d.proto.type_params), R.METHOD)
            if d.proto.ret is not None:     # an undeclared or incomplete result type is reported here
                self.resolve_type(d.proto.ret, R.generic_scope(s, d.proto.type_params))
        elif isinstance(d, A.FunctionDecl):
            self.declare(s, Symbol("function", d.name, d, None, overloads=[d.proto]), d.span)
            self.function_body(d, s)
        elif isinstance(d, A.ActionDecl):
            self.declare(s, Symbol("action", d.name, d, ObjectT("action", d.name, d)), d.span)
            self.action_body(d, s)
        elif isinstance(d, A.ParserTypeDecl):
            self.declare(s, Symbol("parser_type", d.name, d, ObjectT("parser", d.name, d)), d.span)
            R.check_params(self, d.params, R.generic_scope(s, d.type_params), R.APPLY)
        elif isinstance(d, A.ControlTypeDecl):
            self.declare(s, Symbol("control_type", d.name, d, ObjectT("control", d.name, d)), d.span)
            R.check_params(self, d.params, R.generic_scope(s, d.type_params), R.APPLY)
        elif isinstance(d, A.PackageTypeDecl):
            self.declare(s, Symbol("package_type", d.name, d, ObjectT("package", d.name, d)), d.span)
            R.check_params(self, d.params, R.generic_scope(s, d.type_params), R.PACKAGE)
            for p in d.params:      # an undeclared type here is reported before any instance
                self.resolve_type(p.type_ref, R.generic_scope(s, d.type_params))
        elif isinstance(d, A.ParserDecl):
            self.declare(s, Symbol("parser", d.name, d, ObjectT("parser", d.name, d)), d.span)
            self.parser_body(d, s)
        elif isinstance(d, A.ControlDecl):
            self.declare(s, Symbol("control", d.name, d, ObjectT("control", d.name, d)), d.span)
            self.control_body(d, s)
        elif isinstance(d, A.Instantiation):
            self.instantiation(d, s)
            if d.name == "main":
                self.main = d
            t = d.resolved_type
            if isinstance(t, ObjectT) and isinstance(t.decl, (A.ParserDecl, A.ControlDecl)):
                self.err(d, f"cannot instantiate {t.kind} {t.decl.name} at the top level (only externs and packages)")
        else:
            self.err(d, f"unsupported: top-level {type(d).__name__}")

    def enum_decl(self, d: A.EnumDecl, s: Scope) -> None:
        """Declare an enum: members distinct; a serializable one over bit<W>/int<W> (not a
        'type'), every member given a constant value, kept at the underlying width."""
        under = None
        if d.underlying is not None:
            rt = self.resolve_type(d.underlying, s)
            ut = strip_newtype(rt)
            if isinstance(rt, NewType):
                self.err(d.underlying, f"enum underlying type must be bit<W> or int<W>, not {rt} (a type declared "
                                       f"with 'type' is not allowed, even of a fixed width)")
                under = ut if isinstance(ut, Bits) else None      # its members are still checked
            elif not isinstance(ut, Bits):
                self.err(d.underlying, f"enum underlying type must be bit<W> or int<W>, not {ut}")
            else:
                under = ut
        t = Enum(d.name, [m.name for m in d.members], under, {}, d)
        seen = set()
        for m in d.members:
            if m.name in seen:
                self.err(m, f"duplicate enum member '{m.name}' in {d.name}")
            seen.add(m.name)
            if under is not None:
                if m.value is None:
                    self.err(m, f"member '{m.name}' of serializable enum {d.name} needs a value")
                    continue
                self.exprs.expr(m.value, s)
                v = self.exprs.const_value(m.value)
                if not isinstance(v, int) or isinstance(v, bool):
                    self.err(m.value, "enum member value must be a compile-time integer")
                    continue
                t.values[m.name] = v & ((1 << under.width) - 1)
            elif m.value is not None:
                self.err(m.value, f"enum {d.name} without underlying type cannot give member values")
        self.enums.append(t)
        self.declare(s, Symbol("type", d.name, d, t), d.span)

    def const_decl(self, d: A.ConstDecl, s: Scope) -> None:
        t = self.resolve_type(d.type_ref, s)
        self.exprs.expr(d.value, s)
        self.exprs.coerce(d.value, t, f"constant '{d.name}'")
        v = self.exprs.const_value(d.value)
        if v is None and not isinstance(d.value.type, Unknown) and not isinstance(strip_newtype(t), (Composite, Tuple, Enum)) and t != ERROR:
            self.err(d.value, f"initializer of constant '{d.name}' is not a compile-time constant")
        self.declare(s, Symbol("const", d.name, d, t, value=v), d.span)

    # ------------------------------------------------------------ types
    def resolve_type(self, ref: A.TypeRef, s: Scope) -> Type:
        t = self._resolve_type(ref, s)
        ref.resolved = t
        return t

    def _resolve_type(self, ref: A.TypeRef, s: Scope) -> Type:
        if isinstance(ref, A.BitType):
            w = self.width_value(ref.width, s)
            if w is None:
                return UNKNOWN
            if ref.signed and w < 1:
                self.err(ref, f"int<{w}> must have a width of at least 1")
                return UNKNOWN
            return Bits(w, ref.signed)
        if isinstance(ref, A.VarbitType):
            w = self.width_value(ref.width, s)
            return Varbit(w) if w is not None else UNKNOWN
        if isinstance(ref, A.BaseType):
            return {"bool": BOOL, "error": ERROR, "string": STRING, "void": VOID, "int": INT,
                    "match_kind": MATCH_KIND}.get(ref.name, UNKNOWN)
        if isinstance(ref, A.DontCareType):
            return DONTCARE
        if isinstance(ref, A.TupleType):
            R.check_tuple_elements(self, ref, s)
            return Tuple([self.resolve_type(a, s) for a in ref.args])
        if isinstance(ref, A.ListType):
            elem = self.resolve_type(ref.elem, s)
            return UNKNOWN if elem is UNKNOWN else P4List(elem)
        if isinstance(ref, A.StackType):
            elem = self.resolve_type(ref.elem, s)
            self.exprs.expr(ref.size, s)
            n = self.exprs.const_value(ref.size)
            if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
                self.err(ref.size, "header stack size must be a positive compile-time integer")
                return UNKNOWN
            if n > MAX_STACK_SIZE:
                self.err(ref.size, f"header stack size {n} too large (at most {MAX_STACK_SIZE} elements)")
                return UNKNOWN
            if not (isinstance(elem, Composite) and elem.kind in ("header", "header_union")) and elem is not UNKNOWN:
                self.err(ref, f"header stack element must be a header or header_union, not {elem}")
            return Stack(elem, n)
        if isinstance(ref, A.NamedType):
            if ref.name == "__expr__":
                e = getattr(ref, "expr", None)
                if isinstance(e, A.Name) and s.lookup(e.name) is None:
                    # an undeclared name in a type argument is an undeclared type (p4c:
                    # 'declaration not found'), not an expression
                    self.err(e, f"undeclared type '{e.name}'")
                    return UNKNOWN
                return INT
            if ref.name in ("packet_in", "packet_out") and s.lookup(ref.name) is None:
                return Simple(ref.name)
            sym = s.lookup(ref.name)
            if sym is None:
                self.err(ref, f"undeclared type '{ref.name}'")
                return UNKNOWN
            if sym.decl is not None and sym.decl is self.declaring and sym.kind != "typevar":
                self.self_reference(ref, sym.decl)
                return UNKNOWN
            if sym.kind == "type" and not ref.args and isinstance(sym.type, Composite) \
                    and getattr(sym.decl, "type_params", None):
                self.err(ref, f"generic type {ref.name} needs type arguments")
                return UNKNOWN
            if sym.kind in ("type", "typevar"):
                if ref.args:
                    t = sym.type
                    if isinstance(t, Composite) and getattr(sym.decl, "type_params", None):
                        args = [self.resolve_type(a, s) for a in ref.args]
                        if R.contains_self(sym.decl, args):
                            self.err(ref, f"{ref.name}: contains itself as a type argument")
                            return UNKNOWN
                        return self.specialize_struct(sym, args, ref)
                    self.err(ref, f"type '{ref.name}' takes no type arguments")
                return sym.type
            if sym.kind in ("extern_type", "parser_type", "control_type", "package_type", "parser", "control"):
                decl = sym.decl
                tps = getattr(decl, "type_params", [])
                args = [self.resolve_type(a, s) for a in ref.args]
                if R.contains_self(decl, args):
                    self.err(ref, f"{ref.name}: contains itself as a type argument")
                    return UNKNOWN
                if args and len(args) != len(tps):
                    # p4c: no partial specialization (v1model's register<T, I> refuses register<bit<8>>)
                    self.err(ref, f"type {ref.name} has {len(tps)} type parameter(s), but it is specialized "
                                  f"with {len(args)}")
                binding = {tp: a for tp, a in zip(tps, args) if a != DONTCARE}
                kind = sym.type.kind if isinstance(sym.type, ObjectT) else "extern"
                return ObjectT(kind, ref.name, decl, binding)
            if sym.kind in ("const", "var", "param"):
                return INT
            self.err(ref, f"'{ref.name}' is not a type")
            return UNKNOWN
        self.err(ref, "unsupported: this kind of type")
        return UNKNOWN

    def self_reference(self, node, decl: A.Decl) -> None:
        kind = {A.StructDecl: "struct", A.HeaderDecl: "header", A.HeaderUnionDecl: "header_union",
                A.ExternDecl: "extern", A.ParserDecl: "parser", A.ControlDecl: "control"}.get(type(decl), "type")
        self.err(node, f"self-referencing types are not supported: '{decl.name}' within {kind} {decl.name}")

    def check_field_type(self, kind: str, name: str, ft: Type, node) -> None:
        if ft == DONTCARE:
            self.err(node, f"'_' is not a type: field '{name}' needs one")
            return
        if kind == "header":
            if not _header_field_type(strip_newtype(ft), nested=False):
                self.err(node, f"header field '{name}' must be bit<W>, int<W>, bool, varbit<W>, a serializable enum or a struct of those, not {ft}")
        elif kind == "header_union":
            if not (isinstance(ft, Composite) and ft.is_header) and ft is not UNKNOWN:
                self.err(node, f"header_union field '{name}' must be a header, not {ft}")
        elif not R.struct_field_ok(ft):
            self.err(node, f"struct field '{name}' cannot have type {ft}")

    def specialize_struct(self, sym: Symbol, args: list[Type], ref) -> Type:
        d = sym.decl
        if len(args) != len(d.type_params):
            self.err(ref, f"'{d.name}' expects {len(d.type_params)} type arguments, got {len(args)}")
            return UNKNOWN
        inner = Scope(self.top)
        for tp, a in zip(d.type_params, args):
            inner.names[tp] = Symbol("type", tp, None, a)
        name = d.name + "<" + ", ".join(str(a) for a in args) + ">"
        t = Composite(sym.type.kind, name, [], d, d.annotations)
        for f in d.fields:
            ft = self.resolve_type(f.type_ref, inner)
            self.check_field_type(t.kind, f.name, ft, ref)
            t.fields.append((f.name, ft))
        return t

    def width_value(self, e: A.Expr, s: Scope) -> int | None:
        if e is None:
            return 1
        self.exprs.expr(e, s)
        v = self.exprs.const_value(e)
        if not isinstance(v, int) or isinstance(v, bool):
            self.err(e, "width must be a compile-time integer constant")
            return None
        if v < 0:
            self.err(e, f"invalid width {v}")
            return None
        if v > MAX_WIDTH:
            self.err(e, f"width {v} too large (the compiler supports widths up to {MAX_WIDTH}, as p4c)")
            return None
        return v

    def size_value(self, e: A.Expr, what: str) -> None:
        """A table or value_set size or an entry priority: a constant that P4Info's int32 holds."""
        v = self.exprs.const_value(e)
        if not isinstance(v, int) or isinstance(v, bool):
            self.err(e, f"{what} must be a compile-time constant")
        elif not 0 <= v <= MAX_INT32:
            self.err(e, f"{what} {v} out of range (0 to {MAX_INT32})")

    # ------------------------------------------------------------ bodies
    def params(self, params: list[A.Param], scope: Scope, owner, where: str) -> None:
        """Declare a body's parameters in its scope; `where` (decl_rules) says which kinds of
        types, directions and defaults the list allows."""
        R.check_params(self, params, scope, where)
        for p in params:
            t = self.resolve_type(p.type_ref, scope)
            p.resolved_type = t
            sym = Symbol("param", p.name, p, t, direction=p.direction, owner=owner)
            self.declare(scope, sym, p.span)
            if p.default is not None:
                if R.has_call(p.default):
                    self.err(p.default, f"default of parameter '{p.name}' must be a compile-time constant")
                self.exprs.expr(p.default, scope)
                self.exprs.coerce(p.default, t, f"default of parameter '{p.name}'")

    def function_body(self, d: A.FunctionDecl, s: Scope) -> None:
        scope = Scope(s, d)
        for tp in d.proto.type_params:
            scope.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
        d.ret_type = self.resolve_type(d.proto.ret, scope)
        self.params(d.proto.params, scope, d, R.FUNCTION)
        self.stmt(d.body, scope, {"function": d})
        if d.ret_type is not None and d.ret_type != VOID and not always_leaves(d.body):
            # p4c: its def-use pass finds the result possibly unset at the end
            self.err(d, f"function '{d.name}' does not return a value on all paths")

    def action_body(self, d: A.ActionDecl, s: Scope) -> None:
        scope = Scope(s, d)
        seen_cp = False
        for p in d.params:
            if p.direction == "":
                seen_cp = True
            elif seen_cp:
                self.err(p, f"directional parameter '{p.name}' must come before control-plane parameters")
        self.params(d.params, scope, d, R.ACTION)
        self.stmt(d.body, scope, {"action": d})

    def instantiation(self, d: A.Instantiation, s: Scope) -> None:
        """Check `T(args) name;` and declare `name`: the type must be an extern, parser, control
        or package; constructor arguments are bound to an extern constructor overload of that
        arity, counted for parsers/controls, and matched parameter by parameter for packages
        (`V1Switch`); an initializer block is checked as the instance's methods."""
        t = self.resolve_type(d.type_ref, s)
        d.resolved_type = t
        if not isinstance(t, ObjectT):
            if t is not UNKNOWN:
                self.err(d.type_ref, f"cannot instantiate {t}")
            self.declare(s, Symbol("instance", d.name, d, UNKNOWN), d.span)
            return
        for a in d.args:
            self.exprs.expr(a.expr, s)
            var = R.variable_in(a.expr)
            if var is not None:
                self.err(a.expr, f"constructor argument must be a compile-time constant, and '{var.name}' is a "
                                 f"{R.KIND_NAMES[var.sym.kind]}")
        decl = t.decl
        refused = R.check_instantiated_ctor(self, decl, d.args, d)
        if isinstance(decl, A.ExternDecl) and not refused:
            if decl.type_params and not getattr(d.type_ref, "args", None):
                self.ctor_needs_type_args(decl, d.type_ref)
            ctors = [m for m in decl.methods if m.ret is None]
            cands = [c for c in ctors if arity_ok(c.params, d.args)]
            if not cands:
                counts = sorted({len(c.params) for c in ctors})
                self.err(d, f"wrong number of arguments to constructor of {decl.name}: expected "
                            f"{' or '.join(map(str, counts)) or 0}, got {len(d.args)}")
            else:
                self.exprs.bind_args(cands[0], d.args, dict(t.type_args), d, decl.name, s, type_binding=t.type_args)
        elif isinstance(decl, (A.ParserDecl, A.ControlDecl)):
            if len(d.args) != len(decl.ctor_params):
                self.err(d, f"wrong number of arguments to {decl.name}: expected {len(decl.ctor_params)}, got {len(d.args)}")
        elif isinstance(decl, A.PackageTypeDecl):
            if not arity_ok(decl.params, d.args):
                self.err(d, f"wrong number of arguments to package {decl.name}: expected {len(decl.params)}, got {len(d.args)}")
            else:
                check_package_args(self, d, decl, dict(t.type_args))
                check_package_type_vars(self, d, decl, t.type_args)
        if d.initializer:
            self.initializer(d, t, s)
        self.declare(s, Symbol("instance", d.name, d, t), d.span)

    def ctor_needs_type_args(self, decl: A.ExternDecl, node) -> None:
        """A generic extern is constructed with all its type arguments: p4c infers none (so
        v1model's counter<I> refuses `counter(4, ...)` from V1MODEL_VERSION 20200408 on)."""
        self.err(node, f"{decl.name}: type parameters must be supplied for constructor "
                       f"({decl.name}<{', '.join(decl.type_params)}>)")

    def method_proto(self, m: A.MethodProto, scope: Scope, where: str) -> None:
        """The rules on an extern object's method that need no call (p4c: no string or int result)."""
        R.check_params(self, m.params, scope, where)
        k = R.kind_of(m.ret, scope)
        if k is not None and k[0] in ("string", "int"):
            self.err(m.ret, f"illegal return type {k[0]} for method '{m.name}'")

    def initializer(self, d: A.Instantiation, t: ObjectT, s: Scope) -> None:
        """An instance's initializer block implements its extern's abstract methods (e.g. a
        TNA RegisterAction's apply): each function must match an abstract method, with the
        extern's type arguments substituted, and its body is checked in the enclosing scope
        (without the control's variables unless the method is @synchronous)."""
        decl = t.decl
        abstract = {m.name: m for m in getattr(decl, "methods", []) if m.abstract}
        if not abstract:
            self.err(d, f"{t} has no abstract methods to implement")
            return
        done = set()
        for f in d.initializer:
            if not isinstance(f, A.FunctionDecl):
                self.err(f, "an initializer block holds only function declarations")
                continue
            proto = abstract.get(f.name)
            if proto is None:
                self.err(f, f"'{f.name}' is not an abstract method of {decl.name}")
                continue
            done.add(f.name)
            # An abstract method may run at any time, so it sees no variables of the control
            # around it; one marked @synchronous(m) runs only inside the call m, and may (p4c).
            synchronous = any(a.name == "synchronous" for a in proto.annotations or [])
            self.function_body(f, Scope(s, hides_locals=not synchronous))
            want = self.exprs.generic_scope(proto, dict(t.type_args))
            given = f.proto.params
            if not arity_ok(proto.params, [A.Argument(p.span, None, None) for p in given]):
                self.err(f, f"'{f.name}' of {decl.name} takes {len(proto.params)} parameters, not {len(given)}")
                continue
            for p, q in zip(given, proto.params):
                qt = self.resolve_type(q.type_ref, want)
                if p.direction != q.direction:
                    self.err(p, f"parameter '{p.name}' of '{f.name}' must be '{q.direction}'")
                elif not isinstance(qt, TypeVar) and not same_type(p.resolved_type, qt) \
                        and p.resolved_type is not UNKNOWN and qt is not UNKNOWN:
                    self.err(p, f"parameter '{p.name}' of '{f.name}' has type {p.resolved_type}, "
                                f"{decl.name} needs {qt}")
            rt = self.resolve_type(proto.ret, want) if proto.ret is not None else VOID
            if not isinstance(rt, TypeVar) and not same_type(f.ret_type, rt) and f.ret_type is not UNKNOWN:
                self.err(f, f"'{f.name}' of {decl.name} must return {rt}, not {f.ret_type}")
        for name in sorted(set(abstract) - done):
            self.err(d, f"instance of {decl.name} does not implement abstract method '{name}'")

    def parser_body(self, d: A.ParserDecl, s: Scope) -> None:
        """Check a parser's parameters, locals and states (transitions name declared states; a
        state without a transition goes to reject)."""
        scope = Scope(s, d)
        for tp in d.type_params:
            scope.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
        self.params(d.params, scope, d, R.APPLY)
        self.params(d.ctor_params, scope, d, R.CTOR)
        for name in ("accept", "reject"):
            scope.names[name] = Symbol("state", name, None, STATE)
        for loc in d.locals:
            self.local(loc, scope, d)
        for st in d.states:
            if st.name in ("accept", "reject"):
                self.err(st, f"state '{st.name}' cannot be redefined")
                continue
            self.declare(scope, Symbol("state", st.name, st, STATE), st.span)
        if not any(st.name == "start" for st in d.states):
            self.err(d, f"parser {d.name} has no 'start' state")
        for st in d.states:
            sscope = Scope(scope, d)
            ctx = {"parser": d, "state": st}
            for stmt in st.stmts:
                self.stmt(stmt, sscope, ctx)
            tr = st.transition
            if tr is None:
                st.transition = "reject"
            elif isinstance(tr, str):
                sym = scope.lookup(tr)
                if sym is None or sym.kind != "state":
                    self.err(st.transition_span, f"undeclared state '{tr}'")
            else:
                self.select(tr, sscope)
        if any(st.name == "start" for st in d.states) and not _ends(d):
            self.err(d, f"parser {d.name} never reaches accept or reject")

    def select(self, sel: A.Select, scope: Scope) -> None:
        types = []
        for e in sel.exprs:
            types.append(self.exprs.expr(e, scope))
            st = strip_newtype(types[-1])
            if not (isinstance(st, (Bits, Enum, Unknown)) or st == BOOL):
                self.err(e, f"an expression of type {types[-1]} cannot be used in 'select' (only bit<W>, int<W>, bool and enums)")
        for c in sel.cases:
            sym = scope.lookup(c.next_state)
            if sym is None or sym.kind != "state":
                self.err(c.next_span, f"undeclared state '{c.next_state}'")
            ks = c.keyset
            if isinstance(ks, (A.DefaultExpr, A.DontCare)):
                continue
            items = ks.items if isinstance(ks, A.ListExpr) else [ks]
            if len(items) != len(types):
                if len(items) == 1 and isinstance(items[0], A.Name):
                    vs = scope.lookup(items[0].name)
                    if vs is not None and vs.kind == "value_set":
                        self.exprs.expr(items[0], scope)
                        continue
                self.err(ks, f"select keyset has {len(items)} components but the select has {len(types)} expressions")
                continue
            with self.type_errors_at(sel.span):
                for item, t in zip(items, types):
                    self.keyset_elem(item, t, scope)

    def keyset_elem(self, item: A.Expr, t: Type, scope: Scope) -> None:
        """Check one component of a select case or table entry against the key's type `t`: a
        value, a mask, a range, '_'/default or a value_set, each a compile-time constant."""
        self.keyset_value(item, t, scope)
        var = R.variable_in(item)
        if var is not None:
            self.err(var, f"a keyset must be a compile-time constant, and '{var.name}' is a {R.KIND_NAMES[var.sym.kind]}")

    def keyset_value(self, item: A.Expr, t: Type, scope: Scope) -> None:
        if isinstance(item, (A.DefaultExpr, A.DontCare)):
            item.type = t
            return
        if isinstance(item, A.Mask):
            self.exprs.expr(item.value, scope)
            self.exprs.expr(item.mask, scope)
            self.exprs.coerce(item.value, t, "keyset value")
            # a serializable enum's mask is a plain number of its underlying type (as with p4c)
            mask_t = t.underlying if isinstance(t, Enum) and t.underlying is not None and \
                isinstance(strip_newtype(item.mask.type), IntT) else t
            self.exprs.coerce(item.mask, mask_t, "keyset mask")
            item.type = t
            return
        if isinstance(item, A.Range):
            self.exprs.expr(item.lo, scope)
            self.exprs.expr(item.hi, scope)
            self.exprs.coerce(item.lo, t, "range bound")
            self.exprs.coerce(item.hi, t, "range bound")
            item.type = t
            return
        self.exprs.expr(item, scope)
        if isinstance(item, A.Name) and item.sym is not None and item.sym.kind == "value_set":
            return
        self.exprs.coerce(item, t, "keyset value")

    def control_body(self, d: A.ControlDecl, s: Scope) -> None:
        scope = Scope(s, d)
        for tp in d.type_params:
            scope.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
        self.params(d.params, scope, d, R.APPLY)
        self.params(d.ctor_params, scope, d, R.CTOR)
        for loc in d.locals:
            self.local(loc, scope, d)
        self.stmt(d.body, Scope(scope, d), {"control": d})

    def local(self, loc: A.Decl, scope: Scope, owner) -> None:
        if isinstance(loc, A.VarDecl):
            self.var_decl(loc, scope)
        elif isinstance(loc, A.ConstDecl):
            self.const_decl(loc, scope)
        elif isinstance(loc, A.Instantiation):
            self.instantiation(loc, scope)
            t = loc.resolved_type
            if isinstance(owner, A.ControlDecl) and isinstance(t, ObjectT) and t.kind == "parser":
                self.err(loc, f"instantiation of parser {t.tname} in control {owner.name}")
        elif isinstance(loc, A.ActionDecl):
            self.declare(scope, Symbol("action", loc.name, loc, ObjectT("action", loc.name, loc), owner=owner), loc.span)
            self.action_body(loc, scope)
        elif isinstance(loc, A.TableDecl):
            self.declare(scope, Symbol("table", loc.name, loc, ObjectT("table", loc.name, loc), owner=owner), loc.span)
            self.table(loc, scope)
        elif isinstance(loc, A.ValueSetDecl):
            t = self.resolve_type(loc.elem, scope)
            if not R.value_set_elem_ok(t):
                self.err(loc.elem, f"illegal type for a value_set element: {t}")
            self.exprs.expr(loc.size, scope)
            self.size_value(loc.size, "value_set size")
            self.declare(scope, Symbol("value_set", loc.name, loc, t, owner=owner), loc.span)
        else:
            self.err(loc, f"unsupported: local declaration {type(loc).__name__}")

    def no_param_shadowing(self, d: A.Decl, scope: Scope) -> None:
        """p4c makes a local declaration named as a parameter of an enclosing block an error."""
        s = scope.parent
        while s is not None:
            sym = s.names.get(d.name)
            if sym is not None and sym.kind == "param":
                self.err(d, f"declaration of '{d.name}' shadows a parameter '{d.name}'")
                return
            s = s.parent

    def var_decl(self, d: A.VarDecl, scope: Scope) -> None:
        self.no_param_shadowing(d, scope)
        R.check_variable_type(self, d, scope)
        t = self.resolve_type(d.type_ref, scope)
        if d.init is not None:
            self.exprs.expr(d.init, scope)
            self.exprs.coerce(d.init, t, f"initializer of '{d.name}'")
        d.symbol = Symbol("var", d.name, d, t, owner=scope.owner)
        self.declare(scope, d.symbol, d.span)

    # ------------------------------------------------------------ tables
    def table(self, t: A.TableDecl, scope: Scope) -> None:
        """Check a table's properties: keys and match kinds, the actions list (directional
        arguments bound), default action, entries, size, implementation, counters and meters."""
        seen = set()
        for p in t.properties:
            if p.name in seen:
                self.err(p, f"duplicate table property '{p.name}' in table {t.name}")
            seen.add(p.name)
        key = t.prop("key")
        key_types = []
        if key is not None:
            lpm = 0
            for k in key.value:
                kt = self.exprs.expr(k.expr, scope)
                key_types.append(kt)
                if k.match_kind not in self.match_kinds:
                    self.err(k, f"unknown match kind '{k.match_kind}'")
                if k.match_kind == "lpm":
                    lpm += 1
                    if lpm == 2:     # at the table, as p4c-bm2-ss
                        self.err(t, f"table {t.name} has more than one lpm key")
                if kt is not UNKNOWN and bit_width(kt) is None and not isinstance(strip_newtype(kt), Enum) and kt != ERROR:
                    self.err(k.expr, f"table key must be bit<W>, int<W>, bool, enum or error, not {kt}")
                if not _nameable_key(k.expr) and not any(a.name == "name" for a in k.annotations):
                    self.err(k.expr, "complex key expression requires a @name annotation (the control plane's name for it)")
        acts = t.prop("actions")
        action_syms = {}
        scopes: dict = {}      # action -> its @tableonly/@defaultonly in this table's list
        if acts is None:
            self.err(t, f"table {t.name} has no actions property")
        else:
            for ar in acts.value:
                sym = self.lookup_action(ar, scope)
                if sym is None:
                    continue
                if ar.name in action_syms:
                    self.err(ar, f"action '{ar.name}' listed twice in table {t.name}")
                action_syms[ar.name] = sym
                ar.sym = sym
                scopes[sym.decl] = {a.name for a in ar.annotations} & {"tableonly", "defaultonly"}
                self.action_args(ar, sym.decl, scope, partial=True)
        t.action_syms = action_syms
        da = t.prop("default_action")
        if da is None and self.defaults_to_no_action is None:
            self.defaults_to_no_action = t
        if da is not None:
            ar = da.value
            sym = self.lookup_action(ar, scope)
            if sym is not None:
                ar.sym = sym
                if action_syms and sym.decl not in [x.decl for x in action_syms.values()]:
                    shown = "." + ar.name if isinstance(ar.expr, A.Name) and ar.expr.top_level else ar.name
                    self.err(ar, f"default action '{shown}' is not in the actions of table {t.name}")
                if "tableonly" in scopes.get(sym.decl, ()):
                    self.err(ar, f"action '{ar.name}' is @tableonly in table {t.name}: it cannot be the default action")
                self.action_args(ar, sym.decl, scope, partial=False)
                self.same_bound_args(ar, sym.decl, acts)
        ent = t.prop("entries")
        if ent is not None and ent.value and (key is None or not key.value):
            self.err(t, f"table {t.name} has no key: entries cannot be specified")
        if da is not None and acts is not None and t.properties.index(da) < t.properties.index(acts):
            self.err(t, f"table {t.name} has no action list before its default action, so it cannot invoke '{da.value.name}'")
        if ent is not None and key is not None and t.properties.index(ent) < t.properties.index(key):
            self.err(ent, f"the entries of table {t.name} must come after its key")
        if ent is not None:
            for e in ent.value:
                if key is None or len(e.keys) != len(key.value):
                    if not (len(e.keys) == 1 and isinstance(e.keys[0], (A.DefaultExpr, A.DontCare))):
                        self.err(e, f"entry has {len(e.keys)} keys but table {t.name} has {len(key.value) if key else 0}")
                        continue
                    e.keys = [A.DontCare(e.keys[0].span) for _ in (key.value if key else [])]
                for k, kt in zip(e.keys, key_types):
                    self.keyset_elem(k, kt, scope)
                if e.priority is not None:
                    if ent.is_const:
                        self.err(e.priority, "a table with 'const' entries cannot give them priorities (use 'entries')")
                    self.exprs.expr(e.priority, scope)
                    self.size_value(e.priority, "entry priority")
                sym = self.lookup_action(e.action, scope)
                if sym is not None:
                    e.action.sym = sym
                    if action_syms and e.action.name not in action_syms:
                        self.err(e.action, f"action '{e.action.name}' of entry is not in the actions of table {t.name}")
                    if "defaultonly" in scopes.get(sym.decl, ()):
                        self.err(e.action, f"action '{e.action.name}' is @defaultonly in table {t.name}: it cannot be in an entry")
                    self.action_args(e.action, sym.decl, scope, partial=False)
                    self.same_bound_args(e.action, sym.decl, acts)
        for p in t.properties:
            if p.name in ("key", "actions", "default_action", "entries"):
                continue
            if isinstance(p.value, A.Expr):
                self.exprs.expr(p.value, scope)
            if p.name == "size":
                self.size_value(p.value, "table size")
        if ent is not None and not ent.is_const and any(e.priority is not None for e in ent.value):
            self.entry_priorities(t, key, ent.value)

    def default_no_action(self, t: A.TableDecl) -> None:
        """A table without default_action defaults to core.p4's NoAction: as in p4c
        (CreateBuiltins), the top-level NoAction must then exist and be an action without
        parameters or body; reported once, at that declaration."""
        sym = self.top.names.get("NoAction")
        hint = "; did you include core.p4?"
        if sym is None:
            self.err(t, f"table {t.name} has no default_action and there is no action NoAction to default to{hint}")
        elif sym.kind != "action":
            self.err(sym.decl or t, f"NoAction: expected to be an action{hint}")
        elif sym.decl.params:
            self.err(sym.decl, f"NoAction: expected an action with no parameters{hint}")
        elif sym.decl.body.stmts:
            self.err(sym.decl, f"NoAction: expected an action with no body{hint}")

    def entry_priorities(self, t: A.TableDecl, key, entries: list) -> None:
        """Explicit `priority = N` in `entries`, as p4c's front end numbers them: only for
        keys that need priorities (not only exact/lpm), given for the first entry, the others
        following by `priority_delta` without going below zero (or past 64 bits)."""
        if key is None or all(k.match_kind in ("exact", "lpm") for k in key.value):
            self.err(key or t, f"table {t.name}: its exact/lpm keys need no priorities, but entries give some")
            return
        if entries[0].priority is None:
            self.err(entries[0], f"the first entry of table {t.name} must have a priority (a later one has)")
            return
        lp, dp = t.prop("largest_priority_wins"), t.prop("priority_delta")
        largest_wins = True if lp is None else self.exprs.const_value(lp.value) is not False
        delta = self.exprs.const_value(dp.value) if dp is not None else 1
        if not isinstance(delta, int) or isinstance(delta, bool) or delta < 0:
            return
        current = 0     # the first entry's priority replaces it (it must have one: checked above)
        for e in entries:
            p = self.exprs.const_value(e.priority) if e.priority is not None else current
            if not isinstance(p, int):
                return
            current = p - delta if largest_wins else p + delta
            if not 0 <= current < 1 << 64:
                self.err(t, f"table {t.name}: priorities overflow (after {p}, priority_delta {delta} gives {current})")
                return

    def same_bound_args(self, ar: A.ActionRef, decl: A.ActionDecl, acts) -> None:
        """A default action or entry repeats the directional arguments the table's actions
        list binds (p4c: 'argument does not match declaration in actions list')."""
        listed = next((x for x in (acts.value if acts is not None else []) if getattr(x, "sym", None) is not None
                       and x.sym.decl is decl), None)
        if listed is None or len(ar.args) != len(decl.params):
            return
        for p, a, b in zip(decl.params, ar.args, listed.args):
            if p.direction and not self.exprs.same_expr(a.expr, b.expr):
                self.err(a.expr, f"argument '{p.name}' of '{ar.name}' does not match the actions list, which binds it "
                                 f"to another expression")
                return

    def lookup_action(self, ar: A.ActionRef, scope: Scope) -> Symbol | None:
        top = ar.name.startswith(".") or (isinstance(ar.expr, A.Name) and ar.expr.top_level)
        sym = (scope.root() if top else scope).lookup(ar.name.lstrip("."))
        if sym is None:
            self.err(ar, f"undeclared action '{ar.name}'")
            return None
        if sym.kind != "action":
            self.err(ar, f"'{ar.name}' is not an action")
            return None
        return sym

    def action_args(self, ar: A.ActionRef, decl: A.ActionDecl, scope: Scope, partial: bool) -> None:
        """Arguments in an `actions` list bind the directional parameters only; in a
        default action or entry they bind all parameters."""
        ndir = sum(1 for p in decl.params if p.direction)
        if partial:
            if ndir and not ar.args:
                unbound = next(p for p in decl.params if p.direction)
                self.err(ar, f"action '{ar.name}' in a table's actions must bind its directional parameter '{unbound.name}'")
                return
            if ar.args and len(ar.args) != ndir:
                self.err(ar, f"action '{ar.name}' in a table's actions takes {ndir} directional arguments, got {len(ar.args)}")
                return
        else:
            nargs = len(ar.args)
            if nargs != len(decl.params) and not (nargs == 0 and not decl.params) and not (nargs == len(decl.params) - ndir and ndir == 0):
                if not (ndir and nargs == len(decl.params) - ndir):
                    self.err(ar, f"action '{ar.name}' expects {len(decl.params)} arguments, got {nargs}")
                    return
        params = decl.params if len(ar.args) == len(decl.params) else decl.params[:len(ar.args)] if partial else [p for p in decl.params if not p.direction]
        for a, p in zip(ar.args, params):
            self.exprs.expr(a.expr, scope)
            pt = p.resolved_type
            if pt is not None:
                self.exprs.coerce(a.expr, pt, f"argument '{p.name}' of action '{ar.name}'")

    # ------------------------------------------------------------ statements
    def stmt(self, st: A.Stmt, scope: Scope, ctx: dict) -> None:
        try:
            self._stmt(st, scope, ctx)
        except RecursionError:
            self.err(st, "statement nested too deeply")

    def _stmt(self, st, scope, ctx):
        return self.visit(st, scope, ctx)

    def visit_Block(self, st, scope, ctx):
        inner = Scope(scope)
        for s in st.stmts:
            self.stmt(s, inner, ctx)

    def visit_Assign(self, st, scope, ctx):
        lt = self.exprs.expr(st.lhs, scope)
        self.exprs.expr(st.rhs, scope)
        self.check_lvalue(st.lhs, scope)
        self.exprs.coerce(st.rhs, lt, "assignment")

    def visit_CallStmt(self, st, scope, ctx):
        self.exprs.expr(st.call, scope, stmt_ctx=True)
        if "parser" in ctx and st.call.target_kind() == "action":
            self.err(st.call, "action calls are not allowed in parsers")

    def visit_If(self, st, scope, ctx):
        ct = self.exprs.expr(st.cond, scope)
        if ct is not UNKNOWN and ct != BOOL:
            self.err(st.cond, f"condition must be bool, not {ct}")
        self.stmt(st.then, Scope(scope), ctx)
        if st.other is not None:
            self.stmt(st.other, Scope(scope), ctx)

    def visit_Switch(self, st, scope, ctx):
        self.switch(st, scope, ctx)

    def visit_Return(self, st, scope, ctx):
        fn = ctx.get("function")
        if st.value is not None:
            self.exprs.expr(st.value, scope)
            if fn is not None:
                self.exprs.coerce(st.value, fn.ret_type, "return value")
            else:
                self.err(st, "return with a value outside a function")
        elif fn is not None and fn.ret_type not in (VOID, UNKNOWN):
            self.err(st, f"function '{fn.name}' must return a value")
        if "parser" in ctx:
            self.err(st, "return is not allowed in a parser")

    def visit_Exit(self, st, scope, ctx):
        if "parser" in ctx:
            self.err(st, "exit is not allowed in a parser")
        if "function" in ctx:
            self.err(st, "exit is not allowed in a function")

    def visit_VarDecl(self, st, scope, ctx):
        self.var_decl(st, scope)

    def visit_ConstDecl(self, st, scope, ctx):
        self.const_decl(st, scope)

    def visit_Instantiation(self, st, scope, ctx):
        # p4c: instances are declared among a parser's or control's locals, never in a
        # statement (an apply block, a state, an action or a function)
        where = "a parser state" if "parser" in ctx else "an action" if "action" in ctx else \
            "a function" if "function" in ctx else "a control's apply block"
        self.err(st, f"instantiation of '{st.name}' cannot be in {where} (declare it among the parser's or control's locals)")
        self.instantiation(st, scope)

    def visit_Empty(self, st, scope, ctx):
        pass

    def visit_For(self, st, scope, ctx):
        inner = Scope(scope)
        for s in st.init:
            self.stmt(s, inner, ctx)
            if isinstance(s, A.VarDecl) and s.symbol is not None:
                s.symbol.loop_index = True
        if st.cond is not None:
            ct = self.exprs.expr(st.cond, inner)
            if ct is not UNKNOWN and ct != BOOL:
                self.err(st.cond, f"condition must be bool, not {ct}")
        for s in st.update:
            self.stmt(s, inner, ctx)
        self.stmt(st.body, Scope(inner), {**ctx, "loop": st})

    def visit_ForIn(self, st, scope, ctx):
        """`for (T x in c)`: c is a range of T values, a header stack of T or a list of T."""
        inner = Scope(scope)
        t = self.resolve_type(st.var.type_ref, inner)
        c = st.collection
        if isinstance(c, A.Range):
            for end in (c.lo, c.hi):
                self.exprs.expr(end, inner)
                self.exprs.coerce(end, t, "bound of the 'for' range")
        elif isinstance(c, A.ListExpr):
            for item in c.items:
                self.exprs.expr(item, inner)
                self.exprs.coerce(item, t, "element of the 'for' list")
        else:
            ct = strip_newtype(self.exprs.expr(c, inner))
            if not isinstance(ct, (Stack, P4List)):     # a stack, or a typed list `(list<T>){...}`
                if ct is not UNKNOWN:
                    self.err(c, f"a 'for' loop iterates over a range, a header stack or a list, not {ct}")
            elif t is not UNKNOWN and not same_type(ct.elem, t):
                self.err(st.var, f"loop variable '{st.var.name}' has type {t}, the elements are {ct.elem}")
        st.var.symbol = Symbol("var", st.var.name, st.var, t, owner=inner.owner, loop_index=True)
        self.declare(inner, st.var.symbol, st.var.span)
        self.stmt(st.body, Scope(inner), {**ctx, "loop": st})

    def visit_Break(self, st, scope, ctx):
        if "loop" not in ctx:
            self.err(st, f"'{type(st).__name__.lower()}' outside a 'for' loop")

    visit_Continue = visit_Break

    def visit_Stmt(self, st, scope, ctx):
        self.err(st, f"unsupported: statement {type(st).__name__}")


    def switch(self, st: A.Switch, scope: Scope, ctx: dict) -> None:
        """A switch on a table's action_run (labels: its actions) or on a value of a
        bit/int/enum/error type (labels: distinct constants); 'default' last. The first switch
        on a value is kept: it needs match_kind 'exact' (checked in check())."""
        t = self.exprs.expr(st.expr, scope)
        seen: set = set()
        defaults = sum(1 for c in st.cases for lab in c.labels if isinstance(lab, A.DefaultExpr))
        if defaults > 1:     # at the switch, as p4c
            self.err(st, "switch has more than one 'default' label")
        for i, c in enumerate(st.cases):
            for lab in c.labels:
                if isinstance(lab, A.DefaultExpr):
                    if defaults == 1 and (i != len(st.cases) - 1 or lab is not c.labels[-1]):
                        self.err(lab, "'default' must be the last switch label")
                    continue
                if isinstance(t, ActionRun):
                    if not isinstance(lab, A.Name):
                        self.err(lab, "switch label on action_run must be an action name")
                        continue
                    if lab.name not in t.table.action_syms:
                        self.err(lab, f"'{lab.name}' is not an action of table {t.table.name}")
                    key = lab.name
                else:
                    self.exprs.expr(lab, scope)
                    with self.type_errors_at(st.expr.span):
                        self.exprs.coerce(lab, t, "switch label")
                    key = self.exprs.const_value(lab)
                    if key is None:
                        self.err(lab, "switch label must be a compile-time constant")
                if key in seen:
                    self.err(lab, "duplicate switch label")
                seen.add(key)
            if c.body is not None:
                self.stmt(c.body, Scope(scope), ctx)
        if not isinstance(t, ActionRun) and t is not UNKNOWN and not (bit_width(t) or isinstance(t, Enum) or t == ERROR):
            self.err(st.expr, f"cannot switch on a value of type {t}")
        elif not isinstance(t, ActionRun) and self.value_switch is None and any(
                not isinstance(lab, A.DefaultExpr) for c in st.cases for lab in c.labels):
            self.value_switch = st      # (p4c's front end drops a switch with no label but default)

    def check_lvalue(self, e: A.Expr, scope: Scope) -> None:
        base = e
        while isinstance(base, (A.Member, A.Index, A.Slice)):
            base = base.expr
        if isinstance(base, A.Name):
            sym = base.sym
            if sym is None:
                return
            if sym.kind == "param" and sym.direction in ("in", "") and isinstance(sym.owner, (A.ActionDecl, A.FunctionDecl, A.ControlDecl, A.ParserDecl)):
                self.err(e, f"cannot assign to read-only parameter '{sym.name}'")
            elif sym.kind not in ("var", "param"):
                self.err(e, f"cannot assign to '{sym.name}' (not a variable)")
        elif not isinstance(e.type, Unknown):
            self.err(e, "expression is not assignable")


# the messages of a name that is not declared, or declared twice (p4c: ResolveReferences, its
# symbol table); a member such as `error.x` is looked up later, with the types
NAME_ERRORS = ("undeclared name ", "undeclared type ", "undeclared state ", "undeclared action ", "duplicate declaration of ")


def check(program: A.Program, rep: Reporter, main_file: str = "") -> Checker:
    c = Checker(rep)
    c.run(program)
    # p4c finds re-declarations while parsing and resolves every name before it types
    # anything: when a name is wrong, that is its first error wherever it is
    rep.diagnostics.sort(key=lambda d: not d.message.startswith(NAME_ERRORS))
    main = c.top.names.get("main")
    if c.main is None and main is not None and main.kind == "extern_type" and not rep.failed:
        rep.error(main.span, "'main' must be a package instance")
    elif c.main is None and not rep.failed:
        rep.error(Span(main_file, 1, 1) if main_file else program.span, "program has no 'main' package instantiation")
    elif c.main is not None and getattr(c.main.resolved_type, "kind", None) == "extern":
        rep.error(c.main.type_ref.span, f"'main' must instantiate a package, not extern {c.main.resolved_type.tname}")
    elif c.main is not None and c.value_switch is not None and "exact" not in c.match_kinds:
        # p4c's midend (run only for a program with a main package) turns such a switch into
        # a table with an exact key
        rep.error(c.value_switch.span, "a switch on a value needs core.p4's match_kind 'exact'; did you include core.p4?")
    if c.main is not None and c.runtime_division is not None and not rep.failed:
        e = c.runtime_division
        # the words of lowering's refusal, which this check now makes for any package
        rep.error(e.span, f"unsupported on this target: '{e.op}' with a divisor known only at run time "
                          f"(BMv2 has no division)")
    if c.main is not None and c.nested_out_call is not None and not rep.failed:
        call, p, name, t = c.nested_out_call
        # p4c's midend refuses it for every target, where the call is written
        rep.error(call.span, f"unsupported on this target: extern '{name}' with the {p.direction} nested struct "
                             f"argument '{p.name}' ({t} holds headers, structs, tuples or stacks)")
    return c


def _ends(d: A.ParserDecl) -> bool:
    """Whether accept or reject can be reached from start along the transitions (p4c's
    reachability check; a state without a transition goes to reject)."""
    states = {st.name: st for st in d.states}
    seen, todo = set(), ["start"]
    while todo:
        name = todo.pop()
        if name in ("accept", "reject"):
            return True
        if name not in states:
            return True         # an undeclared state: reported already
        if name in seen:
            continue
        seen.add(name)
        tr = states[name].transition
        todo += [tr] if isinstance(tr, str) else [c.next_state for c in tr.cases] if tr is not None else ["reject"]
    return False


def _nameable_key(e: A.Expr) -> bool:
    """A key p4c can name by itself: a field path, an index, a slice, `&` of those, a
    constant or `isValid()`; anything else needs `@name` (p4c's KeyNameGenerator)."""
    if isinstance(e, (A.Name, A.IntLiteral)):
        return True
    if isinstance(e, A.Member):
        return _nameable_key(e.expr)
    if isinstance(e, A.Index):
        return _nameable_key(e.expr) and _nameable_key(e.index)
    if isinstance(e, A.Slice):
        return _nameable_key(e.expr) and _nameable_key(e.hi) and _nameable_key(e.lo)
    if isinstance(e, A.Binary) and e.op == "&":
        return _nameable_key(e.left) and _nameable_key(e.right)
    if isinstance(e, A.Call):
        return isinstance(e.func, A.Member) and e.func.name == "isValid" and not e.args and _nameable_key(e.func.expr)
    return False


def _header_field_type(t, nested: bool) -> bool:
    """A type a header field may have (spec: bit, int, bool, varbit, serializable enum, or a
    struct of the fixed-width ones)."""
    t = strip_newtype(t)
    if isinstance(t, (Bits, Unknown)) or t == BOOL or (isinstance(t, Enum) and t.underlying):
        return True
    if isinstance(t, Varbit):
        return not nested
    if isinstance(t, Composite) and t.is_struct:
        return all(_header_field_type(ft, nested=True) for _, ft in t.fields)
    return False


def always_leaves(st: A.Stmt | None) -> bool:
    """Whether every path through `st` ends in `return` or `exit` (a structural reading
    of p4c's check that a function returns a value on all paths: loops never count)."""
    if isinstance(st, (A.Return, A.Exit)):
        return True
    if isinstance(st, A.Block):
        return any(always_leaves(x) for x in st.stmts)
    if isinstance(st, A.If):
        return always_leaves(st.then) and always_leaves(st.other)
    if isinstance(st, A.Switch):
        has_default = any(isinstance(lb, A.DefaultExpr) for c in st.cases for lb in c.labels)
        return has_default and all(c.body is None or always_leaves(c.body) for c in st.cases) \
            and st.cases[-1].body is not None
    return False
