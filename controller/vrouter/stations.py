"""MAC learning an attacker cannot exhaust.

`StationTable` is the run-time station table ((VLAN, MAC) -> port or pseudowire) with its
counts per port and per VLAN kept as it changes. `LearningGuard` decides, for each station
a digest reports, whether `vrouter run` may install or move it: per-port and per-VLAN limits
(`learning.max_macs_per_port`, `ports.P.max_macs`, `vlans.V.max_macs`), the capacity of the
program's station tables, a learning rate per port, and damping of stations that flap
between ports. Every refusal is counted per port and reason; a port reaching its limit with
`on_limit: drop` is locked (the program drops frames from unknown sources on it), with
`on_limit: shutdown` it is taken out of service until the description is reloaded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .config import Network, SwitchConfig
from .pacing import TokenBucket

Key = tuple[int, str]          # (VLAN, MAC)
Where = Any                    # a port number, or desired.Pw for a station behind a pseudowire

REASONS = ("port_limit", "vlan_limit", "table_full", "rate", "flapping", "port_shut")


class StationTable(dict):
    """(VLAN, MAC) -> port or pseudowire, with the number of stations per port and per VLAN."""

    def __init__(self, items: dict | None = None) -> None:
        super().__init__()
        self.per_port: dict[Where, int] = {}
        self.per_vlan: dict[int, int] = {}
        for key, where in (items or {}).items():
            self[key] = where

    def _count(self, vlan: int, where: Where, step: int) -> None:
        for table, k in ((self.per_port, where), (self.per_vlan, vlan)):
            n = table.get(k, 0) + step
            if n:
                table[k] = n
            else:
                table.pop(k, None)

    def __setitem__(self, key: Key, where: Where) -> None:
        old = dict.get(self, key)
        if old is not None:
            self._count(key[0], old, -1)
        dict.__setitem__(self, key, where)
        self._count(key[0], where, 1)

    def __delitem__(self, key: Key) -> None:
        self._count(key[0], dict.__getitem__(self, key), -1)
        dict.__delitem__(self, key)

    def pop(self, key: Key, *default: Any) -> Any:
        if key in self:
            where = self[key]
            del self[key]
            return where
        if default:
            return default[0]
        raise KeyError(key)

    def clear(self) -> None:
        dict.clear(self)
        self.per_port.clear()
        self.per_vlan.clear()

    def on(self, where: Where) -> list[Key]:
        """The stations learned at `where`."""
        return [key for key, w in self.items() if w == where]


@dataclass
class PortStats:
    """What learning did on one port (or pseudowire) since the daemon started."""

    learned: int = 0
    moved: int = 0
    aged: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    arp_handled: int = 0                                   # ARP packets within the port's rate
    arp: dict[str, int] = field(default_factory=dict)     # ARP packets dropped, by reason

    def refuse(self, reason: str) -> None:
        self.refused[reason] = self.refused.get(reason, 0) + 1


@dataclass
class Verdict:
    """The guard's answer for one station: refused (with the reason) or not, and a port action to take now."""

    reason: str | None = None
    action: str | None = None       # "drop": lock the port; "shutdown": take it out of service


