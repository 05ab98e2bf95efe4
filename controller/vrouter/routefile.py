"""A switch's routes in a file of their own (`routes_file:`), which `vrouter run` re-reads by difference.

Where a routing daemon, a script or an operator owns many routes, they go in a plain text file
named by the description (per switch, relative to the description's folder), one route a line:

    172.16.0.1/32 via 10.0.20.2
    10.9.0.0/16 via 10.0.20.2 10.0.30.2     # ECMP: several next hops
    192.0.2.0/24 drop                       # a black hole

They are the switch's routes exactly as if listed under `routes:` (same checks; `vrouter check`,
`diff` and `apply` read the file too), so the description and its routes file stay the one
statement of what the switch must hold. What changes is the cost of changing them: the daemon
compares the file's lines with the lines it last took and parses, checks and writes only those
that differ, instead of re-reading and re-planning the whole description. Writers replace the
file atomically (write a temporary file beside it, then rename it over the old one).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

from .config import ConfigError, Route, SwitchConfig

Net = ipaddress.IPv4Network
Addr = ipaddress.IPv4Address


def identity(path: Path) -> tuple | None:
    """What changes when the file is replaced or rewritten (None if it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def canonical(raw: str) -> str:
    """The route of a line with comments and extra blanks removed ("" for none); the line itself
    (not a copy) when it is already so, as a program writes them."""
    line = " ".join(raw.split("#", 1)[0].split())
    return raw if line == raw else line


def canonical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, canonical route) for every non-empty line."""
    return [(n, line) for n, line in enumerate(map(canonical, text.splitlines()), 1) if line]


@dataclass
class RouteFile:
    """The routes a file held when last taken: canonical line -> route, in file order."""

    path: Path
    name: str                                   # as the description gives it (for messages)
    taken: dict[Net, str]                       # prefixes the description routes itself -> where
    ident: tuple | None = None
    lines: dict[str, Route] = field(default_factory=dict)
    prefixes: dict[Net, str] = field(default_factory=dict)     # prefix -> its line
    ecmp: int = 0                               # lines with several next hops (none: no order to compare)
    raw: dict[str, str] | None = None           # each line as written -> canonical(line)

    def routes(self) -> list[Route]:
        return list(self.lines.values())

    def changed(self) -> bool:
        return identity(self.path) != self.ident


@dataclass
class Change:
    """A new state of the file and the routes that came and went with it."""

    new: RouteFile
    added: list[Route]
    removed: list[Route]

    def ecmp_moved(self, old: RouteFile) -> bool:
        """Whether ECMP routes came, went or changed order (their group ids follow their order)."""
        if any(len(r.via) > 1 for r in (*self.added, *self.removed)):
            return True
        if not old.ecmp:        # none before and none came: skip comparing every line (O(file) a take)
            return False
        def order(rf: RouteFile) -> list[str]:
            return [line for line, r in rf.lines.items() if len(r.via) > 1]
        return order(old) != order(self.new)


def _prefix(text: str) -> Net | None:
    """`a.b.c.d/len` as an IPv4Network (host bits zero), or None. The address is read by
    inet_pton and the network built from (int, len): 40 % cheaper than IPv4Network(text);
    any other shape takes IPv4Network's own parse, which decides the same."""
    addr, slash, plen = text.partition("/")
    if slash and plen.isascii() and plen.isdigit() and len(plen) <= 2 and addr.count(".") == 3:
        try:
            return Net((int.from_bytes(socket.inet_pton(socket.AF_INET, addr), "big"), int(plen)))
        except (OSError, ValueError):
            return None
    try:
        return Net(text)
    except ValueError:
        return None


class _Parser:
    """Checks route lines against one switch: the checks of `routes:` entries in config.py."""

    def __init__(self, sw: SwitchConfig, name: str) -> None:
        self.name = name
        self.ifaces = [(v.interface.address.network, v.interface.address.ip, v.id)
                       for v in sw.vlans.values() if v.interface is not None]
        self.connected = {net: vid for net, _, vid in self.ifaces}
        self.sw = sw.name
        self.problems: list[str] = []
        self.hops: dict[str, Addr] = {}     # next hops already found good: routes share a few, and
                                            # parsing and placing each again was 40 % of a line's parse

    def fail(self, n: int, reason: str) -> None:
        self.problems.append(f"{self.name}:{n}: {reason}")

    def hop(self, n: int, text: str) -> Addr | None:
        good = self.hops.get(text)
        if good is not None:
            return good
        addr = self._hop(n, text)
        if addr is not None:
            self.hops[text] = addr
        return addr

    def _hop(self, n: int, text: str) -> Addr | None:
        try:
            addr = Addr(text)
        except ValueError:
            self.fail(n, f"{text!r} is not an IPv4 address")
            return None
        for net, own, vid in self.ifaces:
            if addr in net:
                if addr == own:
                    self.fail(n, f"next hop {addr} is {self.sw}'s own address on VLAN {vid}")
                elif net.prefixlen < 31 and addr in (net.network_address, net.broadcast_address):
                    self.fail(n, f"next hop {addr} is the network or broadcast address of VLAN {vid}'s subnet {net}")
                else:
                    return addr
                return None
        self.fail(n, f"next hop {addr} is not in the subnet of any router interface of {self.sw}")
        return None

    def route(self, n: int, line: str) -> Route | None:
        words = line.split()
        prefix = _prefix(words[0])
        if prefix is None:
            self.fail(n, f"{words[0]!r} is not an IPv4 prefix (a.b.c.d/len, host bits zero)")
            return None
        rest = words[1:]
        if rest == ["drop"]:
            route = Route(prefix, (), True)
        elif len(rest) >= 2 and rest[0] == "via":
            via: list[Addr] = []
            for text in rest[1:]:
                hop = self.hop(n, text)
                if hop is None:
                    return None
                if hop in via:
                    self.fail(n, f"next hop {hop} is listed twice")
                    return None
                via.append(hop)
            route = Route(prefix, tuple(via))
        else:
            self.fail(n, f"expected 'PREFIX via HOP [HOP ...]' or 'PREFIX drop', got {line!r}")
            return None
        if prefix in self.connected:
            self.fail(n, f"{prefix} is the connected subnet of VLAN {self.connected[prefix]}")
            return None
        return route


