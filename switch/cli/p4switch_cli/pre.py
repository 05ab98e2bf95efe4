"""Packet replication commands: mc_* (multicast groups built from nodes) and mirroring_*.

BMv2 builds a multicast group from nodes (a rid and a port set each); P4Runtime writes a
group as its whole replica list. Each mc_* command that changes a group rewrites it at
once. A clone session to a multicast group (`mirroring_add_mc`) is written with the
group's replicas as they are at that moment: P4Runtime clone sessions hold replicas, not
a group reference, so a later change of the group does not reach the session.
"""
from __future__ import annotations

from p4rt import CloneSessionEntry, MulticastGroupEntry, Replica

from .session import Node, Session, need_args, parse_handle, parse_int
from .values import CliError


def _ports(texts: list[str]) -> list[int]:
    """A node's port list; BMv2's LAG list after `|` is not supported."""
    if "|" in texts:
        i = texts.index("|")
        if texts[i + 1:]:
            raise CliError("LAGs are not supported (p4switch's packet replication engine has no LAGs)")
        texts = texts[:i]
    ports = []
    for t in texts:
        try:
            p = int(t)
        except ValueError:
            raise CliError(f"'{t}' is not a valid port number") from None
        if p < 0:
            raise CliError(f"'{t}' is not a valid port number")
        if p in ports:
            raise CliError(f"Found duplicate port number '{p}'")
        ports.append(p)
    return sorted(ports)


def _port_map(ports: list[int]) -> str:
    """BMv2's port map string: bit i (from the right) set for port i."""
    return "".join("1" if p in ports else "0" for p in range(max(ports, default=-1), -1, -1))


def _group(s: Session, text: str) -> int:
    try:
        g = int(text)
    except ValueError:
        raise CliError("Bad format for multicast group id") from None
    return g


def _node(s: Session, text: str) -> tuple[int, Node]:
    h = parse_handle(text, "node handle")
    node = s.nodes.get(h)
    if node is None:
        raise CliError(f"Invalid PRE operation (INVALID_L1_HANDLE): no node with handle {h}")
    return h, node


def _replicas(s: Session, group: int) -> list[Replica]:
    return [Replica(port, s.nodes.get(h).rid) for h in s.mc_groups[group] for port in s.nodes.get(h).ports]


def _rewrite(s: Session, group: int) -> None:
    s.write("MODIFY", MulticastGroupEntry(group, _replicas(s, group)))


def mc_mgrp_create(s: Session, args: list[str]) -> None:
    """Create multicast group: mc_mgrp_create <group id>"""
    need_args(args, 1)
    g = _group(s, args[0])
    s.out(f"Creating multicast group {g}")
    if g in s.mc_groups:
        raise CliError(f"Invalid PRE operation (DUPLICATE_MGID): group {g} exists")
    s.write("INSERT", MulticastGroupEntry(g, []))
    s.mc_groups[g] = []


def mc_mgrp_destroy(s: Session, args: list[str]) -> None:
    """Destroy multicast group: mc_mgrp_destroy <group id>"""
    need_args(args, 1)
    g = _group(s, args[0])
    s.out(f"Destroying multicast group {g}")
    if g not in s.mc_groups:
        raise CliError(f"Invalid PRE operation (INVALID_MGID): no group {g}")
    s.write("DELETE", MulticastGroupEntry(g))
    for h in s.mc_groups.pop(g):
        s.nodes.get(h).groups.discard(g)


def mc_node_create(s: Session, args: list[str]) -> None:
    """Create multicast node: mc_node_create <rid> <space-separated port list> [ | <space-separated lag list> ]"""
    need_args(args, 1, at_least=True)
    rid = parse_int(args[0], "rid")
    ports = _ports(args[1:])
    s.out(f"Creating node with rid {rid} , port map {_port_map(ports)} and lag map ")
    h = s.nodes.add(Node(rid, ports))
    s.out(f"node was created with handle {h}")


def mc_node_update(s: Session, args: list[str]) -> None:
    """Update multicast node: mc_node_update <node handle> <space-separated port list> [ | <space-separated lag list> ]"""
    need_args(args, 2, at_least=True)
    h, node = _node(s, args[0])
    ports = _ports(args[1:])
    s.out(f"Updating node {h} with port map {_port_map(ports)} and lag map ")
    old = node.ports
    node.ports = ports
    try:
        for g in sorted(node.groups):
            _rewrite(s, g)
    except CliError:
        node.ports = old
        raise


