"""IPv4 routing: MAC rewrite, TTL, checksum, longest prefix, default route, route
actions, punts to the CPU with their reason, MTU, bad headers, ECMP.

Ports: 1 access VLAN 10 (host 1), 2 access VLAN 10 (host 2), 3 access VLAN 20
(host 3), 4 access VLAN 20 (host 4), 6 trunk VLANs 10, 20, 40 (routing peer on 40).
Router interfaces: VLAN 10 10.0.10.1, VLAN 20 10.0.20.1, VLAN 40 10.0.40.1.
Next hops: 1 host 1, 3 host 3, 4 host 4, 40 peer (port 6, VLAN 40, tagged).
"""
from __future__ import annotations

from dataclasses import dataclass

import ptf.testutils as tu

from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

from base import (BROADCAST_MAC, HOST1_IP, HOST1_MAC, HOST2_MAC, HOST3_IP, HOST3_MAC, HOST4_MAC, PEER2_MAC,
                  PEER_MAC, REMOTE_IP, ROUTER_IP10, ROUTER_IP20, ROUTER_IP40, ROUTER_MAC, VLAN10, VLAN20, VLAN40,
                  Drop, Reason, VrouterTest, generate_cases, routed, udp_packet)

NEXTHOPS = {1: (1, VLAN10, HOST1_MAC), 3: (3, VLAN20, HOST3_MAC), 4: (4, VLAN20, HOST4_MAC),
            40: (6, VLAN40, PEER_MAC)}
OUT_TAG = {1: None, 2: None, 3: None, 4: None, 6: "tagged"}


class RoutingTest(VrouterTest):
    """Three router interfaces, four next hops, host routes to host 1 and host 3."""

    MTU20: int | None = None

    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 2: VLAN10, 3: VLAN20, 4: VLAN20}, {6: ((VLAN10, VLAN20, VLAN40), 0)})
        self.add_router_interface(VLAN10, ROUTER_IP10)
        self.add_router_interface(VLAN20, ROUTER_IP20, mtu=self.MTU20)
        self.add_router_interface(VLAN40, ROUTER_IP40)
        for nh, (port, vlan, mac) in NEXTHOPS.items():
            self.add_nexthop(nh, port, vlan, mac)
        self.add_route(f"{HOST1_IP}/32", 1)
        self.add_route(f"{HOST3_IP}/32", 3)

    def expected_out(self, pkt, nexthop: int):
        """`pkt` routed through next hop `nexthop`: (port, frame)."""
        port, vlan, mac = NEXTHOPS[nexthop]
        return port, routed(pkt, ROUTER_MAC, mac, vlan=vlan if port == 6 else None)


# --- forwarding cases ----------------------------------------------------------------------------


@dataclass
class Route:
    id: str
    doc: str
    routes: dict[str, int]          # prefix -> next hop
    dst: str
    nexthop: int | None             # None: dropped
    drop: int | None = None
    in_port: int = 1
    in_vlan: int | None = None      # tag on the wire
    ttl: int = 64


