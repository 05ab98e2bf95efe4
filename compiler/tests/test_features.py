"""One small program per language feature / v1model extern, with structural
assertions on the BMv2 JSON and the P4Info a user (or the switch) relies on."""
import conftest
from conftest import find, program
from jsoncheck import problems


def compile_src(src):
    r = conftest.compile_src(src)
    assert problems(r.json) == []
    return r


def ingress_tables(j):
    return find(j["pipelines"], "ingress")["tables"]


def prims(j, name):
    return find(j["actions"], name)["primitives"]


def all_prims(j):
    return [p for a in j["actions"] for p in a["primitives"]]


# ---------------------------------------------------------------- parser features
def test_select_mask_range_default_and_tuple():
    src = program(parser_body="""
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType, hdr.eth.dst[7:0]) {
            (0x0800, 0x01 &&& 0x0f): a;
            (0x86dd, _): a;
            (16w0x0000 .. 16w0x0003, 8w1): a;
            default: accept;
        }
    }
    state a { transition reject; }""")
    j = compile_src(src).json
    st = find(j["parsers"][0]["parse_states"], "start")
    assert len(st["transition_key"]) == 2
    tr = st["transitions"]
    assert tr[0] == {"type": "hexstr", "value": "0x080001", "mask": "0xffff0f", "next_state": "a"}
    assert tr[1]["value"] == "0x86dd00" and tr[1]["mask"] == "0xffff00"
    # the range 0..3 is one value/mask prefix
    assert tr[2]["value"] == "0x000001" and tr[2]["mask"] == "0xfffcff"
    assert tr[-1]["type"] == "default" and tr[-1]["next_state"] is None


def test_select_without_default_rejects_with_nomatch():
    src = program(parser_body="""
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etherType) { 1: accept; } }""")
    j = compile_src(src).json
    states = j["parsers"][0]["parse_states"]
    st = find(states, "start")
    rej = find(states, st["transitions"][-1]["next_state"])
    assert rej["parser_ops"][0]["op"] == "verify"
    nomatch = dict(j["errors"])["NoMatch"]
    assert rej["parser_ops"][0]["parameters"][1]["value"] == hex(nomatch)


def test_value_set_lookahead_advance_verify():
    src = program(top="error { BadType }", parser_body="""
    value_set<bit<16>>(4) vs;
    state start {
        pkt.extract(hdr.eth);
        verify(hdr.eth.etherType != 0, error.BadType);
        transition select(pkt.lookahead<bit<8>>()) { 0x45: skip; default: vsx; }
    }
    state skip { pkt.advance(32); transition accept; }
    state vsx { transition select(hdr.eth.etherType) { vs: accept; default: reject; } }""")
    r = compile_src(src)
    j = r.json
    states = j["parsers"][0]["parse_states"]
    start = find(states, "start")
    assert start["parser_ops"][1]["op"] == "verify"
    assert start["transition_key"] == [{"type": "lookahead", "value": [0, 8]}]
    assert find(states, "skip")["parser_ops"][0] == {"op": "advance", "parameters": [{"type": "hexstr", "value": "0x20"}],
                                                     "source_info": find(states, "skip")["parser_ops"][0]["source_info"]}
    assert find(states, "vsx")["transitions"][0]["type"] == "parse_vset"
    assert j["parse_vsets"][0]["compressed_bitwidth"] == 16
    assert "BadType" in dict(j["errors"])
    vs = r.p4info.value_sets[0]
    assert vs.preamble.id >> 24 == 0x03 and vs.size == 4 and vs.match[0].bitwidth == 16


