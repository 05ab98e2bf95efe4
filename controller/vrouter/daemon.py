"""`vrouter run`: keep every switch matching the description and do a router's live work.

One `Router` per switch: a primary P4Runtime stream, MAC learning from digests (install,
move, age out through idle timeouts), ARP for router addresses and next-hop resolution,
ICMP echo replies and time-exceeded, and recovery when the switch restarts. The entities
last written are cached, so every run-time change is a small diff against that cache;
after a restart or a failed write the cache is refreshed by reading the switch.
"""

from __future__ import annotations

import ipaddress
import logging
import queue
import signal
import threading
import time
from pathlib import Path
from typing import Any

from p4rt import EntityError, P4RuntimeError, P4RuntimeWriteError, SchemaError, Switch

from . import names as N
from . import packets as pk
from .config import ConfigError, Network, SwitchConfig, load
from .desired import Neighbor, Pw, Runtime, desired_state, pw_nexthop_id, static_stations
from .plan import Canon, Item, Plan, plan, plan_stations
from .reconcile import ensure_pipeline, read_actual, recover_runtime, write_plan

log = logging.getLogger("vrouter")
IP = ipaddress.IPv4Address


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
    CHECK_EVERY = 0.25              # how often neighbour ages are looked at
    PROBE_EVERY = 1.0               # ARP requests for one address are at least this far apart
    MAX_PENDING_ADDRESSES = 256     # addresses with packets waiting for ARP
    MAX_PENDING_PER_ADDRESS = 8

    def __init__(self, net: Network, cfg: SwitchConfig, election_id: int, stop: threading.Event) -> None:
        self.net, self.cfg, self.stop = net, cfg, stop
        self.election_id = election_id
        self.sw: Switch | None = None
        self.canon: Canon | None = None
        self.rt = Runtime()
        self.installed: dict[tuple, Item] = {}
        self.lock = threading.RLock()
        self.synced = False
        self.down_since: float | None = None
        self.last_resolve = 0.0
        self.pending: dict[IP, list[bytes]] = {}
        self.asked: dict[IP, float] = {}
        self.heard: dict[IP, float] = {}     # neighbour -> last time its ARP reached the controller
        self.last_check = 0.0
        self.static_macs = static_stations(cfg)

    # --- connection and reconciliation ----------------------------------------------------

    def connect(self) -> None:
        """Connect (retrying until stopped), then push the pipeline if needed and reconcile."""
        while not self.stop.is_set():
            try:
                self.sw = Switch(self.cfg.address, device_id=self.cfg.device_id,
                                 election_id=self.election_id, backoff=(0.1, 1.0)).connect(timeout=3)
                self.sw.wait_primary(timeout=10)
                break
            except P4RuntimeError as exc:
                event("switch_unreachable", logging.WARNING, switch=self.cfg.name, address=self.cfg.address,
                      error=exc)
                if self.sw is not None:
                    self.sw.close()
                    self.sw = None
                self.stop.wait(1.0)
        if self.sw is not None:
            self.sync(first=True)

    def sync(self, first: bool = False) -> None:
        """Pipeline check, full read of the switch, and the writes that make it match."""
        assert self.sw is not None
        start = time.monotonic()
        pushed = ensure_pipeline(self.sw, self.net)
        self.canon = Canon(self.sw.schema)
        with self.lock:
            d = desired_state(self.net, self.cfg, self.rt)
            actual = read_actual(self.sw, self.canon, d)
            if first:
                self.rt = recover_runtime(self.canon, actual)   # keep what a previous daemon learned
                now = time.monotonic()
                self.heard = {ip: now for ip in self.rt.neighbors}
                d = desired_state(self.net, self.cfg, self.rt)
            self.installed = {i.key: i for i in actual}
            p = plan(self.canon, d, actual)
            self._write(p)
            self.synced = True
        event("reconciled", switch=self.cfg.name, pipeline_pushed=pushed, writes=len(p), summary=p.summary(),
              seconds=f"{time.monotonic() - start:.3f}")

    def _write(self, p: Plan) -> None:
        """Write a plan and record it in the cache."""
        if not len(p):
            return
        write_plan(self.sw, p)
        for item in p.deletes:
            self.installed.pop(item.key, None)
        for item in p.inserts + p.modifies:
            self.installed[item.key] = item

    def _write_or_resync(self, p: Plan) -> bool:
        """Write a run-time plan; if the switch refuses it, re-read the switch and reconcile fully."""
        try:
            self._write(p)
            return True
        except P4RuntimeWriteError as exc:
            event("write_failed", logging.WARNING, switch=self.cfg.name, error=str(exc).splitlines()[0])
            self.synced = False
            self.sync()
            return False

    def refresh(self) -> None:
        """Bring the switch in line with the run-time state (diff against the cache)."""
        if self.sw is None or not self.synced:
            return
        with self.lock:
            self._write_or_resync(plan(self.canon, desired_state(self.net, self.cfg, self.rt), self.installed.values()))

    def write_stations(self, touched: dict[tuple[int, str], int | Pw | None]) -> None:
        """Write only the entries of the stations in `touched` ((VLAN, MAC) -> port before the change)."""
        if self.sw is None or not self.synced:
            return
        with self.lock:
            self._write_or_resync(plan_stations(self.canon, self.net, self.cfg, self.rt.macs, self.installed, touched))

    def reload(self, net: Network) -> None:
        """Take a changed description and write only the difference."""
        with self.lock:
            self.net, self.cfg = net, net.switches[self.cfg.name]
            self.static_macs = static_stations(self.cfg)
            if self.sw is None or not self.synced:
                return
            start = time.monotonic()
            p = plan(self.canon, desired_state(self.net, self.cfg, self.rt), self.installed.values())
            if not self._write_or_resync(p):
                return
        event("reconciled", switch=self.cfg.name, reason="reload", writes=len(p), summary=p.summary(),
              seconds=f"{time.monotonic() - start:.3f}")

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
            if self.sw is not None:
                self.sw.close()

    def _run(self) -> None:
        self.connect()
        while not self.stop.is_set() and self.sw is not None:
            sw = self.sw
            if not sw.is_primary:
                if self.down_since is None:
                    self.down_since = time.monotonic()
                    self.synced = False
                    event("switch_lost", logging.WARNING, switch=self.cfg.name)
                self.stop.wait(0.05)
                continue
            if self.down_since is not None:
                try:
                    self.sync()
                except P4RuntimeError as exc:
                    event("recovery_retry", logging.WARNING, switch=self.cfg.name, error=str(exc).splitlines()[0])
                    self.stop.wait(0.2)
                    continue
                event("recovered", switch=self.cfg.name, seconds=f"{time.monotonic() - self.down_since:.3f}")
                self.down_since = None
                self.last_resolve = 0.0
            try:
                self.poll(sw)
            except P4RuntimeError as exc:
                event("rpc_failed", logging.WARNING, switch=self.cfg.name, error=str(exc).splitlines()[0])
                self.stop.wait(0.1)
        if self.sw is not None:
            self.sw.close()

    def poll(self, sw: Switch) -> None:
        """One round: resolve next hops if due, then handle what the stream delivered."""
        now = time.monotonic()
        if now - self.last_resolve > self.RESOLVE_EVERY:
            self.last_resolve = now
            self.resolve_next_hops()
        if now - self.last_check > self.CHECK_EVERY:
            self.last_check = now
            self.check_neighbors(now)
        busy = False
        for q, handler in ((sw.digest_queue, self.on_digest), (sw.idle_timeout_queue, self.on_idle_timeout),
                           (sw.packet_in_queue, self.on_packet_in)):
            for _ in range(100):
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
        if not busy:
            self.stop.wait(0.01)

    # --- learning -------------------------------------------------------------------------

    def on_digest(self, digest) -> None:
        """Learn or move stations (on ports, or behind pseudowires); acknowledge the list."""
        self.sw.ack_digest(digest)
        behind_pw = digest.digest.endswith(N.PW_LEARN_DIGEST)
        touched: dict[tuple[int, str], int | Pw | None] = {}
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
                if port not in self.cfg.ports:
                    continue
            old = self.rt.macs.get((vlan, mac))
            if old == port:
                continue
            self.rt.macs[(vlan, mac)] = port
            touched.setdefault((vlan, mac), old)
            if old is None:
                event("mac_learned", switch=self.cfg.name, vlan=vlan, mac=mac, port=port)
            else:
                event("mac_moved", switch=self.cfg.name, vlan=vlan, mac=mac, old_port=old, port=port)
        if touched:
            self.write_stations(touched)

    def on_idle_timeout(self, note) -> None:
        """Age out stations whose l2_learning entry expired."""
        touched: dict[tuple[int, str], int | Pw | None] = {}
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
                touched.setdefault((vlan, mac), port)
                event("mac_aged_out", switch=self.cfg.name, vlan=vlan, mac=mac, port=port)
        if touched:
            self.write_stations(touched)

    # --- packet-ins -----------------------------------------------------------------------

    def on_packet_in(self, pkt) -> None:
        """Dispatch a punted packet by its reason."""
        reason = int(pkt.metadata.get("reason", 0))
        port = int(pkt.metadata.get("ingress_port", 0))
        vlan = int(pkt.metadata.get("vlan_id", 0))
        frame = pk.Frame.parse(pkt.payload)
        if frame is None:
            return
        if frame.ether_type == pk.ETH_ARP:
            arp = pk.Arp.parse(frame.payload)
            if arp is not None:
                self.on_arp(arp, port, vlan)
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
            self.on_unresolved(frame, ip)
        elif reason == N.MTU_EXCEEDED:
            self.on_too_big(ip)
        else:
            event("packet_in", logging.DEBUG, switch=self.cfg.name, reason=N.PUNT_REASONS.get(reason, reason),
                  port=port, vlan=vlan, src=ip.src, dst=ip.dst)

    def send(self, port: int, vlan: int, frame_dst: str, frame_src: str, ether_type: int, payload: bytes) -> None:
        """Send a frame out of `port` in `vlan` (tagged on trunks unless it is the native VLAN)."""
        p = self.cfg.ports.get(port)
        if p is None or vlan not in p.carries():
            return
        tag = vlan if p.mode == "trunk" and vlan != p.native else None
        frame = pk.ethernet(frame_dst, frame_src, ether_type, payload, tag)
        self.sw.packet_out(frame, egress_port=port, submit_to_ingress=0, _pad=0)

    def on_arp(self, arp: pk.Arp, port: int, vlan: int) -> None:
        """Answer requests for router addresses; learn the sender as a neighbour."""
        v = self.cfg.vlans.get(vlan)
        if v is None or v.interface is None:
            return
        iface = v.interface
        if arp.sender_ip in iface.address.network and arp.sender_ip != iface.address.ip:
            self.heard[arp.sender_ip] = time.monotonic()
            self.learn_neighbor(Neighbor(arp.sender_ip, arp.sender_mac, port, vlan))
        if arp.op == 1 and arp.target_ip == iface.address.ip:
            reply = pk.Arp(2, iface.mac, iface.address.ip, arp.sender_mac, arp.sender_ip)
            self.send(port, vlan, arp.sender_mac, iface.mac, pk.ETH_ARP, reply.encode())
            event("arp_reply", logging.DEBUG, switch=self.cfg.name, to=arp.sender_ip, port=port, vlan=vlan)

    def learn_neighbor(self, nb: Neighbor) -> None:
        """Install or update a neighbour; forward packets that waited for it."""
        if self.rt.neighbors.get(nb.ip) == nb:
            return
        moved = nb.ip in self.rt.neighbors
        self.rt.neighbors[nb.ip] = nb
        event("neighbor_moved" if moved else "neighbor_resolved", switch=self.cfg.name, ip=nb.ip, mac=nb.mac,
              port=nb.port, vlan=nb.vlan)
        self.refresh()
        for frame in self.pending.pop(nb.ip, []):
            self.forward(frame, nb)

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
        self.refresh()

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
        """DF set and too big for the egress interface: ICMP fragmentation needed, routed back to the sender."""
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

    def on_unresolved(self, frame: pk.Frame, ip: pk.Ipv4) -> None:
        """A packet towards an unresolved host or next hop: keep it, ask who has the address."""
        target = self.next_hop_for(ip.dst)
        if target is None:
            return
        if target in self.pending or len(self.pending) < self.MAX_PENDING_ADDRESSES:
            waiting = self.pending.setdefault(target, [])
            if len(waiting) < self.MAX_PENDING_PER_ADDRESS:
                waiting.append(frame.payload)
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
            self.asked = {ip: t for ip, t in self.asked.items() if now - t < 1.0}
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

    def resolve_next_hops(self) -> None:
        """Ask for every configured next hop that is not resolved yet."""
        hops = {h for r in self.cfg.routes for h in r.via} | {l.via for l in self.cfg.lsps if l.via is not None} \
            | {a.via for a in self.cfg.acl if a.via is not None}
        for hop in sorted(hops - set(self.rt.neighbors)):
            self.arp_request(hop)

    def forward(self, ip_packet: bytes, nb: Neighbor) -> None:
        """Route a packet that waited for its neighbour (TTL - 1, new checksum)."""
        ip = pk.Ipv4.parse(ip_packet)
        if ip is None or ip.ttl <= 1:
            return
        head = bytearray(ip.header)
        head[8] -= 1
        head[10:12] = b"\0\0"
        head[10:12] = pk.checksum(bytes(head)).to_bytes(2, "big")
        rmac = self.cfg.vlans[nb.vlan].interface.mac
        self.send(nb.port, nb.vlan, nb.mac, rmac, pk.ETH_IPV4, bytes(head) + ip.payload)


