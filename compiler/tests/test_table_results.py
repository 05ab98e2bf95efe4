"""hoist_table_results: `t.apply().hit/.miss` as a value goes through a bool temporary."""
import json

import conftest
from conftest import find, program

TABLE = "table t { key = { hdr.eth.etherType: exact; } actions = { NoAction; } }"


def ingress(src):
    j = conftest.compile_src(src).json
    return find(j["pipelines"], "ingress")


def applies_of_t(pipe):
    return [t for t in pipe["tables"] if t["name"] == "I.t"]


def test_stored_result_applies_the_table_once_and_branches_on_hit():
    pipe = ingress(program(meta="bool h;", ingress_locals=TABLE, ingress_apply="meta.h = t.apply().hit;"))
    (t,) = applies_of_t(pipe)
    assert set(t["next_tables"]) == {"__HIT__", "__MISS__"}


def test_result_inside_conditional_expression():
    pipe = ingress(program(meta="bit<8> v;", ingress_locals=TABLE,
                           ingress_apply="meta.v = t.apply().miss ? 8w1 : 8w2;"))
    (t,) = applies_of_t(pipe)
    assert set(t["next_tables"]) == {"__HIT__", "__MISS__"}


def test_plain_if_on_the_result_is_left_to_lowering():
    j = conftest.compile_src(program(meta="bit<8> v;", ingress_locals=TABLE,
                                     ingress_apply="if (t.apply().hit) { meta.v = 1; }")).json
    assert "t_hit" not in json.dumps(j)  # no temporary: lowering branches on the table's own edges