def test_header_stack_extract_next_and_ops():
    src = program(headers="header v_t { bit<16> tag; }", hdrs="v_t[3] vl;", parser_body="""
    state start { pkt.extract(hdr.eth); transition more; }
    state more { pkt.extract(hdr.vl.next); transition select(hdr.vl.last.tag) { 1: more; default: accept; } }""",
                  ingress_apply="hdr.vl.push_front(1); hdr.vl[0].setValid(); hdr.vl[0].tag = 7; hdr.vl.pop_front(2);",
                  deparser="pkt.emit(hdr.eth); pkt.emit(hdr.vl);")
    j = compile_src(src).json
    st = j["header_stacks"][0]
    assert st["name"] == "vl" and st["size"] == 3 and len(st["header_ids"]) == 3
    more = find(j["parsers"][0]["parse_states"], "more")
    assert more["parser_ops"][0]["parameters"] == [{"type": "stack", "value": "vl"}]
    assert more["transition_key"] == [{"type": "stack_field", "value": ["vl", "tag"]}]
    ops = [p["op"] for p in all_prims(j)]
    assert ops[:4] == ["push", "add_header", "assign", "pop"]
    assert j["deparsers"][0]["order"] == ["eth", "vl[0]", "vl[1]", "vl[2]"]


def test_header_union():
    src = program(headers="header a_t { bit<8> x; } header b_t { bit<16> y; } header_union u_t { a_t a; b_t b; }",
                  hdrs="u_t u;", ingress_apply="if (hdr.u.isValid()) { hdr.u.a.setValid(); }",
                  deparser="pkt.emit(hdr.eth); pkt.emit(hdr.u);")
    j = compile_src(src).json
    assert j["header_union_types"][0]["name"] == "u_t"
    assert j["header_union_types"][0]["headers"] == [["a", "a_t"], ["b", "b_t"]]
    un = j["header_unions"][0]
    assert un["name"] == "u" and len(un["header_ids"]) == 2
    assert j["deparsers"][0]["order"] == ["eth", "u.a", "u.b"]


def test_varbit_extract():
    src = program(headers="header opt_t { bit<8> len; varbit<320> data; }", hdrs="opt_t o;", parser_body="""
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.o, 32); transition accept; }""")
    j = compile_src(src).json
    ht = find(j["header_types"], "opt_t")
    assert ht["fields"][1] == ["data", "*"] and ht["max_length"] == 41
    op = find(j["parsers"][0]["parse_states"], "start")["parser_ops"][1]
    assert op["op"] == "extract_VL" and op["parameters"][1]["type"] == "expression"


def test_subparser_inlined():
    src = program(top="""
parser Sub(packet_in p, inout headers_t h) { state start { p.extract(h.eth); transition accept; } }""",
                  parser_body="""
    Sub() sub;
    state start { sub.apply(pkt, hdr); transition next; }
    state next { transition accept; }""")
    j = compile_src(src).json
    states = {s["name"]: s for s in j["parsers"][0]["parse_states"]}
    first = states["start"]["transitions"][0]["next_state"]
    assert states[first]["parser_ops"][0]["parameters"] == [{"type": "regular", "value": "eth"}]
    cont = states[first]["transitions"][0]["next_state"]
    assert states[cont]["transitions"][0]["next_state"] == "next"


# ---------------------------------------------------------------- controls and tables
def test_switch_action_run_hit_miss_exit():
    src = program(ingress_locals="""
    action a1() { sm.egress_spec = 1; }
    action a2() { sm.egress_spec = 2; }
    table t1 { key = { hdr.eth.dst: exact; } actions = { a1; a2; } }
    table t2 { key = { hdr.eth.src: exact; } actions = { a1; NoAction; } }
    """, ingress_apply="""
        switch (t1.apply().action_run) {
            a1: { if (!t2.apply().hit) { exit; } }
            default: { sm.egress_spec = 3; }
        }""")
    j = compile_src(src).json
    tables = {t["name"]: t for t in ingress_tables(j)}
    t1, t2 = tables["I.t1"], tables["I.t2"]
    assert t1["next_tables"]["I.a1"] == "I.t2"
    other = t1["next_tables"]["I.a2"]
    assert other.startswith("tbl_")
    assert set(t2["next_tables"]) == {"__HIT__", "__MISS__"}
    assert t2["next_tables"]["__MISS__"] is None and t2["next_tables"]["__HIT__"] is None


