"""Drop-reason counters: each dropped frame is counted once, under its own reason, in
ingress_drop_counter or egress_drop_counter -- and no other reason moves.
(The other files check single reasons next to the feature that drops.)
"""
from __future__ import annotations

import time

from base import (HOST1_IP, HOST1_MAC, HOST2_IP, HOST2_MAC, HOST5_MAC, ROUTER_IP10, ROUTER_MAC, VLAN10, VLAN20,
                  VLAN30, Drop, VrouterTest, udp_packet)


class DropReasonCounters(VrouterTest):
    """Seven frames, seven reasons: the counter arrays change by exactly one per reason."""

    def runTest(self) -> None:
        self.setup_ports({1: VLAN10, 2: VLAN10}, {5: ((VLAN10,), 0)})
        self.add_router_interface(VLAN10, ROUTER_IP10)
        self.add_nexthop(60, 5, VLAN20, HOST5_MAC)        # port 5 does not carry VLAN 20
        self.add_route("10.7.0.0/16", 60)
        self.add_acl(10, {"ip_protocol": (17, 0xff), "l4_dst_port": (6666, 6666)}, "deny")
        frames = [
            (7, udp_packet(HOST1_MAC, HOST2_MAC), Drop.PORT_NOT_CONFIGURED),
            (1, udp_packet(HOST1_MAC, HOST2_MAC, vlan=VLAN10), Drop.TAGGED_ON_ACCESS),
            (5, udp_packet(HOST5_MAC, HOST2_MAC), Drop.UNTAGGED_ON_TRUNK),
            (5, udp_packet(HOST5_MAC, HOST2_MAC, vlan=VLAN30), Drop.VLAN_NOT_ALLOWED),
            (1, udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, "192.0.2.1"), Drop.NO_ROUTE),
            (1, udp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, dport=6666), Drop.ACL_DENY),
            (1, udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, "10.7.0.1"), Drop.EGRESS_VLAN_NOT_MEMBER),
        ]
        for port, frame, _ in frames:
            self.send(port, frame)
        self.expect_only({})
        self.assert_drops({reason: 1 for _, _, reason in frames})
        time.sleep(0.2)
        for name in ("ingress_drop_counter", "egress_drop_counter"):
            now = self.counter_array(name)
            moved = {i: now[i] - self._drops0[name].get(i, 0) for i in now if now[i] != self._drops0[name].get(i, 0)}
            want = {reason: 1 for _, _, reason in frames
                    if (reason in (Drop.EGRESS_VLAN_NOT_MEMBER, Drop.FLOOD_INGRESS_PORT)) == (name == "egress_drop_counter")}
            self.assertEqual(moved, want, f"{name}: cells that moved (reason: packets)")
        self.assertEqual(self.counter("ingress_drop_counter", 0).packets, self._drops0["ingress_drop_counter"].get(0, 0),
                         "reason 0 is never counted")