class LearningGuard:
    """Limits, rate and damping of learning for one switch."""

    def __init__(self, net: Network, cfg: SwitchConfig, capacity: int) -> None:
        self.net, self.cfg = net, cfg
        self.capacity = capacity                      # stations the program's tables hold
        self.buckets: dict[Where, TokenBucket] = {}
        self.moves: dict[Key, deque[float]] = {}      # recent move times of stations that moved
        self.held: dict[Key, float] = {}              # flapping stations: held where they are until
        self.stats: dict[Where, PortStats] = {}

    def reconfigure(self, net: Network, cfg: SwitchConfig) -> None:
        """A reloaded description: new limits and rates."""
        self.net, self.cfg = net, cfg
        self.buckets.clear()

    # --- limits of the description ---------------------------------------------------------

    def port_limit(self, where: Where) -> int | None:
        """Stations allowed on a port (None for a pseudowire: only its VLAN's limit applies)."""
        if not isinstance(where, int):
            return None
        port = self.cfg.ports.get(where)
        return port.max_macs if port is not None and port.max_macs is not None \
            else self.net.learning.max_macs_per_port

    def on_limit(self, where: Where) -> str:
        """What happens on a port past its limit: no-learn, drop or shutdown."""
        port = self.cfg.ports.get(where) if isinstance(where, int) else None
        return port.on_limit if port is not None and port.on_limit is not None else self.net.learning.on_limit

    def vlan_limit(self, vlan: int) -> int:
        """Stations allowed in a VLAN."""
        v = self.cfg.vlans.get(vlan)
        return v.max_macs if v is not None and v.max_macs is not None else self.net.learning.max_macs_per_vlan

    def port_stats(self, where: Where) -> PortStats:
        """The counters of a port or pseudowire."""
        stats = self.stats.get(where)
        if stats is None:
            stats = self.stats[where] = PortStats()
        return stats

    # --- decisions ---------------------------------------------------------------------------

    def admit(self, rt: Any, vlan: int, mac: str, where: Where, now: float) -> Verdict:
        """May the station (VLAN, MAC), seen at `where`, be learned there (or moved there)?

        `rt` is the run-time state (desired.Runtime): its station table and locked and shut ports.
        """
        stations: StationTable = rt.macs
        key = (vlan, mac)
        old = stations.get(key)
        stats = self.port_stats(where)
        if old is not None and old != where:
            if self.held.get(key, 0.0) > now:
                return self._refuse(stats, "flapping")
            times = self.moves.setdefault(key, deque())
            while times and now - times[0] > self.net.learning.move_window:
                times.popleft()
            times.append(now)
            if len(times) > self.net.learning.move_limit:
                self.held[key] = now + self.net.learning.move_hold
                times.clear()
                return self._refuse(stats, "flapping")
        if where in rt.shut_ports:
            return self._refuse(stats, "port_shut")
        limit = self.port_limit(where)
        if limit is not None and stations.per_port.get(where, 0) >= limit:
            action = self.on_limit(where)
            verdict = self._refuse(stats, "port_limit")
            if action == "drop" and where not in rt.locked_ports:
                verdict.action = "drop"
            elif action == "shutdown":
                verdict.action = "shutdown"
            return verdict
        if old is None and stations.per_vlan.get(vlan, 0) >= self.vlan_limit(vlan):
            return self._refuse(stats, "vlan_limit")
        if old is None and len(stations) >= self.capacity:
            return self._refuse(stats, "table_full")
        bucket = self.buckets.get(where)
        if bucket is None:
            rate = self.net.learning.rate
            bucket = self.buckets[where] = TokenBucket(rate, rate, now)
        if not bucket.take(now):
            return self._refuse(stats, "rate")
        if old is None:
            stats.learned += 1
        else:
            stats.moved += 1
        verdict = Verdict()
        if limit is not None and stations.per_port.get(where, 0) + 1 >= limit and self.on_limit(where) == "drop" \
                and where not in rt.locked_ports:
            verdict.action = "drop"       # this one fills the port: from now on unknown sources are dropped
        return verdict

    @staticmethod
    def _refuse(stats: PortStats, reason: str) -> Verdict:
        stats.refuse(reason)
        return Verdict(reason)

    def forget(self, key: Key, where: Where, aged: bool = True) -> None:
        """A station left (aged out, or dropped after a failed write)."""
        if aged:
            self.port_stats(where).aged += 1
        self.moves.pop(key, None)
        self.held.pop(key, None)

    def unlock_candidates(self, rt: Any) -> list[int]:
        """Locked ports that have room again (stations aged out), or whose limit action changed."""
        return [p for p in rt.locked_ports if rt.macs.per_port.get(p, 0) < (self.port_limit(p) or 0)
                or self.on_limit(p) != "drop"]

    def expire(self, now: float) -> None:
        """Drop damping state that no longer matters (keeps memory bounded by the station count)."""
        for key in [k for k, until in self.held.items() if until <= now]:
            del self.held[key]
        window = self.net.learning.move_window
        for key in [k for k, times in self.moves.items() if not times or now - times[-1] > window]:
            del self.moves[key]
