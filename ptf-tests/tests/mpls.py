"""MPLS: ingress LER push (1 and 2 labels, EXP from DSCP), LSR swap / swap to explicit
null / PHP, egress LER pop-and-route (explicit null and local labels), uniform and pipe
TTL models (docs/p4-program.md section 9), label TTL expiry, too-deep and unknown labels.

Ports: 1 access VLAN 10 (host 1), 3 access VLAN 20 (host 3), 6 trunk VLAN 40 (the MPLS
core: upstream peer PEER_MAC sends, downstream peer PEER2_MAC receives), 5 trunk VLAN 40. Router
interfaces on VLANs 10, 20, 40. Next hops: 3 host 3, 41 downstream peer (plain).
Labels written as (label, EXP, TTL), top first.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

from base import (HOST1_IP, HOST1_MAC, HOST3_IP, HOST3_MAC, PEER2_MAC, PEER_MAC, PIPE, ROUTER_IP10,
                  ROUTER_IP20, ROUTER_IP40, ROUTER_MAC, UNIFORM, VLAN10, VLAN20, VLAN40, Drop, VrouterTest,
                  generate_cases, mpls_packet)

EF = 46 << 2          # DSCP 46 (EF) in the TOS byte -> EXP 5


def inner(ttl: int = 64, tos: int = 0, dst: str = HOST3_IP, length: int = 68):
    """The IPv4 packet carried by the LSPs, `length` bytes (checksum computed by scapy)."""
    return (IP(src=HOST1_IP, dst=dst, ttl=ttl, tos=tos, id=7) / UDP(sport=4000, dport=5000)
            / Raw(bytes(i % 256 for i in range(length - 28))))


def from_host1(dst: str, ttl: int = 64, tos: int = 0):
    return Ether(src=HOST1_MAC, dst=ROUTER_MAC) / inner(ttl, tos, dst)


def from_core(labels, ttl: int = 64):
    return mpls_packet(PEER_MAC, ROUTER_MAC, labels, inner(ttl), vlan=VLAN40)


def to_core(labels, ttl: int = 64, tos: int = 0, dst: str = HOST3_IP):
    return mpls_packet(ROUTER_MAC, PEER2_MAC, labels, inner(ttl, tos, dst), vlan=VLAN40)


def ip_to_core(ttl: int):
    return Ether(src=ROUTER_MAC, dst=PEER2_MAC) / Dot1Q(vlan=VLAN40) / inner(ttl)


def ip_to_host3(ttl: int):
    return Ether(src=ROUTER_MAC, dst=HOST3_MAC) / inner(ttl)


@dataclass
class Lsp:
    id: str
    doc: str
    pushes: list = field(default_factory=list)     # (nexthop/member id, labels, ttl_mode, prefix)
    labels: list = field(default_factory=list)     # (in label, action, params)
    in_port: int = 6
    frame: object = None
    out_port: int | None = None
    out: object = None
    drop: int | None = None


def _push(nh: int, labels: tuple, mode: int, prefix: str):
    return (nh, labels, mode, prefix)


CASES = [
    # ingress LER
    Lsp("Push1Uniform", "push 1 label, uniform: label TTL = IP TTL - 1, EXP 5 from DSCP 46",
        pushes=[_push(50, (100,), UNIFORM, "172.16.1.0/24")], in_port=1, frame=from_host1("172.16.1.1", tos=EF),
        out_port=6, out=to_core([(100, 5, 63)], ttl=63, tos=EF, dst="172.16.1.1")),
    Lsp("Push1Pipe", "push 1 label, pipe: label TTL 255, IP TTL - 1",
        pushes=[_push(51, (101,), PIPE, "172.16.2.0/24")], in_port=1, frame=from_host1("172.16.2.1", tos=EF),
        out_port=6, out=to_core([(101, 5, 255)], ttl=63, tos=EF, dst="172.16.2.1")),
    Lsp("Push2Uniform", "push 2 labels (outer on top), uniform TTLs, EXP from DSCP",
        pushes=[_push(52, (102, 2000), UNIFORM, "172.16.3.0/24")], in_port=1,
        frame=from_host1("172.16.3.1", tos=EF),
        out_port=6, out=to_core([(102, 5, 63), (2000, 5, 63)], ttl=63, tos=EF, dst="172.16.3.1")),
    Lsp("Push2Pipe", "push 2 labels, pipe: both label TTLs 255; DSCP 8 -> EXP 1",
        pushes=[_push(53, (103, 2001), PIPE, "172.16.4.0/24")], in_port=1,
        frame=from_host1("172.16.4.1", tos=8 << 2),
        out_port=6, out=to_core([(103, 1, 255), (2001, 1, 255)], ttl=63, tos=8 << 2, dst="172.16.4.1")),
    # LSR
    Lsp("Swap", "swap 200 -> 201: label TTL - 1, EXP kept, payload untouched",
        labels=[(200, "swap", {"out_label": 201, "nexthop_id": 41})], frame=from_core([(200, 3, 10)]),
        out_port=6, out=to_core([(201, 3, 9)])),
    Lsp("SwapKeepsInnerLabel", "swap of the top label of two; the inner label is kept",
        labels=[(200, "swap", {"out_label": 201, "nexthop_id": 41})],
        frame=from_core([(200, 2, 30), (777, 2, 30)]), out_port=6, out=to_core([(201, 2, 29), (777, 2, 30)])),
    Lsp("SwapToExplicitNull", "penultimate hop, explicit null: swap to label 0",
        labels=[(210, "swap", {"out_label": 0, "nexthop_id": 41})], frame=from_core([(210, 3, 10)]),
        out_port=6, out=to_core([(0, 3, 9)])),
    Lsp("PhpUniform", "PHP (implicit null), uniform: IP TTL := label TTL - 1",
        labels=[(300, "php", {"nexthop_id": 41, "ttl_mode": UNIFORM})], frame=from_core([(300, 3, 10)]),
        out_port=6, out=ip_to_core(9)),
    Lsp("PhpPipe", "PHP, pipe: IP TTL unchanged",
        labels=[(301, "php", {"nexthop_id": 41, "ttl_mode": PIPE})], frame=from_core([(301, 3, 10)]),
        out_port=6, out=ip_to_core(64)),
    Lsp("SwapToImplicitNullIsPhp", "swap to label 3 is carried out as PHP (uniform)",
        labels=[(302, "swap", {"out_label": 3, "nexthop_id": 41})], frame=from_core([(302, 3, 10)]),
        out_port=6, out=ip_to_core(9)),
    Lsp("LabelTtlExpired", "label TTL 1 at a swap: dropped",
        labels=[(200, "swap", {"out_label": 201, "nexthop_id": 41})], frame=from_core([(200, 3, 1)]),
        drop=Drop.MPLS_TTL_EXPIRED),
    Lsp("TooDeepStack", "four labels: dropped MPLS_TOO_DEEP",
        labels=[(200, "swap", {"out_label": 201, "nexthop_id": 41})],
        frame=from_core([(200, 0, 9), (201, 0, 9), (202, 0, 9), (203, 0, 9)]), drop=Drop.MPLS_TOO_DEEP),
    Lsp("UnknownLabel", "a label without entry: dropped", frame=from_core([(555, 0, 9)]),
        drop=Drop.MPLS_UNKNOWN_LABEL),
    # egress LER
    Lsp("ExplicitNullPopAndRoute", "label 0 without entry: popped (uniform: IP TTL := 10) and routed, - 1",
        frame=from_core([(0, 0, 10)]), out_port=3, out=ip_to_host3(9)),
    Lsp("ExplicitNullPipeEntry", "label 0 with pop_and_route(pipe): IP TTL 64 - 1",
        labels=[(0, "pop_and_route", {"ttl_mode": PIPE})], frame=from_core([(0, 0, 10)]),
        out_port=3, out=ip_to_host3(63)),
    Lsp("LocalLabelPopUniform", "local label, uniform: IP TTL := label TTL 20, routed: 19",
        labels=[(400, "pop_and_route", {"ttl_mode": UNIFORM})], frame=from_core([(400, 0, 20)]),
        out_port=3, out=ip_to_host3(19)),
    Lsp("LocalLabelPopPipe", "local label, pipe: IP TTL 64, routed: 63",
        labels=[(401, "pop_and_route", {"ttl_mode": PIPE})], frame=from_core([(401, 0, 20)]),
        out_port=3, out=ip_to_host3(63)),
]


class MplsTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 3: VLAN20}, {5: ((VLAN40,), 0), 6: ((VLAN40,), 0)})
        self.add_router_interface(VLAN10, ROUTER_IP10)
        self.add_router_interface(VLAN20, ROUTER_IP20)
        self.add_router_interface(VLAN40, ROUTER_IP40)
        self.add_nexthop(3, 3, VLAN20, HOST3_MAC)
        self.add_nexthop(41, 6, VLAN40, PEER2_MAC)
        self.add_route(f"{HOST3_IP}/32", 3)

    def run_case(self, c: Lsp) -> None:
        for nh, labels, mode, prefix in c.pushes:
            self.add_nexthop(nh, 6, VLAN40, PEER2_MAC, labels=labels, ttl_mode=mode)
            self.add_route(prefix, nh)
        entries = [self.table_add("mpls_label", {"label": label}, action, params) for label, action, params in c.labels]
        self.send(c.in_port, c.frame)
        if c.drop is not None:
            self.expect_only({})
            self.assert_drops({c.drop: 1})
            return
        self.expect_only({c.out_port: c.out})
        if entries:
            self.assertEqual(self.direct_counter(entries[0]).packets, 1, "mpls_label_counter")


generate_cases(globals(), MplsTest, CASES, "Mpls")


@dataclass
class EndToEnd:
    id: str
    doc: str
    mode: int
    label: int
    prefix: str


END_TO_END = [
    EndToEnd("Uniform", "uniform: every router counts (64 -> 63 at A, 62 in the core, 61 after B's PHP)",
             UNIFORM, 600, "172.16.60"),
    EndToEnd("Pipe", "pipe: the LSP counts as one hop (63 after A, still 63 after B's PHP)", PIPE, 601, "172.16.61"),
]


class MplsLspEndToEnd(MplsTest):
    """One router playing LER A (push) and then LSR B (PHP): the IPv4 TTL the next hop sees."""

    def run_case(self, c: EndToEnd) -> None:
        dst = f"{c.prefix}.1"
        self.add_nexthop(60, 6, VLAN40, PEER2_MAC, labels=(c.label,), ttl_mode=c.mode)
        self.add_route(f"{c.prefix}.0/24", 60)
        self.table_add("mpls_label", {"label": c.label}, "php", {"nexthop_id": 41, "ttl_mode": c.mode})
        # A: push.
        self.send(1, from_host1(dst))
        label_ttl = 63 if c.mode == UNIFORM else 255
        self.expect_only({6: to_core([(c.label, 0, label_ttl)], ttl=63, dst=dst)})
        # B: the labelled packet comes back from the upstream peer, one core hop later.
        came = mpls_packet(PEER_MAC, ROUTER_MAC, [(c.label, 0, label_ttl - 1)], inner(63, dst=dst), vlan=VLAN40)
        self.send(6, came)
        ip_ttl = 61 if c.mode == UNIFORM else 63
        self.expect_only({6: Ether(src=ROUTER_MAC, dst=PEER2_MAC) / Dot1Q(vlan=VLAN40) / inner(ip_ttl, dst=dst)})


generate_cases(globals(), MplsLspEndToEnd, END_TO_END, "MplsLspEndToEnd")


class MplsMtuCountsLabels(MplsTest):
    """VLAN 40's MTU 500 with a 2-label push: IPv4 of 492 bytes + 8 fits, 493 + 8 is dropped."""

    def runTest(self) -> None:
        self.table_add("interface_mtu", {"vlan_id": VLAN40}, "set_mtu", {"mtu": 500})
        self.add_nexthop(52, 6, VLAN40, PEER2_MAC, labels=(102, 2000), ttl_mode=UNIFORM)
        self.add_route("172.16.3.0/24", 52)
        fits = Ether(src=HOST1_MAC, dst=ROUTER_MAC) / inner(dst="172.16.3.1", length=492)
        self.send(1, fits)
        self.expect_only({6: mpls_packet(ROUTER_MAC, PEER2_MAC, [(102, 0, 63), (2000, 0, 63)],
                                         inner(63, dst="172.16.3.1", length=492), vlan=VLAN40)})
        big = Ether(src=HOST1_MAC, dst=ROUTER_MAC) / inner(dst="172.16.3.1", length=493)
        self.send(1, big)
        self.expect_only({})
        self.assert_drops({Drop.MTU_EXCEEDED: 1})


