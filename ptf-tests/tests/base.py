"""Base class, named constants and set-up helpers of the vrouter.p4 PTF suite.

Every test reads as a recipe: program state (helpers below, each write recorded) ->
packet -> expected packet -> send -> verify -> verify no other packets. A cleanup
registered in setUp undoes every write in reverse order, also when the test (or its
setUp) failed, and then checks the switch holds no table entry, group or member any more.

Test params (PTF `--test-params`): grpc_addr, p4info, json, cpu_port [, device_id].
Names used with p4rt are the P4Info aliases of docs/p4-program.md.
"""
from __future__ import annotations

import sys
import time
from typing import Any, Iterable

import grpc
import ptf
import ptf.testutils as tu
from ptf.base_tests import BaseTest
from scapy.contrib.mpls import MPLS
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Packet, Raw

from p4rt import (Action, ActionProfileGroup, ActionProfileMember, CloneSessionEntry, CounterData, CounterEntry,
                  DigestEntry, DirectCounterEntry, Entity, MeterConfig, MeterEntry, MulticastGroupEntry, P4RuntimeError,
                  P4RuntimeWriteError, PacketIn,
                  RegisterEntry, Replica, Switch, TableEntry)

# --- named constants (docs/p4-program.md) --------------------------------------------------

CPU_PORT = int(tu.test_param_get("cpu_port", 255))
CPU_CLONE_SESSION = 511

ROUTER_MAC = "00:00:00:00:aa:01"
ROUTER_MAC2 = "00:00:00:00:aa:02"
HOST1_MAC, HOST2_MAC, HOST3_MAC, HOST4_MAC = ("00:00:00:00:00:01", "00:00:00:00:00:02",
                                              "00:00:00:00:00:03", "00:00:00:00:00:04")
HOST5_MAC, HOST6_MAC, HOST7_MAC, HOST8_MAC = ("00:00:00:00:00:05", "00:00:00:00:00:06",
                                              "00:00:00:00:00:07", "00:00:00:00:00:08")
UNKNOWN_MAC = "00:00:00:00:00:99"
PEER_MAC = "00:00:00:00:00:50"       # MPLS / routing neighbour on the core trunk
PEER2_MAC = "00:00:00:00:00:51"
BROADCAST_MAC = "ff:ff:ff:ff:ff:ff"

VLAN10, VLAN20, VLAN30, VLAN40 = 10, 20, 30, 40
ROUTER_IP10, ROUTER_IP20, ROUTER_IP40 = "10.0.10.1", "10.0.20.1", "10.0.40.1"
HOST1_IP, HOST2_IP = "10.0.10.11", "10.0.10.12"     # VLAN 10
HOST3_IP, HOST4_IP = "10.0.20.13", "10.0.20.14"     # VLAN 20
REMOTE_IP = "172.16.5.9"                             # behind the MPLS / routing peer


class Drop:
    """Drop reasons: index of ingress_drop_counter (I) / egress_drop_counter (E)."""
    PORT_NOT_CONFIGURED = 1
    TAGGED_ON_ACCESS = 2
    UNTAGGED_ON_TRUNK = 3
    VLAN_NOT_ALLOWED = 4
    PARSER_ERROR = 5
    HAIRPIN = 6
    IPV4_CHECKSUM = 7
    IPV4_INVALID = 8
    NO_ROUTE = 9
    ROUTE_BLACKHOLE = 10
    NEXTHOP_MISS = 11
    MTU_EXCEEDED = 12
    MPLS_TOO_DEEP = 13
    MPLS_UNKNOWN_LABEL = 14
    MPLS_TTL_EXPIRED = 15
    MPLS_UNSUPPORTED = 16
    L3_UNSUPPORTED = 17
    METER_RED = 18
    ACL_DENY = 19
    FIREWALL = 20
    EGRESS_VLAN_NOT_MEMBER = 21     # egress
    FLOOD_INGRESS_PORT = 22         # egress
    PW_UNKNOWN_LABEL = 23
    PW_UNSUPPORTED = 24
    PW_SPLIT_HORIZON = 25
    PW_FLOOD_MISS = 26              # egress
    NAT_EXHAUSTED = 27
    UNKNOWN_SOURCE = 28
    INNER_TAG_EXPOSED = 29          # egress
    FIREWALL_COLLISION = 30


