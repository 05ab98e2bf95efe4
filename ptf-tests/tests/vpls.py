"""VPLS: a VLAN bridged over MPLS pseudowires (p4src/include/pw_term.p4, pw_encap.p4, pw_flood.p4, docs/p4-program.md section 9a).

Ports: 1 and 2 access VLAN 10 (the VPLS VLAN, hosts 1 and 2), 5 trunk VLAN 10 (host 5
tagged), 6 trunk VLAN 40 (the MPLS core: the LSP next hop PEER2_MAC receives, the upstream
peer PEER_MAC sends). Router interface on VLAN 40. The remote station REMOTE_STATION lives
behind the pseudowire. Pseudowire labels: PW_OUT pushed towards the remote PE, PW_IN bound
here; transport label TRANSPORT. Labels written as (label, EXP, TTL), top first; labels the
PE pushes have TTL 255 and EXP from the customer DSCP. Under the bottom label: the control
word (4 zero bytes, RFC 8469), then the customer frame.
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from base import (BROADCAST_MAC, HOST1_IP, HOST1_MAC, HOST2_IP, HOST2_MAC, HOST5_MAC, PEER2_MAC, PEER_MAC, PIPE,
                  ROUTER_IP40, ROUTER_MAC, VLAN10, VLAN40, Drop, VrouterTest, generate_cases, mpls_packet,
                  udp_packet)
from p4rt import DigestEntry, MulticastGroupEntry, Replica

REMOTE_STATION = "00:00:00:00:0b:01"     # behind the pseudowire
NIBBLE4_STATION = "46:00:00:00:0b:02"    # a MAC whose first nibble is that of IPv4
CONTROL_WORD = b"\x00\x00\x00\x00"
TRANSPORT, PW_OUT, PW_IN = 1001, 5002, 5001
PW_NEXTHOP = 70
PW_RID = 1                               # replication id of the pseudowire's flood copy
LOCAL_FLOOD_BASE = 4096                  # PW_LOCAL_FLOOD_GROUP_BASE
EF = 46 << 2                             # DSCP 46 -> EXP 5


def customer(src: str = HOST1_MAC, dst: str = REMOTE_STATION, tos: int = 0, vlan: int | None = None):
    """A customer IPv4/UDP frame of VLAN 10 (128 bytes untagged)."""
    return udp_packet(src, dst, HOST1_IP, HOST2_IP, tos=tos, vlan=vlan, size=128)


def untagged(frame):
    """The frame as a pseudowire carries it (raw mode: no service tag)."""
    raw = bytes(frame)
    return Ether(raw[:12] + raw[16:]) if raw[12:14] == b"\x81\x00" else Ether(raw)


def carried(frame, control_word: bytes = CONTROL_WORD):
    """What sits under the bottom label: the control word, then the frame."""
    return Raw(control_word + bytes(untagged(frame)))


def to_core(labels, frame):
    """What leaves towards the LSP next hop: new outer Ethernet, VLAN 40 tag, labels, control word, the frame."""
    return mpls_packet(ROUTER_MAC, PEER2_MAC, labels, carried(frame), vlan=VLAN40)


def from_core(labels, frame, dst: str = ROUTER_MAC, control_word: bytes = CONTROL_WORD):
    return mpls_packet(PEER_MAC, dst, labels, carried(frame, control_word), vlan=VLAN40)


class VplsTest(VrouterTest):
    """One PE: VLAN 10 is a VPLS instance with one pseudowire over an LSP out of port 6."""

    def setUp(self) -> None:
        super().setUp()
        self.setup_ports({1: VLAN10, 2: VLAN10}, {5: ((VLAN10,), 0), 6: ((VLAN40,), 0)})
        self.add_router_interface(VLAN40, ROUTER_IP40)
        self.add_nexthop(41, 6, VLAN40, PEER2_MAC)           # plain next hop (P router tests)

    def add_pseudowire(self, remote_macs=(REMOTE_STATION, NIBBLE4_STATION), transport: int | None = TRANSPORT) -> None:
        """The pseudowire: its next hop (transport + PW label, pipe), static remote MACs,
        its flood copy (replica (6, PW_RID) in group 10 + pw_flood entry), the local-only
        flood group, and its incoming label."""
        labels = (transport, PW_OUT) if transport is not None else (PW_OUT,)
        self.add_nexthop(PW_NEXTHOP, 6, VLAN40, PEER2_MAC, labels=labels, ttl_mode=PIPE)
        for mac in remote_macs:
            self.table_add("l2_unicast", {"vlan_id": VLAN10, "dst_mac": mac}, "to_pseudowire",
                           {"nexthop_id": PW_NEXTHOP})
        self.sw.modify(MulticastGroupEntry(VLAN10, [Replica(1), Replica(2), Replica(5), Replica(6, PW_RID)]))
        self.insert(MulticastGroupEntry(LOCAL_FLOOD_BASE + VLAN10, [Replica(1), Replica(2), Replica(5)]))
        base = {"vlan_id": VLAN40, "dst_mac": PEER2_MAC, "src_mac": ROUTER_MAC}
        if transport is not None:
            self.table_add("pw_flood", {"egress_rid": PW_RID}, "pw_flood_push2",
                           {**base, "transport_label_out": transport, "pw_label_out": PW_OUT})
        else:
            self.table_add("pw_flood", {"egress_rid": PW_RID}, "pw_flood_push1", {**base, "pw_label_out": PW_OUT})
        self.pw_in = self.table_add("pw_termination", {"label": PW_IN}, "terminate_pseudowire", {"vlan_id": VLAN10})


# --- ingress PE ---------------------------------------------------------------------------------


@dataclass
class Encap:
    id: str
    doc: str
    in_port: int
    frame: object
    labels: list
    transport: int | None = TRANSPORT


ARP_REQUEST = Ether(src=HOST1_MAC, dst=REMOTE_STATION) / ARP(op=1, hwsrc=HOST1_MAC, psrc=HOST1_IP, pdst=HOST2_IP)

ENCAP = [
    Encap("KnownStation", "known remote station: transport label over PW label (S=1), TTL 255, frame exact",
          1, customer(), [(TRANSPORT, 0, 255), (PW_OUT, 0, 255)]),
    Encap("ExpFromDscp", "EXP of both labels from the customer DSCP 46 -> 5", 1, customer(tos=EF),
          [(TRANSPORT, 5, 255), (PW_OUT, 5, 255)]),
    Encap("FromTrunkRawMode", "a tagged frame from a trunk travels without its VLAN tag (raw mode)",
          5, customer(src=HOST5_MAC, vlan=VLAN10), [(TRANSPORT, 0, 255), (PW_OUT, 0, 255)]),
    Encap("NonIpv4", "an ARP frame: EXP 0", 1, ARP_REQUEST, [(TRANSPORT, 0, 255), (PW_OUT, 0, 255)]),
    Encap("Nibble4Mac", "a destination MAC starting with nibble 4: the control word keeps it from looking like IPv4",
          1, customer(dst=NIBBLE4_STATION), [(TRANSPORT, 0, 255), (PW_OUT, 0, 255)]),
    Encap("AdjacentPe", "no transport label (remote PE adjacent): the PW label alone, S=1",
          1, customer(), [(PW_OUT, 0, 255)], transport=None),
]


class VplsEncap(VplsTest):
    def run_case(self, c: Encap) -> None:
        self.add_pseudowire(transport=c.transport)
        self.send(c.in_port, c.frame)
        self.expect_only({6: to_core(c.labels, c.frame)})


generate_cases(globals(), VplsEncap, ENCAP, "VplsEncap")


class VplsFloodToPseudowire(VplsTest):
    """Broadcast in VLAN 10: the local ports get the frame as it is, the pseudowire one
    encapsulated copy (replication id -> pw_flood); not the ingress port."""

    def runTest(self) -> None:
        self.add_pseudowire()
        frame = customer(dst=BROADCAST_MAC)
        self.send(1, frame)
        self.expect_only({2: frame, 5: tagged(frame),
                          6: to_core([(TRANSPORT, 0, 255), (PW_OUT, 0, 255)], frame)})
        self.assert_drops({Drop.FLOOD_INGRESS_PORT: 1})


class VplsFloodMissDropped(VplsTest):
    """A pseudowire replica without pw_flood entry is dropped (PW_FLOOD_MISS), the local copies go."""

    def runTest(self) -> None:
        self.sw.modify(MulticastGroupEntry(VLAN10, [Replica(1), Replica(2), Replica(6, PW_RID)]))
        frame = customer(dst=BROADCAST_MAC)
        self.send(1, frame)
        self.expect_only({2: frame})
        self.assert_drops({Drop.PW_FLOOD_MISS: 1})


class VplsCustomerMplsUnsupported(VplsTest):
    """A customer frame that itself carries MPLS cannot go into the pseudowire: PW_UNSUPPORTED."""

    def runTest(self) -> None:
        self.add_pseudowire()
        frame = mpls_packet(HOST1_MAC, REMOTE_STATION, [(77, 0, 64)], customer()[Ether].payload)
        self.send(1, frame)
        self.expect_only({})
        self.assert_drops({Drop.PW_UNSUPPORTED: 1})


class VplsMtuCountsInnerEthernet(VplsTest):
    """VLAN 40 MTU 150: IPv4 of 124 bytes + 8 label bytes + 4 control word + 14 Ethernet = 150
    passes; an IPv4 of 125 bytes (DF set) makes 151: dropped, not punted (a bridged frame gets no ICMP)."""

    def runTest(self) -> None:
        self.add_pseudowire()
        self.table_add("interface_mtu", {"vlan_id": VLAN40}, "set_mtu", {"mtu": 150})
        fits = udp_packet(HOST1_MAC, REMOTE_STATION, HOST1_IP, HOST2_IP, size=14 + 124, flags="DF")
        self.send(1, fits)
        self.expect_only({6: to_core([(TRANSPORT, 0, 255), (PW_OUT, 0, 255)], fits)})
        big = udp_packet(HOST1_MAC, REMOTE_STATION, HOST1_IP, HOST2_IP, size=14 + 125, flags="DF")
        self.send(1, big)
        self.expect_only({})
        self.assert_drops({Drop.MTU_EXCEEDED: 1})
        self.expect_no_packet_in()


# --- egress PE ----------------------------------------------------------------------------------


@dataclass
class Decap:
    id: str
    doc: str
    labels: list
    dst: str
    out: dict
    stations: tuple = ((HOST2_MAC, 2),)
    egress_lsp: int | None = None        # a local label popped by pop_and_route (transport)


def remote_frame(dst: str):
    return udp_packet(REMOTE_STATION, dst, HOST2_IP, HOST1_IP, size=128)


def tagged(frame, pcp: int = 0):
    return Ether(bytes(frame)[:12] + bytes([0x81, 0x00, (pcp << 5), VLAN10]) + bytes(frame)[12:])


DECAP = [
    Decap("ImplicitNull", "PHP upstream: only the PW label arrives; popped, the frame bridged to host 2 as it was",
          [(PW_IN, 0, 254)], HOST2_MAC, {2: remote_frame(HOST2_MAC)}),
    Decap("ExplicitNull", "explicit null over the PW label: both popped, the frame bridged to host 2",
          [(0, 0, 254), (PW_IN, 0, 255)], HOST2_MAC, {2: remote_frame(HOST2_MAC)}),
    Decap("Nibble4Mac", "to a station whose MAC starts with nibble 4 (would be IPv4 without the control word)",
          [(0, 0, 254), (PW_IN, 0, 255)], "46:00:00:00:00:02", {2: remote_frame("46:00:00:00:00:02")},
          stations=(("46:00:00:00:00:02", 2),)),
    Decap("UnderLocalLabel", "transport label bound by an egress LSP (no PHP upstream): pop_and_route, then "
          "the PW label", [(400, 0, 254), (PW_IN, 0, 255)], HOST2_MAC, {2: remote_frame(HOST2_MAC)}, egress_lsp=400),
    Decap("ToTrunkPcpFromExp", "to a trunk station: tagged VLAN 10 with PCP = EXP 3 of the PW label",
          [(0, 3, 254), (PW_IN, 3, 255)], HOST5_MAC, {5: tagged(remote_frame(HOST5_MAC), 3)},
          stations=((HOST5_MAC, 5),)),
    Decap("UnknownFloodsLocally", "unknown destination: flooded to the local ports only (split horizon: "
          "not back into the core)", [(PW_IN, 0, 254)], "00:00:00:00:0c:0c",
          {1: remote_frame("00:00:00:00:0c:0c"), 2: remote_frame("00:00:00:00:0c:0c"),
           5: tagged(remote_frame("00:00:00:00:0c:0c"))}, stations=()),
]


class VplsDecap(VplsTest):
    def run_case(self, c: Decap) -> None:
        self.add_pseudowire()
        for mac, port in c.stations:
            self.add_station(VLAN10, mac, port)
        if c.egress_lsp is not None:
            self.table_add("mpls_label", {"label": c.egress_lsp}, "pop_and_route", {"ttl_mode": 0})
        self.send(6, from_core(c.labels, remote_frame(c.dst)))
        self.expect_only(c.out)
        # Split horizon: no copy was even made for the pseudowire's port (group 4096 + 10).
        self.assert_no_drops(Drop.FLOOD_INGRESS_PORT)
        self.assertEqual(self.direct_counter(self.pw_in).packets, 1, "pw_termination_counter")


generate_cases(globals(), VplsDecap, DECAP, "VplsDecap")


@dataclass
class Refused:
    id: str
    doc: str
    labels: list
    drop: int
    frame: object = None
    control_word: bytes = CONTROL_WORD


REFUSED = [
    Refused("UnknownPwLabel", "a bottom label over Ethernet without pseudowire or label entry",
            [(5999, 0, 254)], Drop.PW_UNKNOWN_LABEL),
    Refused("UnknownPwLabelUnderExplicitNull", "explicit null over an unknown PW label",
            [(0, 0, 254), (5999, 0, 255)], Drop.PW_UNKNOWN_LABEL),
    Refused("PwLabelNotAtBottom", "the PW label with another label under it is no pseudowire: unknown label",
            [(PW_IN, 0, 254), (16, 0, 255)], Drop.MPLS_UNKNOWN_LABEL),
    Refused("SplitHorizon", "from the pseudowire to a station behind a pseudowire",
            [(PW_IN, 0, 254)], Drop.PW_SPLIT_HORIZON, remote_frame(REMOTE_STATION)),
    Refused("NoControlWord", "a pseudowire frame without control word (its MAC starts with nibble 0xa here)",
            [(PW_IN, 0, 254)], Drop.PW_UNSUPPORTED, remote_frame("a2:00:00:00:00:02"), control_word=b""),
]


class VplsRefused(VplsTest):
    def run_case(self, c: Refused) -> None:
        self.add_pseudowire()
        self.add_station(VLAN10, HOST2_MAC, 2)
        self.send(6, from_core(c.labels, c.frame or remote_frame(HOST2_MAC), control_word=c.control_word))
        self.expect_only({})
        self.assert_drops({c.drop: 1})


generate_cases(globals(), VplsRefused, REFUSED, "VplsRefused")


class VplsLearning(VplsTest):
    """A source unknown behind the pseudowire raises pw_learn_digest_t (VLAN, MAC, PW label);
    with its pw_learning entry it raises none. The frame is bridged either way."""

    def runTest(self) -> None:
        self.add_pseudowire()
        self.add_station(VLAN10, HOST2_MAC, 2)
        self.insert(DigestEntry("pw_learn_digest_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=10**9))
        frame = remote_frame(HOST2_MAC)
        self.send(6, from_core([(PW_IN, 0, 254)], frame))
        self.expect_only({2: frame})
        learned = [d for d in self.sw.digests(timeout=2.0) if d.digest == "pw_learn_digest_t"]
        got = [(d["vlan_id"], int(str(d["src_mac"]).replace(":", ""), 16) if isinstance(d["src_mac"], str)
                else int(d["src_mac"]), d["pw_label"]) for dl in learned for d in dl.data]
        self.assertEqual(got, [(VLAN10, 0x000000000B01, PW_IN)], "digest content (vlan_id, src_mac, pw_label)")
        self.table_add("pw_learning", {"vlan_id": VLAN10, "src_mac": REMOTE_STATION, "pw_label": PW_IN},
                       "pw_station_known")
        self.send(6, from_core([(0, 0, 254), (PW_IN, 0, 255)], frame))
        self.expect_only({2: frame})
        again = [d for d in self.sw.digests(timeout=1.0) if d.digest == "pw_learn_digest_t"]
        self.assertEqual(again, [], "digest for a station known behind the pseudowire")


# --- P router -----------------------------------------------------------------------------------


@dataclass
class Transit:
    id: str
    doc: str
    action: str
    params: dict
    out_labels: list


TRANSIT = [
    Transit("Swap", "swap of the transport label, PW label and frame untouched", "swap",
            {"out_label": 1002, "nexthop_id": 41}, [(1002, 0, 254), (PW_OUT, 0, 255)]),
    Transit("SwapToExplicitNull", "explicit null: transport swapped to 0", "swap",
            {"out_label": 0, "nexthop_id": 41}, [(0, 0, 254), (PW_OUT, 0, 255)]),
    Transit("PhpUniform", "implicit null (PHP): transport popped, TTL - 1 copied to the PW label", "php",
            {"nexthop_id": 41, "ttl_mode": 0}, [(PW_OUT, 0, 254)]),
    Transit("PhpPipe", "PHP, pipe: the PW label keeps its TTL", "php",
            {"nexthop_id": 41, "ttl_mode": 1}, [(PW_OUT, 0, 255)]),
]


class VplsTransit(VplsTest):
    def run_case(self, c: Transit) -> None:
        entry = self.table_add("mpls_label", {"label": TRANSPORT}, c.action, c.params)
        frame = customer()
        self.send(6, from_core([(TRANSPORT, 0, 255), (PW_OUT, 0, 255)], frame))
        self.expect_only({6: to_core(c.out_labels, frame)})
        self.assertEqual(self.direct_counter(entry).packets, 1, "mpls_label_counter")


generate_cases(globals(), VplsTransit, TRANSIT, "VplsTransit")
