"""Lowering of controls: apply blocks -> BMv2 pipelines of tables and conditionals."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .bmv2 import const, expr, hex_bytes, scalar_width
from .check_types import ActionRun
from .consteval import const_value
from .call_args import order_args
from .context import Ctx
from .lower_expr import Unsupported, unsupported, unsupported_by_target
from .model import MatchFieldInfo, TableInfo
from .scope import Symbol
from .storage import FieldLoc, HeaderLoc, ObjLoc, ValueLoc
from .visitor import Visitor
from .types import BOOL, Enum, NewType, strip_newtype

if TYPE_CHECKING:
    from .lower import Lowerer

_KIND_ORDER = {"range": 4, "ternary": 3, "optional": 3, "lpm": 2, "exact": 1}


def expr_text(e: A.Expr) -> str:
    """Source-like text of a key expression (the key's control-plane name)."""
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Member):
        return f"{expr_text(e.expr)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{expr_text(e.expr)}[{expr_text(e.index)}]"
    if isinstance(e, A.IntLiteral):
        return str(e.value)
    if isinstance(e, A.Slice):
        return f"{expr_text(e.expr)}[{expr_text(e.hi)}:{expr_text(e.lo)}]"
    if isinstance(e, A.Call):
        f = e.func
        if isinstance(f, A.Member) and f.name == "isValid" and not e.args:
            return f"{expr_text(f.expr)}.$valid$"  # p4c's name for a validity key
        return f"{expr_text(f)}()"
    if isinstance(e, A.Binary):
        return f"{expr_text(e.left)} {e.op} {expr_text(e.right)}"
    if isinstance(e, A.Cast):
        return f"({e.type.name() if e.type is not None else '?'}){expr_text(e.expr)}"
    return "key"


