"""Lowering: actions of tables and inlined calls of actions and functions (copy-in/copy-out)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .bmv2 import const, scalar_width
from .call_args import order_args
from .context import ActionBody, CallFrame, Ctx
from .consteval import const_value
from .lower_expr import unsupported
from .storage import FieldLoc, HeaderLoc, Loc, ValueLoc, leaves
from .types import Simple, strip_newtype

if TYPE_CHECKING:
    from .lower import Lowerer


class CallLowerer:
    """Actions listed in tables, and inlined action/function calls with their parameters bound."""
    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts

    # ------------------------------------------------------------ actions
    def table_action(self, ar: A.ActionRef, ctx: Ctx) -> dict:
        """The BMv2 action for an action listed in a table (directional args bound)."""
        decl = ar.sym.decl
        is_global = ar.sym.owner is None
        actx = self.decl_ctx(ctx, decl) if not is_global else Ctx("", decl)
        dir_params = [p for p in decl.params if p.direction]
        key = (id(decl), actx.prefix, tuple(id(a.expr) for a in ar.args) if dir_params else ())
        if key in self.lw.action_cache:
            return self.lw.action_cache[key]
        # Copies of one action (bound to other arguments, or a top-level action used in
        # several controls) keep its name, as with p4c: tables refer to them by id, and the
        # control plane sees one action.
        name = self.lw.storage.name_of(decl, actx.prefix)
        body = ActionBody()
        bctx = actx.child(body=body, kind="action", decl=decl)
        if len(ar.args) != len(dir_params) and dir_params:
            raise unsupported(ar, f"action '{ar.name}' with directional parameters needs arguments in the actions list")
        params_out = []
        copy_back: list = []
        for p, a in zip(dir_params, ar.args):
            self.bind_param(p, a.expr, ctx, bctx, body, copy_back)
        for i, p in enumerate([p for p in decl.params if not p.direction]):
            w = scalar_width(p.resolved_type)
            if w is None:
                raise unsupported(p, f"action parameter '{p.name}' of type {p.resolved_type}")
            body.runtime_data.append({"name": p.name, "bitwidth": w})
            bctx.env[p] = ValueLoc({"type": "runtime_data", "value": i}, p.resolved_type)
            params_out.append((p.name, w, p))
        self.lw.stmts.body_stmt(decl.body, bctx, body)
        self.lw.stmts.finish_body(body)
        self.do_copy_back(copy_back, ctx, body)
        act = {"name": name, "id": len(self.lw.doc.actions), "runtime_data": body.runtime_data,
               "primitives": body.prims}
        self.lw.doc.actions.append(act)
        self.lw.action_cache[key] = act
        self.lw.model.add_action(name, decl, params_out)
        return act

    def decl_ctx(self, ctx: Ctx, decl) -> Ctx:
        """The context in which a local declaration (action) of a control was declared."""
        c = ctx
        while c is not None:
            if c.kind in ("control", "parser") and c.body is None:
                return c
            c = c.parent
        return ctx

    # ------------------------------------------------------------ calls of actions and functions
    def bind_param(self, p: A.Param, arg: A.Expr, caller: Ctx, callee: Ctx, body: ActionBody, copy_back: list) -> None:
        t = p.resolved_type
        w = scalar_width(t)
        if w is None or isinstance(arg, A.DontCare):
            if isinstance(arg, A.DontCare):
                callee.env[p] = self.lw.storage.temp(t, "tmp") if w is not None else self.lw.storage.alloc(t, self.lw.doc.fresh("tmp"), True)
                return
            self.bind_composite(p, arg, caller, callee, body, copy_back)
            return
        if p.direction in ("", "in"):
            v = const_value(arg)
            if isinstance(v, (int, bool)):
                callee.env[p] = ValueLoc(const(int(v)), t)
                return
            tmp = self.lw.storage.temp(t, p.name)
            self.lw.stmts.emit_assign(tmp, self.lw.exprs.val(arg, caller), body, arg.span)
            callee.env[p] = tmp
            return
        target = self.lw.exprs.loc(arg, caller) if not isinstance(arg, A.Slice) else None
        tmp = self.lw.storage.temp(t, p.name)
        if p.direction == "inout":
            self.lw.stmts.emit_assign(tmp, self.lw.exprs.val(arg, caller), body, arg.span)
        callee.env[p] = tmp
        copy_back.append((arg, tmp, target))

    def bind_composite(self, p: A.Param, arg: A.Expr, caller: Ctx, callee: Ctx, body: ActionBody, copy_back: list) -> None:
        """Copy-in/copy-out of a struct, header, union or stack parameter: the callee works on
        a copy of its own (the spec's semantics, so writes through one parameter are not seen
        through another that names the same storage), filled from the argument for `in` and
        `inout`, invalid (headers) for `out`, and copied back for `out` and `inout`."""
        tmp = self.lw.storage.alloc(p.resolved_type, self.lw.doc.fresh(f"{p.name}_copy"), True)
        if p.direction in ("", "in", "inout"):
            self.lw.stmts.assign_to(tmp, arg, caller, body, arg.span)
        else:
            for leaf in leaves(tmp):
                if isinstance(leaf, HeaderLoc):
                    self.lw.stmts.prim(body, "remove_header", [leaf.json()], arg.span)
        callee.env[p] = tmp
        if p.direction in ("out", "inout"):
            copy_back.append((arg, tmp, self.lw.exprs.loc(arg, caller)))

    def bind_params(self, params: list, args: list, caller: Ctx, callee: Ctx, body: ActionBody) -> list:
        """Copy-in of every argument of an inlined call (in the order of `params`); returns what
        to copy back after the body."""
        copy_back: list = []
        for p, a in zip(params, order_args(params, args)):
            self.bind_param(p, a, caller, callee, body, copy_back)
        return copy_back

    def run_inlined(self, stmt: A.Stmt, callee: Ctx, body: ActionBody, frame: CallFrame) -> None:
        """The inlined body, its `return`s jumping to its end, then the copy-back."""
        last = stmt.stmts[-1] if isinstance(stmt, A.Block) and stmt.stmts else stmt
        frame.tail = last if isinstance(last, A.Return) else None
        body.return_stack.append(frame)
        self.lw.stmts.body_stmt(stmt, callee, body)
        body.return_stack.pop()
        for j in frame.jumps:
            body.patch(j, len(body.prims))
        self.do_copy_back(frame.copy_back, frame.caller, body)

    def do_copy_back(self, copy_back: list, caller: Ctx, body: ActionBody) -> None:
        for arg, tmp, target in copy_back:
            if not isinstance(tmp, (FieldLoc, ValueLoc)):
                self.lw.stmts.copy_loc(target, tmp, body, arg.span, arg)
            elif target is None:
                self.lw.stmts.write_slice(arg, tmp.json(), caller, body, arg.span)
            else:
                self.lw.stmts.emit_assign(target, tmp.json(), body, arg.span)

    def inline_action(self, call: A.Call, decl: A.ActionDecl, ctx: Ctx, body: ActionBody) -> None:
        actx_parent = ctx if self.is_local_action(decl) else Ctx("", decl)
        # an action called from an apply block is still one of the program's actions for the control
        # plane, with no parameters (the call binds them); one called from another action is inlined
        # away. Both as with p4c.
        if not isinstance(ctx.decl, A.ActionDecl):
            self.lw.model.add_action(self.lw.storage.name_of(decl, actx_parent.prefix), decl, [])
        callee = actx_parent.child(body=body, kind="action", decl=decl)
        copy_back = self.bind_params(decl.params, call.args, ctx, callee, body)
        self.run_inlined(decl.body, callee, body, CallFrame(ctx, copy_back))

    def is_local_action(self, decl) -> bool:
        return not any(decl is d for d in self.lw.ck.program.decls)

    def inline_function(self, call: A.Call, ctx: Ctx, result: Loc | None = None) -> dict:
        """Inline a function call into the current action body: parameters bound with copy-
        in/copy-out, `return` jumps to the end, the result in a temporary copied to `result`
        after the copy-back."""
        body = ctx.body
        if body is None:
            raise unsupported(call, "function call in a condition or key (assign it to a variable first)")
        tgt = call.target
        proto = tgt.proto
        decl = tgt.decl
        if not isinstance(decl, A.FunctionDecl):
            raise unsupported(call, f"call of '{proto.name}'")
        fctx = Ctx("", decl, body=body, pipeline=ctx.pipeline, kind="action")
        copy_back = self.bind_params(proto.params, call.args, ctx, fctx, body)
        ret = None
        rt = decl.ret_type
        # the result goes to a temporary: the caller's destination is written only after the
        # out/inout arguments are copied back (`h = f(h.x)` ends with f's result in h)
        if rt is not None and scalar_width(rt) is not None:
            ret = self.lw.storage.temp(rt, f"{decl.name}_ret")
        elif rt is not None and strip_newtype(rt) != Simple("void"):
            ret = self.lw.storage.alloc(rt, self.lw.doc.fresh(f"{decl.name}_ret"), True)
        self.run_inlined(decl.body, fctx, body, CallFrame(ctx, copy_back, ret))
        if isinstance(ret, FieldLoc):
            if result is not None:
                self.lw.stmts.emit_assign(result, ret.json(), body, call.span)
            return ret.json()
        if ret is not None and result is not None:
            self.lw.stmts.copy_loc(result, ret, body, call.span, call)
        return const(0)
