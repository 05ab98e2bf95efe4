"""P4Info generation (p4.config.v1.P4Info from the `p4runtime` package)."""
from __future__ import annotations


from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2, p4types_pb2

from . import ast as A
from .diag import Reporter
from .model import Model
from .types import BOOL, ERROR, Bits, Composite, Enum, NewType, Stack, Varbit, strip_newtype
from .bmv2 import scalar_width
from .lexer import parse_int

PREFIX = {"action": 0x01, "table": 0x02, "value_set": 0x03, "controller_header": 0x04,
          "action_profile": 0x11, "counter": 0x12, "direct_counter": 0x13, "meter": 0x14,
          "direct_meter": 0x15, "register": 0x16, "digest": 0x17}
MATCH = {"exact": p4info_pb2.MatchField.EXACT, "lpm": p4info_pb2.MatchField.LPM,
         "ternary": p4info_pb2.MatchField.TERNARY, "range": p4info_pb2.MatchField.RANGE,
         "optional": p4info_pb2.MatchField.OPTIONAL}
SCOPE = {"TABLE_AND_DEFAULT": p4info_pb2.ActionRef.TABLE_AND_DEFAULT,
         "TABLE_ONLY": p4info_pb2.ActionRef.TABLE_ONLY, "DEFAULT_ONLY": p4info_pb2.ActionRef.DEFAULT_ONLY}


class Ids:
    """Stable ids as p4c gives them: prefix byte per entity kind + 24 bits of a hash of the
    fully qualified name; @id wins; collisions are resolved by probing in name order."""

    def __init__(self, rep: Reporter):
        self.used: set[int] = set()
        self.rep = rep

    def explicit(self, kind: str, decl) -> int | None:
        for a in annotations_of(decl):
            if a.name == "id" and a.args and isinstance(a.args[0], int):
                v = a.args[0]
                v = v if v >> 24 else (PREFIX[kind] << 24) | v
                if v in self.used:
                    self.rep.error(a.span, f"duplicate @id {v:#x}")
                self.used.add(v)
                return v
        return None

    def hashed(self, kind: str, name: str) -> int:
        """p4c's scheme: the low 24 bits of the name's Jenkins one-at-a-time hash, probing
        upwards past ids already taken (callers go through names in sorted order)."""
        h = jenkins_one_at_a_time(name.encode())
        while True:
            v = (PREFIX[kind] << 24) | (h & 0xFFFFFF)
            if v not in self.used:
                self.used.add(v)
                return v
            h = (h + 1) & 0xFFFFFFFF


def jenkins_one_at_a_time(key: bytes) -> int:
    """Bob Jenkins' one-at-a-time hash (32 bits), which p4c uses for P4Info ids."""
    h = 0
    for b in key:
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


# Annotations p4c parses into expressions (so they print with ", " between items); every
# other one keeps its tokens, which p4c prints separated by single spaces.
_PARSED_ANNOS = {"name", "deprecated", "noWarn", "length", "pkginfo", "synchronous", "field_list", "match",
                 "controller_header", "id", "brief", "description", "max_group_size",
                 "p4runtime_translation", "metadata", "alias", "priority"}
# Represented elsewhere in P4Info (the preamble's id and name, the doc message).
_NOT_ANNOTATIONS = {"name", "id", "brief", "description"}


def annotation_text(a) -> str:
    """An unstructured annotation as p4c writes it into P4Info."""
    if not a.body:
        return f"@{a.name}"
    words = [f'"{text[1:-1]}"' if kind == "str" else text for kind, text in a.body]
    if a.name in _PARSED_ANNOS:
        items, cur = [], []
        for (kind, _), w in zip(a.body, words):
            if kind == ",":
                items.append(" ".join(cur))
                cur = []
            else:
                cur.append(w)
        items.append(" ".join(cur))
        return f"@{a.name}({', '.join(items)})"
    return f"@{a.name}({' '.join(words)})"


def annotations_of(decl) -> list:
    """The annotations of a declaration (none for objects the compiler made: decl None)."""
    return decl.annotations if isinstance(decl, A.Decl) else []


