"""Packet-level checks of vrouter.p4, one scenario per feature, run with p4stf.

Each case builds an STF file: the table entries of a small network (below),
packets made with scapy, and the packets expected out, also made with scapy
from what docs/p4-program.md says must happen (never copied from a switch).
The program is compiled once with $P4C (conftest); p4stf runs each case on $SWITCH with pcap ports.
These are the program author's smoke tests; the full suite is ptf-tests/.

Network (ports):
  1 access VLAN 10 (host A)     2 access VLAN 10 (host B)
  3 access VLAN 20 (host C)     5 access VLAN 20 (host D)
  4 trunk VLANs 10, 20, native 30
  6 trunk VLANs 10, 40 (core side, MPLS peer P)
  7 access VLAN 30 (host F)
  255 CPU port (trunk, native VLAN 10)
Router MAC RMAC on VLANs 10, 20, 40; router addresses 10.0.10.1, 10.0.20.1.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from scapy.contrib.mpls import MPLS
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "p4src" / "vrouter.p4"
P4STF = os.environ.get("P4STF", str(ROOT / ".venv" / "bin" / "p4stf"))

CPU = 255
RMAC = "00:00:00:00:aa:01"
MAC = {h: f"00:00:00:00:00:{n:02x}" for h, n in
       dict(A=0x0a, B=0x0b, C=0x0c, D=0x0d, E=0x0e, F=0x0f, G=0x10, P=0x50, Q=0x51, X=0x99).items()}
IPS = dict(A="10.0.10.2", B="10.0.10.3", C="10.0.20.3", D="10.0.20.4", R10="10.0.10.1", R20="10.0.20.1")

# Drop reasons and packet-in reasons (include/constants.p4, docs section 5 and 6).
DROP = dict(TAGGED_ON_ACCESS=2, VLAN_NOT_ALLOWED=4, PARSER_ERROR=5, HAIRPIN=6, IPV4_CHECKSUM=7,
            IPV4_INVALID=8, NO_ROUTE=9, MTU_EXCEEDED=12,
            MPLS_TOO_DEEP=13, MPLS_UNKNOWN_LABEL=14, MPLS_TTL_EXPIRED=15, METER_RED=18, ACL_DENY=19, FIREWALL=20,
            EGRESS_VLAN_NOT_MEMBER=21, FLOOD_INGRESS_PORT=22)
REASON = dict(TTL_EXPIRED=1, ROUTER_ADDRESS=2, ARP=3, IP_OPTIONS=4, MTU_EXCEEDED=5, ACL_PUNT=6,
              ACL_COPY=7, ROUTE_TO_CPU=8)


def mac(name: str) -> str:
    m = RMAC if name == "R" else MAC[name]
    return "0x" + m.replace(":", "")


def emac(name: str) -> str:
    return RMAC if name == "R" else MAC[name]


def ip(text: str) -> str:
    return "0x" + "".join(f"{int(o):02x}" for o in text.split("."))


def hx(pkt) -> str:
    return bytes(pkt).hex()


def packet_in(port: int, vlan: int, reason: int) -> bytes:
    return ((port << 23) | (vlan << 11) | reason).to_bytes(4, "big")


def packet_out(port: int, submit: int) -> bytes:
    return ((port << 7) | (submit << 6)).to_bytes(2, "big")


def udp(src: str, dst: str, sip: str, dip: str, ttl=64, tos=0, sport=1234, dport=80,
        vlan: int | None = None, size: int = 0, flags=0):
    eth = Ether(src=emac(src), dst=emac(dst))
    l3 = IP(src=IPS.get(sip, sip), dst=IPS.get(dip, dip), ttl=ttl, tos=tos, flags=flags)
    pay = Raw(b"\x00" * max(18, size))
    if vlan is None:
        return eth / l3 / UDP(sport=sport, dport=dport) / pay
    return eth / Dot1Q(vlan=vlan) / l3 / UDP(sport=sport, dport=dport) / pay


def base_setup() -> list[str]:
    c = []
    for port, vlan in ((1, 10), (2, 10), (3, 20), (5, 20), (7, 30)):
        c.append(f"add port_config ingress_port:{port} set_access_port(vlan_id:{vlan})")
        c.append(f"add egress_vlan_member egress_port:{port} vlan_id:{vlan} untag_vlan()")
    c.append("add port_config ingress_port:4 set_trunk_port(native_vlan_id:30)")
    c.append("add port_config ingress_port:6 set_trunk_port(native_vlan_id:0)")
    c.append(f"add port_config ingress_port:{CPU} set_trunk_port(native_vlan_id:10)")
    for port, vlans in ((4, (10, 20)), (6, (10, 40))):
        for v in vlans:
            c.append(f"add ingress_vlan_member ingress_port:{port} vlan_id:{v} allow_vlan()")
            c.append(f"add egress_vlan_member egress_port:{port} vlan_id:{v} tag_vlan()")
    c.append("add egress_vlan_member egress_port:4 vlan_id:30 untag_vlan()")
    groups = {10: (1, 2, 4, 6), 20: (3, 4, 5), 30: (4, 7), 40: (6,)}
    for handle, (g, ports) in enumerate(groups.items()):
        c.append(f"mc_mgrp_create {g}")
        c.append(f"mc_node_create 0 {' '.join(map(str, ports))}")
        c.append(f"mc_node_associate {g} {handle}")
    for v in (10, 20, 40):
        c.append(f"add router_mac vlan_id:{v} dst_mac:{mac('R')} admit_to_l3()")
    for a in ("R10", "R20"):
        c.append(f"add router_address ipv4_addr:{ip(IPS[a])} router_address_hit()")
    # Next hops: 1 -> A, 3 -> C, 5 -> D, 4 -> E on trunk 4 in VLAN 20, 41 -> Q on port 6.
    for nh, port, vlan, host in ((1, 1, 10, "A"), (3, 3, 20, "C"), (5, 5, 20, "D"),
                                 (4, 4, 20, "E"), (41, 6, 40, "Q")):
        c.append(f"member_add ecmp_selector {nh} set_nexthop(port:{port}, vlan_id:{vlan}, "
                 f"dst_mac:{mac(host)}, src_mac:{mac('R')})")
        c.append(f"add nexthop_table nexthop_id:{nh} member({nh})")
    c.append(f"add ipv4_route ipv4_dst:{ip(IPS['A'])}/32 route_to_nexthop(nexthop_id:1)")
    c.append(f"add ipv4_route ipv4_dst:{ip(IPS['C'])}/32 route_to_nexthop(nexthop_id:3)")
    return c


@dataclass
class Case:
    commands: list[str] = field(default_factory=list)
    packets: list[tuple[int, bytes]] = field(default_factory=list)
    expects: list[tuple[int, bytes]] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    def send(self, port: int, pkt, expect: list[tuple[int, object]] = ()) -> None:
        self.packets.append((port, bytes(pkt)))
        self.expects.extend((p, bytes(e)) for p, e in expect)

    def stf(self) -> str:
        lines = base_setup() + self.commands
        lines += [f"packet {p} {d.hex()}" for p, d in self.packets]
        lines += [f"expect {p} {d.hex()} $" for p, d in self.expects]
        return "\n".join(lines + self.checks) + "\n"


def drop_count(reason: str, n: int, egress: bool = False) -> str:
    name = "egress_drop_counter" if egress else "ingress_drop_counter"
    return f"check_counter {name}({DROP[reason]}) packets == {n}"


# ----------------------------------------------------------------- cases

def case_vlan_bridging() -> Case:
    """Known unicast access->access; access->trunk tags; trunk->access untags;
    trunk->trunk keeps the tag; native VLAN both ways."""
    c = Case(commands=[
        "add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:2)" % mac("B"),
        "add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:4)" % mac("E"),
        "add l2_unicast vlan_id:20 dst_mac:%s set_output_port(port:3)" % mac("C"),
        "add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:6)" % mac("P"),
        "add l2_unicast vlan_id:30 dst_mac:%s set_output_port(port:7)" % mac("F"),
        "add l2_unicast vlan_id:30 dst_mac:%s set_output_port(port:4)" % mac("G"),
    ])
    p = udp("A", "B", "A", "B")
    c.send(1, p, [(2, p)])
    c.send(1, udp("A", "E", "A", "B"), [(4, udp("A", "E", "A", "B", vlan=10))])
    c.send(4, udp("D", "C", "D", "C", vlan=20), [(3, udp("D", "C", "D", "C"))])
    c.send(4, udp("E", "P", "A", "B", vlan=10), [(6, udp("E", "P", "A", "B", vlan=10))])
    c.send(4, udp("G", "F", "A", "B"), [(7, udp("G", "F", "A", "B"))])
    c.send(7, udp("F", "G", "A", "B"), [(4, udp("F", "G", "A", "B"))])
    c.checks += [
        "check_counter ingress_port_counter(4) packets == 3",
        "check_counter egress_port_counter(4) packets == 2",
        "check_counter vlan_counter(30) packets == 2",
        "check_counter vlan_counter(10) packets == 3",
    ]
    return c


def case_flood_within_vlan() -> Case:
    """Unknown unicast from port 1 floods to VLAN 10's other ports only."""
    c = Case()
    p = udp("A", "X", "A", "B")
    c.send(1, p, [(2, p), (4, udp("A", "X", "A", "B", vlan=10)), (6, udp("A", "X", "A", "B", vlan=10))])
    c.checks.append(drop_count("FLOOD_INGRESS_PORT", 1, egress=True))
    return c