def test_default_and_const_entries():
    src = program(ingress_locals="""
    action set(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { hdr.eth.etherType: ternary; hdr.eth.dst: lpm; }
        actions = { set; NoAction; }
        const default_action = set(5);
        const entries = {
            (0x0800 &&& 0xffff, 0x0a0000000000 &&& 0xff0000000000): set(1);
            (_, _): set(2);
        }
    }""", ingress_apply="t.apply();")
    r = compile_src(src)
    t = ingress_tables(r.json)[0]
    assert t["match_type"] == "ternary"
    assert t["default_entry"] == {"action_id": find(r.json["actions"], "I.set")["id"], "action_const": True,
                                  "action_data": ["0x5"], "action_entry_const": True}
    e0, e1 = t["entries"]
    assert e0["match_key"][0] == {"match_type": "ternary", "key": "0x0800", "mask": "0xffff"}
    assert e0["match_key"][1] == {"match_type": "lpm", "key": "0x0a0000000000", "prefix_length": 8}
    assert e0["priority"] < e1["priority"]
    assert e1["action_entry"]["action_data"] == ["0x2"]
    pt = r.p4info.tables[0]
    assert pt.is_const_table and pt.const_default_action_id == [a.preamble.id for a in r.p4info.actions if a.preamble.name == "I.set"][0]


def test_action_profile_and_selector():
    src = program(ingress_locals="""
    action_selector(HashAlgorithm.crc16, 32w128, 32w14) sel;
    action set(bit<9> p) { sm.egress_spec = p; }
    table t { key = { hdr.eth.dst: exact; hdr.eth.src: selector; } actions = { set; } implementation = sel; }
    """, ingress_apply="t.apply();")
    r = compile_src(src)
    ing = find(r.json["pipelines"], "ingress")
    t = ing["tables"][0]
    assert t["type"] == "indirect_ws" and t["action_profile"] == "I.sel"
    assert [k["name"] for k in t["key"]] == ["hdr.eth.dst"]
    prof = ing["action_profiles"][0]
    assert prof["selector"]["algo"] == "crc16" and prof["selector"]["input"] == [{"type": "field", "value": ["eth", "src"]}]
    ap = r.p4info.action_profiles[0]
    assert ap.with_selector and ap.size == 128 and ap.table_ids == [r.p4info.tables[0].preamble.id]
    assert r.p4info.tables[0].implementation_id == ap.preamble.id


def test_direct_counter_and_meter():
    src = program(meta="bit<8> color;", ingress_locals="""
    direct_counter(CounterType.packets_and_bytes) dc;
    direct_meter<bit<8>>(MeterType.bytes) dm;
    action m() { dm.read(meta.color); }
    table t { key = { hdr.eth.dst: exact; } actions = { m; } counters = dc; meters = dm; }
    """, ingress_apply="t.apply();")
    r = compile_src(src)
    t = ingress_tables(r.json)[0]
    assert t["with_counters"] and t["direct_meters"] == "I.dm"
    assert find(r.json["counter_arrays"], "I.dc")["binding"] == "I.t"
    dm = find(r.json["meter_arrays"], "I.dm")
    assert dm["is_direct"] and dm["binding"] == "I.t" and dm["result_target"] == ["scalars", "userMetadata.color"]
    assert dm["type"] == "bytes"
    i = r.p4info
    assert i.direct_counters[0].direct_table_id == i.tables[0].preamble.id
    assert i.direct_meters[0].spec.unit == 1  # BYTES
    assert set(i.tables[0].direct_resource_ids) == {i.direct_counters[0].preamble.id, i.direct_meters[0].preamble.id}


