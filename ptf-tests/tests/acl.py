"""Ingress ACL: permit/deny and priority order, port ranges, each key kind, the per-rule
counter, punt, copy and redirect to a next hop.

Ports: 1 and 2 access VLAN 10 (hosts 1, 2 known), 3 access VLAN 20 (host 3), 5 trunk
VLAN 10. Router interface on VLANs 10 and 20; next hop 3 = host 3.
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.l2 import ARP, Ether

from base import (BROADCAST_MAC, HOST1_IP, HOST1_MAC, HOST2_IP, HOST2_MAC, HOST3_MAC, HOST5_MAC, ROUTER_IP10,
                  ROUTER_IP20, ROUTER_MAC, VLAN10, VLAN20, Drop, Reason, VrouterTest, generate_cases, routed,
                  tcp_packet, udp_packet)


class AclTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 2: VLAN10, 3: VLAN20}, {5: ((VLAN10,), 0)})
        self.add_station(VLAN10, HOST1_MAC, 1)
        self.add_station(VLAN10, HOST2_MAC, 2)
        self.add_router_interface(VLAN10, ROUTER_IP10)
        self.add_router_interface(VLAN20, ROUTER_IP20)
        self.add_nexthop(3, 3, VLAN20, HOST3_MAC)

    def h1_to_h2(self, **kw):
        return udp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, **kw)


# --- priority order and ranges -----------------------------------------------------------------

ORDER_RULES = [
    (10, {"ip_protocol": (17, 0xff), "l4_dst_port": (1000, 2000)}, "deny"),
    (20, {"ipv4_src": (HOST1_IP, "255.255.255.255"), "l4_dst_port": (1500, 1500)}, "permit"),
    (30, {"l4_src_port": (5000, 5010)}, "deny"),
]


@dataclass
class Verdict:
    id: str
    doc: str
    sport: int
    dport: int
    passes: bool


ORDER_CASES = [
    Verdict("DenyInRange", "dport 1200 in the deny range 1000..2000", 1234, 1200, False),
    Verdict("DenyRangeLow", "dport 1000: low end of the range is included", 1234, 1000, False),
    Verdict("DenyRangeHigh", "dport 2000: high end included", 1234, 2000, False),
    Verdict("BelowRange", "dport 999 passes", 1234, 999, True),
    Verdict("AboveRange", "dport 2001 passes", 1234, 2001, True),
    Verdict("HigherPriorityPermitWins", "dport 1500: permit (20) beats deny (10)", 1234, 1500, True),
    Verdict("SrcRangeDeny", "sport 5010 in the source range: denied (30)", 5010, 80, False),
    Verdict("SrcRangeBeatsPermit", "sport 5000 dport 1500: deny (30) beats permit (20)", 5000, 1500, False),
    Verdict("SrcRangeAbove", "sport 5011 passes", 5011, 80, True),
]


class AclOrder(AclTest):
    def run_case(self, c: Verdict) -> None:
        for prio, match, action in ORDER_RULES:
            self.add_acl(prio, match, action)
        pkt = self.h1_to_h2(sport=c.sport, dport=c.dport)
        self.send(1, pkt)
        self.expect_only({2: pkt} if c.passes else {})
        self.assert_drops({Drop.ACL_DENY: 0 if c.passes else 1})


generate_cases(globals(), AclOrder, ORDER_CASES, "AclOrder")


# --- one rule per key kind ---------------------------------------------------------------------


@dataclass
class KeyCase:
    id: str
    doc: str
    match: dict
    hit: tuple          # (in port, frame) the rule must deny
    miss: tuple         # (in port, frame, {out port: expected}) the rule must not touch


_h12 = dict(eth_src=HOST1_MAC, eth_dst=HOST2_MAC, ip_src=HOST1_IP, ip_dst=HOST2_IP)
KEY_CASES = [
    KeyCase("IngressPort", "ingress_port 5", {"ingress_port": (5, 0x1ff)},
            (5, udp_packet(vlan=VLAN10, **{**_h12, "eth_src": HOST5_MAC})),
            (1, udp_packet(**_h12), {2: udp_packet(**_h12)})),
    KeyCase("VlanId", "vlan_id 10 (port 1 is in VLAN 10; port 3 in 20)", {"vlan_id": (VLAN10, 0xfff)},
            (1, udp_packet(**_h12)),
            (3, udp_packet(HOST3_MAC, BROADCAST_MAC), {})),
    KeyCase("SrcMac", "src_mac of host 1", {"src_mac": (HOST1_MAC, "ff:ff:ff:ff:ff:ff")},
            (1, udp_packet(**_h12)),
            (5, udp_packet(vlan=VLAN10, **{**_h12, "eth_src": HOST5_MAC}),
             {2: udp_packet(**{**_h12, "eth_src": HOST5_MAC})})),
    KeyCase("DstMacMasked", "dst_mac with a mask on the first 5 bytes", {"dst_mac": ("00:00:00:00:00:00", "ff:ff:ff:ff:ff:00")},
            (1, udp_packet(**_h12)),
            (2, udp_packet(HOST2_MAC, BROADCAST_MAC),
             {1: udp_packet(HOST2_MAC, BROADCAST_MAC), 5: udp_packet(HOST2_MAC, BROADCAST_MAC, vlan=VLAN10)})),
    KeyCase("EtherTypeArp", "ether_type 0x0806",
            {"ether_type": (0x0806, 0xffff)},
            (1, Ether(src=HOST1_MAC, dst=BROADCAST_MAC) / ARP(psrc=HOST1_IP, pdst="10.0.10.77")),
            (1, udp_packet(**_h12), {2: udp_packet(**_h12)})),
    KeyCase("Ipv4DstPrefix", "ipv4_dst 10.0.10.0/28 as a ternary mask", {"ipv4_dst": ("10.0.10.0", "255.255.255.240")},
            (1, udp_packet(**_h12)),
            (1, udp_packet(**{**_h12, "ip_dst": "10.0.10.99"}), {2: udp_packet(**{**_h12, "ip_dst": "10.0.10.99"})})),
    KeyCase("Dscp", "dscp 46", {"dscp": (46, 0x3f)},
            (1, udp_packet(tos=46 << 2, **_h12)),
            (1, udp_packet(tos=10 << 2, **_h12), {2: udp_packet(tos=10 << 2, **_h12)})),
    KeyCase("TcpFlagsSyn", "tcp_flags SYN set",
            {"ip_protocol": (6, 0xff), "tcp_flags": (0x02, 0x02)},
            (1, tcp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, tcp_flags="S")),
            (1, tcp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, tcp_flags="A"),
             {2: tcp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, tcp_flags="A")})),
]


class AclKey(AclTest):
    def run_case(self, c: KeyCase) -> None:
        self.add_acl(100, c.match, "deny")
        in_port, frame = c.hit
        self.send(in_port, frame)
        self.expect_only({})
        self.assert_drops({Drop.ACL_DENY: 1})
        in_port, frame, outputs = c.miss
        self.send(in_port, frame)
        self.expect_only(outputs)
        self.assert_drops({Drop.ACL_DENY: 1})


generate_cases(globals(), AclKey, KEY_CASES, "AclKey")


# --- actions -------------------------------------------------------------------------------------


class AclDenyCounter(AclTest):
    """The rule's direct counter counts its hits (and only them)."""

    def runTest(self) -> None:
        deny = self.add_acl(10, {"ip_protocol": (17, 0xff), "l4_dst_port": (1000, 2000)}, "deny")
        permit = self.add_acl(5, {"ip_protocol": (17, 0xff)}, "permit")
        for dport in (1001, 1002, 1003):
            self.send(1, self.h1_to_h2(dport=dport))
        ok = self.h1_to_h2(dport=80)
        self.send(1, ok)
        self.expect_only({2: ok})
        self.assert_drops({Drop.ACL_DENY: 3})
        deny_count = self.direct_counter(deny)
        self.assertEqual(deny_count.packets, 3, "acl_ingress_counter of the deny rule")
        self.assertEqual(deny_count.bytes, 3 * len(ok), "acl_ingress_counter bytes")
        self.assertEqual(self.direct_counter(permit).packets, 1, "acl_ingress_counter of the permit rule")


