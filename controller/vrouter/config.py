"""The network description: a typed schema (dataclasses) and its YAML loader with exact error paths."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from .units import BadValue, parse_duration, parse_grpc_address, parse_interface, parse_ipv4, parse_mac, \
    parse_prefix, parse_rate, parse_size

MAX_PORT = 510          # bit<9>, 511 is the drop port
MAX_LABEL = (1 << 20) - 1
PROTOCOLS = {"icmp": 1, "tcp": 6, "udp": 17, "gre": 47, "ospf": 89}
ACL_ACTIONS = ("permit", "deny", "punt", "copy", "redirect")
LSP_ROLES = ("ingress", "transit", "egress")
TTL_MODELS = {"uniform": 0, "pipe": 1}
NULL_LABELS = {"implicit-null": 3, "explicit-null": 0}
DEFAULT_MTU = 1500


class ConfigError(Exception):
    """One or more problems in a network description; str() lists them, one per line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


# --- the schema ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Policer:
    """A two-rate three-colour policer: rates in bit/s, bursts in bytes."""

    name: str
    cir: int
    pir: int
    cburst: int
    pburst: int
    yellow_dscp: int | None = None


@dataclass(frozen=True)
class Port:
    """A switch port: access (one VLAN) or trunk (allowed VLANs, optional native VLAN)."""

    number: int
    mode: str
    vlans: tuple[int, ...]
    native: int | None = None
    mtu: int | None = None          # as written; None = the default link MTU (DEFAULT_MTU)
    policer: str | None = None
    name: str = ""
    link: tuple[str, int] | None = None   # cabled to (switch, port) of the same description
    max_macs: int | None = None           # stations learned on the port; None = learning.max_macs_per_port
    on_limit: str | None = None           # past max_macs; None = learning.on_limit

    @property
    def link_mtu(self) -> int:
        """The port's MTU, given or default."""
        return DEFAULT_MTU if self.mtu is None else self.mtu

    @property
    def access_vlan(self) -> int | None:
        """The VLAN of an access port."""
        return self.vlans[0] if self.mode == "access" else None

    def untagged(self) -> int | None:
        """The VLAN of untagged frames (access VLAN or native), if any."""
        return self.vlans[0] if self.mode == "access" else self.native

    def tagged(self) -> tuple[int, ...]:
        """The VLANs the port sends and accepts tagged."""
        return self.vlans if self.mode == "trunk" else ()

    def carries(self) -> tuple[int, ...]:
        """Every VLAN the port carries (allowed and native)."""
        out = list(self.vlans)
        if self.native is not None and self.native not in out:
            out.append(self.native)
        return tuple(out)


NAT_MODES = ("none", "masquerade")


@dataclass(frozen=True)
class Interface:
    """A router interface (SVI) of a VLAN."""

    address: ipaddress.IPv4Interface
    mac: str
    mtu: int = 1500
    masquerade: bool = False   # `nat: masquerade`: source NAT of routed TCP/UDP leaving here


@dataclass(frozen=True)
class Vlan:
    """A VLAN with an optional router interface and policer."""

    id: int
    name: str = ""
    interface: Interface | None = None
    policer: str | None = None
    max_macs: int | None = None           # stations learned in the VLAN; None = learning.max_macs_per_vlan


@dataclass(frozen=True)
class StaticMac:
    """A station pinned to a port."""

    vlan: int
    mac: str
    port: int


@dataclass(frozen=True)
class Route:
    """A static route: next hops (ECMP when several), or a black hole."""

    prefix: ipaddress.IPv4Network
    via: tuple[ipaddress.IPv4Address, ...] = ()
    drop: bool = False


@dataclass(frozen=True)
class Lsp:
    """An MPLS LSP as seen by this switch: ingress push, transit swap/pop, or egress pop."""

    name: str
    role: str
    ttl_model: str = "uniform"
    fec: ipaddress.IPv4Network | None = None      # ingress
    labels: tuple[int, ...] = ()                   # ingress (outer first)
    via: ipaddress.IPv4Address | None = None       # ingress, transit
    in_label: int | None = None                    # transit, egress
    out_label: int | None = None                   # transit: 3 = PHP, 0 = explicit null


@dataclass(frozen=True)
class Pseudowire:
    """A VPLS pseudowire to a remote PE: labels out (pushed) and in (bound here), over an ingress LSP."""

    peer: str
    lsp: str                                       # an ingress LSP of this switch: transport label + next hop
    in_label: int
    out_label: int
    macs: tuple[str, ...] = ()                     # static stations behind the pseudowire


@dataclass(frozen=True)
class Vpls:
    """A VPLS instance: a VLAN of this switch bridged to remote PEs over pseudowires."""

    name: str
    vlan: int
    pseudowires: tuple[Pseudowire, ...]


@dataclass(frozen=True)
class AclMatch:
    """ACL match fields; None is a wildcard. Ports are inclusive ranges."""

    in_port: int | None = None
    vlan: int | None = None
    src_mac: str | None = None
    dst_mac: str | None = None
    ether_type: int | None = None
    src: ipaddress.IPv4Network | None = None
    dst: ipaddress.IPv4Network | None = None
    protocol: int | None = None
    dscp: int | None = None
    src_port: tuple[int, int] | None = None
    dst_port: tuple[int, int] | None = None
    tcp_flags: tuple[int, int] | None = None       # (value, mask)


@dataclass(frozen=True)
class AclRule:
    """One ordered ACL rule: match, action, optional policer."""

    match: AclMatch
    action: str
    name: str = ""
    policer: str | None = None
    via: ipaddress.IPv4Address | None = None      # redirect: the next hop


@dataclass(frozen=True)
class ZonePair:
    """Stateful firewall: connections open from `trusted` to `untrusted` only."""

    trusted: str
    untrusted: str


@dataclass(frozen=True)
class Tls:
    """P4Runtime over TLS: the CA that signed the switch's certificate, this controller's certificate
    and key (for a switch that requires client certificates), the name the switch's certificate carries."""

    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None
    server_name: str | None = None


@dataclass
class SwitchConfig:
    """One switch-router of the network."""

    name: str
    address: str
    device_id: int = 0
    tls: Tls | None = None
    cpu_port: int = 255
    ports: dict[int, Port] = field(default_factory=dict)
    vlans: dict[int, Vlan] = field(default_factory=dict)
    static_macs: list[StaticMac] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    lsps: list[Lsp] = field(default_factory=list)
    vpls: dict[str, Vpls] = field(default_factory=dict)
    acl: list[AclRule] = field(default_factory=list)
    zones: dict[str, tuple[int, ...]] = field(default_factory=dict)
    zone_pairs: list[ZonePair] = field(default_factory=list)
    routes_file: Any = None     # a routefile.RouteFile: its routes are the last ones in `routes`

    def interface_for(self, address: ipaddress.IPv4Address) -> Vlan | None:
        """The VLAN whose router interface subnet holds `address`."""
        for vlan in self.vlans.values():
            if vlan.interface is not None and address in vlan.interface.address.network:
                return vlan
        return None