def add_annotations(msg, annos, skip=()) -> None:
    """Annotations (and @brief/@description documentation) on a P4Info message that has
    `annotations`, `structured_annotations` and maybe `doc`, as p4c writes them."""
    for a in annos or []:
        if a.structured:
            _structured(msg.structured_annotations.add(), a)
        elif a.name in ("brief", "description") and hasattr(msg, "doc"):
            if a.args and isinstance(a.args[0], str):
                setattr(msg.doc, a.name, str(a.args[0]))
        elif a.name not in _NOT_ANNOTATIONS and a.name not in skip:
            msg.annotations.append(annotation_text(a))


def _structured(sa, a) -> None:
    """@a[expr, ...] or @a[k=v, ...] as a P4Info StructuredAnnotation."""
    sa.name = a.name
    items, cur = [], []
    for kind, text in a.body:
        if kind == ",":
            items.append(cur)
            cur = []
        else:
            cur.append((kind, text))
    if cur:
        items.append(cur)
    if items and all(len(it) >= 3 and it[1][0] == "=" for it in items):
        for it in items:
            kv = sa.kv_pair_list.kv_pairs.add()
            kv.key = it[0][1]
            _structured_value(kv.value, it[2:])
    else:
        sa.expression_list.SetInParent()
        for it in items:
            _structured_value(sa.expression_list.expressions.add(), it)


def _structured_value(e, toks) -> None:
    kind, text = toks[-1]
    neg = len(toks) == 2 and toks[0][0] == "-"
    if kind == "str":
        e.string_value = text[1:-1]
    elif kind in ("true", "false"):
        e.bool_value = kind == "true"
    elif kind == "num":
        v = parse_int(text).value
        e.int64_value = -v if neg else v


# An action selector's sizing, which P4Info carries in fields of its own.
_SELECTOR_ANNOS = ("max_group_size", "selector_size_semantics", "max_member_weight")


def _selector_semantics(ap, annos) -> None:
    """@max_group_size, @selector_size_semantics("sum_of_weights"|"sum_of_members") and
    @max_member_weight (the latter for sum_of_members only), as p4c reads them."""
    by = {a.name: a.args[0] for a in annos if a.name in _SELECTOR_ANNOS and a.args}
    if isinstance(by.get("max_group_size"), int):
        ap.max_group_size = by["max_group_size"]
    semantics = str(by.get("selector_size_semantics", "")).upper()
    if semantics == "SUM_OF_WEIGHTS":
        ap.sum_of_weights.SetInParent()
    elif semantics == "SUM_OF_MEMBERS":
        ap.sum_of_members.SetInParent()
        if isinstance(by.get("max_member_weight"), int):
            ap.sum_of_members.max_member_weight = by["max_member_weight"]


def _key_values(a) -> list:
    """(key, value token) pairs of an annotation written `@a(k = v, ...)`."""
    items, cur = [], []
    for tok in a.body:
        if tok[0] == ",":
            items.append(cur)
            cur = []
        else:
            cur.append(tok)
    items.append(cur)
    return [(it[0][1], it[-1]) for it in items if len(it) >= 3 and it[1][0] == "="]


def field_ids(items) -> list[int]:
    """Ids of action parameters, match fields or header fields, as p4c allocates them: @id
    where given, else the item's position (1-based), skipping ids already taken."""
    explicit = [_explicit_id(a) for a in items]
    taken = {i for i in explicit if i is not None}
    out = []
    index = 1
    for e in explicit:
        if e is not None:
            out.append(e)
            index += 1  # p4c moves on past each field that has its own id...
        else:
            while index in taken:  # ...and past ids already given, but not past the one it gives
                index += 1
            out.append(index)
            taken.add(index)
    return out


