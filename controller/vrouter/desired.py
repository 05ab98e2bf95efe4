"""From a switch's description (and what it learned at run time) to the P4Runtime entities it needs.

Each object maps to entries exactly as docs/p4-program.md section 13 says. ACL entries
come out in list order with priority 0: the reconciler gives them priorities (see plan.py).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from p4rt import (Action, ActionProfileGroup, ActionProfileMember, CloneSessionEntry, DigestEntry, Entity,
                  MeterConfig, MeterEntry, MulticastGroupEntry, Replica, TableEntry)

from . import names as N
from .config import AclRule, Network, Policer, Pseudowire, Route, SwitchConfig, TTL_MODELS, Vpls
from .stations import StationTable


@dataclass(frozen=True)
class Pw:
    """Where a station learned behind a pseudowire is: that pseudowire's label bound here (its in_label)."""

    label: int

    def __str__(self) -> str:
        return f"pw:{self.label}"


@dataclass(frozen=True)
class Neighbor:
    """A resolved IPv4 neighbour: where its MAC lives."""

    ip: ipaddress.IPv4Address
    mac: str
    port: int
    vlan: int


@dataclass
class Runtime:
    """What a switch learned while running: resolved neighbours (with next-hop ids), stations, and the
    ports the station limits locked (unknown sources dropped) or shut."""

    neighbors: dict[ipaddress.IPv4Address, Neighbor] = field(default_factory=dict)
    nexthop_ids: dict[ipaddress.IPv4Address, int] = field(default_factory=dict)
    macs: StationTable = field(default_factory=StationTable)  # (vlan, mac) -> port or pseudowire
    locked_ports: set[int] = field(default_factory=set)
    shut_ports: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not isinstance(self.macs, StationTable):
            self.macs = StationTable(self.macs)

    def nexthop_id(self, ip: ipaddress.IPv4Address) -> int:
        """The next-hop id of a neighbour, allocated on first use."""
        nid = self.nexthop_ids.get(ip)
        if nid is None:
            used = set(self.nexthop_ids.values())
            nid = next(i for i in range(N.NEIGHBOR_BASE, N.NEIGHBOR_LAST + 1) if i not in used)
            self.nexthop_ids[ip] = nid
        return nid

    def forget(self, ip: ipaddress.IPv4Address) -> None:
        """Drop a neighbour and its next-hop id."""
        self.neighbors.pop(ip, None)
        self.nexthop_ids.pop(ip, None)


