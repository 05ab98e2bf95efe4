"""Shared helpers for the compiler tests."""
from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from p4compiler.diag import CompileError  # noqa: E402
from p4compiler.driver import compile_file, compile_text  # noqa: E402

V1_PRELUDE = "#include <core.p4>\n#include <v1model.p4>\n"


def compile_src(src: str, name: str = "t.p4"):
    return compile_text(src, name)


def compile_errors(src: str, name: str = "t.p4") -> list[str]:
    with pytest.raises(CompileError) as ei:
        compile_text(src, name)
    return [f"{d.span.line}:{d.span.col}: {d.message}" for d in ei.value.diagnostics]


def checked_program(src: str, name: str = "t.p4"):
    """The checked AST of `src` (front end only): what a midend pass takes."""
    from p4compiler.check import check
    from p4compiler.diag import Reporter
    from p4compiler.lexer import lex
    from p4compiler.parser import parse
    from p4compiler.preprocess import Preprocessor
    rep = Reporter()
    pp = Preprocessor(include_dirs=[], reporter=rep)
    pp.run_text(src, name)
    prog = parse(lex(pp.out, rep), rep)
    check(prog, rep, name)
    rep.check()
    return prog


def nodes(n):
    """`n` and every node below it."""
    yield n
    for c in n.children():
        yield from nodes(c)


def program(headers: str = "", parser_body: str = "", ingress_locals: str = "", ingress_apply: str = "",
            egress_apply: str = "", deparser: str = "", meta: str = "", hdrs: str = "",
            compute: str = "", verify: str = "", top: str = "") -> str:
    """A complete v1model program around the pieces a test cares about."""
    return V1_PRELUDE + f"""
{headers}
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etherType; }}
struct headers_t {{ ethernet_t eth; {hdrs} }}
struct meta_t {{ {meta} }}
{top}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {parser_body or 'state start { pkt.extract(hdr.eth); transition accept; }'}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ {verify} }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {ingress_locals}
    apply {{ {ingress_apply} }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ {egress_apply} }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ {compute} }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ {deparser or 'pkt.emit(hdr.eth);'} }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def find(items, name):
    for x in items:
        if x.get("name") == name:
            return x
    raise AssertionError(f"{name} not in {[x.get('name') for x in items]}")
