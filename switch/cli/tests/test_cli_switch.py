"""p4switch-cli against a real switch running vrouter.p4: command files as users write them
for simple_switch_CLI, checked by the packets that come out and by reading the switch back."""
from __future__ import annotations

import pytest
from p4rt import CloneSessionEntry, MeterEntry, MulticastGroupEntry, Switch, TableEntry
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

MAC = {h: f"00:00:00:00:00:{n:02x}" for n, h in enumerate("ABCDE", start=1)}

# Ports 1-4: access ports of VLAN 10, untagged on the way out.
ACCESS = "\n".join(
    f"table_add port_config set_access_port {p} => 10\n"
    f"table_add egress_vlan_member untag_vlan {p} 10 =>" for p in (1, 2, 3, 4)) + "\n"


def frame(src: str, dst: str) -> bytes:
    return bytes(Ether(src=MAC[src], dst=MAC[dst]) / IP(src="10.0.0.1", dst="10.0.0.2") /
                 UDP(sport=1234, dport=80) / (b"\x00" * 18))


def acl(dst: str, action: str, priority: int, ether_type: str = "0&&&0") -> str:
    """An ACL rule on the destination MAC (the other ten keys wildcards), CLI priority last."""
    keys = ["0&&&0", "0&&&0", "0&&&0", f"{MAC[dst]}&&&ff:ff:ff:ff:ff:ff", ether_type,
            "0&&&0", "0&&&0", "0&&&0", "0&&&0", "0->65535", "0->65535", "0&&&0"]
    return f"table_add acl_ingress_table {action} {' '.join(keys)} => {priority}\n"


def test_command_file_bridges_and_acl_priorities_are_bmv2s(switch):
    # A->B bridged to 2; A->C: deny (20) and permit (10) both match, the smaller CLI
    # priority wins as in BMv2, so it is forwarded to 3; A->D: deny (10) beats permit (20).
    run = switch({1: [frame("A", "B"), frame("A", "C"), frame("A", "D")]})
    cp = run.cli(ACCESS +
                 "table_add l2_unicast set_output_port 10 " + MAC["B"] + " => 2\n"
                 "table_add l2_unicast set_output_port 10 " + MAC["C"] + " => 3\n"
                 "table_add l2_unicast set_output_port 10 " + MAC["D"] + " => 4\n"
                 + acl("C", "deny", 20) + acl("C", "permit", 10, "0x0800&&&0xffff")
                 + acl("D", "deny", 10) + acl("D", "permit", 20, "0x0800&&&0xffff"))
    assert cp.returncode == 0, cp.stderr
    assert "Entry has been added with handle 0" in cp.stdout
    assert "Adding entry to range match table ingress.acl.acl_ingress_table" in cp.stdout
    out = run.outputs()
    assert out[2] == [frame("A", "B")]
    assert out[3] == [frame("A", "C")]
    assert out[4] == []


def test_cli_priorities_read_back_as_p4runtime_priorities(switch):
    run = switch()
    cp = run.cli(acl("C", "deny", 20) + acl("D", "permit", 0))
    assert cp.returncode == 0, cp.stderr
    with Switch(run.addr, election_id=2) as sw:
        sw.load_schema()
        prios = sorted(e.priority for e in sw.read(TableEntry("acl_ingress_table")))
    # As BMv2's own P4Runtime server maps them: 2^31 - 1 - CLI priority.
    assert prios == [2**31 - 1 - 20, 2**31 - 1]


def test_flood_goes_to_the_multicast_group_built_from_nodes(switch):
    # vrouter floods unknown unicast to multicast group = VLAN id; the copy back to the
    # ingress port is dropped by the program.
    run = switch({1: [frame("A", "E")]})
    cp = run.cli(ACCESS + "mc_mgrp_create 10\nmc_node_create 0 1 2\nmc_node_create 0 4\n"
                 "mc_node_associate 10 0\nmc_node_associate 10 1\n")
    assert cp.returncode == 0, cp.stderr
    assert "node was created with handle 1" in cp.stdout
    assert "Creating node with rid 0 , port map 110 and lag map" in cp.stdout
    out = run.outputs()
    assert out[2] == [frame("A", "E")] and out[4] == [frame("A", "E")]
    assert out[1] == [] and out[3] == []


def test_multicast_node_changes_and_clone_sessions_reach_the_switch(switch):
    run = switch()
    cp = run.cli("mc_mgrp_create 7\nmc_node_create 3 1 2\nmc_node_create 4 3\n"
                 "mc_node_associate 7 0\nmc_node_associate 7 1\nmc_node_update 0 4\n"
                 "mc_node_dissociate 7 1\nmirroring_add 5 2\nmirroring_add_mc 6 7\nmirroring_get 5\n"
                 "mc_mgrp_create 8\nmc_mgrp_destroy 8\nmirroring_add 9 1\nmirroring_delete 9\n")
    assert cp.returncode == 0, cp.stderr
    assert "MirroringSessionConfig(port=2, mgid=None)" in cp.stdout
    with Switch(run.addr, election_id=2) as sw:
        sw.load_schema()
        groups = {g.group_id: [(r.port, r.instance) for r in g.replicas] for g in sw.read(MulticastGroupEntry())}
        sessions = {s.session_id: [(r.port, r.instance) for r in s.replicas] for s in sw.read(CloneSessionEntry())}
    assert groups == {7: [(4, 3)]}
    assert sessions == {5: [(2, 0)], 6: [(4, 3)]}


