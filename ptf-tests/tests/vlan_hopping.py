"""VLAN hopping, tried as an attacker would (issue 17 Must 2, docs/p4-program.md section 8).

The attacker sits in VLAN 10 and wants a frame to reach VLAN 20. From each kind of
port (access; trunk whose native VLAN 10 is untagged; trunk whose native VLAN 10 is
tagged) it sends a broadcast with each tag shape: none, priority tag, one tag (its own 10,
or 20), two tags (outer = its own VLAN 10, or a priority tag; inner 20) and an 802.1ad
outer tag (an S-tag 20 alone, or an S-tag 10 over a C-tag 20). Broadcast floods everywhere the switch thinks the frame belongs, so every port
shows what a hop would look like.

Every frame that comes out is read the way the next switch would read it (802.1Q:
its outer C-tag, or the receiving port's own VLAN when untagged or priority-tagged)
and must not land in VLAN 20, and a frame that leaves untagged must not start its
payload with another tag (the switch after that one would read it). Then the exact
outputs and drop counters are checked against the documented behaviour.

Ports (PTF port = switch port):
  1 access 10 (attacker)        2 trunk, native 10 untagged, 30 tagged (attacker)
  3 trunk, native 10 tagged, 30 tagged (attacker)
  4 access 20 (victim)          5 trunk, native 10 untagged, 20 tagged
  6 trunk, no native, 10 and 20 tagged                7 access 10
  8 trunk, native 20 untagged, 10 tagged
"""
from __future__ import annotations

from dataclasses import dataclass

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.packet import Raw

from base import BROADCAST_MAC, HOST1_MAC, Drop, VrouterTest, generate_cases
from p4rt import Action, MulticastGroupEntry, Replica, TableEntry

ATTACKER_VLAN, VICTIM_VLAN = 10, 20
TPIDS = (0x8100, 0x88A8, 0x9100)


@dataclass(frozen=True)
class Port:
    pvid: int                  # VLAN of untagged / priority-tagged frames (0: none, dropped)
    access: bool
    tagged: frozenset          # VLANs carried tagged (both directions)


PORTS = {
    1: Port(10, True, frozenset()),
    2: Port(10, False, frozenset({30})),
    3: Port(10, False, frozenset({10, 30})),     # native 10, and 10 leaves tagged
    4: Port(20, True, frozenset()),
    5: Port(10, False, frozenset({20})),
    6: Port(0, False, frozenset({10, 20})),
    7: Port(10, True, frozenset()),
    8: Port(20, False, frozenset({10})),
}


def members(vlan: int) -> list[int]:
    return sorted(p for p, c in PORTS.items() if vlan in c.tagged or (c.pvid == vlan and vlan not in c.tagged))


def payload() -> IP:
    return IP(src="10.0.10.66", dst="10.0.20.255") / UDP(sport=666, dport=53) / Raw(b"hop" * 16)


SHAPES = {
    # name: (the tags on the wire, outermost first: ("q", vid) 802.1Q, ("ad", vid) 802.1ad)
    "Untagged": (),
    "PriorityTag": (("q", 0),),
    "OwnTag": (("q", ATTACKER_VLAN),),
    "VictimTag": (("q", VICTIM_VLAN),),
    "DoubleTag": (("q", ATTACKER_VLAN), ("q", VICTIM_VLAN)),
    "PriorityThenVictimTag": (("q", 0), ("q", VICTIM_VLAN)),
    "ServiceTag": (("ad", VICTIM_VLAN),),
    "ServiceThenVictimTag": (("ad", ATTACKER_VLAN), ("q", VICTIM_VLAN)),
}


def frame(tags: tuple) -> Ether:
    pkt = Ether(src=HOST1_MAC, dst=BROADCAST_MAC)
    for kind, vid in tags:
        pkt = pkt / (Dot1Q(vlan=vid) if kind == "q" else Dot1AD(vlan=vid))
    return pkt / payload()


# --- the attacker's view of what came out -------------------------------------------------------


def receiver_vlan(port: int, data: bytes) -> tuple[int, bytes]:
    """How an 802.1Q switch on the far end of `port` classifies the frame (configured like
    `port`): the VLAN, and what follows the tag it classified by (from the EtherType on)."""
    ether_type = int.from_bytes(data[12:14], "big")
    if ether_type == 0x8100:
        vid = int.from_bytes(data[14:16], "big") & 0xFFF
        return (vid or PORTS[port].pvid), data[16:]
    return PORTS[port].pvid, data[12:]