EGRESS_DROPS = {Drop.EGRESS_VLAN_NOT_MEMBER, Drop.FLOOD_INGRESS_PORT, Drop.PW_FLOOD_MISS, Drop.INNER_TAG_EXPOSED}


class Reason:
    """packet_in.reason values."""
    TTL_EXPIRED = 1
    ROUTER_ADDRESS = 2
    ARP = 3
    IP_OPTIONS = 4
    MTU_EXCEEDED = 5
    ACL_PUNT = 6
    ACL_COPY = 7
    ROUTE_TO_CPU = 8


GREEN, YELLOW, RED = 0, 1, 2
UNIFORM, PIPE = 0, 1

# Connection slot states (registers *_state, docs/p4-program.md section 11).
CONN_FREE, CONN_OPEN, CONN_CLOSING = 0, 1, 2


def crc16_arc(data: bytes) -> int:
    """CRC-16/ARC (v1model's HashAlgorithm.crc16): poly 0x8005 reflected, init 0."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def ip_bytes(addr: str) -> bytes:
    return bytes(int(x) for x in addr.split("."))


# --- packet builders ------------------------------------------------------------------------


def udp_packet(eth_src: str, eth_dst: str, ip_src: str = HOST1_IP, ip_dst: str = HOST2_IP, *,
               vlan: int | None = None, ttl: int = 64, tos: int = 0, sport: int = 1234, dport: int = 80,
               flags: int | str = 0, size: int = 100, pcp: int = 0) -> Packet:
    """An Ethernet [802.1Q] IPv4 UDP frame; `size` bytes untagged (a tag adds 4)."""
    eth = Ether(src=eth_src, dst=eth_dst)
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan, prio=pcp)
    pkt = eth / IP(src=ip_src, dst=ip_dst, ttl=ttl, tos=tos, flags=flags, id=1) / UDP(sport=sport, dport=dport)
    pad = size - len(pkt) + (4 if vlan is not None else 0)   # size = untagged length
    return pkt / Raw(bytes(range(256)) * (max(pad, 0) // 256) + bytes(range(max(pad, 0) % 256)))


def tcp_packet(eth_src: str, eth_dst: str, ip_src: str, ip_dst: str, *, sport: int = 40000, dport: int = 80,
               tcp_flags: str = "S", ttl: int = 64, vlan: int | None = None, size: int = 100) -> Packet:
    """An Ethernet [802.1Q] IPv4 TCP frame; `size` bytes untagged."""
    eth = Ether(src=eth_src, dst=eth_dst)
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan)
    pkt = eth / IP(src=ip_src, dst=ip_dst, ttl=ttl, id=1) / TCP(sport=sport, dport=dport, flags=tcp_flags, seq=1)
    return pkt / Raw(b"\x5a" * max(size - len(pkt) + (4 if vlan is not None else 0), 0))


def routed(pkt: Packet, eth_src: str, eth_dst: str, *, vlan: int | None = None, ttl_dec: int = 1,
           tos: int | None = None) -> Packet:
    """What `pkt` looks like after one routing hop: new MACs, optional tag, TTL - 1, new checksum."""
    inner = pkt[IP].copy()
    inner.ttl -= ttl_dec
    if tos is not None:
        inner.tos = tos
    del inner.chksum
    eth = Ether(src=eth_src, dst=eth_dst)
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan)
    return eth / inner


def with_vlan(pkt: Packet, vlan: int | None, pcp: int = 0) -> Packet:
    """`pkt` (untagged Ethernet) re-tagged with `vlan` (None: untagged)."""
    eth = pkt[Ether]
    payload = eth.payload.copy()
    if isinstance(payload, Dot1Q):
        payload = payload.payload.copy()
    out = Ether(src=eth.src, dst=eth.dst)
    if vlan is not None:
        out = out / Dot1Q(vlan=vlan, prio=pcp)
    return out / payload


def mpls_packet(eth_src: str, eth_dst: str, labels: list[tuple[int, int, int]], inner: Packet,
                vlan: int | None = None) -> Packet:
    """Ethernet [802.1Q] MPLS frame; labels = [(label, exp, ttl)], top first; inner = IPv4 packet."""
    eth = Ether(src=eth_src, dst=eth_dst)
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan, type=0x8847)
    else:
        eth.type = 0x8847
    pkt = eth
    for i, (label, exp, ttl) in enumerate(labels):
        pkt = pkt / MPLS(label=label, cos=exp, s=int(i == len(labels) - 1), ttl=ttl)
    return pkt / inner


# --- the P4Runtime connection (one per PTF run) -------------------------------------------

_SWITCH: Switch | None = None


def switch() -> Switch:
    """The suite's P4Runtime connection: primary controller, pipeline pushed once per run."""
    global _SWITCH
    if _SWITCH is None:
        addr = tu.test_param_get("grpc_addr", "127.0.0.1:9559")
        p4info = tu.test_param_get("p4info")
        json_path = tu.test_param_get("json")
        if not p4info or not json_path:
            raise RuntimeError("test params p4info=... and json=... are required (see ptf-tests/README.md)")
        sw = Switch(addr, device_id=int(tu.test_param_get("device_id", 0)), election_id=10)
        sw.connect(timeout=20)
        sw.wait_primary()
        sw.set_pipeline(p4info, json_path)
        _SWITCH = sw
    return _SWITCH