def test_nested_control_and_return():
    src = program(top="""
control Inner(inout headers_t h, inout standard_metadata_t s) {
    table t { key = { h.eth.dst: exact; } actions = { NoAction; } }
    apply { if (h.eth.etherType == 0) { return; } t.apply(); }
}""", ingress_locals="Inner() inner;", ingress_apply="inner.apply(hdr, sm); sm.egress_spec = 1;")
    j = compile_src(src).json
    ing = find(j["pipelines"], "ingress")
    t = find(ing["tables"], "I.inner.t")
    last = t["base_default_next"]
    assert last is not None and last.startswith("tbl_")
    cond = find(ing["conditionals"], ing["init_table"])
    assert cond["true_next"] == last and cond["false_next"] == "I.inner.t"


# ---------------------------------------------------------------- expressions
def test_arith_wraps_slices_concat_casts():
    src = program(meta="bit<8> a; bit<16> b; int<8> s; bit<8> c;", ingress_apply="""
        meta.a = meta.a + 8w255;
        meta.b[11:4] = meta.a;
        meta.b = meta.a ++ meta.a;
        meta.s = (int<8>)meta.a;
        meta.c = meta.a |+| 8w200;
        meta.a = (bit<8>)(meta.b >> 4);""")
    j = compile_src(src).json
    p = all_prims(j)
    wrapped = p[0]["parameters"][1]["value"]
    assert wrapped["type"] == "expression"  # BMv2 wants primitive expressions wrapped twice
    add = wrapped["value"]
    assert add["op"] == "&" and add["right"] == {"type": "hexstr", "value": "0xff"} and add["left"]["value"]["op"] == "+"
    sl = p[1]["parameters"][1]["value"]["value"]
    assert sl["op"] == "|"
    assert p[3]["parameters"][1]["value"]["value"]["op"] == "two_comp_mod"
    assert p[4]["parameters"][1]["value"]["value"]["op"] == "usat_cast"
    assert p[5]["parameters"][1]["value"]["value"]["right"] == {"type": "hexstr", "value": "0xff"}


def test_constant_folding_infinite_precision():
    src = program(meta="bit<32> a; bit<8> b;", top="const bit<32> BIG = (1 << 40) >> 20;", ingress_apply="""
        meta.a = BIG;
        meta.b = (bit<8>)(-1);""")
    p = all_prims(compile_src(src).json)
    assert p[0]["parameters"][1] == {"type": "hexstr", "value": "0x100000"}
    assert p[1]["parameters"][1] == {"type": "hexstr", "value": "0xff"}


def test_if_inside_action_uses_jumps():
    src = program(meta="bit<8> a;", ingress_locals="""
    action act(bit<8> v) { if (v == 1) { meta.a = 1; } else { meta.a = 2; } }
    table t { key = { hdr.eth.dst: exact; } actions = { act; } }""", ingress_apply="t.apply();")
    p = prims(compile_src(src).json, "I.act")
    assert [x["op"] for x in p] == ["_jump_if_zero", "assign", "_jump", "assign"]
    assert p[0]["parameters"][1] == {"type": "hexstr", "value": "0x3"}
    assert p[2]["parameters"][0] == {"type": "hexstr", "value": "0x4"}


def test_copy_in_copy_out_and_functions():
    src = program(meta="bit<8> a; bit<8> b;", top="""
bit<8> twice(in bit<8> x) { return x + x; }""", ingress_locals="""
    action swap(inout bit<8> x, inout bit<8> y) { bit<8> t = x; x = y; y = t; }""",
                  ingress_apply="swap(meta.a, meta.b); meta.a = twice(meta.b);")
    j = compile_src(src).json
    ops = [(p["op"], p["parameters"][0]["value"]) for p in all_prims(j)]
    # copy-in to temporaries, body, copy-out to the arguments
    assert ("assign", ["scalars", "userMetadata.a"]) in ops and ("assign", ["scalars", "userMetadata.b"]) in ops
    assert len(ops) >= 7


