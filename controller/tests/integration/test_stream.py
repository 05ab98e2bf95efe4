"""Pipeline config, arbitration between controllers, reconnects, and the stream channel end to end."""

from __future__ import annotations

import time

import grpc
import pytest

from p4rt import (
    Action,
    CounterData,
    DigestEntry,
    DirectCounterEntry,
    MulticastGroupEntry,
    Replica,
    P4RuntimeError,
    P4RuntimeWriteError,
    P4Schema,
    Switch,
    TableEntry,
)
from p4rt.schema import p4info_to_json

from bmv2 import is_bmv2, skip_on_bmv2
from harness import ethernet, make_certificates

HOST1_MAC = "00:00:00:00:00:01"
HOST2_MAC = "00:00:00:00:00:02"
LEARN_MAC = "00:00:00:00:00:aa"
CPU_MAC = "00:00:00:00:00:fe"


def route(prefix: str, port: int = 1) -> TableEntry:
    """An ipv4_lpm entry."""
    return TableEntry("ipv4_lpm", {"dst_addr": prefix}, Action("set_nhop", {"dmac": HOST1_MAC, "port": port}))


# --- pipeline ---------------------------------------------------------------------------


def test_pipeline_actions_and_response_types(switch_factory, program, tmp_path):
    proc = switch_factory()
    json_bytes = program.json.read_bytes()
    with Switch(proc.address, election_id=1) as sw:
        sw.set_pipeline(program.p4info, program.json, action="VERIFY")
        if is_bmv2():  # BMv2 answers an empty config, not FAILED_PRECONDITION, while it runs no program
            assert sw.get_pipeline().p4info is None  # VERIFY installs nothing
        else:
            with pytest.raises(P4RuntimeError) as err:
                sw.get_pipeline()
            assert err.value.code == grpc.StatusCode.FAILED_PRECONDITION  # VERIFY installs nothing
        sw.set_pipeline(program.p4info, program.json, action="VERIFY_AND_SAVE", cookie=41)
        sw.set_pipeline(program.p4info, program.json, action="COMMIT")
        sw.set_pipeline(program.p4info, program.json, action="VERIFY_AND_COMMIT", cookie=42)
        full = sw.get_pipeline("ALL")
        assert full.cookie == 42 and full.device_config == json_bytes
        assert full.p4info == P4Schema.load(program.p4info).p4info
        assert sw.get_pipeline("COOKIE_ONLY").p4info is None
        assert sw.get_pipeline("P4INFO_AND_COOKIE").device_config == b""
        assert sw.get_pipeline("DEVICE_CONFIG_AND_COOKIE").p4info is None



def test_reconcile_and_commit_keeps_the_entries(switch_factory, program, tmp_path):
    skip_on_bmv2("RECONCILE_AND_COMMIT replays all it reads as INSERTs (const entries, counter and meter "
                 "cells too) and fails with UNKNOWN")
    with Switch(switch_factory().address, election_id=1) as sw:
        sw.set_pipeline(program.p4info, program.json)
        sw.insert(route("10.0.0.0/8"))
        # Same program again from JSON-format P4Info: RECONCILE_AND_COMMIT keeps the entries.
        json_info = tmp_path / "prog.p4info.json"
        json_info.write_text(p4info_to_json(sw.schema.p4info))
        sw.set_pipeline(json_info, program.json, action="RECONCILE_AND_COMMIT", cookie=43)
        assert sw.get_pipeline("COOKIE_ONLY").cookie == 43
        assert len(list(sw.read(TableEntry("ipv4_lpm")))) == 1


def test_schema_from_a_running_switch(loaded, program):
    with Switch(loaded.address, election_id=3) as sw:
        schema = sw.load_schema()
        assert schema.table("ipv4_lpm").id == P4Schema.load(program.p4info).table("ipv4_lpm").id


@pytest.mark.parametrize("client_auth", [False, True], ids=["tls", "mutual-tls"])
def test_tls(switch_factory, program, tmp_path, client_auth):
    certs = make_certificates(tmp_path)
    args = ["--grpc-server-ssl", "--grpc-server-cert", str(certs["server.crt"]),
            "--grpc-server-key", str(certs["server.key"])]
    if client_auth:
        args += ["--grpc-server-cacert", str(certs["ca.crt"]), "--grpc-server-with-client-auth"]
    proc = switch_factory(grpc_args=args)
    client_cert = (certs["client.key"].read_bytes(), certs["client.crt"].read_bytes()) if client_auth else (None, None)
    creds = grpc.ssl_channel_credentials(certs["ca.crt"].read_bytes(), *client_cert)
    with Switch(proc.address, election_id=1, credentials=creds) as sw:
        sw.set_pipeline(program.p4info, program.json)
        sw.insert(route("10.0.0.0/8"))
        assert len(list(sw.read(TableEntry("ipv4_lpm")))) == 1
    with pytest.raises(P4RuntimeError):  # plaintext is refused
        Switch(proc.address, election_id=2).connect(timeout=1)
    if client_auth:
        with pytest.raises(P4RuntimeError):  # TLS without a client certificate is refused
            Switch(proc.address, election_id=3,
                   credentials=grpc.ssl_channel_credentials(certs["ca.crt"].read_bytes())).connect(timeout=1)


