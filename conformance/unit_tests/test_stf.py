"""STF parser: every command form p4stf accepts, and the errors for bad lines."""
import pytest

from p4stf import stf


def one(text):
    cmds = stf.parse(text)
    assert len(cmds) == 1
    return cmds[0]


def test_packet_hex_with_spaces_and_comment():
    c = one("packet 3 0102 03 04  # trailing comment")
    assert isinstance(c, stf.Packet) and c.port == 3 and c.data == b"\x01\x02\x03\x04"


def test_expect_wildcards_and_exact_length():
    c = one("expect 1 01** 0203 $")
    assert c.port == 1 and c.pattern == "01**0203" and c.exact
    c = one("expect 2 aabb")
    assert c.pattern == "AABB" and not c.exact


def test_expect_without_data_means_any_packet():
    c = one("expect 4")
    assert c.port == 4 and c.pattern is None


@pytest.mark.parametrize("bad", ["packet 1 123", "packet 1 zz", "expect 1 12$34", "packet",
                                 "frobnicate 1", "add t k:1", "mc_node_associate 1"])
def test_bad_lines_name_the_line(bad):
    with pytest.raises(stf.StfError, match=r"x.stf:line 2:"):
        stf.parse("# first\n" + bad, "x.stf")


def test_add_exact_with_priority_and_action_args():
    c = one("add MyIngress.t 10 hdr.h.a:0x0a h.b:5 MyIngress.fwd(port:2, mac:0xaabb)")
    assert c.table == "MyIngress.t" and c.priority == 10
    assert [(k.name, k.kind, k.value) for k in c.keys] == [("hdr.h.a", "value", 10), ("h.b", "value", 5)]
    assert c.action.name == "MyIngress.fwd" and c.action.args == [("port", 2), ("mac", 0xAABB)]


def test_add_without_priority_and_no_args():
    c = one("add t a:1 drop()")
    assert c.priority is None and c.action.name == "drop" and c.action.args == []


def test_add_lpm_ternary_range_and_nibble_masks():
    c = one("add t a:0x0a000000/8 b:0x12&&&0xf0 c:3->7 d:0x**01 e:0b1*0 f:0x0a00 act()")
    a, b, cc, d, e, f = c.keys
    assert (a.kind, a.value, a.prefix) == ("lpm", 0x0A000000, 8)
    assert (b.kind, b.value, b.mask) == ("ternary", 0x12, 0xF0)
    assert (cc.kind, cc.value, cc.high) == ("range", 3, 7)
    assert (d.kind, d.value, d.mask) == ("ternary", 0x0001, 0x00FF)
    assert (e.kind, e.value, e.mask) == ("ternary", 0b100, 0b101)
    assert (f.kind, f.value, f.nibbles) == ("value", 0x0A00, 4)


def test_add_with_handle_suffix():
    c = one("add t 5 a:1 act(x:1) = H1")
    assert c.handle == "H1" and c.action.args == [("x", 1)]


def test_setdefault():
    c = one("setdefault MyIngress.t MyIngress.set(v:0x10)")
    assert isinstance(c, stf.SetDefault) and c.action.args == [("v", 16)]


def test_multicast_node_handles_count_from_zero():
    cmds = stf.parse("mc_mgrp_create 1\nmc_node_create 5 1 2\nmc_node_create 6 3\n"
                     "mc_node_associate 1 0\nmc_node_associate 1 1\n")
    nodes = [c for c in cmds if isinstance(c, stf.McNodeCreate)]
    assert [(n.rid, n.ports, n.handle) for n in nodes] == [(5, [1, 2], 0), (6, [3], 1)]
    assert isinstance(cmds[0], stf.McGroupCreate) and cmds[0].group == 1


def test_mirroring_add_and_mc():
    a, b = stf.parse("mirroring_add 5 3\nmirroring_add_mc 6 1\n")
    assert (a.session, a.port, a.group) == (5, 3, None)
    assert (b.session, b.port, b.group) == (6, None, 1)


