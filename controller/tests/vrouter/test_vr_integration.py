"""End to end with a real switch: hosts in namespaces (address + default gateway only), vrouter apply/diff/run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BLOCK_H1
from netns import Daemon, Host, SwitchProc, network, vrouter

pytestmark = pytest.mark.integration

def test_apply_is_idempotent_and_bridges(lab) -> None:
    hosts, switch, write, _ = lab
    path = write()
    first = vrouter("apply", str(path))
    assert first.returncode == 0, first.stderr
    assert "pipeline installed" in first.stdout and re.search(r"s1: wrote \d+ inserts", first.stdout)
    again = vrouter("apply", str(path))
    assert again.stdout.strip() == "s1: in sync, nothing to write", again.stdout + again.stderr
    assert vrouter("diff", str(path)).stdout.strip() == "s1: in sync, nothing to write"
    # same VLAN: bridged by flooding, no controller needed
    assert hosts["h1"].reaches(hosts["h2"].ip)
    # one more ACL rule: diff names exactly one insert, apply writes only it
    path = write(BLOCK_H1)
    diff = vrouter("diff", str(path)).stdout.splitlines()
    assert diff[-1].startswith("s1: would write 1 insert, 0 modifies, 0 deletes"), diff
    assert diff[0].startswith("s1: + acl_ingress_table ipv4_src=") and "deny()" in diff[0]
    assert vrouter("apply", str(path)).stdout.startswith("s1: wrote 1 insert, 0 modifies, 0 deletes")
    assert vrouter("apply", str(path)).stdout.strip() == "s1: in sync, nothing to write"


def test_daemon_routes_learns_reloads_and_recovers(lab) -> None:
    hosts, switch, write, tmp = lab
    path = write()
    daemon = Daemon(path, tmp / "vrouter.log")
    try:
        daemon.wait_for("event=reconciled")
        h1, h2, h3 = hosts["h1"], hosts["h2"], hosts["h3"]
        # routed between VLANs, hosts know only their address and gateway
        assert h1.reaches(h3.ip), daemon.text()[-2000:]
        assert h3.reaches(h1.ip)
        assert h1.reaches("10.0.10.1") and h1.reaches("10.0.20.1")      # router addresses answer ICMP echo
        assert h2.reaches(h1.ip)
        daemon.wait_for("event=mac_learned")
        daemon.wait_for("event=neighbor_resolved")
        shown = vrouter("show", "macs", str(path))
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.splitlines()[1].split() == ["VLAN", "MAC", "PORT", "TYPE", "PACKETS"]
        macs = json.loads(vrouter("show", "macs", str(path), "--json").stdout)["s1"]
        assert {(m["vlan"], m["port"], m["type"]) for m in macs} >= {(10, 1, "learned"), (10, 2, "learned"),
                                                                    (20, 3, "learned")}
        routes = {r["prefix"]: r for r in json.loads(vrouter("show", "routes", str(path), "--json").stdout)["s1"]}
        assert routes["10.0.20.11/32"]["next_hop"].startswith("port 3 vlan 20 ")
        assert routes["10.0.20.0/24"]["action"] == "route_to_cpu"
        for what in ("ports", "vlans", "lsps", "acl", "meters", "counters"):
            done = vrouter("show", what, str(path))
            assert done.returncode == 0 and done.stdout.startswith(f"== s1: {what}"), done.stdout + done.stderr
        acl = json.loads(vrouter("show", "acl", str(path), "--json").stdout)["s1"]
        assert [r["action"] for r in acl] == ["deny()"]

        # change the file: the daemon writes only the difference
        mark = len(daemon.text())
        write(BLOCK_H1)
        line = daemon.wait_for('reason=reload', start=mark)
        assert "writes=1 " in line, line
        assert not h1.ping(h3.ip, count=2)
        assert h2.reaches(h3.ip)
        refused = vrouter("apply", str(path))   # the daemon is primary: apply explains instead of failing writes
        assert refused.returncode == 1 and "another controller is primary (election id 10)" in refused.stderr

        # kill the switch, start it again on the same ports: the daemon re-pushes and reconciles
        switch.kill()
        daemon.wait_for("event=switch_lost", start=mark)
        switch.start()
        line = daemon.wait_for("event=recovered", start=mark, timeout=30)
        assert re.search(r"seconds=\d+\.\d+", line)
        assert "pipeline_pushed=True" in daemon.wait_for("event=reconciled", start=mark + daemon.text()[mark:].find("switch_lost"))
        assert h2.reaches(h3.ip), daemon.text()[-3000:]
        assert not h1.ping(h3.ip, count=2)
    finally:
        code = daemon.stop()
    assert code == 0, daemon.text()[-2000:]
    assert "event=stopped" in daemon.text()


def test_stations_move_and_age_out_and_ttl_expiry_is_reported(lab) -> None:
    hosts, switch, write, tmp = lab
    path = write(aging="2s")
    daemon = Daemon(path, tmp / "vrouter.log")
    try:
        daemon.wait_for("event=reconciled")
        h1, h2, h3 = hosts["h1"], hosts["h2"], hosts["h3"]
        assert h2.reaches(h1.ip)
        h2_mac = h2.mac()
        line = daemon.wait_for(f"mac={h2_mac} port=2")
        assert "event=mac_learned" in line
        # h1 takes h2's MAC: the station now appears on port 1
        h1.set_mac(h2_mac)
        h1.ping(h3.ip)
        assert "old_port=2 port=1" in daemon.wait_for(f"event=mac_moved switch=s1 vlan=10 mac={h2_mac}")
        # TTL 1 towards another VLAN: the router answers with ICMP time exceeded from its address
        out = h1.run("ping", "-n", "-c", "1", "-W", "2", "-t", "1", h3.ip)
        assert "From 10.0.10.1" in out and "Time to live exceeded" in out, out
        # silent stations age out after mac_aging (2 s)
        daemon.wait_for("event=mac_aged_out", timeout=20)
    finally:
        assert daemon.stop() == 0


FIREWALL = """    firewall:
      zones: {servers: [20], classrooms: [10]}
      pairs: [{trusted: servers, untrusted: classrooms}]
