"""P4Info generation (p4.config.v1.P4Info from the `p4runtime` package)."""
from __future__ import annotations

import zlib

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2, p4types_pb2

from .diag import Reporter
from .model import Model
from .types import BOOL, ERROR, Bits, Composite, Enum, NewType, Stack, Varbit, strip_newtype
from .bmv2 import scalar_width

PREFIX = {"action": 0x01, "table": 0x02, "value_set": 0x03, "controller_header": 0x04,
          "action_profile": 0x11, "counter": 0x12, "direct_counter": 0x13, "meter": 0x14,
          "direct_meter": 0x15, "register": 0x16, "digest": 0x17}
MATCH = {"exact": p4info_pb2.MatchField.EXACT, "lpm": p4info_pb2.MatchField.LPM,
         "ternary": p4info_pb2.MatchField.TERNARY, "range": p4info_pb2.MatchField.RANGE,
         "optional": p4info_pb2.MatchField.OPTIONAL}
SCOPE = {"TABLE_AND_DEFAULT": p4info_pb2.ActionRef.TABLE_AND_DEFAULT,
         "TABLE_ONLY": p4info_pb2.ActionRef.TABLE_ONLY, "DEFAULT_ONLY": p4info_pb2.ActionRef.DEFAULT_ONLY}
_SKIP_ANNOS = {"name", "id", "hidden", "tableonly", "defaultonly", "noWarn", "pure", "noSideEffects"}


def map_entry(container, key: str):
    """Value of a protobuf map field for key, created if missing. (Under the pure-Python
    protobuf runtime the p4runtime maps show up as repeated key/value entries.)"""
    try:
        return container[key]
    except (TypeError, AttributeError):
        for e in container:
            if e.key == key:
                return e.value
        e = container.add()
        e.key = key
        return e.value


def map_has(container, key: str) -> bool:
    try:
        return key in container
    except (TypeError, AttributeError):
        return any(e.key == key for e in container)


class Ids:
    """Stable ids: prefix byte per entity kind + 24 bits of a hash of the fully qualified name;
    @id wins; collisions are resolved by probing in name order."""

    def __init__(self, rep: Reporter):
        self.used: set[int] = set()
        self.rep = rep

    def explicit(self, kind: str, decl) -> int | None:
        for a in getattr(decl, "annotations", None) or []:
            if a.name == "id" and a.args and isinstance(a.args[0], int):
                v = a.args[0]
                v = v if v >> 24 else (PREFIX[kind] << 24) | v
                if v in self.used:
                    self.rep.error(a.span, f"duplicate @id {v:#x}")
                self.used.add(v)
                return v
        return None

    def hashed(self, kind: str, name: str) -> int:
        h = zlib.crc32(name.encode()) & 0xFFFFFF
        while True:
            v = (PREFIX[kind] << 24) | h
            if v not in self.used and h != 0:
                self.used.add(v)
                return v
            h = (h + 1) & 0xFFFFFF


def _annotations(pre, decl) -> None:
    for a in getattr(decl, "annotations", None) or []:
        if a.name in _SKIP_ANNOS:
            continue
        if a.args:
            from .ast import StrArg
            args = ", ".join('"' + x.replace('"', '\\"') + '"' if isinstance(x, StrArg) else str(x) for x in a.args)
            pre.annotations.append(f"@{a.name}({args})")
        else:
            pre.annotations.append(f"@{a.name}")


def _aliases(names: list[str]) -> dict[str, str]:
    """Shortest suffix of each name that is unique among the names of that kind."""
    out = {}
    for n in names:
        parts = n.split(".")
        for k in range(1, len(parts) + 1):
            cand = ".".join(parts[-k:])
            if sum(1 for m in names if m == cand or m.endswith("." + cand)) == 1:
                out[n] = cand
                break
        else:
            out[n] = n
    return out


