"""Lowering of the parser, the checksum controls and the deparser."""
from __future__ import annotations

from typing import TYPE_CHECKING

from itertools import product

from . import ast as A
from .bmv2 import const, expr, hex_bytes, scalar_width
from .consteval import const_value
from .context import ActionBody, Ctx
from .lower_expr import Unsupported, unsupported
from .model import ValueSetInfo
from .storage import FieldLoc, HeaderLoc, ObjLoc, StackLoc, StructLoc, UnionLoc, ValueLoc
from .types import Bits, Composite, Enum, strip_newtype
from .lower_externs import HASH_ALGOS

if TYPE_CHECKING:
    from .lower import Lowerer


def range_to_masks(lo: int, hi: int, w: int) -> list[tuple[int, int]]:
    """Cover [lo, hi] with value/mask pairs (prefix decomposition)."""
    out = []
    full = (1 << w) - 1
    while lo <= hi:
        size = lo & -lo if lo else 1 << w
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, full ^ (size - 1)))
        lo += size
    return out


class ParserLowerer:
    """The parser (states, selects, sub-parsers copied per call site), the checksum controls
    (checksum calculations) and the deparser (emit order)."""
    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts
        self.parser_json: dict | None = None    # the BMv2 parser being built

    # ------------------------------------------------------------ parser
    def lower_parser_block(self, decl: A.ParserDecl, locs: list) -> None:
        pj = {"name": "parser", "id": len(self.lw.doc.parsers), "init_state": "start", "parse_states": []}
        self.lw.doc.parsers.append(pj)
        self.parser_json = pj
        ctx = Ctx("", decl, kind="parser")
        for p, l in zip(decl.params, locs):
            ctx.env[p] = l
        self.parser_instance(decl, ctx, "", None, top=True)

    def parser_instance(self, decl: A.ParserDecl, ctx, prefix: str, accept_to, top=False):
        """Emit the states of one parser instance; returns its start state's name."""
        ctx.stack_cursor = self.stack_cursor
        for loc in decl.locals:
            try:
                if isinstance(loc, A.VarDecl):
                    self.lw.storage.alloc_local(loc, ctx)
                    if loc.init is not None:
                        ctx.var_inits = ctx.var_inits + [loc]
                elif loc in ctx.env:  # an instance's object, already made by an earlier apply
                    pass
                elif isinstance(loc, A.ValueSetDecl):
                    self.value_set(loc, ctx, prefix)
                elif isinstance(loc, A.Instantiation):
                    self.lw.externs.instantiate(loc, ctx)
                elif isinstance(loc, A.ConstDecl):
                    pass
                else:
                    raise unsupported(loc, f"declaration {type(loc).__name__} in a parser")
            except Unsupported as u:
                u.span = u.span or loc.span
                self.lw.report(u)
        names = {st.name: (f"{prefix}{st.name}" if prefix else st.name) for st in decl.states}
        for st in decl.states:
            self.lw.doc.reserve(names[st.name])
        ctx.state_names = names
        ctx.accept_to = accept_to
        for st in decl.states:
            try:
                self.parse_state(st, ctx, names[st.name], first=(st.name == "start" and bool(ctx.var_inits)))
            except Unsupported as u:
                u.span = u.span or st.span
                self.lw.report(u)
        return names.get("start", "start")

    def value_set(self, d: A.ValueSetDecl, ctx, prefix) -> None:
        t = strip_newtype(d.elem.resolved)
        if isinstance(t, Composite):
            fields = [(f, scalar_width(ft) or 0) for f, ft in t.fields]
        else:
            fields = [("", scalar_width(t) or 0)]
        width = sum(w for _, w in fields)
        name = self.lw.storage.name_of(d, ctx.decl.name)
        self.lw.doc.parse_vsets.append({"name": name, "id": len(self.lw.doc.parse_vsets), "compressed_bitwidth": width})
        size = const_value(d.size) or 0
        self.lw.model.value_sets.append(ValueSetInfo(name, d, fields, size))
        ctx.env[d] = ObjLoc("value_set", name, d)

    def next_state(self, name, ctx):
        if isinstance(name, tuple):  # ("raw", BMv2 state name) for states the compiler split
            return name[1]
        if name == "accept":
            return ctx.accept_to
        if name == "reject":
            return self.get_reject_state(None)
        return ctx.state_names[name]

    def get_reject_state(self, err: str | None):
        name = "reject" if err is None else f"reject_{err}"
        for s in self.parser_json["parse_states"]:
            if s["name"] == name:
                return name
        ops = []
        if err is not None:
            ops.append({"op": "verify", "parameters": [{"type": "bool", "value": False}, const(self.lw.errors.index(err))]})
        self.lw.doc.reserve(name)
        self.parser_json["parse_states"].append({"name": name, "id": self.lw.doc.parse_state_id, "parser_ops": ops,
                                                 "transitions": [{"type": "default", "value": None, "mask": None, "next_state": None}],
                                                 "transition_key": []})
        self.lw.doc.parse_state_id += 1
        return name

    def new_state(self, name: str) -> dict:
        s = {"name": name, "id": self.lw.doc.parse_state_id, "parser_ops": [], "transitions": [], "transition_key": []}
        self.lw.doc.parse_state_id += 1
        self.parser_json["parse_states"].append(s)
        return s

    def parse_state(self, st: A.ParserState, ctx, name: str, first=False) -> None:
        """Emit one parser state: its statements as parser ops, split into new states at sub-
        parser calls and `if` statements, then its transition."""
        sj = self.new_state(name)
        body = ActionBody(in_parser=True)
        sctx = ctx.child(body=body, kind="parser")
        sctx.packet_call = lambda call, n, obj, b: self.packet_call(call, n, obj, b, sctx)
        sctx.value_call = lambda call: self.parser_value_call(call, sctx, body)
        stmts = list(ctx.var_inits) + list(st.stmts) if first else list(st.stmts)
        for i, s in enumerate(stmts):
            if isinstance(s, A.CallStmt) and s.call.target_kind() == "apply":
                # sub-parser: split this state
                cont = self.lw.doc.fresh(f"{name}_0")
                sub_start = self.subparser(s.call, sctx, cont)
                sj["parser_ops"] = self.parser_ops(body, st)
                sj["transitions"] = [{"type": "default", "value": None, "mask": None, "next_state": sub_start}]
                rest = A.ParserState(st.span, st.name, [], stmts[i + 1:], st.transition, st.transition_span)
                self.parse_state(rest, sctx, cont)
                return
            if isinstance(s, A.If) and not isinstance(const_value(s.cond), bool):
                # split the state: evaluate the condition into a 1-bit temporary and select on it
                cont = self.lw.doc.fresh(f"{name}_0")
                tname = self.lw.doc.fresh(f"{name}_true")
                fname = self.lw.doc.fresh(f"{name}_false") if s.other is not None else cont
                tmp = self.lw.storage.temp(Bits(1), "cond")
                body.emit("set", [tmp.json(), expr("b2d", None, self.lw.exprs.cond(s.cond, sctx))], s.span, self.lw.doc)
                sj["parser_ops"] = self.parser_ops(body, st)
                sj["transition_key"] = [tmp.json()]
                sj["transitions"] = [{"type": "hexstr", "value": "0x01", "mask": None, "next_state": tname},
                                     {"type": "default", "value": None, "mask": None, "next_state": fname}]
                for branch, bname in ((s.then, tname), (s.other, fname)):
                    if branch is None:
                        continue
                    bst = branch.stmts if isinstance(branch, A.Block) else [branch]
                    self.parse_state(A.ParserState(branch.span, st.name, [], bst, ("raw", cont), None), sctx, bname)
                rest = A.ParserState(st.span, st.name, [], stmts[i + 1:], st.transition, st.transition_span)
                self.parse_state(rest, sctx, cont)
                return
            self.lw.stmts.body_stmt(s, sctx, body)
        sj["parser_ops"] = self.parser_ops(body, st)
        tr = st.transition
        if isinstance(tr, (str, tuple)):
            sj["transitions"] = [{"type": "default", "value": None, "mask": None, "next_state": self.next_state(tr, ctx)}]
            return
        self.select(tr, sctx, sj, body)

    def parser_ops(self, body: ActionBody, node) -> list:
        # a safety net: BMv2 parser ops have no jumps; every construct that needs one is
        # refused where it is lowered, and must not slip through into the JSON
        if any(p["op"].startswith("_jump") for p in body.prims):
            raise unsupported(node, "control flow that needs jumps in a parser state")
        return body.prims

    def subparser(self, call: A.Call, ctx, cont: str) -> str:
        inst = self.lw.exprs.loc(call.func.expr, ctx)
        if not isinstance(inst, ObjLoc) or inst.kind != "parser":
            raise unsupported(call, "apply of this object in a parser")
        # every apply gets its own copy of the sub-parser's states (p4c inlines each call site);
        # the instance's objects (value sets, externs) are made once and shared by all copies
        applies = inst.applies
        inst.applies += 1
        objects = inst.objects
        pdecl = inst.decl
        sub = Ctx(inst.name, pdecl, {**inst.ctor_env, **objects}, kind="parser")
        for p, a in zip(pdecl.params, call.args):
            v = const_value(a.expr)
            if p.direction in ("", "in") and isinstance(v, (int, bool)):
                sub.env[p] = ValueLoc(const(int(v)), p.resolved_type)
            elif isinstance(strip_newtype(p.resolved_type), type(None)):
                pass
            else:
                loc = self.lw.exprs.loc(a.expr, ctx) if not (isinstance(a.expr, A.Name) and a.expr.sym is not None
                                                    and str(a.expr.sym.type) == "packet_in") else ObjLoc("packet", "packet", None)
                sub.env[p] = loc
        prefix = inst.name.replace(".", "_") + (f"_{applies}_" if applies else "_")
        start = self.parser_instance(pdecl, sub, prefix, cont)
        objects.update((d, sub.env[d]) for d in pdecl.locals
                       if isinstance(d, (A.ValueSetDecl, A.Instantiation)) and d in sub.env)
        return start

    # packet_in methods inside states
    def packet_call(self, call, n, obj, body, ctx):
        if n == "extract":
            target = call.args[0].expr
            if isinstance(target, A.DontCare):  # extract<H>(_): skip an H
                bits = sum(scalar_width(t) or 0 for _, t, _ in strip_newtype(target.type).layout())
                body.emit("advance", [const(bits)], call.span, self.lw.doc)
                return
            param = self.extract_target(target, ctx)
            if len(call.args) == 2:
                body.emit("extract_VL", [param, self.val_expr(call.args[1].expr, ctx)], call.span, self.lw.doc)
            else:
                body.emit("extract", [param], call.span, self.lw.doc)
            return
        if n == "advance":
            v = self.lw.exprs.val(call.args[0].expr, ctx)
            body.emit("advance", [v], call.span, self.lw.doc)
            return
        if n == "lookahead":  # value unused, but a packet too short for it still fails the parser (as in p4c)
            t = strip_newtype(call.type)
            w = scalar_width(t) or sum(scalar_width(lt) or 0 for _, lt, _ in t.layout())
            body.emit("set", [self.lw.storage.temp(Bits(w), "lookahead").json(), {"type": "lookahead", "value": [0, w]}], call.span, self.lw.doc)
            return
        if n == "length":
            return
        raise unsupported(call, f"packet method '{n}' here")

    def val_expr(self, e, ctx) -> dict:
        v = self.lw.exprs.val(e, ctx)
        if v.get("type") != "expression":
            return {"type": "expression", "value": {"op": "&", "left": v, "right": const(0xffffffff)}}
        return v

    def extract_target(self, e: A.Expr, ctx) -> dict:
        if isinstance(e, A.Member) and e.name == "next":
            base = self.lw.exprs.loc(e.expr, ctx)
            if isinstance(base, StackLoc):
                return {"type": "stack", "value": base.name}
        if isinstance(e, A.Member) and isinstance(e.expr, A.Member) and e.expr.name == "next":
            base = self.lw.exprs.loc(e.expr.expr, ctx)
            if isinstance(base, StackLoc) and base.is_union_stack:
                return {"type": "union_stack", "value": [base.name, e.name]}
        loc = self.lw.exprs.loc(e, ctx)
        if not isinstance(loc, HeaderLoc):
            raise unsupported(e, "extract into this value")
        return {"type": "regular", "value": loc.name}

    def stack_cursor(self, stack: StackLoc, which: str, node):
        raise unsupported(node, f"header stack '.{which}' in this position (extract into '.next' or use constant indexes)")

    def parser_value_call(self, call, ctx, body):
        tgt = call.target
        if tgt and tgt.kind == "builtin" and tgt.name == "lookahead":
            w = scalar_width(call.type)
            if w is None:
                raise unsupported(call, "lookahead of a header as a value (use a field of it in select)")
            return {"type": "lookahead", "value": [0, w]}
        if tgt and tgt.kind == "builtin" and tgt.name == "length":
            raise unsupported(call, "packet_in.length() on BMv2")
        return None

    def lookahead_source(self, e: A.Expr) -> tuple[dict, int] | None:
        """`lookahead<bit<N>>()` or `lookahead<H>().field` as BMv2's lookahead operand
        (bit offset, width), or None for any other expression."""
        w = scalar_width(e.type)
        if isinstance(e, A.Call) and e.target_kind() == "builtin" and e.target.name == "lookahead":
            return ({"type": "lookahead", "value": [0, w]}, w) if w is not None else None
        if isinstance(e, A.Member) and isinstance(e.expr, A.Call) and e.expr.target_kind() == "builtin" \
                and e.expr.target.name == "lookahead":
            ht = strip_newtype(e.expr.type)
            off = 0
            for path, ft, _ in ht.layout():
                if path[0] == e.name:
                    break
                off += scalar_width(ft) or 0
            return {"type": "lookahead", "value": [off, w]}, w
        return None

    def key_of(self, e: A.Expr, ctx, body) -> tuple[dict, int]:
        w = scalar_width(e.type)
        ahead = self.lookahead_source(e)
        if ahead is not None:
            return ahead
        if isinstance(e, A.Slice) and isinstance(e.expr, A.Call) and e.expr.target_kind() == "builtin" \
                and e.expr.target.name == "lookahead":
            tw = scalar_width(e.expr.type)
            hi, lo = const_value(e.hi), const_value(e.lo)
            return {"type": "lookahead", "value": [tw - 1 - hi, hi - lo + 1]}, w
        if isinstance(e, A.Member) and isinstance(e.expr, A.Member) and e.expr.name == "last":
            base = self.lw.exprs.loc(e.expr.expr, ctx)
            if isinstance(base, StackLoc):
                return {"type": "stack_field", "value": [base.name, e.name]}, w
        if self.lw.exprs.is_loc_expr(e):
            loc = self.lw.exprs.loc(e, ctx)
            if isinstance(loc, FieldLoc):
                return loc.json(), w
        tmp = self.lw.storage.temp(e.type, "tmp")
        body.emit("set", [tmp.json(), self.lw.exprs.val(e, ctx)], e.span, self.lw.doc)
        return tmp.json(), w

    def select(self, sel: A.Select, ctx, sj: dict, body) -> None:
        """A state's `transition select(...)`: the transition key (fields, lookahead,
        expressions through temporaries) and one BMv2 transition per case (value/mask, ranges as
        masks, value sets, default)."""
        keys = []
        widths = []
        for e in sel.exprs:
            k, w = self.key_of(e, ctx, body)
            if w is None:
                raise unsupported(e, f"select on a value of type {e.type}")
            keys.append(k)
            widths.append(w)
        sj["parser_ops"] = self.parser_ops(body, sel)
        sj["transition_key"] = keys
        trans = []
        has_default = False
        for c in sel.cases:
            nxt = self.next_state(c.next_state, ctx)
            ks = c.keyset
            if isinstance(ks, (A.DefaultExpr, A.DontCare)):
                trans.append({"type": "default", "value": None, "mask": None, "next_state": nxt})
                has_default = True
                break
            items = ks.items if isinstance(ks, A.ListExpr) else [ks]
            if len(items) == 1 and isinstance(items[0], A.Name) and items[0].sym is not None \
                    and items[0].sym.kind == "value_set":
                vs = self.lw.exprs.loc(items[0], ctx)
                trans.append({"type": "parse_vset", "value": vs.name, "mask": None, "next_state": nxt})
                continue
            if all(isinstance(i, (A.DefaultExpr, A.DontCare)) for i in items):
                trans.append({"type": "default", "value": None, "mask": None, "next_state": nxt})
                has_default = True
                break
            per_key = [self.keyset_pairs(it, w) for it, w in zip(items, widths)]
            for combo in product(*per_key):
                value = "".join(hex_bytes(v, w)[2:] for (v, _), w in zip(combo, widths))
                masked = any(m != (1 << w) - 1 for (_, m), w in zip(combo, widths))
                mask = "".join(hex_bytes(m, w)[2:] for (_, m), w in zip(combo, widths))
                trans.append({"type": "hexstr", "value": "0x" + value, "mask": ("0x" + mask) if masked else None,
                              "next_state": nxt})
        if not has_default:
            trans.append({"type": "default", "value": None, "mask": None, "next_state": self.get_reject_state("NoMatch")})
        sj["transitions"] = trans

    def keyset_pairs(self, it: A.Expr, w: int) -> list[tuple[int, int]]:
        full = (1 << w) - 1
        if isinstance(it, (A.DontCare, A.DefaultExpr)):
            return [(0, 0)]
        if isinstance(it, A.Mask):
            v, m = const_value(it.value), const_value(it.mask)
            if not isinstance(v, int) or not isinstance(m, int):
                raise unsupported(it, "select mask that is not a compile-time constant")
            return [(v & m & full, m & full)]
        if isinstance(it, A.Range):
            lo, hi = const_value(it.lo), const_value(it.hi)
            if not isinstance(lo, int) or not isinstance(hi, int):
                raise unsupported(it, "select range that is not a compile-time constant")
            lo, hi = max(lo, 0), min(hi, full)
            pairs = range_to_masks(lo, hi, w) if lo <= hi else []
            if len(pairs) > 256:
                raise unsupported(it, "select range needing more than 256 value/mask transitions")
            return pairs
        v = const_value(it)
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            t = strip_newtype(it.type)
            if isinstance(it, A.Member) and isinstance(t, Enum):
                v = t.values.get(it.name) if t.underlying else t.members.index(it.name)
            elif isinstance(it, A.Member) and str(it.type) == "error":
                v = self.lw.errors.index(it.name)
            else:
                raise unsupported(it, "select case that is not a compile-time constant")
        return [(v & full, full)]

    # ------------------------------------------------------------ checksums
    def lower_checksum_block(self, decl: A.ControlDecl, locs: list, verify: bool) -> None:
        ctx = Ctx(decl.name, decl, kind="control")
        for p, l in zip(decl.params, locs):
            ctx.env[p] = l
        for loc in decl.locals:
            self.lw.rep.error(loc.span, f"unsupported: declarations in the {'verify' if verify else 'compute'} checksum control")
            return
        self.checksum_stmts(decl.body.stmts, ctx, None, verify)

    def checksum_stmts(self, stmts, ctx, cond, verify: bool) -> None:
        for st in stmts:
            try:
                if isinstance(st, A.Block):
                    self.checksum_stmts(st.stmts, ctx, cond, verify)
                elif isinstance(st, A.Empty):
                    pass
                elif isinstance(st, A.If):
                    c = self.lw.exprs.cond(st.cond, ctx)
                    both = c if cond is None else {"type": "expression", "value": {"op": "and", "left": cond, "right": c}}
                    self.checksum_stmts([st.then], ctx, both, verify)
                    if st.other is not None:
                        nc = {"type": "expression", "value": {"op": "not", "left": None, "right": c}}
                        both = nc if cond is None else {"type": "expression", "value": {"op": "and", "left": cond, "right": nc}}
                        self.checksum_stmts([st.other], ctx, both, verify)
                elif isinstance(st, A.CallStmt) and st.call.target_kind() == "extern_function":
                    self.checksum_call(st.call, ctx, cond, verify)
                else:
                    raise unsupported(st, "statement in a checksum control (only verify_checksum/update_checksum calls)")
            except Unsupported as u:
                u.span = u.span or st.span
                self.lw.report(u)

    def checksum_call(self, call, ctx, cond, verify: bool) -> None:
        proto = call.target.proto
        n = proto.name
        want = ("verify_checksum", "verify_checksum_with_payload") if verify else ("update_checksum", "update_checksum_with_payload")
        if n not in want:
            raise unsupported(call, f"{n} in the {'verify' if verify else 'compute'} checksum control")
        a = self.lw.externs.args(call, proto)
        algo = self.lw.externs.enum_member(a[3])
        if algo not in HASH_ALGOS:
            raise unsupported(a[3], "checksum algorithm that is not a compile-time HashAlgorithm constant")
        inputs = self.lw.externs.calc_inputs(a[1], ctx, None)
        if n.endswith("with_payload"):
            inputs.append({"type": "payload", "value": None})
        calc = self.lw.externs.add_calculation(algo, inputs, call.span)
        target = self.lw.externs.dest(a[2], ctx)
        c = const_value(a[0])
        if_cond = None
        if c is not True:
            if_cond = self.lw.exprs.cond(a[0], ctx)
        if cond is not None:
            if_cond = cond if if_cond is None else {"type": "expression", "value": {"op": "and", "left": cond, "right": if_cond}}
        ck = {"name": self.lw.doc.fresh("cksum"), "id": len(self.lw.doc.checksums), "target": [target.header, target.field],
              "type": "generic", "calculation": calc, "verify": verify, "update": not verify, "if_cond": if_cond}
        si = self.lw.doc.source_info(call.span)
        if si:
            ck["source_info"] = si
        self.lw.doc.checksums.append(ck)

    # ------------------------------------------------------------ deparser
    def lower_deparser(self, decl: A.ControlDecl, locs: list) -> None:
        ctx = Ctx(decl.name, decl, kind="control")
        for p, l in zip(decl.params, locs):
            ctx.env[p] = l
        order: list[str] = []
        dj = {"name": "deparser", "id": len(self.lw.doc.deparsers), "source_info": self.lw.doc.source_info(decl.span, decl.name),
              "order": order, "primitives": []}
        if dj["source_info"] is None:
            del dj["source_info"]
        self.lw.doc.deparsers.append(dj)
        for loc in decl.locals:
            self.lw.rep.error(loc.span, "unsupported: declarations in the deparser")
        self.deparse_stmts(decl.body.stmts, ctx, order)

    def deparse_stmts(self, stmts, ctx, order) -> None:
        for st in stmts:
            try:
                if isinstance(st, A.Block):
                    self.deparse_stmts(st.stmts, ctx, order)
                elif isinstance(st, A.Empty):
                    pass
                elif isinstance(st, A.CallStmt) and st.call.target_kind() == "builtin" \
                        and st.call.target.name == "emit":
                    loc = self.lw.exprs.loc(st.call.args[0].expr, ctx)
                    self.emit_order(loc, order, st)
                else:
                    raise unsupported(st, "statement in the deparser (only packet.emit calls)")
            except Unsupported as u:
                u.span = u.span or st.span
                self.lw.report(u)

    def emit_order(self, loc, order, node) -> None:
        if isinstance(loc, HeaderLoc):
            order.append(loc.name)
        elif isinstance(loc, UnionLoc):
            for m in loc.members.values():
                order.append(m.name)
        elif isinstance(loc, StackLoc):
            for el in loc.elems:
                self.emit_order(el, order, node)
        elif isinstance(loc, StructLoc):
            for v in loc.fields.values():
                if isinstance(v, FieldLoc):
                    raise unsupported(node, "emit of a struct with non-header fields")
                self.emit_order(v, order, node)
        else:
            raise unsupported(node, "emit of this value")
