"""The daemon's status file: what `vrouter run` wants a switch to hold and how it is going.

`vrouter run` rewrites one JSON file per switch (at most once a second, when something
changed): whether the switch is in sync, the last write failure and when it retries, its
run-time state (neighbours, learned stations, locked and shut ports) and the learning and
ARP counters. `vrouter diff` plans against that state, so it reports what the daemon could
not write; `vrouter show limits` prints the counters. Files live in `$VROUTER_STATE_DIR`,
else /run/vrouter (root) or $TMPDIR/vrouter-UID.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .desired import Neighbor, Pw, Runtime


def state_dir() -> Path:
    """Where status files go."""
    if os.environ.get("VROUTER_STATE_DIR"):
        return Path(os.environ["VROUTER_STATE_DIR"])
    if os.geteuid() == 0:
        return Path("/run/vrouter")
    return Path(tempfile.gettempdir()) / f"vrouter-{os.getuid()}"


def state_file(description: str | Path, switch: str) -> Path:
    """The status file of one switch of one description file."""
    digest = hashlib.sha1(str(Path(description).resolve()).encode()).hexdigest()[:10]
    return state_dir() / f"{switch}-{digest}.json"


def write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file atomically (readers never see half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, default=str))
    os.replace(tmp, path)


def read_live(description: str | Path, switch: str) -> dict[str, Any] | None:
    """The status of a running daemon for this description and switch; None if none runs."""
    path = state_file(description, switch)
    try:
        data = json.loads(path.read_text())
        os.kill(int(data["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data


def runtime_to_json(rt: Runtime) -> dict[str, Any]:
    """The run-time state as plain JSON values."""
    return {
        "neighbors": [[str(n.ip), n.mac, n.port, n.vlan, rt.nexthop_ids.get(n.ip)] for n in rt.neighbors.values()],
        "stations": [[vlan, mac, str(where) if isinstance(where, Pw) else where] for (vlan, mac), where in
                     rt.macs.items()],
        "locked_ports": sorted(rt.locked_ports),
        "shut_ports": sorted(rt.shut_ports),
    }


def runtime_from_json(data: dict[str, Any]) -> Runtime:
    """The run-time state a daemon wrote."""
    rt = Runtime()
    for ip, mac, port, vlan, nid in data.get("neighbors", []):
        addr = ipaddress.IPv4Address(ip)
        rt.neighbors[addr] = Neighbor(addr, mac, port, vlan)
        if nid is not None:
            rt.nexthop_ids[addr] = nid
    for vlan, mac, where in data.get("stations", []):
        rt.macs[(vlan, mac)] = Pw(int(where[3:])) if isinstance(where, str) and where.startswith("pw:") else where
    rt.locked_ports = set(data.get("locked_ports", []))
    rt.shut_ports = set(data.get("shut_ports", []))
    return rt