class P4InfoBuilder:
    def __init__(self, model: Model, rep: Reporter, checker):
        self.m = model
        self.rep = rep
        self.ck = checker
        self.info = p4info_pb2.P4Info()
        self.ids = Ids(rep)
        self.id_of: dict[tuple[str, str], int] = {}

    def assign_ids(self, kind: str, items: list) -> None:
        # explicit ids first, then hashed ids in name order: stable across compilations
        for name, decl in items:
            if (kind, name) in self.id_of:
                continue  # one object used from several places (a top-level action in two controls)
            v = self.ids.explicit(kind, decl)
            if v is not None:
                self.id_of[(kind, name)] = v
        for name, decl in sorted(items, key=lambda x: x[0]):
            if (kind, name) not in self.id_of:
                self.id_of[(kind, name)] = self.ids.hashed(kind, name)

    def preamble(self, msg, kind: str, name: str, alias: str, decl) -> None:
        msg.preamble.id = self.id_of[(kind, name)]
        msg.preamble.name = name
        msg.preamble.alias = alias
        _annotations(msg.preamble, decl)

    def build(self) -> p4info_pb2.P4Info:
        m = self.m
        info = self.info
        info.pkg_info.arch = "v1model"
        hidden = lambda d: any(a.name == "hidden" for a in (getattr(d, "annotations", None) or []))
        m.tables = [t for t in m.tables if not hidden(t.decl)]
        m.actions = [a for a in m.actions if not hidden(a.decl)]
        live = {a.name for a in m.actions}
        for t in m.tables:
            t.actions = [x for x in t.actions if x[0] in live]
        res = {k: [r for r in m.resources if r.kind == k] for k in
               ("counter", "direct_counter", "meter", "direct_meter", "register", "action_profile")}
        self.assign_ids("action", [(a.name, a.decl) for a in m.actions])
        self.assign_ids("table", [(t.name, t.decl) for t in m.tables])
        for k, lst in res.items():
            self.assign_ids(k, [(r.name, r.decl) for r in lst])
        self.assign_ids("digest", [(d.name, None) for d in m.digests])
        self.assign_ids("value_set", [(v.name, v.decl) for v in m.value_sets])
        ctrl = self.controller_headers()
        self.assign_ids("controller_header", [(n, d) for n, d, _ in ctrl])

        table_ids = {t.name: self.id_of[("table", t.name)] for t in m.tables}
        aliases = _aliases([a.name for a in m.actions])
        for a in sorted(m.actions, key=lambda a: a.name):
            pa = info.actions.add()
            self.preamble(pa, "action", a.name, aliases[a.name], a.decl)
            for i, (pname, w, pdecl) in enumerate(a.params, 1):
                p = pa.params.add()
                p.id = i
                p.name = pname
                p.bitwidth = w
                self.type_name(p, pdecl.resolved_type)
        aliases = _aliases([t.name for t in m.tables])
        for t in sorted(m.tables, key=lambda t: t.name):
            pt = info.tables.add()
            self.preamble(pt, "table", t.name, aliases[t.name], t.decl)
            for i, k in enumerate(t.keys, 1):
                mf = pt.match_fields.add()
                mf.id = i
                for a in k.annotations:
                    if a.name == "id" and a.args and isinstance(a.args[0], int):
                        mf.id = a.args[0]
                mf.name = k.name
                mf.bitwidth = k.bitwidth
                mf.match_type = MATCH[k.match_type]
                if k.type_name:
                    mf.type_name.name = k.type_name
            for aname, scope, annos in t.actions:
                ar = pt.action_refs.add()
                ar.id = self.id_of[("action", aname)]
                ar.scope = SCOPE[scope]
                for an in annos:
                    if an.name not in _SKIP_ANNOS:
                        ar.annotations.append(f"@{an.name}")
            if t.const_default_action:
                pt.const_default_action_id = self.id_of[("action", t.const_default_action)]
            if t.implementation:
                pt.implementation_id = self.id_of[("action_profile", t.implementation)]
            if t.direct_counter:
                pt.direct_resource_ids.append(self.id_of[("direct_counter", t.direct_counter)])
            if t.direct_meter:
                pt.direct_resource_ids.append(self.id_of[("direct_meter", t.direct_meter)])
            pt.size = t.size
            if t.idle_timeout:
                pt.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL
            if t.is_const:
                pt.is_const_table = True
            if t.has_initial_entries:
                pt.has_initial_entries = True
        ralias = _aliases([r.name for r in m.resources])
        for r in sorted(res["action_profile"], key=lambda r: r.name):
            ap = info.action_profiles.add()
            self.preamble(ap, "action_profile", r.name, ralias[r.name], r.decl)
            ap.table_ids.extend(table_ids[t] for t in r.tables if t in table_ids)
            ap.with_selector = r.with_selector
            ap.size = r.size
        units = {"BOTH": p4info_pb2.CounterSpec.BOTH, "BYTES": p4info_pb2.CounterSpec.BYTES,
                 "PACKETS": p4info_pb2.CounterSpec.PACKETS}
        munits = {"BYTES": p4info_pb2.MeterSpec.BYTES, "PACKETS": p4info_pb2.MeterSpec.PACKETS}
        for r in sorted(res["counter"], key=lambda r: r.name):
            c = info.counters.add()
            self.preamble(c, "counter", r.name, ralias[r.name], r.decl)
            c.spec.unit = units[r.unit]
            c.size = r.size
        for r in sorted(res["direct_counter"], key=lambda r: r.name):
            if r.table is None:
                continue
            c = info.direct_counters.add()
            self.preamble(c, "direct_counter", r.name, ralias[r.name], r.decl)
            c.spec.unit = units[r.unit]
            c.direct_table_id = table_ids[r.table]
        for r in sorted(res["meter"], key=lambda r: r.name):
            c = info.meters.add()
            self.preamble(c, "meter", r.name, ralias[r.name], r.decl)
            c.spec.unit = munits[r.unit]
            c.size = r.size
        for r in sorted(res["direct_meter"], key=lambda r: r.name):
            if r.table is None:
                continue
            c = info.direct_meters.add()
            self.preamble(c, "direct_meter", r.name, ralias[r.name], r.decl)
            c.spec.unit = munits[r.unit]
            c.direct_table_id = table_ids[r.table]
        for r in sorted(res["register"], key=lambda r: r.name):
            c = info.registers.add()
            self.preamble(c, "register", r.name, ralias[r.name], r.decl)
            self.type_spec(c.type_spec, getattr(r, "elem_type", Bits(r.bitwidth)))
            c.size = r.size
        for d in sorted(m.digests, key=lambda d: d.name):
            c = info.digests.add()
            self.preamble(c, "digest", d.name, d.name, None)
            self.type_spec(c.type_spec, d.type)
        for name, decl, fields in sorted(ctrl, key=lambda x: x[0]):
            c = info.controller_packet_metadata.add()
            self.preamble(c, "controller_header", name, name, None)
            _annotations(c.preamble, decl)
            for i, (fname, w, fdecl_annos) in enumerate(fields, 1):
                md = c.metadata.add()
                md.id = i
                for a in fdecl_annos:
                    if a.name == "id" and a.args and isinstance(a.args[0], int):
                        md.id = a.args[0]
                md.name = fname
                md.bitwidth = w
        for v in sorted(m.value_sets, key=lambda v: v.name):
            c = info.value_sets.add()
            self.preamble(c, "value_set", v.name, _aliases([x.name for x in m.value_sets])[v.name], v.decl)
            for i, (fname, w) in enumerate(v.fields, 1):
                mf = c.match.add()
                mf.id = i
                mf.name = fname or v.name.split(".")[-1]
                mf.bitwidth = w
                mf.match_type = p4info_pb2.MatchField.EXACT
            c.size = v.size
        self.new_types()
        return info

    def controller_headers(self) -> list:
        out = []
        H = self.m.H
        seen = set()

        def walk(t):
            if not isinstance(t, Composite):
                return
            for _, ft in t.fields:
                ft = strip_newtype(ft)
                if isinstance(ft, Composite) and ft.is_header:
                    for a in ft.annotations:
                        if a.name == "controller_header" and a.args and ft.tname not in seen:
                            seen.add(ft.tname)
                            fields = [(f, scalar_width(x) or 0, ft.field_annotations.get(f, [])) for f, x in ft.fields]
                            out.append((str(a.args[0]), ft.decl, fields))
                elif isinstance(ft, Composite):
                    walk(ft)
        walk(H)
        # also any header type declared with @controller_header even if not in H
        for d in self.ck.program.decls:
            t = getattr(d, "name", None)
            for a in getattr(d, "annotations", []) or []:
                if a.name == "controller_header" and a.args and t not in seen:
                    sym = self.ck.top.lookup(t)
                    ht = sym.type if sym else None
                    if isinstance(ht, Composite):
                        seen.add(t)
                        fields = [(f, scalar_width(x) or 0, ht.field_annotations.get(f, [])) for f, x in ht.fields]
                        out.append((str(a.args[0]), d, fields))
        return out

    # ------------------------------------------------------------ type_info
    def type_name(self, msg, t) -> None:
        if isinstance(t, NewType):
            msg.type_name.name = t.tname
            self.add_new_type(t)

    def add_new_type(self, t: NewType) -> None:
        ti = self.info.type_info
        if map_has(ti.new_types, t.tname):
            return
        nt = map_entry(ti.new_types, t.tname)
        base = strip_newtype(t.base)
        if isinstance(base, Bits) and base.signed:
            nt.original_type.bitstring.int.bitwidth = base.width
        else:
            nt.original_type.bitstring.bit.bitwidth = scalar_width(base) or 0

    def new_types(self) -> None:
        # every serializable enum and every `type` of the program is described in type_info
        for en in self.ck.enums:
            if en.underlying is not None:
                self.type_spec(p4types_pb2.P4DataTypeSpec(), en)
        for name, t in self.ck.new_types.items():
            self.add_new_type(t)
        for name, t in self.ck.new_types.items():
            sym = self.ck.top.lookup(name)
            decl = sym.decl if sym else None
            annos = getattr(decl, "annotations", []) or []
            for a in annos:
                if a.name == "p4runtime_translation" and a.args:
                    nt = map_entry(self.info.type_info.new_types, name)
                    nt.translated_type.uri = str(a.args[0])
                    w = a.args[1] if len(a.args) > 1 else None
                    if isinstance(w, int):
                        nt.translated_type.sdn_bitwidth = w
                    else:
                        nt.translated_type.sdn_string.SetInParent()

    def type_spec(self, spec, t) -> None:
        if isinstance(t, NewType):
            spec.new_type.name = t.tname
            self.add_new_type(t)
            return
        t = strip_newtype(t)
        if isinstance(t, Bits):
            if t.signed:
                spec.bitstring.int.bitwidth = t.width
            else:
                spec.bitstring.bit.bitwidth = t.width
        elif isinstance(t, Varbit):
            spec.bitstring.varbit.max_bitwidth = t.width
        elif t == BOOL:
            spec.bool.SetInParent()
        elif t == ERROR:
            spec.error.SetInParent()
            ti = self.info.type_info
            if not ti.error.members:
                ti.error.members.extend(self.ck.errors)
        elif isinstance(t, Enum):
            if t.underlying is not None:
                spec.serializable_enum.name = t.tname
                se = map_entry(self.info.type_info.serializable_enums, t.tname)
                if not se.members:
                    se.underlying_type.bitwidth = t.underlying.width
                    for mname in t.members:
                        mm = se.members.add()
                        mm.name = mname
                        v = t.values.get(mname, 0)
                        mm.value = v.to_bytes(max(1, (t.underlying.width + 7) // 8), "big")
            else:
                spec.enum.name = t.tname
                e = map_entry(self.info.type_info.enums, t.tname)
                if not e.members:
                    for mname in t.members:
                        e.members.add().name = mname
        elif isinstance(t, Composite):
            ti = self.info.type_info
            if t.is_struct:
                spec.struct.name = t.tname
                if not map_has(ti.structs, t.tname):
                    s = map_entry(ti.structs, t.tname)
                    for f, ft in t.fields:
                        mem = s.members.add()
                        mem.name = f
                        self.type_spec(mem.type_spec, ft)
            elif t.is_header:
                spec.header.name = t.tname
                if not map_has(ti.headers, t.tname):
                    h = map_entry(ti.headers, t.tname)
                    for f, ft in t.fields:
                        mem = h.members.add()
                        mem.name = f
                        sft = strip_newtype(ft)
                        if isinstance(sft, Bits) and sft.signed:
                            mem.type_spec.int.bitwidth = sft.width
                        else:
                            mem.type_spec.bit.bitwidth = scalar_width(sft) or 0
            else:
                spec.header_union.name = t.tname
        elif isinstance(t, Stack):
            spec.header_stack.header.name = t.elem.tname
            spec.header_stack.size = t.size


def build_p4info(model: Model, rep: Reporter, checker) -> p4info_pb2.P4Info:
    return P4InfoBuilder(model, rep, checker).build()


def _is_map(fd) -> bool:
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry


def _type_info_text(ti, indent: int) -> str:
    pad = " " * indent
    out = []
    for fd, value in ti.ListFields():
        if _is_map(fd):
            for entry in value:
                out.append(f"{pad}{fd.name} {{\n" + text_format.MessageToString(entry, indent=indent + 2) + f"{pad}}}\n")
        elif fd.label == fd.LABEL_REPEATED:
            for v in value:
                out.append(f"{pad}{fd.name} {{\n" + text_format.MessageToString(v, indent=indent + 2) + f"{pad}}}\n")
        else:
            out.append(f"{pad}{fd.name} {{\n" + text_format.MessageToString(value, indent=indent + 2) + f"{pad}}}\n")
    return "".join(out)


def _type_info_dict(ti) -> dict:
    out = {}
    for fd, value in ti.ListFields():
        key = json_format._FieldJsonName(fd) if hasattr(json_format, "_FieldJsonName") else fd.json_name
        if _is_map(fd):
            out[key] = {e.key: json_format.MessageToDict(e.value) for e in value}
        else:
            out[key] = json_format.MessageToDict(value)
    return out


def serialize(info: p4info_pb2.P4Info, fmt: str) -> bytes:
    """P4Info in text, binary or JSON form. type_info's map fields are printed entry by
    entry: under the pure-Python protobuf runtime the generated p4runtime classes expose
    them as repeated entries, which the stock printers reject."""
    if fmt == "binary":
        return info.SerializeToString()
    rest = p4info_pb2.P4Info()
    rest.CopyFrom(info)
    rest.ClearField("type_info")
    has_ti = info.HasField("type_info")
    if fmt == "json":
        import json
        d = json_format.MessageToDict(rest)
        if has_ti:
            d["typeInfo"] = _type_info_dict(info.type_info)
        return (json.dumps(d, indent=2) + "\n").encode()
    text = text_format.MessageToString(rest)
    if has_ti:
        text += "type_info {\n" + _type_info_text(info.type_info, 2) + "}\n"
    return text.encode()
