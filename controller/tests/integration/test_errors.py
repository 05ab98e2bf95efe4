"""The switch's error codes as p4rt reports them: per-update details, in order, nothing half-applied."""

from __future__ import annotations

import grpc
import pytest
from p4.v1 import p4runtime_pb2

from p4rt import Action, EntityError, P4RuntimeError, P4RuntimeWriteError, P4Schema, Switch, TableEntry, delete, insert, modify

from bmv2 import is_bmv2, skip_on_bmv2

HOST1_MAC = "00:00:00:00:00:01"


def route(prefix: str, port: int = 1) -> TableEntry:
    """An ipv4_lpm entry."""
    return TableEntry("ipv4_lpm", {"dst_addr": prefix}, Action("set_nhop", {"dmac": HOST1_MAC, "port": port}))


def routes_on_switch(sw) -> dict:
    """prefix -> port of every ipv4_lpm entry."""
    return {e.match["hdr.ipv4.dst_addr"]: e.action.params["port"] for e in sw.read(TableEntry("ipv4_lpm"))}


def test_insert_existing_entry_is_already_exists(sw):
    sw.insert(route("10.0.0.0/8"))
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.insert(route("10.0.0.0/8", port=2))
    [error] = err.value.errors
    assert (error.index, error.code) == (0, "ALREADY_EXISTS")
    assert "ipv4_lpm" in error.update
    assert err.value.code == grpc.StatusCode.UNKNOWN
    assert routes_on_switch(sw) == {(0x0A000000, 8): 1}  # the failed update changed nothing


@pytest.mark.parametrize("update", [modify, delete], ids=["modify", "delete"])
def test_missing_entry_is_not_found(sw, update):
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write([update(route("10.9.0.0/16"))])
    assert err.value.codes == ["NOT_FOUND"]


def test_mixed_batch_reports_each_failed_update_in_order(sw):
    sw.insert(route("10.1.0.0/16"))
    updates = [
        insert(route("10.2.0.0/16")),
        insert(route("10.1.0.0/16", port=5)),  # exists
        insert(route("10.3.0.0/16")),
        delete(route("10.4.0.0/16")),  # missing
        modify(route("10.2.0.0/16", port=7)),
    ]
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write(updates)
    assert [(e.index, e.code) for e in err.value.errors] == [(1, "ALREADY_EXISTS"), (3, "NOT_FOUND")]
    assert "update #1" in str(err.value) and "update #3" in str(err.value)
    assert routes_on_switch(sw) == {(0x0A010000, 16): 1, (0x0A020000, 16): 7, (0x0A030000, 16): 1}


def test_batches_keep_global_update_indexes(sw):
    updates = [insert(route(f"10.{i}.0.0/16")) for i in range(10)]
    updates[7] = insert(route("10.1.0.0/16"))  # duplicate of #1, in the second batch
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write(updates, batch_size=4)
    assert [(e.index, e.code) for e in err.value.errors] == [(7, "ALREADY_EXISTS")]
    assert len(routes_on_switch(sw)) == 9


def test_batches_in_flight_keep_global_update_indexes(sw):
    sw.insert(route("10.1.0.0/16"))
    updates = [insert(route(f"10.{i}.0.0/16")) for i in range(2, 40)]
    updates[5] = insert(route("10.1.0.0/16"))     # exists: batch 1
    updates[33] = delete(route("10.99.0.0/16"))   # missing: batch 8
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write(updates, batch_size=4, in_flight=3)
    assert [(e.index, e.code) for e in err.value.errors] == [(5, "ALREADY_EXISTS"), (33, "NOT_FOUND")]
    assert len(routes_on_switch(sw)) == 1 + 36