ROUTE_CASES = [
    Route("UnicastRewrite", "host 1 (VLAN 10) -> host 3 (VLAN 20): MACs rewritten, TTL - 1, checksum",
          {}, HOST3_IP, 3),
    Route("UnicastTtl2", "TTL 2 is still routed (leaves with 1)", {}, HOST3_IP, 3, ttl=2),
    Route("UnicastFromTrunk", "tagged VLAN 20 on trunk 6 -> host 1 on access port 1", {}, HOST1_IP, 1,
          in_port=6, in_vlan=VLAN20),
    Route("LongestPrefix24", "10.1.2.9 matches /16, /24: the /24 wins",
          {"10.1.0.0/16": 3, "10.1.2.0/24": 4, "10.1.2.128/25": 40}, "10.1.2.9", 4),
    Route("LongestPrefix25", "10.1.2.200 matches /16, /24, /25: the /25 wins",
          {"10.1.0.0/16": 3, "10.1.2.0/24": 4, "10.1.2.128/25": 40}, "10.1.2.200", 40),
    Route("LongestPrefix16", "10.1.3.9 matches only the /16",
          {"10.1.0.0/16": 3, "10.1.2.0/24": 4, "10.1.2.128/25": 40}, "10.1.3.9", 3),
    Route("HostRouteBeatsDefault", "a /32 beats the default route", {"0.0.0.0/0": 40}, HOST3_IP, 3),
    Route("DefaultRoute", "8.8.8.8 only matches 0.0.0.0/0: to the peer, tagged VLAN 40", {"0.0.0.0/0": 40},
          "8.8.8.8", 40),
    Route("NoRoute", "no route and no default: dropped", {"10.1.0.0/16": 3}, "192.0.2.1", None, Drop.NO_ROUTE),
    Route("NextHopMissing", "a route to a next-hop id without entry: dropped", {"10.5.0.0/16": 99}, "10.5.0.1",
          None, Drop.NEXTHOP_MISS),
]


class RouteForward(RoutingTest):
    def run_case(self, c: Route) -> None:
        for prefix, nh in c.routes.items():
            self.add_route(prefix, nh)
        src_mac, src_ip = (HOST1_MAC, HOST1_IP) if c.in_port == 1 else (PEER_MAC, "10.0.20.99")
        pkt = udp_packet(src_mac, ROUTER_MAC, src_ip, c.dst, vlan=c.in_vlan, ttl=c.ttl)
        self.send(c.in_port, pkt)
        if c.nexthop is None:
            self.expect_only({})
            self.assert_drops({c.drop: 1})
            return
        port, exp = self.expected_out(pkt, c.nexthop)
        self.assertEqual(exp[IP].ttl, c.ttl - 1)
        self.expect_only({port: exp})


generate_cases(globals(), RouteForward, ROUTE_CASES, "Route")


class RouteBlackhole(RoutingTest):
    """drop_route drops and counts ROUTE_BLACKHOLE; route_to_cpu punts with ROUTE_TO_CPU."""

    def runTest(self) -> None:
        self.add_route("10.66.0.0/16", action="drop_route")
        self.add_route("10.77.0.0/16", action="route_to_cpu")
        self.send(1, udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, "10.66.1.1"))
        self.expect_only({})
        self.assert_drops({Drop.ROUTE_BLACKHOLE: 1})
        pkt = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, "10.77.1.1")
        self.send(1, pkt)
        self.expect_only({})
        self.expect_packet_in(pkt, 1, Reason.ROUTE_TO_CPU, VLAN10)


class RouteRouteCounter(RoutingTest):
    """The route's direct counter counts the packets it routed."""

    def runTest(self) -> None:
        entry = self.table_add("ipv4_route", {"ipv4_dst": "10.1.0.0/16"}, "route_to_nexthop", {"nexthop_id": 3})
        pkt = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, "10.1.0.5")
        for _ in range(4):
            self.send(1, pkt)
        port, exp = self.expected_out(pkt, 3)
        for _ in range(4):
            self.expect(port, exp)
        self.expect_only({})
        self.assertEqual(self.direct_counter(entry).packets, 4, "ipv4_route_counter of 10.1.0.0/16")


class NotToRouterMacIsBridged(RoutingTest):
    """IPv4 to another host's MAC in the same VLAN is bridged, not routed (TTL unchanged)."""

    def runTest(self) -> None:
        self.add_station(VLAN10, HOST2_MAC, 2)
        pkt = udp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST3_IP)
        self.send(1, pkt)
        self.expect_only({2: pkt})


# --- punts ---------------------------------------------------------------------------------------


@dataclass
class Punt:
    id: str
    doc: str
    frame: object
    reason: int
    in_port: int = 1
    in_vlan: int = VLAN10
    payload: object = None     # expected packet-in payload (default: the frame)


