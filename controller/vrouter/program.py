"""Can the pipeline express the description? Checked from the files alone, before anything is written.

The P4Info and the device config of its architecture (BMv2 JSON for v1model; arch.py) named
by `pipeline:` must load, and every entity the description needs (with every configured next
hop resolved, so next-hop actions are encoded too) must encode against the P4Info and fit its
tables.
"""

from __future__ import annotations

from p4rt import EntityError, P4Schema, SchemaError, TableEntry, load_p4info

from . import names as N
from .arch import V1MODEL, arch_of
from .config import ConfigError, Network, SwitchConfig
from .desired import Desired, Neighbor, Runtime, desired_state


# The last pipeline that loaded and passed, by its files' identity (path, inode, size, mtime): the
# daemon checks every changed description, twice a second under route churn, and re-parsing the
# P4Info text and the ~1 MB BMv2 JSON each time was most of a reload's CPU. One entry: nothing grows.
_last_pipeline: tuple[tuple, P4Schema] | None = None


def _identity(*paths: Path) -> tuple | None:
    out = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            return None
        out.append((str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def load_schema(net: Network) -> P4Schema:
    """The P4Info of the description's pipeline, and a device config of its architecture (arch.py).
    Files unchanged since the last call that passed are not read again."""
    global _last_pipeline
    ident = _identity(net.p4info, net.device_config)     # before reading: a later change is seen next time
    if ident is not None and _last_pipeline is not None and _last_pipeline[0] == ident:
        return _last_pipeline[1]
    schema = _load_schema(net)
    if ident is not None:
        _last_pipeline = (ident, schema)
    return schema


def _load_schema(net: Network) -> P4Schema:
    problems = []
    schema = None
    try:
        schema = P4Schema(load_p4info(net.p4info))
    except SchemaError as exc:
        hint = "; compile the program first (make build-p4)" if not net.p4info.exists() else ""
        problems.append(f"{net.file}: pipeline.p4info: {exc}{hint}")
    arch = V1MODEL
    try:
        arch = arch_of(schema) if schema is not None else V1MODEL
    except ValueError as exc:
        problems.append(f"{net.file}: pipeline.p4info: {exc}")
    problems += arch.device_config_problems(net.file, net.device_config)
    if problems:
        raise ConfigError(problems)
    return schema


def _all_hops_resolved(sw: SwitchConfig) -> Runtime:
    """A run-time state where every configured next hop answered ARP, on a port of its VLAN."""
    rt = Runtime()
    hops = {h for r in sw.routes for h in r.via} | {lsp.via for lsp in sw.lsps if lsp.via is not None} \
        | {a.via for a in sw.acl if a.via is not None}
    for i, hop in enumerate(sorted(hops)):
        vlan = sw.interface_for(hop)
        port = next((p.number for p in sw.ports.values() if vlan is not None and vlan.id in p.carries()), None)
        if vlan is not None and port is not None:
            rt.neighbors[hop] = Neighbor(hop, f"02:00:00:00:{i >> 8 & 0xff:02x}:{i & 0xff:02x}", port, vlan.id)
    return rt


def capacity_problems(schema: P4Schema, net: Network, cfg: SwitchConfig, want: Desired) -> list[str]:
    """Tables the description needs more entries in than the program gives them."""
    counts: dict[str, int] = {}
    for e in [*want.entities, *want.acl]:
        if isinstance(e, TableEntry):
            counts[e.table] = counts.get(e.table, 0) + 1
    problems = []
    for table, n in sorted(counts.items()):
        size = schema.table(table).size
        if size and n > size:
            what = f"{len(want.acl)} ACL rules" if want.acl and table == want.acl[0].table else f"{n} entries"
            problems.append(f"{net.file}: switches.{cfg.name}: the description needs {what} in table {table}, "
                            f"which holds {size} in this program")
    return problems


def _drop_problems(schema: P4Schema, net: Network) -> list[str]:
    """`on_limit: drop` needs the program's port_security table."""
    if N.PORT_SECURITY in schema.tables:
        return []
    why = f"needs table {N.PORT_SECURITY}, which the program {net.p4info.name} lacks"
    out = [f"{net.file}: learning.on_limit: drop {why}"] if net.learning.on_limit == "drop" else []
    for cfg in net.switches.values():
        out += [f"{net.file}: switches.{cfg.name}.ports.{p.number}.on_limit: drop {why}"
                for p in cfg.ports.values() if p.on_limit == "drop"]
    return out


def check_program(net: Network) -> P4Schema:
    """Raise ConfigError unless the pipeline loads and holds every switch's description."""
    schema = load_schema(net)
    problems = _drop_problems(schema, net)
    arch = arch_of(schema)
    for cfg in net.switches.values():
        problems += [f"{net.file}: {p}" for p in arch.switch_problems(f"switches.{cfg.name}", cfg.cpu_port,
                                                                       N.CLONE_SESSION)]
        want = desired_state(net, cfg, _all_hops_resolved(cfg))
        bad: dict[str, str] = {}
        for e in [*want.entities, *want.acl]:
            try:
                e.encode(schema)
            except (EntityError, SchemaError) as exc:
                bad.setdefault(str(exc).splitlines()[0], "")
        problems += [f"{net.file}: switches.{cfg.name}: the program {net.p4info.name} cannot hold the description: "
                     f"{reason}" for reason in bad]
        if not bad:
            problems += capacity_problems(schema, net, cfg, want)
    if problems:
        raise ConfigError(problems)
    return schema
