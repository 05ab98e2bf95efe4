"""veth ports (`--ports veth`, needs root): the switch runs live on veth pairs, and
the STF's commands are carried out strictly in file order, so control commands may
come between packets (as p4c's STF files sometimes do).

Each port N gets a pair `h6<tag>sN` (switch side) / `h6<tag>tN` (test side) — tag =
pid and a serial number, so concurrent cases do not collide — IPv6
off so the kernel stays silent. Packets are sent and captured on the test side with
AF_PACKET sockets. The pairs are deleted when the case ends.
"""
from __future__ import annotations

import itertools
import os
import socket
import struct
import subprocess
import threading
import time

ETH_P_ALL = 0x0003
_SERIAL = itertools.count()  # distinct names for cases run at once (-j) by one process
PACKET_OUTGOING = 4


SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
# struct tpacket_auxdata: status, len, snaplen (u32); mac, net, vlan_tci, vlan_tpid (u16)
_AUX = struct.Struct("=IIIHHHH")


def _with_vlan_tag(data: bytes, ancillary) -> bytes:
    """Put back the 802.1Q tag the kernel moved from the frame into packet metadata."""
    for level, kind, blob in ancillary:
        if level == SOL_PACKET and kind == PACKET_AUXDATA and len(blob) >= _AUX.size:
            status, _, _, _, _, tci, tpid = _AUX.unpack_from(blob)
            if status & TP_STATUS_VLAN_VALID and len(data) >= 12:
                if not status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = 0x8100
                return data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
    return data


class VethError(RuntimeError):
    """veth pairs could not be made (not root, no iproute2)."""


def _ip(*args: str) -> None:
    cp = subprocess.run(["ip", *args], capture_output=True, text=True)
    if cp.returncode != 0:
        raise VethError(f"ip {' '.join(args)}: {cp.stderr.strip()}")


def _no_ipv6(name: str) -> None:
    try:
        with open(f"/proc/sys/net/ipv6/conf/{name}/disable_ipv6", "w") as f:
            f.write("1")
    except OSError:
        pass


class VethPorts:
    """veth pairs for a set of port numbers, with capture on the test side."""

    def __init__(self, ports: list[int]):
        if os.geteuid() != 0:
            raise VethError("veth ports need root")
        self.tag = f"{os.getpid() % 10000}{next(_SERIAL) % 100:02d}"
        self.ports = ports
        self.made: list[str] = []
        self.socks: dict[int, socket.socket] = {}
        self.got: dict[int, list[bytes]] = {p: [] for p in ports}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        try:
            for p in ports:
                sw, tst = self.switch_iface(p), self.test_iface(p)
                _ip("link", "add", sw, "type", "veth", "peer", "name", tst)
                self.made.append(sw)
                for n in (sw, tst):
                    _no_ipv6(n)
                    _ip("link", "set", "dev", n, "mtu", "9500")  # jumbo test frames
                    _ip("link", "set", "dev", n, "up")
            for p in ports:
                # Protocol 0 until bound: a socket opened with ETH_P_ALL would queue frames
                # from every interface of the host before bind() narrows it to ours.
                s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
                s.bind((self.test_iface(p), ETH_P_ALL))
                s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
                s.settimeout(0.1)
                self.socks[p] = s
                t = threading.Thread(target=self._capture, args=(p, s), daemon=True)
                t.start()
                self._threads.append(t)
        except (OSError, VethError):
            self.close()
            raise

    def switch_iface(self, port: int) -> str:
        return f"h6{self.tag}s{port}"

    def test_iface(self, port: int) -> str:
        return f"h6{self.tag}t{port}"

    def _capture(self, port: int, s: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(_AUX.size))
            except socket.timeout:
                continue
            except OSError:
                return
            if addr[2] == PACKET_OUTGOING:  # our own sends
                continue
            self.got[port].append(_with_vlan_tag(data, anc))

    def send(self, port: int, data: bytes) -> None:
        if len(data) < 14:
            raise VethError(f"cannot send a {len(data)}-byte frame on a veth (minimum 14)")
        self.socks[port].send(data)

    def count(self) -> int:
        return sum(len(v) for v in self.got.values())

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=1)
        for s in self.socks.values():
            s.close()
        for n in self.made:
            subprocess.run(["ip", "link", "del", n], capture_output=True)
        self.made = []


def settle(ports: VethPorts, n_expected: int, quiet_after: float = 0.4, max_quiet: float = 1.5,
           timeout: float = 20.0) -> None:
    """Wait until as many packets as expected arrived and none came for a while."""
    end = time.time() + timeout
    last, last_change = -1, time.time()
    while time.time() < end:
        n = ports.count()
        now = time.time()
        if n != last:
            last, last_change = n, now
        quiet = now - last_change
        if (n >= n_expected and quiet >= quiet_after) or quiet >= max_quiet:
            return
        time.sleep(0.05)
