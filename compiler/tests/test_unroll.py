"""unroll_loops: the midend pass that turns `for` loops into straight-line statements."""
import conftest
from conftest import checked_program, compile_errors, nodes, program
from p4compiler import ast as A
from p4compiler.check import check
from p4compiler.diag import Reporter
from p4compiler.unroll import unroll_loops

STACK = "header e_t { bit<8> v; }"


def unrolled(ingress_apply, **kw):
    prog = checked_program(program(headers=STACK, hdrs="e_t[4] s;", meta="bit<8> x;",
                                   ingress_apply=ingress_apply, **kw))
    rep = Reporter()
    assert unroll_loops(prog, rep)
    rep.check()
    check(prog, rep, "t.p4")     # what the driver does next: the result checks cleanly
    rep.check()
    return prog


def test_a_program_without_loops_is_left_alone():
    prog = checked_program(program())
    assert unroll_loops(prog, Reporter()) is False


def test_no_loop_is_left_and_the_index_reads_as_a_constant():
    prog = unrolled("for (bit<8> i in 0 .. 3) { hdr.s[i].setValid(); }")
    assert not any(isinstance(n, (A.For, A.ForIn)) for n in nodes(prog))
    indexes = [n.index for n in nodes(prog) if isinstance(n, A.Index)]
    assert [(i.value, i.width) for i in indexes] == [(0, 8), (1, 8), (2, 8), (3, 8)]


def test_the_condition_is_simulated_with_the_index_type_width():
    # bit<2> wraps at 4: i = 1, 2, 3 then 0 stops the loop
    prog = unrolled("for (bit<2> i = 1; i != 0; i = i + 1) { meta.x = meta.x + (bit<8>)i; }")
    lits = [n.value for n in nodes(prog) if isinstance(n, A.IntLiteral) and n.width == 2]
    assert lits == [1, 2, 3]


def test_break_and_continue_become_flags():
    prog = unrolled("for (bit<8> i = 0; i < 3; i = i + 1) { if (i == 1) { continue; } if (meta.x == 9) { break; } meta.x = i; }")
    decls = [n.name for n in nodes(prog) if isinstance(n, A.VarDecl)]
    assert any(d.startswith("for_break_") for d in decls) and any(d.startswith("for_continue_") for d in decls)
    assert not any(isinstance(n, (A.Break, A.Continue)) for n in nodes(prog))


def test_loops_compile_to_bmv2_with_constant_stack_indexes():
    # setValid on a stack element chosen at run time is unsupported: this compiles only unrolled
    src = program(headers=STACK, hdrs="e_t[4] s;", ingress_apply="for (bit<8> i in 0 .. 3) { hdr.s[i].setValid(); }")
    prims = [p for a in conftest.compile_src(src).json["actions"] for p in a["primitives"]]
    assert sorted(p["parameters"][0]["value"] for p in prims if p["op"] == "add_header") == ["s[0]", "s[1]", "s[2]", "s[3]"]


def test_run_time_bounds_are_refused_where_the_loop_is():
    src = program(meta="bit<8> x;", ingress_apply="for (bit<8> i = 0; i < meta.x; i = i + 1) { }")
    line = next(n for n, text in enumerate(src.splitlines(), 1) if "i < meta.x" in text)
    col = src.splitlines()[line - 1].index("< meta.x") + 1     # a binary expression is placed at its operator
    assert compile_errors(src) == [f"{line}:{col}: unsupported: 'for' loop whose condition is not known at "
                                   "compile time (only loops with compile-time bounds are unrolled)"]


def test_a_loop_variable_may_bound_a_slice():
    # checked as constants only after unrolling; a plain variable still may not
    prog = unrolled("for (bit<8> i in 0 .. 1) { meta.x[i:i] = 1; }")
    slices = [n for n in nodes(prog) if isinstance(n, A.Slice)]
    assert [(s.hi.value, s.lo.value) for s in slices] == [(0, 0), (1, 1)]
    src = program(meta="bit<8> x; bit<8> y;", ingress_apply="meta.x[meta.y:0] = 1;")
    assert [e.split(": ", 1)[1] for e in compile_errors(src)] == ["slice bounds must be compile-time constants"]


def test_nested_loops_are_bounded_as_a_whole():
    # 1000 x 1000 copies would take minutes and gigabytes: refused once, at the inner loop
    inner = "for (bit<16> k = 0; k < 1000; k = k + 1) { meta.x = meta.x + 1; }"
    src = program(meta="bit<8> x;", ingress_apply=f"for (bit<16> j = 0; j < 1000; j = j + 1) {{ {inner} }}")
    assert [e.split(": ", 1)[1] for e in compile_errors(src)] == [
        "unsupported: unrolling 'for' loops into more than 16384 copies of their bodies (nested loops multiply)"]
