"""Stateful zone firewall (docs/p4-program.md section 11): VLAN 10 is the trusted zone 1,
VLAN 20 the untrusted zone 2; routed traffic between them. Replies from the untrusted
side pass only for TCP, UDP and ICMP echo flows the trusted side opened.

The state must be unforgeable (issue 17 Must 3): the attacker cases build replies whose
key lands in an open flow's slot with the very CRC16 slot and CRC32 signature the
previous program compared (solved over GF(2): CRCs are linear), or whose signature is 0
in a never-used slot, and open colliding flows on purpose; none of them passes.

Ports: 1 access VLAN 10 (host 1, trusted), 3 access VLAN 20 (host 3, untrusted).
Each test uses its own L4 ports, because connection state outlives a test (registers).
"""
from __future__ import annotations

import struct
import time
import zlib
from dataclasses import dataclass

from scapy.layers.inet import ICMP, IP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from base import (CONN_CLOSING, CONN_FREE, CONN_OPEN, HOST1_IP, HOST1_MAC, HOST3_IP, HOST3_MAC, ROUTER_MAC,
                  VLAN10, VLAN20, Drop, VrouterTest, crc16_arc, generate_cases, ip_bytes, routed, tcp_packet,
                  udp_packet)

TRUSTED, UNTRUSTED = 1, 2
FIREWALL_CONN_SLOTS = 65536
TCP_CLOSING_TIMEOUT_S = 10
PROTO = {"udp": 17, "tcp": 6, "icmp": 1}


def flow_key(client: str, server: str, proto: str, client_port: int, server_port: int) -> bytes:
    """The firewall's flow key, in the trusted side's direction, as the data plane hashes it."""
    return ip_bytes(client) + ip_bytes(server) + bytes([PROTO[proto]]) + struct.pack("!HH", client_port, server_port)


def slot_of(key: bytes) -> int:
    return crc16_arc(key) % FIREWALL_CONN_SLOTS