def test_counters_and_meters(switch):
    run = switch()
    cp = run.cli("counter_write ingress_port_counter 3 10 640\ncounter_read ingress_port_counter 3\n"
                 "meter_set_rates port_meter 1 0.125:1500 0.25:3000\nmeter_get_rates port_meter 1\n"
                 "counter_reset ingress_port_counter\ncounter_read ingress_port_counter 3\n")
    assert cp.returncode == 0, cp.stderr
    lines = cp.stdout.splitlines()
    assert "ingress_port_counter[3]= (640 bytes, 10 packets)" in lines
    assert "0: info rate = 0.125, burst size = 1500" in lines
    assert "1: info rate = 0.25, burst size = 3000" in lines
    assert lines[-1] == "ingress_port_counter[3]= (0 bytes, 0 packets)"
    with Switch(run.addr, election_id=2) as sw:
        sw.load_schema()
        (m,) = sw.read(MeterEntry("port_meter", 1))
    assert (m.config.cir, m.config.cburst, m.config.pir, m.config.pburst) == (125000, 1500, 250000, 3000)


def test_registers(switch):
    run = switch()
    cp = run.cli("register_write firewall_conn_signature 2 0xdeadbeef\nregister_read firewall_conn_signature 2\n"
                 "register_write nat_proto 1 17\nregister_reset nat_proto\nregister_read nat_proto 1\n")
    if "UNIMPLEMENTED: Register writes are not supported" in cp.stderr:
        # simple_switch_grpc's P4Runtime server has no registers; the CLI says so once per line.
        assert len(cp.stderr.splitlines()) == 5 and cp.returncode == 1
        pytest.skip("the switch under test does not implement P4Runtime register reads and writes")
    assert cp.returncode == 0, cp.stderr
    lines = cp.stdout.splitlines()
    assert "firewall_conn_signature[2]= 3735928559" in lines
    assert "nat_proto[1]= 0" in lines


def test_handles_modify_delete_and_a_second_session(switch):
    run = switch({1: [frame("A", "B")]}, wait=6)
    add_b = f"table_add l2_unicast set_output_port 10 {MAC['B']} => 3\n"
    cp = run.cli(ACCESS + add_b + "table_delete l2_unicast 0\n" + add_b +
                 "table_modify l2_unicast set_output_port 16777216 2\n")
    assert cp.returncode == 0, cp.stderr
    # BMv2 re-uses slot 0 with its version bumped: the handle is 0x1000000.
    assert "Entry has been added with handle 16777216" in cp.stdout
    # A new session adopts what the switch holds, in read-back order.
    cp = run.cli("table_num_entries l2_unicast\ntable_dump_entry l2_unicast 0\n", push=False)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.splitlines()[0] == "1"
    assert "Action entry: ingress.bridge.set_output_port - 0002" in cp.stdout
    out = run.outputs()
    assert out[2] == [frame("A", "B")], out


def test_errors_name_the_file_line_and_the_rest_still_runs(switch):
    run = switch()
    cp = run.cli("table_add nosuch drop 1\n"
                 "table_add port_config set_access_port 1 2 => 10\n"
                 "table_add port_config set_access_port 1 => 0x1000\n"
                 "table_add ipv4_route route_to_nexthop 10.0.0.0 => 1\n"
                 "table_delete port_config 5\n"
                 "set_queue_depth 64 1\n"
                 "frobnicate\n"
                 "table_add port_config set_access_port 1 => 10\n"
                 "table_add port_config set_access_port 1 => 10\n")
    assert cp.returncode == 1
    errs = cp.stderr.splitlines()
    assert [e.split(": error: ")[0].rsplit(":", 1)[1] for e in errs] == ["1", "2", "3", "4", "5", "6", "7", "9"]
    assert "no table named 'nosuch'" in errs[0]
    assert "needs 1 key fields" in errs[1]
    assert "does not fit in 12 bits" in errs[2]
    assert "use '/' to separate prefix and length" in errs[3]
    assert "INVALID_HANDLE" in errs[4]
    assert "set_queue_depth is not available" in errs[5]
    assert "unknown command 'frobnicate'" in errs[6]
    assert "ALREADY_EXISTS" in errs[7]
    with Switch(run.addr, election_id=2) as sw:
        sw.load_schema()
        assert len(list(sw.read(TableEntry("port_config")))) == 1


def test_standard_input_is_a_command_file(switch, tmp_path):
    import subprocess
    from conftest import CLI
    run = switch()
    cp = subprocess.run(CLI + ["--grpc-addr", run.addr, "--p4info", str(run.program.p4info),
                               "--json", str(run.program.json)],
                        input="table_add port_config set_access_port 1 => 10\nmc_dump\n",
                        capture_output=True, text=True, timeout=60)
    assert cp.returncode == 0, cp.stderr
    assert "Entry has been added with handle 0" in cp.stdout and "MC ENTRIES" in cp.stdout
    with Switch(run.addr, election_id=2) as sw:
        sw.load_schema()
        (e,) = sw.read(TableEntry("port_config"))
        assert e.action.params == {"vlan_id": 10}


def test_switch_without_pipeline_and_no_files_is_a_clear_error(switch):
    run = switch()
    cp = run.cli("show_tables\n", push=False)
    assert cp.returncode == 1
    assert "the switch has no P4Runtime pipeline" in cp.stderr and "--p4info" in cp.stderr