"""

ECHO_SERVER = ("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.bind(('0.0.0.0', 9000))\n"
               "while True:\n    data, peer = s.recvfrom(2048)\n    s.sendto(data, peer)\n")
ECHO_CLIENT = ("import socket, sys\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.settimeout(0.5)\n"
               "for _ in range(8):\n    s.sendto(b'hello', (sys.argv[1], 9000))\n    try:\n"
               "        s.recvfrom(2048)\n        print('ok')\n        break\n    except OSError:\n        pass\n"
               "else:\n    print('no')\n")


def test_zone_firewall_lets_only_trusted_side_open_flows(lab) -> None:
    hosts, switch, write, tmp = lab
    path = write(FIREWALL)
    daemon = Daemon(path, tmp / "vrouter.log")
    servers = []
    try:
        daemon.wait_for("event=reconciled")
        h1, h3 = hosts["h1"], hosts["h3"]
        for h in (h1, h3):
            servers.append(subprocess.Popen(["ip", "netns", "exec", h.ns, sys.executable, "-c", ECHO_SERVER]))
        assert h3.run(sys.executable, "-c", ECHO_CLIENT, h1.ip).strip() == "ok"    # trusted opens: replies pass
        assert h1.run(sys.executable, "-c", ECHO_CLIENT, h3.ip).strip() == "no"    # untrusted cannot open
        assert not h1.ping(h3.ip, count=2)                                         # ICMP is not tracked
        drops = json.loads(vrouter("show", "counters", str(path), "--json").stdout)["s1"]
        assert any(r["what"] == "FIREWALL" and r["packets"] > 0 for r in drops), drops
    finally:
        for p in servers:
            p.kill()
            p.wait()
        assert daemon.stop() == 0


def test_full_example_of_the_docs_applies_to_a_real_switch(tmp_path, vrouter_program) -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "controller.md").read_text()
    block = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    switch = SwitchProc({}, tmp_path / "switch.log").start()
    try:
        text = block.replace("127.0.0.1:9559", switch.address)
        text = text.replace("../build/vrouter.p4info.txtpb", str(vrouter_program.p4info))
        text = text.replace("../build/vrouter.json", str(vrouter_program.json))
        path = tmp_path / "network.yaml"
        path.write_text(text)
        first = vrouter("apply", str(path))
        assert first.returncode == 0 and "core1: wrote" in first.stdout, first.stdout + first.stderr
        assert vrouter("apply", str(path)).stdout.strip() == "core1: in sync, nothing to write"
        meters = json.loads(vrouter("show", "meters", str(path), "--json").stdout)["core1"]
        assert {(m["meter"], m["index"], m["cir_bit_s"]) for m in meters} >= {
            ("port_meter", 3, 100_000_000), ("vlan_meter", 30, 50_000_000)}
    finally:
        switch.kill()


def test_more_acl_rules_than_the_table_holds_are_refused_before_any_write(tmp_path, vrouter_program) -> None:
    from vrouter.bench import description

    switch = SwitchProc({}, tmp_path / "switch.log").start()
    try:
        size = 16384  # ACL_INGRESS_TABLE_SIZE in p4src/include/constants.p4
        text = description(0, size + 1, switch.address)
        text = text.replace("../build/vrouter.p4info.txtpb", str(vrouter_program.p4info))
        text = text.replace("../build/vrouter.json", str(vrouter_program.json))
        path = tmp_path / "big.yaml"
        path.write_text(text)
        r = vrouter("apply", str(path), timeout=120)
        assert r.returncode == 2, r.stdout + r.stderr
        assert f"switches.s1: the description needs {size + 1} ACL rules in table ingress.acl.acl_ingress_table, " \
               f"which holds {size} in this program" in r.stderr
        # refused before connecting: the switch did not even get the program
        from p4rt import P4RuntimeError, Switch
        with Switch(switch.address, election_id=1) as sw, pytest.raises(P4RuntimeError, match="FAILED_PRECONDITION"):
            sw.get_pipeline()
    finally:
        switch.kill()


@pytest.mark.parametrize("where", ["interface", "port"])
def test_too_big_with_df_gets_fragmentation_needed(lab, where) -> None:
    """An MTU of 1000 on VLAN 20's interface, or on the only port of VLAN 20 (which maps onto it)."""
    hosts, switch, write, tmp = lab
    path = write()
    text = path.read_text()
    if where == "interface":
        text = text.replace('mac: "00:00:5e:00:01:14"}', 'mac: "00:00:5e:00:01:14", mtu: 1000}')
    else:
        text = text.replace("3: {vlan: 20}", "3: {vlan: 20, mtu: 1000}")
    path.write_text(text)
    daemon = Daemon(path, tmp / "vrouter.log")
    try:
        daemon.wait_for("event=reconciled")
        vlans = {v["vlan"]: v for v in json.loads(vrouter("show", "vlans", str(path), "--json").stdout)["s1"]}
        assert (vlans[10]["mtu"], vlans[20]["mtu"]) == (1500, 1000)    # read back from the switch's interface_mtu
        h1, h3 = hosts["h1"], hosts["h3"]
        assert h1.reaches(h3.ip)                          # small packets pass
        out = ""
        for _ in range(3):
            out = h1.run("ping", "-n", "-c", "1", "-W", "2", "-M", "do", "-s", "1200", h3.ip)
            if "mtu = 1000" in out:
                break
        assert "From 10.0.10.1" in out and "Frag needed and DF set (mtu = 1000)" in out, out
        assert h1.run("ping", "-n", "-c", "1", "-W", "2", "-M", "do", "-s", "972", h3.ip).count(" bytes from ") == 1
    finally:
        assert daemon.stop() == 0


