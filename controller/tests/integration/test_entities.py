"""Every P4Runtime entity kind written through p4rt into a real switch and read back."""

from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2

from p4rt import (
    Action,
    ActionProfileGroup,
    ActionProfileMember,
    CloneSessionEntry,
    CounterData,
    CounterEntry,
    DigestEntry,
    DirectCounterEntry,
    DirectMeterEntry,
    GroupMember,
    MeterConfig,
    MeterEntry,
    MulticastGroupEntry,
    P4RuntimeWriteError,
    RegisterEntry,
    Replica,
    TableEntry,
    delete,
    insert,
    modify,
)

from bmv2 import is_bmv2, skip_on_bmv2

HOST1_MAC = "00:00:00:00:00:01"
HOST2_MAC = "00:00:00:00:00:02"


def route(prefix: str, port: int = 1, dmac: str = HOST1_MAC) -> TableEntry:
    """An ipv4_lpm entry."""
    return TableEntry("ipv4_lpm", {"dst_addr": prefix}, Action("set_nhop", {"dmac": dmac, "port": port}))


def acl_rule(src: str, mask: str, types: tuple[int, int], port: int | None, prio: int) -> TableEntry:
    """An acl entry (ternary, range and optional fields)."""
    match = {"src_addr": (src, mask), "ether_type": types}
    if port is not None:
        match["ingress_port"] = port
    return TableEntry("acl", match, Action("acl_deny"), priority=prio)


def read_table(sw, table: str, **kwargs) -> list[TableEntry]:
    """All entries of one table (wildcard read)."""
    return list(sw.read(TableEntry(table, **kwargs)))


def test_capabilities(sw):
    assert sw.capabilities().startswith("1.")


def test_exact_entry_insert_read_modify_delete(sw):
    entry = TableEntry("l2_exact", {"dst_addr": HOST1_MAC}, Action("set_port", {"port": 2}))
    sw.insert(entry)
    [got] = read_table(sw, "l2_exact")
    assert got.match == {"hdr.ethernet.dst_addr": 1}
    assert got.action == Action("RtIngress.set_port", {"port": 2})
    entry.action = Action("flood", {"group": 7})
    sw.modify(entry)
    [got] = read_table(sw, "l2_exact")
    assert got.action == Action("RtIngress.flood", {"group": 7})
    sw.delete(entry)
    assert read_table(sw, "l2_exact") == []


def test_lpm_entries_and_wildcard_reads(sw):
    sw.insert([route("10.0.0.0/8"), route("10.1.0.0/16", 2), route("0.0.0.0/0", 3)])
    got = {e.match.get("hdr.ipv4.dst_addr"): e.action.params["port"] for e in read_table(sw, "ipv4_lpm")}
    assert got == {(0x0A000000, 8): 1, (0x0A010000, 16): 2, None: 3}
    sw.insert(TableEntry("l2_exact", {"dst_addr": HOST2_MAC}, Action("drop")))
    every = list(sw.read(TableEntry()))
    tables = sorted(e.table for e in every if not e.is_const)
    assert tables == ["RtIngress.ipv4_lpm"] * 3 + ["RtIngress.l2_exact"]


def test_ternary_range_optional_with_priorities(sw):
    rules = [
        acl_rule("0a:00:00:00:00:00", "ff:00:00:00:00:00", (0x0800, 0x08FF), 1, 10),
        acl_rule("0a:00:00:00:00:00", "ff:00:00:00:00:00", (0x0800, 0x08FF), None, 20),
        acl_rule("00:00:00:00:00:00", "00:00:00:00:00:00", (0, 0xFFFF), 2, 5),
    ]
    sw.insert(rules)
    got = sorted(read_table(sw, "acl"), key=lambda e: e.priority)
    assert [e.priority for e in got] == [5, 10, 20]
    assert got[0].match == {"standard_metadata.ingress_port": 2}  # wildcards are left out
    assert got[1].match["hdr.ethernet.ether_type"] == (0x0800, 0x08FF)
    assert got[1].match["hdr.ethernet.src_addr"] == (0x0A0000000000, 0xFF0000000000)
    assert "standard_metadata.ingress_port" not in got[2].match
    # Same match, different priority: a different entry.
    sw.delete(rules[1])
    assert [e.priority for e in read_table(sw, "acl")] != []
    assert 20 not in [e.priority for e in read_table(sw, "acl")]