def test_counters_registers_meters_wait():
    c, r, w, m, wt = stf.parse("check_counter ig.cnt(3) bytes >= 64\nregister_read r 2 0x10\n"
                               "register_write r 1 7\nmeter_config m 0 1 1 1 2\nwait\n")
    assert (c.counter, c.index, c.kind, c.op, c.value) == ("ig.cnt", 3, "bytes", ">=", 64)
    assert (r.register, r.index, r.expected) == ("r", 2, 16)
    assert (w.register, w.index, w.value) == ("r", 1, 7)
    assert (m.cir, m.cburst, m.pir, m.pburst) == (1, 1, 1, 2)
    assert isinstance(wt, stf.Wait)


def test_action_profile_commands():
    m, g, a = stf.parse("member_add ap 1 fwd(port:2)\ngroup_add ap 10 1 2\nadd t k:1 group(10)\n")
    assert (m.profile, m.member, m.action.name) == ("ap", 1, "fwd")
    assert (g.group, g.members) == (10, [1, 2])
    assert a.action.name == "group" and a.action.args == [("", 10)]


def test_value_set_add():
    c = one("value_set_add pvs 0x1234&&&0xff00")
    assert isinstance(c, stf.ValueSetAdd) and c.value_set == "pvs"
    assert (c.key.kind, c.key.value, c.key.mask) == ("ternary", 0x1234, 0xFF00)


def test_whole_corpus_parses():
    import glob, os
    here = os.path.dirname(os.path.abspath(__file__))
    files = glob.glob(os.path.join(here, "..", "tests", "*", "*.stf"))
    assert len(files) >= 80
    for f in files:
        assert os.path.exists(f[:-4] + ".p4"), f
        cmds = stf.parse_file(f)
        assert any(isinstance(c, stf.Packet) for c in cmds), f


def test_check_digest():
    a, b = stf.parse("check_digest learn_t 2\ncheck_digest ig.d >= 1\n")
    assert (a.digest, a.op, a.count) == ("learn_t", "==", 2)
    assert (b.digest, b.op, b.count) == ("ig.d", ">=", 1)


def test_add_key_with_call_in_name():
    c = one("add t h.tag.isValid():1 b1:0x05 fwd(port:3)")
    assert [(k.name, k.value) for k in c.keys] == [("h.tag.isValid()", 1), ("b1", 5)]
    assert c.action.name == "fwd" and c.action.args == [("port", 3)]


def test_check_direct_counter():
    c = one("check_direct_counter ig.t f1:0x01 b1:0x10&&&0xf0 bytes == 56")
    assert c.table == "ig.t" and [k.name for k in c.keys] == ["f1", "b1"]
    assert (c.kind, c.op, c.value) == ("bytes", "==", 56)
    c = one("check_direct_counter t f1:1 >= 2")
    assert (c.kind, c.op, c.value) == (None, ">=", 2)


def test_meter_configs_and_reset():
    m, r, d = stf.parse("meter_config mt 1 1 1 1 2\nmeter_config mt 1 -1 -1 -1 -1\n"
                        "direct_meter_config t f1:1 10 5 20 8\n")
    assert (m.cir, m.cburst, m.pir, m.pburst) == (1, 1, 1, 2)
    assert (r.cir, r.cburst, r.pir, r.pburst) == (-1, -1, -1, -1)
    assert d.table == "t" and [k.name for k in d.keys] == ["f1"] and d.rates == (10, 5, 20, 8)


def test_check_digest_data():
    c = one("check_digest_data learn_t 0xa 0")
    assert (c.digest, c.values) == ("learn_t", [10, 0])


# --- the rest of p4c's grammar (tools/stf/stf_parser.py, bmv2stf.py's CLI commands) ---

def test_remove_all_and_no_packet():
    r, n = stf.parse("remove all\nno_packet\n")
    assert isinstance(r, stf.RemoveAll) and isinstance(n, stf.NoPacket)
    with pytest.raises(stf.StfError, match="remove all"):
        stf.parse("remove t k:1\n")