def forge(key: bytes, free_bits: list[int], *, crc16: int | None = None, crc32: int | None = None) -> bytes:
    """Another key, differing from `key` only in `free_bits` (bit 0 = MSB of byte 0), whose
    crc16 and/or crc32 are the ones asked for. CRCs are affine in the data, so this is a
    linear system over GF(2), solved by Gaussian elimination; of its solutions one other
    than `key` itself is returned. Raises if there is none."""
    def image(k: bytes) -> int:
        out = 0
        if crc16 is not None:
            out = crc16_arc(k)
        if crc32 is not None:
            out = (out << 32) | zlib.crc32(k)
        return out

    want = ((crc16 or 0) << 32 | (crc32 or 0)) if crc16 is not None and crc32 is not None else \
        (crc16 if crc16 is not None else crc32)
    base = image(key)
    target = base ^ want
    basis: dict[int, tuple[int, int]] = {}     # pivot bit -> (image, combination of free bits)
    kernel = []                                # combinations whose image is 0
    for i, bit in enumerate(free_bits):
        k = bytearray(key)
        k[bit // 8] ^= 0x80 >> (bit % 8)
        img, combo = image(bytes(k)) ^ base, 1 << i
        for pivot in sorted(basis, reverse=True):
            if img >> pivot & 1:
                img, combo = img ^ basis[pivot][0], combo ^ basis[pivot][1]
        if img:
            basis[img.bit_length() - 1] = (img, combo)
        else:
            kernel.append(combo)
    combo = 0
    for pivot in sorted(basis, reverse=True):
        if target >> pivot & 1:
            target, combo = target ^ basis[pivot][0], combo ^ basis[pivot][1]
    if target:
        raise ValueError("no key with these CRCs in the free bits")
    if combo == 0:
        if not kernel:
            raise ValueError("only the key itself has these CRCs")
        combo = kernel[0]
    out = bytearray(key)
    for i, bit in enumerate(free_bits):
        if combo >> i & 1:
            out[bit // 8] ^= 0x80 >> (bit % 8)
    return bytes(out)


CLIENT_PORT_BITS, SERVER_PORT_BITS, SERVER_ADDR_BITS = list(range(72, 88)), list(range(88, 104)), list(range(32, 64))


def unpack_key(key: bytes) -> tuple[str, str, int, int, int]:
    client = ".".join(str(b) for b in key[0:4])
    server = ".".join(str(b) for b in key[4:8])
    client_port, server_port = struct.unpack("!HH", key[9:13])
    return client, server, key[8], client_port, server_port


class FirewallTest(VrouterTest):
    def setUp(self) -> None:
        super().setUp()
        self.route_host1_and_host3()
        for vlan, zone in ((VLAN10, TRUSTED), (VLAN20, UNTRUSTED)):
            self.table_add("firewall_src_zone", {"vlan_id": vlan}, "set_src_zone", {"zone": zone})
            self.table_add("firewall_dst_zone", {"vlan_id": vlan}, "set_dst_zone", {"zone": zone})
        self.table_add("firewall_policy", {"src_zone": TRUSTED, "dst_zone": UNTRUSTED}, "track_connection")
        self.table_add("firewall_policy", {"src_zone": UNTRUSTED, "dst_zone": TRUSTED}, "allow_established")

    def out_of_1(self, pkt):      # trusted -> untrusted, as it leaves on port 3
        return routed(pkt, ROUTER_MAC, HOST3_MAC)

    def out_of_3(self, pkt):      # untrusted -> trusted, as it leaves on port 1
        return routed(pkt, ROUTER_MAC, HOST1_MAC)


@dataclass
class Flow:
    id: str
    doc: str
    proto: str       # udp | tcp
    client_port: int
    server_port: int


FLOWS = [Flow("Udp", "UDP (DNS-like) flow", "udp", 41000, 53), Flow("Tcp", "TCP flow", "tcp", 42000, 443)]


class FirewallReplyAfterOpen(FirewallTest):
    def packets(self, c: Flow, sport_offset: int = 0):
        if c.proto == "udp":
            req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=c.client_port + sport_offset,
                             dport=c.server_port)
            rep = udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=c.server_port,
                             dport=c.client_port + sport_offset)
        else:
            req = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=c.client_port + sport_offset,
                             dport=c.server_port, tcp_flags="S")
            rep = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=c.server_port,
                             dport=c.client_port + sport_offset, tcp_flags="SA")
        return req, rep

    def run_case(self, c: Flow) -> None:
        req, rep = self.packets(c)
        # 1. The reply before the trusted side opened the flow: dropped.
        self.send(3, rep)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})
        # 2. The trusted side opens the flow: forwarded.
        self.send(1, req)
        self.expect_only({3: self.out_of_1(req)})
        # 3. Now the reply passes, repeatedly.
        for _ in range(2):
            self.send(3, rep)
            self.expect_only({1: self.out_of_3(rep)})
        # 4. A reply to another client port (a flow never opened) is still dropped.
        _, other = self.packets(c, sport_offset=1)
        self.send(3, other)
        self.expect_only({})
        # 5. The same ports but the other protocol is another flow: dropped.
        flipped = Flow("", "", "tcp" if c.proto == "udp" else "udp", c.client_port, c.server_port)
        self.send(3, self.packets(flipped)[1])
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 3})


generate_cases(globals(), FirewallReplyAfterOpen, FLOWS, "Firewall")


def icmp(src_mac: str, src: str, dst: str, icmp_type: int, ident: int = 0):
    return (Ether(src=src_mac, dst=ROUTER_MAC) / IP(src=src, dst=dst, id=1)
            / ICMP(type=icmp_type, id=ident, seq=1) / Raw(b"\0" * 32))