NEIGHBOR_TIMERS = "neighbor_refresh: 2s\nneighbor_probes: 2\n"
REFRESH, PROBES, SLACK = 2.0, 2, 2.0


def routes_of(path: Path) -> dict[str, dict]:
    return {r["prefix"]: r for r in json.loads(vrouter("show", "routes", str(path), "--json").stdout)["s1"]}


def test_neighbour_that_changes_its_mac_is_followed_within_the_refresh_time(lab) -> None:
    hosts, switch, write, tmp = lab
    path = write(top=NEIGHBOR_TIMERS)
    daemon = Daemon(path, tmp / "vrouter.log")
    try:
        daemon.wait_for("event=reconciled")
        h1, h3 = hosts["h1"], hosts["h3"]
        assert h1.reaches(h3.ip)
        daemon.wait_for(f"event=neighbor_resolved switch=s1 ip={h3.ip}")
        # a live neighbour answers the refresh probes and stays
        mark = len(daemon.text())
        time.sleep(REFRESH + PROBES + 1)
        assert "event=neighbor_expired" not in daemon.text()[mark:] and \
            "event=neighbor_moved" not in daemon.text()[mark:], daemon.text()[mark:]
        mark = len(daemon.text())
        start = time.monotonic()
        h3.set_mac("02:00:00:00:33:33")      # h3 sends no ARP to the router: only a re-ARP can notice
        daemon.wait_for(f"event=neighbor_moved switch=s1 ip={h3.ip} mac=02:00:00:00:33:33", start=mark,
                        timeout=REFRESH + 2 + SLACK)
        elapsed = time.monotonic() - start
        assert elapsed <= REFRESH + 2 + SLACK, elapsed     # the second probe (broadcast) finds the new MAC
        assert "02:00:00:00:33:33" in routes_of(path)[f"{h3.ip}/32"]["next_hop"]
        assert h1.reaches(h3.ip, tries=3)
    finally:
        assert daemon.stop() == 0