def test_check_counter_by_entry_handle_and_counter_read():
    a, b, c = stf.parse("check_counter cnt($A) packets == 1\ncheck_counter cnt($B)\n"
                        "counter_read ingress.c 4\n")
    assert (a.counter, a.index, a.handle, a.kind, a.op, a.value) == ("cnt", None, "A", "packets", "==", 1)
    assert (b.handle, b.op, b.value) == ("B", "==", 0)
    assert (c.counter, c.index, c.op) == ("ingress.c", 4, None)  # read only, as p4c prints it


def test_counter_write():
    c = one("counter_write c 3 10 640")
    assert (c.counter, c.index, c.packets, c.bytes) == ("c", 3, 10, 640)


def test_register_reset_and_read_without_value():
    r, rd = stf.parse("register_reset cIngress.regfile\nregister_read cIngress.regfile 5\n")
    assert isinstance(r, stf.RegisterReset) and r.register == "cIngress.regfile"
    assert (rd.index, rd.expected) == (5, None)


def test_meter_set_get_rates_in_cli_units():
    s, a, g = stf.parse("meter_set_rates cIngress.meter0 2 0.000005:4 0.00002:5\n"
                        "meter_array_set_rates m 0.000006:7 0.00008:9\nmeter_get_rates m 1\n")
    assert (s.meter, s.index, s.rates) == ("cIngress.meter0", 2, [(0.000005, 4), (0.00002, 5)])
    assert (a.meter, a.index, a.rates) == ("m", None, [(0.000006, 7), (0.00008, 9)])
    assert (g.meter, g.index) == ("m", 1)
    with pytest.raises(stf.StfError, match="RATE:BURST"):
        stf.parse("meter_set_rates m 1 5\n")


def test_mirroring_delete_get_and_node_update():
    d, g, u = stf.parse("mirroring_delete 5\nmirroring_get 8\nmc_node_update 0 1 2 3\n")
    assert isinstance(d, stf.MirroringDelete) and d.session == 5
    assert isinstance(g, stf.MirroringGet) and g.session == 8
    assert (u.handle, u.ports) == (0, [1, 2, 3])


def test_quoted_names_and_stack_keys():
    c = one('add "ingress.t" extra$0.h:0x25** "ingress.act"(val:0x25)')
    assert c.table == "ingress.t" and c.action.name == "ingress.act"
    assert (c.keys[0].name, c.keys[0].value, c.keys[0].mask) == ("extra$0.h", 0x2500, 0xFF00)


def test_priority_zero_and_lpm_nibble_wildcards():
    c = one("add test1 0 data.f1:0x****0101 ingress.setb1(val:0x7f, port:2)")
    assert c.priority == 0 and (c.keys[0].value, c.keys[0].mask) == (0x0101, 0x0000FFFF)
    c = one("add t ip:0x0a****** act()")
    assert (c.keys[0].kind, c.keys[0].value, c.keys[0].mask, c.keys[0].nibbles) == \
        ("ternary", 0x0A000000, 0xFF000000, 8)


def test_every_p4c_stf_command_is_known():
    # The command words of p4c's grammar (stf_parser.py) and of the simple_switch_CLI
    # commands bmv2stf.py passes through: none is an unknown command.
    words = ["packet 0 00", "expect 0", "no_packet", "add t k:1 a()", "setdefault t a()", "remove all",
             "wait", "check_counter c(1)", "mirroring_add 1 2", "mirroring_add_mc 1 2", "mirroring_delete 1",
             "mirroring_get 1", "mc_mgrp_create 1", "mc_node_create 1 2", "mc_node_update 0 2",
             "mc_node_associate 1 0", "counter_read c 1", "counter_write c 1 2 3", "register_read r 1",
             "register_write r 1 2", "register_reset r", "meter_get_rates m 1",
             "meter_set_rates m 1 0.1:1 0.2:2", "meter_array_set_rates m 0.1:1 0.2:2"]
    cmds = stf.parse("\n".join(words))
    assert len(cmds) == len(words)