# --- arbitration ------------------------------------------------------------------------


def test_two_controllers_primary_and_backup(switch_factory, program):
    proc = switch_factory()
    with Switch(proc.address, election_id=5) as first:
        assert first.is_primary and first.arbitration.code == "OK"
        first.set_pipeline(program.p4info, program.json)
        with Switch(proc.address, election_id=9) as second:
            assert second.is_primary
            _wait(lambda: not first.is_primary)
            assert first.arbitration.primary_election_id == 9
            assert first.arbitration.code == "ALREADY_EXISTS"
            second.load_schema()
            with pytest.raises(P4RuntimeWriteError) as err:
                first.insert(route("10.0.0.0/8"))
            assert err.value.code == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(P4RuntimeError) as err:
                first.set_pipeline(program.p4info, program.json)
            assert err.value.code == grpc.StatusCode.PERMISSION_DENIED
            second.insert(route("10.0.0.0/8"))
            assert len(list(first.read(TableEntry("ipv4_lpm")))) == 1  # backups may read
            with Switch(proc.address, election_id=2) as third:
                assert not third.is_primary and third.arbitration.primary_election_id == 9
        first.wait_primary(timeout=5)  # the primary left: the highest remaining id takes over
        first.insert(route("10.1.0.0/16"))
        assert first.set_election_id(20).is_primary


def test_a_config_that_does_not_load_leaves_the_running_one(switch_factory, program):
    skip_on_bmv2("a device config it cannot parse (UNKNOWN) breaks the running pipeline: reads then fail")
    with Switch(switch_factory().address, election_id=1) as sw:
        sw.set_pipeline(program.p4info, program.json)
        sw.insert(route("10.0.0.0/8"))
        with pytest.raises(P4RuntimeError) as err:
            sw.set_pipeline(program.p4info, b"{ this is not BMv2 JSON")
        assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert len(list(sw.read(TableEntry("ipv4_lpm")))) == 1


def test_each_role_has_its_own_primary(switch_factory, program):
    skip_on_bmv2("this PI has no roles: an election id is unique across all of a device's streams")
    proc = switch_factory()
    with Switch(proc.address, election_id=1) as default_role:
        default_role.set_pipeline(program.p4info, program.json)
        with Switch(proc.address, election_id=1, role="routes") as a, \
                Switch(proc.address, election_id=2, role="acls") as b, \
                Switch(proc.address, election_id=1, role="acls") as c:
            assert default_role.is_primary and a.is_primary and b.is_primary and not c.is_primary
            a.load_schema()
            a.insert(route("10.0.0.0/8"))
            assert len(list(default_role.read(TableEntry("ipv4_lpm")))) == 1


def test_same_election_id_as_primary_is_refused(switch_factory):
    proc = switch_factory()
    with Switch(proc.address, election_id=7):
        with pytest.raises(P4RuntimeError) as err:
            Switch(proc.address, election_id=7).connect(timeout=5)
        assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_read_only_clients_take_no_election_id(switch_factory, program):
    """Clients without a stream (dashboards, `vrouter show`) read beside the primary and each other."""
    proc = switch_factory()
    with Switch(proc.address, election_id=1) as primary:
        primary.set_pipeline(program.p4info, program.json)
        primary.insert(route("10.0.0.0/8"))
        with Switch(proc.address).connect(stream=False) as a, Switch(proc.address).connect(stream=False) as b:
            for reader in (a, b):
                reader.load_schema()
                assert len(list(reader.read(TableEntry("ipv4_lpm")))) == 1
                assert not reader.is_primary
            assert primary.is_primary
            primary.insert(route("10.1.0.0/16"))
            assert len(list(a.read(TableEntry("ipv4_lpm")))) == 2


def test_client_reconnects_after_switch_restart(switch_factory, program):
    proc = switch_factory()
    with Switch(proc.address, election_id=1, backoff=(0.05, 0.5)) as sw:
        sw.set_pipeline(program.p4info, program.json)
        proc.stop()
        _wait(lambda: sw.arbitration is None)
        proc.start()
        arbitration = sw.wait_arbitration(timeout=10)
        assert arbitration.is_primary and sw.reconnects >= 1
        sw.set_pipeline(program.p4info, program.json)
        sw.insert(route("10.0.0.0/8"))
        assert len(list(sw.read(TableEntry("ipv4_lpm")))) == 1