def case_vlan_filtering() -> Case:
    """Disallowed VLAN on a trunk, tagged and double-tagged frames on an access port
    are dropped and counted; a priority-tagged frame is accepted as untagged."""
    c = Case(commands=["add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:2)" % mac("B")])
    c.send(4, udp("E", "B", "A", "B", vlan=50))
    c.send(1, udp("A", "B", "A", "B", vlan=10))
    c.send(1, Ether(src=emac("A"), dst=emac("B")) / Dot1Q(vlan=0) / Dot1Q(vlan=20)
           / IP(src=IPS["A"], dst=IPS["B"]) / UDP() / Raw(b"\x00" * 18))
    c.send(1, udp("A", "B", "A", "B", vlan=0), [(2, udp("A", "B", "A", "B"))])
    c.checks += [drop_count("VLAN_NOT_ALLOWED", 1), drop_count("TAGGED_ON_ACCESS", 2)]
    return c


def case_hairpin_and_parser_error() -> Case:
    c = Case(commands=["add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:1)" % mac("B")])
    c.send(1, udp("A", "B", "A", "B"))
    c.send(1, bytes(Ether(src=emac("A"), dst=emac("B"), type=0x0800)) + b"\x45\x00\x00")
    c.checks += [drop_count("HAIRPIN", 1), drop_count("PARSER_ERROR", 1)]
    return c