class FirewallIcmpEcho(FirewallTest):
    """ICMP echo is tracked by its identifier: a reply passes only for a request the trusted
    side sent; an echo request or any other ICMP from the untrusted side is dropped."""

    def runTest(self) -> None:
        request = icmp(HOST1_MAC, HOST1_IP, HOST3_IP, 8, ident=77)
        reply = icmp(HOST3_MAC, HOST3_IP, HOST1_IP, 0, ident=77)
        self.send(3, reply)                                   # before the request: dropped
        self.expect_only({})
        self.send(1, request)
        self.expect_only({3: self.out_of_1(request)})
        self.send(3, reply)
        self.expect_only({1: self.out_of_3(reply)})
        for bad in (icmp(HOST3_MAC, HOST3_IP, HOST1_IP, 0, ident=78),      # another identifier
                    icmp(HOST3_MAC, HOST3_IP, HOST1_IP, 8, ident=77),      # a request from outside
                    icmp(HOST3_MAC, HOST3_IP, HOST1_IP, 3)):               # destination unreachable
            self.send(3, bad)
            self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 4})
        slot = slot_of(flow_key(HOST1_IP, HOST3_IP, "icmp", 77, 0))
        self.assert_register("firewall_conn_state", slot, CONN_OPEN)
        self.assert_register("firewall_conn_proto", slot, 1)


class FirewallNewFlowFromUntrustedDropped(FirewallTest):
    """The untrusted side cannot open a flow: its SYN is dropped, and the trusted host's
    answer does not open the way back for it."""

    def runTest(self) -> None:
        syn = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=43000, dport=22, tcp_flags="S")
        self.send(3, syn)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})


class FirewallPolicyCounter(FirewallTest):
    """firewall_policy_counter counts the packets each zone pair saw."""

    def runTest(self) -> None:
        from p4rt import TableEntry
        track = TableEntry("firewall_policy", {"src_zone": TRUSTED, "dst_zone": UNTRUSTED})
        allow = TableEntry("firewall_policy", {"src_zone": UNTRUSTED, "dst_zone": TRUSTED})
        req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=44000, dport=123)
        rep = udp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=123, dport=44000)
        self.send(1, req)
        self.expect(3, self.out_of_1(req))
        self.send(3, rep)
        self.expect(1, self.out_of_3(rep))
        self.send(3, rep)
        self.expect_only({1: self.out_of_3(rep)})
        self.assertEqual(self.direct_counter(track).packets, 1, "track_connection hits")
        self.assertEqual(self.direct_counter(allow).packets, 2, "allow_established hits")


class FirewallStateTest(FirewallTest):
    def udp_flow(self, client_port: int, server_port: int, *, server: str = HOST3_IP):
        req = udp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, server, sport=client_port, dport=server_port)
        rep = udp_packet(HOST3_MAC, ROUTER_MAC, server, HOST1_IP, sport=server_port, dport=client_port)
        return req, rep


class FirewallForgedReplyDropped(FirewallStateTest):
    """An attacker who knows an open flow's slot and signature: a reply from another
    (spoofed) address and ports whose key has the same CRC16 slot and the same CRC32
    as the open flow's key (what the previous program stored and compared) is dropped:
    the slot holds the whole key. The open flow's own reply still passes."""

    def runTest(self) -> None:
        req, rep = self.udp_flow(45001, 53)
        self.send(1, req)
        self.expect_only({3: self.out_of_1(req)})
        key = flow_key(HOST1_IP, HOST3_IP, "udp", 45001, 53)
        forged = forge(key, SERVER_ADDR_BITS + CLIENT_PORT_BITS + SERVER_PORT_BITS,
                       crc16=crc16_arc(key), crc32=zlib.crc32(key))
        self.assertNotEqual(forged, key)
        client, server, _, client_port, server_port = unpack_key(forged)
        self.assertEqual((client, slot_of(forged), zlib.crc32(forged)), (HOST1_IP, slot_of(key), zlib.crc32(key)))
        fake = udp_packet(HOST3_MAC, ROUTER_MAC, server, HOST1_IP, sport=server_port, dport=client_port)
        self.send(3, fake)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})
        self.send(3, rep)
        self.expect_only({1: self.out_of_3(rep)})


class FirewallEmptySlotMatchesNothing(FirewallStateTest):
    """A reply for a flow nobody opened, whose key lands in a never-used slot with CRC32 0
    (the signature an empty slot held before), is dropped: an empty slot is CONN_FREE and
    matches nothing."""

    def runTest(self) -> None:
        key = flow_key(HOST1_IP, "198.51.100.7", "udp", 45002, 53)
        forged = forge(key, CLIENT_PORT_BITS + SERVER_PORT_BITS, crc32=0)
        client, server, _, client_port, server_port = unpack_key(forged)
        self.assertEqual(zlib.crc32(forged), 0)
        self.assert_register("firewall_conn_state", slot_of(forged), CONN_FREE)
        fake = udp_packet(HOST3_MAC, ROUTER_MAC, server, client, sport=server_port, dport=client_port)
        self.send(3, fake)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})