# ---------------------------------------------------------------- externs
def test_v1model_externs():
    src = program(meta="@field_list(1) bit<8> keep; bit<32> h; bit<16> r; bit<8> c;", ingress_locals="""
    counter(32w64, CounterType.packets) cnt;
    meter(32w16, MeterType.packets) mtr;
    register<bit<16>>(32w8) reg;
    """, ingress_apply="""
        cnt.count(32w1);
        mtr.execute_meter(32w2, meta.c);
        reg.read(meta.r, 32w3);
        reg.write(32w3, meta.r + 1);
        hash(meta.h, HashAlgorithm.crc32, 32w0, { hdr.eth.dst, hdr.eth.src }, 32w1024);
        random(meta.c, 8w0, 8w10);
        clone(CloneType.I2E, 32w5);
        clone_preserving_field_list(CloneType.I2E, 32w6, 1);
        resubmit_preserving_field_list(1);
        digest<headers_t>(1, hdr) ;
        truncate(32w64);
        log_msg("x={}", {meta.c});
        assert(meta.c < 3);
        mark_to_drop(sm);""", egress_apply="recirculate_preserving_field_list(1);")
    r = compile_src(src)
    j = r.json
    ops = [p["op"] for p in all_prims(j)]
    for op in ["count", "execute_meter", "register_read", "register_write", "modify_field_with_hash_based_offset",
               "modify_field_rng_uniform", "clone_ingress_pkt_to_egress", "resubmit", "generate_digest",
               "truncate", "log_msg", "assert", "mark_to_drop", "recirculate"]:
        assert op in ops, op
    assert find(j["counter_arrays"], "I.cnt")["size"] == 64
    assert find(j["register_arrays"], "I.reg")["bitwidth"] == 16
    fl = j["field_lists"][0]
    assert fl["elements"] == [{"type": "field", "value": ["scalars", "userMetadata.keep"]}]
    calc = j["calculations"][0]
    assert calc["algo"] == "crc32" and len(calc["input"]) == 2
    assert j["learn_lists"][0]["name"] == "headers_t"
    i = r.p4info
    assert i.counters[0].size == 64 and i.counters[0].spec.unit == 2
    assert i.meters[0].spec.unit == 2 and i.registers[0].type_spec.bitstring.bit.bitwidth == 16
    assert i.digests[0].preamble.name == "headers_t" and i.digests[0].preamble.id >> 24 == 0x17


def test_v1model_20200408_generic_counter_meter_register():
    """With V1MODEL_VERSION >= 20200408 the index type is a type argument (p4c's v1model.p4);
    the old forms are refused then (bad/check/v1model_2020_old_externs.p4)."""
    src = "#define V1MODEL_VERSION 20200408\n" + program(meta="bit<16> r; bit<8> c;", ingress_locals="""
    counter<bit<6>>(32w64, CounterType.packets) cnt;
    meter<bit<4>>(32w16, MeterType.packets) mtr;
    register<bit<16>, bit<3>>(32w8) reg;
    """, ingress_apply="""
        cnt.count(6w1);
        mtr.execute_meter(4w2, meta.c);
        reg.read(meta.r, 3w3);
        reg.write(3w3, meta.r + 1);""")
    r = compile_src(src)
    ops = [p["op"] for p in all_prims(r.json)]
    assert {"count", "execute_meter", "register_read", "register_write"} <= set(ops)
    assert find(r.json["register_arrays"], "I.reg")["bitwidth"] == 16
    assert r.p4info.counters[0].size == 64 and r.p4info.registers[0].size == 8


def test_checksum_with_payload_and_verify():
    src = program(verify="verify_checksum(true, { hdr.eth.dst }, hdr.eth.etherType, HashAlgorithm.csum16);",
                  compute="update_checksum_with_payload(hdr.eth.isValid(), { hdr.eth.dst }, hdr.eth.etherType, HashAlgorithm.csum16);")
    j = compile_src(src).json
    v, u = j["checksums"]
    assert v["verify"] and not v["update"] and v["if_cond"] is None
    assert u["update"] and not u["verify"]
    calc = find(j["calculations"], u["calculation"])
    assert calc["input"][-1] == {"type": "payload", "value": None}


