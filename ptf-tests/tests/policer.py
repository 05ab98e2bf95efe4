"""Policing with two-rate three-colour meters (port, VLAN, ACL rule), deterministic and
independent of the machine's speed: CIR = PIR = 1 byte/s, bursts CBS/PBS in bytes, then
N back-to-back frames of 100 bytes. The buckets start full and refill by less than one
byte during the burst, so exactly floor(CBS/100) frames are green, the next
floor(PBS/100) - floor(CBS/100) yellow (DSCP remarked when asked), the rest red and
dropped; the colour counters (index * 4 + colour) and METER_RED count them.

Ports: 1 and 2 access VLAN 10; host 2 known on port 2; frames go host 1 -> host 2.
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.inet import IP

from base import (GREEN, HOST1_IP, HOST1_MAC, HOST2_IP, HOST2_MAC, RED, VLAN10, YELLOW, Drop, VrouterTest,
                  generate_cases, udp_packet)

FRAME = 100
RATE = 1     # bytes per second: nothing refills during a burst


@dataclass
class Police:
    id: str
    doc: str
    where: str               # port | vlan | acl
    cbs: int
    pbs: int
    frames: int
    green: int
    yellow: int
    red: int
    remark_dscp: int | None = None


CASES = [
    Police("PortGreenRed", "port policer, CBS = PBS = 250: 2 of 6 pass", "port", 250, 250, 6, 2, 0, 4),
    Police("PortYellowRemark", "port policer, CBS 100 / PBS 350: 1 green, 2 yellow remarked to DSCP 10, 3 red",
           "port", 100, 350, 6, 1, 2, 3, remark_dscp=10),
    Police("PortYellowNoRemark", "yellow without remark is forwarded unchanged", "port", 100, 300, 5, 1, 2, 2),
    Police("VlanGreenRed", "VLAN policer, CBS = PBS = 300: 3 of 8 pass", "vlan", 300, 300, 8, 3, 0, 5),
    Police("AclYellowRemark", "ACL police action, CBS 200 / PBS 400: 2 green, 2 yellow (DSCP 12), 3 red",
           "acl", 200, 400, 7, 2, 2, 3, remark_dscp=12),
]

METER_ID = 7


class PolicerTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 2: VLAN10})
        self.add_station(VLAN10, HOST2_MAC, 2)

    def frame(self, i: int, tos: int = 0):
        # One flow (same 5-tuple): a switch that spreads flows over workers keeps one flow's
        # frames in order, and the colours depend on the order the meter sees. The IP id
        # tells the frames apart.
        pkt = udp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, sport=20000, dport=9000, tos=tos, size=FRAME)
        pkt[IP].id = 1 + i
        return pkt

    def run_case(self, c: Police) -> None:
        remark = {"yellow_remark": int(c.remark_dscp is not None), "yellow_dscp": c.remark_dscp or 0}
        if c.where == "port":
            self.table_add("port_policer", {"ingress_port": 1}, "set_port_policer", remark)
            meter, index, colours = "port_meter", 1, "port_meter_color_counter"
        elif c.where == "vlan":
            self.table_add("vlan_policer", {"vlan_id": VLAN10}, "set_vlan_policer", remark)
            meter, index, colours = "vlan_meter", VLAN10, "vlan_meter_color_counter"
        else:
            self.add_acl(10, {"ip_protocol": (17, 0xff), "l4_dst_port": (9000, 9000)}, "police",
                         {"meter_id": METER_ID, **remark})
            meter, index, colours = "acl_meter", METER_ID, "acl_meter_color_counter"
        self.set_meter(meter, index, RATE, c.cbs, RATE, c.pbs)
        before = {col: self.counter(colours, index * 4 + col).packets for col in (GREEN, YELLOW, RED)}

        for i in range(c.frames):
            self.send(1, self.frame(i))
        # In order: the green frames unchanged, then the yellow ones (remarked if asked).
        for i in range(c.green):
            self.expect(2, self.frame(i))
        for i in range(c.green, c.green + c.yellow):
            tos = (c.remark_dscp << 2) if c.remark_dscp is not None else 0
            self.expect(2, self.frame(i, tos=tos))
        self.expect_only({})

        for col, n in ((GREEN, c.green), (YELLOW, c.yellow), (RED, c.red)):
            self.wait_counter(colours, index * 4 + col, before[col] + n)
        self.assert_drops({Drop.METER_RED: c.red})


generate_cases(globals(), PolicerTest, CASES, "Policer")


class PolicerUnconfiguredMeterIsGreen(PolicerTest):
    """A policed port whose meter has no rates: every frame passes, counted green."""

    def runTest(self) -> None:
        self.table_add("port_policer", {"ingress_port": 1}, "set_port_policer", {"yellow_remark": 0, "yellow_dscp": 0})
        green = self.counter("port_meter_color_counter", 4 + GREEN).packets
        for i in range(5):
            self.send(1, self.frame(i))
        for i in range(5):
            self.expect(2, self.frame(i))
        self.expect_only({})
        self.wait_counter("port_meter_color_counter", 4 + GREEN, green + 5)
        self.assert_drops({Drop.METER_RED: 0})


class PolicerAclOnlyMatchingTraffic(PolicerTest):
    """The ACL policer meters only the rule's traffic: other frames are not policed."""

    def runTest(self) -> None:
        self.add_acl(10, {"ip_protocol": (17, 0xff), "l4_dst_port": (9000, 9000)}, "police",
                     {"meter_id": METER_ID, "yellow_remark": 0, "yellow_dscp": 0})
        self.set_meter("acl_meter", METER_ID, RATE, 100, RATE, 100)
        others = [udp_packet(HOST1_MAC, HOST2_MAC, HOST1_IP, HOST2_IP, sport=30000, dport=9001, size=FRAME)
                  for _ in range(4)]
        for i, pkt in enumerate(others):
            pkt[IP].id = 1 + i          # one flow, kept in order in every spread mode
        for pkt in others:
            self.send(1, pkt)
        for pkt in others:
            self.expect(2, pkt)
        for i in range(3):
            self.send(1, self.frame(i))
        self.expect(2, self.frame(0))
        self.expect_only({})
        self.assert_drops({Drop.METER_RED: 2})


