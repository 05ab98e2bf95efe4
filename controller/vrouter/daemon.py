"""`vrouter run`: keep every switch matching the description and do a router's live work.

One `Router` per switch: a primary P4Runtime stream, MAC learning from digests (install,
move, age out through idle timeouts) within the limits of `stations.LearningGuard`, ARP for
router addresses and next-hop resolution, ICMP echo replies and errors, and recovery when the
switch restarts. The entities last written are cached, so every run-time change is a small
diff against that cache.

The daemon never gives up: a refused write is logged with each failing update's reason,
the desired state (description and run-time state) is kept, and the switch is re-read and
reconciled after a backoff that starts at 0.5 s and doubles up to 30 s (SIGHUP: at once).
Learned stations the switch has no room for are dropped rather than retried.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import queue
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from p4rt import EntityError, P4RuntimeError, P4RuntimeWriteError, SchemaError, Switch, TableEntry

from . import names as N
from . import packets as pk
from . import priority, routefile, status
from .config import ConfigError, Network, SwitchConfig, load
from .desired import Neighbor, Pw, Runtime, desired_state, pw_nexthop_id, static_stations, station_capacity
from .pacing import Backoff, TokenBucket
from .plan import Canon, Item, Plan, plan, plan_routes, plan_stations
from .program import check_program
from .reconcile import ensure_pipeline, gc_paused, open_switch, read_actual, recover_runtime, write_plan
from .metrics import Metrics, RouterMetrics
from .stations import LearningGuard

log = logging.getLogger("vrouter")
IP = ipaddress.IPv4Address
STATION_TABLES = (N.L2_LEARNING, N.L2_UNICAST, N.PW_LEARNING)


def event(name: str, level: int = logging.INFO, **fields: Any) -> None:
    """A structured log line: `event=NAME key=value ...` (logfmt)."""
    parts = [f"event={name}"]
    for k, v in fields.items():
        text = str(v)
        parts.append(f'{k}="{text}"' if " " in text or not text else f"{k}={text}")
    log.log(level, " ".join(parts))


class Router:
    """The daemon's work for one switch."""

    RESOLVE_EVERY = 5.0
    CHECK_EVERY = 0.25              # how often neighbour ages, locked ports and the status file are looked at
    PROBE_EVERY = 1.0               # ARP requests for one address are at least this far apart
    SOLICITED_FOR = 5.0             # an ARP from an address asked for this recently answers the request
    MAX_PENDING_ADDRESSES = 256     # addresses with packets waiting for ARP
    MAX_PENDING_PER_ADDRESS = 8
    BUDGET = 2000                   # stream messages of one kind handled per round, then the writes
    REPORT_EVERY = 10.0             # refused-learning summaries in the log at most this often
    STATUS_EVERY = 1.0              # the status file is rewritten at most this often
    RETRY = (0.5, 30.0)             # resync backoff after a failure: first delay, cap (s)
    RECONNECT = (0.02, 0.1)         # reconnect backoff after the switch went away (s): a restarted switch
                                    # is found within 0.1 s of listening again
    NAP = (0.005, 0.025)            # sleep between rounds with nothing to do: the first, doubled while
                                    # idle up to the second (s). Always 5 ms cost 12.5 CPU ms/s idle (200
                                    # empty rounds/s); the first message after a quiet spell waits <= 25 ms

    def __init__(self, net: Network, cfg: SwitchConfig, election_id: int, stop: threading.Event,
                 status_path: Path | None = None, metrics: Metrics | None = None) -> None:
        self.net, self.cfg, self.stop = net, cfg, stop
        self.election_id = election_id
        self.sw: Switch | None = None
        self.canon: Canon | None = None
        self.rt = Runtime()
        self.installed: dict[tuple, Item] = {}
        self.lock = threading.RLock()
        self.synced = False
        self.recovered = False          # run-time state taken from the switch (once, at start)
        self.retry = Backoff(*self.RETRY)
        self.next_sync = 0.0
        self.last_error = ""
        self.failures = 0
        self.lost_at: float | None = None
        self.last_resolve = 0.0
        self.last_check = 0.0
        self.last_report = 0.0
        self.last_status = 0.0
        self.nap = self.NAP[0]
        self.pending: dict[IP, list[bytes]] = {}
        self.asked: dict[IP, float] = {}
        self.heard: dict[IP, float] = {}     # neighbour -> last time its ARP reached the controller
        self.static_macs = static_stations(cfg)
        self.guard = LearningGuard(net, cfg, capacity=0)    # capacity from the P4Info at the first sync
        self.arp_buckets: dict[int, TokenBucket] = {}
        self.touched: dict[tuple[int, str], int | Pw | None] = {}   # stations changed this round
        self.replan = False                                        # neighbours or ports changed this round
        self.status_path = status_path
        self.refused_routes: tuple | None = None    # the routes file's identity when last refused
        self.version = 0
        self.written_version = -1
        self.reported: dict[tuple, int] = {}
        self.failed = False
        self.trigger = "start"          # why the next reconciliation runs (a metrics label)
        metrics = metrics or Metrics()
        self.metrics = RouterMetrics(metrics, cfg.name)
        metrics.collector.sources.append(self.metric_state)

    # --- connection and reconciliation ----------------------------------------------------

    def connect(self) -> None:
        """Connect (retrying with capped backoff until stopped), then reconcile."""
        backoff = Backoff(*self.RECONNECT)
        attempts = 0
        while not self.stop.is_set():
            try:
                self.sw = open_switch(self.cfg, self.election_id, backoff=self.RECONNECT).connect(timeout=3)
                self.sw.wait_primary(timeout=10)
                break
            except P4RuntimeError as exc:
                if attempts % 20 == 0:
                    event("switch_unreachable", logging.WARNING, switch=self.cfg.name, address=self.cfg.address,
                          error=exc, attempts=attempts + 1)
                attempts += 1
                if self.sw is not None:
                    self.sw.close()
                    self.sw = None
                self.stop.wait(backoff.next())
        if self.sw is not None:
            self.try_sync()

    def try_sync(self) -> bool:
        """A full reconciliation; on failure, log why and schedule the next one. True if in sync."""
        trigger = self.trigger
        try:
            self.sync()
            return True
        except P4RuntimeWriteError as exc:
            self.write_failed(exc, "sync")
        except P4RuntimeError as exc:
            self.schedule_retry(str(exc).splitlines()[0], "sync")
        self.metrics.reconciled(trigger, ok=False)
        return False

    def sync(self) -> None:
        """Pipeline check, full read of the switch, and the writes that make it match."""
        assert self.sw is not None
        start = time.monotonic()
        pushed = ensure_pipeline(self.sw, self.net)
        self.canon = Canon(self.sw.schema)
        with self.lock:
            if pushed or not self.guard.capacity:    # kept lower where a full table said so (see below)
                self.guard.capacity = station_capacity(self.sw.schema, self.cfg)
            if pushed and self.recovered:
                self.forget_stations("the switch lost its state (restarted)")
            d = desired_state(self.net, self.cfg, self.rt)
            actual = read_actual(self.sw, self.canon, d)
            if not self.recovered:
                self.rt = recover_runtime(self.canon, actual)   # keep what a previous daemon learned
                self.recovered = True
                now = time.monotonic()
                self.heard = {ip: now for ip in self.rt.neighbors}
                d = desired_state(self.net, self.cfg, self.rt)
            self.installed = {i.key: i for i in actual}
            p = plan(self.canon, d, actual)
            self.synced = False
            self._write(p, "sync")
            self.synced = True
            self.retry.reset()
            self.last_error = ""
            self.version += 1
        seconds = time.monotonic() - start
        self.metrics.reconciled(self.trigger, ok=True, seconds=seconds)
        event("reconciled", switch=self.cfg.name, pipeline_pushed=pushed, writes=len(p), summary=p.summary(),
              seconds=f"{seconds:.3f}")

    def forget_stations(self, why: str) -> None:
        """Learned stations are not replayed onto a switch that lost them: traffic teaches them again."""
        count = len(self.rt.macs)
        for (vlan, mac), where in list(self.rt.macs.items()):
            self.guard.forget((vlan, mac), where, aged=False)
        self.rt.macs.clear()
        self.rt.locked_ports.clear()
        if count:
            event("stations_forgotten", switch=self.cfg.name, count=count, why=why)

    def _write(self, p: Plan, what: str) -> None:
        """Write a plan and record it in the cache; count the updates by outcome."""
        if not len(p):
            return
        label = what.replace(" ", "_")
        try:
            write_plan(self.sw, p, self.canon)
        except P4RuntimeWriteError as exc:
            failed = len(exc.errors) or len(p)
            self.metrics.wrote(label, ok=len(p) - failed, failed=failed)
            raise
        except P4RuntimeError:
            self.metrics.wrote(label, ok=0, failed=len(p))
            raise
        self.metrics.wrote(label, ok=len(p))
        for item in p.deletes:
            self.installed.pop(item.key, None)
        for item in p.inserts + p.modifies:
            self.installed[item.key] = item

    def apply(self, p: Plan, what: str) -> None:
        """Write a run-time plan; a refusal is logged and a resync scheduled (never retried at once)."""
        if self.sw is None or not self.synced or not len(p):
            return
        try:
            self._write(p, what)
        except P4RuntimeWriteError as exc:
            self.write_failed(exc, what)

    def write_failed(self, exc: P4RuntimeWriteError, what: str) -> None:
        """Log each failing update's reason, drop the stations there is no room for, schedule a resync."""
        reasons = exc.reasons() if exc.errors else {exc.message or str(exc): 1}
        event("write_failed", logging.WARNING, switch=self.cfg.name, writing=what, failed=len(exc.errors),
              reasons="; ".join(f"{n} x {r}" for r, n in reasons.items()))
        for e in exc.errors[:P4RuntimeWriteError.SHOWN]:
            event("update_failed", logging.WARNING, switch=self.cfg.name, update=e.update, code=e.code,
                  reason=e.message)
        self.drop_unwritable_stations(exc)
        self.schedule_retry(next(iter(reasons)), what)

    def drop_unwritable_stations(self, exc: P4RuntimeWriteError) -> None:
        """Learned stations refused for lack of room leave the run-time state (learned again when
        there is room), and the learning capacity shrinks to what the switch holds: a full table
        costs one failed write, not a retry of the same stations forever."""
        dropped = 0
        for e in exc.errors:
            entity = e.entity
            if not e.may_be_full or not isinstance(entity, TableEntry) \
                    or entity.table not in STATION_TABLES:
                continue
            mac = entity.match.get("src_mac", entity.match.get("dst_mac"))
            key = (int(entity.match.get("vlan_id", 0)), mac)
            where = self.rt.macs.get(key)
            if where is None or key in self.static_macs:
                continue
            del self.rt.macs[key]
            self.guard.forget(key, where, aged=False)
            self.guard.port_stats(where).refuse("table_full")
            dropped += 1
        if dropped:
            self.guard.capacity = min(self.guard.capacity, len(self.rt.macs))
            event("stations_dropped", logging.WARNING, switch=self.cfg.name, count=dropped,
                  why="station tables full", capacity=self.guard.capacity)

    def schedule_retry(self, reason: str, what: str) -> None:
        """Out of sync: reconcile again after the backoff (the desired state is kept meanwhile)."""
        self.synced = False
        self.failures += 1
        self.last_error = f"{what}: {reason}"
        self.trigger = "retry"
        self.metrics.retry(what.replace(" ", "_"))
        delay = self.retry.next()
        self.next_sync = time.monotonic() + delay
        self.version += 1
        event("resync_scheduled", logging.WARNING, switch=self.cfg.name, after=what, retry_in=f"{delay:.2f}s")

    def refresh(self) -> None:
        """Bring the switch in line with the run-time state (diff against the cache)."""
        if self.sw is None or not self.synced:
            return
        with self.lock:
            self.apply(plan(self.canon, desired_state(self.net, self.cfg, self.rt), self.installed.values()),
                       "neighbors and ports")

    def write_stations(self, touched: dict[tuple[int, str], int | Pw | None]) -> None:
        """Write only the entries of the stations in `touched` ((VLAN, MAC) -> port before the change)."""
        if self.sw is None or not self.synced:
            return
        with self.lock:
            self.apply(plan_stations(self.canon, self.net, self.cfg, self.rt.macs, self.installed, touched),
                       "stations")

    def reload(self, net: Network, resync: bool = False) -> None:
        """Take a (changed) description: write only the difference, or with `resync` (SIGHUP) re-read
        the switch and reconcile everything now. Shut ports come back into service."""
        with self.lock:
            self.net, self.cfg = net, net.switches[self.cfg.name]
            self.refused_routes = None
            self.static_macs = static_stations(self.cfg)
            self.guard.reconfigure(net, self.cfg)
            self.rt.shut_ports.clear()
            self.arp_buckets.clear()
            self.version += 1
            if resync:
                self.retry.reset()
                self.trigger = "sighup"
                self.synced = False
                self.next_sync = 0.0
                event("resync_requested", switch=self.cfg.name, reason="SIGHUP")
                return
            if self.sw is None or not self.synced:
                return      # the scheduled resync takes the new description
            start = time.monotonic()
            p = plan(self.canon, desired_state(self.net, self.cfg, self.rt), self.installed.values())
            self.apply(p, "reload")
            if not self.synced:
                return
        seconds = time.monotonic() - start
        self.metrics.reconciled("reload", ok=True, seconds=seconds)
        event("reconciled", switch=self.cfg.name, reason="reload", writes=len(p), summary=p.summary(),
              seconds=f"{seconds:.3f}")

    def take_routes(self) -> None:
        """Write what changed in the switch's routes file (routefile.py): only the lines that differ
        from those last taken are parsed, checked and planned, so a route update costs in proportion
        to its size, not to the description's. A file with a bad line, or more routes than the table
        holds, is refused whole and the routes last taken stay."""
        with gc_paused():
            self._take_routes()

    def _take_routes(self) -> None:
        rf = self.cfg.routes_file
        if rf is None or not rf.changed():
            return
        ident = routefile.identity(rf.path) or ()      # () for a file gone: refused once, like a bad one
        if ident == self.refused_routes:
            return
        start = time.monotonic()
        try:
            change = routefile.update(rf, self.cfg)
        except ConfigError as exc:
            self.routes_refused(ident, exc.problems)
            return
        inline = self.cfg.routes[:len(self.cfg.routes) - len(rf.lines)]
        cfg = replace(self.cfg, routes=[*inline, *change.new.routes()], routes_file=change.new)
        with self.lock:
            p = None
            if self.sw is not None and self.synced:
                if change.ecmp_moved(rf):
                    p = plan(self.canon, desired_state(self.net, cfg, self.rt), self.installed.values())
                else:
                    p = plan_routes(self.canon, cfg, self.rt, self.installed, change.added, change.removed)
                problem = self.route_capacity_problem(p)
                if problem:
                    self.routes_refused(ident, [f"{rf.name}: {problem}"])
                    return
            self.refused_routes = None
            self.cfg = cfg
            self.net = replace(self.net, switches={**self.net.switches, cfg.name: cfg})
            self.version += 1
            if p is None:
                return      # the scheduled resync takes the new routes
            try:
                self.apply(p, "routes")
            except P4RuntimeError as exc:     # the switch went away: recovery writes the new routes
                self.schedule_retry(str(exc).splitlines()[0], "routes")
            if not self.synced:
                return
        seconds = time.monotonic() - start
        self.metrics.reconciled("routes", ok=True, seconds=seconds)
        event("reconciled", switch=self.cfg.name, reason="routes", added=len(change.added),
              removed=len(change.removed), writes=len(p), summary=p.summary(), seconds=f"{seconds:.3f}")

    def routes_refused(self, ident: tuple | None, problems: list[str]) -> None:
        """Log why a routes file was not taken (once per version of the file)."""
        self.refused_routes = ident
        event("routes_refused", logging.ERROR, switch=self.cfg.name, file=self.cfg.routes_file.name,
              problems=len(problems))
        for problem in problems[:P4RuntimeWriteError.SHOWN]:
            log.error("%s", problem)

    def route_capacity_problem(self, p: Plan) -> str | None:
        """Whether the route table would overflow after `p` (checked before writing, like `vrouter check`)."""
        size = self.sw.schema.table(N.IPV4_ROUTE).size
        if not size or len(self.installed) + len(p.inserts) <= size:
            return None     # cannot overflow: spare counting the table's entries at every take
        count = sum(1 for key in self.installed if key[1] == N.IPV4_ROUTE)
        count += sum(1 for i in p.inserts if i.key[1] == N.IPV4_ROUTE) - sum(1 for i in p.deletes
                                                                             if i.key[1] == N.IPV4_ROUTE)
        return f"{count} entries in table {N.IPV4_ROUTE}, which holds {size}" if count > size else None

    # --- the loop -------------------------------------------------------------------------

    def run(self) -> None:
        """Serve packet-ins, digests and idle timeouts until stopped; recover after restarts.

        A description the program cannot express (a table or action missing from its P4Info,
        e.g. an old build/vrouter.p4info.txtpb) stops this router with one error line.
        """
        try:
            self._run()
        except (SchemaError, EntityError) as exc:
            self.failed = True
            event("failed", logging.ERROR, switch=self.cfg.name,
                  error=f"{str(exc).splitlines()[0]} (program {self.net.p4info}; rebuild it: make build)")
        finally:
            if self.sw is not None:
                self.sw.close()
            self.write_status(final=True)

    def _run(self) -> None:
        self.connect()
        while not self.stop.is_set() and self.sw is not None:
            sw = self.sw
            now = time.monotonic()
            if not sw.is_primary:
                if self.lost_at is None:
                    self.lost_at = now
                    self.synced = False
                    self.trigger = "recovery"
                    self.next_sync = 0.0
                    self.version += 1
                    event("switch_lost", logging.WARNING, switch=self.cfg.name)
                self.stop.wait(0.005)       # p4rt reconnects (capped backoff from 20 ms) and re-arbitrates
                continue
            if not self.synced and now >= self.next_sync:
                if self.try_sync() and self.lost_at is not None:
                    self.metrics.recovered(time.monotonic() - self.lost_at)
                    event("recovered", switch=self.cfg.name, seconds=f"{time.monotonic() - self.lost_at:.3f}")
                    self.lost_at = None
                    self.last_resolve = 0.0
            try:
                self.poll(sw, now)
            except P4RuntimeError as exc:
                if sw.is_primary:
                    event("rpc_failed", logging.WARNING, switch=self.cfg.name, error=str(exc).splitlines()[0])
                    self.schedule_retry(str(exc).splitlines()[0], "rpc")

    def poll(self, sw: Switch, now: float) -> None:
        """One round: periodic work, then what the stream delivered, then the writes it asks for."""
        if now - self.last_resolve > self.RESOLVE_EVERY:
            self.last_resolve = now
            self.resolve_next_hops()
        if now - self.last_check > self.CHECK_EVERY:
            self.last_check = now
            self.check_neighbors(now)
            self.check_ports(now)
        if now - self.last_status >= self.STATUS_EVERY:
            self.last_status = now
            self.write_status()
        busy = False
        for q, handler in ((sw.digest_queue, self.on_digest), (sw.idle_timeout_queue, self.on_idle_timeout),
                           (sw.packet_in_queue, self.on_packet_in)):
            for _ in range(self.BUDGET):
                try:
                    item = q.get_nowait()
                except queue.Empty:
                    break
                busy = True
                try:
                    handler(item)
                except P4RuntimeError:
                    raise
                except Exception as exc:  # one bad message must not stop the router
                    event("handler_error", logging.ERROR, switch=self.cfg.name, handler=handler.__name__,
                          error=repr(exc))
        with self.lock:
            if self.touched:
                touched, self.touched = self.touched, {}
                self.write_stations(touched)
            if self.replan:
                self.replan = False
                self.refresh()
        if busy:
            self.version += 1
            self.nap = self.NAP[0]
        else:
            self.stop.wait(self.nap)
            self.nap = min(2 * self.nap, self.NAP[1])

    # --- learning -------------------------------------------------------------------------

    def on_digest(self, digest) -> None:
        """Learn or move stations (on ports, or behind pseudowires) the guard admits; acknowledge the list."""
        self.sw.ack_digest(digest)
        self.metrics.digest()
        behind_pw = digest.digest.endswith(N.PW_LEARN_DIGEST)
        now = time.monotonic()
        for data in digest.data:
            vlan = int(data["vlan_id"])
            mac = data["src_mac"] if isinstance(data["src_mac"], str) else pk.mac_text(
                int(data["src_mac"]).to_bytes(6, "big"))
            if (vlan, mac) in self.static_macs:
                continue
            if behind_pw:
                port: int | Pw = Pw(int(data["pw_label"]))
                if pw_nexthop_id(self.cfg, vlan, port.label) is None:
                    continue
            else:
                port = int(data["ingress_port"])
                p = self.cfg.ports.get(port)
                if p is None or vlan not in p.carries():
                    continue
            old = self.rt.macs.get((vlan, mac))
            if old == port:
                continue
            verdict = self.guard.admit(self.rt, vlan, mac, port, now)
            if verdict.action is not None:
                self.limit_reached(port, verdict.action)
            if verdict.reason is not None:
                continue
            self.rt.macs[(vlan, mac)] = port
            self.touched.setdefault((vlan, mac), old)
            if old is None:
                event("mac_learned", switch=self.cfg.name, vlan=vlan, mac=mac, port=port)
            else:
                event("mac_moved", switch=self.cfg.name, vlan=vlan, mac=mac, old_port=old, port=port)

    def limit_reached(self, port: int, action: str) -> None:
        """A port reached its station limit: lock it (drop unknown sources) or shut it."""
        self.metrics.limit_action(action)
        count, limit = self.rt.macs.per_port.get(port, 0), self.guard.port_limit(port)
        if action == "drop":
            self.rt.locked_ports.add(port)
            event("port_locked", logging.WARNING, switch=self.cfg.name, port=port, stations=count, limit=limit,
                  effect="frames from unknown source MACs dropped")
        else:
            self.rt.shut_ports.add(port)
            for key in self.rt.macs.on(port):
                del self.rt.macs[key]
                self.guard.forget(key, port, aged=False)
            event("port_shutdown", logging.WARNING, switch=self.cfg.name, port=port, stations=count, limit=limit,
                  effect="out of service until the description is reloaded (SIGHUP)")
        self.replan = True

    def on_idle_timeout(self, note) -> None:
        """Age out stations whose l2_learning entry expired."""
        for entry in note.entries:
            if entry.table.endswith("pw_learning"):
                port: int | Pw = Pw(int(entry.match["pw_label"]))
            elif entry.table.endswith("l2_learning"):
                port = int(entry.match["ingress_port"])
            else:
                continue
            vlan = int(entry.match["vlan_id"])
            mac = entry.match["src_mac"]
            mac = mac if isinstance(mac, str) else pk.mac_text(int(mac).to_bytes(6, "big"))
            if self.rt.macs.get((vlan, mac)) == port:
                del self.rt.macs[(vlan, mac)]
                self.guard.forget((vlan, mac), port)
                self.touched.setdefault((vlan, mac), port)
                event("mac_aged_out", switch=self.cfg.name, vlan=vlan, mac=mac, port=port)

    def check_ports(self, now: float) -> None:
        """Unlock ports that have room again; summarise refused learning in the log."""
        self.guard.expire(now)
        for port in self.guard.unlock_candidates(self.rt):
            self.rt.locked_ports.discard(port)
            event("port_unlocked", switch=self.cfg.name, port=port, stations=self.rt.macs.per_port.get(port, 0))
            self.replan = True
        if now - self.last_report < self.REPORT_EVERY:
            return
        self.last_report = now
        for where, stats in self.guard.stats.items():
            for kind, counts in (("mac_refused", stats.refused), ("arp_dropped", stats.arp)):
                for reason, total in counts.items():
                    new = total - self.reported.get((where, kind, reason), 0)
                    if new:
                        self.reported[(where, kind, reason)] = total
                        event(kind, logging.WARNING, switch=self.cfg.name, port=where, reason=reason, count=new,
                              total=total)

    # --- status ----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What `vrouter diff` and `vrouter show limits` read (see status.py)."""
        now = time.monotonic()
        return {
            "pid": os.getpid(), "switch": self.cfg.name, "file": self.net.file, "time": time.time(),
            "connected": self.sw is not None and self.sw.is_primary, "synced": self.synced,
            "last_error": self.last_error, "failures": self.failures,
            "retry_in": round(max(0.0, self.next_sync - now), 3) if not self.synced else 0.0,
            "capacity": self.guard.capacity, "vlans": {str(v): n for v, n in self.rt.macs.per_vlan.items()},
            "stream_dropped": dict(self.sw.dropped) if self.sw is not None else {},
            "ports": self.port_status(), **status.runtime_to_json(self.rt)}

    def metric_state(self) -> dict[str, Any]:
        """What the metrics collector reads at each scrape (the status less the run-time tables)."""
        with self.lock:
            return {"switch": self.cfg.name, "neighbors": len(self.rt.neighbors), "synced": self.synced,
                    "connected": self.sw is not None and self.sw.is_primary, "failures": self.failures,
                    "ports": self.port_status()}

    def port_status(self) -> dict[str, Any]:
        """Learning and ARP counters and state per port or pseudowire."""
        ports: dict[str, Any] = {}
        for where in sorted({*self.cfg.ports, *self.guard.stats}, key=str):
            stats = self.guard.port_stats(where) if where in self.guard.stats else None
            count, limit = self.rt.macs.per_port.get(where, 0), self.guard.port_limit(where)
            state = "shutdown" if where in self.rt.shut_ports else "locked" if where in self.rt.locked_ports \
                else "full" if limit is not None and count >= limit else "ok"
            ports[str(where)] = {
                "stations": count, "limit": limit, "on_limit": self.guard.on_limit(where) if isinstance(where, int)
                else "", "state": state, "learned": stats.learned if stats else 0, "moved": stats.moved if stats else 0,
                "aged": stats.aged if stats else 0, "refused": dict(stats.refused) if stats else {},
                "arp_handled": stats.arp_handled if stats else 0, "arp_dropped": dict(stats.arp) if stats else {}}
        return ports

    def write_status(self, final: bool = False) -> None:
        """Rewrite the status file if anything changed (removed when the daemon stops)."""
        if self.status_path is None:
            return
        if final:
            self.status_path.unlink(missing_ok=True)
            return
        if self.version == self.written_version:
            return
        self.written_version = self.version
        try:
            with self.lock:
                data = self.status()
            status.write(self.status_path, data)
        except OSError as exc:
            event("status_not_written", logging.WARNING, switch=self.cfg.name, path=self.status_path, error=exc)
            self.status_path = None

    # --- packet-ins -----------------------------------------------------------------------

    def on_packet_in(self, pkt) -> None:
        """Dispatch a punted packet by its reason."""
        reason = int(pkt.metadata.get("reason", 0))
        self.metrics.packet_in(str(N.PUNT_REASONS.get(reason, reason)))
        port = int(pkt.metadata.get("ingress_port", 0))
        vlan = int(pkt.metadata.get("vlan_id", 0))
        frame = pk.Frame.parse(pkt.payload)
        if frame is None:
            return
        if frame.ether_type == pk.ETH_ARP:
            arp = pk.Arp.parse(frame.payload)
            if arp is not None:
                self.on_arp(arp, frame, port, vlan)
            return
        if frame.ether_type != pk.ETH_IPV4:
            return
        ip = pk.Ipv4.parse(frame.payload)
        if ip is None:
            return
        if reason == N.ROUTER_ADDRESS_HIT:
            self.on_router_address(frame, ip, port, vlan)
        elif reason == N.TTL_EXPIRED:
            self.send_icmp_error(frame, ip, port, vlan, 11, 0)
        elif reason == N.ROUTE_TO_CPU:
            self.on_unresolved(frame, ip, vlan)
        elif reason == N.MTU_EXCEEDED:
            self.on_too_big(ip)
        else:
            event("packet_in", logging.DEBUG, switch=self.cfg.name, reason=N.PUNT_REASONS.get(reason, reason),
                  port=port, vlan=vlan, src=ip.src, dst=ip.dst)

    def send(self, port: int, vlan: int, frame_dst: str, frame_src: str, ether_type: int, payload: bytes) -> None:
        """Send a frame out of `port` in `vlan` (tagged on trunks unless it is the native VLAN)."""
        p = self.cfg.ports.get(port)
        if p is None or vlan not in p.carries() or port in self.rt.shut_ports:
            return
        tag = vlan if p.mode == "trunk" and vlan != p.native else None
        frame = pk.ethernet(frame_dst, frame_src, ether_type, payload, tag)
        self.sw.packet_out(frame, egress_port=port, submit_to_ingress=0, _pad=0)

    def on_arp(self, arp: pk.Arp, frame: pk.Frame, port: int, vlan: int) -> None:
        """Validate, then answer requests for router addresses and learn neighbours that answered us.

        Per port at most `arp.rate` packets a second are looked at. A sender that fails the
        checks of `packets.arp_problem` teaches nothing and gets no answer. A new neighbour is
        installed only from an ARP for an address the router asked for (or a configured next
        hop), so spoofed requests cannot fill the tables; a known one is updated by any valid ARP.
        """
        now = time.monotonic()
        stats = self.guard.port_stats(port)
        bucket = self.arp_buckets.get(port)
        if bucket is None:
            bucket = self.arp_buckets[port] = TokenBucket(self.net.arp.rate, self.net.arp.rate, now)
        if not bucket.take(now):
            stats.arp["rate"] = stats.arp.get("rate", 0) + 1
            return
        stats.arp_handled += 1
        v = self.cfg.vlans.get(vlan)
        if v is None or v.interface is None:
            return
        iface = v.interface
        problem = pk.arp_problem(arp, frame.src, iface.address)
        if problem is not None:
            stats.arp[problem] = stats.arp.get(problem, 0) + 1
            event("arp_refused", logging.DEBUG, switch=self.cfg.name, port=port, vlan=vlan, reason=problem,
                  sender_ip=arp.sender_ip, sender_mac=arp.sender_mac)
            return
        ip = arp.sender_ip
        if ip in self.rt.neighbors or now - self.asked.get(ip, -1e9) < self.SOLICITED_FOR or ip in self.wanted_hops():
            self.heard[ip] = now
            self.learn_neighbor(Neighbor(ip, arp.sender_mac, port, vlan))
        if arp.op == 1 and arp.target_ip == iface.address.ip:
            reply = pk.Arp(2, iface.mac, iface.address.ip, arp.sender_mac, arp.sender_ip)
            self.send(port, vlan, arp.sender_mac, iface.mac, pk.ETH_ARP, reply.encode())
            event("arp_reply", logging.DEBUG, switch=self.cfg.name, to=arp.sender_ip, port=port, vlan=vlan)

    def learn_neighbor(self, nb: Neighbor) -> None:
        """Install or update a neighbour (written at the end of the round); forward packets that waited for it."""
        if self.rt.neighbors.get(nb.ip) == nb:
            return
        moved = nb.ip in self.rt.neighbors
        if not moved and len(self.rt.neighbors) >= self.net.arp.max_neighbors:
            stats = self.guard.port_stats(nb.port)
            stats.arp["neighbor_limit"] = stats.arp.get("neighbor_limit", 0) + 1
            return
        self.rt.neighbors[nb.ip] = nb
        event("neighbor_moved" if moved else "neighbor_resolved", switch=self.cfg.name, ip=nb.ip, mac=nb.mac,
              port=nb.port, vlan=nb.vlan)
        self.replan = True
        for in_vlan, packet in self.pending.pop(nb.ip, []):
            self.forward(packet, nb, in_vlan)

    def check_neighbors(self, now: float) -> None:
        """Re-ARP neighbours not heard from for `neighbor_refresh`; withdraw those that stop answering.

        The first probe goes to its known MAC and port only; the next ones are broadcast in its
        VLAN, so a neighbour that changed MAC or port is found again. One that answers stays or
        moves; one that has not answered `neighbor_probes` probes (1 s apart) is forgotten: its
        host route and next hop go, and routes, LSPs and redirects through it fall back to the
        controller, which keeps asking for configured next hops and restores them when they answer.
        """
        refresh, probes = self.net.neighbor_refresh, self.net.neighbor_probes
        gone = []
        for ip, nb in list(self.rt.neighbors.items()):
            silent = now - self.heard.setdefault(ip, now)
            if silent > refresh + probes * self.PROBE_EVERY:
                gone.append(ip)
            elif silent > refresh + self.PROBE_EVERY:
                self.arp_request(ip)                  # broadcast: finds it on another port or MAC
            elif silent > refresh:
                self.arp_probe(nb)
        if not gone:
            return
        for ip in gone:
            nb = self.rt.neighbors[ip]
            self.rt.forget(ip)
            self.heard.pop(ip, None)
            event("neighbor_expired", switch=self.cfg.name, ip=ip, mac=nb.mac, port=nb.port, vlan=nb.vlan,
                  probes=probes)
        self.replan = True

    def on_router_address(self, frame: pk.Frame, ip: pk.Ipv4, port: int, vlan: int) -> None:
        """ICMP echo to a router address: reply out of the port it came from."""
        if ip.protocol != 1 or len(ip.payload) < 8 or ip.payload[0] != 8:
            return
        v = self.cfg.vlans.get(vlan)
        if v is None or v.interface is None:
            return
        reply = pk.icmp(0, 0, ip.payload[4:8], ip.payload[8:])
        self.send(port, vlan, frame.src, v.interface.mac, pk.ETH_IPV4, pk.ipv4(ip.dst, ip.src, 1, reply))
        event("icmp_echo_reply", logging.DEBUG, switch=self.cfg.name, to=ip.src, address=ip.dst)

    def send_icmp_error(self, frame: pk.Frame, ip: pk.Ipv4, port: int, vlan: int, kind: int, code: int) -> None:
        """ICMP error (e.g. time exceeded) back to the sender, from the ingress interface's address."""
        v = self.cfg.vlans.get(vlan)
        if v is None or v.interface is None:
            return
        body = ip.header + ip.payload[:8]
        msg = pk.icmp(kind, code, bytes(4), body)
        self.send(port, vlan, frame.src, v.interface.mac, pk.ETH_IPV4, pk.ipv4(v.interface.address.ip, ip.src, 1, msg))
        event("icmp_error", logging.DEBUG, switch=self.cfg.name, type=kind, code=code, to=ip.src)

    def on_too_big(self, ip: pk.Ipv4) -> None:
        """DF set and too big for the egress interface: ICMP fragmentation needed, routed back to the sender.

        The punted frame was already rewritten for its next hop, so the way back is the sender's
        (or its next hop's) neighbour entry.
        """
        out = self.cfg.interface_for(ip.dst) or self.cfg.interface_for(self.next_hop_for(ip.dst, any_hop=True) or ip.dst)
        back = ip.src if self.cfg.interface_for(ip.src) is not None else self.next_hop_for(ip.src, any_hop=True)
        nb = self.rt.neighbors.get(back) if back is not None else None
        if out is None or nb is None:
            return
        src = self.cfg.vlans[nb.vlan].interface.address.ip
        head = bytearray(ip.header)   # quote the packet as the sender sent it (TTL + 1, checksum redone)
        head[8] = min(255, head[8] + 1)
        head[10:12] = b"\0\0"
        head[10:12] = pk.checksum(bytes(head)).to_bytes(2, "big")
        msg = pk.icmp(3, 4, out.interface.mtu.to_bytes(4, "big"), bytes(head) + ip.payload[:8])
        self.send(nb.port, nb.vlan, nb.mac, self.cfg.vlans[nb.vlan].interface.mac, pk.ETH_IPV4,
                  pk.ipv4(src, ip.src, 1, msg))
        event("icmp_frag_needed", logging.DEBUG, switch=self.cfg.name, to=ip.src, mtu=out.interface.mtu)

    def on_unresolved(self, frame: pk.Frame, ip: pk.Ipv4, vlan: int) -> None:
        """A packet towards an unresolved host or next hop: keep it, ask who has the address."""
        target = self.next_hop_for(ip.dst)
        if target is None:
            return
        if target in self.pending or len(self.pending) < self.MAX_PENDING_ADDRESSES:
            waiting = self.pending.setdefault(target, [])
            if len(waiting) < self.MAX_PENDING_PER_ADDRESS:
                waiting.append((vlan, frame.payload))
        self.arp_request(target)

    def next_hop_for(self, dst: IP, any_hop: bool = False) -> IP | None:
        """The neighbour a packet to `dst` needs: the host itself if on-link, else its route's next hop.

        By default only an unresolved next hop is returned (the one to ask for); with
        `any_hop` the first next hop, resolved or not.
        """
        if self.cfg.interface_for(dst) is not None:
            return dst
        best = None
        for r in self.cfg.routes:
            if dst in r.prefix and r.via and (best is None or r.prefix.prefixlen > best.prefix.prefixlen):
                best = r
        for hop in (best.via if best else ()):
            if any_hop or hop not in self.rt.neighbors:
                return hop
        return None

    def arp_request(self, target: IP) -> None:
        """Ask every port of the target's VLAN who has `target` (at most once a second per address)."""
        vlan = self.cfg.interface_for(target)
        now = time.monotonic()
        if vlan is None or now - self.asked.get(target, -1e9) < self.PROBE_EVERY:
            return
        self.asked[target] = now
        if len(self.asked) > 4 * self.MAX_PENDING_ADDRESSES:
            self.asked = {ip: t for ip, t in self.asked.items() if now - t < self.SOLICITED_FOR}
            self.pending = {ip: q for ip, q in self.pending.items() if ip in self.asked}
        iface = vlan.interface
        req = pk.Arp(1, iface.mac, iface.address.ip, "00:00:00:00:00:00", target).encode()
        for p in self.cfg.ports.values():
            if vlan.id in p.carries():
                self.send(p.number, vlan.id, pk.BROADCAST, iface.mac, pk.ETH_ARP, req)

    def arp_probe(self, nb: Neighbor) -> None:
        """Ask a known neighbour directly (unicast to its MAC on its port), at most once a second."""
        now = time.monotonic()
        vlan = self.cfg.vlans.get(nb.vlan)
        if vlan is None or vlan.interface is None or now - self.asked.get(nb.ip, -1e9) < self.PROBE_EVERY:
            return
        self.asked[nb.ip] = now
        iface = vlan.interface
        req = pk.Arp(1, iface.mac, iface.address.ip, "00:00:00:00:00:00", nb.ip).encode()
        self.send(nb.port, nb.vlan, nb.mac, iface.mac, pk.ETH_ARP, req)

    def wanted_hops(self) -> set[IP]:
        """Every configured next hop (routes, LSPs, ACL redirects)."""
        return {h for r in self.cfg.routes for h in r.via} | {l.via for l in self.cfg.lsps if l.via is not None} \
            | {a.via for a in self.cfg.acl if a.via is not None}

    def resolve_next_hops(self) -> None:
        """Ask for every configured next hop that is not resolved yet."""
        for hop in sorted(self.wanted_hops() - set(self.rt.neighbors)):
            self.arp_request(hop)

    def policed(self, in_vlan: int, out_vlan: int) -> bool:
        """Whether the program's firewall or source NAT would act on a packet routed between the VLANs."""
        ifaces = [self.cfg.vlans[v].interface for v in (in_vlan, out_vlan) if v in self.cfg.vlans]
        if any(i is not None and i.masquerade for i in ifaces):
            return True
        zone = {v: z for z, vids in self.cfg.zones.items() for v in vids}
        a, b = zone.get(in_vlan), zone.get(out_vlan)
        return any({p.trusted, p.untrusted} == {a, b} for p in self.cfg.zone_pairs)

    def forward(self, ip_packet: bytes, nb: Neighbor, in_vlan: int) -> None:
        """Route a packet that waited for its neighbour (TTL - 1, new checksum).

        The packet is sent straight out of the port, past the pipeline, so one the firewall or
        NAT would act on is dropped instead: the sender's next try takes the pipeline.
        """
        ip = pk.Ipv4.parse(ip_packet)
        if ip is None or ip.ttl <= 1 or self.policed(in_vlan, nb.vlan):
            return
        head = bytearray(ip.header)
        head[8] -= 1
        head[10:12] = b"\0\0"
        head[10:12] = pk.checksum(bytes(head)).to_bytes(2, "big")
        rmac = self.cfg.vlans[nb.vlan].interface.mac
        self.send(nb.port, nb.vlan, nb.mac, rmac, pk.ETH_IPV4, bytes(head) + ip.payload)


