"""`vrouter show`: live switch state as rows (printed as aligned tables or JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from p4rt import CounterData, CounterEntry, MeterEntry, MulticastGroupEntry, Switch, TableEntry

from . import names as N
from .config import Network, SwitchConfig
from .plan import describe_entity

DROP_REASONS = ["", "PORT_NOT_CONFIGURED", "TAGGED_ON_ACCESS", "UNTAGGED_ON_TRUNK", "VLAN_NOT_ALLOWED",
                "PARSER_ERROR", "HAIRPIN", "IPV4_CHECKSUM", "IPV4_INVALID", "NO_ROUTE", "ROUTE_BLACKHOLE",
                "NEXTHOP_MISS", "MTU_EXCEEDED", "MPLS_TOO_DEEP", "MPLS_UNKNOWN_LABEL", "MPLS_TTL_EXPIRED",
                "MPLS_UNSUPPORTED", "L3_UNSUPPORTED", "METER_RED", "ACL_DENY", "FIREWALL",
                "EGRESS_VLAN_NOT_MEMBER", "FLOOD_INGRESS_PORT", "PW_UNKNOWN_LABEL", "PW_UNSUPPORTED",
                "PW_SPLIT_HORIZON", "PW_FLOOD_MISS", "NAT_EXHAUSTED", "UNKNOWN_SOURCE",
                "INNER_TAG_EXPOSED", "FIREWALL_COLLISION"]


def _entries(sw: Switch, table: str, counters: bool = False) -> list[TableEntry]:
    probe = TableEntry(table, counter_data=CounterData()) if counters else TableEntry(table)
    return [e for e in sw.read(probe) if not e.is_default]


def _mac(value: Any) -> str:
    return value if isinstance(value, str) else ":".join(f"{b:02x}" for b in int(value).to_bytes(6, "big"))


def _ip(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        n, plen = value
        return f"{'.'.join(str(b) for b in int(n).to_bytes(4, 'big'))}/{plen}"
    return ".".join(str(b) for b in int(value).to_bytes(4, "big"))


def _counter(sw: Switch, name: str) -> dict[int, CounterData]:
    return {c.index: c.data for c in sw.read(CounterEntry(name)) if c.data is not None}


def show(what: str, sw: Switch, net: Network, cfg: SwitchConfig, file: Path | None = None) -> list[dict[str, Any]]:
    """Rows for one `vrouter show` subject (`file`: the description, to find its daemon's status)."""
    if what == "limits":
        return _show_limits(sw, net, cfg, file)
    return globals()[f"_show_{what}"](sw, net, cfg)


def _counts(counts: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(counts.items())) or "-"


def _show_limits(sw: Switch, net: Network, cfg: SwitchConfig, file: Path | None) -> list[dict]:
    """Per port: learned stations against the limit, the port's state, and what learning and ARP refused
    (counters of the running `vrouter run`, if any); `drops`: frames from unknown sources the switch
    dropped on a locked port."""
    from . import status
    from .stations import StationTable

    on_switch = StationTable({(int(e.match["vlan_id"]), _mac(e.match["src_mac"])): int(e.match["ingress_port"])
                              for e in _entries(sw, N.L2_LEARNING) if e.idle_timeout_ns})
    drops: dict[int, int] = {}
    if N.PORT_SECURITY in sw.schema.tables:
        drops = {int(e.match["ingress_port"]): e.counter_data.packets if e.counter_data else 0
                 for e in _entries(sw, N.PORT_SECURITY, counters=bool(sw.schema.direct_resources(
                     sw.schema.table(N.PORT_SECURITY))[0]))}
    daemon = status.read_live(file, cfg.name) if file is not None else None
    ports = daemon["ports"] if daemon else {}
    rows = []
    for key in sorted({*map(str, cfg.ports), *ports}, key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else k)):
        d = ports.get(key, {})
        port = int(key) if key.isdigit() else key
        p = cfg.ports.get(port) if isinstance(port, int) else None
        limit = d.get("limit", p.max_macs if p is not None and p.max_macs is not None else
                      net.learning.max_macs_per_port if p is not None else "")
        state = d.get("state") or ("locked" if port in drops else "?")
        rows.append({"port": port, "state": state, "stations": on_switch.per_port.get(port, d.get("stations", 0)),
                     "limit": limit, "on_limit": d.get("on_limit", p.on_limit or net.learning.on_limit if p else ""),
                     "learned": d.get("learned", ""), "moved": d.get("moved", ""), "aged": d.get("aged", ""),
                     "refused": _counts(d.get("refused", {})) if daemon else "", "arp_dropped":
                         _counts(d.get("arp_dropped", {})) if daemon else "", "drops": drops.get(port, "")})
    return rows