def test_batches_in_flight_stop_at_a_failed_rpc(sw):
    # A batch refused as a whole (a backup's PERMISSION_DENIED) stops the sending and is raised.
    with Switch(sw.address, election_id=2, schema=sw.schema) as backup:
        with pytest.raises(P4RuntimeWriteError) as err:
            backup.write([insert(route(f"10.{i}.0.0/16")) for i in range(20)], batch_size=4, in_flight=3)
    assert err.value.code == grpc.StatusCode.PERMISSION_DENIED and not err.value.errors
    assert routes_on_switch(sw) == {}


def test_a_bad_entity_writes_nothing_in_order_and_stops_the_batches_after_it_in_flight(sw):
    updates = [insert(route(f"10.{i}.0.0/16")) for i in range(20)]
    updates[13] = insert(route("10.300.0.0/16"))  # not an address: refused before it is sent
    with pytest.raises(EntityError, match="10.300.0.0"):
        sw.write(updates, batch_size=4)
    assert routes_on_switch(sw) == {}
    with pytest.raises(EntityError, match="10.300.0.0"):
        sw.write(updates, batch_size=4, in_flight=2)     # encoded as it goes: batches 0-2 were sent
    assert sorted(routes_on_switch(sw)) == [(0x0A000000 + (i << 16), 16) for i in range(12)]


def _raw_route(sw) -> p4runtime_pb2.Entity:
    return route("10.0.0.0/8").encode(sw.schema)


def _bad_table_id(sw):
    e = _raw_route(sw)
    e.table_entry.table_id = 0x02FFFFFF
    return e


def _bad_action_id(sw):
    e = _raw_route(sw)
    e.table_entry.action.action.action_id = 0x01FFFFFF
    return e


def _too_wide_match(sw):
    e = _raw_route(sw)
    e.table_entry.match[0].lpm.value = b"\x01\x0a\x00\x00\x00"  # 33 bits for a bit<32> field
    return e


def _too_wide_param(sw):
    e = _raw_route(sw)
    e.table_entry.action.action.params[1].value = b"\x02\x00"  # 512 for a bit<9> port
    return e


def _empty_bytestring(sw):
    e = _raw_route(sw)
    e.table_entry.action.action.params[1].value = b""
    return e


def _bits_beyond_prefix(sw):
    e = _raw_route(sw)
    e.table_entry.match[0].lpm.value = b"\x0a\x00\x00\x01"
    return e


def _missing_param(sw):
    e = _raw_route(sw)
    del e.table_entry.action.action.params[1]
    return e


def _ternary_without_priority(sw):
    e = TableEntry("acl", {"src_addr": (1, 1)}, Action("acl_deny"), priority=1).encode(sw.schema)
    e.table_entry.priority = 0
    return e


def _priority_on_exact_table(sw):
    e = TableEntry("l2_exact", {"dst_addr": 1}, Action("drop")).encode(sw.schema)
    e.table_entry.priority = 5
    return e


def _masked_bits_set(sw):
    e = TableEntry("acl", {"src_addr": (1, 1)}, Action("acl_deny"), priority=1).encode(sw.schema)
    e.table_entry.match[0].ternary.value = b"\x03"
    return e


def _action_not_in_table(sw):
    e = TableEntry("l2_exact", {"dst_addr": 1}, Action("drop")).encode(sw.schema)
    e.table_entry.action.action.action_id = sw.schema.action("acl_deny").id
    return e


INVALID = [_bad_table_id, _bad_action_id, _too_wide_match, _too_wide_param, _empty_bytestring,
           _bits_beyond_prefix, _missing_param, _ternary_without_priority, _priority_on_exact_table,
           _masked_bits_set, _action_not_in_table]


@pytest.mark.parametrize("make", INVALID, ids=[f.__name__.strip("_") for f in INVALID])
def test_invalid_updates_are_rejected_and_change_nothing(sw, make):
    if make is _empty_bytestring:
        skip_on_bmv2("PI accepts an empty bytestring as an action parameter")
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write([insert(make(sw))])
    [error] = err.value.errors
    # TARGET.md: INVALID_ARGUMENT; the P4Runtime spec names OUT_OF_RANGE for bytestrings too wide
    # and NOT_FOUND for unknown ids.
    allowed = {"INVALID_ARGUMENT", "OUT_OF_RANGE"} | ({"NOT_FOUND"} if make.__name__.endswith("_id") else set())
    assert error.code in allowed
    assert error.message
    assert [e for e in sw.read(TableEntry()) if not e.is_const] == []


