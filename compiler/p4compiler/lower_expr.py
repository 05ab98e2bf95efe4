"""Lowering of P4 expressions to BMv2 type-value objects (and l-value Locs)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .bmv2 import const, expr, scalar_width
from .check_types import TypeName
from .consteval import const_value
from .diag import Span
from .storage import DynHeaderLoc, FieldLoc, HeaderLoc, LastLoc, Loc, StackLoc, StructLoc, UnionLoc, ValueLoc
from .visitor import Visitor
from .types import BOOL, ERROR, Bits, Composite, Enum, Stack, Tuple, strip_newtype

if TYPE_CHECKING:
    from .lower import Lowerer

_ARITH = {"+": "+", "-": "-", "*": "*", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^"}
_CMP = {"==": "==", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}


class Unsupported(Exception):
    """A construct lowering cannot translate. `by_target`: BMv2's JSON has no way to
    express it at all (p4c refuses it too), as opposed to a gap in this compiler."""

    def __init__(self, span: Span | None, what: str, by_target: bool = False):
        super().__init__(what)
        self.span = span
        self.what = what
        self.by_target = by_target

    @property
    def message(self) -> str:
        return f"unsupported on this target: {self.what}" if self.by_target else f"unsupported: {self.what}"


def unsupported(node, what: str) -> Unsupported:
    return Unsupported(getattr(node, "span", None), what)


def unsupported_by_target(node, what: str) -> Unsupported:
    return Unsupported(getattr(node, "span", None), what, by_target=True)


class ExprLowerer(Visitor):
    """Expressions to BMv2 expressions (`val`, named pass `val_<Expr>`), conditions (`cond`) and
    l-values to storage locations (`loc`). Function calls inside expressions are inlined
    through the calls part."""

    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts

    # ------------------------------------------------------------ l-values
    def loc(self, e: A.Expr, ctx) -> Loc:
        """The storage location an l-value expression names (field, header, stack element, union
        member, struct, extern object)."""
        if isinstance(e, A.Name):
            sym = e.sym
            loc = self.lw.storage.lookup(ctx, sym) if sym is not None else None
            if loc is None:
                raise unsupported(e, f"reference to '{e.name}' in this context")
            return loc
        if isinstance(e, A.Member):
            base = self.loc(e.expr, ctx)
            if isinstance(base, StructLoc):
                if e.name not in base.fields:
                    raise unsupported(e, f"field '{e.name}'")
                return base.fields[e.name]
            if isinstance(base, (HeaderLoc, DynHeaderLoc, LastLoc)):
                if isinstance(base, (DynHeaderLoc, LastLoc)) and e.name not in [f for f, _ in base.stack.type.elem.fields]:
                    raise unsupported(e, f"'{e.name}' of a header stack element chosen at run time")
                return base.field(e.name)
            if isinstance(base, UnionLoc):
                return base.members[e.name]
            if isinstance(base, StackLoc):
                if e.name == "last" and ctx.kind == "parser" and not base.is_union_stack:
                    return LastLoc(base)
                if e.name in ("next", "last"):
                    dyn = ctx.stack_cursor
                    if dyn is not None:
                        return dyn(base, e.name, e)
                    raise unsupported(e, f"header stack '.{e.name}' outside a parser")
            raise unsupported(e, f"member '{e.name}' of this value")
        if isinstance(e, A.Index):
            base = self.loc(e.expr, ctx)
            if isinstance(base, StackLoc):
                i = const_value(e.index)
                if isinstance(i, int) and not isinstance(i, bool):
                    if not 0 <= i < len(base.elems):
                        raise unsupported(e, "constant stack index out of range")
                    return base.elems[i]
                if base.is_union_stack:
                    raise unsupported(e, "header union stack index that is not a compile-time constant")
                return DynHeaderLoc(base, self.val(e.index, ctx))
            if isinstance(base, StructLoc) and isinstance(strip_newtype(e.expr.type), Tuple):
                return base.fields[str(const_value(e.index))]  # tuples are stored as structs "0", "1", ...
            raise unsupported(e, "indexing this value")
        raise unsupported(e, "this expression as a location")

    def is_loc_expr(self, e: A.Expr) -> bool:
        while isinstance(e, (A.Member, A.Index)):
            e = e.expr
        return isinstance(e, A.Name) and e.sym is not None and e.sym.kind in ("var", "param")

    # ------------------------------------------------------------ r-values
    def val(self, e: A.Expr, ctx) -> dict:
        """Data value (BMv2 'data' context)."""
        t = strip_newtype(e.type)
        if t == BOOL:
            if self.is_loc_expr(e):
                loc = self.loc(e, ctx)
                return loc.json()
            c = self.cond(e, ctx)
            if c.get("type") == "bool":
                return const(1 if c["value"] else 0)
            return expr("b2d", None, c)
        v = const_value(e)
        if isinstance(v, bool):
            return const(int(v))
        if isinstance(v, int):
            return const(v)
        return self._val(e, ctx)

    def cond(self, e: A.Expr, ctx) -> dict:
        """Boolean value (BMv2 'bool' context)."""
        v = const_value(e)
        if isinstance(v, bool):
            return {"type": "bool", "value": v}
        if isinstance(e, A.Unary) and e.op == "!":
            return expr("not", None, self.cond(e.expr, ctx))
        if isinstance(e, A.Binary):
            if e.op in ("&&", "||"):
                if ctx.body is not None and self.has_calls(e.right):
                    return self.short_circuit(e, ctx)
                return expr("and" if e.op == "&&" else "or", self.cond(e.left, ctx), self.cond(e.right, ctx))
            if e.op in _CMP:
                lt = strip_newtype(e.left.type)
                if lt != BOOL and (isinstance(lt, (Composite, Stack)) or isinstance(strip_newtype(e.right.type), (Composite, Stack))):
                    return self.compare_aggregate(e, ctx)
                return expr(_CMP[e.op], *self.operands(e.left, e.right, ctx))
        if isinstance(e, A.Call):
            tgt = e.target
            if tgt and tgt.kind == "builtin" and tgt.name == "isValid":
                loc = self.loc(tgt.obj, ctx)
                return self.valid_expr(loc, e)
        if isinstance(e, A.Ternary):
            return expr("d2b", None, expr("?", self.val(e.then, ctx), self.val(e.other, ctx), cond=self.cond(e.cond, ctx)))
        if isinstance(e, A.Cast) and strip_newtype(e.type) == BOOL:
            return expr("d2b", None, self.val(e.expr, ctx))
        d = self.val_nobool(e, ctx)
        return expr("d2b", None, d)

    def operands(self, left: A.Expr, right: A.Expr, ctx) -> tuple[dict, dict]:
        """Both operands' values, left first: when the right one calls something that may
        write what the left one reads (`x + f(x)` with `inout x`), the left value is taken
        into a temporary before the call runs."""
        l = self.val(left, ctx)
        body = ctx.body
        if body is not None and l.get("type") not in ("hexstr", "bool") and self.writes_arguments(right):
            tmp = self.lw.storage.temp(left.type, "operand")
            self.lw.stmts.emit_assign(tmp, l, body, left.span)
            l = tmp.json()
        return l, self.val(right, ctx)

    def writes_arguments(self, e) -> bool:
        """Whether evaluating e calls something with an out/inout parameter."""
        tgt = e.target if isinstance(e, A.Call) else None
        if tgt and tgt.kind in ("function", "extern_function", "extern_method") \
                and any(p.direction in ("out", "inout") for p in tgt.proto.params):
            return True
        return any(self.writes_arguments(c) for c in e.children() if isinstance(c, (A.Expr, A.Argument)))

    def has_calls(self, e) -> bool:
        if isinstance(e, A.Call) and e.target_kind() in ("function", "extern_function", "extern_method"):
            return True
        return any(self.has_calls(c) for c in e.children() if isinstance(c, (A.Expr, A.Argument)))

    def short_circuit(self, e: A.Binary, ctx) -> dict:
        """`a && f()` / `a || f()` where f has effects: evaluate f only when needed (jumps)."""
        body = ctx.body
        if body.in_parser:
            raise unsupported(e, f"'{e.op}' with a call on its right in a parser state (BMv2 parsers have no jumps)")
        tmp = self.lw.storage.temp(BOOL, "sc")
        self.lw.stmts.emit_assign(tmp, expr("b2d", None, self.cond(e.left, ctx)), body, e.span)
        if e.op == "&&":
            j = body.emit("_jump_if_zero", [tmp.json(), const(0)])
            self.lw.stmts.emit_assign(tmp, expr("b2d", None, self.cond(e.right, ctx)), body, e.span)
            body.patch(j, len(body.prims))
        else:
            j = body.emit("_jump_if_zero", [tmp.json(), const(0)])
            j2 = body.emit("_jump", [const(0)])
            body.patch(j, len(body.prims))
            self.lw.stmts.emit_assign(tmp, expr("b2d", None, self.cond(e.right, ctx)), body, e.span)
            body.patch(j2, len(body.prims))
        return expr("d2b", None, tmp.json())

    def val_nobool(self, e: A.Expr, ctx) -> dict:
        if self.is_loc_expr(e):
            loc = self.loc(e, ctx)
            if isinstance(loc, (FieldLoc, ValueLoc)):
                return loc.json()
        return self._val(e, ctx)

    def valid_expr(self, loc: Loc, node) -> dict:
        if isinstance(loc, HeaderLoc):
            return expr("d2b", None, {"type": "field", "value": [loc.name, "$valid$"]})
        if isinstance(loc, DynHeaderLoc):
            return expr("valid", None, loc.header_expr())
        if isinstance(loc, UnionLoc):
            out = None
            for m in loc.members.values():
                v = expr("d2b", None, {"type": "field", "value": [m.name, "$valid$"]})
                out = v if out is None else expr("or", out, v)
            return out or {"type": "bool", "value": False}
        raise unsupported(node, "isValid on this value")

    def compare_aggregate(self, e: A.Binary, ctx) -> dict:
        lt = strip_newtype(e.left.type)
        if self.is_loc_expr(e.left) and self.is_loc_expr(e.right):
            same = self.equal_locs(self.loc(e.left, ctx), self.loc(e.right, ctx), e)
            return same if e.op == "==" else expr("not", None, same)
        la, ra = self.aggregate_parts(e.left, ctx), self.aggregate_parts(e.right, ctx)
        if la is None or ra is None or len(la) != len(ra):
            raise unsupported(e, f"comparison of {lt} values")
        out = None
        for a, b in zip(la, ra):
            c = expr("==", a, b)
            out = c if out is None else expr("and", out, c)
        if out is None:
            out = {"type": "bool", "value": True}
        return out if e.op == "==" else expr("not", None, out)

    def equal_locs(self, a: Loc, b: Loc, node) -> dict:
        """Spec equality of two stored values: structs and stacks element by element; two
        headers are equal when both are invalid, or both valid with equal fields."""
        if isinstance(a, StructLoc) and isinstance(b, StructLoc):
            parts = [self.equal_locs(a.fields[n], b.fields[n], node) for n in a.fields]
        elif isinstance(a, StackLoc) and isinstance(b, StackLoc) and len(a.elems) == len(b.elems):
            parts = [self.equal_locs(x, y, node) for x, y in zip(a.elems, b.elems)]
        elif isinstance(a, HeaderLoc) and isinstance(b, HeaderLoc):
            va, vb = ({"type": "field", "value": [h.name, "$valid$"]} for h in (a, b))
            fields = [expr("==", x.json(), y.json()) for x, y in zip(a.leaf_fields(), b.leaf_fields())]
            same_fields = _all(fields)
            return expr("and", expr("==", va, vb), expr("or", expr("not", None, expr("d2b", None, va)), same_fields))
        elif isinstance(a, UnionLoc) and isinstance(b, UnionLoc):
            # spec, operations on header unions: equal when the same member is valid (or none) with equal fields;
            # at most one member is valid, so member-wise header equality says exactly that
            parts = [self.equal_locs(a.members[n], b.members[n], node) for n in a.members]
        elif isinstance(a, (FieldLoc, ValueLoc)) and isinstance(b, (FieldLoc, ValueLoc)):
            return expr("==", a.json(), b.json())
        else:
            raise unsupported(node, "comparison of these values")
        return _all(parts)

    def aggregate_parts(self, e: A.Expr, ctx) -> list | None:
        if isinstance(e, (A.ListExpr,)):
            return [self.val(x, ctx) for x in e.items]
        if isinstance(e, A.StructInit):
            t = strip_newtype(e.type)
            by = dict(zip(e.names, e.values))
            return [self.val(by[n], ctx) for n, _ in t.fields]
        if isinstance(e, A.Call) and e.target_kind() == "builtin" and e.target.name == "lookahead" \
                and ctx.body is not None:
            # a header or struct peeked at in a parser: read into a temporary, compared from there
            loc = self.lw.storage.alloc(e.type, self.lw.doc.fresh("lookahead"), True)
            self.lw.stmts.assign_lookahead(loc, ctx.body, e.span)
        else:
            loc = self.loc(e, ctx)
        out = []

        def walk(l):
            if isinstance(l, StructLoc):
                for v in l.fields.values():
                    walk(v)
            elif isinstance(l, HeaderLoc):
                out.append({"type": "field", "value": [l.name, "$valid$"]})
                out.extend(f.json() for f in l.leaf_fields())
            elif isinstance(l, (FieldLoc, ValueLoc)):
                out.append(l.json())
            else:
                raise unsupported(e, "comparison of this value")
        walk(loc)
        return out

    def mask(self, d: dict, t) -> dict:
        st = strip_newtype(t)
        if isinstance(st, Bits):
            if st.signed:
                return expr("two_comp_mod", d, const(st.width))
            return expr("&", d, const((1 << st.width) - 1))
        return d

    def _val(self, e: A.Expr, ctx) -> dict:
        """Data value of a non-constant expression: dispatches to val_<Expr>."""
        return self.dispatch("val", e, ctx)

    def val_IntLiteral(self, e, ctx) -> dict:
        return const(e.value)

    def val_BoolLiteral(self, e, ctx) -> dict:
        return const(int(e.value))

    def val_Name(self, e, ctx) -> dict:
        sym = e.sym
        if sym is not None and sym.kind == "const":
            v = sym.value
            if isinstance(v, (int, bool)):
                return const(int(v))
            if isinstance(sym.decl, A.ConstDecl):
                return self.val(sym.decl.value, ctx)
        loc = self.loc(e, ctx)
        if isinstance(loc, (FieldLoc, ValueLoc)):
            return loc.json()
        if isinstance(loc, HeaderLoc):
            return loc.json()
        raise unsupported(e, f"'{e.name}' as a value")

    def val_Member(self, e, ctx) -> dict:
        bt = e.expr.type
        if isinstance(bt, TypeName):
            tt = bt.target
            if tt == ERROR:
                return const(self.lw.errors.index(e.name))
            if isinstance(tt, Enum):
                if tt.underlying:
                    return const(tt.values[e.name])
                return const(tt.members.index(e.name))
        ahead = self.parser_lookahead(e, ctx)
        if ahead is not None:
            return ahead
        sbt = strip_newtype(bt)
        if isinstance(sbt, Stack):
            if e.name == "lastIndex":
                loc = self.loc(e.expr, ctx)
                return expr("last_stack_index", None, loc.json())
            if e.name == "size":
                return const(sbt.size)
        loc = self.loc(e, ctx)
        if isinstance(loc, (FieldLoc, ValueLoc)):
            return loc.json()
        if isinstance(loc, HeaderLoc):
            return loc.json()
        raise unsupported(e, f"member '{e.name}' as a value")

    def parser_lookahead(self, e, ctx) -> dict | None:
        """In a parser, `lookahead<..>()` (or a field of it) used inside an expression: BMv2
        reads lookahead only as the source of a `set`, so it goes through a temporary."""
        body = ctx.body
        ahead = self.lw.parsers.lookahead_source(e) if body is not None and body.in_parser else None
        if ahead is None:
            return None
        operand, w = ahead
        tmp = self.lw.storage.temp(Bits(w), "lookahead")
        body.emit("set", [tmp.json(), operand], e.span, self.lw.doc)
        return tmp.json()

    def val_Index(self, e, ctx) -> dict:
        loc = self.loc(e, ctx)
        return loc.json()

    def val_Slice(self, e, ctx) -> dict:
        hi, lo = const_value(e.hi), const_value(e.lo)
        base = self.val(e.expr, ctx)
        w = hi - lo + 1
        if lo:
            base = expr(">>", base, const(lo))
        return expr("&", base, const((1 << w) - 1))

    def val_Unary(self, e, ctx) -> dict:
        t = strip_newtype(e.type)
        if e.op == "-":
            return self.mask(expr("-", const(0), self.val(e.expr, ctx)), t)
        if e.op == "+":
            return self.val(e.expr, ctx)
        if e.op == "~":
            return self.mask(expr("~", None, self.val(e.expr, ctx)), t)
        if e.op == "!":
            return expr("b2d", None, self.cond(e, ctx))
        return self.val_default(e, ctx)

    def val_Binary(self, e, ctx) -> dict:
        t = strip_newtype(e.type)
        op = e.op
        if op in ("&&", "||") or op in _CMP:
            return expr("b2d", None, self.cond(e, ctx))
        if op == "++":
            rw = scalar_width(e.right.type) or 0
            l, r = self.operands(e.left, e.right, ctx)
            rt = strip_newtype(e.right.type)
            if isinstance(rt, Bits) and rt.signed:
                r = expr("&", r, const((1 << rw) - 1))
            return self.mask(expr("|", expr("<<", l, const(rw)), r), t)
        if op in ("|+|", "|-|"):
            inner = expr("+" if op == "|+|" else "-", *self.operands(e.left, e.right, ctx))
            if isinstance(t, Bits):
                return expr("sat_cast" if t.signed else "usat_cast", inner, const(t.width))
            return inner
        if op in ("/", "%"):
            return self.division(e, ctx)
        if op in _ARITH:
            d = expr(_ARITH[op], *self.operands(e.left, e.right, ctx))
            if op in ("+", "-", "*", "<<"):
                return self.mask(d, t)
            return d
        return self.val_default(e, ctx)

    def division(self, e: A.Binary, ctx) -> dict:
        """BMv2 has no division: only the forms p4c's strength reduction removes compile
        (`0 / x`, `0 % x`, `x % 1`, and a power-of-two divisor). An operand that is dropped
        is still evaluated, for its side effects."""
        d, n = const_value(e.right), const_value(e.left)
        if n == 0 or (e.op == "%" and d == 1):
            self.val(e.right if n == 0 else e.left, ctx)
            return const(0)
        if isinstance(d, int) and d > 0 and d & (d - 1) == 0:
            if e.op == "/":
                return expr(">>", self.val(e.left, ctx), const(d.bit_length() - 1))
            return expr("&", self.val(e.left, ctx), const(d - 1))
        raise unsupported_by_target(e, f"'{e.op}' with a divisor known only at run time (BMv2 has no division)")

    def val_Ternary(self, e, ctx) -> dict:
        body = ctx.body
        if body is not None and not body.in_parser and (self.has_calls(e.then) or self.has_calls(e.other)):
            return self.branching_ternary(e, ctx, body)
        return expr("?", self.val(e.then, ctx), self.val(e.other, ctx), cond=self.cond(e.cond, ctx))

    def branching_ternary(self, e: A.Ternary, ctx, body) -> dict:
        """`c ? f() : g()` where a branch has calls: only the chosen branch runs (jumps into
        a temporary), so the other branch's side effects never happen."""
        choice = self.lw.storage.temp(BOOL, "mux_cond")
        self.lw.stmts.emit_assign(choice, expr("b2d", None, self.cond(e.cond, ctx)), body, e.span)
        result = self.lw.storage.temp(e.type, "mux")
        to_else = body.emit("_jump_if_zero", [choice.json(), const(0)])
        self.lw.stmts.emit_assign(result, self.val(e.then, ctx), body, e.span)
        to_end = body.emit("_jump", [const(0)])
        body.patch(to_else, len(body.prims))
        self.lw.stmts.emit_assign(result, self.val(e.other, ctx), body, e.span)
        body.patch(to_end, len(body.prims))
        return result.json()

    def val_Cast(self, e, ctx) -> dict:
        return self.cast(e, ctx)

    def val_Call(self, e, ctx) -> dict:
        ahead = self.parser_lookahead(e, ctx)
        return ahead if ahead is not None else self.call_value(e, ctx)

    def val_default(self, e, ctx) -> dict:
        raise unsupported(e, f"expression {type(e).__name__} in this context")

    def cast(self, e: A.Cast, ctx) -> dict:
        to = strip_newtype(e.type)
        fr = strip_newtype(e.expr.type)
        if isinstance(fr, Enum) and fr.underlying:
            fr = fr.underlying
        if isinstance(to, Enum) and to.underlying:
            to = to.underlying
        if fr == BOOL:
            return self.val(e.expr, ctx)
        inner = self.val(e.expr, ctx)
        if isinstance(to, Bits):
            if isinstance(fr, Bits):
                if to.signed:
                    if fr.signed and fr.width <= to.width:
                        return inner
                    return expr("two_comp_mod", inner, const(to.width))
                if not fr.signed and fr.width <= to.width:
                    return inner
                return expr("&", inner, const((1 << to.width) - 1))
            return self.mask(inner, to)
        return inner

    def call_value(self, e: A.Call, ctx) -> dict:
        tgt = e.target
        if tgt and tgt.kind == "builtin" and tgt.name == "isValid":
            return expr("b2d", None, self.cond(e, ctx))
        if tgt and tgt.kind == "function":
            return self.lw.calls.inline_function(e, ctx)
        if tgt and tgt.kind == "builtin" and tgt.name in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
            return const(const_value(e) or 0)
        hook = ctx.value_call
        if hook is not None:
            r = hook(e)
            if r is not None:
                return r
        raise unsupported(e, "this call as a value")


def _all(conds: list) -> dict:
    """The conjunction of BMv2 boolean expressions (true for none)."""
    out = None
    for c in conds:
        out = c if out is None else expr("and", out, c)
    return out if out is not None else {"type": "bool", "value": True}
