"""Lowering of extern instances and calls (v1model externs, packet methods, header methods)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .call_args import order_args
from .bmv2 import const, expr, hex_bytes, hexstr, scalar_width
from .check_types import TypeName
from .consteval import const_value
from .lower_expr import unsupported, unsupported_by_target
from .model import DigestInfo, ResourceInfo
from .storage import FieldLoc, HeaderLoc, ObjLoc, StructLoc, ValueLoc, leaves
from .types import Composite, ObjectT, Tuple, strip_newtype

if TYPE_CHECKING:
    from .lower import Lowerer

HASH_ALGOS = {"crc32", "crc32_custom", "crc16", "crc16_custom", "random", "identity", "csum16", "xor16"}


class ExternLowerer:
    """Extern instances (counters, meters, registers, action profiles, user externs) and calls
    of extern methods, extern functions, packet and header methods."""
    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts

    # ------------------------------------------------------------ instances
    def ctor_arg(self, d: A.Instantiation, i: int):
        if i >= len(d.args):
            return None
        return d.args[i].expr

    def enum_member(self, e) -> str | None:
        if isinstance(e, A.Member) and isinstance(e.expr.type, TypeName):
            return e.name
        return None

    def instantiate(self, d: A.Instantiation, ctx) -> None:
        """Create the BMv2 object of an instantiation (counter, meter, register, action
        profile/selector, digest, hash, user extern) or, for a parser/control, the instance with
        its constructor arguments bound."""
        t = d.resolved_type
        if not isinstance(t, ObjectT):
            raise unsupported(d, "this instantiation")
        name = self.lw.storage.name_of(d, ctx.prefix)
        kind = t.tname
        decl = t.decl
        if isinstance(decl, (A.ControlDecl, A.ParserDecl)):
            ctor_env = {}
            for p, a in zip(decl.ctor_params, order_args(decl.ctor_params, d.args)):
                obj = self.lw.exprs.loc(a, ctx) if isinstance(a, A.Name) and a.sym is not None and a.sym.kind == "instance" else None
                if isinstance(obj, ObjLoc):  # an extern instance passed on: the callee uses the caller's object
                    ctor_env[p] = obj
                    continue
                v = const_value(a) if a is not None else None
                if not isinstance(v, (int, bool)):
                    raise unsupported(a or d, f"constructor argument '{p.name}' that is not a compile-time constant")
                ctor_env[p] = ValueLoc(const(int(v)), p.resolved_type)
            ctx.env[d] = ObjLoc("control" if isinstance(decl, A.ControlDecl) else "parser", name, decl,
                                ctor_env=ctor_env)
            return
        size = const_value(self.ctor_arg(d, 0)) if d.args else None
        si = self.lw.doc.source_info(d.span, d.name)
        if kind == "counter":
            unit = {"packets": "PACKETS", "bytes": "BYTES"}.get(self.enum_member(self.ctor_arg(d, 1)), "BOTH")
            j = {"name": name, "id": len(self.lw.doc.counter_arrays), "source_info": si, "size": size or 0, "is_direct": False}
            self.lw.doc.counter_arrays.append(j)
            self.lw.model.resources.append(ResourceInfo("counter", name, d, size or 0, unit))
        elif kind == "direct_counter":
            unit = {"packets": "PACKETS", "bytes": "BYTES"}.get(self.enum_member(self.ctor_arg(d, 0)), "BOTH")
            j = {"name": name, "id": len(self.lw.doc.counter_arrays), "source_info": si, "size": 0, "is_direct": True,
                 "binding": None}
            self.lw.doc.counter_arrays.append(j)
            self.lw.model.resources.append(ResourceInfo("direct_counter", name, d, 0, unit))
        elif kind in ("meter", "direct_meter"):
            direct = kind == "direct_meter"
            mt = self.enum_member(self.ctor_arg(d, 0 if direct else 1))
            unit = "PACKETS" if mt == "packets" else "BYTES"
            j = {"name": name, "id": len(self.lw.doc.meter_arrays), "source_info": si, "is_direct": direct,
                 "rate_count": 2, "type": "packets" if mt == "packets" else "bytes"}
            if direct:
                j["size"] = 0
                j["binding"] = None
                j["result_target"] = None
            else:
                j["size"] = size or 0
            self.lw.doc.meter_arrays.append(j)
            self.lw.model.resources.append(ResourceInfo(kind, name, d, size or 0 if not direct else 0, unit))
        elif kind == "register":
            et = t.type_args.get("T")
            w = scalar_width(et) if et is not None else None
            if w is None:
                raise unsupported(d, f"register of {et} (only bit<W>/int<W> cells)")
            j = {"name": name, "id": len(self.lw.doc.register_arrays), "source_info": si, "size": size or 0, "bitwidth": w}
            self.lw.doc.register_arrays.append(j)
            self.lw.model.resources.append(ResourceInfo("register", name, d, size or 0, bitwidth=w, type_name=None,
                                                        elem_type=et))
        elif kind in ("action_profile", "action_selector"):
            sel = kind == "action_selector"
            if sel:
                algo = self.enum_member(self.ctor_arg(d, 0)) or "crc16"
                size = const_value(self.ctor_arg(d, 1))
            j = {"name": name, "id": self.lw.doc.action_profile_id, "source_info": si, "max_size": size or 0}
            if sel:
                j["selector"] = {"algo": algo, "input": []}
            self.lw.doc.action_profile_id += 1
            self.lw.model.resources.append(ResourceInfo("action_profile", name, d, size or 0, with_selector=sel))
        elif kind == "Checksum16":
            raise unsupported(d, "the deprecated Checksum16 extern (use update_checksum/verify_checksum)")
        elif kind in ("packet_in", "packet_out"):
            raise unsupported(d, f"instantiating {kind}")
        else:
            j = {"name": name, "id": len(self.lw.doc.extern_instances), "type": kind, "attribute_values": []}
            for i, a in enumerate(d.args):
                v = const_value(a.expr)
                if isinstance(v, int):
                    j["attribute_values"].append({"name": f"arg{i}", "type": "hexstr", "value": hexstr(v)})
            self.lw.doc.extern_instances.append(j)
        if "source_info" in j and j["source_info"] is None:
            del j["source_info"]
        ctx.env[d] = ObjLoc(kind if kind in ("counter", "direct_counter", "meter", "direct_meter", "register",
                                "action_profile", "action_selector") else "extern", name, decl, json=j)

    # ------------------------------------------------------------ calls
    def call_stmt(self, call: A.Call, ctx, body, result=None):
        tgt = call.target
        if tgt is None:
            raise unsupported(call, "this call")
        kind = tgt.kind
        if kind == "action":
            self.lw.calls.inline_action(call, tgt.decl, ctx, body)
            return
        if kind == "function":
            self.lw.calls.inline_function(call, ctx, result)
            return
        if kind == "builtin":
            return self.builtin_stmt(call, tgt.name, tgt.obj, ctx, body)
        if kind == "extern_function":
            return self.extern_function(call, tgt.proto, tgt.binding, ctx, body, result)
        if kind == "extern_method":
            return self.extern_method(call, tgt.proto, tgt.obj, tgt.decl, ctx, body, result)
        raise unsupported(call, f"{kind} call in an action")

    def args(self, call: A.Call, proto) -> list:
        return order_args(proto.params, call.args)

    def builtin_stmt(self, call, name, obj, ctx, body):
        if name in ("setValid", "setInvalid"):
            loc = self.lw.exprs.loc(obj, ctx)
            if not isinstance(loc, HeaderLoc):
                raise unsupported(call, f"{name} on this value")
            self.lw.stmts.prim(body, "add_header" if name == "setValid" else "remove_header", [loc.json()], call.span)
            return
        if name in ("push_front", "pop_front"):
            loc = self.lw.exprs.loc(obj, ctx)
            n = const_value(call.args[0].expr)
            self.lw.stmts.prim(body, "push" if name == "push_front" else "pop", [loc.json(), const(n)], call.span)
            return
        if name == "isValid":
            return
        hook = ctx.packet_call
        if hook is not None:
            return hook(call, name, obj, body)
        raise unsupported(call, f"'{name}' here")

    def field_elems(self, e: A.Expr, ctx, body, what: str) -> list:
        """Field references for a list of values (field lists, digests, hash inputs);
        computed values go through temporaries assigned first."""
        items: list
        if isinstance(e, A.ListExpr):
            items = e.items
        elif isinstance(e, A.StructInit):
            items = list(e.values)
        else:
            loc = self.lw.exprs.loc(e, ctx) if self.lw.exprs.is_loc_expr(e) else None
            if isinstance(loc, StructLoc):
                out = []
                for leaf in leaves(loc):
                    if isinstance(leaf, FieldLoc):
                        out.append(leaf.json())
                    elif isinstance(leaf, HeaderLoc):
                        out.extend(f.json() for f in leaf.leaf_fields())
                return out
            if isinstance(loc, HeaderLoc):
                return [f.json() for f in loc.leaf_fields()]
            items = [e]
        out = []
        for it in items:
            if isinstance(strip_newtype(it.type), (Composite, Tuple)) or isinstance(it, (A.ListExpr, A.StructInit)):
                out.extend(self.field_elems(it, ctx, body, what))
                continue
            if self.lw.exprs.is_loc_expr(it):
                loc = self.lw.exprs.loc(it, ctx)
                if isinstance(loc, FieldLoc):
                    out.append(loc.json())
                    continue
            tmp = self.lw.storage.temp(it.type, "tmp")
            self.lw.stmts.emit_assign(tmp, self.lw.exprs.val(it, ctx), body, it.span)
            out.append(tmp.json())
        return out

    def calc_inputs(self, e: A.Expr, ctx, body) -> list:
        """Inputs of a calculation (hash/checksum): fields, headers' fields, constants with bitwidth."""
        items = e.items if isinstance(e, A.ListExpr) else list(e.values) if isinstance(e, A.StructInit) else [e]
        out = []
        for it in items:
            st = strip_newtype(it.type)
            if isinstance(it, (A.ListExpr, A.StructInit)):
                out.extend(self.calc_inputs(it, ctx, body))
                continue
            if isinstance(st, (Composite, Tuple)):
                loc = self.lw.exprs.loc(it, ctx)
                for leaf in leaves(loc):
                    if isinstance(leaf, HeaderLoc):
                        out.extend(f.json() for f in leaf.leaf_fields())
                    elif isinstance(leaf, FieldLoc):
                        out.append(leaf.json())
                continue
            v = const_value(it)
            if isinstance(v, (int, bool)):
                # BMv2 reads `bitwidth` bits from the hex string's bytes: "0x1" for 16 bits
                # would read past its one byte, so write every byte ("0x0001")
                w = scalar_width(it.type) or 8
                out.append({"type": "hexstr", "value": hex_bytes(int(v), w), "bitwidth": w})
                continue
            if self.lw.exprs.is_loc_expr(it):
                loc = self.lw.exprs.loc(it, ctx)
                if isinstance(loc, FieldLoc):
                    out.append(loc.json())
                    continue
            if body is None:
                raise unsupported(it, "computed value in a checksum input (use a field)")
            tmp = self.lw.storage.temp(it.type, "tmp")
            self.lw.stmts.emit_assign(tmp, self.lw.exprs.val(it, ctx), body, it.span)
            out.append(tmp.json())
        return out

    def add_calculation(self, algo: str, inputs: list, span) -> str:
        name = self.lw.doc.fresh("calc")
        c = {"name": name, "id": len(self.lw.doc.calculations), "algo": algo, "input": inputs}
        si = self.lw.doc.source_info(span)
        if si:
            c["source_info"] = si
        self.lw.doc.calculations.append(c)
        return name

    def dest(self, e: A.Expr, ctx) -> FieldLoc:
        loc = self.lw.exprs.loc(e, ctx)
        if type(loc) is not FieldLoc:
            raise unsupported(e, "result that is not a field or variable")
        return loc

    def extern_function(self, call, proto, binding, ctx, body, result):
        """Primitives for a call of a v1model extern function (mark_to_drop, clone, resubmit,
        recirculate, digest, hash, random, truncate, assert/assume, log_msg, verify, ...)."""
        n = proto.name
        a = self.args(call, proto)
        sp = call.span
        if n == "mark_to_drop":
            self.lw.stmts.prim(body, "mark_to_drop", [{"type": "header", "value": "standard_metadata"}], sp)
        elif n in ("clone", "clone3", "clone_preserving_field_list"):
            ct = self.enum_member(a[0])
            op = "clone_ingress_pkt_to_egress" if ct == "I2E" else "clone_egress_pkt_to_egress"
            if n == "clone":
                # BMv2 looks the list up even when nothing is preserved: one shared empty list, as p4c does.
                fl = self.lw.storage.add_field_list("clone without fields", [], self.lw.doc.fresh("fl"))
            elif n == "clone3":
                fl = self.lw.storage.add_field_list(("clone3", id(call)), self.field_elems(a[2], ctx, body, "clone3"), self.lw.doc.fresh("fl"))
            elif n == "clone_preserving_field_list":
                fl = self.field_list_for_index(a[2])
            self.lw.stmts.prim(body, op, [self.lw.exprs.val(a[1], ctx), const(fl)], sp)
        elif n in ("resubmit", "recirculate", "resubmit_preserving_field_list", "recirculate_preserving_field_list"):
            if n.endswith("field_list"):
                fl = self.field_list_for_index(a[0])
            else:
                fl = self.lw.storage.add_field_list((n, id(call)), self.field_elems(a[0], ctx, body, n), self.lw.doc.fresh("fl"))
            self.lw.stmts.prim(body, n.split("_")[0], [const(fl)], sp)
        elif n == "digest":
            data = a[1]
            elems = self.field_elems(data, ctx, body, "digest")
            dt = strip_newtype(data.type)
            dname = dt.tname if isinstance(dt, Composite) else self.lw.doc.fresh("digest")
            lid = None
            for ll in self.lw.doc.learn_lists:
                if ll["name"] == dname and ll["elements"] == elems:
                    lid = ll["id"]
            if lid is None:
                if any(ll["name"] == dname for ll in self.lw.doc.learn_lists):
                    dname = self.lw.doc.fresh(dname)
                lid = len(self.lw.doc.learn_lists) + 1
                self.lw.doc.learn_lists.append({"id": lid, "name": dname, "source_info": self.lw.doc.source_info(sp), "elements": elems})
                if self.lw.doc.learn_lists[-1]["source_info"] is None:
                    del self.lw.doc.learn_lists[-1]["source_info"]
                self.lw.model.digests.append(DigestInfo(dname, dt))
            self.lw.stmts.prim(body, "generate_digest", [self.lw.exprs.val(a[0], ctx), const(lid)], sp)
        elif n == "hash":
            algo = self.enum_member(a[1])
            if algo not in HASH_ALGOS:
                raise unsupported(a[1], "hash algorithm that is not a compile-time HashAlgorithm constant")
            calc = self.add_calculation(algo, self.calc_inputs(a[3], ctx, body), sp)
            self.lw.stmts.prim(body, "modify_field_with_hash_based_offset",
                      [self.dest(a[0], ctx).json(), self.lw.exprs.val(a[2], ctx), {"type": "calculation", "value": calc},
                       self.lw.exprs.val(a[4], ctx)], sp)
        elif n == "random":
            self.lw.stmts.prim(body, "modify_field_rng_uniform", [self.dest(a[0], ctx).json(), self.lw.exprs.val(a[1], ctx), self.lw.exprs.val(a[2], ctx)], sp)
        elif n == "truncate":
            self.lw.stmts.prim(body, "truncate", [self.lw.exprs.val(a[0], ctx)], sp)
        elif n in ("assert", "assume"):
            self.lw.stmts.prim(body, n, [expr("b2d", None, self.lw.exprs.cond(a[0], ctx))], sp)  # BMv2 takes the check as data
        elif n == "log_msg":
            msg = a[0].value if isinstance(a[0], A.StringLiteral) else ""
            vals = []
            if len(a) > 1:
                d = a[1]
                items = d.items if isinstance(d, A.ListExpr) else [d]
                vals = [self.lw.exprs.val(x, ctx) for x in items]
            self.lw.stmts.prim(body, "log_msg", [{"type": "string", "value": msg}, {"type": "parameters_vector", "value": vals}], sp)
        elif n == "verify":
            if not body.in_parser:
                raise unsupported(call, "verify() outside a parser")
            body.emit("verify", [self.lw.exprs.cond(a[0], ctx), self.lw.exprs.val(a[1], ctx)], sp, self.lw.doc)
        elif n in ("verify_checksum", "update_checksum", "verify_checksum_with_payload", "update_checksum_with_payload"):
            raise unsupported(call, f"{n} outside the checksum controls of V1Switch")
        elif n == "static_assert":
            pass
        else:
            # at its declaration, as p4c-bm2-ss ('unknown extern function'): every call would fail alike
            decl = call.target.decl if isinstance(call.target.decl, A.ExternFunctionDecl) else call
            raise unsupported_by_target(decl, f"extern function '{n}' (BMv2 runs only the externs of v1model)")

    def field_list_for_index(self, e) -> int:
        idx = const_value(e)
        if not isinstance(idx, int):
            raise unsupported(e, "field list index that is not a compile-time constant")
        if idx in self.lw.field_list_ids:
            return self.lw.field_list_ids[idx]
        return self.lw.storage.add_field_list(idx, [], f"field_list{idx}")

    def extern_method(self, call, proto, obj_expr, ext_decl, ctx, body, result):
        """Primitives for a method call on an extern instance (counter.count,
        meter.execute_meter, register.read/write, direct counters and meters, user externs)."""
        obj = self.lw.exprs.loc(obj_expr, ctx)
        n = proto.name
        a = self.args(call, proto)
        sp = call.span
        if not isinstance(obj, ObjLoc):
            raise unsupported(call, f"method '{n}' on this object")
        k = obj.kind
        if k == "counter" and n == "count":
            self.lw.stmts.prim(body, "count", [{"type": "counter_array", "value": obj.name}, self.lw.exprs.val(a[0], ctx)], sp)
        elif k == "direct_counter" and n == "count":
            pass
        elif k == "meter" and n == "execute_meter":
            self.lw.stmts.prim(body, "execute_meter", [{"type": "meter_array", "value": obj.name}, self.lw.exprs.val(a[0], ctx),
                                              self.dest(a[1], ctx).json()], sp)
        elif k == "direct_meter" and n == "read":
            d = self.dest(a[0], ctx)
            rt = obj.json.get("result_target")
            if rt is not None and rt != [d.header, d.field]:
                raise unsupported(call, "direct_meter read into two different destinations")
            obj.json["result_target"] = [d.header, d.field]
        elif k == "register" and n == "read":
            self.lw.stmts.prim(body, "register_read", [self.dest(a[0], ctx).json(), {"type": "register_array", "value": obj.name},
                                              self.lw.exprs.val(a[1], ctx)], sp)
        elif k == "register" and n == "write":
            self.lw.stmts.prim(body, "register_write", [{"type": "register_array", "value": obj.name}, self.lw.exprs.val(a[0], ctx),
                                               self.lw.exprs.val(a[1], ctx)], sp)
        elif k == "extern":
            params = [{"type": "extern", "value": obj.name}]
            for x in a:
                if x is None:
                    continue
                params.append(self.lw.exprs.val(x, ctx) if scalar_width(x.type) is not None else self.lw.exprs.loc(x, ctx).json())
            self.lw.stmts.prim(body, f"_{ext_decl.name}_{n}", params, sp)
        else:
            raise unsupported(call, f"method '{n}' of {k}")