def run(net: Network, names: list[str], election_id: int = 10, path: Path | None = None) -> int:
    """Run the daemon for the named switches until SIGTERM/SIGINT; 0 on a clean stop.

    The description file is re-read when it changes (or on SIGHUP) and only the
    difference is written; an invalid new file is reported and the old one kept.
    """
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
    routers = {n: Router(net, net.switches[n], election_id, stop) for n in names}
    threads = [threading.Thread(target=r.run, name=f"vrouter-{r.cfg.name}", daemon=True) for r in routers.values()]
    event("started", file=net.file, switches=",".join(names))
    for t in threads:
        t.start()
    mtime = _mtime(path)
    while not stop.is_set() and any(t.is_alive() for t in threads):
        stop.wait(0.5)
        now = _mtime(path)
        if path is None or (now == mtime and not hup.is_set()):
            continue
        mtime = now
        hup.clear()
        try:
            new = load(path)
        except ConfigError as exc:
            event("reload_refused", logging.ERROR, problems=len(exc.problems))
            for problem in exc.problems:
                log.error("%s", problem)
            continue
        event("reload", file=new.file)
        for name, router in routers.items():
            if name in new.switches:
                router.reload(new)
    stop.set()
    for t in threads:
        t.join(timeout=10)
    event("stopped")
    return 1 if any(getattr(r, "failed", False) for r in routers.values()) else 0


def _mtime(path: Path | None) -> float | None:
    try:
        return path.stat().st_mtime if path is not None else None
    except OSError:
        return None
