"""Name resolution and type checking.

Walks the AST once, declares every name in its scope, resolves type references,
gives every expression a `type` (and Names a `sym`, Calls a `target`), folds
constants with infinite precision, and collects every error it finds.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import ast as A
from .diag import Reporter, Span
from .scope import Scope, Symbol
from .visitor import Visitor
from .consteval import const_value  # noqa: F401  (re-exported for the lowering)
from .types import (BOOL, DONTCARE, ERROR, INT, MATCH_KIND, STATE, STRING, VOID, Bits, Composite, Enum, IntT,
                    ListT, NewType, ObjectT, Simple, Stack, StructInitT, Tuple, Type, TypeVar, Varbit, bit_width,
                    same_type, strip_newtype)


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


class Checker(Visitor):
    """Declares names, resolves types and types every expression (a visitor over statements
    and expressions); all errors are collected in the reporter."""
    def __init__(self, rep: Reporter):
        self.rep = rep
        self.top = Scope()
        self.errors: list[str] = []
        self.match_kinds: list[str] = []
        self.program: A.Program | None = None
        self.new_types: dict[str, NewType] = {}
        self.enums: list[Enum] = []
        self.main: A.Instantiation | None = None

    # ------------------------------------------------------------ helpers
    def err(self, node_or_span, msg: str) -> None:
        span = node_or_span if isinstance(node_or_span, Span) else getattr(node_or_span, "span", None)
        self.rep.error(span, msg)

    def declare(self, scope: Scope, sym: Symbol, span: Span) -> None:
        scope.declare(sym, span, self.rep)

    # ------------------------------------------------------------ program
    def run(self, program: A.Program) -> None:
        self.program = program
        self.top.declare(Symbol("type", "error", None, ERROR), None, self.rep)
        for d in program.decls:
            try:
                self.global_decl(d)
            except RecursionError:
                self.err(d, "declaration nested too deeply")

    def global_decl(self, d: A.Decl) -> None:
        s = self.top
        if isinstance(d, (A.HeaderDecl, A.HeaderUnionDecl, A.StructDecl)):
            kind = {A.HeaderDecl: "header", A.HeaderUnionDecl: "header_union", A.StructDecl: "struct"}[type(d)]
            t = Composite(kind, d.name, [], d, d.annotations)
            self.declare(s, Symbol("type", d.name, d, t), d.span)
            inner = Scope(s)
            for tp in getattr(d, "type_params", []):
                inner.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
            seen = set()
            for f in d.fields:
                ft = self.resolve_type(f.type_ref, inner)
                if f.name in seen:
                    self.err(f, f"duplicate field '{f.name}' in {kind} {d.name}")
                seen.add(f.name)
                if kind == "header":
                    sft = strip_newtype(ft)
                    if not isinstance(sft, (Bits, Varbit, Unknown)) and not (isinstance(sft, Enum) and sft.underlying) and sft != BOOL:
                        self.err(f.type_ref, f"header field '{f.name}' must be bit<W>, int<W>, varbit<W> or a serializable enum, not {ft}")
                elif kind == "header_union":
                    if not (isinstance(ft, Composite) and ft.is_header) and ft is not UNKNOWN:
                        self.err(f.type_ref, f"header_union field '{f.name}' must be a header, not {ft}")
                t.fields.append((f.name, ft))
                t.field_annotations[f.name] = f.annotations
            if kind == "header":
                nvar = sum(1 for _, ft in t.fields if isinstance(ft, Varbit))
                if nvar > 1:
                    self.err(d, f"header {d.name} has more than one varbit field")
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
                t = NewType(d.name, base)
                self.new_types[d.name] = t
            else:
                t = base
            self.declare(s, Symbol("type", d.name, d, t), d.span)
        elif isinstance(d, A.ConstDecl):
            self.const_decl(d, s)
        elif isinstance(d, A.ExternDecl):
            sym = Symbol("extern_type", d.name, d, ObjectT("extern", d.name, d))
            for m in d.methods:
                m._extern_tps = d.type_params
            self.declare(s, sym, d.span)
        elif isinstance(d, A.ExternFunctionDecl):
            self.declare(s, Symbol("extern_function", d.name, d, None, overloads=[d.proto]), d.span)
        elif isinstance(d, A.FunctionDecl):
            self.declare(s, Symbol("function", d.name, d, None, overloads=[d.proto]), d.span)
            self.function_body(d, s)
        elif isinstance(d, A.ActionDecl):
            self.declare(s, Symbol("action", d.name, d, ObjectT("action", d.name, d)), d.span)
            self.action_body(d, s)
        elif isinstance(d, A.ParserTypeDecl):
            self.declare(s, Symbol("parser_type", d.name, d, ObjectT("parser", d.name, d)), d.span)
        elif isinstance(d, A.ControlTypeDecl):
            self.declare(s, Symbol("control_type", d.name, d, ObjectT("control", d.name, d)), d.span)
        elif isinstance(d, A.PackageTypeDecl):
            self.declare(s, Symbol("package_type", d.name, d, ObjectT("package", d.name, d)), d.span)
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
        else:
            self.err(d, f"unsupported: top-level {type(d).__name__}")

    def enum_decl(self, d: A.EnumDecl, s: Scope) -> None:
        under = None
        if d.underlying is not None:
            ut = strip_newtype(self.resolve_type(d.underlying, s))
            if not isinstance(ut, Bits):
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
                self.expr(m.value, s)
                v = self.const_value(m.value)
                if not isinstance(v, int) or isinstance(v, bool):
                    self.err(m.value, f"enum member value must be a compile-time integer")
                    continue
                t.values[m.name] = v & ((1 << under.width) - 1)
            elif m.value is not None:
                self.err(m.value, f"enum {d.name} without underlying type cannot give member values")
        self.enums.append(t)
        self.declare(s, Symbol("type", d.name, d, t), d.span)

    def const_decl(self, d: A.ConstDecl, s: Scope) -> None:
        t = self.resolve_type(d.type_ref, s)
        self.expr(d.value, s)
        self.coerce(d.value, t, f"constant '{d.name}'")
        v = self.const_value(d.value)
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
            return Tuple([self.resolve_type(a, s) for a in ref.args])
        if isinstance(ref, A.StackType):
            elem = self.resolve_type(ref.elem, s)
            self.expr(ref.size, s)
            n = self.const_value(ref.size)
            if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
                self.err(ref.size, "header stack size must be a positive compile-time integer")
                return UNKNOWN
            if not (isinstance(elem, Composite) and elem.kind in ("header", "header_union")) and elem is not UNKNOWN:
                self.err(ref, f"header stack element must be a header or header_union, not {elem}")
            return Stack(elem, n)
        if isinstance(ref, A.NamedType):
            if ref.name == "__expr__":
                return INT
            if ref.name in ("packet_in", "packet_out") and s.lookup(ref.name) is None:
                return Simple(ref.name)
            sym = s.lookup(ref.name)
            if sym is None:
                self.err(ref, f"undeclared type '{ref.name}'")
                return UNKNOWN
            if sym.kind in ("type", "typevar"):
                if ref.args:
                    t = sym.type
                    if isinstance(t, Composite) and getattr(sym.decl, "type_params", None):
                        return self.specialize_struct(sym, [self.resolve_type(a, s) for a in ref.args], ref)
                    self.err(ref, f"type '{ref.name}' takes no type arguments")
                return sym.type
            if sym.kind in ("extern_type", "parser_type", "control_type", "package_type", "parser", "control"):
                decl = sym.decl
                tps = getattr(decl, "type_params", [])
                args = [self.resolve_type(a, s) for a in ref.args]
                if len(args) > len(tps):
                    self.err(ref, f"'{ref.name}' expects {len(tps)} type arguments, got {len(args)}")
                binding = {tp: a for tp, a in zip(tps, args) if a != DONTCARE}
                kind = sym.type.kind if isinstance(sym.type, ObjectT) else "extern"
                return ObjectT(kind, ref.name, decl, binding)
            if sym.kind in ("const", "var", "param"):
                return INT
            self.err(ref, f"'{ref.name}' is not a type")
            return UNKNOWN
        self.err(ref, "unsupported: this kind of type")
        return UNKNOWN

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
            t.fields.append((f.name, self.resolve_type(f.type_ref, inner)))
        return t

    def width_value(self, e: A.Expr, s: Scope) -> int | None:
        if e is None:
            return 1
        self.expr(e, s)
        v = self.const_value(e)
        if not isinstance(v, int) or isinstance(v, bool):
            self.err(e, "width must be a compile-time integer constant")
            return None
        if v < 0 or v > 1 << 16:
            self.err(e, f"invalid width {v}")
            return None
        return v

    # ------------------------------------------------------------ bodies
    def params(self, params: list[A.Param], scope: Scope, owner) -> None:
        for p in params:
            t = self.resolve_type(p.type_ref, scope)
            p.resolved_type = t
            sym = Symbol("param", p.name, p, t, direction=p.direction, owner=owner)
            self.declare(scope, sym, p.span)
            if p.default is not None:
                self.expr(p.default, scope)
                self.coerce(p.default, t, f"default of parameter '{p.name}'")

    def function_body(self, d: A.FunctionDecl, s: Scope) -> None:
        scope = Scope(s, d)
        for tp in d.proto.type_params:
            scope.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
        d.ret_type = self.resolve_type(d.proto.ret, scope)
        self.params(d.proto.params, scope, d)
        self.stmt(d.body, scope, {"function": d})

    def action_body(self, d: A.ActionDecl, s: Scope) -> None:
        scope = Scope(s, d)
        seen_cp = False
        for p in d.params:
            if p.direction == "":
                seen_cp = True
            elif seen_cp:
                self.err(p, f"directional parameter '{p.name}' must come before control-plane parameters")
        self.params(d.params, scope, d)
        self.stmt(d.body, scope, {"action": d})

    def instantiation(self, d: A.Instantiation, s: Scope) -> None:
        t = self.resolve_type(d.type_ref, s)
        d.resolved_type = t
        if not isinstance(t, ObjectT):
            if t is not UNKNOWN:
                self.err(d.type_ref, f"cannot instantiate {t}")
            self.declare(s, Symbol("instance", d.name, d, UNKNOWN), d.span)
            return
        for a in d.args:
            self.expr(a.expr, s)
        decl = t.decl
        if isinstance(decl, A.ExternDecl):
            ctors = [m for m in decl.methods if m.ret is None]
            cands = [c for c in ctors if self.arity_ok(c.params, d.args)]
            if not cands:
                counts = sorted({len(c.params) for c in ctors})
                self.err(d, f"wrong number of arguments to constructor of {decl.name}: expected "
                            f"{' or '.join(map(str, counts)) or 0}, got {len(d.args)}")
            else:
                self.bind_args(cands[0], d.args, dict(t.type_args), d, decl.name, s, type_binding=t.type_args)
        elif isinstance(decl, (A.ParserDecl, A.ControlDecl)):
            if len(d.args) != len(decl.ctor_params):
                self.err(d, f"wrong number of arguments to {decl.name}: expected {len(decl.ctor_params)}, got {len(d.args)}")
        elif isinstance(decl, A.PackageTypeDecl):
            if len(d.args) != len(decl.params):
                self.err(d, f"wrong number of arguments to package {decl.name}: expected {len(decl.params)}, got {len(d.args)}")
        if d.initializer:
            self.err(d, "unsupported: instantiation with an initializer block (abstract methods)")
        self.declare(s, Symbol("instance", d.name, d, t), d.span)

    def parser_body(self, d: A.ParserDecl, s: Scope) -> None:
        scope = Scope(s, d)
        for tp in d.type_params:
            scope.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
        self.params(d.params, scope, d)
        self.params(d.ctor_params, scope, d)
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
                st.implicit_reject = True
            elif isinstance(tr, str):
                sym = scope.lookup(tr)
                if sym is None or sym.kind != "state":
                    self.err(st.transition_span, f"undeclared state '{tr}'")
            else:
                self.select(tr, sscope)

    def select(self, sel: A.Select, scope: Scope) -> None:
        types = []
        for e in sel.exprs:
            types.append(self.expr(e, scope))
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
                        self.expr(items[0], scope)
                        continue
                self.err(ks, f"select keyset has {len(items)} components but the select has {len(types)} expressions")
                continue
            for item, t in zip(items, types):
                self.keyset_elem(item, t, scope)

    def keyset_elem(self, item: A.Expr, t: Type, scope: Scope) -> None:
        if isinstance(item, (A.DefaultExpr, A.DontCare)):
            item.type = t
            return
        if isinstance(item, A.Mask):
            self.expr(item.value, scope)
            self.expr(item.mask, scope)
            self.coerce(item.value, t, "keyset value")
            self.coerce(item.mask, t, "keyset mask")
            item.type = t
            return
        if isinstance(item, A.Range):
            self.expr(item.lo, scope)
            self.expr(item.hi, scope)
            self.coerce(item.lo, t, "range bound")
            self.coerce(item.hi, t, "range bound")
            item.type = t
            return
        self.expr(item, scope)
        if isinstance(item, A.Name) and getattr(item, "sym", None) is not None and item.sym.kind == "value_set":
            return
        self.coerce(item, t, "keyset value")

    def control_body(self, d: A.ControlDecl, s: Scope) -> None:
        scope = Scope(s, d)
        for tp in d.type_params:
            scope.names[tp] = Symbol("typevar", tp, None, TypeVar(tp))
        self.params(d.params, scope, d)
        self.params(d.ctor_params, scope, d)
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
        elif isinstance(loc, A.ActionDecl):
            self.declare(scope, Symbol("action", loc.name, loc, ObjectT("action", loc.name, loc), owner=owner), loc.span)
            self.action_body(loc, scope)
        elif isinstance(loc, A.TableDecl):
            self.declare(scope, Symbol("table", loc.name, loc, ObjectT("table", loc.name, loc), owner=owner), loc.span)
            self.table(loc, scope)
        elif isinstance(loc, A.ValueSetDecl):
            t = self.resolve_type(loc.elem, scope)
            self.expr(loc.size, scope)
            if self.const_value(loc.size) is None:
                self.err(loc.size, "value_set size must be a compile-time constant")
            self.declare(scope, Symbol("value_set", loc.name, loc, t, owner=owner), loc.span)
        else:
            self.err(loc, f"unsupported: local declaration {type(loc).__name__}")

    def var_decl(self, d: A.VarDecl, scope: Scope) -> None:
        t = self.resolve_type(d.type_ref, scope)
        if d.init is not None:
            self.expr(d.init, scope)
            self.coerce(d.init, t, f"initializer of '{d.name}'")
        self.declare(scope, Symbol("var", d.name, d, t, owner=scope.owner), d.span)

    # ------------------------------------------------------------ tables
    def table(self, t: A.TableDecl, scope: Scope) -> None:
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
                kt = self.expr(k.expr, scope)
                key_types.append(kt)
                if k.match_kind not in self.match_kinds:
                    self.err(k, f"unknown match kind '{k.match_kind}'")
                if k.match_kind == "lpm":
                    lpm += 1
                    if lpm == 2:
                        self.err(k, f"table {t.name} has more than one lpm key")
                if kt is not UNKNOWN and bit_width(kt) is None and not isinstance(strip_newtype(kt), Enum) and kt != ERROR:
                    self.err(k.expr, f"table key must be bit<W>, int<W>, bool, enum or error, not {kt}")
        acts = t.prop("actions")
        action_syms = {}
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
                self.action_args(ar, sym.decl, scope, partial=True)
        t.action_syms = action_syms
        da = t.prop("default_action")
        if da is not None:
            ar = da.value
            sym = self.lookup_action(ar, scope)
            if sym is not None:
                ar.sym = sym
                if action_syms and ar.name not in action_syms and sym.decl not in [x.decl for x in action_syms.values()]:
                    self.err(ar, f"default action '{ar.name}' is not in the actions of table {t.name}")
                self.action_args(ar, sym.decl, scope, partial=False)
        ent = t.prop("entries")
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
                    self.expr(e.priority, scope)
                sym = self.lookup_action(e.action, scope)
                if sym is not None:
                    e.action.sym = sym
                    if action_syms and e.action.name not in action_syms:
                        self.err(e.action, f"action '{e.action.name}' of entry is not in the actions of table {t.name}")
                    self.action_args(e.action, sym.decl, scope, partial=False)
        for p in t.properties:
            if p.name in ("key", "actions", "default_action", "entries"):
                continue
            if isinstance(p.value, A.Expr):
                self.expr(p.value, scope)
            if p.name == "size" and self.const_value(p.value) is None:
                self.err(p.value, "table size must be a compile-time constant")

    def lookup_action(self, ar: A.ActionRef, scope: Scope) -> Symbol | None:
        sym = scope.lookup(ar.name.split(".")[-1]) if ar.name.startswith(".") else scope.lookup(ar.name)
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
            self.expr(a.expr, scope)
            pt = getattr(p, "resolved_type", None)
            if pt is not None:
                self.coerce(a.expr, pt, f"argument '{p.name}' of action '{ar.name}'")

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
        lt = self.expr(st.lhs, scope)
        self.expr(st.rhs, scope)
        self.check_lvalue(st.lhs, scope)
        self.coerce(st.rhs, lt, "assignment")

    def visit_CallStmt(self, st, scope, ctx):
        self.expr(st.call, scope, stmt_ctx=True)

    def visit_If(self, st, scope, ctx):
        ct = self.expr(st.cond, scope)
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
            self.expr(st.value, scope)
            if fn is not None:
                self.coerce(st.value, fn.ret_type, "return value")
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
        if "parser" in ctx or "control" in ctx:
            self.instantiation(st, scope)
        else:
            self.err(st, "instantiations are not allowed here")

    def visit_Empty(self, st, scope, ctx):
        pass

    def visit_Stmt(self, st, scope, ctx):
        self.err(st, f"unsupported: statement {type(st).__name__}")


    def switch(self, st: A.Switch, scope: Scope, ctx: dict) -> None:
        t = self.expr(st.expr, scope)
        seen: set = set()
        for i, c in enumerate(st.cases):
            for lab in c.labels:
                if isinstance(lab, A.DefaultExpr):
                    if i != len(st.cases) - 1 or lab is not c.labels[-1]:
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
                    self.expr(lab, scope)
                    self.coerce(lab, t, "switch label")
                    key = self.const_value(lab)
                    if key is None:
                        self.err(lab, "switch label must be a compile-time constant")
                if key in seen:
                    self.err(lab, "duplicate switch label")
                seen.add(key)
            if c.body is not None:
                self.stmt(c.body, Scope(scope), ctx)
        if not isinstance(t, ActionRun) and t is not UNKNOWN and not (bit_width(t) or isinstance(t, Enum) or t == ERROR):
            self.err(st.expr, f"cannot switch on a value of type {t}")

    def check_lvalue(self, e: A.Expr, scope: Scope) -> None:
        base = e
        while isinstance(base, (A.Member, A.Index, A.Slice)):
            base = base.expr
        if isinstance(base, A.Name):
            sym = getattr(base, "sym", None)
            if sym is None:
                return
            if sym.kind == "param" and sym.direction in ("in", "") and isinstance(sym.owner, (A.ActionDecl, A.FunctionDecl, A.ControlDecl, A.ParserDecl)):
                self.err(e, f"cannot assign to read-only parameter '{sym.name}'")
            elif sym.kind not in ("var", "param"):
                self.err(e, f"cannot assign to '{sym.name}' (not a variable)")
        elif not isinstance(e.type, Unknown):
            self.err(e, "expression is not assignable")

    # ------------------------------------------------------------ expressions
    def expr(self, e: A.Expr, scope: Scope, stmt_ctx: bool = False) -> Type:
        try:
            t = self._expr(e, scope, stmt_ctx)
        except RecursionError:
            self.err(e, "expression nested too deeply")
            t = UNKNOWN
        e.type = t
        return t

    def _expr(self, e, scope, stmt_ctx):
        return self.visit(e, scope, stmt_ctx)

    def visit_IntLiteral(self, e, scope, stmt_ctx):
        if e.width is not None:
            if e.width == 0 and e.value != 0 or e.width < 0:
                self.err(e, f"invalid width {e.width}")
                return UNKNOWN
            return Bits(e.width, e.signed)
        return INT

    def visit_BoolLiteral(self, e, scope, stmt_ctx):
        return BOOL

    def visit_StringLiteral(self, e, scope, stmt_ctx):
        return STRING

    def visit_Name(self, e, scope, stmt_ctx):
        return self.name(e, scope)

    def visit_Member(self, e, scope, stmt_ctx):
        return self.member(e, scope)

    def visit_Index(self, e, scope, stmt_ctx):
        bt = self.expr(e.expr, scope)
        it = self.expr(e.index, scope)
        if bt is UNKNOWN:
            return UNKNOWN
        if isinstance(bt, Stack):
            if not (isinstance(strip_newtype(it), (Bits, IntT)) or it is UNKNOWN):
                self.err(e.index, f"stack index must be an integer, not {it}")
            v = self.const_value(e.index)
            if isinstance(v, int) and not isinstance(v, bool) and not 0 <= v < bt.size:
                self.err(e.index, f"index {v} out of bounds for {bt}")
            if isinstance(it, IntT):
                e.index.type = Bits(32)
            return bt.elem
        if isinstance(bt, Tuple):
            v = self.const_value(e.index)
            if not isinstance(v, int) or not 0 <= v < len(bt.elems):
                self.err(e.index, "tuple index must be a constant in range")
                return UNKNOWN
            return bt.elems[v]
        self.err(e, f"cannot index a value of type {bt}")
        return UNKNOWN

    def visit_Slice(self, e, scope, stmt_ctx):
        bt = strip_newtype(self.expr(e.expr, scope))
        self.expr(e.hi, scope)
        self.expr(e.lo, scope)
        hi, lo = self.const_value(e.hi), self.const_value(e.lo)
        if bt is UNKNOWN:
            return UNKNOWN
        if isinstance(bt, IntT):
            if isinstance(hi, int) and isinstance(lo, int):
                return Bits(hi - lo + 1)
        if not isinstance(bt, Bits):
            self.err(e, f"cannot slice a value of type {bt}")
            return UNKNOWN
        if not isinstance(hi, int) or not isinstance(lo, int):
            self.err(e, "slice bounds must be compile-time constants")
            return UNKNOWN
        if not (0 <= lo <= hi < bt.width):
            self.err(e, f"slice [{hi}:{lo}] out of range for {bt}")
            return UNKNOWN
        return Bits(hi - lo + 1)

    def visit_Unary(self, e, scope, stmt_ctx):
        return self.unary(e, scope)

    def visit_Binary(self, e, scope, stmt_ctx):
        return self.binary(e, scope)

    def visit_Ternary(self, e, scope, stmt_ctx):
        ct = self.expr(e.cond, scope)
        if ct not in (BOOL, UNKNOWN):
            self.err(e.cond, f"condition must be bool, not {ct}")
        a = self.expr(e.then, scope)
        b = self.expr(e.other, scope)
        if a is UNKNOWN or b is UNKNOWN:
            return UNKNOWN
        if isinstance(a, IntT) and not isinstance(b, IntT):
            self.coerce(e.then, b, "'?:' branch")
            return b
        if isinstance(b, IntT) and not isinstance(a, IntT):
            self.coerce(e.other, a, "'?:' branch")
            return a
        if isinstance(a, IntT) and isinstance(b, IntT):
            if self.const_value(e.cond) is None:
                self.err(e, "'?:' with unsized integer branches needs a width (cast one branch)")
            return INT
        if not same_type(a, b):
            self.err(e, f"'?:' branches have different types: {a} and {b}")
            return UNKNOWN
        return a

    def visit_Cast(self, e, scope, stmt_ctx):
        return self.cast(e, scope)

    def visit_Call(self, e, scope, stmt_ctx):
        return self.call(e, scope, stmt_ctx)

    def visit_ListExpr(self, e, scope, stmt_ctx):
        return ListT([self.expr(x, scope) for x in e.items])

    def visit_StructInit(self, e, scope, stmt_ctx):
        return StructInitT(list(e.names), [self.expr(x, scope) for x in e.values])

    def visit_DontCare(self, e, scope, stmt_ctx):
        return DONTCARE

    visit_DefaultExpr = visit_DontCare

    def visit_TypeExpr(self, e, scope, stmt_ctx):
        t = self.resolve_type(e.ref, scope)
        return TypeName(t)

    def visit_Mask(self, e, scope, stmt_ctx):
        self.err(e, "'&&&' and '..' are only allowed in select and table entry keysets")
        return UNKNOWN

    visit_Range = visit_Mask

    def visit_Expr(self, e, scope, stmt_ctx):
        self.err(e, f"unsupported: expression {type(e).__name__}")
        return UNKNOWN


    def name(self, e: A.Name, scope: Scope) -> Type:
        sym = (scope.root() if e.top_level else scope).lookup(e.name)
        if sym is None:
            self.err(e, f"undeclared name '{e.name}'")
            return UNKNOWN
        e.sym = sym
        k = sym.kind
        if k in ("var", "param", "const", "value_set"):
            return sym.type
        if k == "type":
            return TypeName(sym.type)
        if k == "match_kind":
            return MATCH_KIND
        if k in ("instance", "table", "action", "parser", "control", "extern_type"):
            return sym.type
        if k in ("extern_function", "function"):
            return MethodRef("extern_function" if k == "extern_function" else "function", e.name, None,
                             list(sym.overloads), sym.decl)
        if k == "state":
            return STATE
        return UNKNOWN

    def member(self, e: A.Member, scope: Scope) -> Type:
        bt = self.expr(e.expr, scope)
        if bt is UNKNOWN:
            return UNKNOWN
        n = e.name
        if isinstance(bt, TypeName):
            tt = bt.target
            if tt == ERROR:
                if n not in self.errors:
                    self.err(e, f"undeclared error '{n}'")
                    return UNKNOWN
                return ERROR
            if isinstance(tt, Enum):
                if n not in tt.members:
                    self.err(e, f"enum {tt.tname} has no member '{n}'")
                    return UNKNOWN
                return tt
            self.err(e, f"type {tt} has no member '{n}'")
            return UNKNOWN
        sbt = strip_newtype(bt)
        if isinstance(sbt, Composite):
            ft = sbt.field(n)
            if ft is not None:
                return ft
            if sbt.kind in ("header", "header_union") and n in ("isValid", "setValid", "setInvalid"):
                return MethodRef("builtin", n, e.expr, recv_type=sbt)
            if n in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
                return MethodRef("builtin", n, e.expr, recv_type=sbt)
            self.err(e, f"{sbt.kind} {sbt.tname} has no field '{n}'")
            return UNKNOWN
        if isinstance(sbt, Stack):
            if n in ("next", "last"):
                return sbt.elem
            if n in ("lastIndex",):
                return Bits(32)
            if n == "size":
                return INT
            if n in ("push_front", "pop_front"):
                return MethodRef("builtin", n, e.expr, recv_type=sbt)
            self.err(e, f"header stack has no member '{n}'")
            return UNKNOWN
        if isinstance(sbt, ObjectT) and sbt.kind == "extern" and sbt.tname in ("packet_in", "packet_out"):
            sbt = Simple(sbt.tname)
        if isinstance(sbt, Simple) and sbt.kind in ("packet_in", "packet_out"):
            ok = {"packet_in": ("extract", "lookahead", "advance", "length"), "packet_out": ("emit",)}[sbt.kind]
            if n not in ok:
                self.err(e, f"{sbt.kind} has no method '{n}'")
                return UNKNOWN
            return MethodRef("builtin", n, e.expr, recv_type=sbt)
        if isinstance(sbt, ObjectT):
            if sbt.kind == "extern":
                if sbt.tname in ("packet_in", "packet_out"):
                    pass
                protos = [m for m in sbt.decl.methods if m.name == n and m.ret is not None]
                if not protos:
                    self.err(e, f"extern {sbt.tname} has no method '{n}'")
                    return UNKNOWN
                return MethodRef("extern_method", n, e.expr, protos, sbt.decl, recv_type=sbt)
            if sbt.kind == "table":
                if n == "apply":
                    return MethodRef("table_apply", n, e.expr, None, sbt.decl)
                self.err(e, f"table {sbt.tname} has no member '{n}'")
                return UNKNOWN
            if sbt.kind in ("parser", "control"):
                if n == "apply":
                    return MethodRef("apply", n, e.expr, None, sbt.decl, recv_type=sbt)
                self.err(e, f"{sbt.kind} {sbt.tname} has no member '{n}'")
                return UNKNOWN
        if isinstance(bt, TableResult):
            if n in ("hit", "miss"):
                return BOOL
            if n == "action_run":
                return ActionRun(bt.table)
            self.err(e, f"table apply result has no member '{n}'")
            return UNKNOWN
        self.err(e, f"a value of type {bt} has no member '{n}'")
        return UNKNOWN

    def unary(self, e: A.Unary, scope: Scope) -> Type:
        t = self.expr(e.expr, scope)
        st = strip_newtype(t)
        if t is UNKNOWN:
            return UNKNOWN
        if e.op == "!":
            if t != BOOL:
                self.err(e, f"'!' needs a bool operand, not {t}")
                return UNKNOWN
            return BOOL
        if e.op == "~":
            if not isinstance(st, Bits):
                self.err(e, f"'~' needs a bit<W> or int<W> operand, not {t}")
                return UNKNOWN
            return t
        if not isinstance(st, (Bits, IntT)):
            self.err(e, f"'{e.op}' needs a numeric operand, not {t}")
            return UNKNOWN
        return t

    def binary(self, e: A.Binary, scope: Scope) -> Type:
        op = e.op
        lt = self.expr(e.left, scope)
        rt = self.expr(e.right, scope)
        if lt is UNKNOWN or rt is UNKNOWN:
            return UNKNOWN
        if op in ("&&", "||"):
            for side, t in ((e.left, lt), (e.right, rt)):
                if t != BOOL:
                    self.err(side, f"'{op}' needs bool operands, not {t}")
                    return UNKNOWN
            return BOOL
        if op in ("==", "!="):
            if isinstance(lt, IntT) and not isinstance(rt, IntT):
                self.coerce(e.left, rt, f"operand of '{op}'")
            elif isinstance(rt, IntT) and not isinstance(lt, IntT):
                self.coerce(e.right, lt, f"operand of '{op}'")
            elif isinstance(rt, (ListT, StructInitT)):
                self.coerce(e.right, lt, f"operand of '{op}'")
            elif isinstance(lt, (ListT, StructInitT)):
                self.coerce(e.left, rt, f"operand of '{op}'")
            elif not self.equal_types(lt, rt):
                self.err(e, f"cannot compare {lt} and {rt} with '{op}'")
            return BOOL
        if op == "++":
            slt, srt = strip_newtype(lt), strip_newtype(rt)
            if not isinstance(slt, Bits) or not isinstance(srt, Bits):
                self.err(e, f"'++' needs bit<W>/int<W> operands, not {lt} and {rt}")
                return UNKNOWN
            return Bits(slt.width + srt.width, slt.signed)
        if op in ("<<", ">>"):
            slt, srt = strip_newtype(lt), strip_newtype(rt)
            if not isinstance(slt, (Bits, IntT)):
                self.err(e.left, f"'{op}' needs a numeric left operand, not {lt}")
                return UNKNOWN
            if not isinstance(srt, (Bits, IntT)) or (isinstance(srt, Bits) and srt.signed):
                self.err(e.right, f"shift amount must be unsigned, not {rt}")
                return UNKNOWN
            if isinstance(slt, IntT) and not isinstance(srt, IntT) and self.const_value(e.left) is not None:
                self.err(e, "shifting an unsized constant by a run-time amount needs a width (cast the constant)")
                return UNKNOWN
            if isinstance(srt, IntT):
                v = self.const_value(e.right)
                if isinstance(v, int) and v < 0:
                    self.err(e.right, "shift amount must not be negative")
                e.right.type = Bits(32) if not isinstance(slt, IntT) else INT
            return lt
        # arithmetic, bitwise and relational
        slt, srt = strip_newtype(lt), strip_newtype(rt)
        num = (Bits, IntT)
        if isinstance(slt, Enum) and slt.underlying:
            slt = slt.underlying
        if isinstance(srt, Enum) and srt.underlying:
            srt = srt.underlying
        if not isinstance(slt, num) or not isinstance(srt, num):
            bad = lt if not isinstance(slt, num) else rt
            self.err(e, f"'{op}' needs numeric operands, not {bad}")
            return UNKNOWN
        if isinstance(slt, IntT) and isinstance(srt, Bits):
            self.coerce(e.left, srt, f"operand of '{op}'")
            res = srt
        elif isinstance(srt, IntT) and isinstance(slt, Bits):
            self.coerce(e.right, slt, f"operand of '{op}'")
            res = slt
        elif isinstance(slt, IntT):
            res = INT
            if op in ("/", "%"):
                lv, rv = self.const_value(e.left), self.const_value(e.right)
                if rv == 0:
                    self.err(e.right, "division by zero")
                elif isinstance(lv, int) and isinstance(rv, int) and (lv < 0 or rv < 0):
                    self.err(e, "division of negative unsized constants is not allowed")
        else:
            if slt != srt:
                self.err(e, f"'{op}' operands have different types: {lt} and {rt}")
                return UNKNOWN
            res = lt if isinstance(strip_newtype(lt), Bits) else slt
            if op in ("/", "%") and slt.signed:
                self.err(e, f"'{op}' is not defined on signed values")
        if op in ("<", ">", "<=", ">="):
            return BOOL
        if op in ("/", "%") and not isinstance(res, IntT):
            rv = self.const_value(e.right)
            if rv == 0:
                self.err(e.right, "division by zero")
        return res

    def equal_types(self, a: Type, b: Type) -> bool:
        a, b = strip_newtype(a), strip_newtype(b)
        if isinstance(a, Enum) and a.underlying and isinstance(b, Bits):
            return a.underlying == b
        if isinstance(b, Enum) and b.underlying and isinstance(a, Bits):
            return b.underlying == a
        return same_type(a, b)

    def cast(self, e: A.Cast, scope: Scope) -> Type:
        to = self.resolve_type(e.to, scope)
        ft = self.expr(e.expr, scope)
        if to is UNKNOWN or ft is UNKNOWN:
            return to if ft is UNKNOWN else UNKNOWN
        sto, sft = strip_newtype(to), strip_newtype(ft)
        if isinstance(sft, Enum) and sft.underlying:
            sft = sft.underlying
        if isinstance(sto, Enum) and sto.underlying and isinstance(sft, (Bits, IntT)):
            if isinstance(sft, IntT):
                e.expr.type = sto.underlying
            return to
        if isinstance(sto, Bits):
            if isinstance(sft, IntT):
                self.set_const_type(e.expr, sto)
                return to
            if isinstance(sft, Bits):
                if sft.signed != sto.signed and sft.width != sto.width:
                    self.err(e, f"cannot cast {ft} to {to} directly (change the width and the sign in two casts)")
                    return UNKNOWN
                return to
            if sft == BOOL and sto.width == 1 and not sto.signed:
                return to
        if sto == BOOL and (isinstance(sft, Bits) and sft.width == 1 and not sft.signed or isinstance(sft, IntT) or sft == BOOL):
            if isinstance(sft, IntT):
                v = self.const_value(e.expr)
                if v not in (0, 1):
                    self.err(e, "only 0 and 1 can be cast to bool")
                e.expr.type = Bits(1)
            return BOOL
        if isinstance(sto, IntT) and isinstance(sft, (Bits, IntT)):
            return INT
        if isinstance(sto, (Composite, Tuple, Stack)) and isinstance(ft, (ListT, StructInitT)):
            self.coerce(e.expr, to, "cast")
            return to
        if same_type(sto, sft):
            return to
        self.err(e, f"cannot cast {ft} to {to}")
        return UNKNOWN

    # ------------------------------------------------------------ calls
    def arity_ok(self, params: list[A.Param], args: list[A.Argument]) -> bool:
        if any(a.name for a in args):
            names = {p.name for p in params}
            if not all(a.name in names for a in args if a.name):
                return False
            given = {a.name for a in args if a.name}
            return all(p.name in given or p.default is not None for p in params)
        required = sum(1 for p in params if p.default is None)
        return required <= len(args) <= len(params)

    def order_args(self, params: list[A.Param], args: list[A.Argument]) -> list[A.Expr | None]:
        if any(a.name for a in args):
            by = {a.name: a.expr for a in args}
            return [by.get(p.name, p.default) for p in params]
        out: list[A.Expr | None] = [a.expr for a in args]
        out += [p.default for p in params[len(args):]]
        return out

    def call(self, e: A.Call, scope: Scope, stmt_ctx: bool) -> Type:
        ft = self.expr(e.func, scope)
        targs = [self.resolve_type(t, scope) for t in e.type_args]
        for a in e.args:
            if not isinstance(a.expr, A.DontCare):
                self.expr(a.expr, scope)
            else:
                a.expr.type = DONTCARE
        if ft is UNKNOWN:
            return UNKNOWN
        if isinstance(ft, ObjectT) and ft.kind in ("parser", "control", "extern") and isinstance(e.func, A.Name) \
                and getattr(e.func, "sym", None) is not None and e.func.sym.kind in ("parser", "control", "extern_type"):
            e.target = ("ctor", ft.decl)
            return ft
        if isinstance(ft, ObjectT) and ft.kind == "action":
            decl = ft.decl
            e.target = ("action", decl)
            if len(e.args) != len(decl.params):
                self.err(e, f"wrong number of arguments to action '{decl.name}': expected {len(decl.params)}, got {len(e.args)}")
                return UNKNOWN
            for a, p in zip(self.order_args(decl.params, e.args), decl.params):
                if a is not None:
                    self.coerce(a, p.resolved_type, f"argument '{p.name}' of '{decl.name}'")
                    if p.direction in ("out", "inout"):
                        self.check_lvalue(a, scope)
            return VOID
        if not isinstance(ft, MethodRef):
            self.err(e, f"cannot call a value of type {ft}")
            return UNKNOWN
        if ft.kind == "builtin":
            return self.builtin_call(e, ft, targs, scope)
        if ft.kind == "table_apply":
            if e.args:
                self.err(e, "table apply takes no arguments")
            e.target = ("table_apply", ft.decl)
            return TableResult(ft.decl)
        if ft.kind == "apply":
            decl = ft.decl
            e.target = ("apply", decl)
            params = decl.params
            if len(e.args) != len(params):
                self.err(e, f"wrong number of arguments to {decl.name}.apply: expected {len(params)}, got {len(e.args)}")
                return UNKNOWN
            for a, p in zip(e.args, params):
                pt = getattr(p, "resolved_type", None)
                if pt is not None and not isinstance(pt, TypeVar):
                    self.coerce(a.expr, pt, f"argument '{p.name}' of {decl.name}.apply")
            return VOID
        # extern methods, extern functions, functions
        protos = [p for p in ft.protos if self.arity_ok(p.params, e.args)]
        if not protos:
            counts = sorted({len(p.params) for p in ft.protos})
            self.err(e, f"wrong number of arguments to '{ft.mname}': expected {' or '.join(map(str, counts))}, got {len(e.args)}")
            return UNKNOWN
        proto = protos[0]
        if len(protos) > 1:
            # prefer exact arity without defaults
            exact = [p for p in protos if len(p.params) == len(e.args)]
            proto = exact[0] if exact else proto
        binding: dict[str, Type] = {}
        if isinstance(ft.recv_type, ObjectT):
            binding.update(ft.recv_type.type_args)
        if targs:
            if len(targs) != len(proto.type_params):
                self.err(e, f"'{ft.mname}' expects {len(proto.type_params)} type arguments, got {len(targs)}")
            binding.update({tp: t for tp, t in zip(proto.type_params, targs) if t != DONTCARE})
        ret = self.bind_args(proto, e.args, binding, e, ft.mname, scope)
        e.target = (ft.kind, proto, ft.obj, ft.decl, binding)
        return ret

    def bind_args(self, proto: A.MethodProto, args: list[A.Argument], binding: dict, node, fname: str, scope: Scope, type_binding=None) -> Type:
        ordered = self.order_args(proto.params, args)
        for p, a in zip(proto.params, ordered):
            pt = self.resolve_type(p.type_ref, self.generic_scope(proto, binding))
            if a is None:
                continue
            at = a.type
            if isinstance(pt, TypeVar):
                if pt.tname in binding:
                    pt = binding[pt.tname]
                elif at is not None and at is not UNKNOWN and at != DONTCARE:
                    if isinstance(at, IntT) and p.direction in ("out", "inout"):
                        self.err(a, f"argument '{p.name}' of '{fname}' must be a variable")
                        continue
                    if isinstance(at, IntT):
                        continue
                    binding[pt.tname] = at
                    pt = at
                else:
                    continue
            if at == DONTCARE:
                if p.direction not in ("out",):
                    self.err(a, f"'_' can only be passed to an out parameter")
                continue
            if not self.coerce(a, pt, f"argument '{p.name}' of '{fname}'"):
                continue
            if p.direction in ("out", "inout"):
                self.check_lvalue(a, scope)
        if type_binding is not None:
            type_binding.update(binding)
        if proto.ret is None:
            return VOID
        rt = self.resolve_type(proto.ret, self.generic_scope(proto, binding))
        if isinstance(rt, TypeVar):
            if rt.tname in binding:
                return binding[rt.tname]
            self.err(node, f"cannot infer the type of the result of '{fname}'; give it as a type argument")
            return UNKNOWN
        return rt

    def generic_scope(self, proto: A.MethodProto, binding: dict) -> Scope:
        s = Scope(self.top)
        ext = getattr(proto, "_extern_tps", None)
        for tp in list(proto.type_params) + list(ext or []):
            s.names[tp] = Symbol("type", tp, None, binding.get(tp, TypeVar(tp)))
        for tp, t in binding.items():
            s.names[tp] = Symbol("type", tp, None, t)
        # extern type parameters not bound: leave as type variables
        return s

    def builtin_call(self, e: A.Call, ft: MethodRef, targs: list[Type], scope: Scope) -> Type:
        n = ft.mname
        args = e.args
        e.target = ("builtin", n, ft.obj, ft.recv_type)
        rt = ft.recv_type

        def nargs(*ok):
            if len(args) not in ok:
                self.err(e, f"wrong number of arguments to '{n}': expected {' or '.join(map(str, ok))}, got {len(args)}")
                return False
            return True
        if n in ("isValid",):
            nargs(0)
            return BOOL
        if n in ("setValid", "setInvalid"):
            nargs(0)
            if isinstance(rt, Composite) and rt.is_union:
                self.err(e, f"'{n}' is not defined on a header_union")
            return VOID
        if n in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
            nargs(0)
            return INT
        if n in ("push_front", "pop_front"):
            if nargs(1):
                v = self.const_value(args[0].expr)
                if not isinstance(v, int) or v < 0:
                    self.err(args[0], f"'{n}' count must be a non-negative compile-time constant")
            return VOID
        if n == "extract":
            if nargs(1, 2):
                at = args[0].expr.type
                if not (isinstance(at, Composite) and at.is_header) and at is not UNKNOWN:
                    self.err(args[0], f"extract needs a header, not {at}")
                else:
                    self.check_lvalue(args[0].expr, scope)
                    hv = any(isinstance(ft_, Varbit) for _, ft_ in getattr(at, "fields", []))
                    if len(args) == 1 and hv:
                        self.err(e, f"extract of header {at} with a varbit field needs the varbit size argument")
                    if len(args) == 2:
                        if not hv:
                            self.err(e, f"two-argument extract needs a header with a varbit field")
                        self.coerce(args[1].expr, Bits(32), "extract size")
            return VOID
        if n == "lookahead":
            nargs(0)
            if len(targs) != 1:
                self.err(e, "lookahead needs one type argument")
                return UNKNOWN
            t = targs[0]
            if not (bit_width(t) or isinstance(t, Composite) and t.is_header):
                self.err(e, f"lookahead of {t} is not supported")
            return t
        if n == "advance":
            if nargs(1):
                self.coerce(args[0].expr, Bits(32), "advance size")
            return VOID
        if n == "length":
            nargs(0)
            return Bits(32)
        if n == "emit":
            if nargs(1):
                at = args[0].expr.type
                if not isinstance(strip_newtype(at), (Composite, Stack)) and at is not UNKNOWN:
                    self.err(args[0], f"emit needs a header, header stack, header_union or struct, not {at}")
            return VOID
        self.err(e, f"unsupported: method '{n}'")
        return UNKNOWN

    # ------------------------------------------------------------ coercion
    def coerce(self, e: A.Expr, target: Type, what: str) -> bool:
        """Check that e can be used where `target` is expected; give unsized
        constants and list/struct expressions their type. Reports and returns False if not."""
        src = e.type
        if src is None or src is UNKNOWN or target is UNKNOWN or target is None:
            return True
        if isinstance(target, TypeVar):
            return True
        st, tt = strip_newtype(src), strip_newtype(target)
        if same_type(src, target) or (isinstance(src, NewType) or isinstance(target, NewType)) and same_type(st, tt):
            return True
        if isinstance(st, IntT):
            if isinstance(tt, Bits):
                v = self.const_value(e)
                if isinstance(v, int) and not isinstance(v, bool):
                    lim = 1 << tt.width
                    if not tt.signed and (v >= lim or v < -(lim >> 1) and v < 0 and -v > lim):
                        self.err(e, f"value {v} does not fit in {target} ({what})")
                        return False
                self.set_const_type(e, tt)
                return True
            if isinstance(tt, IntT):
                return True
            if isinstance(tt, Enum) and tt.underlying:
                self.err(e, f"cannot use int for {target} without a cast ({what})")
                return False
        if isinstance(st, Enum) and st.underlying and isinstance(tt, Bits) and st.underlying == tt:
            return True
        if isinstance(st, (ListT, StructInitT)) and isinstance(tt, (Composite, Tuple, Stack)):
            return self.coerce_aggregate(e, tt, what)
        if isinstance(st, Bits) and isinstance(tt, Bits):
            self.err(e, f"type mismatch in {what}: expected {target}, got {src}")
            return False
        if isinstance(tt, Tuple) and isinstance(st, Tuple):
            return True
        if st == DONTCARE:
            return True
        self.err(e, f"type mismatch in {what}: expected {target}, got {src}")
        return False

    def coerce_aggregate(self, e: A.Expr, tt: Type, what: str) -> bool:
        if isinstance(e, A.ListExpr):
            if isinstance(tt, Composite):
                if len(e.items) != len(tt.fields):
                    self.err(e, f"{tt} has {len(tt.fields)} fields but the list has {len(e.items)} elements ({what})")
                    return False
                for item, (_, ftp) in zip(e.items, tt.fields):
                    self.coerce(item, ftp, what)
            elif isinstance(tt, Tuple):
                if len(e.items) != len(tt.elems):
                    self.err(e, f"tuple has {len(tt.elems)} elements but the list has {len(e.items)} ({what})")
                    return False
                for item, et in zip(e.items, tt.elems):
                    self.coerce(item, et, what)
            elif isinstance(tt, Stack):
                for item in e.items:
                    self.coerce(item, tt.elem, what)
            e.type = tt
            return True
        if isinstance(e, A.StructInit) and isinstance(tt, Composite):
            names = set(e.names)
            for fname, ftp in tt.fields:
                if fname not in names:
                    self.err(e, f"field '{fname}' of {tt} is missing from the initializer ({what})")
                    return False
            for n, v in zip(e.names, e.values):
                ftp = tt.field(n)
                if ftp is None:
                    self.err(v, f"{tt} has no field '{n}'")
                    return False
                self.coerce(v, ftp, what)
            e.type = tt
            return True
        if isinstance(e, A.Cast):
            return True
        self.err(e, f"type mismatch in {what}: expected {tt}, got {e.type}")
        return False

    def set_const_type(self, e: A.Expr, t: Type) -> None:
        # unsized constants are folded with infinite precision first, then converted
        v = const_value(e)
        if isinstance(v, int) and not isinstance(v, bool):
            e.folded = v
            e.type = t
            return
        e.type = t
        if isinstance(e, A.Binary) and e.op not in ("<<", ">>"):
            for x in (e.left, e.right):
                if isinstance(x.type, IntT):
                    self.set_const_type(x, t)
        elif isinstance(e, A.Binary):
            if isinstance(e.left.type, IntT):
                self.set_const_type(e.left, t)
        elif isinstance(e, A.Unary) and isinstance(e.expr.type, IntT):
            self.set_const_type(e.expr, t)
        elif isinstance(e, A.Ternary):
            for x in (e.then, e.other):
                if isinstance(x.type, IntT):
                    self.set_const_type(x, t)

    # ------------------------------------------------------------ constants
    def const_value(self, e: A.Expr):
        return const_value(e)


def check(program: A.Program, rep: Reporter, main_file: str = "") -> Checker:
    c = Checker(rep)
    c.run(program)
    if c.main is None and not rep.failed:
        rep.error(Span(main_file, 1, 1) if main_file else program.span, "program has no 'main' package instantiation")
    return c
