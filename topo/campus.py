"""Campus topologies built from a network description (topo/campus.yaml, topo/two-switches.yaml).

Every switch of the description becomes a P4 switch-router; ports with a `link` become
links between switches (mininet port = P4 port on both ends); every other access port
gets one host, named by the port's `name`, with address .1N of its VLAN's subnet (N = its
rank in that VLAN's L2 domain) and the VLAN's router interface as default gateway — no
static ARP anywhere. A VLAN spans switches over linked ports (tagged VLANs by id, untagged
frames from one end's access/native VLAN to the other's), so a host on a switch without a
router interface for its VLAN uses the interface another switch has in the same domain.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from mininet.topo import Topo

HERE = Path(__file__).resolve().parent

Node = tuple[str, int]      # (switch name, VLAN id): one switch's part of an L2 domain


@dataclass(frozen=True)
class HostPlan:
    """A host: name, switch and port, VLAN, address with prefix, gateway, its L2 domain."""

    name: str
    switch: str
    port: int
    vlan: int
    address: ipaddress.IPv4Interface
    gateway: ipaddress.IPv4Address
    domain: Node
    router: str                      # the switch whose interface is the gateway


@dataclass(frozen=True)
class LinkPlan:
    """A cable between two switch ports."""

    a: str
    a_port: int
    b: str
    b_port: int


def l2_domains(net) -> dict[Node, Node]:
    """Each (switch, VLAN) mapped to its domain's representative (union-find over linked ports)."""
    parent: dict[Node, Node] = {(name, v): (name, v) for name, sw in net.switches.items() for v in sw.vlans}

    def find(n: Node) -> Node:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    def union(a: Node, b: Node) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for name, sw in net.switches.items():
        for port in sw.ports.values():
            if port.link is None:
                continue
            peer = net.switches[port.link[0]].ports[port.link[1]]
            for v in port.tagged():
                union((name, v), (port.link[0], v))
            if port.untagged() is not None and peer.untagged() is not None:
                union((name, port.untagged()), (port.link[0], peer.untagged()))
    return {n: find(n) for n in parent}


def host_plan(net, prefix: str = "") -> list[HostPlan]:
    """Hosts for every access port without a link, on every switch (vrouter.config.Network)."""
    domains = l2_domains(net)
    gateways: dict[Node, tuple[str, object]] = {}
    for name, sw in net.switches.items():
        for v, vlan in sw.vlans.items():
            if vlan.interface is not None:
                gateways.setdefault(domains[(name, v)], (name, vlan.interface))
    several = len(net.switches) > 1
    plans, rank = [], {}
    for name, sw in net.switches.items():
        for number, port in sorted(sw.ports.items()):
            if port.mode != "access" or port.link is not None:
                continue
            domain = domains[(name, port.access_vlan)]
            if domain not in gateways:
                continue
            router, iface = gateways[domain]
            rank[domain] = rank.get(domain, 0) + 1
            subnet = iface.address.network
            address = ipaddress.IPv4Interface(f"{subnet.network_address + 10 + rank[domain]}/{subnet.prefixlen}")
            host = port.name or (f"{name}h{number}" if several else f"h{number}")
            plans.append(HostPlan(prefix + host, name, number, port.access_vlan, address, iface.address.ip,
                                  domain, router))
    return plans


def link_plan(net) -> list[LinkPlan]:
    """Each linked pair of ports once."""
    seen, out = set(), []
    for name, sw in net.switches.items():
        for number, port in sorted(sw.ports.items()):
            if port.link is None:
                continue
            ends = frozenset({(name, number), port.link})
            if ends not in seen:
                seen.add(ends)
                out.append(LinkPlan(name, number, *port.link))
    return out


@dataclass(frozen=True)
class SwitchPlan:
    """A switch node: mininet name, gRPC port, device id, CPU port, metrics port (p4switch --metrics-addr)."""

    node: str
    grpc_port: int
    device_id: int = 0
    cpu_port: int = 255
    metrics_port: int | None = None


class CampusTopo(Topo):
    """The switches, their hosts on access ports and the links between them."""

    def build(self, switches: dict[str, SwitchPlan], hosts: list[HostPlan], links: list[LinkPlan] = (),
              log_dir: str | None = None) -> None:
        nodes = {}
        for i, (name, s) in enumerate(switches.items()):
            nodes[name] = self.addSwitch(s.node, dpid=f"{i + 1:016x}", grpc_port=s.grpc_port,
                                         device_id=s.device_id, cpu_port=s.cpu_port, log_dir=log_dir,
                                         metrics_port=s.metrics_port)
        for h in hosts:
            node = self.addHost(h.name, ip=str(h.address), defaultRoute=f"via {h.gateway}")
            self.addLink(node, nodes[h.switch], port2=h.port)
        for link in links:
            self.addLink(nodes[link.a], nodes[link.b], port1=link.a_port, port2=link.b_port)