# --- what the program documents -----------------------------------------------------------------


def expected(in_port: int, tags: tuple) -> tuple[dict[int, bytes], dict[int, int]]:
    """{port: frame} out, and {drop reason: count}, per docs/p4-program.md section 8."""
    cfg = PORTS[in_port]
    first = tags[0] if tags else None
    tagged = first is not None and first[0] == "q" and first[1] != 0
    rest = tags[1:] if first is not None and first[0] == "q" else tags
    if cfg.access:
        if tagged or rest:
            return {}, {Drop.TAGGED_ON_ACCESS: 1}
        vlan = cfg.pvid
    elif tagged:
        if first[1] not in cfg.tagged:
            return {}, {Drop.VLAN_NOT_ALLOWED: 1}
        vlan = first[1]
    else:
        vlan = cfg.pvid
    outputs, drops = {}, {}
    for port in members(vlan):
        if port == in_port:
            drops[Drop.FLOOD_INGRESS_PORT] = drops.get(Drop.FLOOD_INGRESS_PORT, 0) + 1
            continue
        out_tags = ((("q", vlan),) if vlan in PORTS[port].tagged else ()) + rest
        if not out_tags or out_tags[0] == ("q", vlan) and vlan in PORTS[port].tagged:
            outputs[port] = bytes(frame(out_tags))
        else:       # untagged on the wire, but the payload starts with a tag
            drops[Drop.INNER_TAG_EXPOSED] = drops.get(Drop.INNER_TAG_EXPOSED, 0) + 1
    return outputs, drops


@dataclass
class Attack:
    id: str
    doc: str
    in_port: int
    tags: tuple


KINDS = {"Access": 1, "TrunkUntaggedNative": 2, "TrunkTaggedNative": 3}
CASES = [Attack(f"{kind}{shape}", f"VLAN hopping from a {kind} port, {shape}: {tags}", port, tags)
         for kind, port in KINDS.items() for shape, tags in SHAPES.items()]


class VlanHopping(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        entries = []
        for port, cfg in PORTS.items():
            if cfg.access:
                entries.append(TableEntry("port_config", {"ingress_port": port},
                                          Action("set_access_port", {"vlan_id": cfg.pvid})))
            else:
                entries.append(TableEntry("port_config", {"ingress_port": port},
                                          Action("set_trunk_port", {"native_vlan_id": cfg.pvid})))
                entries += [TableEntry("ingress_vlan_member", {"ingress_port": port, "vlan_id": v},
                                       Action("allow_vlan")) for v in sorted(cfg.tagged)]
            entries += [TableEntry("egress_vlan_member", {"egress_port": port, "vlan_id": v}, Action("tag_vlan"))
                        for v in sorted(cfg.tagged)]
            if cfg.pvid and cfg.pvid not in cfg.tagged:
                entries.append(TableEntry("egress_vlan_member", {"egress_port": port, "vlan_id": cfg.pvid},
                                          Action("untag_vlan")))
        entries += [MulticastGroupEntry(v, [Replica(p) for p in members(v)]) for v in (10, 20, 30)]
        self.insert(*entries)

    def received(self) -> list[tuple[int, bytes]]:
        """Every frame that comes out on any port until the line is quiet."""
        out = []
        while True:
            res = self.dataplane.poll(device_number=0, timeout=0.5)
            if getattr(res, "packet", None) is None:
                return sorted(out)
            out.append((res.port, bytes(res.packet)))

    def run_case(self, c: Attack) -> None:
        self.send(c.in_port, frame(c.tags))
        got = self.received()

        # The attacker's goal: a frame read as VLAN 20 somewhere, now or one switch later.
        for port, data in got:
            vlan, rest = receiver_vlan(port, data)
            self.assertNotEqual(vlan, VICTIM_VLAN, f"port {port} delivers into VLAN 20: {data.hex()}")
            if data[12:14] != b"\x81\x00":     # untagged: an 802.1ad-aware switch reads an S-tag here
                self.assertNotIn(int.from_bytes(rest[0:2], "big"), TPIDS, f"port {port}: a tag exposed: {data.hex()}")

        # What the documentation says happens, frame by frame, and the drop counters.
        outputs, drops = expected(c.in_port, c.tags)
        self.assertEqual(sorted(p for p, _ in got), sorted(outputs), "ports that sent a copy")
        for port, data in got:
            self.assertEqual(data.hex(), outputs[port].hex(), f"frame out of port {port}")
        self.assert_drops(drops)


generate_cases(globals(), VlanHopping, CASES, "Vlan")