def test_next_hop_that_stops_answering_is_withdrawn_and_restored(lab) -> None:
    hosts, switch, write, tmp = lab
    path = write("    routes:\n      - {prefix: 10.99.0.0/24, via: 10.0.20.11}\n", top=NEIGHBOR_TIMERS)
    h1, h3 = hosts["h1"], hosts["h3"]
    h3.run("ip", "addr", "add", "10.99.0.1/32", "dev", "lo")     # a network behind h3
    daemon = Daemon(path, tmp / "vrouter.log")
    try:
        daemon.wait_for("event=reconciled")
        assert h1.reaches("10.99.0.1")
        routes = routes_of(path)
        assert routes["10.99.0.0/24"]["action"] == "route_to_nexthop" and f"{h3.ip}/32" in routes
        mark = len(daemon.text())
        start = time.monotonic()
        h3.run("ip", "link", "set", "eth0", "arp", "off")           # h3 stops answering ARP
        daemon.wait_for(f"event=neighbor_expired switch=s1 ip={h3.ip}", start=mark,
                        timeout=REFRESH + PROBES + SLACK + 1)
        assert time.monotonic() - start <= REFRESH + PROBES + SLACK, time.monotonic() - start
        routes = routes_of(path)
        assert routes["10.99.0.0/24"]["action"] == "route_to_cpu" and f"{h3.ip}/32" not in routes, routes
        assert not h1.ping("10.99.0.1", count=2)
        # it answers again: the controller, still asking for configured next hops, restores the route
        mark = len(daemon.text())
        h3.run("ip", "link", "set", "eth0", "arp", "on")
        h3.run("ip", "neigh", "flush", "dev", "eth0")
        daemon.wait_for(f"event=neighbor_resolved switch=s1 ip={h3.ip}", start=mark, timeout=10)
        assert routes_of(path)["10.99.0.0/24"]["action"] == "route_to_nexthop"
        assert h1.reaches("10.99.0.1")
    finally:
        assert daemon.stop() == 0


WHO_SERVER = ("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.bind(('0.0.0.0', 9000))\n"
              "while True:\n    data, peer = s.recvfrom(2048)\n    s.sendto(peer[0].encode(), peer)\n")
WHO_CLIENT = ("import socket, sys\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.settimeout(0.5)\n"
              "for _ in range(8):\n    s.sendto(b'who', (sys.argv[1], 9000))\n    try:\n"
              "        print(s.recvfrom(2048)[0].decode())\n        break\n    except OSError:\n        pass\n"
              "else:\n    print('no')\n")


def test_masquerade_hides_the_inside_behind_the_interface_address(lab) -> None:
    """VLAN 20 with `nat: masquerade`: h3 sees h1's UDP flow coming from 10.0.20.1 and its
    answer reaches h1; with the firewall (inside trusted) as well."""
    hosts, switch, write, tmp = lab
    path = write(FIREWALL.replace("servers: [20], classrooms: [10]", "servers: [10], classrooms: [20]"))
    path.write_text(path.read_text().replace('mac: "00:00:5e:00:01:14"}', 'mac: "00:00:5e:00:01:14", nat: masquerade}'))
    daemon = Daemon(path, tmp / "vrouter.log")
    servers = []
    try:
        daemon.wait_for("event=reconciled")
        h1, h3 = hosts["h1"], hosts["h3"]
        for h in (h1, h3):
            servers.append(subprocess.Popen(["ip", "netns", "exec", h.ns, sys.executable, "-c", WHO_SERVER]))
        assert h1.run(sys.executable, "-c", WHO_CLIENT, h3.ip).strip() == "10.0.20.1"   # translated there and back
        assert h3.run(sys.executable, "-c", WHO_CLIENT, h1.ip).strip() == "no"          # outside cannot open
    finally:
        for p in servers:
            p.kill()
            p.wait()
        assert daemon.stop() == 0