ON_LIMIT = ("no-learn", "drop", "shutdown")


@dataclass(frozen=True)
class Learning:
    """How many stations `vrouter run` learns, how fast, and what happens past the limits."""

    max_macs_per_port: int = 1024
    max_macs_per_vlan: int = 4096
    on_limit: str = "no-learn"      # no-learn: keep forwarding, learn nothing more; drop: drop frames from
                                    # unknown sources on the port; shutdown: take the port out of service
    rate: int = 100                 # stations learned or moved per second per port
    move_limit: int = 4             # moves of one station within move_window before it is held
    move_window: float = 10.0
    move_hold: float = 60.0         # seconds a flapping station stays where it was


@dataclass(frozen=True)
class Arp:
    """How much ARP `vrouter run` takes: per port, and neighbours in total."""

    rate: int = 200                 # ARP packets handled per second per port (more are dropped, counted)
    max_neighbors: int = 2048


@dataclass
class Network:
    """A whole network description."""

    file: str
    p4info: Path
    device_config: Path
    mac_aging: float = 300.0
    learning: Learning = field(default_factory=Learning)
    arp: Arp = field(default_factory=Arp)
    neighbor_refresh: float = 30.0      # re-ARP a neighbour not heard from for this long (s)
    neighbor_probes: int = 3            # unanswered probes (1 s apart) before it is withdrawn
    policers: dict[str, Policer] = field(default_factory=dict)
    switches: dict[str, SwitchConfig] = field(default_factory=dict)


# --- the loader ---------------------------------------------------------------------------


class _Checker:
    """Walks the YAML tree, converting values and collecting `path: reason` problems."""

    def __init__(self, file: str, base: Path = Path(".")) -> None:
        self.file = file
        self.base = base                    # relative paths in the description start here
        self.problems: list[str] = []

    def fail(self, path: str, reason: str) -> None:
        self.problems.append(f"{self.file}: {path}: {reason}" if path else f"{self.file}: {reason}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict | None:
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping, got {_kind(value)}")
            return None
        ok = True
        for key in value:
            if key not in allowed:
                self.fail(_join(path, key), f"unknown key (expected one of: {', '.join(allowed)})")
                ok = False
        for key in required:
            if key not in value:
                self.fail(path, f"missing key '{key}'")
                ok = False
        return value if ok else None

    def seq(self, value: Any, path: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(path, f"expected a list, got {_kind(value)}")
            return []
        return value

    def convert(self, fn, value: Any, path: str) -> Any:
        try:
            return fn(value)
        except BadValue as exc:
            self.fail(path, str(exc))
            return None

    def integer(self, value: Any, path: str, low: int, high: int, what: str) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"{value!r} is not {what} ({low}-{high})")
            return None
        if not low <= value <= high:
            self.fail(path, f"{value} is not {what} ({low}-{high})")
            return None
        return value

    def vlan_id(self, value: Any, path: str) -> int | None:
        return self.integer(value, path, 1, 4094, "a VLAN id")

    def port(self, value: Any, path: str) -> int | None:
        return self.integer(value, path, 0, MAX_PORT, "a port number")

    def name(self, value: Any, path: str) -> str | None:
        if not isinstance(value, str) or not value:
            self.fail(path, f"{value!r} is not a name (a non-empty string)")
            return None
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: f"the string {value!r}", bool: f"{value!r}"}.get(
        type(value), f"{type(value).__name__} {value!r}")


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


