"""Lowering: where values live (BMv2 header instances, `scalars` fields) and how names resolve to them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast as A
from .bmv2 import const, scalar_width
from .context import Ctx
from .lower_expr import Unsupported
from .scope import Symbol
from .storage import FieldLoc, HeaderLoc, Loc, StackLoc, StructLoc, UnionLoc, ValueLoc, leaves
from .types import Bits, Composite, Stack, Tuple, Type, Varbit, strip_newtype

if TYPE_CHECKING:
    from .lower import Lowerer


class StorageLowerer:
    """Storage of a program's values and the resolution of names to it (through `Ctx.env`)."""
    def __init__(self, lw: "Lowerer"):
        self.lw = lw    # the shared context: document, model, checker results and the other parts

    # ------------------------------------------------------------ plumbing
    def lookup(self, ctx: Ctx, sym) -> Loc | None:
        v = self.lookup_decl(ctx, sym.decl if sym.decl is not None else sym)
        if v is not None:
            return v
        if sym.kind == "const":
            v = sym.value
            if isinstance(v, (int, bool)):
                return ValueLoc(const(int(v)), sym.type)
        if sym.kind == "instance" and isinstance(sym.decl, A.Instantiation) and sym.decl is not self.lw.ck.main \
                and any(sym.decl is d for d in self.lw.ck.program.decls):
            # top-level extern instances are created on first use, with their plain name
            g = self.lw.global_ctx
            if sym.decl not in g.env:
                self.lw.externs.instantiate(sym.decl, g)
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

    def name_of(self, decl, prefix: str) -> str:
        """Fully qualified control-plane name, honouring @name (a leading '.' is absolute)."""
        local = decl.name
        for a in decl.annotations:
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
            bits = header_bits(t)
            if bits % 8:
                # BMv2 stores headers as whole bytes; p4c's BMv2 back end refuses the rest too
                raise Unsupported(getattr(t.decl, "span", None), f"header '{t.tname}' has fields totaling "
                                  f"{bits} bits (BMv2 supports only headers of whole bytes)", by_target=True)
            tn = self.lw.doc.header_type(t)
            if name in self.lw.doc.header_by_name:
                name = self.lw.doc.fresh(name)
            # A header keeps its validity bit wherever it is declared: never BMv2 metadata.
            self.lw.doc.add_header(name, tn, False)
            return HeaderLoc(name, t)
        if isinstance(t, Composite) and t.kind == "header_union":
            if t.tname not in [u["name"] for u in self.lw.doc.header_union_types]:
                self.lw.doc.header_union_types.append({
                    "name": t.tname, "id": len(self.lw.doc.header_union_types),
                    "headers": [[f, self.lw.doc.header_type(ft)] for f, ft in t.fields]})
            u = UnionLoc(name, t)
            ids = []
            for f, ft in t.fields:
                h = self.alloc(ft, f"{name}.{f}", metadata)
                u.members[f] = h
                ids.append(self.lw.doc.header_by_name[h.name]["id"])
            self.lw.doc.header_unions.append({"name": name, "id": len(self.lw.doc.header_unions),
                                           "union_type": t.tname, "header_ids": ids})
            return u
        if isinstance(t, Stack):
            s = StackLoc(name, t)
            for i in range(t.size):
                el = self.alloc(t.elem, f"{name}[{i}]", metadata)
                el.stack, el.index = s, i
                s.elems.append(el)
            if t.elem.kind == "header_union":
                self.lw.doc.header_union_stacks.append({
                    "name": name, "id": len(self.lw.doc.header_union_stacks), "union_type": t.elem.tname,
                    "header_union_ids": [self.union_id(e.name) for e in s.elems]})
            else:
                self.lw.doc.header_stacks.append({
                    "name": name, "id": len(self.lw.doc.header_stacks), "header_type": t.elem.tname,
                    "size": t.size, "header_ids": [self.lw.doc.header_by_name[e.name]["id"] for e in s.elems]})
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
        fname = self.lw.doc.add_scalar(scalar_name or name, w, isinstance(t, Bits) and t.signed)
        return FieldLoc("scalars", fname, t0)

    def synth_var(self, ctx: Ctx, loc: Loc, t: Type, span) -> A.Name:
        """A Name expression bound to a compiler temporary (for synthesized statements)."""
        vd = A.VarDecl(span, "__tmp", [], None)
        n = A.Name(span, "__tmp")
        n.sym = Symbol("var", "__tmp", vd, t)
        n.type = t
        ctx.env[vd] = loc
        return n

    def union_id(self, name: str) -> int:
        for u in self.lw.doc.header_unions:
            if u["name"] == name:
                return u["id"]
        return -1

    def temp(self, t: Type, hint: str = "tmp") -> FieldLoc:
        w = scalar_width(t) or 32
        st = strip_newtype(t)
        name = self.lw.doc.add_scalar(hint, w, isinstance(st, Bits) and st.signed)
        return FieldLoc("scalars", name, t)

    def alloc_standard_metadata(self, t: Type) -> StructLoc:
        if not isinstance(t, Composite):
            raise Unsupported(None, "standard_metadata parameter type")
        tn = self.lw.doc.header_type(t, "standard_metadata")
        self.lw.doc.header_type_names[tn]["_metadata"] = True
        self.lw.doc.add_header("standard_metadata", tn, True)
        sl = StructLoc(t)
        for f, ft in t.fields:
            sl.fields[f] = FieldLoc("standard_metadata", f, ft)
            for a in t.field_annotations.get(f, []):
                if a.name == "alias" and a.args:
                    self.lw.doc.field_aliases.append([a.args[0], ["standard_metadata", f]])
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
        if key in self.lw.field_list_ids:
            return self.lw.field_list_ids[key]
        fid = len(self.lw.doc.field_lists) + 1
        self.lw.doc.field_lists.append({"id": fid, "name": name, "elements": elements})
        self.lw.field_list_ids[key] = fid
        return fid

    def alloc_local(self, d: A.VarDecl, ctx: Ctx) -> Loc:
        t = d.type_ref.resolved
        base = f"{ctx.prefix}.{d.name}" if ctx.prefix else d.name
        st = strip_newtype(t)
        if isinstance(st, (Composite, Stack, Tuple)):
            loc = self.alloc(t, self.lw.doc.fresh(base), True if not (isinstance(st, Composite) and st.is_header) else False, base)
        elif isinstance(st, Varbit):
            # BMv2 keeps varbit values only in headers: a metadata header of its own, as p4c does
            tn = self.lw.doc.header_type(Composite("header", f"$varbit{st.width}", [("field", st)]))
            name = self.lw.doc.fresh(base)
            self.lw.doc.add_header(name, tn, True)
            loc = FieldLoc(name, "field", t)
        else:
            loc = self.temp(t, base)
        ctx.env[d] = loc
        return loc


def header_bits(t: Composite) -> int:
    """A header's size in bits, a varbit field counted at its maximum width (as p4c does)."""
    total = 0
    for _, ft, _ in t.layout():
        st = strip_newtype(ft)
        total += st.width if isinstance(st, Varbit) else (scalar_width(st) or 0)
    return total
