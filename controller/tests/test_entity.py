"""Entity builders and decoders: each encodes to the expected protobuf and decodes back symmetrically."""

from __future__ import annotations

import pytest
from google.protobuf import text_format
from p4.v1 import p4runtime_pb2

from p4rt import (
    Action,
    ActionProfileGroup,
    ActionProfileMember,
    CloneSessionEntry,
    CounterData,
    CounterEntry,
    DigestEntry,
    DigestList,
    DirectCounterEntry,
    DirectMeterEntry,
    EntityError,
    GroupMember,
    IdleTimeout,
    MeterConfig,
    MeterCounterData,
    MeterEntry,
    MulticastGroupEntry,
    PacketIn,
    PacketOut,
    RegisterEntry,
    Replica,
    TableEntry,
    ValueSetEntry,
    decode_entity,
    insert,
    table_entry_key,
)

LPM_ENTRY = TableEntry("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": "10.0.0.0/8"},
                       Action("MyIngress.set_nhop", {"dmac": "00:00:00:00:00:01", "port": 1}))
ACL_ENTRY = TableEntry(
    "MyIngress.acl",
    {"hdr.ethernet.srcAddr": (0x0A0000000000, 0xFF0000000000), "hdr.tcp.dstPort": (80, 443), "meta.vlan": 10,
     "standard_metadata.ingress_port": 3},
    Action("MyIngress.drop"), priority=10, idle_timeout_ns=2_000_000_000,
    meter_config=MeterConfig(100, 10, 200, 20),
)

# Entities as a user writes them and as the switch returns them (full names, ints unless @format).
ROUND_TRIPS = {
    "table-lpm": LPM_ENTRY,
    "table-ternary-range-optional": ACL_ENTRY,
    "table-default": TableEntry("MyIngress.ipv4_lpm", action=Action("NoAction"), is_default=True),
    "table-counter-data": TableEntry("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": "10.1.0.0/16"},
                                     Action("MyIngress.drop"), counter_data=CounterData(3, 300)),
    "table-member": TableEntry("MyIngress.ecmp", {"hdr.ipv4.dstAddr": 5}, member_id=7),
    "table-group": TableEntry("MyIngress.ecmp", {"hdr.ipv4.dstAddr": 6}, group_id=8),
    "table-one-shot": TableEntry("MyIngress.ecmp", {"hdr.ipv4.dstAddr": 7}, one_shot=[
        (Action("MyIngress.set_nhop", {"dmac": "00:00:00:00:00:02", "port": 2}), 1),
        (Action("MyIngress.set_nhop", {"dmac": "00:00:00:00:00:03", "port": 3}), 2),
    ]),
    "table-meter-counts": TableEntry("MyIngress.acl", {"standard_metadata.ingress_port": 1}, Action("NoAction"),
                                     priority=1, meter_counter_data=MeterCounterData(CounterData(1, 64))),
    "table-wildcard-all": TableEntry(),
    "table-wildcard-one": TableEntry("MyIngress.ipv4_lpm"),
    "member": ActionProfileMember("MyIngress.ecmp_selector", 7,
                                  Action("MyIngress.set_nhop", {"dmac": "00:00:00:00:00:02", "port": 2})),
    "group": ActionProfileGroup("MyIngress.ecmp_selector", 8, [GroupMember(7, 1), GroupMember(9, 3)], max_size=4),
    "counter": CounterEntry("MyIngress.port_counter", 5, CounterData(packets=2, bytes=128)),
    "counter-wildcard": CounterEntry("MyIngress.port_counter"),
    "direct-counter": DirectCounterEntry(TableEntry("MyIngress.ipv4_lpm",
                                                    {"hdr.ipv4.dstAddr": "10.0.0.0/8"}),
                                         CounterData(1, 2)),
    "meter": MeterEntry("MyIngress.port_meter", 3, MeterConfig(1000, 100, 2000, 200)),
    "meter-counts": MeterEntry("MyIngress.port_meter", 3, None, MeterCounterData(red=CounterData(4, 400))),
    "direct-meter": DirectMeterEntry(TableEntry("MyIngress.acl", {"standard_metadata.ingress_port": 1}, priority=1),
                                     MeterConfig(10, 1, 20, 2)),
    "register": RegisterEntry("MyIngress.flow_reg", 9, 0xDEADBEEF),
    "register-signed": RegisterEntry("MyIngress.signed_reg", 1, -739),
    "register-wildcard": RegisterEntry("MyIngress.flow_reg"),
    "multicast": MulticastGroupEntry(1, [Replica(1, 0), Replica(2, 0), Replica(2, 1)]),
    "clone": CloneSessionEntry(5, [Replica(3, 0)], class_of_service=1, packet_length_bytes=128),
    "digest": DigestEntry("mac_learn_digest_t", max_list_size=10, max_timeout_ns=1_000_000, ack_timeout_ns=10**9),
    "digest-no-config": DigestEntry("mac_learn_digest_t"),
    "value-set": ValueSetEntry("MyParser.tpids", [{"etherType": 0x8100}, {"etherType": 0x88A8}]),
}


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_round_trip(schema, name):
    entity = ROUND_TRIPS[name]
    msg = entity.encode(schema)
    decoded = decode_entity(msg, schema)
    assert decoded.encode(schema) == msg
    if name not in ("table-lpm", "direct-counter"):  # those print addresses in @format style
        assert decoded == entity


