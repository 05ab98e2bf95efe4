"""Source NAT, masquerade (docs/p4-program.md section 11a): VLAN 20 masquerades behind
its router address 10.0.20.1; hosts of VLAN 10 reach host 3 (VLAN 20) from that address
and a port (ICMP echo: identifier) 49152 + slot, slot = CRC16(5-tuple) mod 16384; replies
are translated back. A slot admits a reply only for the flow that opened it: colliding
flows are dropped and counted (NAT_EXHAUSTED), empty and closed (TCP RST) slots match
nothing.

Ports: 1 access VLAN 10 (host 1, inside), 3 access VLAN 20 (host 3, outside).
Each test uses its own L4 ports, because NAT slots outlive a test (registers).
"""
from __future__ import annotations

import struct

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from base import (CONN_FREE, CONN_OPEN, HOST1_IP, HOST1_MAC, HOST3_IP, HOST3_MAC, ROUTER_IP20, ROUTER_MAC,
                  VLAN10, VLAN20, Drop, Reason, VrouterTest, crc16_arc, ip_bytes, routed, tcp_packet, udp_packet)

NAT_PORT_BASE, NAT_SLOTS = 49152, 16384
PROTO = {"udp": 17, "tcp": 6, "icmp": 1}


def nat_port(src: str, dst: str, proto: str, sport: int, dport: int) -> int:
    """The port the data plane gives this flow (its slot, if free)."""
    key = ip_bytes(src) + ip_bytes(dst) + bytes([PROTO[proto]]) + struct.pack("!HH", sport, dport)
    return NAT_PORT_BASE + crc16_arc(key) % NAT_SLOTS


def translated(pkt, *, src=None, sport=None, dst=None, dport=None, eth_src=ROUTER_MAC, eth_dst=HOST3_MAC):
    """`pkt` after routing and translation, every checksum computed from scratch by scapy
    (ICMP echo: `sport`/`dport` is the identifier)."""
    out = routed(pkt, eth_src, eth_dst)
    if src is not None:
        out[IP].src = src
    if dst is not None:
        out[IP].dst = dst
    if ICMP in out:
        l4 = out[ICMP]
        if sport is not None or dport is not None:
            l4.id = sport if sport is not None else dport
    else:
        l4 = out[TCP] if TCP in out else out[UDP]
        if sport is not None:
            l4.sport = sport
        if dport is not None:
            l4.dport = dport
    del out[IP].chksum
    del l4.chksum
    return Ether(bytes(out))


def echo(src_mac: str, src: str, dst: str, icmp_type: int, ident: int):
    return (Ether(src=src_mac, dst=ROUTER_MAC) / IP(src=src, dst=dst, id=1)
            / ICMP(type=icmp_type, id=ident, seq=3) / Raw(b"ping" * 8))


class NatTest(VrouterTest):
    firewall = False

    def setUp(self) -> None:
        super().setUp()
        self.route_host1_and_host3()
        self.table_add("nat_inbound_interface", {"vlan_id": VLAN20}, "reverse_masquerade", {"addr": ROUTER_IP20})
        self.table_add("nat_outbound_interface", {"vlan_id": VLAN20}, "masquerade", {"addr": ROUTER_IP20})
        if self.firewall:
            for vlan, zone in ((VLAN10, 1), (VLAN20, 2)):
                self.table_add("firewall_src_zone", {"vlan_id": vlan}, "set_src_zone", {"zone": zone})
                self.table_add("firewall_dst_zone", {"vlan_id": vlan}, "set_dst_zone", {"zone": zone})
            self.table_add("firewall_policy", {"src_zone": 1, "dst_zone": 2}, "track_connection")
            self.table_add("firewall_policy", {"src_zone": 2, "dst_zone": 1}, "allow_established")

    def round_trip(self, proto: str, sport: int, dport: int) -> None:
        """Request out with source ROUTER_IP20:port, the reply back to HOST1_IP:sport, exact bytes."""
        make = udp_packet if proto == "udp" else tcp_packet
        req = make(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=sport, dport=dport)
        port = nat_port(HOST1_IP, HOST3_IP, proto, sport, dport)
        self.send(1, req)
        self.expect_only({3: translated(req, src=ROUTER_IP20, sport=port)})
        for _ in range(2):
            rep = make(HOST3_MAC, ROUTER_MAC, HOST3_IP, ROUTER_IP20, sport=dport, dport=port)
            self.send(3, rep)
            self.expect_only({1: translated(rep, dst=HOST1_IP, dport=sport, eth_dst=HOST1_MAC)})
        # The request again: the same slot, the same port.
        self.send(1, req)
        self.expect_only({3: translated(req, src=ROUTER_IP20, sport=port)})
        self.assert_no_drops(Drop.NAT_EXHAUSTED, Drop.FIREWALL)


