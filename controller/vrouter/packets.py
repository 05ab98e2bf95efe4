"""The few frames the router daemon reads and writes: Ethernet, 802.1Q, ARP, IPv4, ICMP."""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

ETH_IPV4, ETH_ARP, ETH_VLAN = 0x0800, 0x0806, 0x8100
BROADCAST = "ff:ff:ff:ff:ff:ff"


def mac_bytes(mac: str) -> bytes:
    """`aa:bb:..` to 6 bytes."""
    return bytes.fromhex(mac.replace(":", ""))


def mac_text(data: bytes) -> str:
    """6 bytes to `aa:bb:..`."""
    return ":".join(f"{b:02x}" for b in data)


def ethernet(dst: str, src: str, ether_type: int, payload: bytes, vlan: int | None = None) -> bytes:
    """An Ethernet frame, 802.1Q-tagged when `vlan` is given, padded to 60 bytes."""
    head = mac_bytes(dst) + mac_bytes(src)
    if vlan is not None:
        head += struct.pack("!HH", ETH_VLAN, vlan & 0xFFF)
    frame = head + struct.pack("!H", ether_type) + payload
    return frame + bytes(max(0, 60 - len(frame)))


@dataclass
class Frame:
    """A parsed untagged Ethernet frame."""

    dst: str
    src: str
    ether_type: int
    payload: bytes

    @classmethod
    def parse(cls, data: bytes) -> Frame | None:
        """None if shorter than an Ethernet header."""
        if len(data) < 14:
            return None
        ether_type = struct.unpack_from("!H", data, 12)[0]
        offset = 14
        while ether_type == ETH_VLAN and len(data) >= offset + 4:   # tolerate a tag
            ether_type = struct.unpack_from("!H", data, offset + 2)[0]
            offset += 4
        return cls(mac_text(data[0:6]), mac_text(data[6:12]), ether_type, data[offset:])


@dataclass
class Arp:
    """An IPv4-over-Ethernet ARP packet."""

    op: int
    sender_mac: str
    sender_ip: ipaddress.IPv4Address
    target_mac: str
    target_ip: ipaddress.IPv4Address

    @classmethod
    def parse(cls, data: bytes) -> Arp | None:
        """None unless Ethernet/IPv4 ARP."""
        if len(data) < 28:
            return None
        htype, ptype, hlen, plen, op = struct.unpack_from("!HHBBH", data)
        if (htype, ptype, hlen, plen) != (1, ETH_IPV4, 6, 4):
            return None
        return cls(op, mac_text(data[8:14]), ipaddress.IPv4Address(data[14:18]), mac_text(data[18:24]),
                   ipaddress.IPv4Address(data[24:28]))

    def encode(self) -> bytes:
        """The 28-byte ARP body."""
        return struct.pack("!HHBBH", 1, ETH_IPV4, 6, 4, self.op) + mac_bytes(self.sender_mac) + \
            self.sender_ip.packed + mac_bytes(self.target_mac) + self.target_ip.packed


def checksum(data: bytes) -> int:
    """The Internet checksum."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


@dataclass
class Ipv4:
    """An IPv4 packet (header fields the daemon needs, and the payload)."""

    src: ipaddress.IPv4Address
    dst: ipaddress.IPv4Address
    protocol: int
    ttl: int
    payload: bytes
    header: bytes

    @classmethod
    def parse(cls, data: bytes) -> Ipv4 | None:
        """None unless a well-formed IPv4 header."""
        if len(data) < 20 or data[0] >> 4 != 4:
            return None
        ihl = (data[0] & 0xF) * 4
        total = struct.unpack_from("!H", data, 2)[0]
        if ihl < 20 or len(data) < ihl or total < ihl:
            return None
        return cls(ipaddress.IPv4Address(data[12:16]), ipaddress.IPv4Address(data[16:20]), data[9], data[8],
                   data[ihl:total], data[:ihl])


def ipv4(src: ipaddress.IPv4Address, dst: ipaddress.IPv4Address, protocol: int, payload: bytes,
         ttl: int = 64) -> bytes:
    """An IPv4 packet with a correct header checksum."""
    head = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0x4000, ttl, protocol, 0,
                       src.packed, dst.packed)
    return head[:10] + struct.pack("!H", checksum(head)) + head[12:] + payload


def icmp(kind: int, code: int, rest: bytes, body: bytes) -> bytes:
    """An ICMP message: type, code, 4 bytes of `rest` (id/seq or unused), body."""
    msg = struct.pack("!BBH", kind, code, 0) + rest + body
    return msg[:2] + struct.pack("!H", checksum(msg)) + msg[4:]


def arp_problem(arp: Arp, frame_src: str, interface_address: ipaddress.IPv4Interface) -> str | None:
    """Why an ARP packet must not teach the router anything (None if it may).

    The sender MAC must be a unicast station's (not multicast, broadcast or zero) and the
    frame's source; the sender IP a host of the interface's subnet, not the router itself.
    """
    mac = mac_bytes(arp.sender_mac)
    if mac[0] & 1:
        return "multicast_sender_mac"
    if mac == bytes(6):
        return "zero_sender_mac"
    if arp.sender_mac != frame_src:
        return "sender_mac_not_frame_source"
    subnet = interface_address.network
    if arp.sender_ip not in subnet:
        return "sender_outside_subnet"
    if subnet.prefixlen < 31 and arp.sender_ip in (subnet.network_address, subnet.broadcast_address):
        return "sender_outside_subnet"
    if arp.sender_ip == interface_address.ip:
        return "sender_is_router"
    return None