# --- the base test ------------------------------------------------------------------------


class VrouterTest(BaseTest):
    """Connects as primary, records every write and undoes it after the test (see module doc)."""

    def setUp(self) -> None:
        super().setUp()
        self.dataplane = ptf.dataplane_instance
        self.sw = switch()
        self._undo: list[tuple[str, Entity]] = []   # ("delete" | "reset_meter", entity)
        # A cleanup, not tearDown: it also runs when a subclass's setUp fails half-way.
        self.addCleanup(self._undo_writes)
        self.dataplane.flush()
        for q in (self.sw.packet_in_queue, self.sw.digest_queue):
            while not q.empty():
                q.get_nowait()
        self._drops0 = {
            "ingress_drop_counter": self.counter_array("ingress_drop_counter"),
            "egress_drop_counter": self.counter_array("egress_drop_counter"),
        }

    def _undo_writes(self) -> None:
        """Undo every recorded write in reverse order; fail if anything is left on the switch."""
        errors = []
        for how, entity in reversed(self._undo):
            try:
                if how == "delete":
                    # A digest config is deleted by its id alone.
                    self.sw.delete(DigestEntry(entity.digest) if isinstance(entity, DigestEntry) else entity)
                else:
                    self.reset_meter(entity)
            except Exception as exc:  # keep undoing the rest
                errors.append(f"{how} {entity.describe()}: {exc}")
        self._undo.clear()
        leftovers = [e.describe() for e in self.sw.read(TableEntry()) if not (e.is_default or e.is_const)]
        leftovers += [f"group {g.group_id}" for g in self.sw.read(ActionProfileGroup("ecmp_selector"))]
        leftovers += [f"member {m.member_id}" for m in self.sw.read(ActionProfileMember("ecmp_selector"))]
        if leftovers:
            self.sw.delete_all()
        self.dataplane.flush()
        if errors or leftovers:
            raise AssertionError("cleanup incomplete: " + "; ".join(errors + leftovers))

    # --- writes (recorded) ------------------------------------------------------------------

    def insert(self, *entities: Entity) -> None:
        """INSERT entities (in order); each one that succeeded is deleted after the test."""
        entities = list(entities)
        try:
            self.sw.insert(entities)
        except P4RuntimeWriteError as err:
            failed = {f.index for f in err.errors}
            self._undo += [("delete", e) for i, e in enumerate(entities) if i not in failed]
            raise
        self._undo += [("delete", e) for e in entities]

    def table_add(self, table: str, match: dict[str, Any], action: str, params: dict[str, Any] | None = None,
                  priority: int = 0) -> TableEntry:
        """Insert one direct table entry."""
        entry = TableEntry(table, match, Action(action, params or {}), priority=priority)
        self.insert(entry)
        return entry

    def set_meter(self, meter: str, index: int, cir: int, cburst: int, pir: int, pburst: int) -> None:
        """Configure an indexed meter cell (rates per second, bursts in bytes); reset in tearDown."""
        self.sw.modify(MeterEntry(meter, index, MeterConfig(cir, cburst, pir, pburst)))
        self._undo.append(("reset_meter", MeterEntry(meter, index)))

    def reset_meter(self, entry: MeterEntry) -> None:
        """Back to unconfigured: MODIFY without config (P4Runtime 1.3+), else all four values -1."""
        try:
            self.sw.modify(MeterEntry(entry.meter, entry.index))
        except P4RuntimeWriteError:
            self.sw.modify(MeterEntry(entry.meter, entry.index, MeterConfig(-1, -1, -1, -1)))

    # --- set-up helpers for the network objects (docs/p4-program.md section 13) ------------

    def setup_ports(self, access: dict[int, int] | None = None,
                    trunks: dict[int, tuple[Iterable[int], int]] | None = None) -> None:
        """Access ports {port: vlan} and trunks {port: (allowed vlans, native vlan or 0)}, with
        their egress memberships and one multicast group per VLAN (all member ports)."""
        access, trunks = access or {}, trunks or {}
        entries: list[Entity] = []
        groups: dict[int, list[int]] = {}
        for port, vlan in sorted(access.items()):
            entries.append(TableEntry("port_config", {"ingress_port": port}, Action("set_access_port", {"vlan_id": vlan})))
            entries.append(TableEntry("egress_vlan_member", {"egress_port": port, "vlan_id": vlan}, Action("untag_vlan")))
            groups.setdefault(vlan, []).append(port)
        for port, (vlans, native) in sorted(trunks.items()):
            entries.append(TableEntry("port_config", {"ingress_port": port},
                                      Action("set_trunk_port", {"native_vlan_id": native})))
            for vlan in vlans:
                entries.append(TableEntry("ingress_vlan_member", {"ingress_port": port, "vlan_id": vlan},
                                          Action("allow_vlan")))
                entries.append(TableEntry("egress_vlan_member", {"egress_port": port, "vlan_id": vlan},
                                          Action("tag_vlan")))
                groups.setdefault(vlan, []).append(port)
            if native:
                entries.append(TableEntry("egress_vlan_member", {"egress_port": port, "vlan_id": native},
                                          Action("untag_vlan")))
                groups.setdefault(native, []).append(port)
        entries += [MulticastGroupEntry(vlan, [Replica(p) for p in sorted(ports)]) for vlan, ports in sorted(groups.items())]
        self.insert(*entries)

    def setup_cpu_port(self, native_vlan: int, vlans: Iterable[int] = ()) -> None:
        """port_config for CPU_PORT (packet-outs submitted to ingress): a trunk with a native
        VLAN; not a member of any flood group (the CPU gets no flood copies)."""
        self.insert(TableEntry("port_config", {"ingress_port": CPU_PORT},
                               Action("set_trunk_port", {"native_vlan_id": native_vlan})),
                    *[TableEntry("ingress_vlan_member", {"ingress_port": CPU_PORT, "vlan_id": v}, Action("allow_vlan"))
                      for v in vlans])

    def add_station(self, vlan: int, mac: str, port: int) -> None:
        """A known station: l2_learning (no digest) and l2_unicast (forwarding)."""
        self.insert(TableEntry("l2_learning", {"vlan_id": vlan, "src_mac": mac, "ingress_port": port},
                               Action("station_known")),
                    TableEntry("l2_unicast", {"vlan_id": vlan, "dst_mac": mac}, Action("set_output_port", {"port": port})))

    def add_router_interface(self, vlan: int, address: str, mtu: int | None = None, mac: str = ROUTER_MAC) -> None:
        """An SVI: router MAC on the VLAN, the router's address punted, optional MTU."""
        entries: list[Entity] = [TableEntry("router_mac", {"vlan_id": vlan, "dst_mac": mac}, Action("admit_to_l3")),
                                 TableEntry("router_address", {"ipv4_addr": address}, Action("router_address_hit"))]
        if mtu is not None:
            entries.append(TableEntry("interface_mtu", {"vlan_id": vlan}, Action("set_mtu", {"mtu": mtu})))
        self.insert(*entries)

    def add_nexthop(self, nexthop_id: int, port: int, vlan: int, dst_mac: str, src_mac: str = ROUTER_MAC, *,
                    labels: tuple[int, ...] = (), ttl_mode: int = UNIFORM, table_entry: bool = True) -> None:
        """A next hop: an ecmp_selector member (id = nexthop_id) and, unless told otherwise, a
        nexthop_table entry pointing at it. `labels` (top first) makes it an MPLS push."""
        params = {"port": port, "vlan_id": vlan, "dst_mac": dst_mac, "src_mac": src_mac}
        if len(labels) == 1:
            action = Action("set_nexthop_push1", {**params, "label": labels[0], "ttl_mode": ttl_mode})
        elif len(labels) == 2:
            action = Action("set_nexthop_push2", {**params, "outer_label": labels[0], "inner_label": labels[1],
                                                  "ttl_mode": ttl_mode})
        else:
            action = Action("set_nexthop", params)
        self.insert(ActionProfileMember("ecmp_selector", nexthop_id, action))
        if table_entry:
            self.insert(TableEntry("nexthop_table", {"nexthop_id": nexthop_id}, member_id=nexthop_id))

    def add_ecmp_group(self, nexthop_id: int, group_id: int, member_ids: Iterable[int]) -> None:
        """An ECMP group of existing members, reachable as next-hop id `nexthop_id`."""
        self.insert(ActionProfileGroup("ecmp_selector", group_id, list(member_ids), max_size=16),
                    TableEntry("nexthop_table", {"nexthop_id": nexthop_id}, group_id=group_id))

    def add_route(self, prefix: str, nexthop_id: int | None = None, action: str | None = None) -> None:
        """An ipv4_route entry: to a next hop, or another route action (route_to_cpu, drop_route)."""
        if nexthop_id is not None:
            self.table_add("ipv4_route", {"ipv4_dst": prefix}, "route_to_nexthop", {"nexthop_id": nexthop_id})
        else:
            self.table_add("ipv4_route", {"ipv4_dst": prefix}, action or "route_to_cpu")

    def route_host1_and_host3(self) -> None:
        """Host 1 on port 1 in VLAN 10 and host 3 on port 3 in VLAN 20, each behind a router
        interface, with a /32 route and a next hop to each (the two-VLAN routed set-up)."""
        self.setup_ports({1: VLAN10, 3: VLAN20})
        self.add_router_interface(VLAN10, ROUTER_IP10)
        self.add_router_interface(VLAN20, ROUTER_IP20)
        self.add_nexthop(1, 1, VLAN10, HOST1_MAC)
        self.add_nexthop(3, 3, VLAN20, HOST3_MAC)
        self.add_route(f"{HOST1_IP}/32", 1)
        self.add_route(f"{HOST3_IP}/32", 3)

    def add_acl(self, priority: int, match: dict[str, Any], action: str,
                params: dict[str, Any] | None = None) -> TableEntry:
        """An ingress ACL rule (higher priority wins)."""
        return self.table_add("acl_ingress_table", match, action, params, priority=priority)

    def add_cpu_clone_session(self) -> None:
        """Clone session 511 -> CPU port (for copy_to_cpu)."""
        self.insert(CloneSessionEntry(CPU_CLONE_SESSION, [Replica(CPU_PORT)]))

    def enable_learning_digest(self) -> None:
        """Digest config for mac_learn_digest_t: one digest per list, sent at once."""
        self.insert(DigestEntry("mac_learn_digest_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=10**9))

    # --- counters -----------------------------------------------------------------------------

    def counter(self, name: str, index: int) -> CounterData:
        """One cell of an indexed counter."""
        for entry in self.sw.read(CounterEntry(name, index)):
            return entry.data or CounterData()
        raise AssertionError(f"counter {name}[{index}] could not be read")

    def counter_array(self, name: str) -> dict[int, int]:
        """Packet counts of every cell of an indexed counter."""
        return {e.index: (e.data.packets if e.data else 0) for e in self.sw.read(CounterEntry(name))}

    def wait_counter(self, name: str, index: int, packets: int, timeout: float = 2.0) -> CounterData:
        """Poll a counter cell until it holds `packets` packets; fail with the last value otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            data = self.counter(name, index)
            if data.packets == packets or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(data.packets, packets, f"{name}[{index}] packets")
        return data

    def register(self, name: str, index: int) -> int:
        """One register cell's value."""
        [entry] = self.sw.read(RegisterEntry(name, index))
        return entry.value

    def assert_register(self, name: str, index: int, value: int, msg: str | None = None) -> None:
        """A register cell holds `value`.  A server without P4Runtime register reads (BMv2's PI
        answers UNIMPLEMENTED) cannot show it: that one check is reported and left out, the
        test's packet checks still decide (ptf-tests/README.md)."""
        try:
            got = self.register(name, index)
        except P4RuntimeError as exc:
            if exc.code != grpc.StatusCode.UNIMPLEMENTED:
                raise
            print(f"\n{self.id()}: register check {name}[{index}] == {value} not made: {exc.message}",
                  file=sys.stderr)
            return
        self.assertEqual(got, value, msg)

    def direct_counter(self, entry: TableEntry) -> CounterData:
        """The direct counter of a table entry (read with the entry)."""
        for e in self.sw.read(DirectCounterEntry(TableEntry(entry.table, entry.match, priority=entry.priority))):
            return e.data or CounterData()
        raise AssertionError(f"direct counter of {entry.describe()} could not be read")

    def assert_drops(self, drops: dict[int, int], timeout: float = 2.0) -> None:
        """Drop counters rose by exactly these numbers since setUp ({reason: packets})."""
        for reason, n in drops.items():
            name = "egress_drop_counter" if reason in EGRESS_DROPS else "ingress_drop_counter"
            self.wait_counter(name, reason, self._drops0[name].get(reason, 0) + n, timeout)

    def assert_no_drops(self, *reasons: int) -> None:
        """These drop counters did not move since setUp."""
        for reason in reasons:
            name = "egress_drop_counter" if reason in EGRESS_DROPS else "ingress_drop_counter"
            self.assertEqual(self.counter(name, reason).packets, self._drops0[name].get(reason, 0),
                             f"{name}[{reason}] moved")

    # --- packets ------------------------------------------------------------------------------

    def send(self, port: int, pkt: Packet | bytes) -> None:
        tu.send_packet(self, port, bytes(pkt))

    def expect(self, port: int, pkt: Packet | bytes) -> None:
        tu.verify_packet(self, bytes(pkt) if isinstance(pkt, (bytes, bytearray)) else pkt, port)

    def expect_only(self, outputs: dict[int, Packet | bytes] | None = None) -> None:
        """Each {port: packet} arrives, and nothing else on any port."""
        for port, pkt in sorted((outputs or {}).items()):
            tu.verify_packet(self, pkt, port)
        tu.verify_no_other_packets(self)

    def packet_in(self, timeout: float = 2.0) -> PacketIn:
        """The next packet-in, or fail."""
        for pkt in self.sw.packet_ins(timeout=timeout):
            return pkt
        self.fail(f"no packet-in within {timeout} s")

    def expect_packet_in(self, pkt: Packet | bytes, ingress_port: int, reason: int, vlan_id: int | None = None) -> PacketIn:
        """The next packet-in carries exactly `pkt`, with these packet_in header fields."""
        got = self.packet_in()
        self.assertEqual(got.metadata.get("reason"), reason, f"packet_in.reason (metadata {got.metadata})")
        self.assertEqual(got.metadata.get("ingress_port"), ingress_port, "packet_in.ingress_port")
        if vlan_id is not None:
            self.assertEqual(got.metadata.get("vlan_id"), vlan_id, "packet_in.vlan_id")
        self.assertEqual(got.payload.hex(), bytes(pkt).hex(), "packet-in payload")
        return got

    def expect_no_packet_in(self, timeout: float = 0.3) -> None:
        for pkt in self.sw.packet_ins(timeout=timeout):
            self.fail(f"unexpected packet-in {pkt.metadata}: {pkt.payload.hex()}")


# --- table-driven cases -------------------------------------------------------------------


def generate_cases(namespace: dict, base: type, cases: Iterable[Any], prefix: str) -> None:
    """One PTF test class per case, named `<prefix><case.id>`, running `base.run_case(case)`.

    The base class itself has no runTest, so PTF lists only the generated cases.
    """
    for case in cases:
        name = prefix + case.id
        namespace[name] = type(name, (base,), {
            "case": case,
            "runTest": lambda self: self.run_case(self.case),
            "__doc__": getattr(case, "doc", "") or f"{prefix}{case.id}",
            "__module__": namespace["__name__"],
        })