# ---------------------------------------------------------------- P4Info specifics
def test_controller_header_type_info_and_ids():
    src = program(headers="""
@controller_header("packet_in") header pin_t { bit<9> ingress_port; bit<7> pad; }
type bit<9> port_id_t;
enum bit<8> kind_t { A = 1, B = 2 }""", hdrs="pin_t pin;", meta="kind_t k;", ingress_locals="""
    @id(0x01000077) action set(port_id_t p) { sm.egress_spec = (bit<9>)p; }
    @name("renamed") table t { key = { hdr.eth.dst: exact; } actions = { set; } }""",
                  ingress_apply="t.apply(); digest(1, meta);")
    i = compile_src(src).p4info
    cpm = i.controller_packet_metadata[0]
    assert cpm.preamble.name == "packet_in" and cpm.preamble.id >> 24 == 0x04
    assert [(m.name, m.bitwidth) for m in cpm.metadata] == [("ingress_port", 9), ("pad", 7)]
    act = [a for a in i.actions if a.preamble.name == "I.set"][0]
    assert act.preamble.id == 0x01000077
    assert act.params[0].type_name.name == "port_id_t"
    assert [t.preamble.name for t in i.tables] == ["I.renamed"]
    from p4compiler.p4info import serialize
    text = serialize(i, "text").decode()
    assert 'serializable_enums' in text and 'kind_t' in text and 'port_id_t' in text


def test_if_in_parser_splits_state():
    src = program(meta="bit<8> x;", parser_body="""
    state start {
        pkt.extract(hdr.eth);
        if (hdr.eth.etherType == 1) { meta.x = 1; } else { meta.x = 2; }
        meta.x = meta.x + 1;
        transition accept;
    }""")
    states = {s["name"]: s for s in compile_src(src).json["parsers"][0]["parse_states"]}
    start = states["start"]
    assert start["parser_ops"][-1]["op"] == "set"
    t, f = start["transitions"][0]["next_state"], start["transitions"][1]["next_state"]
    assert states[t]["parser_ops"][0]["parameters"][1] == {"type": "hexstr", "value": "0x1"}
    assert states[f]["parser_ops"][0]["parameters"][1] == {"type": "hexstr", "value": "0x2"}
    cont = states[t]["transitions"][0]["next_state"]
    assert cont == states[f]["transitions"][0]["next_state"]
    assert len(states[cont]["parser_ops"]) == 1 and states[cont]["transitions"][0]["next_state"] is None


def test_dynamic_stack_index_and_last():
    src = program(headers="header v_t { bit<16> tag; bit<8> k; }", hdrs="v_t[3] vl;", meta="bit<16> t; bit<8> i;",
                  parser_body="""
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.vl.next); meta.t = hdr.vl.last.tag; transition accept; }""",
                  ingress_apply="hdr.vl[meta.i].k = 5; meta.t = hdr.vl[meta.i].tag;")
    j = compile_src(src).json
    start = j["parsers"][0]["parse_states"][0]
    assert start["parser_ops"][2]["parameters"][1] == {"type": "expression", "value": {"type": "stack_field", "value": ["vl", "tag"]}}
    p = all_prims(j)
    lhs = p[0]["parameters"][0]["value"]["value"]
    assert lhs["op"] == "access_field" and lhs["right"] == 1
    assert lhs["left"]["value"]["op"] == "dereference_header_stack"
    assert p[1]["parameters"][1]["value"]["value"]["right"] == 0


