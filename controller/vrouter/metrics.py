"""Prometheus metrics of `vrouter run` (served on `--metrics-addr HOST:PORT`, off by default).

Events are counted where they happen (`RouterMetrics`, one per switch, labelled `switch`);
the state the daemon already keeps (stations, neighbours, learning counters per port, sync
state) is read at scrape time by `StateCollector`, so nothing is counted twice. Names follow
Prometheus' conventions: a `vrouter_` prefix, base units (seconds), `_total` for counters.
"""

from __future__ import annotations

from typing import Any, Callable

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

# Reconciliation takes tens of ms for a campus, seconds for tens of thousands of entries.
CONVERGE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """The daemon's registry: event counters and the collector of every router's state."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.reconciles = Counter("vrouter_reconcile_runs", "Reconciliations run (full read of the switch and the "
                                  "writes that make it match), by trigger and result", ["switch", "trigger", "result"],
                                  registry=r)
        self.writes = Counter("vrouter_writes", "P4Runtime updates written, by what asked for them and outcome "
                              "(ok: applied; failed: refused by the switch)", ["switch", "writing", "outcome"],
                              registry=r)
        self.converge = Histogram("vrouter_converge_seconds", "Time to converge: a reconciliation's read, plan and "
                                  "writes, by trigger", ["switch", "trigger"], buckets=CONVERGE_BUCKETS, registry=r)
        self.recovery = Histogram("vrouter_recovery_seconds", "Switch lost (stream gone) until reconciled again",
                                  ["switch"], buckets=CONVERGE_BUCKETS, registry=r)
        self.retries = Counter("vrouter_retries", "Resyncs scheduled after a failure (backoff), by what failed",
                               ["switch", "after"], registry=r)
        self.limit_actions = Counter("vrouter_limit_actions", "Ports that reached their station limit, by the "
                                     "action taken (drop: port locked; shutdown)", ["switch", "action"], registry=r)
        self.packet_ins = Counter("vrouter_packet_ins", "Packets punted to the controller, by punt reason",
                                  ["switch", "reason"], registry=r)
        self.digests = Counter("vrouter_digest_lists", "Digest lists received (learning)", ["switch"], registry=r)
        self.collector = StateCollector()
        r.register(self.collector)

    def serve(self, address: str) -> tuple[Any, Any]:
        """Serve the text format on HOST:PORT (in a thread of prometheus_client's own server)."""
        host, _, port = address.rpartition(":")
        return start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0", registry=self.registry)


class StateCollector:
    """Gauges and counters read from each router's state when scraped."""

    def __init__(self) -> None:
        self.sources: list[Callable[[], dict[str, Any]]] = []

    def describe(self):
        return []

    def collect(self):
        stations = GaugeMetricFamily("vrouter_learned_stations", "Stations (VLAN, MAC) learned and installed",
                                     labels=["switch", "port"])
        neighbors = GaugeMetricFamily("vrouter_neighbors", "Resolved IPv4 neighbours (next hops and hosts)",
                                      labels=["switch"])
        synced = GaugeMetricFamily("vrouter_in_sync", "1 when the switch holds the desired state", labels=["switch"])
        connected = GaugeMetricFamily("vrouter_switch_connected", "1 while the controller is the switch's primary",
                                      labels=["switch"])
        locked = GaugeMetricFamily("vrouter_port_locked", "1 for a port past its limit with on_limit: drop (unknown "
                                   "sources dropped), 2 for one shut down", labels=["switch", "port"])
        learned = CounterMetricFamily("vrouter_stations_learned", "Stations learned", labels=["switch", "port"])
        moved = CounterMetricFamily("vrouter_stations_moved", "Stations moved to this port", labels=["switch", "port"])
        aged = CounterMetricFamily("vrouter_stations_aged", "Stations aged out", labels=["switch", "port"])
        refused = CounterMetricFamily("vrouter_learning_refused", "Stations not learned, by the limit hit "
                                      "(port_limit, vlan_limit, table_full, rate, flapping, port_shut)",
                                      labels=["switch", "port", "reason"])
        arp = CounterMetricFamily("vrouter_arp_dropped", "ARP packets dropped before use, by reason (rate, checks, "
                                  "neighbor_limit)", labels=["switch", "port", "reason"])
        failures = CounterMetricFamily("vrouter_failures", "Failures that left the switch out of sync",
                                       labels=["switch"])
        for source in self.sources:
            s = source()
            sw = s["switch"]
            neighbors.add_metric([sw], s["neighbors"])
            synced.add_metric([sw], 1 if s["synced"] else 0)
            connected.add_metric([sw], 1 if s["connected"] else 0)
            failures.add_metric([sw], s["failures"])
            for port, p in s["ports"].items():
                stations.add_metric([sw, port], p["stations"])
                locked.add_metric([sw, port], {"locked": 1, "shutdown": 2}.get(p["state"], 0))
                learned.add_metric([sw, port], p["learned"])
                moved.add_metric([sw, port], p["moved"])
                aged.add_metric([sw, port], p["aged"])
                for reason, n in p["refused"].items():
                    refused.add_metric([sw, port, reason], n)
                for reason, n in p["arp_dropped"].items():
                    arp.add_metric([sw, port, reason], n)
        yield from (stations, neighbors, synced, connected, locked, learned, moved, aged, refused, arp, failures)


class RouterMetrics:
    """One switch's view of the metrics (labels bound); a no-op registry when metrics are off."""

    def __init__(self, metrics: Metrics, switch: str) -> None:
        self.m, self.switch = metrics, switch

    def reconciled(self, trigger: str, ok: bool, seconds: float | None = None) -> None:
        self.m.reconciles.labels(self.switch, trigger, "ok" if ok else "failed").inc()
        if ok and seconds is not None:
            self.m.converge.labels(self.switch, trigger).observe(seconds)

    def wrote(self, writing: str, ok: int, failed: int = 0) -> None:
        if ok:
            self.m.writes.labels(self.switch, writing, "ok").inc(ok)
        if failed:
            self.m.writes.labels(self.switch, writing, "failed").inc(failed)

    def recovered(self, seconds: float) -> None:
        self.m.recovery.labels(self.switch).observe(seconds)

    def retry(self, after: str) -> None:
        self.m.retries.labels(self.switch, after).inc()

    def limit_action(self, action: str) -> None:
        self.m.limit_actions.labels(self.switch, action).inc()

    def packet_in(self, reason: str) -> None:
        self.m.packet_ins.labels(self.switch, reason).inc()

    def digest(self) -> None:
        self.m.digests.labels(self.switch).inc()