def _show_ports(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    rx, tx = _counter(sw, "ingress.ingress_port_counter"), _counter(sw, "egress.egress_port_counter")
    egress: dict[int, list[str]] = {}
    for e in _entries(sw, N.EGRESS_VLAN_MEMBER):
        tagged = e.action.name.endswith("tag_vlan") and not e.action.name.endswith("untag_vlan")
        egress.setdefault(int(e.match["egress_port"]), []).append(f"{e.match['vlan_id']}{'t' if tagged else 'u'}")
    rows = []
    for e in sorted(_entries(sw, N.PORT_CONFIG), key=lambda e: int(e.match["ingress_port"])):
        port = int(e.match["ingress_port"])
        mode = "access" if e.action.name.endswith("set_access_port") else "trunk"
        p = cfg.ports.get(port)
        rows.append({"port": port, "name": p.name if p else "", "mode": mode,
                     "vlans": " ".join(sorted(egress.get(port, []))),
                     "rx_packets": rx.get(port, CounterData()).packets, "tx_packets": tx.get(port, CounterData()).packets})
    return rows


def _show_vlans(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    groups = {g.group_id: sorted(r.port for r in g.replicas) for g in sw.read(MulticastGroupEntry())}
    counts = _counter(sw, "ingress.vlan_counter")
    mtus = {int(e.match["vlan_id"]): int(e.action.params["mtu"]) for e in _entries(sw, N.INTERFACE_MTU)}
    rows = []
    for vid, v in sorted(cfg.vlans.items()):
        rows.append({"vlan": vid, "name": v.name, "interface": str(v.interface.address) if v.interface else "",
                     "router_mac": v.interface.mac if v.interface else "", "mtu": mtus.get(vid, ""),
                     "ports": " ".join(map(str, groups.get(vid, []))),
                     "packets": counts.get(vid, CounterData()).packets})
    return rows


def _show_macs(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    from .desired import pseudowires

    pw_names = {N.PW_NEXTHOP_BASE + k - 1: f"{inst.name} to {pw.peer}" for k, (inst, pw) in enumerate(pseudowires(cfg), 1)}
    aging = {(int(e.match["vlan_id"]), _mac(e.match["src_mac"])): e.idle_timeout_ns
             for e in _entries(sw, N.L2_LEARNING)}
    if cfg.vpls:
        aging.update({(int(e.match["vlan_id"]), _mac(e.match["src_mac"])): e.idle_timeout_ns
                      for e in _entries(sw, N.PW_LEARNING)})
    rows = []
    for e in _entries(sw, N.L2_UNICAST, counters=True):
        key = (int(e.match["vlan_id"]), _mac(e.match["dst_mac"]))
        behind = e.action.params.get("nexthop_id")
        port = int(e.action.params["port"]) if behind is None else f"pseudowire {pw_names.get(int(behind), hex(int(behind)))}"
        rows.append({"vlan": key[0], "mac": key[1], "port": port,
                     "type": "learned" if aging.get(key) else "static",
                     "packets": e.counter_data.packets if e.counter_data else 0})
    return sorted(rows, key=lambda r: (r["vlan"], r["mac"]))


def _nexthops(sw: Switch) -> dict[int, str]:
    from p4rt import ActionProfileGroup, ActionProfileMember

    members = {m.member_id: m for m in sw.read(ActionProfileMember(N.ECMP_SELECTOR))}
    groups = {g.group_id: g for g in sw.read(ActionProfileGroup(N.ECMP_SELECTOR))}
    out = {}
    for e in _entries(sw, N.NEXTHOP):
        nid = int(e.match["nexthop_id"])
        if e.member_id is not None and e.member_id in members:
            p = members[e.member_id].action.params
            labels = [str(p[k]) for k in ("label", "outer_label", "inner_label") if k in p]
            push = f" push {'/'.join(labels)}" if labels else ""
            out[nid] = f"port {p['port']} vlan {p['vlan_id']} {_mac(p['dst_mac'])}{push}"
        elif e.group_id is not None and e.group_id in groups:
            out[nid] = f"ecmp group {e.group_id} ({len(groups[e.group_id].members)} members)"
    return out


def _show_routes(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    hops = _nexthops(sw)
    rows = []
    for e in _entries(sw, N.IPV4_ROUTE, counters=True):
        action = e.action.name.split(".")[-1]
        nid = e.action.params.get("nexthop_id")
        rows.append({"prefix": _ip(e.match["ipv4_dst"]), "action": action,
                     "next_hop": hops.get(int(nid), f"id {nid} (missing)") if nid is not None else "",
                     "packets": e.counter_data.packets if e.counter_data else 0})
    return sorted(rows, key=lambda r: (-int(r["prefix"].split("/")[1]), r["prefix"]))


def _show_lsps(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    hops = _nexthops(sw)
    rows = []
    for e in _entries(sw, N.MPLS_LABEL, counters=True):
        p = e.action.params
        rows.append({"in_label": int(e.match["label"]), "action": e.action.name.split(".")[-1],
                     "out_label": p.get("out_label", ""), "next_hop": hops.get(int(p["nexthop_id"]), "")
                     if "nexthop_id" in p else "", "packets": e.counter_data.packets if e.counter_data else 0})
    for nid, text in sorted(hops.items()):
        if "push" in text:
            rows.append({"in_label": "", "action": "push", "out_label": text.split("push ")[1],
                         "next_hop": text.split(" push")[0], "packets": ""})
    return rows


def _show_vpls(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    from .desired import pseudowires

    term = {int(e.match["label"]): e for e in _entries(sw, N.PW_TERMINATION, counters=True)}
    flood = {int(e.match["egress_rid"]): e for e in _entries(sw, N.PW_FLOOD, counters=True)}
    hops = _nexthops(sw)
    rows = []
    for k, (inst, pw) in enumerate(pseudowires(cfg), 1):
        t, f = term.get(pw.in_label), flood.get(k)
        rows.append({"vpls": inst.name, "vlan": inst.vlan, "peer": pw.peer, "lsp": pw.lsp,
                     "in_label": pw.in_label, "out_label": pw.out_label,
                     "next_hop": hops.get(N.PW_NEXTHOP_BASE + k - 1, "unresolved"),
                     "macs": len(pw.macs),
                     "packets_in": t.counter_data.packets if t is not None and t.counter_data else 0,
                     "flooded_out": f.counter_data.packets if f is not None and f.counter_data else 0})
    return rows


def _show_acl(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    rows = []
    entries = sorted(_entries(sw, N.ACL, counters=True), key=lambda e: -e.priority)
    for i, e in enumerate(entries):
        text = describe_entity(TableEntry(e.table, e.match, e.action))
        match, _, action = text.partition(" -> ")
        rows.append({"rule": i, "priority": e.priority, "match": match.split(" ", 1)[1] if " " in match else "*",
                     "action": action, "packets": e.counter_data.packets if e.counter_data else 0})
    return rows


def _show_meters(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    rows = []
    cells = [(N.PORT_METER, int(e.match["ingress_port"])) for e in _entries(sw, N.PORT_POLICER)]
    cells += [(N.VLAN_METER, int(e.match["vlan_id"])) for e in _entries(sw, N.VLAN_POLICER)]
    cells += sorted({(N.ACL_METER, int(e.action.params["meter_id"])) for e in _entries(sw, N.ACL)
                     if e.action.name.endswith("police")})
    for meter, index in cells:
        for m in sw.read(MeterEntry(meter, index)):
            c = m.config
            rows.append({"meter": meter.split(".")[-1], "index": index,
                         "cir_bit_s": c.cir * 8 if c else "", "cburst_bytes": c.cburst if c else "",
                         "pir_bit_s": c.pir * 8 if c else "", "pburst_bytes": c.pburst if c else ""})
    return rows


def _show_counters(sw: Switch, net: Network, cfg: SwitchConfig) -> list[dict]:
    rows = []
    for name, where in (("ingress.ingress_drop_counter", "ingress"), ("egress.egress_drop_counter", "egress")):
        for index, data in sorted(_counter(sw, name).items()):
            if data.packets:
                reason = DROP_REASONS[index] if index < len(DROP_REASONS) else str(index)
                rows.append({"counter": f"drop {where}", "what": reason, "packets": data.packets, "bytes": data.bytes})
    for name, what in (("ingress.ingress_port_counter", "rx port"), ("egress.egress_port_counter", "tx port")):
        for index, data in sorted(_counter(sw, name).items()):
            if data.packets:
                rows.append({"counter": what, "what": index, "packets": data.packets, "bytes": data.bytes})
    return rows


def table(rows: list[dict]) -> str:
    """Rows as an aligned text table."""
    if not rows:
        return "(none)"
    cols = list(rows[0])
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    lines = ["  ".join(c.upper().ljust(widths[c]) for c in cols).rstrip()]
    for r in rows:
        lines.append("  ".join(str(r.get(c, "")).ljust(widths[c]) for c in cols).rstrip())
    return "\n".join(lines)