class AclPunt(AclTest):
    """punt_to_cpu: the frame goes to the CPU only (ACL_PUNT), as received."""

    def runTest(self) -> None:
        self.add_acl(30, {"ip_protocol": (6, 0xff), "tcp_flags": (0x02, 0x02)}, "punt_to_cpu")
        syn = tcp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, tcp_flags="S")
        self.send(1, syn)
        self.expect_only({})
        self.expect_packet_in(syn, 1, Reason.ACL_PUNT, VLAN10)
        ack = tcp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, tcp_flags="A")
        self.send(1, ack)
        self.expect_only({2: ack})
        self.expect_no_packet_in()


class AclPuntTaggedIsUntagged(AclTest):
    """A punted frame from a trunk arrives untagged, with its VLAN in packet_in.vlan_id."""

    def runTest(self) -> None:
        self.add_acl(30, {"ip_protocol": (17, 0xff), "l4_dst_port": (4444, 4444)}, "punt_to_cpu")
        pkt = udp_packet(HOST5_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, dport=4444, vlan=VLAN10)
        self.send(5, pkt)
        self.expect_only({})
        self.expect_packet_in(udp_packet(HOST5_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, dport=4444), 5, Reason.ACL_PUNT, VLAN10)


class AclCopy(AclTest):
    """copy_to_cpu: forwarded as usual and a copy to the CPU (ACL_COPY)."""

    def runTest(self) -> None:
        self.add_cpu_clone_session()
        self.add_acl(40, {"ip_protocol": (17, 0xff), "l4_dst_port": (5000, 5000)}, "copy_to_cpu")
        pkt = self.h1_to_h2(dport=5000)
        self.send(1, pkt)
        self.expect_only({2: pkt})
        self.expect_packet_in(pkt, 1, Reason.ACL_COPY, VLAN10)
        self.expect_no_packet_in()


class AclRedirect(AclTest):
    """redirect_to_nexthop: a bridged frame leaves through next hop 3 instead, routed (TTL - 1)."""

    def runTest(self) -> None:
        self.add_acl(50, {"ip_protocol": (17, 0xff), "l4_dst_port": (7777, 7777)}, "redirect_to_nexthop",
                     {"nexthop_id": 3})
        pkt = self.h1_to_h2(dport=7777)
        self.send(1, pkt)
        self.expect_only({3: routed(pkt, ROUTER_MAC, HOST3_MAC)})
        other = self.h1_to_h2(dport=7778)
        self.send(1, other)
        self.expect_only({2: other})