def _arp(pdst: str, op: int = 1):
    return Ether(src=HOST1_MAC, dst=BROADCAST_MAC) / ARP(op=op, hwsrc=HOST1_MAC, psrc=HOST1_IP, pdst=pdst)


PUNT_CASES = [
    Punt("TtlExpired", "TTL 1: to the CPU, TTL_EXPIRED",
         udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, ttl=1), Reason.TTL_EXPIRED),
    Punt("TtlZero", "TTL 0: to the CPU, TTL_EXPIRED",
         udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, ttl=0), Reason.TTL_EXPIRED),
    Punt("RouterAddressOwnVlan", "ping to the router's own interface address",
         Ether(src=HOST1_MAC, dst=ROUTER_MAC) / IP(src=HOST1_IP, dst=ROUTER_IP10) / ICMP() / Raw(b"\0" * 32),
         Reason.ROUTER_ADDRESS),
    Punt("RouterAddressOtherVlan", "ping to the router's address on another VLAN",
         Ether(src=HOST1_MAC, dst=ROUTER_MAC) / IP(src=HOST1_IP, dst=ROUTER_IP20) / ICMP() / Raw(b"\0" * 32),
         Reason.ROUTER_ADDRESS),
    Punt("ArpRequestForRouter", "ARP request for the router's address", _arp(ROUTER_IP10), Reason.ARP),
    Punt("ArpReplyToRouter", "ARP reply to the router", _arp(ROUTER_IP10, op=2), Reason.ARP),
    Punt("ArpFromTrunkUntagged", "ARP for the router on trunk 6, VLAN 20: punted untagged, vlan_id 20",
         Ether(src=PEER_MAC, dst=BROADCAST_MAC) / Dot1Q(vlan=VLAN20) / ARP(hwsrc=PEER_MAC, psrc="10.0.20.99",
                                                                         pdst=ROUTER_IP20),
         Reason.ARP, in_port=6, in_vlan=VLAN20,
         payload=Ether(src=PEER_MAC, dst=BROADCAST_MAC) / ARP(hwsrc=PEER_MAC, psrc="10.0.20.99", pdst=ROUTER_IP20)),
    Punt("IpOptions", "routed IPv4 with options (IHL 6)",
         Ether(src=HOST1_MAC, dst=ROUTER_MAC) / IP(src=HOST1_IP, dst=HOST3_IP, options=b"\x01\x01\x01\x00")
         / UDP() / Raw(b"\0" * 32), Reason.IP_OPTIONS),
]


class PuntTest(RoutingTest):
    def run_case(self, c: Punt) -> None:
        self.send(c.in_port, c.frame)
        self.expect_only({})
        self.expect_packet_in(c.payload if c.payload is not None else c.frame, c.in_port, c.reason, c.in_vlan)
        self.expect_no_packet_in()


generate_cases(globals(), PuntTest, PUNT_CASES, "Punt")


class ArpForOtherHostIsFlooded(RoutingTest):
    """ARP for a host (not a router address) is flooded in its VLAN, not punted."""

    def runTest(self) -> None:
        pkt = _arp("10.0.10.12")
        self.send(1, pkt)
        tagged = Ether(src=HOST1_MAC, dst=BROADCAST_MAC) / Dot1Q(vlan=VLAN10) / pkt[ARP]
        self.expect_only({2: pkt, 6: tagged})
        self.expect_no_packet_in()


# --- MTU and bad headers -----------------------------------------------------------------------------


class MtuTest(RoutingTest):
    """VLAN 20's interface MTU is 500: larger IPv4 is dropped (DF clear) or punted (DF set)."""

    MTU20 = 500

    def runTest(self) -> None:
        # Exactly the MTU (IPv4 total length 500) passes.
        fits = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, size=514)
        self.assertEqual(len(fits[IP]), 500)
        self.send(1, fits)
        self.expect_only(dict([self.expected_out(fits, 3)]))
        # One byte more, DF clear: dropped and counted.
        big = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, size=515)
        self.send(1, big)
        self.expect_only({})
        self.assert_drops({Drop.MTU_EXCEEDED: 1})
        # DF set: to the CPU (MTU_EXCEEDED), as it would have left.
        big_df = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, size=600, flags="DF")
        self.send(1, big_df)
        self.expect_only({})
        self.expect_packet_in(self.expected_out(big_df, 3)[1], 1, Reason.MTU_EXCEEDED)
        self.assert_drops({Drop.MTU_EXCEEDED: 1})