class ControlLowerer(Visitor):
    """Apply blocks to the nodes of a BMv2 pipeline (named pass `flow_<Stmt>`): tables, hidden
    tables for straight-line code, conditionals, control instances applied in place."""
    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts

    # ------------------------------------------------------------ pipelines
    def lower_pipeline(self, pname: str, decl: A.ControlDecl, locs: list) -> None:
        pipe = {"name": pname, "id": len(self.lw.doc.pipelines),
                "source_info": self.lw.doc.source_info(decl.span, decl.name),
                "init_table": None, "tables": [], "action_profiles": [], "conditionals": []}
        if pipe["source_info"] is None:
            del pipe["source_info"]
        self.lw.doc.pipelines.append(pipe)
        ctx = self.control_ctx(decl, self.lw.storage.name_of(decl, ""), locs, pipe)
        pipe["init_table"] = self.control_apply(decl, ctx, None)

    def control_ctx(self, decl: A.ControlDecl, prefix: str, locs: list, pipe: dict, parent=None, objects=None):
        """The context of one apply of a control instance; `objects`: the instance's extern
        objects made by an earlier apply (every apply shares them), filled in by this one."""
        ctx = Ctx(prefix, decl, dict(objects or {}), parent=parent, pipeline=pipe, kind="control")
        for p, l in zip(decl.params, locs):
            ctx.env[p] = l
        for loc in decl.locals:
            try:
                self.control_local(loc, ctx)
            except Unsupported as u:
                if u.span is None:
                    u.span = loc.span
                self.lw.report(u)
        if objects is not None:
            objects.update((d, ctx.env[d]) for d in decl.locals if isinstance(d, A.Instantiation) and d in ctx.env)
        return ctx

    def control_local(self, d, ctx) -> None:
        if isinstance(d, A.VarDecl):
            self.lw.storage.alloc_local(d, ctx)
            if d.init is not None:
                ctx.var_inits.append(d)
        elif isinstance(d, A.Instantiation):
            if d not in ctx.env:
                self.lw.externs.instantiate(d, ctx)
        elif isinstance(d, (A.ActionDecl, A.TableDecl, A.ConstDecl)):
            pass
        else:
            raise unsupported(d, f"declaration {type(d).__name__} in a control")

    def control_apply(self, decl: A.ControlDecl, ctx, nxt):
        ctx.return_next = nxt
        stmts = list(ctx.var_inits) + list(decl.body.stmts)
        return self.lower_stmts(stmts, ctx, nxt)

    # ------------------------------------------------------------ statement graph
    def is_simple(self, st) -> bool:
        if isinstance(st, (A.Assign, A.VarDecl, A.ConstDecl, A.Empty)):
            return True
        if isinstance(st, A.CallStmt):
            return st.call.target_kind() not in ("table_apply", "apply")
        return False

    def lower_stmts(self, stmts: list, ctx, nxt):
        inner = ctx.child()
        for st in stmts:
            if isinstance(st, A.VarDecl) and st not in ctx.var_inits:
                try:
                    self.lw.storage.alloc_local(st, inner)
                except Unsupported as u:
                    u.span = u.span or st.span
                    self.lw.report(u)
        cur = nxt
        pending: list = []
        for st in reversed(stmts):
            if self.is_simple(st):
                pending.insert(0, st)
                continue
            if pending:
                cur = self.hidden_table(pending, inner, cur)
                pending = []
            try:
                cur = self.lower_flow(st, inner, cur)
            except Unsupported as u:
                u.span = u.span or st.span
                self.lw.report(u)
        if pending:
            cur = self.hidden_table(pending, inner, cur)
        return cur

    def hidden_table(self, stmts: list, ctx, nxt):
        stmts = [s for s in stmts if not isinstance(s, (A.Empty, A.ConstDecl)) and
                 not (isinstance(s, A.VarDecl) and s.init is None)]
        if not stmts:
            return nxt
        try:
            act, data = self.simple_action_call(stmts, ctx)
            if act is None:
                act = self.lw.stmts.hidden_action(stmts, ctx, stmts[0].span)
                data = []
        except Unsupported as u:
            u.span = u.span or stmts[0].span
            self.lw.report(u)
            return nxt
        tname = self.lw.doc.fresh("tbl_" + act["name"].split(".")[-1])
        table = {"name": tname, "id": self.lw.doc.table_id, "key": [], "match_type": "exact", "type": "simple",
                 "max_size": 1024, "with_counters": False, "support_timeout": False, "direct_meters": None,
                 "action_ids": [act["id"]], "actions": [act["name"]], "base_default_next": nxt,
                 "next_tables": {act["name"]: nxt},
                 "default_entry": {"action_id": act["id"], "action_const": True, "action_data": data,
                                   "action_entry_const": True}}
        si = self.lw.doc.source_info(stmts[0].span)
        if si:
            table["source_info"] = si
        self.lw.doc.table_id += 1
        ctx.pipeline["tables"].append(table)
        return tname

    def simple_action_call(self, stmts, ctx):
        """A lone call of an action whose arguments are all constants becomes the
        hidden table's default action (as p4c does); otherwise None."""
        if len(stmts) != 1 or not isinstance(stmts[0], A.CallStmt):
            return None, None
        call = stmts[0].call
        tgt = call.target
        if not tgt or tgt.kind != "action":
            return None, None
        decl = tgt.decl
        if any(p.direction for p in decl.params):
            return None, None
        args = order_args(decl.params, call.args)
        data = []
        for p, a in zip(decl.params, args):
            v = const_value(a) if a is not None else None
            if not isinstance(v, (int, bool)):
                return None, None
            data.append(f"0x{int(v) & ((1 << (scalar_width(p.resolved_type) or 1)) - 1):x}")
        ar = A.ActionRef(call.span, decl.name, [], [])
        ar.sym = Symbol("action", decl.name, decl, owner=None if not self.lw.calls.is_local_action(decl) else ctx.decl)
        act = self.lw.calls.table_action(ar, ctx)
        return act, data

    def cond_node(self, cond: dict, ctx, t, f, span) -> str:
        name = f"node_{self.lw.doc.cond_id + self.lw.doc.table_id + 1}"
        while name in self.lw.doc.names_used:
            name += "_"
        self.lw.doc.reserve(name)
        node = {"name": name, "id": self.lw.doc.cond_id, "expression": cond, "true_next": t, "false_next": f}
        si = self.lw.doc.source_info(span)
        if si:
            node["source_info"] = si
        self.lw.doc.cond_id += 1
        ctx.pipeline["conditionals"].append(node)
        return name

    def lower_flow(self, st, ctx, nxt):
        """Control-flow statement -> entry node of its graph (continuing to nxt)."""
        return self.dispatch("flow", st, ctx, nxt)

    def flow_Block(self, st, ctx, nxt):
        return self.lower_stmts(st.stmts, ctx, nxt)

    def flow_Exit(self, st, ctx, nxt):
        return None

    def flow_Return(self, st, ctx, nxt):
        return ctx.return_next

    def flow_If(self, st, ctx, nxt):
        return self.lower_if(st, ctx, nxt)

    def flow_Switch(self, st, ctx, nxt):
        return self.lower_switch(st, ctx, nxt)

    def flow_CallStmt(self, st, ctx, nxt):
        tgt = st.call.target
        if tgt.kind == "table_apply":
            return self.lower_table(tgt.decl, ctx, None, nxt, st.call)
        if tgt.kind == "apply":
            return self.apply_control(st.call, ctx, nxt)
        return self.flow_default(st, ctx, nxt)

    def flow_default(self, st, ctx, nxt):
        raise unsupported(st, f"statement {type(st).__name__} in an apply block")

    def table_of(self, e):
        """If e is `t.apply().hit/miss` (possibly negated), return (table decl, call, positive?)."""
        neg = False
        while isinstance(e, A.Unary) and e.op == "!":
            neg = not neg
            e = e.expr
        if isinstance(e, A.Member) and e.name in ("hit", "miss") and isinstance(e.expr, A.Call):
            tgt = e.expr.target
            if tgt and tgt.kind == "table_apply":
                return tgt.decl, e.expr, (e.name == "hit") != neg
        return None

    def lower_if(self, st: A.If, ctx, nxt):
        c = const_value(st.cond)
        if isinstance(c, bool):
            branch = st.then if c else st.other
            return self.lower_stmts([branch], ctx, nxt) if branch is not None else nxt
        t = self.lower_stmts([st.then], ctx, nxt)
        f = self.lower_stmts([st.other], ctx, nxt) if st.other is not None else nxt
        hm = self.table_of(st.cond)
        if hm is not None:
            tdecl, call, on_hit = hm
            hit, miss = (t, f) if on_hit else (f, t)
            return self.lower_table(tdecl, ctx, {"__HIT__": hit, "__MISS__": miss}, nxt, call)
        if self.has_call(st.cond, ("table_apply",)):
            return self.branch(st.cond, ctx, t, f)
        if self.has_call(st.cond, ("function", "extern_function", "extern_method")):
            # evaluate the condition in a hidden action first (function calls need primitives)
            tmp = self.lw.storage.temp(BOOL, "cond")
            name = self.lw.storage.synth_var(ctx, tmp, BOOL, st.cond.span)
            node = self.cond_node(expr("d2b", None, tmp.json()), ctx, t, f, st.cond.span)
            return self.hidden_table([A.Assign(st.cond.span, name, st.cond)], ctx, node)
        cond = self.lw.exprs.cond(st.cond, ctx)
        return self.cond_node(cond, ctx, t, f, st.cond.span)

    def branch(self, e, ctx, t, f):
        """A condition with table applies as a decision graph: `&&`, `||` and `!` short-circuit
        into the next node, `t.apply().hit/miss` becomes the table's __HIT__/__MISS__ edges."""
        if isinstance(e, A.Unary) and e.op == "!":
            return self.branch(e.expr, ctx, f, t)
        if isinstance(e, A.Binary) and e.op in ("&&", "||"):
            right = self.branch(e.right, ctx, t, f)
            if e.op == "&&":
                return self.branch(e.left, ctx, right, f)
            return self.branch(e.left, ctx, t, right)
        hm = self.table_of(e)
        if hm is not None:
            tdecl, call, on_hit = hm
            hit, miss = (t, f) if on_hit else (f, t)
            return self.lower_table(tdecl, ctx, {"__HIT__": hit, "__MISS__": miss}, None, call)
        if self.has_call(e, ("table_apply", "apply", "function", "extern_function", "extern_method")):
            raise unsupported(e, "table apply inside this kind of condition")
        return self.cond_node(self.lw.exprs.cond(e, ctx), ctx, t, f, e.span)

    def has_call(self, e, kinds) -> bool:
        if isinstance(e, A.Call) and e.target_kind() in kinds:
            return True
        return any(self.has_call(c, kinds) for c in e.children() if isinstance(c, (A.Expr, A.Argument)))

    def lower_switch(self, st: A.Switch, ctx, nxt):
        """`switch` in an apply block: on `t.apply().action_run` through the table's next_tables
        by action, on a value through a chain of conditionals."""
        if isinstance(st.expr.type, ActionRun):
            call = st.expr.expr
            tdecl = call.target.decl
            next_map = {}
            default_target = nxt
            labels: list = []
            for c in st.cases:
                labels.extend(c.labels)
                if c.body is None:
                    continue
                target = self.lower_stmts([c.body], ctx, nxt)
                for l in labels:
                    if isinstance(l, A.DefaultExpr):
                        default_target = target
                    else:
                        next_map[l.name] = target
                labels = []
            return self.lower_table(tdecl, ctx, None, nxt, call, by_action=next_map, default_target=default_target)
        # switch on a value: chain of conditionals
        cases = []
        labels = []
        for c in st.cases:
            labels.extend(c.labels)
            if c.body is None:
                continue
            cases.append((labels, c.body))
            labels = []
        v = self.lw.exprs.val(st.expr, ctx)
        cur = nxt
        for labels, body in reversed(cases):
            target = self.lower_stmts([body], ctx, nxt)
            if any(isinstance(l, A.DefaultExpr) for l in labels):
                cur = target
                continue
            cond = None
            for l in labels:
                e = expr("==", v, self.lw.exprs.val(l, ctx))
                cond = e if cond is None else expr("or", cond, e)
            cur = self.cond_node(cond, ctx, target, cur, st.span)
        return cur

    def apply_control(self, call: A.Call, ctx, nxt):
        inst = self.lw.exprs.loc(call.func.expr, ctx)
        if not isinstance(inst, ObjLoc) or inst.kind != "control":
            raise unsupported(call, "apply of this object in a control")
        cdecl = inst.decl
        locs = []
        for p, a in zip(cdecl.params, call.args):
            v = const_value(a.expr)
            if p.direction in ("", "in") and isinstance(v, (int, bool)):
                locs.append(ValueLoc(const(int(v)), p.resolved_type))
            else:
                locs.append(self.lw.exprs.loc(a.expr, ctx))
        sub = self.control_ctx(cdecl, inst.name, locs, ctx.pipeline, objects=inst.objects)
        for d, loc in inst.ctor_env.items():
            sub.env[d] = loc
        return self.control_apply(cdecl, sub, nxt)

    # ------------------------------------------------------------ tables
    def table_object(self, p, ctx, tname: str):
        """The object named by a table property: an instance name or an inline instantiation."""
        v = p.value
        if isinstance(v, A.Call) and v.target_kind() == "ctor":
            d = A.Instantiation(v.span, tname.split(".")[-1], [], None, v.args)
            d.resolved_type = v.type
            prefix = tname.rsplit(".", 1)[0] if "." in tname else ""
            octx = ctx.child(prefix=prefix)
            self.lw.externs.instantiate(d, octx)
            return octx.env[d]
        return self.lw.exprs.loc(v, ctx)

    def lower_table(self, tdecl: A.TableDecl, ctx, hit_miss, nxt, call, by_action=None, default_target=None):
        name = self.lw.storage.name_of(tdecl, ctx.prefix)
        # BMv2 runs a table at one node of the graph: a second apply is the same node when it
        # continues exactly as the first (e.g. the same apply in two switch cases), else unsupported.
        edges = (nxt, tuple(sorted((hit_miss or {}).items())), tuple(sorted((by_action or {}).items())), default_target)
        if name in self.lw.applied_tables:
            first_edges, entry = self.lw.applied_tables[name]
            if first_edges != edges:
                raise unsupported(call, f"table '{name}' applied more than once, continuing differently")
            return entry
        entry = self.lower_table_node(tdecl, name, ctx, hit_miss, nxt, call, by_action, default_target)
        self.lw.applied_tables[name] = (edges, entry)
        return entry

    def lower_table_node(self, tdecl: A.TableDecl, name: str, ctx, hit_miss, nxt, call, by_action, default_target):
        """The table's JSON (its entry node: a hidden table first when the key needs preparing)."""
        info = TableInfo(name, tdecl, [], [], 1024)
        keys_json = []
        selector_inputs = []
        prep: list = []
        kp = tdecl.prop("key")
        for k in (kp.value if kp else []):
            kname = expr_text(k.expr)
            for a in k.annotations:
                if a.name == "name" and a.args:
                    kname = a.args[0]
            target, width = self.key_target(k.expr, ctx, prep)
            if k.match_kind == "selector":
                selector_inputs.append({"type": "field", "value": target})
                continue
            mt = k.match_kind
            if mt not in _KIND_ORDER:
                raise unsupported(k, f"match kind '{mt}' on BMv2")
            # BMv2 has no `optional` key: like p4c, write it as `ternary` (P4Info keeps OPTIONAL).
            keys_json.append({"match_type": "ternary" if mt == "optional" else mt, "name": kname,
                              "target": target, "mask": None})
            info.keys.append(MatchFieldInfo(kname, width, mt, k.annotations, k.expr.type,
                                            k.expr.type.tname if isinstance(k.expr.type, NewType) else None))
        mts = [k["match_type"] for k in keys_json]
        table_mt = max(mts, key=lambda m: _KIND_ORDER[m]) if mts else "exact"
        # actions
        acts = []
        ap = tdecl.prop("actions")
        for ar in (ap.value if ap else []):
            act = self.lw.calls.table_action(ar, ctx)
            scope = "TABLE_AND_DEFAULT"
            for a in ar.annotations:
                if a.name == "tableonly":
                    scope = "TABLE_ONLY"
                elif a.name == "defaultonly":
                    scope = "DEFAULT_ONLY"
            acts.append((ar, act))
            info.actions.append((act["name"], scope, ar.annotations))
        # default action
        dp = tdecl.prop("default_action")
        default_act = None
        default_data: list = []
        if dp is not None:
            ar = dp.value
            match = [act for (r, act) in acts if r.sym.decl is ar.sym.decl]
            default_act = match[0] if match else self.lw.calls.table_action(ar, ctx)
            default_data = self.action_data(ar, ctx)
        else:
            noact = self.lw.ck.top.lookup("NoAction")
            match = [act for (r, act) in acts if noact is not None and r.sym.decl is noact.decl]
            if match:
                default_act = match[0]
            elif noact is not None:
                # p4c's implicit default: listed as `@defaultonly NoAction`
                only = [A.Annotation(tdecl.span, "defaultonly", [])]
                ar = A.ActionRef(tdecl.span, "NoAction", [], only)
                ar.sym = noact
                default_act = self.lw.calls.table_action(ar, ctx)
                acts.append((ar, default_act))
                info.actions.append((default_act["name"], "DEFAULT_ONLY", only))
        is_const_default = bool(dp is not None and dp.is_const)
        info.default_action = default_act["name"] if default_act else None
        if is_const_default:
            info.const_default_action = info.default_action
        # size and other properties
        sp = tdecl.prop("size")
        if sp is not None:
            v = const_value(sp.value)
            if isinstance(v, int) and v != 0:  # size 0 means the default, as with p4c
                info.size = v
        table = {"name": name, "id": self.lw.doc.table_id}
        si = self.lw.doc.source_info(tdecl.span, tdecl.name)
        if si:
            table["source_info"] = si
        self.lw.doc.table_id += 1
        table.update({"key": keys_json, "match_type": table_mt, "type": "simple", "max_size": info.size,
                      "with_counters": False, "support_timeout": False, "direct_meters": None})
        for p in tdecl.properties:
            if p.name == "counters":
                obj = self.table_object(p, ctx, name)
                if not isinstance(obj, ObjLoc) or obj.kind != "direct_counter":
                    raise unsupported(p, "'counters' property that is not a direct_counter instance")
                if obj.json["binding"] not in (None, name):
                    raise unsupported_by_target(p, f"direct_counter '{obj.name}' in the 'counters' property of two "
                                                   f"tables ('{obj.json['binding']}' and '{name}')")
                obj.json["binding"] = name
                obj.json["size"] = info.size
                table["with_counters"] = True
                info.direct_counter = obj.name
                self.lw.model.resource(obj.name, "direct_counter").table = name
            elif p.name == "meters":
                obj = self.table_object(p, ctx, name)
                if not isinstance(obj, ObjLoc) or obj.kind != "direct_meter":
                    raise unsupported(p, "'meters' property that is not a direct_meter instance")
                if obj.json["binding"] not in (None, name):
                    raise unsupported_by_target(p, f"direct_meter '{obj.name}' in the 'meters' property of two "
                                                   f"tables ('{obj.json['binding']}' and '{name}')")
                obj.json["binding"] = name
                obj.json["size"] = info.size
                table["direct_meters"] = obj.name
                info.direct_meter = obj.name
                self.lw.model.resource(obj.name, "direct_meter").table = name
            elif p.name == "implementation":
                obj = self.table_object(p, ctx, name)
                if not isinstance(obj, ObjLoc) or obj.kind not in ("action_profile", "action_selector"):
                    raise unsupported(p, "'implementation' that is not an action_profile/action_selector")
                prof = obj.json
                if obj.kind == "action_selector":
                    prof["selector"]["input"] = selector_inputs
                    table["type"] = "indirect_ws"
                else:
                    table["type"] = "indirect"
                table["action_profile"] = obj.name
                if prof not in ctx.pipeline["action_profiles"]:
                    ctx.pipeline["action_profiles"].append(prof)
                info.implementation = obj.name
                self.lw.model.resource(obj.name, "action_profile").tables.append(name)
            elif p.name == "support_timeout":
                v = const_value(p.value)
                table["support_timeout"] = bool(v)
                info.idle_timeout = bool(v)
            elif p.name in ("key", "actions", "default_action", "entries", "size"):
                pass
            elif p.name in ("psa_direct_counter", "psa_direct_meter", "largest_priority_wins", "priority_delta"):
                pass
        if selector_inputs and table["type"] != "indirect_ws":
            raise unsupported(tdecl, f"'selector' keys in table {tdecl.name} without an action_selector implementation")
        table["action_ids"] = [a["id"] for _, a in acts]
        table["actions"] = [a["name"] for _, a in acts]
        if hit_miss is not None:
            table["base_default_next"] = nxt
            table["next_tables"] = dict(hit_miss)
        else:
            table["base_default_next"] = nxt
            nt = {}
            for _, a in acts:
                if by_action is not None:
                    src = [r for r, x in acts if x is a][0]
                    key = src.name.lstrip(".")
                    nt[a["name"]] = by_action.get(key, by_action.get(src.sym.name, default_target))
                else:
                    nt[a["name"]] = nxt
            table["next_tables"] = nt
        if default_act is not None and table["type"] == "simple":
            table["default_entry"] = {"action_id": default_act["id"], "action_const": is_const_default,
                                      "action_data": default_data, "action_entry_const": is_const_default}
        ep = tdecl.prop("entries")
        if ep is not None:
            table["entries"] = self.const_entries(ep, info, keys_json, acts, ctx)
            info.is_const = ep.is_const
            info.has_initial_entries = True
        ctx.pipeline["tables"].append(table)
        self.lw.model.tables.append(info)
        if prep:
            return self.hidden_table(prep, ctx, name)
        return name

    def key_target(self, e: A.Expr, ctx, prep: list):
        t = strip_newtype(e.type)
        if isinstance(e, A.Call) and e.target_kind() == "builtin" and e.target.name == "isValid":
            loc = self.lw.exprs.loc(e.target.obj, ctx)
            if isinstance(loc, HeaderLoc):
                return [loc.name, "$valid$"], 1
        w = scalar_width(t)
        if w is None:
            raise unsupported(e, f"table key of type {e.type}")
        if self.lw.exprs.is_loc_expr(e):
            loc = self.lw.exprs.loc(e, ctx)
            if type(loc) is FieldLoc:
                return [loc.header, loc.field], w
        # computed key: evaluate into a temporary before the table
        tmp = self.lw.storage.temp(e.type, "key")
        name = self.lw.storage.synth_var(ctx, tmp, e.type, e.span)
        prep.append(A.Assign(e.span, name, e))
        return [tmp.header, tmp.field], w

    def action_data(self, ar: A.ActionRef, ctx) -> list:
        decl = ar.sym.decl
        cp = [p for p in decl.params if not p.direction]
        args = ar.args[len(ar.args) - len(cp):] if len(ar.args) >= len(cp) else []
        out = []
        for p, a in zip(cp, args):
            v = const_value(a.expr)
            if not isinstance(v, (int, bool)):
                raise unsupported(a, "action argument that is not a compile-time constant")
            w = scalar_width(p.resolved_type) or 1
            out.append(f"0x{int(v) & ((1 << w) - 1):x}")
        return out

    def entry_priorities(self, ents, tdecl) -> list[int]:
        """BMv2 priorities (lower wins) of a table's entries. Without explicit priorities the
        first entry wins. The non-standard `@priority(N)` annotation is BMv2's priority itself
        (smallest wins; other entries keep their position), as p4c writes it. The spec's
        `priority = N` is a P4 priority, inverted when larger ones win (`largest_priority_wins`,
        true by default)."""
        explicit = [const_value(ent.priority) if ent.priority is not None else None for ent in ents]
        explicit = [p if isinstance(p, int) else None for p in explicit]
        if all(p is None for p in explicit):
            positions = list(range(1, len(ents) + 1))
            for i, ent in enumerate(ents):
                for a in ent.annotations:
                    if a.name == "priority" and a.args and isinstance(a.args[0], int):
                        positions[i] = a.args[0]
            return positions
        lp = tdecl.prop("largest_priority_wins")
        largest_wins = True if lp is None else bool(const_value(lp.value))
        dp = tdecl.prop("priority_delta")
        delta = const_value(dp.value) if dp is not None else 1
        prios = []
        prev = None
        for p in explicit:
            if p is None:
                p = (prev + delta if largest_wins is False else prev - delta) if prev is not None else 1
            prios.append(p)
            prev = p
        if largest_wins:
            top = max(prios) + 1
            return [top - p for p in prios]
        return prios

    def const_entries(self, ep, info: TableInfo, keys_json, acts, ctx) -> list:
        out = []
        prios = self.entry_priorities(ep.value, info.decl)
        for i, ent in enumerate(ep.value):
            mk = []
            for k, kinfo in zip(ent.keys, info.keys):
                mk.append(self.entry_key(k, kinfo))
            ar = ent.action
            match = [act for (r, act) in acts if r.sym.decl is ar.sym.decl]
            if not match:
                raise unsupported(ar, f"entry action '{ar.name}' not in the table's actions")
            e = {"source_info": self.lw.doc.source_info(ent.span), "match_key": mk,
                 "action_entry": {"action_id": match[0]["id"], "action_data": self.action_data(ar, ctx)},
                 "priority": prios[i]}
            if e["source_info"] is None:
                del e["source_info"]
            out.append(e)
        return out

    def entry_key(self, k: A.Expr, kinfo: MatchFieldInfo) -> dict:
        """One key of a constant table entry as BMv2 JSON: exact, lpm (prefix length),
        ternary/optional (value and mask) or range, from a constant, `_`, a mask, a range or a
        serializable enum."""
        w = kinfo.bitwidth
        full = (1 << w) - 1
        mt = "ternary" if kinfo.match_type == "optional" else kinfo.match_type
        if isinstance(k, (A.DontCare, A.DefaultExpr)):
            if mt == "exact":
                raise unsupported(k, "'_' for an exact key")
            if mt == "lpm":
                return {"match_type": "lpm", "key": hex_bytes(0, w), "prefix_length": 0}
            if mt == "range":
                return {"match_type": "range", "start": hex_bytes(0, w), "end": hex_bytes(full, w)}
            return {"match_type": mt, "key": hex_bytes(0, w), "mask": hex_bytes(0, w)}
        if isinstance(k, A.Mask):
            v, m = const_value(k.value), const_value(k.mask)
            if not isinstance(v, int) or not isinstance(m, int):
                raise unsupported(k, "non-constant entry key")
            if mt == "lpm":
                m &= full
                plen = bin(m).count("1")
                if m != (full ^ ((1 << (w - plen)) - 1)):
                    raise unsupported(k, "lpm entry mask that is not a prefix")
                return {"match_type": "lpm", "key": hex_bytes(v & m, w), "prefix_length": plen}
            if kinfo.match_type == "optional":
                # P4Runtime's OPTIONAL is one value or a wildcard; p4c's P4Info refuses a mask too
                raise unsupported(k, "'&&&' for an optional key (it matches one value or '_')")
            if mt == "ternary":
                return {"match_type": mt, "key": hex_bytes(v & m, w), "mask": hex_bytes(m, w)}
            raise unsupported(k, f"'&&&' for a {mt} key")
        if isinstance(k, A.Range):
            lo, hi = const_value(k.lo), const_value(k.hi)
            if mt != "range" or not isinstance(lo, int) or not isinstance(hi, int):
                raise unsupported(k, f"'..' for a {mt} key")
            return {"match_type": "range", "start": hex_bytes(lo, w), "end": hex_bytes(hi, w)}
        v = const_value(k)
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            if isinstance(k, A.Member) and isinstance(strip_newtype(k.type), Enum):
                t = strip_newtype(k.type)
                v = t.values.get(k.name, t.members.index(k.name)) if t.underlying else t.members.index(k.name)
            elif isinstance(k, A.Member) and k.type is not None and str(k.type) == "error":
                v = self.lw.errors.index(k.name)
            else:
                raise unsupported(k, "non-constant entry key")
        v &= full
        if mt == "exact":
            return {"match_type": "exact", "key": hex_bytes(v, w)}
        if mt == "lpm":
            return {"match_type": "lpm", "key": hex_bytes(v, w), "prefix_length": w}
        if mt == "range":
            return {"match_type": "range", "start": hex_bytes(v, w), "end": hex_bytes(v, w)}
        return {"match_type": mt, "key": hex_bytes(v, w), "mask": hex_bytes(full, w)}
