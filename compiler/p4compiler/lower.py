"""Lowering: the checked AST of a v1model program -> BMv2 JSON document + control-plane model.

The v1model package `V1Switch(p, vr, ig, eg, ck, dep)` is elaborated: its six blocks
share one set of storage (headers struct, user metadata, standard_metadata).
Controls become pipelines of tables and conditionals; straight-line code in apply
blocks becomes hidden tables with a constant default action, as p4c does.
"""
from __future__ import annotations

from . import ast as A
from .bmv2 import Document, const, expr, scalar_width
from .context import ActionBody, CallFrame, Ctx
from .check import Checker, ActionRun, const_value
from .diag import Reporter, Span
from .lower_expr import ExprLowering, Unsupported, unsupported
from .storage import (FieldLoc, HeaderLoc, Loc, ObjLoc, StackLoc, StructLoc, UnionLoc, ValueLoc, leaves)
from .types import Bits, Composite, Simple, Stack, Tuple, Type, Varbit, strip_newtype
from .lower_control import ControlLowering
from .lower_parser import ParserLowering
from .lower_externs import ExternLowering
from .model import Model
from .visitor import Visitor


class Lowerer(ExprLowering, ControlLowering, ParserLowering, ExternLowering, Visitor):
    """Named passes dispatch on node classes: prim_<Stmt> (statements -> primitives),
    flow_<Stmt> (apply-block control flow -> tables/conditionals)."""
    def __init__(self, checker: Checker, rep: Reporter, program_name: str, sources=None):
        self.ck = checker
        self.rep = rep
        self.doc = Document(program_name, sources)
        self.model = Model()
        self.errors = list(checker.errors)
        self.action_cache: dict = {}
        self.applied_tables: dict = {}  # name -> (edges of its first apply, entry node)
        self.field_list_ids: dict = {}
        self.std_meta: StructLoc | None = None
        self.global_ctx = Ctx("", None)

    # ------------------------------------------------------------ plumbing
    def lookup(self, ctx: Ctx, sym) -> Loc | None:
        key = sym.decl if sym.decl is not None else sym
        c = ctx
        while c is not None:
            v = c.env.get(key)
            if v is not None:
                return v
            c = c.parent
        if sym.kind == "const":
            v = sym.value
            if isinstance(v, (int, bool)):
                return ValueLoc(const(int(v)), sym.type)
        if sym.kind == "instance" and isinstance(sym.decl, A.Instantiation) and sym.decl is not self.ck.main \
                and any(sym.decl is d for d in self.ck.program.decls):
            # top-level extern instances are created on first use, with their plain name
            g = self.global_ctx
            if sym.decl not in g.env:
                self.instantiate(sym.decl, g)
            return g.env[sym.decl]
        return None

    def lookup_decl(self, ctx: Ctx, decl) -> Loc | None:
        c = ctx
        while c is not None:
            v = c.env.get(decl)
            if v is not None:
                return v
            c = c.parent
        return None

    def report(self, u: Unsupported) -> None:
        self.rep.error(u.span, u.message)

    def name_of(self, decl, prefix: str) -> str:
        """Fully qualified control-plane name, honouring @name (a leading '.' is absolute)."""
        local = decl.name
        for a in getattr(decl, "annotations", []):
            if a.name == "name" and a.args and isinstance(a.args[0], str):
                local = a.args[0]
                if local.startswith("."):
                    return local[1:]
        return f"{prefix}.{local}" if prefix else local

    # ------------------------------------------------------------ storage
    def alloc(self, t: Type, name: str, metadata: bool, scalar_name: str | None = None) -> Loc:
        """Storage for a value of type t: a BMv2 header instance for a header, stacks and unions
        of them, a struct of locations for structs and tuples, a field of `scalars` for anything
        else."""
        t0 = t
        t = strip_newtype(t)
        if isinstance(t, Composite) and t.kind == "header":
            tn = self.doc.header_type(t)
            if name in self.doc.header_by_name:
                name = self.doc.fresh(name)
            # A header keeps its validity bit wherever it is declared: never BMv2 metadata.
            self.doc.add_header(name, tn, False)
            return HeaderLoc(name, t)
        if isinstance(t, Composite) and t.kind == "header_union":
            if t.tname not in [u["name"] for u in self.doc.header_union_types]:
                self.doc.header_union_types.append({
                    "name": t.tname, "id": len(self.doc.header_union_types),
                    "headers": [[f, self.doc.header_type(ft)] for f, ft in t.fields]})
            u = UnionLoc(name, t)
            ids = []
            for f, ft in t.fields:
                h = self.alloc(ft, f"{name}.{f}", metadata)
                u.members[f] = h
                h.union = u
                ids.append(self.doc.header_by_name[h.name]["id"])
            self.doc.header_unions.append({"name": name, "id": len(self.doc.header_unions),
                                           "union_type": t.tname, "header_ids": ids})
            return u
        if isinstance(t, Stack):
            s = StackLoc(name, t)
            for i in range(t.size):
                el = self.alloc(t.elem, f"{name}[{i}]", metadata)
                el.stack, el.index = s, i
                s.elems.append(el)
            if t.elem.kind == "header_union":
                self.doc.header_union_stacks.append({
                    "name": name, "id": len(self.doc.header_union_stacks), "union_type": t.elem.tname,
                    "header_union_ids": [self.union_id(e.name) for e in s.elems]})
            else:
                self.doc.header_stacks.append({
                    "name": name, "id": len(self.doc.header_stacks), "header_type": t.elem.tname,
                    "size": t.size, "header_ids": [self.doc.header_by_name[e.name]["id"] for e in s.elems]})
            return s
        if isinstance(t, Tuple):
            t = Composite("struct", t.name(), [(str(i), e) for i, e in enumerate(t.elems)])
        if isinstance(t, Composite):
            sl = StructLoc(t)
            for f, ft in t.fields:
                sub = f"{name}.{f}" if name else f
                sl.fields[f] = self.alloc(ft, sub, metadata, f"{scalar_name}.{f}" if scalar_name else sub)
            return sl
        w = scalar_width(t)
        if w is None:
            if isinstance(t, Varbit):
                raise Unsupported(None, f"varbit variable '{name}' outside a header (BMv2 keeps varbit fields only in headers)")
            raise Unsupported(None, f"variable '{name}' of type {t0}")
        fname = self.doc.add_scalar(scalar_name or name, w, isinstance(t, Bits) and t.signed)
        return FieldLoc("scalars", fname, t0)

    def synth_var(self, ctx: Ctx, loc: Loc, t: Type, span) -> A.Name:
        """A Name expression bound to a compiler temporary (for synthesized statements)."""
        from .scope import Symbol
        vd = A.VarDecl(span, "__tmp", [], None)
        n = A.Name(span, "__tmp")
        n.sym = Symbol("var", "__tmp", vd, t)
        n.type = t
        ctx.env[vd] = loc
        return n

    def union_id(self, name: str) -> int:
        for u in self.doc.header_unions:
            if u["name"] == name:
                return u["id"]
        return -1

    def temp(self, t: Type, hint: str = "tmp") -> FieldLoc:
        w = scalar_width(t) or 32
        st = strip_newtype(t)
        name = self.doc.add_scalar(hint, w, isinstance(st, Bits) and st.signed)
        return FieldLoc("scalars", name, t)

    # ------------------------------------------------------------ program
    def run(self) -> None:
        """Lower the program: elaborate `V1Switch(p, vr, ig, eg, ck, dep)`, allocate the shared
        headers/metadata/standard_metadata, then the parser, the checksum controls, both
        pipelines and the deparser."""
        main = self.ck.main
        if main is None:
            return
        mt = main.resolved_type
        if mt is None or getattr(mt, "tname", "") != "V1Switch":
            self.rep.error(main.span, f"unsupported: package {getattr(mt, 'tname', '?')} (only v1model's V1Switch)")
            return
        if len(main.args) != 6:
            return
        blocks = []
        pkg = mt.decl
        ordered = self.ck.order_args(pkg.params, main.args) if isinstance(pkg, A.PackageTypeDecl) else [a.expr for a in main.args]
        if any(e is None for e in ordered):
            self.rep.error(main.span, "V1Switch needs all six arguments")
            return
        for e in ordered:
            if not (isinstance(e, A.Call) and e.target_kind() == "ctor"):
                self.rep.error(e.span, "unsupported: V1Switch argument that is not a parser/control instantiation")
                return
            if e.args:
                self.rep.error(e.span, "unsupported: constructor arguments for top-level parsers/controls")
                return
            blocks.append(e.target.decl)
        p, vr, ig, eg, ck, dep = blocks
        kinds = [A.ParserDecl, A.ControlDecl, A.ControlDecl, A.ControlDecl, A.ControlDecl, A.ControlDecl]
        for b, k, a in zip(blocks, kinds, ordered):
            if not isinstance(b, k):
                self.rep.error(a.span, f"V1Switch argument must be a {'parser' if k is A.ParserDecl else 'control'}")
                return
        if len(p.params) != 4:
            self.rep.error(p.span, f"parser {p.name} must have 4 parameters for V1Switch, has {len(p.params)}")
            return
        for c, n in ((vr, 2), (ig, 3), (eg, 3), (ck, 2), (dep, 2)):
            if len(c.params) != n:
                self.rep.error(c.span, f"control {c.name} must have {n} parameters for V1Switch, has {len(c.params)}")
                return
        H = p.params[1].resolved_type
        M = p.params[2].resolved_type
        if not isinstance(H, Composite) or not H.is_struct:
            self.rep.error(p.params[1].span, f"the headers type of V1Switch must be a struct, not {H}")
            return
        if not isinstance(M, Composite) or not M.is_struct:
            self.rep.error(p.params[2].span, f"the metadata type of V1Switch must be a struct, not {M}")
            return
        self.doc.errors = [[n, i] for i, n in enumerate(self.errors)]
        for en in self.ck.enums:
            if en.underlying is None and en.tname not in ("CounterType", "MeterType", "HashAlgorithm", "CloneType"):
                self.doc.enums.append({"name": en.tname, "entries": [[m, i] for i, m in enumerate(en.members)]})
        try:
            sm = self.alloc_standard_metadata(p.params[3].resolved_type)
            hdr = self.alloc(H, "", False)
            meta = self.alloc(M, "userMetadata", True, "userMetadata")
        except Unsupported as u:
            self.rep.error(u.span or main.span, u.message)
            return
        self.std_meta = sm
        self.collect_field_lists(M, meta)
        self.model.H, self.model.M = H, M
        packet = ObjLoc("packet", "packet", None)
        steps = [
            (lambda: self.lower_parser_block(p, [packet, hdr, meta, sm])),
            (lambda: self.lower_checksum_block(vr, [hdr, meta], verify=True)),
            (lambda: self.lower_pipeline("ingress", ig, [hdr, meta, sm])),
            (lambda: self.lower_pipeline("egress", eg, [hdr, meta, sm])),
            (lambda: self.lower_checksum_block(ck, [hdr, meta], verify=False)),
            (lambda: self.lower_deparser(dep, [packet, hdr])),
        ]
        for step in steps:
            try:
                step()
            except Unsupported as u:
                self.report(u)
        # direct resources never attached to a table have no meaning for BMv2
        self.doc.counter_arrays[:] = [c for c in self.doc.counter_arrays if not (c["is_direct"] and c.get("binding") is None)]
        self.doc.meter_arrays[:] = [m for m in self.doc.meter_arrays if not (m["is_direct"] and m.get("binding") is None)]
        for i, c in enumerate(self.doc.counter_arrays):
            c["id"] = i
        for i, m in enumerate(self.doc.meter_arrays):
            m["id"] = i

    def alloc_standard_metadata(self, t: Type) -> StructLoc:
        if not isinstance(t, Composite):
            raise Unsupported(None, "standard_metadata parameter type")
        tn = self.doc.header_type(t, "standard_metadata")
        self.doc.header_type_names[tn]["_metadata"] = True
        self.doc.add_header("standard_metadata", tn, True)
        sl = StructLoc(t)
        for f, ft in t.fields:
            sl.fields[f] = FieldLoc("standard_metadata", f, ft)
            for a in t.field_annotations.get(f, []):
                if a.name == "alias" and a.args:
                    self.doc.field_aliases.append([a.args[0], ["standard_metadata", f]])
        return sl

    def collect_field_lists(self, M: Composite, meta: StructLoc) -> None:
        lists: dict[int, list] = {}

        def walk(t: Composite, loc: StructLoc):
            for f, ft in t.fields:
                sub = loc.fields.get(f)
                for a in t.field_annotations.get(f, []):
                    if a.name == "field_list":
                        for idx in a.args:
                            if isinstance(idx, int):
                                for leaf in leaves(sub):
                                    if isinstance(leaf, FieldLoc):
                                        lists.setdefault(idx, []).append(leaf.json())
                if isinstance(ft, Composite) and ft.is_struct and isinstance(sub, StructLoc):
                    walk(ft, sub)
        walk(M, meta)
        for idx in sorted(lists):
            self.add_field_list(idx, lists[idx], f"field_list{idx}")

    def add_field_list(self, key, elements: list, name: str) -> int:
        if key in self.field_list_ids:
            return self.field_list_ids[key]
        fid = len(self.doc.field_lists) + 1
        self.doc.field_lists.append({"id": fid, "name": name, "elements": elements})
        self.field_list_ids[key] = fid
        return fid

    # ------------------------------------------------------------ actions
    def table_action(self, ar: A.ActionRef, ctx: Ctx) -> dict:
        """The BMv2 action for an action listed in a table (directional args bound)."""
        decl = ar.sym.decl
        is_global = ar.sym.owner is None
        actx = self.decl_ctx(ctx, decl) if not is_global else Ctx("", decl)
        dir_params = [p for p in decl.params if p.direction]
        key = (id(decl), actx.prefix, tuple(id(a.expr) for a in ar.args) if dir_params else ())
        if key in self.action_cache:
            return self.action_cache[key]
        # Copies of one action (bound to other arguments, or a top-level action used in
        # several controls) keep its name, as with p4c: tables refer to them by id, and the
        # control plane sees one action.
        name = self.name_of(decl, actx.prefix)
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
        self.body_stmt(decl.body, bctx, body)
        self.finish_body(body)
        self.do_copy_back(copy_back, ctx, body)
        act = {"name": name, "id": len(self.doc.actions), "runtime_data": body.runtime_data,
               "primitives": body.prims}
        self.doc.actions.append(act)
        self.action_cache[key] = act
        self.model.add_action(name, decl, params_out)
        return act

    def decl_ctx(self, ctx: Ctx, decl) -> Ctx:
        """The context in which a local declaration (action) of a control was declared."""
        c = ctx
        while c is not None:
            if c.kind in ("control", "parser") and c.body is None:
                return c
            c = c.parent
        return ctx

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
        name = self.doc.fresh("act")
        act = {"name": name, "id": len(self.doc.actions), "runtime_data": [], "primitives": body.prims}
        self.doc.actions.append(act)
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
        self.call_stmt(st.call, ctx, body)

    def prim_VarDecl(self, st, ctx, body):
        loc = self.lookup_decl(ctx, st) or self.alloc_local(st, ctx)
        if st.init is not None:
            self.assign_to(loc, st.init, ctx, body, st.span)

    def prim_ConstDecl(self, st, ctx, body):
        pass

    prim_Empty = prim_ConstDecl

    def prim_If(self, st, ctx, body):
        c = const_value(st.cond)
        if isinstance(c, bool):
            branch = st.then if c else st.other
            if branch is not None:
                self.body_stmt(branch, ctx.child(), body)
            return
        if body.in_parser:
            raise unsupported(st, "if statement in a parser state")
        cond = self.cond(st.cond, ctx)
        j = body.emit("_jump_if_zero", [expr("b2d", None, cond), const(0)], st.span, self.doc)
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
                self.do_copy_back(frame.copy_back, frame.caller, body)
        body.emit("exit", [], st.span, self.doc)
        body.end_jumps.append(body.emit("_jump", [const(0)]))

    def prim_Return(self, st, ctx, body):
        if not body.return_stack:
            body.end_jumps.append(body.emit("_jump", [const(0)]))
            return
        frame = body.return_stack[-1]
        if st.value is not None:
            self.assign_to(frame.ret, st.value, ctx, body, st.span)
        frame.jumps.append(body.emit("_jump", [const(0)]))

    def prim_Switch(self, st, ctx, body):
        self.switch_in_action(st, ctx, body)

    def prim_default(self, st, ctx, body):
        raise unsupported(st, f"statement {type(st).__name__} here")


    def switch_in_action(self, st: A.Switch, ctx: Ctx, body: ActionBody) -> None:
        if isinstance(st.expr.type, ActionRun):
            raise unsupported(st, "switch on action_run inside an action")
        v = self.val(st.expr, ctx)
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
                e = expr("==", v, self.val(l, ctx))
                cond = e if cond is None else expr("or", cond, e)
            j = body.emit("_jump_if_zero", [expr("b2d", None, cond), const(0)])
            self.body_stmt(c.body, ctx.child(), body)
            ends.append(body.emit("_jump", [const(0)]))
            body.patch(j, len(body.prims))
            pending_labels = []
        for j in ends:
            body.patch(j, len(body.prims))

    def alloc_local(self, d: A.VarDecl, ctx: Ctx) -> Loc:
        t = d.type_ref.resolved
        base = f"{ctx.prefix}.{d.name}" if ctx.prefix else d.name
        st = strip_newtype(t)
        if isinstance(st, (Composite, Stack, Tuple)):
            loc = self.alloc(t, self.doc.fresh(base), True if not (isinstance(st, Composite) and st.is_header) else False, base)
        elif isinstance(st, Varbit):
            # BMv2 keeps varbit values only in headers: a metadata header of its own, as p4c does
            tn = self.doc.header_type(Composite("header", f"$varbit{st.width}", [("field", st)]))
            name = self.doc.fresh(base)
            self.doc.add_header(name, tn, True)
            loc = FieldLoc(name, "field", t)
        else:
            loc = self.temp(t, base)
        ctx.env[d] = loc
        return loc

    def assign(self, lhs: A.Expr, rhs: A.Expr, ctx: Ctx, body: ActionBody, span) -> None:
        if isinstance(lhs, A.Slice):
            self.write_slice(lhs, self.val(rhs, ctx), ctx, body, span)
            return
        loc = self.loc(lhs, ctx)
        self.assign_to(loc, rhs, ctx, body, span)

    def emit_assign(self, loc: Loc, value: dict, body: ActionBody, span) -> None:
        if body.in_parser:
            body.emit("set", [loc.json(), value], span, self.doc)
        else:
            body.emit("assign", [loc.json(), value], span, self.doc)

    def assign_to(self, loc: Loc, rhs: A.Expr, ctx: Ctx, body: ActionBody, span) -> None:
        """Assign an expression to a location: fields directly (calls write their result in
        place), composites field by field or with BMv2's header/union/stack copies, list and
        struct initialisers, lookahead into headers and structs."""
        rt = strip_newtype(rhs.type)
        if isinstance(loc, (FieldLoc,)):
            if isinstance(rhs, A.Call) and rhs.target_kind() in ("extern_method", "extern_function"):
                r = self.call_stmt(rhs, ctx, body, result=loc)
                return
            if isinstance(loc.type, Varbit) or isinstance(strip_newtype(loc.type), Varbit):
                body.emit("assign_VL", [loc.json(), self.val(rhs, ctx)], span, self.doc)
                return
            self.emit_assign(loc, self.val(rhs, ctx), body, span)
            return
        if isinstance(loc, ValueLoc):
            raise unsupported(rhs, "assignment to a read-only value")
        if isinstance(rhs, A.Call) and rhs.target_kind() in ("extern_method", "extern_function", "function"):
            if rhs.target_kind() == "function":
                self.inline_function(rhs, ctx, result=loc)
                return
            self.call_stmt(rhs, ctx, body, result=loc)
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
        if isinstance(rhs, A.Ternary) and not isinstance(loc, FieldLoc):
            raise unsupported(rhs, "'?:' on headers or structs")
        if isinstance(rhs, A.Call) and rhs.target_kind() == "builtin" and rhs.target.name == "lookahead" \
                and isinstance(loc, (HeaderLoc, StructLoc)):
            self.assign_lookahead(loc, body, span)
            return
        self.copy_loc(loc, self.loc(rhs, ctx), body, span, rhs)

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
            body.emit("primitive", [{"op": op, "parameters": params}], span, self.doc)
        else:
            body.emit(op, params, span, self.doc)

    # ------------------------------------------------------------ calls of actions and functions
    def bind_param(self, p: A.Param, arg: A.Expr, caller: Ctx, callee: Ctx, body: ActionBody, copy_back: list) -> None:
        t = p.resolved_type
        w = scalar_width(t)
        if w is None or isinstance(arg, A.DontCare):
            if isinstance(arg, A.DontCare):
                callee.env[p] = self.temp(t, "tmp") if w is not None else self.alloc(t, self.doc.fresh("tmp"), True)
                return
            self.bind_composite(p, arg, caller, callee, body, copy_back)
            return
        if p.direction in ("", "in"):
            v = const_value(arg)
            if isinstance(v, (int, bool)):
                callee.env[p] = ValueLoc(const(int(v)), t)
                return
            tmp = self.temp(t, p.name)
            self.emit_assign(tmp, self.val(arg, caller), body, arg.span)
            callee.env[p] = tmp
            return
        target = self.loc(arg, caller) if not isinstance(arg, A.Slice) else None
        tmp = self.temp(t, p.name)
        if p.direction == "inout":
            self.emit_assign(tmp, self.val(arg, caller), body, arg.span)
        callee.env[p] = tmp
        copy_back.append((arg, tmp, target))

    def bind_composite(self, p: A.Param, arg: A.Expr, caller: Ctx, callee: Ctx, body: ActionBody, copy_back: list) -> None:
        """Copy-in/copy-out of a struct, header, union or stack parameter: the callee works on
        a copy of its own (the spec's semantics, so writes through one parameter are not seen
        through another that names the same storage), filled from the argument for `in` and
        `inout`, invalid (headers) for `out`, and copied back for `out` and `inout`."""
        tmp = self.alloc(p.resolved_type, self.doc.fresh(f"{p.name}_copy"), True)
        if p.direction in ("", "in", "inout"):
            self.assign_to(tmp, arg, caller, body, arg.span)
        else:
            for leaf in leaves(tmp):
                if isinstance(leaf, HeaderLoc):
                    self.prim(body, "remove_header", [leaf.json()], arg.span)
        callee.env[p] = tmp
        if p.direction in ("out", "inout"):
            copy_back.append((arg, tmp, self.loc(arg, caller)))

    def do_copy_back(self, copy_back: list, caller: Ctx, body: ActionBody) -> None:
        for arg, tmp, target in copy_back:
            if not isinstance(tmp, (FieldLoc, ValueLoc)):
                self.copy_loc(target, tmp, body, arg.span, arg)
            elif target is None:
                self.write_slice(arg, tmp.json(), caller, body, arg.span)
            else:
                self.emit_assign(target, tmp.json(), body, arg.span)

    def write_slice(self, lhs: A.Slice, value: dict, ctx: Ctx, body: ActionBody, span) -> None:
        """`x[hi:lo] = value`, also through nested slices (`x[7:4][2:1]` is `x[6:5]`): the
        other bits of the innermost variable are kept."""
        base, hi, lo = lhs.expr, const_value(lhs.hi), const_value(lhs.lo)
        while isinstance(base, A.Slice):
            offset = const_value(base.lo)
            hi, lo, base = hi + offset, lo + offset, base.expr
        loc = self.loc(base, ctx)
        w = scalar_width(base.type)
        m = ((1 << (hi - lo + 1)) - 1) << lo
        keep = expr("&", loc.json(), const(((1 << w) - 1) ^ m))
        new = expr("&", expr("<<", value, const(lo)), const(m))
        self.emit_assign(loc, expr("|", keep, new), body, span)

    def inline_action(self, call: A.Call, decl: A.ActionDecl, ctx: Ctx, body: ActionBody) -> None:
        actx_parent = ctx if self.is_local_action(decl) else Ctx("", decl)
        # an action called from an apply block is still one of the program's actions for the control
        # plane, with no parameters (the call binds them); one called from another action is inlined
        # away. Both as with p4c.
        if not isinstance(ctx.decl, A.ActionDecl):
            self.model.add_action(self.name_of(decl, actx_parent.prefix), decl, [])
        callee = actx_parent.child(body=body, kind="action", decl=decl)
        copy_back: list = []
        args = self.ck.order_args(decl.params, call.args)
        for p, a in zip(decl.params, args):
            self.bind_param(p, a, ctx, callee, body, copy_back)
        frame = CallFrame(ctx, copy_back)
        body.return_stack.append(frame)
        self.body_stmt(decl.body, callee, body)
        body.return_stack.pop()
        for j in frame.jumps:
            body.patch(j, len(body.prims))
        self.do_copy_back(copy_back, ctx, body)

    def is_local_action(self, decl) -> bool:
        return not any(decl is d for d in self.ck.program.decls)

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
        copy_back: list = []
        args = self.ck.order_args(proto.params, call.args)
        for p, a in zip(proto.params, args):
            p.resolved_type = p.type_ref.resolved
            self.bind_param(p, a, ctx, fctx, body, copy_back)
        ret = None
        rt = decl.ret_type
        # the result goes to a temporary: the caller's destination is written only after the
        # out/inout arguments are copied back (`h = f(h.x)` ends with f's result in h)
        if rt is not None and scalar_width(rt) is not None:
            ret = self.temp(rt, f"{decl.name}_ret")
        elif rt is not None and strip_newtype(rt) != Simple("void"):
            ret = self.alloc(rt, self.doc.fresh(f"{decl.name}_ret"), True)
        frame = CallFrame(ctx, copy_back, ret)
        body.return_stack.append(frame)
        self.body_stmt(decl.body, fctx, body)
        body.return_stack.pop()
        for j in frame.jumps:
            body.patch(j, len(body.prims))
        self.do_copy_back(copy_back, ctx, body)
        if isinstance(ret, FieldLoc):
            if result is not None:
                self.emit_assign(result, ret.json(), body, call.span)
            return ret.json()
        if ret is not None and result is not None:
            self.copy_loc(result, ret, body, call.span, call)
        return const(0)


def lower(checker: Checker, rep: Reporter, program_name: str, sources=None) -> Lowerer:
    lw = Lowerer(checker, rep, program_name, sources)
    lw.run()
    return lw
