"""The classic basic L3 program compiles to the JSON/P4Info p4c would emit for it."""
import os

from conftest import HERE, compile_file, find


def basic():
    return compile_file(os.path.join(HERE, "programs", "basic.p4"))


def test_headers_and_types():
    j = basic().json
    assert [h["name"] for h in j["headers"]] == ["scalars", "standard_metadata", "ethernet", "ipv4"]
    ipv4 = find(j["header_types"], "ipv4_t")
    assert ipv4["fields"][0] == ["version", 4, False]
    assert sum(f[1] for f in ipv4["fields"]) == 160
    sm = find(j["header_types"], "standard_metadata")
    assert ["egress_spec", 9, False] in sm["fields"]
    assert sum(f[1] for f in sm["fields"]) % 8 == 0
    assert ["intrinsic_metadata.mcast_grp", ["standard_metadata", "mcast_grp"]] in j["field_aliases"]
    assert j["__meta__"]["version"][0] == 2


def test_parser():
    j = basic().json
    p = j["parsers"][0]
    assert p["name"] == "parser" and p["init_state"] == "start"
    eth = find(p["parse_states"], "parse_ethernet")
    assert eth["parser_ops"][0]["op"] == "extract"
    assert eth["parser_ops"][0]["parameters"] == [{"type": "regular", "value": "ethernet"}]
    assert eth["transition_key"] == [{"type": "field", "value": ["ethernet", "etherType"]}]
    assert eth["transitions"][0] == {"type": "hexstr", "value": "0x0800", "mask": None, "next_state": "parse_ipv4"}
    assert eth["transitions"][-1]["type"] == "default" and eth["transitions"][-1]["next_state"] is None


def test_ingress_table_and_actions():
    j = basic().json
    ing = find(j["pipelines"], "ingress")
    t = find(ing["tables"], "MyIngress.ipv4_lpm")
    assert t["match_type"] == "lpm"
    assert t["key"] == [{"match_type": "lpm", "name": "hdr.ipv4.dstAddr", "target": ["ipv4", "dstAddr"], "mask": None}]
    assert t["actions"] == ["MyIngress.ipv4_forward", "MyIngress.drop", "NoAction"]
    drop = find(j["actions"], "MyIngress.drop")
    assert t["default_entry"]["action_id"] == drop["id"]
    assert drop["primitives"][0]["op"] == "mark_to_drop"
    fwd = find(j["actions"], "MyIngress.ipv4_forward")
    assert fwd["runtime_data"] == [{"name": "dstAddr", "bitwidth": 48}, {"name": "port", "bitwidth": 9}]
    assert [p["op"] for p in fwd["primitives"]] == ["assign"] * 4
    cond = find(ing["conditionals"], ing["init_table"])
    assert cond["expression"]["value"]["op"] == "d2b"
    assert cond["true_next"] == "MyIngress.ipv4_lpm" and cond["false_next"] is None


def test_checksum_and_deparser():
    j = basic().json
    ck = j["checksums"][0]
    assert ck["target"] == ["ipv4", "hdrChecksum"] and ck["update"] and not ck["verify"]
    calc = find(j["calculations"], ck["calculation"])
    assert calc["algo"] == "csum16" and len(calc["input"]) == 11
    assert j["deparsers"][0]["order"] == ["ethernet", "ipv4"]


def test_p4info():
    info = basic().p4info
    t = info.tables[0]
    assert t.preamble.name == "MyIngress.ipv4_lpm" and t.preamble.alias == "ipv4_lpm"
    assert t.preamble.id >> 24 == 0x02
    assert t.match_fields[0].name == "hdr.ipv4.dstAddr" and t.match_fields[0].bitwidth == 32
    assert t.size == 1024
    names = {a.preamble.name: a for a in info.actions}
    assert set(names) == {"MyIngress.ipv4_forward", "MyIngress.drop", "NoAction"}
    assert all(a.preamble.id >> 24 == 0x01 for a in info.actions)
    assert [(p.name, p.bitwidth) for p in names["MyIngress.ipv4_forward"].params] == [("dstAddr", 48), ("port", 9)]


def test_ids_stable():
    a, b = basic().p4info, basic().p4info
    assert a.SerializeToString() == b.SerializeToString()