def test_padded_bytestrings_accepted_and_read_back_canonical(sw):
    raw = route("10.0.0.0/8").encode(sw.schema)
    raw.table_entry.match[0].lpm.value = b"\x00\x00\x0a\x00\x00\x00"
    raw.table_entry.action.action.params[1].value = b"\x00\x00\x01"
    sw.write([insert(raw)])
    [msg] = list(sw.read_raw([p4runtime_pb2.Entity(table_entry={"table_id": sw.schema.table("ipv4_lpm").id})]))
    assert msg.table_entry.match[0].lpm.value == b"\x0a\x00\x00\x00"
    assert msg.table_entry.action.action.params[1].value == b"\x01"
    assert msg == route("10.0.0.0/8").encode(sw.schema)


def test_default_entry_modify_read_and_reset(sw):
    [initial] = read_table(sw, "ipv4_lpm", is_default=True)
    assert initial.is_default and initial.action.name == "RtIngress.drop"
    sw.modify(TableEntry("ipv4_lpm", action=Action("set_nhop", {"dmac": HOST2_MAC, "port": 4}), is_default=True))
    [changed] = read_table(sw, "ipv4_lpm", is_default=True)
    assert changed.action == Action("RtIngress.set_nhop", {"dmac": 2, "port": 4})
    sw.write([modify(TableEntry("ipv4_lpm", is_default=True))])  # no action: back to the P4 default
    [reset] = read_table(sw, "ipv4_lpm", is_default=True)
    assert reset.action.name == "RtIngress.drop"


def test_const_entries_are_readable_and_immutable(sw):
    got = read_table(sw, "fixed")
    assert {e.match["hdr.ethernet.ether_type"]: e.action.name for e in got} == {
        0x9999: "RtIngress.drop", 0x9998: "NoAction"}
    assert all(e.is_const for e in got)
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.insert(TableEntry("fixed", {"ether_type": 0x1234}, Action("drop")))
    [error] = err.value.errors
    # BMv2 refuses the write too, but with UNKNOWN ("Error when adding match entry to target").
    refusals = ("PERMISSION_DENIED", "INVALID_ARGUMENT", *(("UNKNOWN",) if is_bmv2() else ()))
    assert error.index == 0 and error.code in refusals
    with pytest.raises(P4RuntimeWriteError):
        sw.delete(TableEntry("fixed", {"ether_type": 0x9999}))
    with pytest.raises(P4RuntimeWriteError):
        sw.modify(TableEntry("fixed", action=Action("drop"), is_default=True))
    assert len(read_table(sw, "fixed")) == 2
    [default] = read_table(sw, "fixed", is_default=True)
    assert default.action.name == "NoAction"


def test_direct_counter(sw):
    entry = route("10.2.0.0/16")
    sw.insert(entry)
    [cell] = list(sw.read(DirectCounterEntry(TableEntry("ipv4_lpm", entry.match))))
    assert cell.data == CounterData(0, 0)
    sw.modify(DirectCounterEntry(TableEntry("ipv4_lpm", entry.match), CounterData(packets=7, bytes=700)))
    [cell] = list(sw.read(DirectCounterEntry(TableEntry("ipv4_lpm", entry.match))))
    assert cell.data == CounterData(7, 700)
    [with_counts] = read_table(sw, "ipv4_lpm", counter_data=CounterData())
    assert with_counts.counter_data == CounterData(7, 700)


def test_direct_meter(sw):
    rule = acl_rule("0a:00:00:00:00:00", "ff:00:00:00:00:00", (1, 2), None, 1)
    rule.meter_config = MeterConfig(cir=100, cburst=10, pir=200, pburst=20)
    sw.insert(rule)
    key = TableEntry("acl", rule.match, priority=1)
    [cell] = list(sw.read(DirectMeterEntry(key)))
    assert cell.config == MeterConfig(100, 10, 200, 20)
    sw.modify(DirectMeterEntry(key, MeterConfig(1000, 100, 2000, 200)))
    [cell] = list(sw.read(DirectMeterEntry(key)))
    assert cell.config == MeterConfig(1000, 100, 2000, 200)