DESCRIPTION_EVERY = 0.5      # s between looks at the description file
ROUTES_EVERY = 0.1           # s between looks at routes files (a stat each; route changes are small)


def run(net: Network, names: list[str], election_id: int = 10, path: Path | None = None,
        metrics_addr: str | None = None, nice: int = 0, sched: str = "batch") -> int:
    """Run the daemon for the named switches until SIGTERM/SIGINT; 0 on a clean stop.

    With `metrics_addr` (HOST:PORT), Prometheus metrics are served there (metrics.py). With
    `nice` > 0 the process first goes down to that nice value, as SCHED_BATCH or, with
    `sched="idle"`, SCHED_IDLE (priority.py; `vrouter run` defaults to 10, batch): forwarding
    before control.

    The description file is re-read when it changes and only the difference is written; on
    SIGHUP it is re-read and every switch re-read and reconciled at once (the way to retry
    now after a failure). An invalid new file is reported and the old one kept. A switch's routes
    file (`routes_file:`) is looked at every ROUTES_EVERY and taken by difference (take_routes).
    """
    if nice > 0 or sched != "batch":
        try:
            event("priority", **(priority.lower(nice, sched) or {}))
        except OSError as exc:
            event("priority_unchanged", logging.WARNING, nice=nice, error=exc)
    stop = threading.Event()
    hup = threading.Event()

    def on_signal(signum, _frame) -> None:
        if signum == signal.SIGHUP:
            hup.set()
            return
        event("stopping", signal=signal.Signals(signum).name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    metrics = Metrics()
    routers = {n: Router(net, net.switches[n], election_id, stop,
                         status.state_file(path, n) if path is not None else None, metrics) for n in names}
    server = metrics.serve(metrics_addr) if metrics_addr else None
    if server is not None:
        event("metrics_serving", address=metrics_addr)
    threads = [threading.Thread(target=r.run, name=f"vrouter-{r.cfg.name}", daemon=True) for r in routers.values()]
    event("started", file=net.file, switches=",".join(names))
    for t in threads:
        t.start()
    mtime = _mtime(path)
    checked = time.monotonic()
    while not stop.is_set() and any(t.is_alive() for t in threads):
        stop.wait(ROUTES_EVERY)
        for router in routers.values():
            router.take_routes()
        signalled = hup.is_set()
        if not signalled and time.monotonic() - checked < DESCRIPTION_EVERY:
            continue
        checked = time.monotonic()
        now = _mtime(path)
        if path is None or (now == mtime and not signalled):
            continue
        mtime = now
        hup.clear()
        try:
            new = reload_description(path)
            net = new
            event("reload", file=new.file)
        except ConfigError as exc:
            event("reload_refused", logging.ERROR, problems=len(exc.problems))
            for problem in exc.problems:
                log.error("%s", problem)
            if not signalled:
                continue
        for name, router in routers.items():
            if name in net.switches:
                router.reload(net, resync=signalled)
    stop.set()
    for t in threads:
        t.join(timeout=10)
    if server is not None:
        server[0].shutdown()
    event("stopped")
    return 1 if any(r.failed for r in routers.values()) else 0


def reload_description(path: Path) -> Network:
    """A changed description, read and checked against its program (ConfigError if it is not usable)."""
    new = load(path)
    check_program(new)
    return new


def _mtime(path: Path | None) -> float | None:
    try:
        return path.stat().st_mtime if path is not None else None
    except OSError:
        return None