def case_routing() -> Case:
    """Routed unicast with MAC rewrite, TTL - 1 and a new checksum; longest prefix
    wins; default route (out tagged on trunk 4, VLAN 20)."""
    c = Case(commands=[
        f"add ipv4_route ipv4_dst:{ip('10.1.0.0')}/16 route_to_nexthop(nexthop_id:3)",
        f"add ipv4_route ipv4_dst:{ip('10.1.2.0')}/24 route_to_nexthop(nexthop_id:5)",
        f"add ipv4_route ipv4_dst:{ip('0.0.0.0')}/0 route_to_nexthop(nexthop_id:4)",
    ])
    c.send(1, udp("A", "R", "A", "C"), [(3, udp("R", "C", "A", "C", ttl=63))])
    c.send(1, udp("A", "R", "A", "10.1.2.9"), [(5, udp("R", "D", "A", "10.1.2.9", ttl=63))])
    c.send(1, udp("A", "R", "A", "10.1.3.9"), [(3, udp("R", "C", "A", "10.1.3.9", ttl=63))])
    c.send(1, udp("A", "R", "A", "8.8.8.8"), [(4, udp("R", "E", "A", "8.8.8.8", ttl=63, vlan=20))])
    bad = udp("A", "R", "A", "C")
    bad[IP].chksum = 0x1234
    c.send(1, bad)
    bad = udp("A", "R", "A", "C")
    bad[IP].version = 6
    c.send(1, bad)
    c.checks += [drop_count("IPV4_CHECKSUM", 1), drop_count("IPV4_INVALID", 1)]
    return c


