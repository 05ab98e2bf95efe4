"""The JSON shapes BMv2's loader (simple_switch) requires, where a laxer reader
would accept another: each case is one that real BMv2 refused or misread."""
import conftest
from conftest import find, program


def prims_of(src):
    j = conftest.compile_src(src).json
    return j, [p for a in j["actions"] for p in a["primitives"]]


def test_expression_parameter_is_wrapped_twice_with_locals_inside():
    src = program(meta="bit<8> a;", ingress_locals="""
    action add(bit<8> v) { meta.a = meta.a + v; }
    table t { key = { hdr.eth.etherType: exact; } actions = { add; } }""", ingress_apply="t.apply();")
    j = conftest.compile_src(src).json
    (assign,) = [p for p in find(j["actions"], "I.add")["primitives"] if p["op"] == "assign"]
    outer = assign["parameters"][1]
    assert outer["type"] == "expression" and outer["value"]["type"] == "expression"
    tree = str(outer["value"]["value"])
    assert "'local'" in tree and "runtime_data" not in tree


def test_parser_verify_operands_are_not_wrapped_twice():
    src = program(parser_body="""
    state start { pkt.extract(hdr.eth); verify(hdr.eth.etherType != 0, error.NoMatch); transition accept; }""")
    j = conftest.compile_src(src).json
    ops = find(j["parsers"][0]["parse_states"], "start")["parser_ops"]
    (v,) = [o for o in ops if o["op"] == "verify"]
    assert v["parameters"][0]["value"]["op"] == "!="


def test_plain_clone_names_an_existing_empty_field_list():
    j, prims = prims_of(program(ingress_apply="clone(CloneType.I2E, 5);"))
    (c,) = [p for p in prims if p["op"] == "clone_ingress_pkt_to_egress"]
    fl = int(c["parameters"][1]["value"], 16)
    assert find_id(j["field_lists"], fl)["elements"] == []


def find_id(items, i):
    for x in items:
        if x["id"] == i:
            return x
    raise AssertionError(f"no field list with id {i}")


def test_assert_takes_its_condition_as_data():
    _, prims = prims_of(program(ingress_apply="assert(hdr.eth.etherType != 0);"))
    (a,) = [p for p in prims if p["op"] == "assert"]
    assert a["parameters"][0]["value"]["value"]["op"] == "b2d"


def test_header_inside_metadata_struct_is_not_metadata():
    src = program(headers="header tag_t { bit<8> v; }", meta="tag_t tag;",
                  ingress_apply="meta.tag.setValid(); meta.tag.v = 1;")
    j = conftest.compile_src(src).json
    (h,) = [h for h in j["headers"] if h["header_type"] == "tag_t"]
    assert h["metadata"] is False