def mc_node_associate(s: Session, args: list[str]) -> None:
    """Associate node to multicast group: mc_node_associate <group handle> <node handle>"""
    need_args(args, 2)
    g = _group(s, args[0])
    h, node = _node(s, args[1])
    s.out(f"Associating node {h} to multicast group {g}")
    if g not in s.mc_groups:
        raise CliError(f"Invalid PRE operation (INVALID_MGID): no group {g}")
    if node.groups:
        raise CliError(f"Invalid PRE operation (L1_HANDLE_ALREADY_ASSOCIATED): node {h} belongs "
                       f"to group {min(node.groups)}")
    s.mc_groups[g].append(h)
    try:
        _rewrite(s, g)
    except CliError:
        s.mc_groups[g].remove(h)
        raise
    node.groups.add(g)


def mc_node_dissociate(s: Session, args: list[str]) -> None:
    """Dissociate node from multicast group: mc_node_dissociate <group handle> <node handle>"""
    need_args(args, 2)
    g = _group(s, args[0])
    h, node = _node(s, args[1])
    s.out(f"Dissociating node {h} from multicast group {g}")
    if g not in s.mc_groups or h not in s.mc_groups[g]:
        raise CliError(f"Invalid PRE operation (L1_HANDLE_NOT_ASSOCIATED): node {h} is not in group {g}")
    s.mc_groups[g].remove(h)
    _rewrite(s, g)
    node.groups.discard(g)


def mc_node_destroy(s: Session, args: list[str]) -> None:
    """Destroy multicast node: mc_node_destroy <node handle>"""
    need_args(args, 1)
    h, node = _node(s, args[0])
    s.out(f"Destroying node {h}")
    for g in sorted(node.groups):
        s.mc_groups[g].remove(h)
        _rewrite(s, g)
    s.nodes.remove(h)


def mc_dump(s: Session, args: list[str]) -> None:
    """Dump entries in multicast engine: mc_dump"""
    need_args(args, 0)
    s.out("==========")
    s.out("MC ENTRIES")
    for g in sorted(s.mc_groups):
        s.out("**********")
        s.out(f"mgrp({g})")
        for h in s.mc_groups[g]:
            node = s.nodes.get(h)
            s.out(f"  -> (L1h={h}, rid={node.rid}) -> (ports=[{', '.join(map(str, node.ports))}], lags=[])")
    s.out("==========")
    s.out("LAGS")
    s.out("None for this PRE type")
    s.out("==========")


def _session_write(s: Session, entry: CloneSessionEntry) -> None:
    """Add a clone session, replacing one with the same id (as BMv2 does)."""
    existing = [e for e in s.read_if_supported(CloneSessionEntry(entry.session_id))
                if isinstance(e, CloneSessionEntry) and e.session_id == entry.session_id]
    s.write("MODIFY" if existing else "INSERT", entry)


def mirroring_add(s: Session, args: list[str]) -> None:
    """Add mirroring session to unicast port: mirroring_add <mirror_id> <egress_port>"""
    need_args(args, 2)
    sid, port = parse_int(args[0], "mirror_id"), parse_int(args[1], "egress_port")
    _session_write(s, CloneSessionEntry(sid, [Replica(port, 0)]))


def mirroring_add_mc(s: Session, args: list[str]) -> None:
    """Add mirroring session to multicast group: mirroring_add_mc <mirror_id> <mgrp>"""
    need_args(args, 2)
    sid, g = parse_int(args[0], "mirror_id"), _group(s, args[1])
    if g not in s.mc_groups:
        raise CliError(f"Invalid mirroring operation: multicast group {g} does not exist")
    _session_write(s, CloneSessionEntry(sid, _replicas(s, g)))


def mirroring_delete(s: Session, args: list[str]) -> None:
    """Delete mirroring session: mirroring_delete <mirror_id>"""
    need_args(args, 1)
    s.write("DELETE", CloneSessionEntry(parse_int(args[0], "mirror_id")))


def mirroring_get(s: Session, args: list[str]) -> None:
    """Display mirroring session: mirroring_get <mirror_id>"""
    need_args(args, 1)
    sid = parse_int(args[0], "mirror_id")
    got = [e for e in s.read_if_supported(CloneSessionEntry(sid))
           if isinstance(e, CloneSessionEntry) and e.session_id == sid]
    if not got:
        raise CliError(f"Invalid mirroring operation (SESSION_NOT_FOUND): no session {sid}")
    reps = got[0].replicas
    if len(reps) == 1 and reps[0].instance == 0:
        s.out(f"MirroringSessionConfig(port={reps[0].port}, mgid=None)")
    else:
        shown = ", ".join(f"(port={r.port}, rid={r.instance})" for r in reps)
        s.out(f"MirroringSessionConfig(port=None, replicas=[{shown}])")


COMMANDS = {f.__name__: f for f in (
    mc_mgrp_create, mc_mgrp_destroy, mc_node_create, mc_node_update, mc_node_associate,
    mc_node_dissociate, mc_node_destroy, mc_dump, mirroring_add, mirroring_add_mc,
    mirroring_delete, mirroring_get)}