class BadIpv4Dropped(RoutingTest):
    """Routed IPv4 with a wrong header checksum or version is dropped and counted."""

    def runTest(self) -> None:
        bad_sum = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP)
        bad_sum[IP].chksum = 0x1234
        self.send(1, bad_sum)
        bad_version = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP)
        bad_version[IP].version = 6
        self.send(1, bad_version)
        self.expect_only({})
        self.assert_drops({Drop.IPV4_CHECKSUM: 1, Drop.IPV4_INVALID: 1})


class ParserErrorDropped(RoutingTest):
    """A truncated IPv4 header is a parser error: dropped and counted."""

    def runTest(self) -> None:
        self.send(1, bytes(Ether(src=HOST1_MAC, dst=ROUTER_MAC, type=0x0800)) + b"\x45\x00\x00")
        self.expect_only({})
        self.assert_drops({Drop.PARSER_ERROR: 1})


class L3UnsupportedDropped(RoutingTest):
    """A non-IP frame to the router MAC (IPv6 here) is dropped, L3_UNSUPPORTED."""

    def runTest(self) -> None:
        self.send(1, Ether(src=HOST1_MAC, dst=ROUTER_MAC, type=0x86DD) / Raw(b"\x60" + b"\0" * 59))
        self.expect_only({})
        self.assert_drops({Drop.L3_UNSUPPORTED: 1})


# --- ECMP ---------------------------------------------------------------------------------------------

ECMP_MEMBERS = {21: (3, VLAN20, HOST3_MAC), 22: (4, VLAN20, HOST4_MAC), 23: (6, VLAN40, PEER_MAC),
                24: (6, VLAN40, PEER2_MAC)}


class EcmpSpreadAndStick(RoutingTest):
    """64 UDP flows over a 4-member group: every member is used, each flow stays on one member."""

    FLOWS = 64

    def runTest(self) -> None:
        for member, (port, vlan, mac) in ECMP_MEMBERS.items():
            self.add_nexthop(member, port, vlan, mac, table_entry=False)
        self.add_ecmp_group(20, 1, ECMP_MEMBERS)
        self.add_route("172.16.0.0/16", 20)
        flows = [udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, REMOTE_IP, sport=10000 + 7 * i, dport=53 + i)
                 for i in range(self.FLOWS)]
        first = [self.member_of(flow) for flow in flows]
        used = {m: first.count(m) for m in ECMP_MEMBERS}
        self.assertTrue(all(used.values()), f"members used by {self.FLOWS} flows: {used}")
        again = [self.member_of(flow) for flow in flows]
        moved = [i for i, (a, b) in enumerate(zip(first, again)) if a != b]
        self.assertEqual(moved, [], "flows that changed member on the second packet")
        self.expect_only({})

    def member_of(self, flow) -> int:
        """Send one packet of `flow`; return the member whose rewrite it left with (exactly)."""
        self.send(1, flow)
        result = tu.dp_poll(self, timeout=2)
        self.assertTrue(isinstance(result, self.dataplane.PollSuccess), "a routed ECMP packet did not come out")
        for member, (port, vlan, mac) in ECMP_MEMBERS.items():
            exp = routed(flow, ROUTER_MAC, mac, vlan=vlan if port == 6 else None)
            if result.port == port and bytes(result.packet) == bytes(exp):
                return member
        self.fail(f"packet on port {result.port} matches no member's rewrite: {bytes(result.packet).hex()}")