def test_entry_priorities():
    def prios(entries):
        src = program(ingress_locals=f"""
        table t {{ key = {{ hdr.eth.etherType: ternary; }} actions = {{ NoAction; }} {entries} }}""",
                      ingress_apply="t.apply();")
        return [x["priority"] for x in ingress_tables(compile_src(src).json)[0]["entries"]]
    # the spec's `priority = N`: larger P4 priority wins; BMv2's lower value wins
    assert prios("entries = { priority = 7: 0x1 &&& 0xf: NoAction(); priority = 3: 0x2 &&& 0xf: NoAction(); }") == [1, 5]
    # p4c's @priority(N) after the action is BMv2's priority itself; others keep their position
    assert prios("const entries = { 0x1 &&& 0xf: NoAction() @priority(7); 0x2 &&& 0xf: NoAction(); }") == [7, 2]
    assert prios("const entries = { 0x1 &&& 0xf: NoAction(); 0x2 &&& 0xf: NoAction(); }") == [1, 2]


def test_inline_table_implementation_and_hidden():
    src = program(ingress_locals="""
    action set(bit<9> p) { sm.egress_spec = p; }
    table t { key = { hdr.eth.dst: exact; } actions = { set; } implementation = action_profile(32w64);
              counters = direct_counter(CounterType.packets); }
    @hidden table h { actions = { NoAction; } }
    """, ingress_apply="t.apply(); h.apply();")
    r = compile_src(src)
    ing = find(r.json["pipelines"], "ingress")
    t = find(ing["tables"], "I.t")
    assert t["type"] == "indirect" and t["action_profile"] == "I.t" and t["with_counters"]
    assert ing["action_profiles"][0]["max_size"] == 64
    assert [x.preamble.name for x in r.p4info.tables] == ["I.t"]
    assert r.p4info.action_profiles[0].size == 64 and r.p4info.direct_counters[0].spec.unit == 2


def test_switch_on_value_and_enum():
    src = program(top="enum color_t { RED, GREEN }", meta="bit<8> a; bit<8> b;", ingress_apply="""
        color_t c = color_t.GREEN;
        switch (meta.a) {
            1: 2: { meta.b = 1; }
            default: { meta.b = 3; }
        }
        if (c == color_t.GREEN) { meta.b = 4; }""")
    j = compile_src(src).json
    assert {"name": "color_t", "entries": [["RED", 0], ["GREEN", 1]]} in j["enums"]
    ing = find(j["pipelines"], "ingress")
    exprs = [json_ops(c["expression"]) for c in ing["conditionals"]]
    assert any("or" in e for e in exprs)


def json_ops(x):
    out = []
    if isinstance(x, dict):
        if "op" in x:
            out.append(x["op"])
        for v in x.values():
            out += json_ops(v)
    elif isinstance(x, list):
        for v in x:
            out += json_ops(v)
    return out


def test_control_constructor_parameters():
    src = program(meta="bit<8> a;", top="""
control Setter(inout bit<8> v)(bit<8> k) { apply { v = k; } }""",
                  ingress_locals="Setter(8w7) s7;", ingress_apply="s7.apply(meta.a);")
    p = all_prims(compile_src(src).json)
    assert p[0]["parameters"] == [{"type": "field", "value": ["scalars", "userMetadata.a"]},
                                  {"type": "hexstr", "value": "0x7"}]


def test_named_arguments_everywhere():
    src = program().replace("V1Switch(P(), VC(), I(), E(), CC(), D()) main;",
                            "V1Switch(dep = D(), p = P(), ig = I(), vr = VC(), eg = E(), ck = CC()) main;")
    src = src.replace("pkt.extract(hdr.eth);", "pkt.extract(hdr = hdr.eth);")
    src = src.replace("apply {  }\n}\ncontrol E", "apply { mark_to_drop(standard_metadata = sm); }\n}\ncontrol E")
    j = compile_src(src).json
    assert [p["name"] for p in j["pipelines"]] == ["ingress", "egress"]
    assert j["deparsers"][0]["order"] == ["eth"]
    assert any(p["op"] == "mark_to_drop" for p in all_prims(j))


