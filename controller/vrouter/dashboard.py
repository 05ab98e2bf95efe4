"""`vrouter dashboard`: a live web page of each switch, sampled once a second.

A `Sampler` per switch reads the switch's counters and tables over P4Runtime (as a backup
client: it never writes and never takes the primary role from `vrouter run`) and the
controller's state from the daemon's status file (status.py), turns counter deltas into
rates and keeps the last `HISTORY` seconds of per-port traffic. A Flask app serves the page
(web/: our own HTML, CSS and JavaScript, no CDN, works offline) and the JSON it polls
(`/api/state`) every second.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, send_from_directory
from p4rt import CounterData, CounterEntry, P4RuntimeError, Switch

from . import names as N
from . import show as S
from . import status
from .config import Network, SwitchConfig

log = logging.getLogger("vrouter")
WEB = Path(__file__).parent / "web"
HISTORY = 120                   # seconds of per-port traffic kept for the plots
COLORS = ("green", "yellow", "red")


class Rates:
    """Per-second rates of monotonically growing counters, keyed by what they count."""

    def __init__(self) -> None:
        self.last: dict[Any, tuple[float, int, int]] = {}

    def __call__(self, key: Any, now: float, packets: int, octets: int = 0) -> tuple[float, float]:
        """(packets/s, bits/s) since the last call for `key` (0 at the first, or after a counter reset)."""
        prev = self.last.get(key)
        self.last[key] = (now, packets, octets)
        if prev is None or now <= prev[0] or packets < prev[1] or octets < prev[2]:
            return 0.0, 0.0
        dt = now - prev[0]
        return round((packets - prev[1]) / dt, 1), round((octets - prev[2]) * 8 / dt, 1)


class Sampler:
    """One switch: its latest snapshot (`state`) and its per-port history, refreshed by `sample()`."""

    def __init__(self, net: Network, cfg: SwitchConfig, file: Path | None) -> None:
        self.net, self.cfg, self.file = net, cfg, file
        self.sw: Switch | None = None
        self.rates = Rates()
        self.history: dict[int, deque] = {p: deque(maxlen=HISTORY) for p in cfg.ports}
        self.state: dict[str, Any] = {"switch": cfg.name, "ok": False, "error": "not sampled yet"}

    def connect(self) -> Switch:
        from .reconcile import open_switch

        if self.sw is None:
            self.sw = open_switch(self.cfg, election_id=0).connect(timeout=3, stream=False)   # read-only
            self.sw.load_schema()      # fails (and the client is closed) while the switch has no program
        return self.sw

    def sample(self) -> None:
        """Take one snapshot; a switch that is away is reported as such and reconnected next time."""
        try:
            state = self.snapshot(self.connect())
        except P4RuntimeError as exc:
            if self.sw is not None:
                self.sw.close()
                self.sw = None
            state = {"switch": self.cfg.name, "ok": False, "error": str(exc).splitlines()[0],
                     "controller": self.controller()}
            state["controller"].pop("neighbors_list", None)
        self.state = state

    def snapshot(self, sw: Switch) -> dict[str, Any]:
        now = time.time()
        cfg, rate = self.cfg, self.rates
        rx, tx = S._counter(sw, "ingress.ingress_port_counter"), S._counter(sw, "egress.egress_port_counter")
        locked = {}         # the program counts drops per reason; per port, only a locked port's (unknown sources)
        if N.PORT_SECURITY in sw.schema.tables:
            locked = {int(e.match["ingress_port"]): e.counter_data.packets if e.counter_data else 0
                      for e in S._entries(sw, N.PORT_SECURITY, counters=True)}
        ports = []
        for number, p in sorted(cfg.ports.items()):
            r, t = rx.get(number, CounterData()), tx.get(number, CounterData())
            rx_pps, rx_bps = rate(("rx", number), now, r.packets, r.bytes)
            tx_pps, tx_bps = rate(("tx", number), now, t.packets, t.bytes)
            drops = locked.get(number, 0)
            drop_pps, _ = rate(("drop", number), now, drops)
            self.history[number].append([round(now, 3), rx_bps, tx_bps, rx_pps, tx_pps])
            ports.append({"port": number, "name": p.name, "mode": p.mode, "untagged": p.untagged(),
                          "tagged": list(p.tagged()), "policer": p.policer or "",
                          "rx_packets": r.packets, "rx_bytes": r.bytes, "tx_packets": t.packets, "tx_bytes": t.bytes,
                          "rx_pps": rx_pps, "rx_bps": rx_bps, "tx_pps": tx_pps, "tx_bps": tx_bps,
                          "drops": drops, "drop_pps": drop_pps})
        drops = []
        for name, where in (("ingress.ingress_drop_counter", "ingress"), ("egress.egress_drop_counter", "egress")):
            for index, data in sorted(S._counter(sw, name).items()):
                if data.packets:
                    pps, _ = rate((where, index), now, data.packets, data.bytes)
                    reason = S.DROP_REASONS[index] if index < len(S.DROP_REASONS) else str(index)
                    drops.append({"where": where, "reason": reason, "packets": data.packets, "pps": pps})
        vlans = S._show_vlans(sw, self.net, cfg)
        for v in vlans:
            v["pps"] = rate(("vlan", v["vlan"]), now, v["packets"])[0]
        interfaces = [{"vlan": vid, "name": v.name, "address": str(v.interface.address), "mac": v.interface.mac,
                       "mtu": v.interface.mtu, "masquerade": bool(v.interface.masquerade)}
                      for vid, v in sorted(cfg.vlans.items()) if v.interface is not None]
        routes = self.with_rates("route", "prefix", S._show_routes(sw, self.net, cfg), now)
        acl = self.with_rates("acl", "priority", S._show_acl(sw, self.net, cfg), now)
        lsps = [r for r in S._show_lsps(sw, self.net, cfg)]
        for r in lsps:
            r["pps"] = rate(("lsp", r["in_label"], r["out_label"]), now, r["packets"])[0] \
                if r["packets"] != "" else ""
        pws = S._show_vpls(sw, self.net, cfg) if cfg.vpls else []
        for r in pws:
            r["pps_in"] = rate(("pw", r["in_label"]), now, r["packets_in"])[0]
        controller = self.controller()
        return {"switch": cfg.name, "ok": True, "error": "", "time": now, "address": cfg.address,
                "ports": ports, "drops": drops, "vlans": vlans, "interfaces": interfaces, "routes": routes,
                "neighbors": controller.pop("neighbors_list", None) or self.neighbors_from(routes),
                "acl": acl, "policers": self.policers(sw, now), "lsps": lsps, "pseudowires": pws,
                "controller": controller}

    def with_rates(self, kind: str, key: str, rows: list[dict], now: float) -> list[dict]:
        for r in rows:
            r["pps"] = self.rates((kind, r[key], r.get("match", "")), now, r["packets"])[0]
        return rows

    def policers(self, sw: Switch, now: float) -> list[dict]:
        """Each configured policer cell: its rates and the packets and bits per second of each colour."""
        rows = S._show_meters(sw, self.net, self.cfg)
        if not rows:
            return rows
        probes = [CounterEntry(f"ingress.{r['meter']}_color_counter", r["index"] * 4 + c)
                  for r in rows for c in range(len(COLORS))]
        counts = {(c.counter.split(".")[-1], c.index): c.data for c in sw.read(probes) if c.data is not None}
        for r in rows:
            for c, color in enumerate(COLORS):
                data = counts.get((f"{r['meter']}_color_counter", r["index"] * 4 + c), CounterData())
                pps, bps = self.rates(("color", r["meter"], r["index"], c), now, data.packets, data.bytes)
                r[f"{color}_packets"], r[f"{color}_pps"], r[f"{color}_bps"] = data.packets, pps, bps
        return rows

    @staticmethod
    def neighbors_from(routes: list[dict]) -> list[dict]:
        """Without a running daemon: the host routes the switch holds and their next hops."""
        out = []
        for r in routes:
            if r["prefix"].endswith("/32") and r["next_hop"].startswith("port "):
                words = r["next_hop"].split()
                out.append({"ip": r["prefix"][:-3], "mac": words[4], "port": int(words[1]), "vlan": int(words[3])})
        return out

    def controller(self) -> dict[str, Any]:
        """The state of the `vrouter run` managing this switch, from its status file (if one runs)."""
        data = status.read_live(self.file, self.cfg.name) if self.file is not None else None
        if data is None:
            return {"running": False}
        return {"running": True, "pid": data["pid"], "synced": data["synced"], "connected": data["connected"],
                "failures": data["failures"], "last_error": data["last_error"], "retry_in": data["retry_in"],
                "stations": len(data.get("stations", [])), "capacity": data.get("capacity"),
                "locked_ports": data.get("locked_ports", []), "shut_ports": data.get("shut_ports", []),
                "neighbors_list": [{"ip": ip, "mac": mac, "port": port, "vlan": vlan}
                                   for ip, mac, port, vlan, _ in data.get("neighbors", [])]}


class Dashboard:
    """The samplers of the selected switches and the thread that runs them every `interval` seconds."""

    def __init__(self, net: Network, names: list[str], file: Path | None, interval: float = 1.0) -> None:
        self.samplers = [Sampler(net, net.switches[n], file) for n in names]
        self.interval = interval
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            start = time.monotonic()
            for s in self.samplers:
                try:
                    s.sample()
                except Exception as exc:   # a bad sample must not stop the page
                    log.exception("dashboard sample of %s failed", s.cfg.name)
                    s.state = {"switch": s.cfg.name, "ok": False, "error": repr(exc)}
            self.stop.wait(max(0.05, self.interval - (time.monotonic() - start)))

    def state(self) -> dict[str, Any]:
        return {"time": time.time(), "interval": self.interval, "history_seconds": HISTORY,
                "switches": [{**s.state, "history": {str(p): list(h) for p, h in s.history.items()}}
                             for s in self.samplers]}

    def app(self) -> Flask:
        app = Flask("vrouter.dashboard", static_folder=None)

        @app.get("/")
        def page():
            return send_from_directory(WEB, "dashboard.html")

        @app.get("/<any('dashboard.js', 'dashboard.css'):name>")
        def asset(name: str):
            return send_from_directory(WEB, name, max_age=0)

        @app.get("/api/state")
        def api_state():
            return jsonify(self.state())

        return app


def serve(net: Network, names: list[str], file: Path | None, address: str, interval: float = 1.0) -> int:
    """Sample in a thread and serve the page on HOST:PORT until interrupted (SIGINT/SIGTERM)."""
    import signal

    from werkzeug.serving import make_server

    dash = Dashboard(net, names, file, interval)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)     # no line per request
    host, _, port = address.rpartition(":")
    server = make_server(host.strip("[]") or "0.0.0.0", int(port), dash.app(), threaded=True)
    sampler = threading.Thread(target=dash.run, name="dashboard-sampler", daemon=True)
    sampler.start()

    def on_signal(signum, _frame) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    log.info("event=dashboard_serving address=%s switches=%s", address, ",".join(names))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    dash.stop.set()
    sampler.join(timeout=5)
    return 0
