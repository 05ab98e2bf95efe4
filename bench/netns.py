"""Network namespaces and veth pairs for benchmark topologies.

A `Topology` is a set of host namespaces, each with one veth whose peer sits in a
shared switch namespace (`PREFIX-sw`). Every name starts with the prefix (default
`h10`) so parallel runs and other workers do not collide; `down()` deletes all of
it and runs on exit even after an error.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass, field


class BenchError(RuntimeError):
    """A set-up step failed; the message says which command and why."""


def sh(*args: str, check: bool = True, ns: str | None = None, timeout: float = 60) -> str:
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise BenchError(f"{' '.join(cmd)}: exit {p.returncode}: {(p.stderr or p.stdout).strip()[:400]}")
    return p.stdout


@dataclass
class Host:
    name: str          # namespace name
    dev: str           # its interface
    peer: str          # the peer interface in the switch namespace
    port: int          # switch port number of the peer
    mac: str
    ip: str = ""       # a.b.c.d/len
    gateway: str = ""
    vlan: int = 0

    @property
    def addr(self) -> str:
        return self.ip.split("/")[0]


@dataclass
class Topology:
    prefix: str = "h10"
    mtu: int = 1500
    hosts: list[Host] = field(default_factory=list)

    @property
    def sw(self) -> str:
        return f"{self.prefix}-sw"

    def add_host(self, short: str, ip: str = "", gateway: str = "", vlan: int = 0) -> Host:
        port = len(self.hosts) + 1
        mac = f"02:10:00:00:{port // 256:02x}:{port % 256:02x}"
        h = Host(f"{self.prefix}-{short}", f"{self.prefix}-{short}0", f"{self.prefix}-{short}1", port, mac,
                 ip, gateway, vlan)
        self.hosts.append(h)
        return h

    def host(self, short: str) -> Host:
        for h in self.hosts:
            if h.name == f"{self.prefix}-{short}":
                return h
        raise KeyError(short)

    def namespaces(self) -> list[str]:
        return [self.sw] + [h.name for h in self.hosts]

    def up(self) -> "Topology":
        self.down()
        for ns in self.namespaces():
            sh("ip", "netns", "add", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        for h in self.hosts:
            sh("ip", "link", "add", h.dev, "netns", h.name, "address", h.mac, "type", "veth",
               "peer", "name", h.peer, "netns", self.sw)
            for ns, dev in ((h.name, h.dev), (self.sw, h.peer)):
                sh("sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1", ns=ns, check=False)
                sh("ip", "-n", ns, "link", "set", dev, "mtu", str(self.mtu), "up")
                # wire-sized frames: no TSO/GSO super-frames, checksums filled in by the kernel
                sh("ethtool", "-K", dev, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off",
                   ns=ns, check=False)
            if h.ip:
                sh("ip", "-n", h.name, "addr", "add", h.ip, "dev", h.dev)
            if h.gateway:
                sh("ip", "-n", h.name, "route", "add", "default", "via", h.gateway)
        return self

    def down(self) -> None:
        for ns in self.namespaces():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def __enter__(self) -> "Topology":
        return self.up()

    def __exit__(self, *exc) -> None:
        self.down()