def test_indexed_counter(sw):
    sw.modify(CounterEntry("port_counter", 5, CounterData(packets=3, bytes=300)))
    [cell] = list(sw.read(CounterEntry("port_counter", 5)))
    assert cell.data == CounterData(3, 300)
    cells = list(sw.read(CounterEntry("port_counter")))
    assert len(cells) == 512 and sorted(c.index for c in cells) == list(range(512))
    sw.modify(CounterEntry("port_counter", 5, CounterData()))


def test_indexed_meter_set_and_reset(sw):
    sw.modify(MeterEntry("port_meter", 3, MeterConfig(10, 5, 20, 10)))
    [cell] = list(sw.read(MeterEntry("port_meter", 3)))
    assert cell.config == MeterConfig(10, 5, 20, 10)
    sw.modify(MeterEntry("port_meter", 3, MeterConfig(-1, -1, -1, -1)))
    [cell] = list(sw.read(MeterEntry("port_meter", 3)))
    assert cell.config is None  # unconfigured again
    assert len(list(sw.read(MeterEntry("port_meter")))) == 16


def test_register(sw):
    skip_on_bmv2("PI answers UNIMPLEMENTED to register writes")
    sw.modify(RegisterEntry("flow_reg", 9, 0xDEADBEEF))
    [cell] = list(sw.read(RegisterEntry("flow_reg", 9)))
    assert cell.value == 0xDEADBEEF
    assert len(list(sw.read(RegisterEntry("flow_reg")))) == 64
    sw.modify(RegisterEntry("flow_reg", 9, 0))


def test_action_profile_members_groups_and_one_shot(sw):
    members = [
        ActionProfileMember("ecmp_selector", m, Action("set_nhop", {"dmac": HOST1_MAC, "port": m}))
        for m in (1, 2, 3)
    ]
    sw.insert(members)
    sw.insert(ActionProfileGroup("ecmp_selector", 10, [GroupMember(1), GroupMember(2, weight=2)], max_size=8))
    sw.insert(TableEntry("ecmp", {"dst_addr": "10.0.0.1"}, group_id=10))
    sw.insert(TableEntry("ecmp", {"dst_addr": "10.0.0.2"}, member_id=3))
    read_members = sorted(sw.read(ActionProfileMember("ecmp_selector")), key=lambda m: m.member_id)
    if is_bmv2():  # PI programs a member of weight 2 twice and reads it back twice
        read_members = list({m.member_id: m for m in read_members}.values())
    assert [m.member_id for m in read_members] == [1, 2, 3]
    assert read_members[2].action.params["port"] == 3
    [group] = list(sw.read(ActionProfileGroup("ecmp_selector")))
    assert group.group_id == 10
    assert sorted((m.member_id, m.weight) for m in group.members) == [(1, 1), (2, 2)]
    sw.modify(ActionProfileGroup("ecmp_selector", 10, [GroupMember(3)], max_size=8))
    [group] = list(sw.read(ActionProfileGroup("ecmp_selector", 10)))
    assert [m.member_id for m in group.members] == [3]
    entries = {e.match["hdr.ipv4.dst_addr"]: e for e in read_table(sw, "ecmp")}
    assert entries[0x0A000001].group_id == 10 and entries[0x0A000002].member_id == 3


def test_one_shot_action_set(sw):
    sw.insert(TableEntry("ecmp", {"dst_addr": "10.9.9.9"}, one_shot=[
        (Action("set_nhop", {"dmac": HOST1_MAC, "port": 1}), 1),
        (Action("set_nhop", {"dmac": HOST2_MAC, "port": 2}), 1),
    ]))
    [entry] = read_table(sw, "ecmp")
    assert entry.one_shot == [
        (Action("RtIngress.set_nhop", {"dmac": 1, "port": 1}), 1),
        (Action("RtIngress.set_nhop", {"dmac": 2, "port": 2}), 1),
    ]


def test_multicast_groups(sw):
    sw.insert(MulticastGroupEntry(1, [Replica(1), Replica(2), Replica(2, 1)]))
    [group] = list(sw.read(MulticastGroupEntry(1)))
    assert sorted((r.port, r.instance) for r in group.replicas) == [(1, 0), (2, 0), (2, 1)]
    sw.modify(MulticastGroupEntry(1, [Replica(3)]))
    [group] = list(sw.read(MulticastGroupEntry(1)))
    assert group.replicas == [Replica(3, 0)]
    sw.insert(MulticastGroupEntry(2, [Replica(1)]))
    assert sorted(g.group_id for g in sw.read(MulticastGroupEntry())) == [1, 2]
    sw.delete(MulticastGroupEntry(1))
    assert [g.group_id for g in sw.read(MulticastGroupEntry())] == [2]


