"""Bridging: flooding stays in the VLAN and skips the ingress port, the S4 isolation
matrix (4 hosts, 2 VLANs), MAC learning digests, hairpin drop.
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.l2 import ARP, Ether

from base import (BROADCAST_MAC, HOST1_MAC, HOST2_MAC, HOST3_MAC, HOST4_MAC, HOST5_MAC, UNKNOWN_MAC, VLAN10,
                  VLAN20, VLAN30, Drop, VrouterTest, generate_cases, udp_packet)

# --- flooding -------------------------------------------------------------------------------

FLOOD_ACCESS = {1: VLAN10, 2: VLAN10, 3: VLAN20, 4: VLAN20}
FLOOD_TRUNKS = {5: ((VLAN10, VLAN20), VLAN30), 6: ((VLAN10, VLAN20), 0)}
MCAST_MAC = "01:00:5e:01:02:03"


@dataclass
class Flood:
    id: str
    doc: str
    in_port: int
    in_vlan: int | None
    dst: str
    outputs: dict[int, int | None]   # port -> tag on the wire (None: untagged)


FLOOD_CASES = [
    Flood("UnknownUnicastFromAccess", "unknown unicast in VLAN 10 from access port 1", 1, None, UNKNOWN_MAC,
          {2: None, 5: VLAN10, 6: VLAN10}),
    Flood("BroadcastFromAccessVlan20", "broadcast in VLAN 20 from access port 3", 3, None, BROADCAST_MAC,
          {4: None, 5: VLAN20, 6: VLAN20}),
    Flood("MulticastFromTrunk", "IPv4 multicast MAC in VLAN 10 from trunk 5", 5, VLAN10, MCAST_MAC,
          {1: None, 2: None, 6: VLAN10}),
    Flood("BroadcastFromTrunkVlan20", "broadcast in VLAN 20 from trunk 6", 6, VLAN20, BROADCAST_MAC,
          {3: None, 4: None, 5: VLAN20}),
]


class FloodTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports(FLOOD_ACCESS, FLOOD_TRUNKS)

    def run_case(self, c: Flood) -> None:
        pkt = udp_packet(HOST1_MAC, c.dst, vlan=c.in_vlan)
        self.send(c.in_port, pkt)
        self.expect_only({port: udp_packet(HOST1_MAC, c.dst, vlan=tag) for port, tag in c.outputs.items()})
        # The copy for the ingress port is the one the egress split horizon drops.
        self.assert_drops({Drop.FLOOD_INGRESS_PORT: 1})


generate_cases(globals(), FloodTest, FLOOD_CASES, "Flood")


# --- S4 isolation matrix -----------------------------------------------------------------------
# VM1 and VM3 in VLAN 10, VM2 and VM4 in VLAN 20 (SCENARIOS.md S4), every station learned.

S4_HOSTS = {1: (HOST1_MAC, VLAN10), 2: (HOST2_MAC, VLAN20), 3: (HOST3_MAC, VLAN10), 4: (HOST4_MAC, VLAN20)}


@dataclass
class Pair:
    id: str
    doc: str
    src: int
    dst: int | None   # None: broadcast


def _partner(host: int) -> int:
    vlan = S4_HOSTS[host][1]
    return next(h for h, (_, v) in S4_HOSTS.items() if v == vlan and h != host)


S4_CASES = [Pair(f"Vm{s}ToVm{d}", f"VM{s} -> VM{d} unicast", s, d) for s in S4_HOSTS for d in S4_HOSTS if s != d]
S4_CASES += [Pair(f"Vm{s}Broadcast", f"VM{s} broadcast (ARP) reaches its VLAN only", s, None) for s in S4_HOSTS]


class IsolationTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({port: vlan for port, (_, vlan) in S4_HOSTS.items()})
        for port, (mac, vlan) in S4_HOSTS.items():
            self.add_station(vlan, mac, port)

    def run_case(self, c: Pair) -> None:
        src_mac, src_vlan = S4_HOSTS[c.src]
        if c.dst is None:
            pkt = Ether(src=src_mac, dst=BROADCAST_MAC) / ARP(hwsrc=src_mac, psrc="10.9.9.1", pdst="10.9.9.2")
            expected = {_partner(c.src): pkt}
        else:
            dst_mac, dst_vlan = S4_HOSTS[c.dst]
            pkt = udp_packet(src_mac, dst_mac)
            # Same VLAN: delivered to the destination only. Other VLAN: the MAC is unknown in the
            # source's VLAN, so the frame floods there -- to the partner, never across.
            expected = {c.dst: pkt} if dst_vlan == src_vlan else {_partner(c.src): pkt}
        self.send(c.src, pkt)
        self.expect_only(expected)


generate_cases(globals(), IsolationTest, S4_CASES, "S4Isolation")


# --- learning -----------------------------------------------------------------------------------


def _mac_int(value) -> int:
    return int(value.replace(":", ""), 16) if isinstance(value, str) else int(value)


class LearningTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 2: VLAN10}, {5: ((VLAN10, VLAN20), 0)})
        self.enable_learning_digest()

    def digests(self, timeout: float) -> list[dict]:
        out = []
        for digest in self.sw.digests(timeout=timeout):
            self.assertEqual(digest.digest, "mac_learn_digest_t")
            out += digest.data
        return out

    def expect_digest(self, vlan: int, mac: str, port: int) -> None:
        learned = self.digests(timeout=2.0)
        self.assertTrue(learned, "no learning digest arrived")
        got = [(d["vlan_id"], _mac_int(d["src_mac"]), d["ingress_port"]) for d in learned]
        self.assertEqual(got, [(vlan, _mac_int(mac), port)], "digest content (vlan_id, src_mac, ingress_port)")


class LearnUnknownStation(LearningTest):
    """An unknown source raises one digest (VLAN, MAC, port); the frame is still flooded."""

    def runTest(self) -> None:
        pkt = udp_packet(HOST3_MAC, UNKNOWN_MAC, vlan=VLAN20)
        self.send(5, pkt)
        self.expect_only({})      # VLAN 20 has no other port
        self.expect_digest(VLAN20, HOST3_MAC, 5)
        pkt = udp_packet(HOST1_MAC, UNKNOWN_MAC)
        self.send(1, pkt)
        self.expect_only({2: pkt, 5: udp_packet(HOST1_MAC, UNKNOWN_MAC, vlan=VLAN10)})
        self.expect_digest(VLAN10, HOST1_MAC, 1)


class LearnNoDigestForKnownStation(LearningTest):
    """A station with an l2_learning entry on its port raises no digest."""

    def runTest(self) -> None:
        self.add_station(VLAN10, HOST1_MAC, 1)
        self.add_station(VLAN10, HOST2_MAC, 2)
        pkt = udp_packet(HOST1_MAC, HOST2_MAC)
        self.send(1, pkt)
        self.expect_only({2: pkt})
        self.assertEqual(self.digests(timeout=1.0), [], "digest for a known station")
        # Control: host 2 is known on port 2 only; from port 1 it is a move, and that is reported.
        self.send(1, udp_packet(HOST2_MAC, HOST1_MAC))
        self.expect_only({})     # hairpin: host 1 is on port 1
        self.expect_digest(VLAN10, HOST2_MAC, 1)


class LearnStationMove(LearningTest):
    """A known station seen on another port raises a digest with the new port."""

    def runTest(self) -> None:
        self.add_station(VLAN10, HOST1_MAC, 1)
        self.add_station(VLAN10, HOST2_MAC, 2)
        pkt = udp_packet(HOST1_MAC, HOST2_MAC, vlan=VLAN10)
        self.send(5, pkt)
        self.expect_only({2: udp_packet(HOST1_MAC, HOST2_MAC)})
        self.expect_digest(VLAN10, HOST1_MAC, 5)


class LearnNoDigestForRefusedFrame(LearningTest):
    """A frame the port refuses (tagged on an access port) teaches nothing."""

    def runTest(self) -> None:
        self.send(1, udp_packet(HOST5_MAC, HOST2_MAC, vlan=VLAN10))
        self.expect_only({})
        self.assert_drops({Drop.TAGGED_ON_ACCESS: 1})
        self.assertEqual(self.digests(timeout=1.0), [], "digest for a refused frame")
        # Control: the same station untagged is accepted and learnt.
        pkt = udp_packet(HOST5_MAC, UNKNOWN_MAC)
        self.send(1, pkt)
        self.expect_only({2: pkt, 5: udp_packet(HOST5_MAC, UNKNOWN_MAC, vlan=VLAN10)})
        self.expect_digest(VLAN10, HOST5_MAC, 1)


class LockedPortDropsUnknownSources(LearningTest):
    """A port locked at its station limit (port_security) forwards its known stations only:
    an unknown source, or a station known on another port, is dropped as UNKNOWN_SOURCE with no
    digest, and counted on the port's entry. Other ports still learn."""

    def runTest(self) -> None:
        self.add_station(VLAN10, HOST1_MAC, 1)
        self.add_station(VLAN10, HOST2_MAC, 2)
        lock = self.table_add("ingress.learning.port_security", {"ingress_port": 1},
                              "ingress.learning.drop_unknown_sources")
        known = udp_packet(HOST1_MAC, HOST2_MAC)
        self.send(1, known)
        self.expect_only({2: known})
        for src in (HOST5_MAC, HOST2_MAC):      # unknown anywhere; known on port 2 only (a move)
            self.send(1, udp_packet(src, UNKNOWN_MAC))
            self.expect_only({})
        self.assert_drops({Drop.UNKNOWN_SOURCE: 2})
        self.assertEqual(self.digests(timeout=1.0), [], "digest from a locked port")
        self.assertEqual(self.direct_counter(lock).packets, 3, "port_security counter: frames seen on the locked port")
        # Control: port 2 is not locked, an unknown source there floods and is learnt.
        pkt = udp_packet(HOST4_MAC, UNKNOWN_MAC)
        self.send(2, pkt)
        self.expect_only({1: pkt, 5: udp_packet(HOST4_MAC, UNKNOWN_MAC, vlan=VLAN10)})
        self.expect_digest(VLAN10, HOST4_MAC, 2)


class HairpinDrop(VrouterTest):
    """Known unicast whose destination sits on the ingress port is dropped (HAIRPIN)."""

    def runTest(self) -> None:
        self.setup_ports({1: VLAN10, 2: VLAN10})
        self.add_station(VLAN10, HOST2_MAC, 1)
        self.send(1, udp_packet(HOST1_MAC, HOST2_MAC))
        self.expect_only({})
        self.assert_drops({Drop.HAIRPIN: 1})