def test_lpm_entry_encoding_is_canonical(schema):
    msg = LPM_ENTRY.encode(schema)
    expected = text_format.Parse(
        """table_entry { table_id: 33554433
             match { field_id: 1 lpm { value: "\\n\\000\\000\\000" prefix_len: 8 } }
             action { action { action_id: 16777217
                 params { param_id: 1 value: "\\001" } params { param_id: 2 value: "\\001" } } } }""",
        p4runtime_pb2.Entity(),
    )
    assert msg == expected
    decoded = decode_entity(msg, schema)
    assert decoded.match == {"hdr.ipv4.dstAddr": "10.0.0.0/8"}  # @format(IPV4_ADDRESS)
    assert decoded.action.params == {"dmac": "00:00:00:00:00:01", "port": 1}  # @format(MAC_ADDRESS)


@pytest.mark.parametrize(
    "match",
    [
        {"hdr.ethernet.srcAddr": (0, 0)},
        {"hdr.tcp.dstPort": (0, 65535)},
        {"meta.vlan": None},
    ],
    ids=["ternary-mask-0", "range-full", "optional-none"],
)
def test_wildcard_matches_are_omitted(schema, match):
    msg = TableEntry("acl", match, Action("drop"), priority=1).encode(schema)
    assert len(msg.table_entry.match) == 0


def test_lpm_zero_prefix_is_omitted(schema):
    msg = TableEntry("ipv4_lpm", {"dstAddr": "0.0.0.0/0"}, Action("drop")).encode(schema)
    assert len(msg.table_entry.match) == 0


def test_short_names_are_accepted(schema):
    short = TableEntry("ipv4_lpm", {"dstAddr": "10.0.0.0/8"}, Action("set_nhop", {"dmac": 1, "port": 1}))
    assert short.encode(schema) == LPM_ENTRY.encode(schema)


