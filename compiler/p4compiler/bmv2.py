"""The BMv2 JSON document being built, with id allocation and naming helpers."""
from __future__ import annotations

from .diag import Span
from .types import Bits, Composite, Enum, Type, Varbit, BOOL, ERROR, strip_newtype

JSON_VERSION = [2, 23]


def hexstr(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


def hex_bytes(v: int, width: int) -> str:
    """Byte-padded hex string for a value of `width` bits (transition/entry keys)."""
    nbytes = max(1, (width + 7) // 8)
    v &= (1 << (nbytes * 8)) - 1
    return "0x" + format(v, f"0{nbytes * 2}x")


def const(v: int) -> dict:
    return {"type": "hexstr", "value": hexstr(v)}


def expr(op: str, left, right, **extra) -> dict:
    d = {"op": op, "left": left, "right": right}
    d.update(extra)
    return {"type": "expression", "value": d}


def bmv2_param(p):
    """A primitive or parser-op parameter in the shape BMv2's loader requires.

    BMv2 reads an `expression` parameter's value as a typed expression of its own,
    so the tree is wrapped twice (as p4c-bm2-ss writes it); inside a tree an action
    parameter is a `local`, never `runtime_data` (which BMv2 accepts only at the top
    of a parameter). Parser `primitive` ops carry a whole primitive: its parameters
    get the same treatment."""
    if not isinstance(p, dict):
        return p
    kind = p.get("type")
    if kind == "expression" and isinstance(p.get("value"), dict) and "op" in p["value"]:
        return {"type": "expression", "value": _locals(p)}
    if kind == "parameters_vector":
        return {"type": kind, "value": [bmv2_param(v) for v in p["value"]]}
    if "op" in p and "parameters" in p:
        return {**p, "parameters": [bmv2_param(v) for v in p["parameters"]]}
    return p


def _locals(node):
    """Copy of an expression tree with action parameters as `local` leaves."""
    if isinstance(node, list):
        return [_locals(n) for n in node]
    if not isinstance(node, dict):
        return node
    if node.get("type") == "runtime_data":
        return {"type": "local", "value": node["value"]}
    return {k: _locals(v) for k, v in node.items()}


def scalar_width(t: Type) -> int | None:
    t = strip_newtype(t)
    if isinstance(t, Bits):
        return t.width
    if t == BOOL:
        return 1
    if t == ERROR:
        return 32
    if isinstance(t, Enum):
        return t.underlying.width if t.underlying else 32
    return None


class Document:
    def __init__(self, program_name: str, sources=None):
        self.program_name = program_name
        self.sources = sources
        self.header_types: list[dict] = []
        self.header_type_names: dict[str, dict] = {}
        self.headers: list[dict] = []
        self.header_by_name: dict[str, dict] = {}
        self.header_stacks: list[dict] = []
        self.header_union_types: list[dict] = []
        self.header_unions: list[dict] = []
        self.header_union_stacks: list[dict] = []
        self.field_lists: list[dict] = []
        self.errors: list = []
        self.enums: list[dict] = []
        self.parsers: list[dict] = []
        self.parse_vsets: list[dict] = []
        self.deparsers: list[dict] = []
        self.meter_arrays: list[dict] = []
        self.counter_arrays: list[dict] = []
        self.register_arrays: list[dict] = []
        self.calculations: list[dict] = []
        self.learn_lists: list[dict] = []
        self.actions: list[dict] = []
        self.pipelines: list[dict] = []
        self.checksums: list[dict] = []
        self.extern_instances: list[dict] = []
        self.field_aliases: list = []
        self.scalars_fields: list = []
        self.scalar_names: set[str] = set()
        self.names_used: dict[str, int] = {}
        self.parse_state_id = 0
        self.table_id = 0
        self.cond_id = 0
        self.action_profile_id = 0
        # scalars header first, as p4c does
        self.scalars_type = {"name": "scalars_0", "id": 0, "fields": self.scalars_fields}
        self.header_types.append(self.scalars_type)
        self.header_type_names["scalars_0"] = self.scalars_type
        self.add_header("scalars", "scalars_0", metadata=True)

    # ---------------------------------------------------------------- names
    def fresh(self, base: str) -> str:
        """A name unique in the document (p4c style: x, x_0, x_1...)."""
        n = self.names_used.get(base)
        if n is None:
            self.names_used[base] = 0
            return base
        while True:
            cand = f"{base}_{n}"
            n += 1
            if cand not in self.names_used:
                self.names_used[base] = n
                self.names_used[cand] = 0
                return cand

    def reserve(self, name: str) -> None:
        self.names_used.setdefault(name, 0)

    # -------------------------------------------------------------- headers
    def header_type(self, t: Composite, name: str | None = None) -> str:
        name = name or t.tname
        if name in self.header_type_names:
            return name
        fields = []
        varbit = None
        for _, ft, fname in t.layout():
            st = strip_newtype(ft)
            if isinstance(st, Varbit):
                fields.append([fname, "*"])
                varbit = st.width
            else:
                w = scalar_width(st) or 0
                fields.append([fname, w, bool(isinstance(st, Bits) and st.signed)])
        ht = {"name": name, "id": len(self.header_types), "fields": fields}
        if varbit is not None:
            fixed = sum(f[1] for f in fields if f[1] != "*")
            ht["max_length"] = (fixed + varbit + 7) // 8
        self.header_types.append(ht)
        self.header_type_names[name] = ht
        return name

    def add_header(self, name: str, type_name: str, metadata: bool) -> dict:
        h = {"name": name, "id": len(self.headers), "header_type": type_name,
             "metadata": metadata, "pi_omit": True}
        self.headers.append(h)
        self.header_by_name[name] = h
        return h

    def add_scalar(self, base: str, width: int, signed: bool = False) -> str:
        name = base
        i = 0
        while name in self.scalar_names:
            name = f"{base}_{i}"
            i += 1
        self.scalar_names.add(name)
        self.scalars_fields.append([name, width, signed])
        return name

    # -------------------------------------------------------------- helpers
    def source_info(self, span: Span | None, fragment: str = "") -> dict | None:
        if span is None or not span.line:
            return None
        if not fragment and self.sources is not None:
            text = self.sources.line(span.file, span.line) or ""
            fragment = text.strip().rstrip(";{").strip()
        return {"filename": span.file, "line": span.line, "column": span.col, "source_fragment": fragment}

    def finish(self) -> dict:
        """The finished JSON document, its sections in the order of BMv2's JSON_format.md;
        metadata header types are padded to whole bytes and internal keys dropped."""
        # pad metadata header types (scalars) to whole bytes, as BMv2 expects
        for ht in self.header_types:
            if ht["name"] == "scalars_0" or ht.get("_metadata"):
                total = sum(f[1] for f in ht["fields"] if f[1] != "*")
                if total % 8:
                    ht["fields"].append(["_padding" if ht["name"] != "scalars_0" else "_padding_0", 8 - total % 8, False])
            ht.pop("_metadata", None)
        return {
            "header_types": self.header_types,
            "headers": self.headers,
            "header_stacks": self.header_stacks,
            "header_union_types": self.header_union_types,
            "header_unions": self.header_unions,
            "header_union_stacks": self.header_union_stacks,
            "field_lists": self.field_lists,
            "errors": self.errors,
            "enums": self.enums,
            "parsers": self.parsers,
            "parse_vsets": self.parse_vsets,
            "deparsers": self.deparsers,
            "meter_arrays": self.meter_arrays,
            "counter_arrays": self.counter_arrays,
            "register_arrays": self.register_arrays,
            "calculations": self.calculations,
            "learn_lists": self.learn_lists,
            "actions": self.actions,
            "pipelines": self.pipelines,
            "checksums": self.checksums,
            "force_arith": [],
            "extern_instances": self.extern_instances,
            "field_aliases": self.field_aliases,
            "program": self.program_name,
            "__meta__": {"version": JSON_VERSION, "compiler": "p4compile (p4compiler)"},
        }