def test_table_full_is_resource_exhausted(sw):
    sw.insert([TableEntry("tiny", {"ether_type": t}, Action("drop")) for t in range(4)])
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.insert(TableEntry("tiny", {"ether_type": 99}, Action("drop")))
    # BMv2 refuses it too, but as UNKNOWN ("Error when adding match entry to target").
    assert err.value.codes == ["UNKNOWN" if is_bmv2() else "RESOURCE_EXHAUSTED"]
    assert len(list(sw.read(TableEntry("tiny")))) == 4


def test_a_batch_of_a_thousand_failures_reports_each_one(sw):
    # One error per update travels in the reply's trailers: 1,000 of them are
    # far above gRPC's default 16 KiB metadata limit.
    sw.insert(route("10.0.0.0/8"))
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.insert([route("10.0.0.0/8", port=2)] * 1000)
    assert err.value.codes == ["ALREADY_EXISTS"] * 1000
    assert [e.index for e in err.value.errors] == list(range(1000))


def test_one_batch_of_twenty_thousand_failures_reports_each_one(sw):
    # ~1 MB of trailers: p4rt raises gRPC's metadata limit (16 KiB by default) to 64 MiB.
    sw.insert(route("10.0.0.0/8"))
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.insert([route("10.0.0.0/8", port=2)] * 20_000, batch_size=20_000)
    assert len(err.value.errors) == 20_000 and set(err.value.codes) == {"ALREADY_EXISTS"}
    assert err.value.reasons() == {f"ALREADY_EXISTS: {err.value.errors[0].message}": 20_000}
    assert str(err.value).count("\n") == P4RuntimeWriteError.SHOWN + 1     # ten named, the rest counted


def test_unsupported_atomicity_is_unimplemented(sw):
    with pytest.raises(P4RuntimeWriteError) as err:
        sw.write([insert(route("10.0.0.0/8"))], atomicity="DATAPLANE_ATOMIC")
    assert err.value.code == grpc.StatusCode.UNIMPLEMENTED
    assert routes_on_switch(sw) == {}


def test_no_pipeline_is_failed_precondition(switch_factory, program):
    proc = switch_factory()
    with Switch(proc.address, election_id=1) as sw:
        with pytest.raises(P4RuntimeError) as err:
            sw.get_pipeline()
        assert err.value.code == grpc.StatusCode.FAILED_PRECONDITION
        sw.schema = P4Schema.load(program.p4info)
        with pytest.raises(P4RuntimeError) as err:
            list(sw.read(TableEntry()))
        assert err.value.code == grpc.StatusCode.FAILED_PRECONDITION
        with pytest.raises(P4RuntimeWriteError) as err:
            sw.insert(route("10.0.0.0/8"))
        assert err.value.code == grpc.StatusCode.FAILED_PRECONDITION


def test_wrong_device_id_is_refused(loaded):
    skip_on_bmv2("PI accepts arbitration for any device id (it makes a device for each)")
    with pytest.raises(P4RuntimeError) as err:
        Switch(loaded.address, device_id=77, election_id=1).connect(timeout=5)
    assert err.value.code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT,
                              grpc.StatusCode.FAILED_PRECONDITION)


def test_nothing_listening_is_unavailable():
    from harness import free_port

    with pytest.raises(P4RuntimeError) as err:
        Switch(f"127.0.0.1:{free_port()}").connect(timeout=0.5)
    assert err.value.code == grpc.StatusCode.UNAVAILABLE
    assert "no P4Runtime server answered" in str(err.value)