def load(sw: SwitchConfig, path: Path, name: str, taken: dict[Net, str]) -> RouteFile:
    """Read the whole file (ConfigError listing every bad line)."""
    rf = RouteFile(path, name, taken, identity(path))     # identity first: a later change is seen next time
    change = update(rf, sw, full=True)
    return change.new


def update(rf: RouteFile, sw: SwitchConfig, full: bool = False) -> Change:
    """The file's new state: only lines not taken before are parsed and checked (all with `full`)."""
    ident = identity(rf.path)
    try:
        text = rf.path.read_text()
    except OSError as exc:
        raise ConfigError([f"{rf.name}: cannot read: {exc.strerror}"]) from exc
    except UnicodeDecodeError as exc:
        line = exc.object[:exc.start].count(b"\n") + 1
        raise ConfigError([f"{rf.name}:{line}: not UTF-8 text (byte {exc.object[exc.start]:#04x})"]) from exc
    raws = text.splitlines()
    if not full and rf.raw is not None and not rf.ecmp:
        change = _by_difference(rf, sw, raws, ident)
        if change is not None:
            return change
    raw = {line: canonical(line) for line in raws}
    lines = [(n, raw[line]) for n, line in enumerate(raws, 1) if raw[line]]
    old = {} if full else rf.lines
    p = _Parser(sw, rf.name)
    new_lines: dict[str, Route] = {}
    fresh: list[tuple[int, str, Route]] = []
    for n, line in lines:
        if line in new_lines:
            p.fail(n, f"the same route as an earlier line: {line}")
            continue
        route = old.get(line)
        if route is None:
            route = p.route(n, line)
            if route is None:
                continue
            fresh.append((n, line, route))
        new_lines[line] = route
    # Kept lines were checked against each other when taken: only new ones can clash.
    removed = [r for line, r in old.items() if line not in new_lines]
    prefixes = dict(rf.prefixes) if not full else {}
    for r in removed:
        del prefixes[r.prefix]
    for n, line, route in fresh:
        where = rf.taken.get(route.prefix) if rf.taken else None
        first = prefixes.get(route.prefix)
        if where is not None:
            p.fail(n, f"{route.prefix} is already routed by the description ({where})")
        elif first is not None:
            p.fail(n, f"{route.prefix} is already routed by the line {first!r}")
        else:
            prefixes[route.prefix] = line
    if p.problems:
        raise ConfigError(sorted(p.problems, key=lambda text: int(text[len(rf.name) + 1:].split(":", 1)[0])))
    added = [route for _, _, route in fresh]
    ecmp = (0 if full else rf.ecmp) + sum(len(r.via) > 1 for r in added) - sum(len(r.via) > 1 for r in removed)
    return Change(RouteFile(rf.path, rf.name, rf.taken, ident, new_lines, prefixes, ecmp, raw), added, removed)


def _by_difference(rf: RouteFile, sw: SwitchConfig, raws: list[str], ident: tuple | None) -> Change | None:
    """`update` from the lines that came and went only (dict and set operations over the file's
    lines, no Python step per unchanged line): a 1,000-line file rewritten with 250 lines changed
    spent a third of its take canonicalising and comparing the 750 others. None where the file
    needs the line-by-line pass: a line twice, a bad or clashing line (that pass says where), an
    ECMP route (their order numbers their groups)."""
    seen = rf.raw
    now = dict.fromkeys(raws)
    if len(now) != len(raws):
        return None
    lines, raw, prefixes = dict(rf.lines), dict(seen), dict(rf.prefixes)
    removed = []
    for text in seen.keys() - now.keys():
        line = raw.pop(text)
        if line:
            route = lines.pop(line)
            del prefixes[route.prefix]
            removed.append(route)
    p = _Parser(sw, rf.name)
    added = []
    for text in [text for text in raws if text not in seen]:
        line = raw[text] = canonical(text)
        if not line:
            continue
        route = None if line in lines else p.route(0, line)
        if route is None or len(route.via) > 1 or route.prefix in prefixes \
                or (rf.taken and route.prefix in rf.taken):
            return None
        lines[line] = route
        prefixes[route.prefix] = line
        added.append(route)
    return Change(RouteFile(rf.path, rf.name, rf.taken, ident, lines, prefixes, 0, raw), added, removed)