# libyaml's C parser when PyYAML was built with it (the pinned wheel is): the daemon re-reads the
# whole description on every change, so parsing speed is route-churn CPU.
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(path: str | Path) -> Network:
    """Read and validate a network description file; raise ConfigError listing every problem."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError([f"{path.name}: cannot read: {exc.strerror}"]) from exc
    return loads(text, path.name, base=path.parent)


def loads(text: str, file: str = "<string>", base: Path | None = None) -> Network:
    """Validate a network description given as YAML text."""
    try:
        tree = _parse_yaml(text, file)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{file}: {where}not valid YAML: {reason}"]) from exc
    return from_tree(tree, file, base or Path("."))


def _parse_yaml(text: str, file: str) -> Any:
    """The YAML document; a key given twice in one mapping is an error naming both lines
    (YAML loaders keep the last one silently)."""
    loader = YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        problems = _duplicate_keys(loader, node, file)
        if problems:
            raise ConfigError(problems)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _duplicate_keys(loader: Any, root: yaml.Node, file: str) -> list[str]:
    problems: list[str] = []
    seen_nodes: set[int] = set()
    todo: list[tuple[yaml.Node, str]] = [(root, "")]
    while todo:
        node, path = todo.pop()
        if id(node) in seen_nodes:      # an alias: already checked where its anchor is
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            lines: dict[Any, int] = {}
            for key_node, value_node in node.value:
                key = loader.construct_object(key_node, deep=True) if isinstance(key_node, yaml.ScalarNode) else None
                line = key_node.start_mark.line + 1
                try:
                    first = lines.get(key) if key is not None else None
                except TypeError:       # an unhashable key: the schema checks refuse it
                    first = None
                if first is not None:
                    problems.append(f"{file}: {_join(path, key)}: defined twice, at line {first} and line {line} "
                                    "(YAML would keep only the last; remove one)")
                elif key is not None:
                    lines[key] = line
                todo.append((value_node, _join(path, key if key is not None else "?")))
        elif isinstance(node, yaml.SequenceNode):
            todo.extend((item, f"{path}[{i}]") for i, item in enumerate(node.value))
    problems.sort(key=lambda p: int(p.split(" and line ")[1].split(" ")[0]))
    return problems


def from_tree(tree: Any, file: str, base: Path) -> Network:
    """Validate an already-parsed YAML tree."""
    c = _Checker(file, base)
    top = c.mapping(tree, "", ("pipeline", "mac_aging", "neighbor_refresh", "neighbor_probes", "learning", "arp",
                                   "policers", "switches"), ("switches",))
    if top is None:
        raise ConfigError(c.problems)
    root = _repo_root(base)
    p4info = root / "build" / "vrouter.p4info.txtpb"
    device_config = root / "build" / "vrouter.json"
    if "pipeline" in top:
        pipe = c.mapping(top["pipeline"], "pipeline", ("p4info", "config"))
        if pipe:
            if "p4info" in pipe:
                p4info = base / str(pipe["p4info"])
            if "config" in pipe:
                device_config = base / str(pipe["config"])
    net = Network(file, p4info, device_config)
    if "mac_aging" in top:
        aging = c.convert(parse_duration, top["mac_aging"], "mac_aging")
        if aging is not None:
            net.mac_aging = aging
    if "neighbor_refresh" in top:
        refresh = c.convert(parse_duration, top["neighbor_refresh"], "neighbor_refresh")
        if refresh is not None and refresh < 1:
            c.fail("neighbor_refresh", f"{refresh:g} s is shorter than the 1 s between ARP probes")
        elif refresh is not None:
            net.neighbor_refresh = refresh
    if "neighbor_probes" in top:
        probes = c.integer(top["neighbor_probes"], "neighbor_probes", 1, 10, "a number of probes")
        if probes is not None:
            net.neighbor_probes = probes
    if "learning" in top:
        net.learning = _learning(c, top["learning"], "learning")
    if "arp" in top:
        net.arp = _arp(c, top["arp"], "arp")
    policers = top.get("policers") or {}
    if c.mapping(policers, "policers", tuple(policers) if isinstance(policers, dict) else ()) is not None:
        for name, spec in policers.items():
            pol = _policer(c, str(name), spec, f"policers.{name}")
            if pol:
                net.policers[str(name)] = pol
    switches = top["switches"]
    if not isinstance(switches, dict) or not switches:
        c.fail("switches", f"expected a mapping of switch names to switches, got {_kind(switches)}")
    else:
        seen_addresses: dict[tuple[str, int], str] = {}
        for name, spec in switches.items():
            sw = _switch(c, net, str(name), spec, f"switches.{name}")
            if sw is None:
                continue
            other = seen_addresses.get((sw.address, sw.device_id))
            if other:
                c.fail(f"switches.{name}.address", f"{sw.address} device {sw.device_id} is already switch {other}")
            seen_addresses[(sw.address, sw.device_id)] = sw.name
            net.switches[sw.name] = sw
        _check_links(c, net)
        if not c.problems:                  # needs every instance loaded
            _check_pseudowire_peers(c, net)
    if c.problems:
        raise ConfigError(c.problems)
    return net


def _check_links(c: _Checker, net: Network) -> None:
    """Links between switches: the far end exists, points back, and carries the same VLANs on the wire."""
    for name, sw in net.switches.items():
        for num, port in sw.ports.items():
            if port.link is None:
                continue
            path = f"switches.{name}.ports.{num}.link"
            peer_name, peer_num = port.link
            peer_sw = net.switches.get(peer_name)
            if peer_sw is None:
                c.fail(f"{path}.switch", f"{peer_name!r} is not a switch of this description")
                continue
            peer = peer_sw.ports.get(peer_num)
            if peer is None:
                c.fail(f"{path}.port", f"port {peer_num} is not defined in switches.{peer_name}.ports")
                continue
            if (peer_name, peer_num) == (name, num):
                c.fail(path, "a port cannot be linked to itself")
                continue
            if peer.link is not None and peer.link != (name, num):
                c.fail(path, f"switches.{peer_name}.ports.{peer_num} is linked to "
                             f"{peer.link[0]} port {peer.link[1]}, not back to {name} port {num}")
                continue
            if set(port.tagged()) != set(peer.tagged()):
                c.fail(path, f"the ends send different tagged VLANs: {sorted(port.tagged())} here, "
                             f"{sorted(peer.tagged())} on {peer_name} port {peer_num}")
            elif (port.untagged() is None) != (peer.untagged() is None):
                c.fail(path, f"only one end carries untagged frames ({name} port {num}: "
                             f"{port.untagged() or 'none'}, {peer_name} port {peer_num}: {peer.untagged() or 'none'})")


MAX_STATIONS = 1 << 20


def _learning(c: _Checker, spec: Any, path: str) -> Learning:
    keys = ("max_macs_per_port", "max_macs_per_vlan", "on_limit", "rate", "move_limit", "move_window", "move_hold")
    m = c.mapping(spec, path, keys)
    if m is None:
        return Learning()
    d = Learning()
    vals: dict[str, Any] = {}
    for key in ("max_macs_per_port", "max_macs_per_vlan"):
        if key in m:
            vals[key] = c.integer(m[key], f"{path}.{key}", 0, MAX_STATIONS, "a number of stations")
    if "on_limit" in m:
        vals["on_limit"] = _on_limit(c, m["on_limit"], f"{path}.on_limit")
    if "rate" in m:
        vals["rate"] = c.integer(m["rate"], f"{path}.rate", 1, 100_000, "a number of stations per second")
    if "move_limit" in m:
        vals["move_limit"] = c.integer(m["move_limit"], f"{path}.move_limit", 1, 1000, "a number of moves")
    for key in ("move_window", "move_hold"):
        if key in m:
            vals[key] = c.convert(parse_duration, m[key], f"{path}.{key}")
    return replace(d, **{k: v for k, v in vals.items() if v is not None})


def _on_limit(c: _Checker, value: Any, path: str) -> str | None:
    if value not in ON_LIMIT:
        c.fail(path, f"{value!r} is not an action past the station limit ({', '.join(ON_LIMIT)})")
        return None
    return value


def _arp(c: _Checker, spec: Any, path: str) -> Arp:
    m = c.mapping(spec, path, ("rate", "max_neighbors"))
    if m is None:
        return Arp()
    vals = {}
    if "rate" in m:
        vals["rate"] = c.integer(m["rate"], f"{path}.rate", 1, 1_000_000, "a number of ARP packets per second")
    if "max_neighbors" in m:
        vals["max_neighbors"] = c.integer(m["max_neighbors"], f"{path}.max_neighbors", 1, 32768,
                                          "a number of neighbours")
    return replace(Arp(), **{k: v for k, v in vals.items() if v is not None})


def _tls(c: _Checker, spec: Any, path: str) -> Tls | None:
    m = c.mapping(spec, path, ("ca", "cert", "key", "server_name"))
    if m is None:
        return None
    files: dict[str, Path] = {}
    for key in ("ca", "cert", "key"):
        if key not in m:
            continue
        file = c.base / str(m[key])
        try:
            head = file.read_bytes()[:4096]
        except OSError as exc:
            c.fail(f"{path}.{key}", f"cannot read {file}: {exc.strerror}")
            continue
        if b"-----BEGIN " not in head:
            c.fail(f"{path}.{key}", f"{file} is not a PEM file")
            continue
        files[key] = file
    if ("cert" in m) != ("key" in m):
        c.fail(path, "a client certificate needs its key ('cert' and 'key' go together)")
        return None
    name = m.get("server_name")
    if name is not None and (not isinstance(name, str) or not name):
        c.fail(f"{path}.server_name", f"{name!r} is not a host name")
        name = None
    return Tls(files.get("ca"), files.get("cert"), files.get("key"), name)


def _repo_root(base: Path) -> Path:
    here = base.resolve()
    for folder in (here, *here.parents):
        if (folder / "p4src" / "vrouter.p4").exists():
            return folder
    return Path(__file__).resolve().parents[2]


def _policer(c: _Checker, name: str, spec: Any, path: str) -> Policer | None:
    m = c.mapping(spec, path, ("cir", "pir", "cburst", "pburst", "yellow_dscp"), ("cir", "cburst"))
    if m is None:
        return None
    cir = c.convert(parse_rate, m["cir"], f"{path}.cir")
    pir = c.convert(parse_rate, m["pir"], f"{path}.pir") if "pir" in m else cir
    cburst = c.convert(parse_size, m["cburst"], f"{path}.cburst")
    pburst = c.convert(parse_size, m["pburst"], f"{path}.pburst") if "pburst" in m else cburst
    dscp = None
    if "yellow_dscp" in m:
        dscp = c.integer(m["yellow_dscp"], f"{path}.yellow_dscp", 0, 63, "a DSCP value")
    ok = None not in (cir, pir, cburst, pburst)
    if cir == 0:
        c.fail(f"{path}.cir", "a rate of 0 passes nothing; remove the policer instead")
        ok = False
    if cir and pir is not None and pir < cir:
        c.fail(f"{path}.pir", f"peak rate {pir} bit/s is below the committed rate {cir} bit/s")
        ok = False
    for key, burst in (("cburst", cburst), ("pburst", pburst if "pburst" in m else None)):
        if burst is not None and burst < 64:
            c.fail(f"{path}.{key}", f"{burst} bytes is smaller than one frame (>= 64 bytes)")
            ok = False
    return Policer(name, cir, pir, cburst, pburst, dscp) if ok else None


def _switch(c: _Checker, net: Network, name: str, spec: Any, path: str) -> SwitchConfig | None:
    keys = ("address", "device_id", "tls", "cpu_port", "ports", "vlans", "static_macs", "routes", "routes_file",
            "lsps", "vpls", "acl", "firewall")
    m = c.mapping(spec, path, keys, ("address",))
    if m is None:
        return None
    address = c.convert(parse_grpc_address, m["address"], f"{path}.address")
    sw = SwitchConfig(name, str(address if address is not None else m["address"]))
    if "device_id" in m:
        device = c.integer(m["device_id"], f"{path}.device_id", 0, (1 << 64) - 1, "a device id")
        sw.device_id = 0 if device is None else device
    if "tls" in m:
        sw.tls = _tls(c, m["tls"], f"{path}.tls")
    if "cpu_port" in m:
        cpu = c.port(m["cpu_port"], f"{path}.cpu_port")
        sw.cpu_port = 255 if cpu is None else cpu
    vlans = m.get("vlans") or {}
    if not isinstance(vlans, dict):
        c.fail(f"{path}.vlans", f"expected a mapping of VLAN ids to VLANs, got {_kind(vlans)}")
        vlans = {}
    for vid, vspec in vlans.items():
        vpath = f"{path}.vlans.{vid}"
        vlan_id = c.vlan_id(vid, vpath)
        vlan = _vlan(c, net, vlan_id, vspec or {}, vpath)
        if vlan_id is not None and vlan is not None:
            sw.vlans[vlan_id] = vlan
    _check_subnets(c, sw, path)
    ports = m.get("ports") or {}
    if not isinstance(ports, dict):
        c.fail(f"{path}.ports", f"expected a mapping of port numbers to ports, got {_kind(ports)}")
        ports = {}
    for number, pspec in ports.items():
        ppath = f"{path}.ports.{number}"
        num = c.port(number, ppath)
        if num is not None and num == sw.cpu_port:
            c.fail(ppath, f"port {num} is the CPU port")
            continue
        port = _port(c, net, sw, num, pspec, ppath)
        if num is not None and port is not None:
            sw.ports[num] = port
    _check_mtus(c, sw, path)
    for i, item in enumerate(c.seq(m.get("static_macs"), f"{path}.static_macs")):
        smac = _static_mac(c, sw, item, f"{path}.static_macs[{i}]")
        if smac:
            sw.static_macs.append(smac)
    prefixes: dict[ipaddress.IPv4Network, int] = {}
    for i, item in enumerate(c.seq(m.get("routes"), f"{path}.routes")):
        rpath = f"{path}.routes[{i}]"
        route = _route(c, sw, item, rpath)
        if route is None:
            continue
        if route.prefix in prefixes:
            c.fail(f"{rpath}.prefix", f"{route.prefix} is already routed by routes[{prefixes[route.prefix]}]")
            continue
        connected = [v.id for v in sw.vlans.values() if v.interface and v.interface.address.network == route.prefix]
        if connected:
            c.fail(f"{rpath}.prefix", f"{route.prefix} is the connected subnet of VLAN {connected[0]}")
            continue
        prefixes[route.prefix] = i
        sw.routes.append(route)
    names: set[str] = set()
    for i, item in enumerate(c.seq(m.get("lsps"), f"{path}.lsps")):
        lsp = _lsp(c, sw, item, f"{path}.lsps[{i}]", i)
        if lsp is None:
            continue
        if lsp.fec is not None and lsp.fec in prefixes:
            c.fail(f"{path}.lsps[{i}].fec", f"{lsp.fec} is already routed by routes[{prefixes[lsp.fec]}]")
            continue
        if lsp.fec is not None:
            prefixes[lsp.fec] = i
        if lsp.name in names:
            c.fail(f"{path}.lsps[{i}].name", f"LSP name {lsp.name!r} is used twice")
        names.add(lsp.name)
        sw.lsps.append(lsp)
    if m.get("routes_file") is not None:
        _routes_file(c, sw, m["routes_file"], f"{path}.routes_file")
    _check_labels(c, sw, path)
    if m.get("vpls") is not None:
        _vpls(c, sw, m["vpls"], f"{path}.vpls")
    for i, item in enumerate(c.seq(m.get("acl"), f"{path}.acl")):
        rule = _acl_rule(c, net, sw, item, f"{path}.acl[{i}]")
        if rule:
            sw.acl.append(rule)
    if "firewall" in m:
        _firewall(c, sw, m["firewall"], f"{path}.firewall")
    return sw


def _routes_file(c: _Checker, sw: SwitchConfig, value: Any, path: str) -> None:
    """Routes kept in a file of their own (routefile.py), after those of `routes:`."""
    from . import routefile     # it builds on this module's types

    if not isinstance(value, str) or not value:
        c.fail(path, f"{value!r} is not a file name")
        return
    taken = {r.prefix: f"{path.rsplit('.', 1)[0]}.routes" for r in sw.routes}
    taken |= {lsp.fec: f"{path.rsplit('.', 1)[0]}.lsps.{lsp.name}" for lsp in sw.lsps if lsp.fec is not None}
    file = c.base / value
    if not file.exists():
        c.fail(path, f"{value}: no such file (an empty file for no routes)")
        return
    try:
        rf = routefile.load(sw, file, value, taken)
    except ConfigError as exc:
        c.problems += exc.problems
        return
    sw.routes_file = rf
    sw.routes += rf.routes()


def _vlan(c: _Checker, net: Network, vid: int | None, spec: Any, path: str) -> Vlan | None:
    m = c.mapping(spec, path, ("name", "interface", "policer", "max_macs"))
    if m is None:
        return None
    iface = None
    if "interface" in m:
        ipath = f"{path}.interface"
        im = c.mapping(m["interface"], ipath, ("address", "mac", "mtu", "nat"), ("address", "mac"))
        if im is not None:
            addr = c.convert(parse_interface, im["address"], f"{ipath}.address")
            mac = _unicast_mac(c, im["mac"], f"{ipath}.mac")
            # 0 = not given: _check_mtus derives it from the ports carrying the VLAN
            mtu = c.integer(im["mtu"], f"{ipath}.mtu", 68, 9216, "an IP MTU") if "mtu" in im else 0
            nat = im.get("nat", "none")
            if nat not in NAT_MODES:
                c.fail(f"{ipath}.nat", f"expected one of {', '.join(NAT_MODES)}, got {nat!r}")
                nat = None
            if addr is not None and mac is not None and mtu is not None and nat is not None:
                iface = Interface(addr, mac, mtu, nat == "masquerade")
    policer = _policer_ref(c, net, m.get("policer"), f"{path}.policer")
    max_macs = c.integer(m["max_macs"], f"{path}.max_macs", 0, MAX_STATIONS, "a number of stations") \
        if "max_macs" in m else None
    if vid is None:
        return None
    return Vlan(vid, str(m.get("name", "")), iface, policer, max_macs)


def _check_subnets(c: _Checker, sw: SwitchConfig, path: str) -> None:
    seen: list[tuple[ipaddress.IPv4Network, int]] = []
    for vlan in sw.vlans.values():
        if vlan.interface is None:
            continue
        net = vlan.interface.address.network
        for other, vid in seen:
            if net.overlaps(other):
                c.fail(f"{path}.vlans.{vlan.id}.interface.address",
                       f"subnet {net} overlaps VLAN {vid}'s subnet {other}")
        seen.append((net, vlan.id))


def _policer_ref(c: _Checker, net: Network, value: Any, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in net.policers:
        known = ", ".join(net.policers) or "none defined"
        c.fail(path, f"unknown policer {value!r} (policers: {known})")
        return None
    return value


def _port(c: _Checker, net: Network, sw: SwitchConfig, num: int | None, spec: Any, path: str) -> Port | None:
    m = c.mapping(spec, path, ("name", "mode", "vlan", "vlans", "native", "mtu", "policer", "link", "max_macs",
                               "on_limit"))
    if m is None:
        return None
    limits = {}
    if "max_macs" in m:
        limits["max_macs"] = c.integer(m["max_macs"], f"{path}.max_macs", 0, MAX_STATIONS, "a number of stations")
    if "on_limit" in m:
        limits["on_limit"] = _on_limit(c, m["on_limit"], f"{path}.on_limit")
    mode = m.get("mode", "trunk" if "vlans" in m else "access")
    if mode not in ("access", "trunk"):
        c.fail(f"{path}.mode", f"{mode!r} is not a port mode (access or trunk)")
        return None
    mtu = c.integer(m["mtu"], f"{path}.mtu", 68, 9216, "an IP MTU") if "mtu" in m else None
    policer = _policer_ref(c, net, m.get("policer"), f"{path}.policer")
    link = None
    if "link" in m:
        lm = c.mapping(m["link"], f"{path}.link", ("switch", "port"), ("switch", "port"))
        if lm is not None:
            peer_port = c.port(lm["port"], f"{path}.link.port")
            if peer_port is not None:
                link = (str(lm["switch"]), peer_port)
    if mode == "access":
        for key in ("vlans", "native"):
            if key in m:
                c.fail(f"{path}.{key}", "only trunk ports have this key (set mode: trunk)")
        if "vlan" not in m:
            c.fail(path, "missing key 'vlan' (the access VLAN)")
            return None
        vid = c.vlan_id(m["vlan"], f"{path}.vlan")
        if vid is not None and vid not in sw.vlans:
            c.fail(f"{path}.vlan", f"VLAN {vid} is not defined in {_vlans_path(sw)}")
            vid = None
        if vid is None or num is None or ("mtu" in m and mtu is None):
            return None
        return Port(num, "access", (vid,), None, mtu, policer, str(m.get("name", "")), link, **limits)
    if "vlan" in m:
        c.fail(f"{path}.vlan", "a trunk port lists 'vlans' (and optionally 'native'), not 'vlan'")
    vids: list[int] = []
    for i, v in enumerate(c.seq(m.get("vlans"), f"{path}.vlans")):
        vid = c.vlan_id(v, f"{path}.vlans[{i}]")
        if vid is None:
            continue
        if vid not in sw.vlans:
            c.fail(f"{path}.vlans[{i}]", f"VLAN {vid} is not defined in {_vlans_path(sw)}")
        elif vid in vids:
            c.fail(f"{path}.vlans[{i}]", f"VLAN {vid} is listed twice")
        else:
            vids.append(vid)
    native = None
    if m.get("native") is not None:
        native = c.vlan_id(m["native"], f"{path}.native")
        if native is not None and native not in sw.vlans:
            c.fail(f"{path}.native", f"VLAN {native} is not defined in {_vlans_path(sw)}")
            native = None
    if num is None or ("mtu" in m and mtu is None):
        return None
    vids = [v for v in vids if v != native]
    return Port(num, "trunk", tuple(vids), native, mtu, policer, str(m.get("name", "")), link, **limits)


def _check_mtus(c: _Checker, sw: SwitchConfig, path: str) -> None:
    """Map port MTUs onto what vrouter.p4 enforces: the MTU of each router interface (per VLAN).

    A routed packet leaves through the interface of its egress VLAN, on any port carrying that
    VLAN, so the interface MTU must fit every such port: without `interface.mtu` it is the
    smallest MTU of the ports carrying the VLAN (as a Linux bridge takes its ports' smallest);
    with one, a port carrying the VLAN with a smaller MTU is an error. The program does not
    check bridged frames, so an MTU on a port none of whose VLANs has an interface is refused.
    """
    for num, port in sw.ports.items():
        routed = [sw.vlans[v] for v in port.carries() if v in sw.vlans and sw.vlans[v].interface is not None]
        if port.mtu is not None and not routed:
            vlans = ", ".join(str(v) for v in port.carries()) or "none"
            c.fail(f"{path}.ports.{num}.mtu",
                   f"no VLAN of this port (VLANs: {vlans}) has a router interface, and vrouter.p4 checks the "
                   "MTU only of packets routed out of a router interface; remove the key")
        for vlan in routed:
            if vlan.interface.mtu <= port.link_mtu:       # 0 = not given, derived below
                continue
            where, what = (f"{path}.ports.{num}.mtu", f"MTU {port.mtu}") if port.mtu is not None else \
                (f"{path}.ports.{num}", f"MTU {DEFAULT_MTU} (the default, no mtu key)")
            c.fail(where, f"{what} is below the MTU {vlan.interface.mtu} of VLAN {vlan.id}'s router interface "
                          f"({path}.vlans.{vlan.id}.interface.mtu), which routes packets out of this port; "
                          "raise the port's mtu or lower the interface's")
    for vid, vlan in sw.vlans.items():
        if vlan.interface is not None and vlan.interface.mtu == 0:
            mtus = [p.link_mtu for p in sw.ports.values() if vid in p.carries()]
            sw.vlans[vid] = replace(vlan, interface=replace(vlan.interface, mtu=min(mtus, default=DEFAULT_MTU)))


def _vlans_path(sw: SwitchConfig) -> str:
    return f"switches.{sw.name}.vlans"


def _static_mac(c: _Checker, sw: SwitchConfig, spec: Any, path: str) -> StaticMac | None:
    m = c.mapping(spec, path, ("vlan", "mac", "port"), ("vlan", "mac", "port"))
    if m is None:
        return None
    vid = c.vlan_id(m["vlan"], f"{path}.vlan")
    mac = _unicast_mac(c, m["mac"], f"{path}.mac")
    port = c.port(m["port"], f"{path}.port")
    if None in (vid, mac, port):
        return None
    p = sw.ports.get(port)
    if p is None:
        c.fail(f"{path}.port", f"port {port} is not defined in switches.{sw.name}.ports")
        return None
    if vid not in p.carries():
        c.fail(f"{path}.vlan", f"port {port} does not carry VLAN {vid}")
        return None
    return StaticMac(vid, mac, port)


def _unicast_mac(c: _Checker, value: Any, path: str) -> str | None:
    """A MAC a station or router interface can have: not multicast, not all zero."""
    mac = c.convert(parse_mac, value, path)
    if mac is not None and int(mac[:2], 16) & 1:
        c.fail(path, f"{mac} is a multicast MAC address")
        return None
    if mac == "00:00:00:00:00:00":
        c.fail(path, f"{mac} is not a station's address (all zero)")
        return None
    return mac


def _next_hop(c: _Checker, sw: SwitchConfig, value: Any, path: str) -> ipaddress.IPv4Address | None:
    addr = c.convert(parse_ipv4, value, path)
    if addr is None:
        return None
    vlan = sw.interface_for(addr)
    if vlan is None:
        c.fail(path, f"next hop {addr} is not in the subnet of any router interface of {sw.name}")
        return None
    if addr == vlan.interface.address.ip:
        c.fail(path, f"next hop {addr} is {sw.name}'s own address on VLAN {vlan.id}")
        return None
    subnet = vlan.interface.address.network
    if subnet.prefixlen < 31 and addr in (subnet.network_address, subnet.broadcast_address):
        c.fail(path, f"next hop {addr} is the network or broadcast address of VLAN {vlan.id}'s subnet {subnet}")
        return None
    return addr


def _route(c: _Checker, sw: SwitchConfig, spec: Any, path: str) -> Route | None:
    m = c.mapping(spec, path, ("prefix", "via", "drop"), ("prefix",))
    if m is None:
        return None
    prefix = c.convert(parse_prefix, m["prefix"], f"{path}.prefix")
    drop = m.get("drop", False)
    if not isinstance(drop, bool):
        c.fail(f"{path}.drop", f"{drop!r} is not true or false")
        return None
    if drop == ("via" in m):
        c.fail(path, "a route has either 'via' (next hop or ECMP list) or 'drop: true'")
        return None
    via: list[ipaddress.IPv4Address] = []
    bad = prefix is None
    if "via" in m:
        listed = isinstance(m["via"], list)
        items = m["via"] if listed else [m["via"]]
        if not items:
            c.fail(f"{path}.via", "an empty list of next hops")
            bad = True
        for i, item in enumerate(items):
            hpath = f"{path}.via[{i}]" if listed else f"{path}.via"
            hop = _next_hop(c, sw, item, hpath)
            if hop is None:
                bad = True
            elif hop in via:
                c.fail(hpath, f"next hop {hop} is listed twice")
                bad = True
            else:
                via.append(hop)
    if bad:
        return None
    return Route(prefix, tuple(via), drop)


def _label(c: _Checker, value: Any, path: str, low: int = 16) -> int | None:
    return c.integer(value, path, low, MAX_LABEL, "an MPLS label")


def _lsp(c: _Checker, sw: SwitchConfig, spec: Any, path: str, index: int) -> Lsp | None:
    keys = ("name", "role", "ttl_model", "fec", "labels", "via", "in_label", "out_label")
    m = c.mapping(spec, path, keys, ("role",))
    if m is None:
        return None
    role = m["role"]
    if role not in LSP_ROLES:
        c.fail(f"{path}.role", f"{role!r} is not an LSP role ({', '.join(LSP_ROLES)})")
        return None
    name = str(m.get("name", f"lsp{index}"))
    ttl = m.get("ttl_model", "uniform")
    if ttl not in TTL_MODELS:
        c.fail(f"{path}.ttl_model", f"{ttl!r} is not a TTL model (uniform or pipe)")
        return None
    wanted = {"ingress": ("labels", "via"), "transit": ("in_label", "out_label", "via"),
              "egress": ("in_label",)}[role]
    ok = True
    for key in wanted:
        if key not in m:
            c.fail(path, f"missing key '{key}' (an {role} LSP needs {', '.join(wanted)})")
            ok = False
    for key in ("fec", "labels", "via", "in_label", "out_label"):
        if key in m and key not in wanted and not (key == "fec" and role == "ingress"):
            c.fail(f"{path}.{key}", f"an {role} LSP has no '{key}'")
            ok = False
    if not ok:
        return None
    lsp = Lsp(name, role, ttl)
    if role == "ingress":
        # Without fec the LSP routes nothing: it only carries pseudowires (vpls).
        fec = c.convert(parse_prefix, m["fec"], f"{path}.fec") if "fec" in m else None
        labels = c.seq(m["labels"], f"{path}.labels")
        if not 1 <= len(labels) <= 2:
            c.fail(f"{path}.labels", f"{len(labels)} labels: an ingress LSP pushes 1 or 2")
            return None
        vals = [_label(c, v, f"{path}.labels[{i}]") for i, v in enumerate(labels)]
        via = _next_hop(c, sw, m["via"], f"{path}.via")
        if ("fec" in m and fec is None) or via is None or None in vals:
            return None
        return Lsp(name, role, ttl, fec=fec, labels=tuple(vals), via=via)
    in_label = _label(c, m["in_label"], f"{path}.in_label")
    if role == "egress":
        return None if in_label is None else Lsp(name, role, ttl, in_label=in_label)
    out = m["out_label"]
    if isinstance(out, str) and out in NULL_LABELS:
        out_label = NULL_LABELS[out]
    else:
        out_label = c.integer(out, f"{path}.out_label", 16, MAX_LABEL,
                              "an MPLS label (or implicit-null / explicit-null)") if not isinstance(out, str) else None
        if isinstance(out, str):
            c.fail(f"{path}.out_label", f"{out!r} is not an MPLS label (16-{MAX_LABEL}, implicit-null, explicit-null)")
    via = _next_hop(c, sw, m["via"], f"{path}.via")
    if None in (in_label, out_label, via):
        return None
    return Lsp(name, role, ttl, via=via, in_label=in_label, out_label=out_label)


def _check_labels(c: _Checker, sw: SwitchConfig, path: str) -> None:
    seen: dict[int, str] = {}
    for i, lsp in enumerate(sw.lsps):
        if lsp.in_label is None:
            continue
        if lsp.in_label in seen:
            c.fail(f"{path}.lsps[{i}].in_label", f"label {lsp.in_label} is already bound by LSP {seen[lsp.in_label]}")
        seen[lsp.in_label] = lsp.name


def _vpls(c: _Checker, sw: SwitchConfig, spec: Any, path: str) -> None:
    """VPLS instances: `NAME: {vlan: V, pseudowires: [{peer, lsp, in_label, out_label, macs}]}`."""
    if not isinstance(spec, dict):
        c.fail(path, f"expected a mapping of VPLS instance names to instances, got {_kind(spec)}")
        return
    labels = {lsp.in_label: f"LSP {lsp.name}" for lsp in sw.lsps if lsp.in_label is not None}
    vlans: dict[int, str] = {}
    stations = {(m.vlan, m.mac) for m in sw.static_macs}
    lsps = {lsp.name: lsp for lsp in sw.lsps}
    for name, ispec in spec.items():
        ipath = f"{path}.{name}"
        m = c.mapping(ispec, ipath, ("vlan", "pseudowires"), ("vlan", "pseudowires"))
        if m is None:
            continue
        vid = c.vlan_id(m["vlan"], f"{ipath}.vlan")
        if vid is not None and vid not in sw.vlans:
            c.fail(f"{ipath}.vlan", f"VLAN {vid} is not defined in {_vlans_path(sw)}")
            vid = None
        elif vid is not None and vid in vlans:
            c.fail(f"{ipath}.vlan", f"VLAN {vid} is already the bridge domain of VPLS instance {vlans[vid]}")
            vid = None
        if vid is not None:
            vlans[vid] = str(name)
        items = c.seq(m["pseudowires"], f"{ipath}.pseudowires")
        if not items and isinstance(m["pseudowires"], list):
            c.fail(f"{ipath}.pseudowires", "an empty list: a VPLS instance needs at least one pseudowire")
        pws: list[Pseudowire] = []
        for i, item in enumerate(items):
            ppath = f"{ipath}.pseudowires[{i}]"
            pm = c.mapping(item, ppath, ("peer", "lsp", "in_label", "out_label", "macs"),
                           ("peer", "lsp", "in_label", "out_label"))
            if pm is None:
                continue
            peer = c.name(pm["peer"], f"{ppath}.peer")
            if peer is not None and any(p.peer == peer for p in pws):
                c.fail(f"{ppath}.peer", f"VPLS instance {name} already has a pseudowire to {peer}")
                peer = None
            lsp = lsps.get(pm["lsp"]) if isinstance(pm["lsp"], str) else None
            if lsp is None:
                ingress = ", ".join(n for n, lsp_ in lsps.items() if lsp_.role == "ingress") or "none"
                c.fail(f"{ppath}.lsp", f"{pm['lsp']!r} is not an LSP of {sw.name} (ingress LSPs: {ingress})")
            elif lsp.role != "ingress":
                c.fail(f"{ppath}.lsp", f"LSP {lsp.name} has role {lsp.role}; a pseudowire needs an ingress LSP "
                                       "(labels, via)")
                lsp = None
            elif len(lsp.labels) != 1:
                c.fail(f"{ppath}.lsp", f"LSP {lsp.name} pushes {len(lsp.labels)} labels; under the pseudowire label "
                                       "that makes 3 and vrouter.p4 pushes at most 2: use a 1-label LSP")
                lsp = None
            in_label = _label(c, pm["in_label"], f"{ppath}.in_label")
            if in_label is not None and in_label in labels:
                c.fail(f"{ppath}.in_label", f"label {in_label} is already bound by {labels[in_label]}")
                in_label = None
            out_label = _label(c, pm["out_label"], f"{ppath}.out_label")
            macs: list[str] = []
            for j, value in enumerate(c.seq(pm.get("macs"), f"{ppath}.macs")):
                mac = _unicast_mac(c, value, f"{ppath}.macs[{j}]")
                if mac is None:
                    continue
                if vid is not None and (vid, mac) in stations:
                    c.fail(f"{ppath}.macs[{j}]", f"{mac} is already a station of VLAN {vid} "
                                                 "(static_macs or another pseudowire)")
                else:
                    stations.add((vid, mac))
                    macs.append(mac)
            if None in (peer, lsp, in_label, out_label):
                continue
            labels[in_label] = f"VPLS {name} pseudowire to {peer}"
            pws.append(Pseudowire(peer, lsp.name, in_label, out_label, tuple(macs)))
        if vid is not None and pws and len(pws) == len(items):
            sw.vpls[str(name)] = Vpls(str(name), vid, tuple(pws))


def _check_pseudowire_peers(c: _Checker, net: "Network") -> None:
    """A pseudowire to a switch of this description must meet one back with the labels swapped."""
    for sw in net.switches.values():
        for inst in sw.vpls.values():
            for i, pw in enumerate(inst.pseudowires):
                peer = net.switches.get(pw.peer)
                if peer is None:
                    continue                        # a PE outside this description
                path = f"switches.{sw.name}.vpls.{inst.name}.pseudowires[{i}]"
                other = peer.vpls.get(inst.name)
                back = [p for p in other.pseudowires if p.peer == sw.name] if other else []
                if not back:
                    c.fail(path, f"switch {pw.peer} has no pseudowire back to {sw.name} in VPLS instance {inst.name}")
                elif back[0].in_label != pw.out_label:
                    c.fail(f"{path}.out_label", f"{pw.out_label} is not the label {pw.peer} binds for this "
                                                f"pseudowire (its in_label {back[0].in_label})")


_ACL_MATCH_KEYS = ("in_port", "vlan", "src_mac", "dst_mac", "ether_type", "src", "dst", "protocol", "dscp",
                   "src_port", "dst_port", "tcp_flags")
TCP_FLAGS = {"fin": 0x01, "syn": 0x02, "rst": 0x04, "psh": 0x08, "ack": 0x10, "urg": 0x20, "ece": 0x40, "cwr": 0x80}


def _acl_rule(c: _Checker, net: Network, sw: SwitchConfig, spec: Any, path: str) -> AclRule | None:
    m = c.mapping(spec, path, ("name", "match", "action", "policer", "via"), ("action",))
    if m is None:
        return None
    action = m["action"]
    if action not in ACL_ACTIONS:
        c.fail(f"{path}.action", f"{action!r} is not an ACL action ({', '.join(ACL_ACTIONS)})")
        return None
    via = None
    if action == "redirect":
        if "via" not in m:
            c.fail(path, "missing key 'via' (the next hop of a redirect)")
            return None
        via = _next_hop(c, sw, m["via"], f"{path}.via")
        if via is None:
            return None
    elif "via" in m:
        c.fail(f"{path}.via", f"only 'redirect' rules have a next hop (this rule is '{action}')")
        return None
    policer = _policer_ref(c, net, m.get("policer"), f"{path}.policer")
    if "policer" in m and action != "permit":
        c.fail(f"{path}.policer", f"only 'permit' rules can police (this rule is '{action}')")
        return None
    mm = c.mapping(m.get("match") or {}, f"{path}.match", _ACL_MATCH_KEYS)
    if mm is None:
        return None
    mp = f"{path}.match"
    fields: dict[str, Any] = {}
    before = len(c.problems)
    if "in_port" in mm:
        fields["in_port"] = c.port(mm["in_port"], f"{mp}.in_port")
    if "vlan" in mm:
        fields["vlan"] = c.vlan_id(mm["vlan"], f"{mp}.vlan")
    for key in ("src_mac", "dst_mac"):
        if key in mm:
            fields[key] = c.convert(parse_mac, mm[key], f"{mp}.{key}")
    if "ether_type" in mm:
        fields["ether_type"] = c.integer(mm["ether_type"], f"{mp}.ether_type", 0, 0xFFFF, "an EtherType")
    for key in ("src", "dst"):
        if key in mm:
            fields[key] = c.convert(parse_prefix, mm[key], f"{mp}.{key}")
    if "protocol" in mm:
        proto = mm["protocol"]
        if isinstance(proto, str) and proto.lower() in PROTOCOLS:
            fields["protocol"] = PROTOCOLS[proto.lower()]
        elif isinstance(proto, int) and not isinstance(proto, bool) and 0 <= proto <= 255:
            fields["protocol"] = proto
        else:
            c.fail(f"{mp}.protocol", f"{proto!r} is not an IP protocol ({', '.join(PROTOCOLS)} or 0-255)")
    if "dscp" in mm:
        fields["dscp"] = c.integer(mm["dscp"], f"{mp}.dscp", 0, 63, "a DSCP value")
    for key in ("src_port", "dst_port"):
        if key in mm:
            fields[key] = _port_range(c, mm[key], f"{mp}.{key}")
            if fields.get("protocol") not in (6, 17):
                c.fail(f"{mp}.{key}", "L4 ports need protocol: tcp or udp")
    if "tcp_flags" in mm:
        fields["tcp_flags"] = _tcp_flags(c, mm["tcp_flags"], f"{mp}.tcp_flags")
        if fields.get("protocol") != 6:
            c.fail(f"{mp}.tcp_flags", "TCP flags need protocol: tcp")
    if len(c.problems) != before:
        return None
    return AclRule(AclMatch(**fields), action, str(m.get("name", "")), policer, via)


def _tcp_flags(c: _Checker, value: Any, path: str) -> tuple[int, int] | None:
    """`{set: [syn], clear: [ack]}`: the named flags must be set / clear, the others are ignored."""
    m = c.mapping(value, path, ("set", "clear"))
    if m is None:
        return None
    bits: dict[str, int] = {}
    for key in ("set", "clear"):
        total = 0
        for i, flag in enumerate(c.seq(m.get(key), f"{path}.{key}")):
            if not isinstance(flag, str) or flag.lower() not in TCP_FLAGS:
                c.fail(f"{path}.{key}[{i}]", f"{flag!r} is not a TCP flag ({', '.join(TCP_FLAGS)})")
                return None
            total |= TCP_FLAGS[flag.lower()]
        bits[key] = total
    if bits["set"] & bits["clear"]:
        c.fail(path, "a flag cannot be both set and clear")
        return None
    if not bits["set"] | bits["clear"]:
        c.fail(path, "name at least one flag under 'set' or 'clear'")
        return None
    return bits["set"], bits["set"] | bits["clear"]


def _port_range(c: _Checker, value: Any, path: str) -> tuple[int, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        low = high = value
    elif isinstance(value, str) and "-" in value:
        a, _, b = value.partition("-")
        if not (a.strip().isdigit() and b.strip().isdigit()):
            c.fail(path, f"{value!r} is not a port or port range (e.g. 80 or 1024-65535)")
            return None
        low, high = int(a), int(b)
    else:
        c.fail(path, f"{value!r} is not a port or port range (e.g. 80 or 1024-65535)")
        return None
    if not (0 <= low <= high <= 0xFFFF):
        c.fail(path, f"{value!r} is not a port range within 0-65535 (low <= high)")
        return None
    return (low, high)


def _firewall(c: _Checker, sw: SwitchConfig, spec: Any, path: str) -> None:
    m = c.mapping(spec, path, ("zones", "pairs"), ("zones", "pairs"))
    if m is None:
        return
    zones = m["zones"]
    if not isinstance(zones, dict):
        c.fail(f"{path}.zones", f"expected a mapping of zone names to VLAN lists, got {_kind(zones)}")
        return
    owner: dict[int, str] = {}
    for zname, vl in zones.items():
        vids = []
        for i, v in enumerate(c.seq(vl, f"{path}.zones.{zname}")):
            vid = c.vlan_id(v, f"{path}.zones.{zname}[{i}]")
            if vid is None:
                continue
            if vid not in sw.vlans:
                c.fail(f"{path}.zones.{zname}[{i}]", f"VLAN {vid} is not defined in {_vlans_path(sw)}")
            elif vid in owner:
                c.fail(f"{path}.zones.{zname}[{i}]", f"VLAN {vid} is already in zone {owner[vid]}")
            else:
                owner[vid] = str(zname)
                vids.append(vid)
        sw.zones[str(zname)] = tuple(vids)
    if len(sw.zones) > 255:
        c.fail(f"{path}.zones", f"{len(sw.zones)} zones: at most 255")
    seen: set[tuple[str, str]] = set()
    for i, item in enumerate(c.seq(m["pairs"], f"{path}.pairs")):
        ppath = f"{path}.pairs[{i}]"
        pm = c.mapping(item, ppath, ("trusted", "untrusted"), ("trusted", "untrusted"))
        if pm is None:
            continue
        ok = True
        for key in ("trusted", "untrusted"):
            if pm[key] not in sw.zones:
                c.fail(f"{ppath}.{key}", f"unknown zone {pm[key]!r} (zones: {', '.join(sw.zones)})")
                ok = False
        if not ok:
            continue
        if pm["trusted"] == pm["untrusted"]:
            c.fail(ppath, "a zone pair needs two different zones")
            continue
        pair = (pm["trusted"], pm["untrusted"])
        if pair in seen or pair[::-1] in seen:
            c.fail(ppath, f"zones {pair[0]} and {pair[1]} are already paired")
            continue
        seen.add(pair)
        sw.zone_pairs.append(ZonePair(*pair))
