"""Lowering: statements inside actions, functions and parser states into BMv2 primitives."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .bmv2 import const, expr, scalar_width
from .context import ActionBody, Ctx
from .check_types import ActionRun
from .consteval import const_value
from .diag import Span
from .lower_expr import Unsupported, unsupported
from .storage import FieldLoc, HeaderLoc, Loc, StackLoc, StructLoc, UnionLoc, ValueLoc, leaves
from .types import Varbit, strip_newtype
from .visitor import Visitor

if TYPE_CHECKING:
    from .lower import Lowerer


class StmtLowerer(Visitor):
    """Statements to primitives (`prim_<Stmt>`), assignments and copies of composite values."""
    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts

    def finish_body(self, body: ActionBody) -> None:
        end = len(body.prims)
        for j in body.end_jumps:
            body.patch(j, end)
        body.end_jumps = []

    def hidden_action(self, stmts: list, ctx: Ctx, span: Span) -> dict:
        body = ActionBody()
        bctx = ctx.child(body=body, kind="action")
        for st in stmts:
            self.body_stmt(st, bctx, body)
        self.finish_body(body)
        name = self.lw.doc.fresh("act")
        act = {"name": name, "id": len(self.lw.doc.actions), "runtime_data": [], "primitives": body.prims}
        self.lw.doc.actions.append(act)
        return act

    # ------------------------------------------------------------ statements into primitives
    def body_stmt(self, st: A.Stmt, ctx: Ctx, body: ActionBody) -> None:
        try:
            self._body_stmt(st, ctx, body)
        except Unsupported as u:
            if u.span is None:
                u.span = st.span
            raise

    def _body_stmt(self, st, ctx, body):
        return self.dispatch("prim", st, ctx, body)

    def prim_Block(self, st, ctx, body):
        inner = ctx.child()
        for s in st.stmts:
            self.body_stmt(s, inner, body)

    def prim_Assign(self, st, ctx, body):
        self.assign(st.lhs, st.rhs, ctx, body, st.span)

    def prim_CallStmt(self, st, ctx, body):
        self.lw.externs.call_stmt(st.call, ctx, body)

    def prim_VarDecl(self, st, ctx, body):
        loc = self.lw.storage.lookup_decl(ctx, st) or self.lw.storage.alloc_local(st, ctx)
        if st.init is not None:
            self.assign_to(loc, st.init, ctx, body, st.span)

    def prim_ConstDecl(self, st, ctx, body):
        pass

    def prim_If(self, st, ctx, body):
        c = const_value(st.cond)
        if isinstance(c, bool):
            branch = st.then if c else st.other
            if branch is not None:
                self.body_stmt(branch, ctx.child(), body)
            return
        if body.in_parser:
            where = "a function called from a parser state" if body.return_stack else "a parser state"
            raise unsupported(st, f"if statement in {where}")
        cond = self.lw.exprs.cond(st.cond, ctx)
        j = body.emit("_jump_if_zero", [expr("b2d", None, cond), const(0)], st.span, self.lw.doc)
        self.body_stmt(st.then, ctx.child(), body)
        if st.other is not None:
            j2 = body.emit("_jump", [const(0)])
            body.patch(j, len(body.prims))
            self.body_stmt(st.other, ctx.child(), body)
            body.patch(j2, len(body.prims))
        else:
            body.patch(j, len(body.prims))

    def prim_Exit(self, st, ctx, body):
        # out/inout arguments of every call being exited are still copied back (spec: exit)
        for frame in reversed(body.return_stack):
            if frame.copy_back:
                self.lw.calls.do_copy_back(frame.copy_back, frame.caller, body)
        body.emit("exit", [], st.span, self.lw.doc)
        body.end_jumps.append(body.emit("_jump", [const(0)]))

    def prim_Return(self, st, ctx, body):
        if not body.return_stack:
            body.end_jumps.append(body.emit("_jump", [const(0)]))
            return
        frame = body.return_stack[-1]
        if st.value is not None:
            self.assign_to(frame.ret, st.value, ctx, body, st.span)
        if st is frame.tail:
            return  # already at the end of the callee's code
        if body.in_parser:
            # a parser state's ops run straight through: BMv2 parsers have no jumps
            raise unsupported(st, "'return' before the end of a function called from a parser state")
        frame.jumps.append(body.emit("_jump", [const(0)]))

    def prim_Switch(self, st, ctx, body):
        self.switch_in_action(st, ctx, body)

    def prim_default(self, st, ctx, body):
        raise unsupported(st, f"statement {type(st).__name__} here")

    def switch_in_action(self, st: A.Switch, ctx: Ctx, body: ActionBody) -> None:
        if isinstance(st.expr.type, ActionRun):
            raise unsupported(st, "switch on action_run inside an action")
        v = self.lw.exprs.val(st.expr, ctx)
        ends = []
        pending_labels: list = []
        for c in st.cases:
            pending_labels.extend(c.labels)
            if c.body is None:
                continue
            if any(isinstance(l, A.DefaultExpr) for l in pending_labels):
                self.body_stmt(c.body, ctx.child(), body)
                pending_labels = []
                break
            cond = None
            for l in pending_labels:
                e = expr("==", v, self.lw.exprs.val(l, ctx))
                cond = e if cond is None else expr("or", cond, e)
            j = body.emit("_jump_if_zero", [expr("b2d", None, cond), const(0)])
            self.body_stmt(c.body, ctx.child(), body)
            ends.append(body.emit("_jump", [const(0)]))
            body.patch(j, len(body.prims))
            pending_labels = []
        for j in ends:
            body.patch(j, len(body.prims))

    def assign(self, lhs: A.Expr, rhs: A.Expr, ctx: Ctx, body: ActionBody, span) -> None:
        if isinstance(lhs, A.Slice):
            self.write_slice(lhs, self.lw.exprs.val(rhs, ctx), ctx, body, span)
            return
        loc = self.lw.exprs.loc(lhs, ctx)
        self.assign_to(loc, rhs, ctx, body, span)

    def emit_assign(self, loc: Loc, value: dict, body: ActionBody, span) -> None:
        if body.in_parser:
            body.emit("set", [loc.json(), value], span, self.lw.doc)
        else:
            body.emit("assign", [loc.json(), value], span, self.lw.doc)

    def assign_to(self, loc: Loc, rhs: A.Expr, ctx: Ctx, body: ActionBody, span) -> None:
        """Assign an expression to a location: fields directly (calls write their result in
        place), composites field by field or with BMv2's header/union/stack copies, list and
        struct initialisers, lookahead into headers and structs."""
        if isinstance(loc, FieldLoc):
            if isinstance(rhs, A.Call) and rhs.target_kind() in ("extern_method", "extern_function"):
                self.lw.externs.call_stmt(rhs, ctx, body, result=loc)
                return
            if isinstance(loc.type, Varbit) or isinstance(strip_newtype(loc.type), Varbit):
                body.emit("assign_VL", [loc.json(), self.lw.exprs.val(rhs, ctx)], span, self.lw.doc)
                return
            self.emit_assign(loc, self.lw.exprs.val(rhs, ctx), body, span)
            return
        if isinstance(loc, ValueLoc):
            raise unsupported(rhs, "assignment to a read-only value")
        if isinstance(rhs, A.Call) and rhs.target_kind() in ("extern_method", "extern_function", "function"):
            if rhs.target_kind() == "function":
                self.lw.calls.inline_function(rhs, ctx, result=loc)
                return
            self.lw.externs.call_stmt(rhs, ctx, body, result=loc)
            return
        if isinstance(rhs, (A.ListExpr, A.StructInit)) or isinstance(rhs, A.Cast) and isinstance(rhs.expr, (A.ListExpr, A.StructInit)):
            if isinstance(rhs, A.Cast):
                rhs = rhs.expr
            t = loc.type if isinstance(loc, (StructLoc, HeaderLoc)) else strip_newtype(rhs.type)
            if isinstance(loc, HeaderLoc):
                self.prim(body, "add_header", [loc.json()], span)
                items = self.aggregate_items(rhs, t)
                for (f, _), item in zip(t.fields, items):
                    self.assign_to(loc.field(f), item, ctx, body, span)
                return
            if isinstance(loc, StructLoc):
                items = self.aggregate_items(rhs, t)
                for (f, _), item in zip(t.fields, items):
                    self.assign_to(loc.fields[f], item, ctx, body, span)
                return
            if isinstance(loc, StackLoc) and isinstance(rhs, A.ListExpr):
                for el, item in zip(loc.elems, rhs.items):
                    self.assign_to(el, item, ctx, body, span)
                return
            raise unsupported(rhs, "this initializer")
        if isinstance(rhs, A.Ternary):
            self.assign_ternary(loc, rhs, ctx, body, span)
            return
        if isinstance(rhs, A.Call) and rhs.target_kind() == "builtin" and rhs.target.name == "lookahead" \
                and isinstance(loc, (HeaderLoc, StructLoc)):
            self.assign_lookahead(loc, body, span)
            return
        self.copy_loc(loc, self.lw.exprs.loc(rhs, ctx), body, span, rhs)

    def assign_ternary(self, loc: Loc, rhs: A.Ternary, ctx: Ctx, body: ActionBody, span) -> None:
        # `x = c ? a : b` for a header, struct or stack x: only the chosen side is evaluated
        # and copied, as an if/else would (BMv2's `?:` yields only scalars)
        if body.in_parser:
            raise unsupported(rhs, "'?:' on headers or structs in a parser state")
        cond = self.lw.exprs.cond(rhs.cond, ctx)
        j = body.emit("_jump_if_zero", [expr("b2d", None, cond), const(0)], span, self.lw.doc)
        self.assign_to(loc, rhs.then, ctx, body, span)
        j2 = body.emit("_jump", [const(0)])
        body.patch(j, len(body.prims))
        self.assign_to(loc, rhs.other, ctx, body, span)
        body.patch(j2, len(body.prims))

    def assign_lookahead(self, loc: Loc, body: ActionBody, span) -> None:
        """`x = packet.lookahead<T>()` for a header or struct x: each field from its bit
        offset in the packet ahead (a header becomes valid)."""
        off = 0
        for leaf in leaves(loc):
            if isinstance(leaf, HeaderLoc):
                self.prim(body, "add_header", [leaf.json()], span)
                fields = leaf.leaf_fields()
            elif isinstance(leaf, FieldLoc):
                fields = [leaf]
            else:
                raise Unsupported(span, "lookahead into this value")
            for f in fields:
                w = scalar_width(f.type) or 0
                self.emit_assign(f, {"type": "lookahead", "value": [off, w]}, body, span)
                off += w

    def copy_loc(self, loc: Loc, src: Loc, body: ActionBody, span, node) -> None:
        """Copy one stored composite value (header, union, stack, struct) onto another."""
        if isinstance(loc, HeaderLoc) and isinstance(src, HeaderLoc):
            self.prim(body, "assign_header", [loc.json(), src.json()], span)
        elif isinstance(loc, UnionLoc) and isinstance(src, UnionLoc):
            self.prim(body, "assign_union", [loc.json(), src.json()], span)
        elif isinstance(loc, StackLoc) and isinstance(src, StackLoc):
            self.prim(body, "assign_union_stack" if loc.is_union_stack else "assign_header_stack", [loc.json(), src.json()], span)
        elif isinstance(loc, StructLoc) and isinstance(src, StructLoc):
            self.copy_struct(loc, src, body, span)
        else:
            raise unsupported(node, "this assignment")

    def copy_struct(self, dst: StructLoc, src: StructLoc, body, span) -> None:
        for f, d in dst.fields.items():
            s = src.fields[f]
            if isinstance(d, FieldLoc):
                self.emit_assign(d, s.json(), body, span)
            elif isinstance(d, HeaderLoc):
                self.prim(body, "assign_header", [d.json(), s.json()], span)
            elif isinstance(d, UnionLoc):
                self.prim(body, "assign_union", [d.json(), s.json()], span)
            elif isinstance(d, StackLoc):
                self.prim(body, "assign_header_stack", [d.json(), s.json()], span)
            elif isinstance(d, StructLoc):
                self.copy_struct(d, s, body, span)

    def aggregate_items(self, rhs, t) -> list:
        if isinstance(rhs, A.ListExpr):
            return rhs.items
        by = dict(zip(rhs.names, rhs.values))
        return [by[f] for f, _ in t.fields]

    def prim(self, body: ActionBody, op: str, params: list, span) -> None:
        if body.in_parser:
            body.emit("primitive", [{"op": op, "parameters": params}], span, self.lw.doc)
        else:
            body.emit(op, params, span, self.lw.doc)

    def write_slice(self, lhs: A.Slice, value: dict, ctx: Ctx, body: ActionBody, span) -> None:
        """`x[hi:lo] = value`, also through nested slices (`x[7:4][2:1]` is `x[6:5]`): the
        other bits of the innermost variable are kept."""
        base, hi, lo = lhs.expr, const_value(lhs.hi), const_value(lhs.lo)
        while isinstance(base, A.Slice):
            offset = const_value(base.lo)
            hi, lo, base = hi + offset, lo + offset, base.expr
        loc = self.lw.exprs.loc(base, ctx)
        w = scalar_width(base.type)
        m = ((1 << (hi - lo + 1)) - 1) << lo
        keep = expr("&", loc.json(), const(((1 << w) - 1) ^ m))
        new = expr("&", expr("<<", value, const(lo)), const(m))
        self.emit_assign(loc, expr("|", keep, new), body, span)