def meter_config(p: Policer) -> MeterConfig:
    """A policer as a P4Runtime meter config (bytes per second, bursts in bytes)."""
    return MeterConfig(cir=max(1, p.cir // 8), cburst=p.cburst, pir=max(1, p.pir // 8), pburst=p.pburst)


def acl_meter_ids(net: Network) -> dict[str, int]:
    """ACL meter index per policer name (rules naming the same policer share its meter)."""
    return {name: i + 1 for i, name in enumerate(sorted(net.policers))}


def zone_ids(sw: SwitchConfig) -> dict[str, int]:
    """Firewall zone ids (1..255) by zone name, in sorted order."""
    return {name: i + 1 for i, name in enumerate(sorted(sw.zones))}


def _policer_params(p: Policer) -> dict[str, int]:
    return {"yellow_remark": int(p.yellow_dscp is not None), "yellow_dscp": p.yellow_dscp or 0}


def acl_entry(rule: AclRule, meter_ids: dict[str, int], net: Network, priority: int = 0,
              resolved: dict[ipaddress.IPv4Address, int] | None = None) -> TableEntry:
    """The acl_ingress_table entry of one rule (priority set later by the planner).

    A redirect whose next hop is not resolved yet punts to the controller, which resolves it.
    """
    m = rule.match
    match: dict[str, object] = {}
    if m.in_port is not None:
        match["ingress_port"] = (m.in_port, 0x1FF)
    if m.vlan is not None:
        match["vlan_id"] = (m.vlan, 0xFFF)
    if m.src_mac is not None:
        match["src_mac"] = f"{m.src_mac}&&&ff:ff:ff:ff:ff:ff"
    if m.dst_mac is not None:
        match["dst_mac"] = f"{m.dst_mac}&&&ff:ff:ff:ff:ff:ff"
    if m.ether_type is not None:
        match["ether_type"] = (m.ether_type, 0xFFFF)
    if m.src is not None and m.src.prefixlen:
        match["ipv4_src"] = (int(m.src.network_address), int(m.src.netmask))
    if m.dst is not None and m.dst.prefixlen:
        match["ipv4_dst"] = (int(m.dst.network_address), int(m.dst.netmask))
    if m.protocol is not None:
        match["ip_protocol"] = (m.protocol, 0xFF)
    if m.dscp is not None:
        match["dscp"] = (m.dscp, 0x3F)
    if m.src_port is not None:
        match["l4_src_port"] = m.src_port
    if m.dst_port is not None:
        match["l4_dst_port"] = m.dst_port
    if m.tcp_flags is not None:
        match["tcp_flags"] = m.tcp_flags
    if rule.action == "redirect":
        nid = (resolved or {}).get(rule.via)
        action = Action("ingress.acl.redirect_to_nexthop", {"nexthop_id": nid}) if nid is not None \
            else Action("ingress.acl.punt_to_cpu")
    elif rule.policer is not None:
        action = Action("ingress.acl.police", {"meter_id": meter_ids[rule.policer],
                                               **_policer_params(net.policers[rule.policer])})
    else:
        action = Action({"permit": "ingress.acl.permit", "deny": "ingress.acl.deny",
                         "punt": "ingress.acl.punt_to_cpu", "copy": "ingress.acl.copy_to_cpu"}[rule.action])
    return TableEntry(N.ACL, match, action, priority=priority)


def _te(table: str, match: dict, action: str, params: dict | None = None, **kw) -> TableEntry:
    return TableEntry(table, match, Action(action, params or {}), **kw)


def station_entries(vid: int, mac: str, port: int | Pw, aging_ns: int = 0, nexthop_id: int = 0) -> list[TableEntry]:
    """A station's two entries: known on its port (`l2_learning`, aged if `aging_ns`) and `l2_unicast`;
    behind a pseudowire: known there (`pw_learning`) and `l2_unicast` to the pseudowire's next hop."""
    if isinstance(port, Pw):
        return [_te(N.PW_LEARNING, {"vlan_id": vid, "src_mac": mac, "pw_label": port.label},
                    "ingress.pw_term.pw_station_known", idle_timeout_ns=aging_ns),
                _te(N.L2_UNICAST, {"vlan_id": vid, "dst_mac": mac}, "ingress.bridge.to_pseudowire",
                    {"nexthop_id": nexthop_id})]
    return [_te(N.L2_LEARNING, {"vlan_id": vid, "src_mac": mac, "ingress_port": port},
                "ingress.learning.station_known", idle_timeout_ns=aging_ns),
            _te(N.L2_UNICAST, {"vlan_id": vid, "dst_mac": mac}, "ingress.bridge.set_output_port", {"port": port})]


def static_stations(sw: SwitchConfig) -> set[tuple[int, str]]:
    """(VLAN, MAC) of every static station: static_macs and the static MACs of pseudowires."""
    return {(m.vlan, m.mac) for m in sw.static_macs} | {(inst.vlan, mac) for inst, pw in pseudowires(sw)
                                                          for mac in pw.macs}


def pw_nexthop_id(sw: SwitchConfig, vid: int, label: int) -> int | None:
    """The next-hop id of the pseudowire of VLAN `vid`'s VPLS instance whose label bound here is `label`."""
    for k, (inst, pw) in enumerate(pseudowires(sw), 1):
        if inst.vlan == vid and pw.in_label == label:
            return N.PW_NEXTHOP_BASE + k - 1
    return None


def learned_station(net: Network, sw: SwitchConfig, vid: int, mac: str, port: int | Pw) -> list[TableEntry]:
    """The entries of a learned station, or none where the description does not allow it there."""
    remote = any(inst.vlan == vid and mac in pw.macs for inst, pw in pseudowires(sw))
    if any((m.vlan, m.mac) == (vid, mac) for m in sw.static_macs) or remote:
        return []
    aging = int(net.mac_aging * 1e9)
    if isinstance(port, Pw):
        nid = pw_nexthop_id(sw, vid, port.label)
        return [] if nid is None else station_entries(vid, mac, port, aging, nid)
    p = sw.ports.get(port)
    if p is None or vid not in p.carries():
        return []
    return station_entries(vid, mac, port, aging)


def station_capacity(schema, sw: SwitchConfig) -> int:
    """Learned stations the program's tables hold next to the description's static ones."""
    sizes = [schema.table(t).size for t in (N.L2_LEARNING, N.L2_UNICAST) if t in schema.tables]
    static = len(sw.static_macs) + sum(len(pw.macs) for _, pw in pseudowires(sw))
    return max(0, min(sizes, default=0) - static)


def pseudowires(sw: SwitchConfig) -> list[tuple[Vpls, Pseudowire]]:
    """Every pseudowire of the switch, in a fixed order: the k-th (from 1) has replication id k."""
    return [(inst, pw) for _, inst in sorted(sw.vpls.items()) for pw in inst.pseudowires]


def resolved_neighbors(sw: SwitchConfig, rt: Runtime) -> dict[ipaddress.IPv4Address, int]:
    """Neighbours that can be next hops (on a port and router interface of their VLAN) -> next-hop id."""
    resolved: dict[ipaddress.IPv4Address, int] = {}
    for ip, nb in sorted(rt.neighbors.items()):
        vlan = sw.vlans.get(nb.vlan)
        port = sw.ports.get(nb.port)
        if vlan is None or vlan.interface is None or ip not in vlan.interface.address.network \
                or port is None or nb.vlan not in port.carries() or ip == vlan.interface.address.ip:
            continue
        resolved[ip] = rt.nexthop_id(ip)
    return resolved


def route_entry(r: Route, resolved: dict[ipaddress.IPv4Address, int]) -> TableEntry:
    """The ipv4_route entry of a black hole or of a route through its first resolved next hop (an ECMP
    route with fewer than two resolved); to the controller while none is resolved (it asks by ARP)."""
    if r.drop:
        return _te(N.IPV4_ROUTE, {"ipv4_dst": str(r.prefix)}, "ingress.routing.drop_route")
    hops = [resolved[h] for h in r.via if h in resolved]
    if hops:
        return _te(N.IPV4_ROUTE, {"ipv4_dst": str(r.prefix)}, "ingress.routing.route_to_nexthop",
                   {"nexthop_id": hops[0]})
    return _te(N.IPV4_ROUTE, {"ipv4_dst": str(r.prefix)}, "ingress.routing.route_to_cpu")


def route_entries(routes: Iterable[Route], resolved: dict[ipaddress.IPv4Address, int]) -> Iterator[tuple[Route, TableEntry]]:
    """route_entry of each route, where routes through the same next hops share one Action:
    a routes-file take of 250 routes through one neighbour built 250 equal ones."""
    actions: dict[tuple, Action] = {}
    for r in routes:
        key = (r.via, r.drop)
        action = actions.get(key)
        if action is None:
            e = route_entry(r, resolved)
            actions[key] = e.action
        else:
            e = TableEntry(N.IPV4_ROUTE, {"ipv4_dst": str(r.prefix)}, action)
        yield r, e


@dataclass
class Desired:
    """A switch's desired entities, grouped for the planner."""

    entities: list[Entity] = field(default_factory=list)
    acl: list[TableEntry] = field(default_factory=list)   # in rule order, priorities unset
    meters: dict[tuple[str, int], MeterConfig] = field(default_factory=dict)


def desired_state(net: Network, sw: SwitchConfig, rt: Runtime | None = None) -> Desired:
    """Every entity the switch should hold for its description and run-time state."""
    rt = rt or Runtime()
    out = Desired()
    add = out.entities.append
    mcast: dict[int, list[int]] = {v: [] for v in sw.vlans}
    for p in sw.ports.values():
        if p.number in rt.shut_ports:
            continue    # past its station limit with on_limit shutdown: as if not configured
        if p.number in rt.locked_ports:
            add(_te(N.PORT_SECURITY, {"ingress_port": p.number}, N.DROP_UNKNOWN_SOURCES))
        if p.mode == "access":
            add(_te(N.PORT_CONFIG, {"ingress_port": p.number}, "ingress.port_vlan.set_access_port",
                    {"vlan_id": p.vlans[0]}))
            add(_te(N.EGRESS_VLAN_MEMBER, {"egress_port": p.number, "vlan_id": p.vlans[0]}, "egress.vlan.untag_vlan"))
        else:
            add(_te(N.PORT_CONFIG, {"ingress_port": p.number}, "ingress.port_vlan.set_trunk_port",
                    {"native_vlan_id": p.native or 0}))
            for v in p.vlans:
                add(_te(N.INGRESS_VLAN_MEMBER, {"ingress_port": p.number, "vlan_id": v}, "ingress.port_vlan.allow_vlan"))
                add(_te(N.EGRESS_VLAN_MEMBER, {"egress_port": p.number, "vlan_id": v}, "egress.vlan.tag_vlan"))
            if p.native is not None:
                add(_te(N.EGRESS_VLAN_MEMBER, {"egress_port": p.number, "vlan_id": p.native},
                        "egress.vlan.untag_vlan"))
        for v in p.carries():
            mcast[v].append(p.number)
        if p.policer is not None:
            pol = net.policers[p.policer]
            add(_te(N.PORT_POLICER, {"ingress_port": p.number}, "ingress.policer.set_port_policer",
                    _policer_params(pol)))
            out.meters[(N.PORT_METER, p.number)] = meter_config(pol)
    add(CloneSessionEntry(N.CLONE_SESSION, [Replica(sw.cpu_port, 0)]))
    add(DigestEntry(N.LEARN_DIGEST, max_list_size=64, max_timeout_ns=5_000_000, ack_timeout_ns=1_000_000_000))
    if sw.vpls:
        add(DigestEntry(N.PW_LEARN_DIGEST, max_list_size=64, max_timeout_ns=5_000_000, ack_timeout_ns=1_000_000_000))

    # VLANs: policers and router interfaces.
    for vlan in sw.vlans.values():
        if vlan.policer is not None:
            pol = net.policers[vlan.policer]
            add(_te(N.VLAN_POLICER, {"vlan_id": vlan.id}, "ingress.policer.set_vlan_policer", _policer_params(pol)))
            out.meters[(N.VLAN_METER, vlan.id)] = meter_config(pol)
        iface = vlan.interface
        if iface is None:
            continue
        add(_te(N.ROUTER_MAC, {"vlan_id": vlan.id, "dst_mac": iface.mac}, "ingress.admit.admit_to_l3"))
        add(_te(N.ROUTER_ADDRESS, {"ipv4_addr": str(iface.address.ip)}, "ingress.routing.router_address_hit"))
        add(_te(N.IPV4_ROUTE, {"ipv4_dst": str(iface.address.network)}, "ingress.routing.route_to_cpu"))
        add(_te(N.INTERFACE_MTU, {"vlan_id": vlan.id}, "ingress.mtu.set_mtu", {"mtu": iface.mtu}))
        if iface.masquerade:
            addr = str(iface.address.ip)
            add(_te(N.NAT_INBOUND, {"vlan_id": vlan.id}, "ingress.nat_in.reverse_masquerade", {"addr": addr}))
            add(_te(N.NAT_OUTBOUND, {"vlan_id": vlan.id}, "ingress.nat_out.masquerade", {"addr": addr}))

    # Resolved neighbours: one next hop each, and a host route.
    resolved = resolved_neighbors(sw, rt)
    host_routes: set[ipaddress.IPv4Network] = set()
    for ip, nid in resolved.items():
        nb = rt.neighbors[ip]
        vlan = sw.vlans[nb.vlan]
        add(ActionProfileMember(N.ECMP_SELECTOR, nid, Action("ingress.nexthop.set_nexthop", {
            "port": nb.port, "vlan_id": nb.vlan, "dst_mac": nb.mac, "src_mac": vlan.interface.mac})))
        add(TableEntry(N.NEXTHOP, {"nexthop_id": nid}, member_id=nid))
        host_routes.add(ipaddress.IPv4Network(ip))
        add(_te(N.IPV4_ROUTE, {"ipv4_dst": f"{ip}/32"}, "ingress.routing.route_to_nexthop", {"nexthop_id": nid}))

    def route(prefix: ipaddress.IPv4Network, action: str, params: dict | None = None) -> None:
        if prefix in host_routes:
            return  # a resolved neighbour's host route already covers it
        add(_te(N.IPV4_ROUTE, {"ipv4_dst": str(prefix)}, action, params))

    ecmp_index = 0
    for r in sw.routes:
        hops = [resolved[h] for h in r.via if h in resolved]
        if len(r.via) > 1:
            gid, nid = ecmp_index + 1, N.ECMP_NEXTHOP_BASE + ecmp_index
            ecmp_index += 1
            if len(hops) > 1:
                add(ActionProfileGroup(N.ECMP_SELECTOR, gid, [(h, 1) for h in sorted(hops)], max_size=len(r.via)))
                add(TableEntry(N.NEXTHOP, {"nexthop_id": nid}, group_id=gid))
                route(r.prefix, "ingress.routing.route_to_nexthop", {"nexthop_id": nid})
                continue
        if r.prefix not in host_routes:
            add(route_entry(r, resolved))

    for i, lsp in enumerate(sw.lsps):
        ttl = TTL_MODELS[lsp.ttl_model]
        if lsp.role == "ingress":
            nb = rt.neighbors.get(lsp.via)
            if lsp.fec is None:
                continue  # carries pseudowires only (vpls)
            if lsp.via not in resolved or nb is None:
                route(lsp.fec, "ingress.routing.route_to_cpu")
                continue
            nid = N.LSP_NEXTHOP_BASE + i
            rmac = sw.vlans[nb.vlan].interface.mac
            base = {"port": nb.port, "vlan_id": nb.vlan, "dst_mac": nb.mac, "src_mac": rmac, "ttl_mode": ttl}
            if len(lsp.labels) == 1:
                action = Action("ingress.nexthop.set_nexthop_push1", {**base, "label": lsp.labels[0]})
            else:
                action = Action("ingress.nexthop.set_nexthop_push2",
                                {**base, "outer_label": lsp.labels[0], "inner_label": lsp.labels[1]})
            add(ActionProfileMember(N.ECMP_SELECTOR, nid, action))
            add(TableEntry(N.NEXTHOP, {"nexthop_id": nid}, member_id=nid))
            route(lsp.fec, "ingress.routing.route_to_nexthop", {"nexthop_id": nid})
        elif lsp.role == "transit":
            if lsp.via not in resolved:
                continue  # unknown label until the downstream neighbour resolves
            nid = resolved[lsp.via]
            if lsp.out_label == 3:
                add(_te(N.MPLS_LABEL, {"label": lsp.in_label}, "ingress.mpls.php", {"nexthop_id": nid, "ttl_mode": ttl}))
            else:
                add(_te(N.MPLS_LABEL, {"label": lsp.in_label}, "ingress.mpls.swap",
                        {"out_label": lsp.out_label, "nexthop_id": nid}))
        else:
            add(_te(N.MPLS_LABEL, {"label": lsp.in_label}, "ingress.mpls.pop_and_route", {"ttl_mode": ttl}))

    # VPLS: per pseudowire a push member (transport + PW label, pipe), its static stations, a flood
    # replica (replication id k) with its pw_flood entry, and its incoming label; per instance the
    # local-only flood group. Until the LSP's next hop resolves, only the incoming label is written.
    pw_replicas: dict[int, list[tuple[int, int]]] = {}
    lsps = {lsp.name: lsp for lsp in sw.lsps}
    for k, (inst, pw) in enumerate(pseudowires(sw), 1):
        add(_te(N.PW_TERMINATION, {"label": pw.in_label}, "ingress.pw_term.terminate_pseudowire",
                {"vlan_id": inst.vlan}))
        lsp = lsps[pw.lsp]
        nb = rt.neighbors.get(lsp.via)
        if lsp.via not in resolved or nb is None:
            continue
        nid = N.PW_NEXTHOP_BASE + k - 1
        rmac = sw.vlans[nb.vlan].interface.mac
        add(ActionProfileMember(N.ECMP_SELECTOR, nid, Action("ingress.nexthop.set_nexthop_push2", {
            "port": nb.port, "vlan_id": nb.vlan, "dst_mac": nb.mac, "src_mac": rmac, "outer_label": lsp.labels[0],
            "inner_label": pw.out_label, "ttl_mode": TTL_MODELS["pipe"]})))
        add(TableEntry(N.NEXTHOP, {"nexthop_id": nid}, member_id=nid))
        for mac in pw.macs:      # known there: no learning digest for them
            out.entities += station_entries(inst.vlan, mac, Pw(pw.in_label), 0, nid)
        add(_te(N.PW_FLOOD, {"egress_rid": k}, "egress.pw_flood.pw_flood_push2", {
            "vlan_id": nb.vlan, "dst_mac": nb.mac, "src_mac": rmac, "transport_label_out": lsp.labels[0],
            "pw_label_out": pw.out_label}))
        pw_replicas.setdefault(inst.vlan, []).append((nb.port, k))
    for vid, ports in sorted(mcast.items()):
        replicas = [Replica(p, 0) for p in sorted(ports)] + [Replica(p, k) for p, k in pw_replicas.get(vid, [])]
        if replicas:
            add(MulticastGroupEntry(vid, replicas))
    for inst in sw.vpls.values():
        if mcast.get(inst.vlan):
            add(MulticastGroupEntry(N.PW_LOCAL_FLOOD_GROUP_BASE + inst.vlan,
                                    [Replica(p, 0) for p in sorted(mcast[inst.vlan])]))

    # Stations: static ones, then learned ones (aged by the switch's idle timeout).
    for m in sw.static_macs:
        if m.port not in rt.shut_ports:
            out.entities += station_entries(m.vlan, m.mac, m.port)
    for (vid, mac), port in sorted(rt.macs.items(), key=lambda item: (item[0], str(item[1]))):
        out.entities += learned_station(net, sw, vid, mac, port)

    # ACL (ordered) and its meters.
    meter_ids = acl_meter_ids(net)
    for rule in sw.acl:
        out.acl.append(acl_entry(rule, meter_ids, net, resolved=resolved))
        if rule.policer is not None:
            out.meters[(N.ACL_METER, meter_ids[rule.policer])] = meter_config(net.policers[rule.policer])

    # Stateful firewall.
    zids = zone_ids(sw)
    for zone, vids in sw.zones.items():
        for v in vids:
            add(_te(N.FW_SRC_ZONE, {"vlan_id": v}, "ingress.firewall.set_src_zone", {"zone": zids[zone]}))
            add(_te(N.FW_DST_ZONE, {"vlan_id": v}, "ingress.firewall.set_dst_zone", {"zone": zids[zone]}))
    for pair in sw.zone_pairs:
        t, u = zids[pair.trusted], zids[pair.untrusted]
        add(_te(N.FW_POLICY, {"src_zone": t, "dst_zone": u}, "ingress.firewall.track_connection"))
        add(_te(N.FW_POLICY, {"src_zone": u, "dst_zone": t}, "ingress.firewall.allow_established"))
    for (meter, index), cfg in out.meters.items():
        add(MeterEntry(meter, index, cfg))
    return out