def test_top_level_extern_instance():
    src = program(meta="bit<32> v;", top="register<bit<32>>(32w16) global_reg;",
                  ingress_apply="global_reg.read(meta.v, 32w1); global_reg.write(32w2, meta.v);",
                  egress_apply="global_reg.write(32w3, 32w9);")
    r = compile_src(src)
    assert [x["name"] for x in r.json["register_arrays"]] == ["global_reg"]
    assert r.p4info.registers[0].preamble.name == "global_reg"


def test_table_apply_in_complex_condition():
    src = program(meta="bit<8> a;", ingress_locals="""
    table t1 { key = { hdr.eth.dst: exact; } actions = { NoAction; } }
    table t2 { key = { hdr.eth.src: exact; } actions = { NoAction; } }""",
                  ingress_apply="if (meta.a == 1 && (t1.apply().hit || !t2.apply().miss)) { meta.a = 2; }")
    j = compile_src(src).json
    ing = find(j["pipelines"], "ingress")
    tables = {t["name"]: t for t in ing["tables"]}
    cond = find(ing["conditionals"], ing["init_table"])
    assert cond["true_next"] == "I.t1" and cond["false_next"] is None
    then = tables["I.t1"]["next_tables"]["__HIT__"]
    assert then.startswith("tbl_")
    assert tables["I.t1"]["next_tables"]["__MISS__"] == "I.t2"
    assert tables["I.t2"]["next_tables"] == {"__HIT__": then, "__MISS__": None}


def test_table_action_with_bound_directional_args_copies_out():
    src = program(meta="bit<16> h;", ingress_locals="""
    action bump(inout bit<16> v, bit<16> step) { v = v + step; }
    table t { key = { hdr.eth.dst: exact; } actions = { bump(meta.h); } }""", ingress_apply="t.apply();")
    j = compile_src(src).json
    act = find(j["actions"], "I.bump")
    assert act["runtime_data"] == [{"name": "step", "bitwidth": 16}]
    p = act["primitives"]
    assert p[0]["parameters"][1] == {"type": "field", "value": ["scalars", "userMetadata.h"]}  # copy in
    assert p[-1]["parameters"][0] == {"type": "field", "value": ["scalars", "userMetadata.h"]}  # copy out


def test_optional_keys_are_ternary_in_json_and_optional_in_p4info():
    src = program(ingress_locals="""
    action set(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { hdr.eth.etherType: optional; }
        actions = { set; NoAction; }
        const entries = {
            0x0800: set(1);
            _: set(2);
        }
    }""", ingress_apply="t.apply();")
    r = compile_src(src)
    t = ingress_tables(r.json)[0]
    # simple_switch knows no `optional` match type: p4c writes such keys as ternary.
    assert [k["match_type"] for k in t["key"]] == ["ternary"]
    assert t["match_type"] == "ternary"
    e0, e1 = t["entries"]
    assert e0["match_key"][0] == {"match_type": "ternary", "key": "0x0800", "mask": "0xffff"}
    assert e1["match_key"][0] == {"match_type": "ternary", "key": "0x0000", "mask": "0x0000"}
    from p4.config.v1 import p4info_pb2
    assert r.p4info.tables[0].match_fields[0].match_type == p4info_pb2.MatchField.OPTIONAL


def test_value_too_wide_keeps_low_bits_with_a_warning():
    # p4c warns (value does not fit) and keeps the low bits; a compile error would refuse
    # programs p4c accepts
    r = conftest.compile_src(program(meta="bit<8> a;", top="const bit<4> X = 20;", ingress_apply="meta.a = (bit<8>)X;"))
    assert [w.message for w in r.warnings] == ["value 20 does not fit in bit<4> (constant 'X'); only its low 4 bits are kept"]
    assert all_prims(r.json)[0]["parameters"][1] == {"type": "hexstr", "value": "0x4"}