class NatUdpRoundTrip(NatTest):
    """UDP: source rewritten to the interface address and slot port (IPv4 and UDP checksums
    exact), the reply translated back to the inside host."""

    def runTest(self) -> None:
        self.round_trip("udp", 50001, 53)


class NatTcpRoundTrip(NatTest):
    """TCP: the same, with the TCP checksum."""

    def runTest(self) -> None:
        self.round_trip("tcp", 50002, 443)


class NatUdpWithoutChecksum(NatTest):
    """A UDP checksum of 0 (none) stays 0 after the translation."""

    def runTest(self) -> None:
        req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50003, dport=69)
        req[UDP].chksum = 0
        req = Ether(bytes(req))
        port = nat_port(HOST1_IP, HOST3_IP, "udp", 50003, 69)
        want = routed(req, ROUTER_MAC, HOST3_MAC)
        want[IP].src = ROUTER_IP20
        want[UDP].sport = port
        del want[IP].chksum
        want = Ether(bytes(want))
        self.assertEqual(want[UDP].chksum, 0)
        self.send(1, req)
        self.expect_only({3: want})


class NatWithFirewall(NatTest):
    """Inside = trusted zone, masquerading VLAN = untrusted: the firewall tracks the flow on
    the inside addresses, so the reply, translated back first, passes it."""
    firewall = True

    def runTest(self) -> None:
        self.round_trip("udp", 50004, 123)
        self.assert_no_drops(Drop.FIREWALL)


class NatReplyFromWrongRemote(NatTest):
    """A packet to the interface address and an active NAT port from another remote port or
    protocol is not translated: it is for the router (punted ROUTER_ADDRESS)."""

    def runTest(self) -> None:
        self.setup_cpu_port(VLAN10)
        req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50005, dport=53)
        port = nat_port(HOST1_IP, HOST3_IP, "udp", 50005, 53)
        self.send(1, req)
        self.expect_only({3: translated(req, src=ROUTER_IP20, sport=port)})
        for bad in (udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, ROUTER_IP20, sport=54, dport=port),
                    tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, ROUTER_IP20, sport=53, dport=port),
                    udp_packet(HOST3_MAC, ROUTER_MAC, "10.0.20.77", ROUTER_IP20, sport=53, dport=port)):
            self.send(3, bad)
            self.expect_packet_in(bad, 3, Reason.ROUTER_ADDRESS, VLAN20)
            self.expect_only({})


class NatInsideTrafficUntouched(NatTest):
    """Traffic from the outside to an inside host (not a NAT reply) and ICMP other than echo
    are not translated."""

    def runTest(self) -> None:
        down = udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=53, dport=50006)
        self.send(3, down)
        self.expect_only({1: routed(down, ROUTER_MAC, HOST1_MAC)})
        unreachable = echo(HOST1_MAC, HOST1_IP, HOST3_IP, 3, 0)
        self.send(1, unreachable)
        self.expect_only({3: routed(unreachable, ROUTER_MAC, HOST3_MAC)})


class NatIcmpEchoRoundTrip(NatTest):
    """ICMP echo is masqueraded by its identifier (port 49152 + slot, slot from the
    5-tuple with identifier as source port and 0 as destination port), ICMP checksum
    updated exactly; the echo reply is translated back; another identifier is not."""

    def runTest(self) -> None:
        self.setup_cpu_port(VLAN10)
        ping = echo(HOST1_MAC, HOST1_IP, HOST3_IP, 8, 4242)
        ident = nat_port(HOST1_IP, HOST3_IP, "icmp", 4242, 0)
        self.send(1, ping)
        self.expect_only({3: translated(ping, src=ROUTER_IP20, sport=ident)})
        pong = echo(HOST3_MAC, HOST3_IP, ROUTER_IP20, 0, ident)
        self.send(3, pong)
        self.expect_only({1: translated(pong, dst=HOST1_IP, dport=4242, eth_dst=HOST1_MAC)})
        stray = echo(HOST3_MAC, HOST3_IP, ROUTER_IP20, 0, ident ^ 1)
        self.send(3, stray)
        self.expect_packet_in(stray, 3, Reason.ROUTER_ADDRESS, VLAN20)
        self.expect_only({})


