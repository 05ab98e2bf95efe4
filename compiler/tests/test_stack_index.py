"""concretize_stack_indexes: the midend pass that turns statements needing a fixed stack
element into if-chains over the constant indexes; behaviour end to end in
conformance/tests/headers/stack_runtime_index_whole.p4."""
from conftest import checked_program, compile_src, nodes, program
from p4compiler import ast as A
from p4compiler.check import check
from p4compiler.diag import Reporter
from p4compiler.stack_index import concretize_stack_indexes

STACK = "header e_t { bit<8> v; } header_union u_t { e_t a; e_t b; }"


def checked(ingress_apply, parser_body=""):
    return checked_program(program(headers=STACK, hdrs="e_t[3] s;", meta="bit<2> i; bit<2> j; bit<8> x;",
                                   ingress_apply=ingress_apply, parser_body=parser_body))


def rewritten(ingress_apply, **kw):
    prog = checked(ingress_apply, **kw)
    assert concretize_stack_indexes(prog)
    rep = Reporter()
    check(prog, rep, "t.p4")     # what the driver does next: the result checks cleanly
    rep.check()
    return prog


def constant_indexes(prog):
    return sorted(n.index.value for n in nodes(prog)
                  if isinstance(n, A.Index) and isinstance(n.index, A.IntLiteral))


def test_field_reads_and_writes_keep_their_run_time_index():
    # BMv2 expresses these itself (stack_field / dereference_header_stack), as p4c emits them
    prog = checked("hdr.s[meta.i].v = 1; meta.x = hdr.s[meta.j].v; "
                   "if (hdr.s[meta.i].isValid()) { meta.x = 2; }")
    assert concretize_stack_indexes(prog) is False


def test_set_valid_becomes_one_branch_per_element_and_the_index_is_read_once():
    prog = rewritten("hdr.s[meta.i].setValid();")
    assert constant_indexes(prog) == [0, 1, 2]
    decls = [n for n in nodes(prog) if isinstance(n, A.VarDecl) and n.name.startswith("hsi_index")]
    assert len(decls) == 1 and isinstance(decls[0].init, A.Member)   # meta.i, evaluated once


def test_two_run_time_indexes_in_one_statement_give_every_pair():
    prog = rewritten("hdr.s[meta.i] = hdr.s[meta.j];")
    assert len(constant_indexes(prog)) == 2 * 3 * 3


def test_declaration_and_condition_go_through_the_chain():
    prog = rewritten("e_t t = hdr.s[meta.i]; u_t[2] us; "
                     "if (us[meta.i[0:0]].a.isValid()) { meta.x = 1; }")
    names = {n.name for n in nodes(prog) if isinstance(n, A.VarDecl)}
    assert {"t", "hsi_index_0", "hsi_cond_1"} <= names


def test_in_a_parser_state_the_chain_becomes_states():
    parser = ("state start { pkt.extract(hdr.eth); pkt.extract(hdr.s[0]); "
              "hdr.s[meta.i].setInvalid(); transition accept; }")
    doc = compile_src(program(headers=STACK, hdrs="e_t[3] s;", meta="bit<2> i;",
                              parser_body=parser)).json
    states = doc["parsers"][0]["parse_states"]
    assert len(states) > 3
    assert not any(op["op"].startswith("_jump") for s in states for op in s["parser_ops"])