# --- packet I/O, digests and idle timeouts over real ports -------------------------------


def test_packet_out_leaves_on_the_requested_port(ports):
    sw, pairs = ports
    frame = ethernet(HOST2_MAC, CPU_MAC, 0x88B5, b"packet-out test")
    sw.packet_out(frame, egress_port=2)
    got = pairs[2].wait_for(lambda f: f[12:14] == b"\x88\xb5")
    assert got == frame  # the packet_out header was consumed, nothing else changed
    assert pairs[1].receive(timeout=0.3) == []


def test_packet_in_carries_ingress_port(ports):
    sw, pairs = ports
    sw.insert(TableEntry("mac_learn", {"src_addr": HOST1_MAC}, Action("NoAction")))
    sw.insert(TableEntry("l2_exact", {"dst_addr": CPU_MAC}, Action("send_to_cpu")))
    frame = ethernet(CPU_MAC, HOST1_MAC, 0x88B5, b"packet-in test")
    pairs[1].send(frame)
    packet = next((p for p in sw.packet_ins(timeout=3) if p.payload[12:14] == b"\x88\xb5"), None)
    assert packet is not None, "no packet-in arrived"
    assert packet.payload == frame
    assert packet.metadata["ingress_port"] == 1


def ipv4_frame(dst_mac: str, src_mac: str, src_ip: str, dst_ip: str) -> bytes:
    """An Ethernet + IPv4 frame (no checksum: the program does not check it)."""
    header = bytes([0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0])
    header += bytes(int(x) for x in src_ip.split(".")) + bytes(int(x) for x in dst_ip.split("."))
    return ethernet(dst_mac, src_mac, 0x0800, header + b"ipv4 payload")


def test_route_forwards_and_direct_counter_counts(ports):
    sw, pairs = ports
    sw.insert(TableEntry("mac_learn", {"src_addr": HOST1_MAC}, Action("NoAction")))
    route_entry = TableEntry("ipv4_lpm", {"dst_addr": "10.0.2.0/24"},
                             Action("set_nhop", {"dmac": HOST2_MAC, "port": 2}))
    sw.insert(route_entry)
    frame = ipv4_frame(CPU_MAC, HOST1_MAC, "10.0.1.1", "10.0.2.2")
    pairs[1].send(frame)
    got = pairs[2].wait_for(lambda f: f[12:14] == b"\x08\x00")
    assert got is not None, "routed packet did not leave port 2"
    assert got[:6] == bytes.fromhex("000000000002") and got[6:] == frame[6:]
    [cell] = list(sw.read(DirectCounterEntry(TableEntry("ipv4_lpm", route_entry.match))))
    assert cell.data == CounterData(packets=1, bytes=len(frame))


def test_multicast_group_replicates(ports):
    sw, pairs = ports
    sw.insert(TableEntry("mac_learn", {"src_addr": HOST1_MAC}, Action("NoAction")))
    sw.insert(MulticastGroupEntry(1, [Replica(1), Replica(2)]))
    sw.insert(TableEntry("l2_exact", {"dst_addr": "ff:ff:ff:ff:ff:ff"}, Action("flood", {"group": 1})))
    frame = ethernet("ff:ff:ff:ff:ff:ff", HOST1_MAC, 0x88B5, b"flood me")
    pairs[1].send(frame)
    for port in (1, 2):
        assert pairs[port].wait_for(lambda f: f == frame) is not None, f"no copy on port {port}"


def test_digests_arrive_and_are_acknowledged(ports):
    sw, pairs = ports
    sw.insert(DigestEntry("mac_learn_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=2 * 10**9))
    pairs[2].send(ethernet(HOST1_MAC, LEARN_MAC, 0x88B5, b"learn me"))
    lists = []
    for digest in sw.digests(timeout=3):
        lists.append(digest)
        break
    assert lists, "no digest arrived"
    assert lists[0].digest == "mac_learn_t"
    assert {"src_addr": 0xAA, "ingress_port": 2} in lists[0].data


def test_idle_timeout_notification(ports):
    sw, pairs = ports
    entry = TableEntry("l2_exact", {"dst_addr": HOST2_MAC}, Action("set_port", {"port": 2}),
                       idle_timeout_ns=300_000_000)
    sw.insert(entry)
    notes = []
    for note in sw.idle_timeouts(timeout=5):
        notes.append(note)
        break
    assert notes, "no idle-timeout notification within 5 s"
    [expired] = notes[0].entries
    assert expired.table == "RtIngress.l2_exact" and expired.match == {"hdr.ethernet.dst_addr": 2}


def _wait(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)