class FirewallCollidingFlowsCounted(FirewallStateTest):
    """Two trusted flows opened on purpose into one slot: the second is dropped and counted
    (FIREWALL_COLLISION) instead of overwriting the first, whose replies keep passing; the
    second flow's reply, never admitted, is dropped."""

    def runTest(self) -> None:
        first_req, first_rep = self.udp_flow(45003, 5353)
        key = flow_key(HOST1_IP, HOST3_IP, "udp", 45003, 5353)
        slot = slot_of(key)
        _, _, _, client_port, server_port = unpack_key(forge(key, CLIENT_PORT_BITS + SERVER_PORT_BITS,
                                                             crc16=crc16_arc(key)))
        second_req, second_rep = self.udp_flow(client_port, server_port)
        self.send(1, first_req)
        self.expect_only({3: self.out_of_1(first_req)})
        self.send(1, second_req)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL_COLLISION: 1})
        self.send(3, first_rep)
        self.expect_only({1: self.out_of_3(first_rep)})
        self.send(3, second_rep)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})
        self.assert_register("firewall_conn_client_port", slot, 45003, "the slot still holds flow 1")


class FirewallTcpRstCloses(FirewallStateTest):
    """A TCP RST (from either side) passes and closes the flow at once: the slot is free
    and a later reply is dropped until the trusted side opens the flow again."""

    def runTest(self) -> None:
        for rst_from in (1, 3):
            client_port = 45010 + rst_from
            syn = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=client_port, dport=443, tcp_flags="S")
            synack = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=443, dport=client_port,
                                tcp_flags="SA")
            ack = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=443, dport=client_port, tcp_flags="A")
            if rst_from == 1:
                rst = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=client_port, dport=443,
                                 tcp_flags="R")
                rst_out = {3: self.out_of_1(rst)}
            else:
                rst = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=443, dport=client_port,
                                 tcp_flags="R")
                rst_out = {1: self.out_of_3(rst)}
            slot = slot_of(flow_key(HOST1_IP, HOST3_IP, "tcp", client_port, 443))
            self.send(1, syn)
            self.expect_only({3: self.out_of_1(syn)})
            self.send(3, synack)
            self.expect_only({1: self.out_of_3(synack)})
            self.assert_register("firewall_conn_state", slot, CONN_OPEN)
            self.send(rst_from, rst)
            self.expect_only(rst_out)
            self.assert_register("firewall_conn_state", slot, CONN_FREE)
            self.send(3, ack)
            self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 2})


class FirewallTcpFinTimesOut(FirewallStateTest):
    """After a FIN the flow is closing: the other side's FIN and ACK still pass, and
    TCP_CLOSING_TIMEOUT (10 s) after the last packet its replies are dropped, where an
    open TCP flow would live 300 s (timeouts per protocol and state)."""

    def runTest(self) -> None:
        syn = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=45020, dport=80, tcp_flags="S")
        fin = tcp_packet(HOST1_MAC, ROUTER_MAC, HOST1_IP, HOST3_IP, sport=45020, dport=80, tcp_flags="FA")
        finack = tcp_packet(HOST3_MAC, ROUTER_MAC, HOST3_IP, HOST1_IP, sport=80, dport=45020, tcp_flags="FA")
        slot = slot_of(flow_key(HOST1_IP, HOST3_IP, "tcp", 45020, 80))
        self.send(1, syn)
        self.expect_only({3: self.out_of_1(syn)})
        self.send(1, fin)
        self.expect_only({3: self.out_of_1(fin)})
        self.assert_register("firewall_conn_state", slot, CONN_CLOSING)
        self.send(3, finack)
        self.expect_only({1: self.out_of_3(finack)})
        time.sleep(TCP_CLOSING_TIMEOUT_S + 0.5)
        self.send(3, finack)
        self.expect_only({})
        self.assert_drops({Drop.FIREWALL: 1})