def test_clone_sessions(sw):
    sw.insert(CloneSessionEntry(5, [Replica(2)]))
    [session] = list(sw.read(CloneSessionEntry(5)))
    assert session.replicas == [Replica(2, 0)] and session.packet_length_bytes == 0
    sw.modify(CloneSessionEntry(5, [Replica(1)]))
    [session] = list(sw.read(CloneSessionEntry(5)))
    assert session.replicas == [Replica(1, 0)]
    sw.delete(CloneSessionEntry(5))
    assert list(sw.read(CloneSessionEntry())) == []


def test_clone_session_truncation(sw):
    skip_on_bmv2("no clone truncation (PI: packet_length_bytes != 0 is NOT_IMPLEMENTED_BY_TARGET)")
    sw.insert(CloneSessionEntry(6, [Replica(2)], packet_length_bytes=64))
    [session] = list(sw.read(CloneSessionEntry(6)))
    assert session.packet_length_bytes == 64


def test_digest_entry_config(sw):
    sw.insert(DigestEntry("mac_learn_t", max_list_size=10, max_timeout_ns=1_000_000, ack_timeout_ns=10**9))
    [cfg] = list(sw.read(DigestEntry("mac_learn_t")))
    assert (cfg.max_list_size, cfg.max_timeout_ns, cfg.ack_timeout_ns) == (10, 1_000_000, 10**9)
    sw.modify(DigestEntry("mac_learn_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=10**9))
    [cfg] = list(sw.read(DigestEntry("mac_learn_t")))
    assert cfg.max_list_size == 1
    sw.delete(DigestEntry("mac_learn_t"))


def test_batched_writes(sw):
    routes = [route(f"10.{i // 256}.{i % 256}.0/24") for i in range(2500)]
    sw.insert(routes, batch_size=1000)
    assert len(read_table(sw, "ipv4_lpm")) == 2500
    sw.write([delete(r) for r in routes], batch_size=700)
    assert read_table(sw, "ipv4_lpm") == []


def test_batched_writes_in_flight(sw):
    # Independent updates may keep several Write RPCs outstanding; every one is applied.
    routes = [route(f"10.{i // 256}.{i % 256}.0/24") for i in range(2500)]
    sw.insert(routes, batch_size=300, in_flight=4)
    assert len(read_table(sw, "ipv4_lpm")) == 2500
    sw.write_batches([[delete(r) for r in routes[:1000]], [], [delete(r) for r in routes[1000:]]], in_flight=2)
    assert read_table(sw, "ipv4_lpm") == []


def test_delete_all_gives_a_clean_slate(sw):
    sw.insert([route("10.0.0.0/8"), TableEntry("l2_exact", {"dst_addr": HOST1_MAC}, Action("drop"))])
    sw.insert(acl_rule("0a:00:00:00:00:00", "ff:00:00:00:00:00", (1, 2), None, 1))
    sw.insert(ActionProfileMember("ecmp_selector", 1, Action("set_nhop", {"dmac": HOST1_MAC, "port": 1})))
    sw.insert(ActionProfileGroup("ecmp_selector", 2, [GroupMember(1)]))
    sw.insert(TableEntry("ecmp", {"dst_addr": "10.0.0.1"}, group_id=2))
    sw.insert(MulticastGroupEntry(3, [Replica(1)]))
    sw.insert(CloneSessionEntry(4, [Replica(1)]))
    sw.insert(DigestEntry("mac_learn_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=10**9))
    sw.modify(TableEntry("l2_exact", action=Action("drop"), is_default=True))
    assert sw.delete_all() == 9
    assert [e for e in sw.read(TableEntry()) if not e.is_const and not e.is_default] == []
    assert list(sw.read(ActionProfileMember())) == [] and list(sw.read(ActionProfileGroup())) == []
    assert list(sw.read(MulticastGroupEntry())) == [] and list(sw.read(CloneSessionEntry())) == []
    [default] = read_table(sw, "l2_exact", is_default=True)
    assert default.action.name == "NoAction"