class PolicerColourCombination(PolicerTest):
    """Port and ACL policers on one packet: yellow at both -> the ACL's DSCP wins;
    red at either -> dropped, even when the other says yellow."""

    def runTest(self) -> None:
        self.table_add("port_policer", {"ingress_port": 1}, "set_port_policer", {"yellow_remark": 1, "yellow_dscp": 10})
        self.add_acl(10, {"ip_protocol": (17, 0xff), "l4_dst_port": (9000, 9000)}, "police",
                     {"meter_id": METER_ID, "yellow_remark": 1, "yellow_dscp": 12})
        # Port: CBS 50 < one frame, PBS 150 -> yellow, then red. ACL: CBS 50, PBS 1000 -> yellow, yellow.
        self.set_meter("port_meter", 1, RATE, 50, RATE, 150)
        self.set_meter("acl_meter", METER_ID, RATE, 50, RATE, 1000)
        cells = [("port_meter_color_counter", 4 + YELLOW, 1), ("port_meter_color_counter", 4 + RED, 1),
                 ("acl_meter_color_counter", METER_ID * 4 + YELLOW, 2)]
        before = [self.counter(name, index).packets for name, index, _ in cells]
        self.send(1, self.frame(0))
        self.send(1, self.frame(1))
        self.expect_only({2: self.frame(0, tos=12 << 2)})
        # Both meters run on both packets: port yellow then red, ACL yellow twice.
        for (name, index, n), b in zip(cells, before):
            self.wait_counter(name, index, b + n)
        self.assert_drops({Drop.METER_RED: 1})
