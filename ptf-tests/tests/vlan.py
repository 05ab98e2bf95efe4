"""802.1Q ports: access <-> access, access <-> trunk, trunk <-> trunk (tag push/pop/keep),
native VLAN, priority tags and PCP, and the frames a port must refuse.

Ports: 1, 2 access VLAN 10; 3 access VLAN 20; 4 access VLAN 30;
5 trunk VLANs 10, 20 with native VLAN 30; 6 trunk VLANs 10, 20 without native VLAN;
7 has no port_config entry.
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

from base import (HOST1_MAC, HOST2_MAC, HOST3_MAC, HOST4_MAC, HOST5_MAC, HOST6_MAC, HOST7_MAC, HOST8_MAC, VLAN10,
                  VLAN20, VLAN30, Drop, VrouterTest, generate_cases, udp_packet)

ACCESS = {1: VLAN10, 2: VLAN10, 3: VLAN20, 4: VLAN30}
TRUNKS = {5: ((VLAN10, VLAN20), VLAN30), 6: ((VLAN10, VLAN20), 0)}
# Known stations: (vlan, mac, port).
STATIONS = [
    (VLAN10, HOST1_MAC, 1), (VLAN10, HOST2_MAC, 2), (VLAN20, HOST3_MAC, 3), (VLAN30, HOST4_MAC, 4),
    (VLAN10, HOST5_MAC, 5), (VLAN20, HOST6_MAC, 6), (VLAN10, HOST7_MAC, 6), (VLAN30, HOST8_MAC, 5),
]


class VlanTest(VrouterTest):
    """The VLAN topology above, with every station known."""

    def setUp(self) -> None:
        super().setUp()
        self.setup_ports(ACCESS, TRUNKS)
        for vlan, mac, port in STATIONS:
            self.add_station(vlan, mac, port)


@dataclass
class Forward:
    id: str
    doc: str
    in_port: int
    in_vlan: int | None      # tag on the wire (0 = priority tag), None = untagged
    src: str
    dst: str
    out_port: int
    out_vlan: int | None
    pcp: int = 0


FORWARD_CASES = [
    Forward("AccessToAccess", "access -> access, same VLAN: untagged in and out", 1, None, HOST1_MAC, HOST2_MAC, 2, None),
    Forward("AccessToTrunkPush", "access -> trunk: tag VLAN 10 pushed", 1, None, HOST1_MAC, HOST5_MAC, 5, VLAN10),
    Forward("TrunkToAccessPop", "trunk -> access: tag popped", 5, VLAN10, HOST5_MAC, HOST2_MAC, 2, None),
    Forward("TrunkToTrunkKeep", "trunk -> trunk: tag kept", 5, VLAN10, HOST5_MAC, HOST7_MAC, 6, VLAN10),
    Forward("TrunkToTrunkVlan20", "trunk -> trunk in VLAN 20", 6, VLAN20, HOST6_MAC, HOST3_MAC, 3, None),
    Forward("TrunkToTrunkKeepPcp", "trunk -> trunk keeps the PCP", 6, VLAN10, HOST7_MAC, HOST5_MAC, 5, VLAN10, pcp=5),
    Forward("NativeIn", "untagged on trunk 5 -> native VLAN 30", 5, None, HOST8_MAC, HOST4_MAC, 4, None),
    Forward("NativeOut", "native VLAN 30 leaves trunk 5 untagged", 4, None, HOST4_MAC, HOST8_MAC, 5, None),
    Forward("NativePriorityTagged", "VID 0 on a trunk with native VLAN -> native", 5, 0, HOST8_MAC, HOST4_MAC, 4, None),
    Forward("PriorityTaggedOnAccess", "VID 0 on an access port is accepted as untagged", 1, 0, HOST1_MAC, HOST2_MAC, 2, None),
    Forward("PriorityTagPcpToTrunk", "VID 0 PCP 6 on access -> trunk tag VLAN 10 keeps PCP 6", 1, 0, HOST1_MAC,
            HOST5_MAC, 5, VLAN10, pcp=6),
]


class VlanForward(VlanTest):
    def run_case(self, c: Forward) -> None:
        # state: setUp. packet -> expected packet
        pkt = udp_packet(c.src, c.dst, vlan=c.in_vlan, pcp=c.pcp)
        exp = udp_packet(c.src, c.dst, vlan=c.out_vlan, pcp=c.pcp if c.out_vlan is not None else 0)
        self.send(c.in_port, pkt)
        self.expect_only({c.out_port: exp})


generate_cases(globals(), VlanForward, FORWARD_CASES, "Vlan")


@dataclass
class Refused:
    id: str
    doc: str
    in_port: int
    frame: object
    reason: int


def _double_tagged(outer: int, inner: int):
    return (Ether(src=HOST1_MAC, dst=HOST3_MAC) / Dot1Q(vlan=outer) / Dot1Q(vlan=inner)
            / IP(src="10.0.10.11", dst="10.0.20.13") / UDP() / Raw(b"\0" * 40))


REFUSED_CASES = [
    Refused("DisallowedVlanOnTrunk", "VLAN 50 is not allowed on trunk 5", 5,
            udp_packet(HOST5_MAC, HOST1_MAC, vlan=50), Drop.VLAN_NOT_ALLOWED),
    Refused("DisallowedVlan30TaggedOnTrunk6", "VLAN 30 (native elsewhere) is not allowed tagged on trunk 6", 6,
            udp_packet(HOST7_MAC, HOST4_MAC, vlan=VLAN30), Drop.VLAN_NOT_ALLOWED),
    Refused("TaggedOnAccess", "a VLAN-tagged frame on an access port", 1,
            udp_packet(HOST1_MAC, HOST2_MAC, vlan=VLAN10), Drop.TAGGED_ON_ACCESS),
    Refused("DoubleTaggedOnAccess", "VLAN hopping: priority tag + VLAN 20 on an access port of VLAN 10", 1,
            _double_tagged(0, VLAN20), Drop.TAGGED_ON_ACCESS),
    Refused("DoubleTaggedOwnVlanOnAccess", "double tag 10/20 on an access port of VLAN 10", 1,
            _double_tagged(VLAN10, VLAN20), Drop.TAGGED_ON_ACCESS),
    Refused("UntaggedOnTrunkWithoutNative", "untagged frame on trunk 6 (no native VLAN)", 6,
            udp_packet(HOST7_MAC, HOST5_MAC), Drop.UNTAGGED_ON_TRUNK),
    Refused("PortNotConfigured", "a port without port_config entry", 7,
            udp_packet(HOST1_MAC, HOST2_MAC), Drop.PORT_NOT_CONFIGURED),
]


class VlanRefuse(VlanTest):
    def run_case(self, c: Refused) -> None:
        self.send(c.in_port, c.frame)
        self.expect_only({})
        self.assert_drops({c.reason: 1})


generate_cases(globals(), VlanRefuse, REFUSED_CASES, "Vlan")


class VlanCounters(VlanTest):
    """Per-port in/out and per-VLAN counters count what was forwarded."""

    def runTest(self) -> None:
        port_in = self.counter("ingress_port_counter", 5).packets
        out0 = self.counter("egress_port_counter", 6)
        port_out = out0.packets
        vlan = self.counter("vlan_counter", VLAN10).packets
        pkt = udp_packet(HOST5_MAC, HOST7_MAC, vlan=VLAN10)
        for _ in range(3):
            self.send(5, pkt)
        for _ in range(3):
            self.expect(6, pkt)
        self.expect_only({})
        self.wait_counter("ingress_port_counter", 5, port_in + 3)
        self.wait_counter("egress_port_counter", 6, port_out + 3)
        self.wait_counter("vlan_counter", VLAN10, vlan + 3)
        out = self.counter("egress_port_counter", 6)
        # Bytes: 3 frames; allow for a target counting before/after the tag is re-added.
        self.assertGreaterEqual(out.bytes - out0.bytes, 3 * (len(pkt) - 4), "egress_port_counter bytes")
        self.assertLessEqual(out.bytes - out0.bytes, 3 * (len(pkt) + 4), "egress_port_counter bytes")


class VlanHighestVid(VrouterTest):
    """VLAN 4094, the highest usable id, bridged trunk -> trunk and trunk -> access."""

    def runTest(self) -> None:
        self.setup_ports({1: 4094}, {5: ((4094,), 0), 6: ((4094,), 0)})
        self.add_station(4094, HOST6_MAC, 6)
        self.add_station(4094, HOST1_MAC, 1)
        self.send(5, udp_packet(HOST5_MAC, HOST6_MAC, vlan=4094))
        self.expect_only({6: udp_packet(HOST5_MAC, HOST6_MAC, vlan=4094)})
        self.send(5, udp_packet(HOST5_MAC, HOST1_MAC, vlan=4094))
        self.expect_only({1: udp_packet(HOST5_MAC, HOST1_MAC)})