def case_no_route_and_route_to_cpu() -> Case:
    c = Case(commands=[f"add ipv4_route ipv4_dst:{ip('10.0.20.0')}/24 route_to_cpu()"])
    p = udp("A", "R", "A", "10.0.20.77")
    c.send(1, p, [(CPU, packet_in(1, 10, REASON["ROUTE_TO_CPU"]) + bytes(p))])
    c.send(1, udp("A", "R", "A", "192.0.2.1"))
    c.checks.append(drop_count("NO_ROUTE", 1))
    return c


def case_punts() -> Case:
    """TTL expiry, router address, ARP for the router go to the CPU with their
    reason; ARP for another host is flooded."""
    c = Case()
    p = udp("A", "R", "A", "C", ttl=1)
    c.send(1, p, [(CPU, packet_in(1, 10, REASON["TTL_EXPIRED"]) + bytes(p))])
    p = Ether(src=emac("A"), dst=RMAC) / IP(src=IPS["A"], dst=IPS["R20"]) / ICMP() / Raw(b"\x00" * 18)
    c.send(1, p, [(CPU, packet_in(1, 10, REASON["ROUTER_ADDRESS"]) + bytes(p))])
    p = Ether(src=emac("A"), dst="ff:ff:ff:ff:ff:ff") / ARP(hwsrc=MAC["A"], psrc=IPS["A"], pdst=IPS["R10"])
    c.send(1, p, [(CPU, packet_in(1, 10, REASON["ARP"]) + bytes(p))])
    p = Ether(src=emac("A"), dst="ff:ff:ff:ff:ff:ff") / ARP(hwsrc=MAC["A"], psrc=IPS["A"], pdst=IPS["B"])
    tagged = Ether(src=emac("A"), dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=10) / ARP(
        hwsrc=MAC["A"], psrc=IPS["A"], pdst=IPS["B"])
    c.send(1, p, [(2, p), (4, tagged), (6, tagged)])
    p = Ether(src=emac("A"), dst=RMAC) / IP(src=IPS["A"], dst=IPS["C"], options=b"\x01\x01\x01\x00") \
        / UDP() / Raw(b"\x00" * 18)
    c.send(1, p, [(CPU, packet_in(1, 10, REASON["IP_OPTIONS"]) + bytes(p))])
    return c


def case_mtu() -> Case:
    c = Case(commands=["add interface_mtu vlan_id:20 set_mtu(mtu:500)"])
    c.send(1, udp("A", "R", "A", "C", size=600))
    c.send(1, udp("A", "R", "A", "C", size=600, flags="DF"),
           [(CPU, packet_in(1, 10, REASON["MTU_EXCEEDED"])
             + bytes(udp("R", "C", "A", "C", size=600, flags="DF", ttl=63)))])
    c.send(1, udp("A", "R", "A", "C", size=400), [(3, udp("R", "C", "A", "C", size=400, ttl=63))])
    c.checks.append(drop_count("MTU_EXCEEDED", 1))
    return c


