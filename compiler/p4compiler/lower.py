"""Lowering: the checked AST of a v1model program -> BMv2 JSON document + control-plane model.

The v1model package `V1Switch(p, vr, ig, eg, ck, dep)` is elaborated: its six blocks
share one set of storage (headers struct, user metadata, standard_metadata).
Controls become pipelines of tables and conditionals; straight-line code in apply
blocks becomes hidden tables with a constant default action, as p4c does.
"""
from __future__ import annotations

from . import ast as A
from .bmv2 import Document
from .call_args import order_args
from .check import Checker
from .context import Ctx
from .diag import Reporter
from .lower_calls import CallLowerer
from .lower_control import ControlLowerer
from .lower_expr import ExprLowerer, Unsupported
from .lower_externs import ExternLowerer
from .lower_parser import ParserLowerer
from .lower_stmt import StmtLowerer
from .lower_storage import StorageLowerer
from .model import Model
from .storage import ObjLoc
from .types import Composite, ObjectT


class Lowerer:
    """The shared context of one lowering, every field declared here: the checker's results, the
    document and model being built, state shared between phases, and one collaborator per
    concern. The collaborators keep a reference to this object (`lw`) and reach each other
    through it (`self.lw.exprs.val(...)`)."""
    def __init__(self, checker: Checker, rep: Reporter, program_name: str, sources=None):
        self.ck = checker
        self.rep = rep
        self.doc = Document(program_name, sources)
        self.model = Model()
        self.errors = list(checker.errors)
        self.action_cache: dict = {}
        self.applied_tables: dict = {}  # name -> (edges of its first apply, entry node)
        self.field_list_ids: dict = {}
        self.global_ctx = Ctx("", None)     # where top-level extern instances are bound
        # the collaborators, one per concern
        self.storage = StorageLowerer(self)     # where values live; names to locations
        self.exprs = ExprLowerer(self)          # expressions to BMv2 expressions
        self.stmts = StmtLowerer(self)          # statements to primitives
        self.calls = CallLowerer(self)          # table actions, inlined action/function calls
        self.controls = ControlLowerer(self)    # apply blocks to tables and conditionals
        self.parsers = ParserLowerer(self)      # parser, checksum controls, deparser
        self.externs = ExternLowerer(self)      # extern instances and calls

    def report(self, u: Unsupported) -> None:
        self.rep.error(u.span, u.message)

    def check_direct_meters(self) -> None:
        """A BMv2 direct meter is a table's (`meters = m`) and writes its colour into the one
        field its `read` names: one without the other cannot be expressed, and p4c-bm2-ss
        refuses both (else the read would vanish or the colour go nowhere)."""
        for m in self.doc.meter_arrays:
            if not m["is_direct"] or (m["binding"] is None) == (m["result_target"] is None):
                continue
            res = self.model.resource(m["name"], "direct_meter")
            span = getattr(res.decl, "span", None) if res is not None else None
            if m["binding"] is None:
                self.rep.error(span, f"direct_meter '{m['name']}' is read but no table has it in its "
                                     f"'meters' property")
            else:
                # at the table, as p4c-bm2-ss: the table is what lacks the read
                table = next((t for t in self.model.tables if t.name == m["binding"]), None)
                span = getattr(table.decl, "span", span) if table is not None else span
                self.rep.error(span, f"table '{m['binding']}' has direct_meter '{m['name']}' but none of its "
                                     f"actions reads it (BMv2 needs the field its read() writes)")

    # ------------------------------------------------------------ program
    def run(self) -> None:
        """Lower the program: elaborate `V1Switch(p, vr, ig, eg, ck, dep)`, allocate the shared
        headers/metadata/standard_metadata, then the parser, the checksum controls, both
        pipelines and the deparser."""
        main = self.ck.main
        if main is None:
            return
        mt = main.resolved_type
        if not isinstance(mt, ObjectT) or mt.tname != "V1Switch":
            name = mt.tname if isinstance(mt, ObjectT) else "?"
            self.rep.error(main.span, f"unsupported: package {name} (only v1model's V1Switch)")
            return
        if len(main.args) != 6:
            return
        blocks = []
        pkg = mt.decl
        ordered = order_args(pkg.params, main.args) if isinstance(pkg, A.PackageTypeDecl) else [a.expr for a in main.args]
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
            sm = self.storage.alloc_standard_metadata(p.params[3].resolved_type)
            hdr = self.storage.alloc(H, "", False)
            meta = self.storage.alloc(M, "userMetadata", True, "userMetadata")
        except Unsupported as u:
            self.rep.error(u.span or main.span, u.message)
            return
        self.storage.collect_field_lists(M, meta)
        self.model.H, self.model.M = H, M
        packet = ObjLoc("packet", "packet", None)
        steps = [
            (lambda: self.parsers.lower_parser_block(p, [packet, hdr, meta, sm])),
            (lambda: self.parsers.lower_checksum_block(vr, [hdr, meta], verify=True)),
            (lambda: self.controls.lower_pipeline("ingress", ig, [hdr, meta, sm])),
            (lambda: self.controls.lower_pipeline("egress", eg, [hdr, meta, sm])),
            (lambda: self.parsers.lower_checksum_block(ck, [hdr, meta], verify=False)),
            (lambda: self.parsers.lower_deparser(dep, [packet, hdr])),
        ]
        for step in steps:
            try:
                step()
            except Unsupported as u:
                self.report(u)
        self.check_direct_meters()
        # direct resources never attached to a table have no meaning for BMv2
        self.doc.counter_arrays[:] = [c for c in self.doc.counter_arrays if not (c["is_direct"] and c.get("binding") is None)]
        self.doc.meter_arrays[:] = [m for m in self.doc.meter_arrays if not (m["is_direct"] and m.get("binding") is None)]
        for i, c in enumerate(self.doc.counter_arrays):
            c["id"] = i
        for i, m in enumerate(self.doc.meter_arrays):
            m["id"] = i


def lower(checker: Checker, rep: Reporter, program_name: str, sources=None) -> Lowerer:
    lw = Lowerer(checker, rep, program_name, sources)
    lw.run()
    return lw
