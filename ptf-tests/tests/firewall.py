"""Stateful zone firewall (docs/p4-program.md section 11): VLAN 10 is the trusted zone 1,
VLAN 20 the untrusted zone 2; routed traffic between them. Replies from the untrusted
side pass only for TCP/UDP flows the trusted side opened.

Ports: 1 access VLAN 10 (host 1, trusted), 3 access VLAN 20 (host 3, untrusted).
Each test uses its own L4 ports, because connection state outlives a test (registers).
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.inet import ICMP, IP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from base import (HOST1_IP, HOST1_MAC, HOST3_IP, HOST3_MAC, ROUTER_MAC, VLAN10, VLAN20,
                  Drop, VrouterTest, generate_cases, routed, tcp_packet, udp_packet)

TRUSTED, UNTRUSTED = 1, 2


class FirewallTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.route_host1_and_host3()
        for vlan, zone in ((VLAN10, TRUSTED), (VLAN20, UNTRUSTED)):
            self.table_add("firewall_src_zone", {"vlan_id": vlan}, "set_src_zone", {"zone": zone})
            self.table_add("firewall_dst_zone", {"vlan_id": vlan}, "set_dst_zone", {"zone": zone})
        self.table_add("firewall_policy", {"src_zone": TRUSTED, "dst_zone": UNTRUSTED}, "track_connection")
        self.table_add("firewall_policy", {"src_zone": UNTRUSTED, "dst_zone": TRUSTED}, "allow_established")

    def out_of_1(self, pkt):      # trusted -> untrusted, as it leaves on port 3
        return routed(pkt, ROUTER_MAC, HOST3_MAC)

    def out_of_3(self, pkt):      # untrusted -> trusted, as it leaves on port 1
        return routed(pkt, ROUTER_MAC, HOST1_MAC)


@dataclass
class Flow:
    id: str
    doc: str
    proto: str       # udp | tcp
    client_port: int
    server_port: int


FLOWS = [Flow("Udp", "UDP (DNS-like) flow", "udp", 41000, 53), Flow("Tcp", "TCP flow", "tcp", 42000, 443)]


class FirewallReplyAfterOpen(FirewallTest):
    def packets(self, c: Flow, sport_offset: int = 0):
        if c.proto == "udp":
            req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=c.client_port + sport_offset,
                             dport=c.server_port)
            rep = udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=c.server_port,
                             dport=c.client_port + sport_offset)
        else:
            req = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=c.client_port + sport_offset,
                             dport=c.server_port, tcp_flags="S")
            rep = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=c.server_port,
                             dport=c.client_port + sport_offset, tcp_flags="SA")
        return req, rep

    def run_case(self, c: Flow) -> None:
        req, rep = self.packets(c)
        # 1. The reply before the trusted side opened the flow: dropped.
        self.send(3, rep)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})
        # 2. The trusted side opens the flow: forwarded.
        self.send(1, req)
        self.expect_only({3: self.out_of_1(req)})
        # 3. Now the reply passes, repeatedly.
        for _ in range(2):
            self.send(3, rep)
            self.expect_only({1: self.out_of_3(rep)})
        # 4. A reply to another client port (a flow never opened) is still dropped.
        _, other = self.packets(c, sport_offset=1)
        self.send(3, other)
        self.expect_only({})
        # 5. The same ports but the other protocol is another flow: dropped.
        flipped = Flow("", "", "tcp" if c.proto == "udp" else "udp", c.client_port, c.server_port)
        self.send(3, self.packets(flipped)[1])
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 3})


generate_cases(globals(), FirewallReplyAfterOpen, FLOWS, "Firewall")


class FirewallUntrustedIcmpDropped(FirewallTest):
    """ICMP from the untrusted side is dropped; from the trusted side it passes (untracked)."""

    def runTest(self) -> None:
        ping = Ether(src=HOST3_MAC, dst=ROUTER_MAC) / IP(src=HOST3_IP, dst=HOST1_IP) / ICMP(id=9) / Raw(b"\0" * 32)
        self.send(3, ping)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})
        ping = Ether(src=HOST1_MAC, dst=ROUTER_MAC) / IP(src=HOST1_IP, dst=HOST3_IP) / ICMP(id=9) / Raw(b"\0" * 32)
        self.send(1, ping)
        self.expect_only({3: self.out_of_1(ping)})


class FirewallNewFlowFromUntrustedDropped(FirewallTest):
    """The untrusted side cannot open a flow: its SYN is dropped, and the trusted host's
    answer does not open the way back for it."""

    def runTest(self) -> None:
        syn = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=43000, dport=22, tcp_flags="S")
        self.send(3, syn)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})


class FirewallPolicyCounter(FirewallTest):
    """firewall_policy_counter counts the packets each zone pair saw."""

    def runTest(self) -> None:
        from p4rt import TableEntry
        track = TableEntry("firewall_policy", {"src_zone": TRUSTED, "dst_zone": UNTRUSTED})
        allow = TableEntry("firewall_policy", {"src_zone": UNTRUSTED, "dst_zone": TRUSTED})
        req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=44000, dport=123)
        rep = udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=123, dport=44000)
        self.send(1, req)
        self.expect(3, self.out_of_1(req))
        self.send(3, rep)
        self.expect(1, self.out_of_3(rep))
        self.send(3, rep)
        self.expect_only({1: self.out_of_3(rep)})
        self.assertEqual(self.direct_counter(track).packets, 1, "track_connection hits")
        self.assertEqual(self.direct_counter(allow).packets, 2, "allow_established hits")