def mpls_pkt(src, dst, labels, inner, vlan=40):
    """labels: [(label, exp, ttl)], top first."""
    p = Ether(src=emac(src), dst=emac(dst)) / Dot1Q(vlan=vlan, type=0x8847)
    for i, (label, exp, ttl) in enumerate(labels):
        p = p / MPLS(label=label, cos=exp, s=int(i == len(labels) - 1), ttl=ttl)
    return p / inner


def ip_udp(sip, dip, ttl=64, tos=0):
    return IP(src=IPS.get(sip, sip), dst=IPS.get(dip, dip), ttl=ttl, tos=tos) / UDP() / Raw(b"\x00" * 18)


def case_mpls_ingress_ler() -> Case:
    """Push one label (uniform and pipe) and two labels; EXP from DSCP 46 (EF) = 5."""
    c = Case(commands=[
        f"member_add ecmp_selector 50 set_nexthop_push1(port:6, vlan_id:40, dst_mac:{mac('P')}, "
        f"src_mac:{mac('R')}, label:100, ttl_mode:0)",
        f"member_add ecmp_selector 51 set_nexthop_push1(port:6, vlan_id:40, dst_mac:{mac('P')}, "
        f"src_mac:{mac('R')}, label:101, ttl_mode:1)",
        f"member_add ecmp_selector 52 set_nexthop_push2(port:6, vlan_id:40, dst_mac:{mac('P')}, "
        f"src_mac:{mac('R')}, outer_label:102, inner_label:2000, ttl_mode:0)",
        "add nexthop_table nexthop_id:50 member(50)",
        "add nexthop_table nexthop_id:51 member(51)",
        "add nexthop_table nexthop_id:52 member(52)",
        f"add ipv4_route ipv4_dst:{ip('10.9.0.1')}/32 route_to_nexthop(nexthop_id:50)",
        f"add ipv4_route ipv4_dst:{ip('10.9.0.2')}/32 route_to_nexthop(nexthop_id:51)",
        f"add ipv4_route ipv4_dst:{ip('10.9.0.3')}/32 route_to_nexthop(nexthop_id:52)",
    ])
    for dst, labels in (("10.9.0.1", [(100, 5, 63)]), ("10.9.0.2", [(101, 5, 255)]),
                        ("10.9.0.3", [(102, 5, 63), (2000, 5, 63)])):
        inp = Ether(src=emac("A"), dst=RMAC) / ip_udp("A", dst, tos=46 << 2)
        c.send(1, inp, [(6, mpls_pkt("R", "P", labels, ip_udp("A", dst, ttl=63, tos=46 << 2)))])
    return c


def case_mpls_lsr() -> Case:
    """Swap, swap to explicit null, PHP uniform/pipe; TTL expiry; too deep."""
    c = Case(commands=[
        "add mpls_label label:200 swap(out_label:201, nexthop_id:41)",
        "add mpls_label label:210 swap(out_label:0, nexthop_id:41)",
        "add mpls_label label:300 php(nexthop_id:41, ttl_mode:0)",
        "add mpls_label label:301 php(nexthop_id:41, ttl_mode:1)",
        "add mpls_label label:302 swap(out_label:3, nexthop_id:41)",
    ])
    inner = ip_udp("A", "C")
    c.send(6, mpls_pkt("P", "R", [(200, 3, 10)], inner), [(6, mpls_pkt("R", "Q", [(201, 3, 9)], inner))])
    c.send(6, mpls_pkt("P", "R", [(210, 3, 10)], inner), [(6, mpls_pkt("R", "Q", [(0, 3, 9)], inner))])
    out = Ether(src=emac("R"), dst=emac("Q")) / Dot1Q(vlan=40) / ip_udp("A", "C", ttl=9)
    c.send(6, mpls_pkt("P", "R", [(300, 3, 10)], inner), [(6, out)])
    out = Ether(src=emac("R"), dst=emac("Q")) / Dot1Q(vlan=40) / inner
    c.send(6, mpls_pkt("P", "R", [(301, 3, 10)], inner), [(6, out)])
    out = Ether(src=emac("R"), dst=emac("Q")) / Dot1Q(vlan=40) / ip_udp("A", "C", ttl=9)
    c.send(6, mpls_pkt("P", "R", [(302, 3, 10)], inner), [(6, out)])
    c.send(6, mpls_pkt("P", "R", [(200, 3, 1)], inner))
    c.send(6, mpls_pkt("P", "R", [(200, 0, 9), (201, 0, 9), (202, 0, 9), (203, 0, 9)], inner))
    c.checks += [drop_count("MPLS_TTL_EXPIRED", 1), drop_count("MPLS_TOO_DEEP", 1)]
    return c


