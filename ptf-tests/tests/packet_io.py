"""Packet-out through the P4Runtime stream: straight to a port (no table applied) and
submitted to the ingress pipeline (bridged, flooded or routed like a frame received on
the CPU port, a trunk with native VLAN 10 here).

Ports: 1, 2 access VLAN 10 (host 2 known on 2), 3 access VLAN 20 (host 3),
5 trunk VLANs 10, 20; 7 has no configuration at all.
"""
from __future__ import annotations

from base import (BROADCAST_MAC, CPU_PORT, HOST1_MAC, HOST2_IP, HOST2_MAC, HOST3_IP, HOST3_MAC, ROUTER_IP10,
                  ROUTER_IP20, ROUTER_MAC, VLAN10, VLAN20, VrouterTest, routed, udp_packet)


class PacketOutTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 2: VLAN10, 3: VLAN20}, {5: ((VLAN10, VLAN20), 0)})
        self.add_station(VLAN10, HOST2_MAC, 2)

    def packet_out(self, frame, egress_port: int = 0, submit_to_ingress: int = 0) -> None:
        self.sw.packet_out(bytes(frame), egress_port=egress_port, submit_to_ingress=submit_to_ingress, _pad=0)


class PacketOutToPort(PacketOutTest):
    """submit_to_ingress = 0: the frame leaves the given port exactly as given, even on
    a port without any configuration, even tagged; counted for the CPU port and the port."""

    def runTest(self) -> None:
        cpu_in = self.counter("ingress_port_counter", CPU_PORT).packets
        out7 = self.counter("egress_port_counter", 7).packets
        frame = udp_packet(ROUTER_MAC, HOST3_MAC, ROUTER_IP20, HOST3_IP)
        self.packet_out(frame, egress_port=3)
        self.expect_only({3: frame})
        tagged = udp_packet(ROUTER_MAC, HOST2_MAC, ROUTER_IP10, HOST2_IP, vlan=VLAN20)
        self.packet_out(tagged, egress_port=7)
        self.expect_only({7: tagged})
        self.wait_counter("ingress_port_counter", CPU_PORT, cpu_in + 2)
        self.wait_counter("egress_port_counter", 7, out7 + 1)


class PacketOutThroughPipeline(PacketOutTest):
    """submit_to_ingress = 1: bridged to a known MAC, flooded in its VLAN, or routed."""

    def runTest(self) -> None:
        self.setup_cpu_port(VLAN10, [VLAN20])
        self.add_router_interface(VLAN10, ROUTER_IP10)
        self.add_router_interface(VLAN20, ROUTER_IP20)
        self.add_nexthop(3, 3, VLAN20, HOST3_MAC)
        self.add_route(f"{HOST3_IP}/32", 3)
        # Bridged: untagged = native VLAN 10, to host 2's port (egress_port is ignored).
        frame = udp_packet(ROUTER_MAC, HOST2_MAC, ROUTER_IP10, HOST2_IP)
        self.packet_out(frame, egress_port=3, submit_to_ingress=1)
        self.expect_only({2: frame})
        # Flooded within VLAN 10 only (ports 1, 2, trunk 5 tagged), never back to the CPU.
        bcast = udp_packet(ROUTER_MAC, BROADCAST_MAC, ROUTER_IP10, "10.0.10.255")
        self.packet_out(bcast, submit_to_ingress=1)
        self.expect_only({1: bcast, 2: bcast, 5: udp_packet(ROUTER_MAC, BROADCAST_MAC, ROUTER_IP10, "10.0.10.255",
                                                              vlan=VLAN10)})
        self.expect_no_packet_in()
        # Routed: to the router MAC, towards host 3 in VLAN 20.
        pkt = udp_packet(HOST1_MAC, ROUTER_MAC, "10.0.10.11", HOST3_IP)
        self.packet_out(pkt, submit_to_ingress=1)
        self.expect_only({3: routed(pkt, ROUTER_MAC, HOST3_MAC)})