class NatReplyToUnopenedSlot(NatTest):
    """An attacker's packet to a NAT port whose slot no flow opened, from any remote, is not
    translated (an empty slot matches nothing): it is for the router and punted."""

    def runTest(self) -> None:
        self.setup_cpu_port(VLAN10)
        key_src, key_dst = HOST1_IP, HOST3_IP
        used = {nat_port(key_src, key_dst, "udp", p, 53) for p in range(50000, 50010)}
        port = next(p for p in range(NAT_PORT_BASE + NAT_SLOTS - 1, NAT_PORT_BASE, -1) if p not in used)
        self.assert_register("nat_state", port - NAT_PORT_BASE, CONN_FREE)
        for proto in ("udp", "tcp"):
            make = udp_packet if proto == "udp" else tcp_packet
            probe = make(HOST3_MAC, ROUTER_MAC, HOST3_IP, ROUTER_IP20, sport=53, dport=port)
            self.send(3, probe)
            self.expect_packet_in(probe, 3, Reason.ROUTER_ADDRESS, VLAN20)
            self.expect_only({})


class NatTcpRstFreesSlot(NatTest):
    """A TCP RST closes the flow's slot at once: a reply of the closed flow is not translated
    any more, and a flow colliding with it may take the slot (no NAT_EXHAUSTED)."""

    def runTest(self) -> None:
        self.setup_cpu_port(VLAN10)
        syn = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50011, dport=8080, tcp_flags="S")
        rst = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50011, dport=8080, tcp_flags="R")
        port = nat_port(HOST1_IP, HOST3_IP, "tcp", 50011, 8080)
        self.send(1, syn)
        self.expect_only({3: translated(syn, src=ROUTER_IP20, sport=port)})
        self.assert_register("nat_state", port - NAT_PORT_BASE, CONN_OPEN)
        self.send(1, rst)
        self.expect_only({3: translated(rst, src=ROUTER_IP20, sport=port)})
        self.assert_register("nat_state", port - NAT_PORT_BASE, CONN_FREE)
        late = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, ROUTER_IP20, sport=8080, dport=port, tcp_flags="A")
        self.send(3, late)
        self.expect_packet_in(late, 3, Reason.ROUTER_ADDRESS, VLAN20)
        other_sport = next(p for p in range(20000, 40000)
                           if nat_port(HOST1_IP, HOST3_IP, "tcp", p, 8080) == port)
        other = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=other_sport, dport=8080, tcp_flags="S")
        self.send(1, other)
        self.expect_only({3: translated(other, src=ROUTER_IP20, sport=port)})
        self.assert_no_drops(Drop.NAT_EXHAUSTED)


class NatSlotCollisionDropped(NatTest):
    """A second flow whose slot is held by a live flow is dropped NAT_EXHAUSTED; the first
    flow keeps its slot and its replies."""

    def runTest(self) -> None:
        first = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50007, dport=5000)
        port = nat_port(HOST1_IP, HOST3_IP, "udp", 50007, 5000)
        other_sport = next(p for p in range(20000, 40000)
                           if nat_port(HOST1_IP, HOST3_IP, "udp", p, 5000) == port)
        second = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=other_sport, dport=5000)
        self.send(1, first)
        self.expect_only({3: translated(first, src=ROUTER_IP20, sport=port)})
        self.send(1, second)
        self.expect_only({})
        self.assert_drops({Drop.NAT_EXHAUSTED: 1})
        rep = udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, ROUTER_IP20, sport=5000, dport=port)
        self.send(3, rep)
        self.expect_only({1: translated(rep, dst=HOST1_IP, dport=50007, eth_dst=HOST1_MAC)})


class NatTooBigPuntedUntranslated(NatTest):
    """Too big for the masquerading interface with DF set: punted MTU_EXCEEDED as it would
    have left but untranslated (the controller's ICMP must reach the inside host), and it
    takes no NAT slot: the next, smaller packet of the flow gets the slot's port."""

    def runTest(self) -> None:
        self.table_add("interface_mtu", {"vlan_id": VLAN20}, "set_mtu", {"mtu": 500})
        big = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50008, dport=53, size=600, flags="DF")
        self.send(1, big)
        self.expect_only({})
        self.expect_packet_in(routed(big, ROUTER_MAC, HOST3_MAC), 1, Reason.MTU_EXCEEDED)
        small = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=50008, dport=53)
        self.send(1, small)
        self.expect_only({3: translated(small, src=ROUTER_IP20, sport=nat_port(HOST1_IP, HOST3_IP, "udp", 50008, 53))})