def case_mpls_egress_ler() -> Case:
    """Explicit null (no entry needed: uniform) and a local label (pipe) popped
    and routed; an unknown label is dropped."""
    c = Case(commands=["add mpls_label label:400 pop_and_route(ttl_mode:1)"])
    c.send(6, mpls_pkt("P", "R", [(0, 0, 10)], ip_udp("A", "C")),
           [(3, Ether(src=emac("R"), dst=emac("C")) / ip_udp("A", "C", ttl=9))])
    c.send(6, mpls_pkt("P", "R", [(400, 0, 10)], ip_udp("A", "C")),
           [(3, Ether(src=emac("R"), dst=emac("C")) / ip_udp("A", "C", ttl=63))])
    c.send(6, mpls_pkt("P", "R", [(500, 0, 10)], ip_udp("A", "C")))
    c.checks.append(drop_count("MPLS_UNKNOWN_LABEL", 1))
    return c


def case_port_policer() -> Case:
    """Burst of 5 x 100-byte frames through a port policer with CBS 100, PBS 250
    bytes at 1 byte/s: green, yellow (DSCP remarked to 10), then red x 3."""
    c = Case(commands=[
        "add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:2)" % mac("B"),
        "add port_policer ingress_port:1 set_port_policer(yellow_remark:1, yellow_dscp:10)",
        "meter_config port_meter 1 1 100 1 250",
    ])
    pkts = [udp("A", "B", "A", "B", size=100 - 42, sport=i) for i in range(5)]
    assert len(bytes(pkts[0])) == 100
    c.send(1, pkts[0], [(2, pkts[0])])
    c.send(1, pkts[1], [(2, udp("A", "B", "A", "B", size=58, sport=1, tos=10 << 2))])
    for p in pkts[2:]:
        c.send(1, p)
    c.checks += [
        "check_counter port_meter_color_counter(4) packets == 1",
        "check_counter port_meter_color_counter(5) packets == 1",
        "check_counter port_meter_color_counter(6) packets == 3",
        drop_count("METER_RED", 3),
    ]
    return c


def case_acl() -> Case:
    """Priority order, port ranges, deny counter, punt, copy, redirect."""
    c = Case(commands=[
        "add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:2)" % mac("B"),
        f"mirroring_add 511 {CPU}",
        "add acl_ingress_table 10 ip_protocol:17&&&0xff l4_dst_port:1000->2000 deny()",
        f"add acl_ingress_table 20 ipv4_src:{ip(IPS['A'])}&&&0xffffffff l4_dst_port:1500->1500 permit()",
        "add acl_ingress_table 30 ip_protocol:6&&&0xff tcp_flags:0x02&&&0x02 punt_to_cpu()",
        "add acl_ingress_table 40 ip_protocol:17&&&0xff l4_dst_port:5000->5000 copy_to_cpu()",
        "add acl_ingress_table 50 ip_protocol:17&&&0xff l4_dst_port:7777->7777 redirect_to_nexthop(nexthop_id:3)",
    ])
    for dport, out in ((1500, True), (1200, False), (3000, True)):
        p = udp("A", "B", "A", "B", dport=dport)
        c.send(1, p, [(2, p)] if out else [])
    syn = Ether(src=emac("A"), dst=emac("B")) / IP(src=IPS["A"], dst=IPS["B"]) / TCP(flags="S") / Raw(b"\x00" * 6)
    c.send(1, syn, [(CPU, packet_in(1, 10, REASON["ACL_PUNT"]) + bytes(syn))])
    p = udp("A", "B", "A", "B", dport=5000)
    c.send(1, p, [(2, p), (CPU, packet_in(1, 10, REASON["ACL_COPY"]) + bytes(p))])
    c.send(1, udp("A", "B", "A", "B", dport=7777), [(3, udp("R", "C", "A", "B", dport=7777, ttl=63))])
    c.checks.append(drop_count("ACL_DENY", 1))
    return c