def _explicit_id(annos) -> int | None:
    for a in annos or []:
        if a.name == "id" and a.args and isinstance(a.args[0], int):
            return a.args[0]
    return None


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

    def assign_ids(self, kind: str, items: list, hash_names: dict | None = None) -> None:
        """Explicit ids first, then hashed ids in order of the hashed names, as p4c does.
        p4c hashes a controller header's type name, not its controller name (`hash_names`)."""
        for name, decl in items:
            if (kind, name) in self.id_of:
                continue  # one object used from several places (a top-level action in two controls)
            v = self.ids.explicit(kind, decl)
            if v is not None:
                self.id_of[(kind, name)] = v
        hashed = {(hash_names or {}).get(name, name): name for name, _ in items}
        for key in sorted(hashed):
            name = hashed[key]
            if (kind, name) not in self.id_of:
                self.id_of[(kind, name)] = self.ids.hashed(kind, key)

    def preamble(self, msg, kind: str, name: str, alias: str, decl, skip=()) -> None:
        msg.preamble.id = self.id_of[(kind, name)]
        msg.preamble.name = name
        msg.preamble.alias = alias
        add_annotations(msg.preamble, annotations_of(decl), skip)

    def build(self) -> p4info_pb2.P4Info:
        """Build the P4Info message from the control-plane model: tables, actions, profiles,
        counters, meters, registers, digests, value sets, controller headers, type_info and
        pkg_info, with p4c's ids and names."""
        m = self.m
        info = self.info
        info.pkg_info.arch = "v1model"
        self.pkg_info(self.ck.main)
        hidden = lambda d: any(a.name == "hidden" for a in annotations_of(d))
        m.tables = [t for t in m.tables if not hidden(t.decl)]
        m.actions = [a for a in m.actions if not hidden(a.decl)]
        live = {a.name for a in m.actions}
        for t in m.tables:
            t.actions = [x for x in t.actions if x[0] in live]
        shown = {t.name for t in m.tables}
        # a direct resource of a @hidden table is hidden with it
        res = {k: [r for r in m.resources if r.kind == k and (not k.startswith("direct") or r.table in shown)]
               for k in ("counter", "direct_counter", "meter", "direct_meter", "register", "action_profile")}
        self.assign_ids("action", [(a.name, a.decl) for a in m.actions])
        self.assign_ids("table", [(t.name, t.decl) for t in m.tables])
        for k, lst in res.items():
            self.assign_ids(k, [(r.name, r.decl) for r in lst])
        self.assign_ids("digest", [(d.name, None) for d in m.digests])
        self.assign_ids("value_set", [(v.name, v.decl) for v in m.value_sets])
        ctrl = self.controller_headers()
        self.assign_ids("controller_header", [(n, d) for n, d, _ in ctrl], {n: d.name for n, d, _ in ctrl})

        table_ids = {t.name: self.id_of[("table", t.name)] for t in m.tables}
        aliases = _aliases([a.name for a in m.actions])
        for a in sorted(m.actions, key=lambda a: a.name):
            pa = info.actions.add()
            self.preamble(pa, "action", a.name, aliases[a.name], a.decl)
            for pid, (pname, w, pdecl) in zip(field_ids([pd.annotations for _, _, pd in a.params]), a.params):
                p = pa.params.add()
                p.id = pid
                p.name = pname
                add_annotations(p, pdecl.annotations)
                self.set_width_and_type(p, pdecl.resolved_type, w)
        aliases = _aliases([t.name for t in m.tables])
        for t in sorted(m.tables, key=lambda t: t.name):
            pt = info.tables.add()
            self.preamble(pt, "table", t.name, aliases[t.name], t.decl)
            for kid, k in zip(field_ids([k.annotations for k in t.keys]), t.keys):
                mf = pt.match_fields.add()
                mf.id = kid
                mf.name = k.name
                add_annotations(mf, k.annotations, skip=("match",))
                mf.bitwidth = k.bitwidth
                if isinstance(k.type, Enum) and k.type.underlying is not None:
                    self.type_spec(p4types_pb2.P4DataTypeSpec(), k.type)  # listed in type_info, as p4c does
                if k.type_name:
                    mf.type_name.name = k.type_name
                    if isinstance(k.type, NewType):
                        self.add_new_type(k.type)
                    sdn = self.translation(k.type_name)
                    if sdn == "string":
                        mf.ClearField("bitwidth")
                    elif isinstance(sdn, int):
                        mf.bitwidth = sdn
                mf.match_type = MATCH[k.match_type]
            for aname, scope, annos in t.actions:
                ar = pt.action_refs.add()
                ar.id = self.id_of[("action", aname)]
                ar.scope = SCOPE[scope]
                add_annotations(ar, annos)
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
            self.preamble(ap, "action_profile", r.name, ralias[r.name], r.decl, skip=_SELECTOR_ANNOS)
            ap.table_ids.extend(table_ids[t] for t in r.tables if t in table_ids)
            ap.with_selector = r.with_selector
            ap.size = r.size
            if r.with_selector:
                _selector_semantics(ap, annotations_of(r.decl))
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
            self.type_spec(c.type_spec, r.elem_type if r.elem_type is not None else Bits(r.bitwidth))
            c.size = r.size
        for d in sorted(m.digests, key=lambda d: d.name):
            c = info.digests.add()
            self.preamble(c, "digest", d.name, d.name, None)
            self.type_spec(c.type_spec, d.type)
        for name, decl, fields in sorted(ctrl, key=lambda x: x[0]):
            c = info.controller_packet_metadata.add()
            self.preamble(c, "controller_header", name, name, decl)
            for fid, (fname, ftype, fdecl_annos) in zip(field_ids([f[2] for f in fields]), fields):
                md = c.metadata.add()
                md.id = fid
                md.name = fname
                add_annotations(md, fdecl_annos)
                self.set_width_and_type(md, ftype, scalar_width(strip_newtype(ftype)) or 0)
        for v in sorted(m.value_sets, key=lambda v: v.name):
            c = info.value_sets.add()
            self.preamble(c, "value_set", v.name, _aliases([x.name for x in m.value_sets])[v.name], v.decl)
            for i, (fname, w) in enumerate(v.fields, 1):
                mf = c.match.add()
                mf.id = i
                if fname:  # a struct element's field; p4c leaves a plain bit<W> element unnamed
                    mf.name = fname
                mf.bitwidth = w
                mf.match_type = p4info_pb2.MatchField.EXACT
            c.size = v.size
        return info

    def pkg_info(self, main) -> None:
        """pkg_info from the annotations of the `main` instantiation: @pkginfo(k = "v", ...),
        @platform_property(k = N, ...), the others as annotations, @brief/@description as doc."""
        if main is None:
            return
        pkg = self.info.pkg_info
        for a in main.annotations:
            if a.name == "pkginfo":
                for key, (kind, text) in _key_values(a):
                    if key in ("name", "version", "organization", "contact", "url", "arch"):
                        if kind != "str":
                            self.rep.error(a.span, f"value for '{key}' key in @pkginfo annotation is not a string")
                        setattr(pkg, key, text[1:-1])  # other keys: ignored, as p4c does (with a warning)
            elif a.name == "platform_property":
                props = pkg.platform_properties
                for key, (kind, text) in _key_values(a):
                    if key in {f.name for f in props.DESCRIPTOR.fields}:
                        if kind != "num":
                            self.rep.error(a.span, f"value for '{key}' key in @platform_property annotation is not an integer")
                            continue
                        setattr(props, key, parse_int(text).value)
        add_annotations(pkg, main.annotations, skip=("pkginfo", "platform_property"))

    def controller_headers(self) -> list:
        """The @controller_header headers (packet-in/packet-out metadata) with their fields, as
        P4Info ControllerPacketMetadata."""
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
                            fields = [(f, x, ft.field_annotations.get(f, [])) for f, x in ft.fields]
                            out.append((str(a.args[0]), ft.decl, fields))
                elif isinstance(ft, Composite):
                    walk(ft)
        walk(H)
        # also any header type declared with @controller_header even if not in H
        for d in self.ck.program.decls:
            t = d.name if isinstance(d, A.Decl) else None
            for a in annotations_of(d):
                if a.name == "controller_header" and a.args and t not in seen:
                    sym = self.ck.top.lookup(t)
                    ht = sym.type if sym else None
                    if isinstance(ht, Composite):
                        seen.add(t)
                        fields = [(f, x, ht.field_annotations.get(f, [])) for f, x in ht.fields]
                        out.append((str(a.args[0]), d, fields))
        return out

    # ------------------------------------------------------------ type_info
    def set_width_and_type(self, msg, t, width: int) -> None:
        """bitwidth and type_name of a parameter, match field or header field: a `type` keeps its
        name, and one the controller sees as a string (@p4runtime_translation(.., string)) has no width."""
        if isinstance(t, Enum) and t.underlying is not None:
            self.type_spec(p4types_pb2.P4DataTypeSpec(), t)  # listed in type_info, as p4c does
        if isinstance(t, NewType):
            msg.type_name.name = t.tname
            self.add_new_type(t)
            sdn = self.translation(t.tname)
            if sdn == "string":
                return
            if isinstance(sdn, int):
                width = sdn
        msg.bitwidth = width

    def translation(self, type_name: str):
        """The controller's view of a `type` with @p4runtime_translation: "string", a width, or None."""
        sym = self.ck.top.lookup(type_name)
        for a in annotations_of(sym.decl if sym else None):
            if a.name == "p4runtime_translation" and a.args:
                return a.args[1] if len(a.args) > 1 and isinstance(a.args[1], int) else "string"
        return None

    def add_new_type(self, t: NewType) -> None:
        """type_info's entry for a `type` P4Info refers to (only those are listed, as with p4c):
        its controller view from @p4runtime_translation, else its original type; its other
        annotations."""
        ti = self.info.type_info
        if t.tname in ti.new_types:
            return
        nt = ti.new_types[t.tname]
        sym = self.ck.top.lookup(t.tname)
        annos = annotations_of(sym.decl if sym else None)
        add_annotations(nt, annos, skip=("p4runtime_translation",))
        translation = [a for a in annos if a.name == "p4runtime_translation" and a.args]
        if translation:
            a = translation[0]
            nt.translated_type.uri = str(a.args[0])
            w = a.args[1] if len(a.args) > 1 else None
            if isinstance(w, int):
                nt.translated_type.sdn_bitwidth = w
            else:
                nt.translated_type.sdn_string.SetInParent()
            return
        base = strip_newtype(t.base)
        if isinstance(base, Bits) and base.signed:
            nt.original_type.bitstring.int.bitwidth = base.width
        else:
            nt.original_type.bitstring.bit.bitwidth = scalar_width(base) or 0

    def type_spec(self, spec, t) -> None:
        """Fill a P4DataTypeSpec for type t, adding named types (structs, headers, enums, new
        types) to type_info."""
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
                se = self.info.type_info.serializable_enums[t.tname]
                if not se.members:
                    se.underlying_type.bitwidth = t.underlying.width
                    for mname in t.members:
                        mm = se.members.add()
                        mm.name = mname
                        v = t.values.get(mname, 0)
                        mm.value = v.to_bytes(max(1, (t.underlying.width + 7) // 8), "big")
            else:
                spec.enum.name = t.tname
                e = self.info.type_info.enums[t.tname]
                if not e.members:
                    for mname in t.members:
                        e.members.add().name = mname
        elif isinstance(t, Composite):
            ti = self.info.type_info
            if t.is_struct:
                spec.struct.name = t.tname
                if t.tname not in ti.structs:
                    s = ti.structs[t.tname]
                    for f, ft in t.fields:
                        mem = s.members.add()
                        mem.name = f
                        self.type_spec(mem.type_spec, ft)
            elif t.is_header:
                spec.header.name = t.tname
                if t.tname not in ti.headers:
                    h = ti.headers[t.tname]
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


def serialize(info: p4info_pb2.P4Info, fmt: str) -> bytes:
    """P4Info in text, binary or JSON form."""
    if fmt == "binary":
        return info.SerializeToString()
    if fmt == "json":
        return (json_format.MessageToJson(info, indent=2) + "\n").encode()
    return text_format.MessageToString(info).encode()
