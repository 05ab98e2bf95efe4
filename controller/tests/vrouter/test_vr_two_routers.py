"""Two switch-routers in one description, one daemon: static routes, an MPLS LSP and a VPLS between them."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from netns import Daemon, Host, SwitchProc, sh, vrouter

pytestmark = pytest.mark.integration

DESCRIPTION = """
pipeline: {{p4info: {p4info}, config: {json}}}
switches:
  r1:
    address: {a1}
    vlans:
      10: {{interface: {{address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}}}
      40: {{interface: {{address: 10.255.0.1/30, mac: "00:00:5e:00:01:28"}}}}
      50: {{name: vpls}}
    ports: {{1: {{vlan: 10}}, 2: {{vlan: 40}}, 3: {{vlan: 50}}}}
    routes:
      - {{prefix: 10.0.30.0/24, via: 10.255.0.2}}
    lsps:
      - {{name: to-r2, role: ingress, fec: 10.0.20.0/24, labels: [1000], via: 10.255.0.2}}
      - {{name: from-r2, role: egress, in_label: 2000}}
    vpls:
      blue: {{vlan: 50, pseudowires: [{{peer: r2, lsp: to-r2, in_label: 5001, out_label: 5002}}]}}
  r2:
    address: {a2}
    vlans:
      20: {{interface: {{address: 10.0.20.1/24, mac: "00:00:5e:00:02:14"}}}}
      30: {{interface: {{address: 10.0.30.1/24, mac: "00:00:5e:00:02:1e"}}}}
      40: {{interface: {{address: 10.255.0.2/30, mac: "00:00:5e:00:02:28"}}}}
      50: {{name: vpls}}
    ports: {{1: {{vlan: 40}}, 2: {{vlan: 20}}, 3: {{vlan: 30}}, 4: {{vlan: 50}}}}
    routes:
      - {{prefix: 10.0.10.0/24, via: 10.255.0.1}}
    lsps:
      - {{name: from-r1, role: egress, in_label: 1000}}
      - {{name: to-r1, role: ingress, labels: [2000], via: 10.255.0.1}}
    vpls:
      blue: {{vlan: 50, pseudowires: [{{peer: r1, lsp: to-r1, in_label: 5002, out_label: 5001}}]}}
"""


@pytest.fixture
def chain(tmp_path, vrouter_program):
    if os.geteuid() != 0:
        pytest.fail("the vrouter integration tests need root (network namespaces)")
    tag = f"hc{os.getpid() % 10000}"
    h1 = Host("a", 1, "10.0.10.11/24", "10.0.10.1", tag + "a")
    h2 = Host("b", 2, "10.0.20.11/24", "10.0.20.1", tag + "b")
    h3 = Host("c", 3, "10.0.30.11/24", "10.0.30.1", tag + "b")
    h4 = Host("d", 3, "10.0.50.11/24", "10.0.50.1", tag + "a")     # VPLS blue at r1
    h5 = Host("e", 4, "10.0.50.12/24", "10.0.50.1", tag + "b")     # VPLS blue at r2
    link = (f"{tag}x1", f"{tag}x2")
    switches = []
    try:
        for h in (h1, h2, h3, h4, h5):
            h.create()
        h4.set_mac("46:00:00:00:50:0b")    # first nibble 4: must not be taken for IPv4 under the PW label
        sh("ip", "link", "add", link[0], "type", "veth", "peer", "name", link[1])
        for end in link:
            sh("sysctl", "-qw", f"net.ipv6.conf.{end}.disable_ipv6=1", check=False)
            sh("ip", "link", "set", end, "up")
        r1 = SwitchProc({1: h1.switch_side, 2: link[0], 3: h4.switch_side}, tmp_path / "r1.log").start()
        switches.append(r1)
        r2 = SwitchProc({1: link[1], 2: h2.switch_side, 3: h3.switch_side, 4: h5.switch_side},
                        tmp_path / "r2.log").start()
        switches.append(r2)
        path = tmp_path / "chain.yaml"
        path.write_text(DESCRIPTION.format(p4info=vrouter_program.p4info, json=vrouter_program.json,
                                           a1=r1.address, a2=r2.address))
        yield (h1, h2, h3, h4, h5), path, tmp_path
    finally:
        for s in switches:
            s.kill()
        subprocess.run(["ip", "link", "del", link[0]], capture_output=True)
        for h in (h1, h2, h3, h4, h5):
            h.destroy()


def test_routes_and_lsp_across_two_routers(chain) -> None:
    (h1, h2, h3, h4, h5), path, tmp = chain
    daemon = Daemon(path, tmp / "vrouter.log")
    try:
        daemon.wait_for("event=reconciled switch=r1")
        daemon.wait_for("event=reconciled switch=r2")
        # each router resolves the other's core address by ARP (no static ARP anywhere)
        daemon.wait_for("event=neighbor_resolved switch=r1 ip=10.255.0.2")
        daemon.wait_for("event=neighbor_resolved switch=r2 ip=10.255.0.1")
        assert h1.reaches(h3.ip), daemon.text()[-3000:]      # plain IPv4 both ways over static routes
        assert h1.reaches(h2.ip), daemon.text()[-3000:]      # r1 pushes label 1000, r2 pops and routes
        lsps = vrouter("show", "lsps", str(path), "--switch", "r1").stdout
        assert "push" in lsps and "1000" in lsps, lsps
        labels = json.loads(vrouter("show", "lsps", str(path), "--switch", "r2", "--json").stdout)["r2"]
        popped = [row for row in labels if row["in_label"] == 1000]
        assert popped and popped[0]["action"] == "pop_and_route" and popped[0]["packets"] > 0, labels
        # a TTL that expires on the second router is reported by it
        out = h1.run("ping", "-n", "-c", "1", "-W", "2", "-t", "2", h3.ip)
        assert "From 10.255.0.2" in out and "Time to live exceeded" in out, out
        # VPLS: d and e share VLAN 50 across the pseudowire; each PE pushes its LSP's label (r1
        # 1000, r2 2000) over the PW label, the other pops it (egress LSP) and then the PW label.
        # No remote MAC is configured: the first ARP travels as a flood copy, then each PE learns the
        # far host behind its pseudowire (pw_learn_digest_t) and unicasts to it.
        assert h4.reaches(h5.ip), daemon.text()[-3000:]
        for name, far in (("r2", h4), ("r1", h5)):
            daemon.wait_for(f"event=mac_learned switch={name} vlan=50 mac={far.mac()} port=pw:")
            macs = json.loads(vrouter("show", "macs", str(path), "--switch", name, "--json").stdout)[name]
            row = [m for m in macs if m["mac"] == far.mac()]
            assert row and row[0]["port"] == f"pseudowire blue to {'r1' if name == 'r2' else 'r2'}" \
                and row[0]["type"] == "learned", macs
        for name in ("r1", "r2"):
            pws = json.loads(vrouter("show", "vpls", str(path), "--switch", name, "--json").stdout)[name]
            assert len(pws) == 1 and pws[0]["packets_in"] > 0 and pws[0]["flooded_out"] > 0, pws
            assert "push" in pws[0]["next_hop"], pws
    finally:
        assert daemon.stop() == 0