class MplsNotToRouterIsBridged(MplsTest):
    """An MPLS frame to another station's MAC is bridged untouched, even with 4 labels."""

    def runTest(self) -> None:
        self.add_station(VLAN40, PEER2_MAC, 5)
        frame = mpls_packet(PEER_MAC, PEER2_MAC, [(200, 0, 9), (201, 0, 9), (202, 0, 9), (203, 0, 9)], inner(),
                            vlan=VLAN40)
        self.send(6, frame)
        self.expect_only({5: frame})
        self.assert_no_drops(Drop.MPLS_TOO_DEEP)


class MplsPopToRouterAddressPunted(MplsTest):
    """Explicit null over IPv4 to the router's own address: popped, then punted ROUTER_ADDRESS."""

    def runTest(self) -> None:
        frame = mpls_packet(PEER_MAC, ROUTER_MAC, [(0, 0, 10)], inner(dst=ROUTER_IP20), vlan=VLAN40)
        self.send(6, frame)
        self.expect_only({})
        got = self.packet_in()
        self.assertEqual((got.metadata.get("reason"), got.metadata.get("ingress_port"), got.metadata.get("vlan_id")),
                         (2, 6, VLAN40), "packet_in (reason ROUTER_ADDRESS, ingress_port, vlan_id)")
        self.assertIn(bytes(inner(dst=ROUTER_IP20))[12:], got.payload, "the IPv4 packet for the router is in the payload")
