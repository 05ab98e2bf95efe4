"""The compilation pipeline: preprocess -> lex -> parse -> check -> lower -> emit.

Each phase collects its diagnostics and stops the pipeline with a CompileError
when it found any.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from . import ast as A
from .check import check
from .direct_calls import instantiate_direct_calls
from .table_results import hoist_table_results
from .diag import CompileError, Diagnostic, Reporter, SourceCache, Span
from .lexer import lex
from .lower import lower
from .p4info import build_p4info
from .parser import parse
from .specialize import MAX_ROUNDS, Specializer
from .stack_index import concretize_stack_indexes
from .unroll import unroll_loops
from .preprocess import Preprocessor, program_text


@dataclass
class Options:
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    dump_tokens: bool = False
    dump_ast: bool = False
    dump_ir: bool = False
    arch: str = "v1model"   # another architecture (tna) is type-checked only: no BMv2 back end
    keep_preprocessed: bool = False   # --pp: keep the preprocessed program's text


@dataclass
class Result:
    json: dict | None
    p4info: object
    sources: SourceCache
    dumps: list[str] = field(default_factory=list)
    warnings: list = field(default_factory=list)


class Compilation:
    def __init__(self, path: str, opts: Options | None = None, text: str | None = None):
        self.path = path
        self.opts = opts or Options()
        self.text = text
        self.sources = SourceCache()
        self.dumps: list[str] = []
        self.reporters: list[Reporter] = []
        self.preprocessed: str | None = None

    def phase(self) -> Reporter:
        rep = Reporter()
        self.reporters.append(rep)
        return rep

    @property
    def warnings(self) -> list:
        """Warnings of every phase so far, in order."""
        return [w for r in self.reporters for w in r.warnings]

    def run(self) -> Result:
        """Run the phases in order (preprocess, lex, parse, AST passes, check, lower, P4Info),
        stopping after the first phase that reports errors."""
        o = self.opts
        rep = self.phase()
        pp = Preprocessor(include_dirs=list(o.include_dirs), sources=self.sources, reporter=rep)
        for d in o.defines:
            pp.define_cmdline(d)
        if self.text is not None:
            pp.run_text(self.text, self.path)
        else:
            if not os.path.isfile(self.path):
                raise CompileError([Diagnostic(Span(self.path, 0, 0), f"cannot open file {self.path}")])
            pp.run_file(self.path)
        rep.check()
        if o.keep_preprocessed:
            self.preprocessed = program_text(pp.out, pp.builtin_includes)

        rep = self.phase()
        toks = lex(pp.out, rep)
        rep.check()
        if o.dump_tokens:
            self.dumps.append("\n".join(repr(t) for t in toks))

        rep = self.phase()
        program = parse(toks, rep)
        rep.check()
        instantiate_direct_calls(program)
        hoist_table_results(program)
        if o.dump_ast:
            self.dumps.append(A.dump(program))

        rep = self.phase()
        ck = check(program, rep, self.path)
        rep.check()
        specializer = Specializer(program)
        for _ in range(MAX_ROUNDS):     # generic functions: a copy per set of types
            if not specializer.run():
                break
            again = Reporter()
            ck = check(program, again, self.path)
            again.check()
        rep = self.phase()
        if unroll_loops(program, rep):
            rep.check()
            again = Reporter()      # its warnings were reported by the first check
            ck = check(program, again, self.path)
            again.check()
        if concretize_stack_indexes(program):
            again = Reporter()
            ck = check(program, again, self.path)
            again.check()
        if o.arch != "v1model":
            package = {"tna": "Switch"}.get(o.arch)
            main_type = getattr(ck.main.resolved_type, "tname", None) if ck.main is not None else None
            if main_type != package:
                rep.error(ck.main.span, f"--arch {o.arch}: 'main' must instantiate the {package} package, "
                                        f"not {main_type}")
                rep.check()
            return Result(None, None, self.sources, self.dumps)

        rep = self.phase()
        lw = lower(ck, rep, self.path, self.sources)
        rep.check()
        doc = lw.doc.finish()
        if o.dump_ir:
            self.dumps.append(json.dumps(doc, indent=1))

        rep = self.phase()
        info = build_p4info(lw.model, rep, ck)
        rep.check()
        return Result(doc, info, self.sources, self.dumps, self.warnings)


def compile_file(path: str, opts: Options | None = None) -> Result:
    return Compilation(path, opts).run()


def compile_text(text: str, name: str = "test.p4", opts: Options | None = None) -> Result:
    return Compilation(name, opts, text).run()