@pytest.mark.parametrize(
    "entity,message",
    [
        (TableEntry("ipv4_lmp"), "no table named 'ipv4_lmp'; did you mean"),
        (TableEntry("ipv4_lpm", {"dstAdr": 1}), "no match field of table MyIngress.ipv4_lpm named 'dstAdr'"),
        (TableEntry("ipv4_lpm", {"dstAddr": "10.0.0.1/8"}, Action("drop")), "bits set beyond its /8 prefix"),
        (TableEntry("ipv4_lpm", {"dstAddr": "10.0.0.0/8"}, Action("set_nhop", {"port": 1})),
         "missing parameter 'dmac'"),
        (TableEntry("ipv4_lpm", {"dstAddr": "10.0.0.0/8"}, Action("set_nhop", {"port": 512, "dmac": 1})),
         "parameter port (bit<9>): value 512 does not fit in bit<9>"),
        (TableEntry("ipv4_lpm", {"dstAddr": "10.0.0.0/8"}, Action("set_nhop", {"port": 1, "dmac": 1, "x": 2})),
         "unknown parameter(s) 'x'"),
        (TableEntry("MyEgress.acl", {"x": 1}, Action("drop")), "no action of table MyEgress.acl named 'drop'"),
        (TableEntry("ecmp", {"dstAddr": 1}, Action("set_nhop", {"port": 1, "dmac": 1}), member_id=1),
         "only one of"),
        (CounterEntry("port_countr", 1), "did you mean"),
        (RegisterEntry("flow_reg", 0, 1 << 32), "does not fit in bit<32>"),
        (PacketOut(b"x", {"egress_port": 1024}), "packet_out field egress_port (bit<9>)"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_bad_entities_name_the_fault(schema, entity, message):
    with pytest.raises(EntityError) as err:
        entity.encode(schema)
    assert message in str(err.value)


def test_update_describe(schema):
    assert insert(ACL_ENTRY).describe().startswith("INSERT table entry MyIngress.acl match")
    assert insert(ACL_ENTRY).encode(schema).type == p4runtime_pb2.Update.INSERT


def test_an_update_with_a_filler_sends_what_it_fills_and_is_named_by_its_entity(schema):
    """A caller holding an entity in canonical form encodes it itself (Update.fill); errors still name the entity."""
    from p4rt import Update
    given = ACL_ENTRY.encode(schema)
    update = Update("DELETE", ACL_ENTRY, lambda msg: msg.CopyFrom(given))
    assert update.encode(schema).entity == given and update.encode(schema).type == p4runtime_pb2.Update.DELETE
    assert update.describe().startswith("DELETE table entry MyIngress.acl match")


def test_packet_out_and_in(schema):
    out = PacketOut(b"\x01\x02", {"egress_port": 3, "flags": 1}).encode(schema)
    assert [(m.metadata_id, m.value) for m in out.metadata] == [(1, b"\x03"), (2, b"\x01")]
    pin = p4runtime_pb2.PacketIn(payload=b"abc")
    pin.metadata.add(metadata_id=1, value=b"\x00\x05")
    pin.metadata.add(metadata_id=2, value=b"\x02")
    assert PacketIn.decode(pin, schema) == PacketIn(b"abc", {"ingress_port": 5, "reason": 2})
    assert PacketIn.decode(pin, None).metadata == {"1": 5, "2": 2}


def test_digest_list_decodes_struct_members(schema):
    msg = p4runtime_pb2.DigestList(digest_id=385875969, list_id=4, timestamp=99)
    data = msg.data.add()
    data.struct.members.add(bitstring=b"\x00\x11\x22\x33\x44\x55")
    data.struct.members.add(bitstring=b"\x02")
    decoded = DigestList.decode(msg, schema)
    assert decoded.digest == "mac_learn_digest_t" and decoded.list_id == 4
    assert decoded.data == [{"src_addr": 0x001122334455, "ingress_port": 2}]


def test_idle_timeout_notification(schema):
    msg = p4runtime_pb2.IdleTimeoutNotification(timestamp=5)
    msg.table_entry.append(ACL_ENTRY.encode(schema).table_entry)
    note = IdleTimeout.decode(msg, schema)
    assert note.entries == [ACL_ENTRY] and note.timestamp == 5


def test_replica_port_bytes_decode():
    msg = p4runtime_pb2.MulticastGroupEntry(multicast_group_id=2)
    msg.replicas.add(port=b"\x01\x00", instance=3)
    assert MulticastGroupEntry.decode(msg).replicas == [Replica(256, 3)]


# --- keys for DELETE ----------------------------------------------------------------------


def test_table_entry_key(schema):
    full = ROUND_TRIPS["table-ternary-range-optional"].encode(schema)
    expected = p4runtime_pb2.Entity()
    expected.table_entry.table_id = full.table_entry.table_id
    expected.table_entry.match.extend(full.table_entry.match)
    expected.table_entry.priority = full.table_entry.priority
    assert table_entry_key(full) == expected
    assert table_entry_key(ROUND_TRIPS["table-default"].encode(schema)) is None
    assert table_entry_key(ROUND_TRIPS["counter"].encode(schema)) is None


def test_negative_int_fields_round_trip(schema):
    entry = TableEntry("acl", {"ingress_port": 1}, Action("drop"), priority=-5, idle_timeout_ns=-1)
    msg = entry.encode_entry(schema)
    back = TableEntry.decode(p4runtime_pb2.TableEntry.FromString(msg.SerializeToString()), schema)
    assert (back.priority, back.idle_timeout_ns) == (-5, -1)
    assert back.encode_entry(schema) == msg
