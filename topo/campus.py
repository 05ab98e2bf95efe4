"""The campus topology after scenario S1, built from topo/campus.yaml.

One P4 switch-router; one host per access port of the description, named by the
port's `name`, with address .1N of its VLAN's subnet (N = its rank in the VLAN) and the
VLAN's router interface as default gateway — no static ARP anywhere.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from mininet.topo import Topo

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class HostPlan:
    """A host: name, switch port, VLAN, address with prefix, gateway."""

    name: str
    port: int
    vlan: int
    address: ipaddress.IPv4Interface
    gateway: ipaddress.IPv4Address


def host_plan(sw, prefix: str = "") -> list[HostPlan]:
    """Hosts for every access port of a switch description (vrouter.config.SwitchConfig)."""
    plans, rank = [], {}
    for number, port in sorted(sw.ports.items()):
        if port.mode != "access":
            continue
        vlan = sw.vlans[port.access_vlan]
        if vlan.interface is None:
            continue
        rank[vlan.id] = rank.get(vlan.id, 0) + 1
        net = vlan.interface.address.network
        address = ipaddress.IPv4Interface(f"{net.network_address + 10 + rank[vlan.id]}/{net.prefixlen}")
        plans.append(HostPlan(prefix + (port.name or f"h{number}"), number, vlan.id, address,
                              vlan.interface.address.ip))
    return plans


class CampusTopo(Topo):
    """One switch-router, hosts on access ports (mininet port = P4 port)."""

    def build(self, hosts: list[HostPlan], switch_name: str = "s1", grpc_port: int = 9559,
              log_dir: str | None = None) -> None:
        s = self.addSwitch(switch_name, grpc_port=grpc_port, log_dir=log_dir)
        for h in hosts:
            node = self.addHost(h.name, ip=str(h.address), defaultRoute=f"via {h.gateway}")
            self.addLink(node, s, port2=h.port)