def case_firewall() -> Case:
    """VLAN 10 trusted (zone 1), VLAN 20 untrusted (zone 2): a reply passes only
    after the trusted side opened the flow; ICMP from the untrusted side is dropped."""
    c = Case(commands=[
        "add firewall_src_zone vlan_id:10 set_src_zone(zone:1)",
        "add firewall_src_zone vlan_id:20 set_src_zone(zone:2)",
        "add firewall_dst_zone vlan_id:10 set_dst_zone(zone:1)",
        "add firewall_dst_zone vlan_id:20 set_dst_zone(zone:2)",
        "add firewall_policy src_zone:1 dst_zone:2 track_connection()",
        "add firewall_policy src_zone:2 dst_zone:1 allow_established()",
    ])
    reply = udp("C", "R", "C", "A", sport=53, dport=5000)
    c.send(3, reply)
    c.send(1, udp("A", "R", "A", "C", sport=5000, dport=53),
           [(3, udp("R", "C", "A", "C", sport=5000, dport=53, ttl=63))])
    c.send(3, reply, [(1, udp("R", "A", "C", "A", sport=53, dport=5000, ttl=63))])
    c.send(3, Ether(src=emac("C"), dst=RMAC) / IP(src=IPS["C"], dst=IPS["A"]) / ICMP() / Raw(b"\x00" * 18))
    c.checks.append(drop_count("FIREWALL", 2))
    return c


def case_packet_out() -> Case:
    """Packet-out straight to a port, and through the pipeline (bridged in VLAN 10)."""
    c = Case(commands=["add l2_unicast vlan_id:10 dst_mac:%s set_output_port(port:2)" % mac("B")])
    frame = udp("R", "C", "R20", "C")
    c.send(CPU, packet_out(3, 0) + bytes(frame), [(3, frame)])
    frame = udp("R", "B", "R10", "B")
    c.send(CPU, packet_out(0, 1) + bytes(frame), [(2, frame)])
    return c


def case_egress_vlan_not_member() -> Case:
    c = Case(commands=[
        f"member_add ecmp_selector 60 set_nexthop(port:5, vlan_id:10, dst_mac:{mac('D')}, src_mac:{mac('R')})",
        "add nexthop_table nexthop_id:60 member(60)",
        f"add ipv4_route ipv4_dst:{ip('10.7.0.0')}/16 route_to_nexthop(nexthop_id:60)",
    ])
    c.send(1, udp("A", "R", "A", "10.7.0.1"))
    c.checks.append(drop_count("EGRESS_VLAN_NOT_MEMBER", 1, egress=True))
    return c


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_vrouter_stf(name, tmp_path, vrouter_build):
    stf = tmp_path / f"{name}.stf"
    stf.write_text(CASES[name]().stf())
    # The session's one compile of vrouter.p4 with $P4C (conftest), not one per scenario.
    proc = subprocess.run([P4STF, "--build-dir", str(tmp_path / "build"), "--compiled", *map(str, vrouter_build),
                           str(PROGRAM), str(stf)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    report = "\n".join(l for l in proc.stdout.splitlines() if not l.strip().startswith("skipped:"))
    assert proc.returncode == 0, f"{name}:\n{report}\n{proc.stderr}\n(STF kept in {stf})"
