"""iperf3 between namespaces: one server per measurement (`-1`), JSON results reduced to numbers."""
from __future__ import annotations

import json
import subprocess
import time

from . import capture
from .netns import BenchError, Host

PORT = 5210   # not iperf3's default, so a stray server elsewhere does not answer


def start(pairs: list[tuple[Host, Host, float | None]], seconds: float, streams: int = 1,
          tcp_mbps: float | None = None) -> list[dict]:
    """Run the (client, server, udp Mb/s or None for TCP) measurements at the same time; TCP
    capped at `tcp_mbps` when given (iperf3 -b, as an offered load)."""
    what = ", ".join(f"{c.name}->{s.name} {'TCP' if u is None else f'UDP {u:g} Mb/s'}" for c, s, u in pairs)
    with capture.once(f"iperf3 {what}, {seconds:g} s"):
        return _start(pairs, seconds, streams, tcp_mbps)


def _start(pairs, seconds: float, streams: int, tcp_mbps: float | None) -> list[dict]:
    servers, clients = [], []
    try:
        for i, (_, srv, _) in enumerate(pairs):
            servers.append(subprocess.Popen(["ip", "netns", "exec", srv.name, "iperf3", "-s", "-1", "-p",
                                             str(PORT + i)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.5)
        for i, (cli, srv, udp) in enumerate(pairs):
            cmd = ["ip", "netns", "exec", cli.name, "iperf3", "-c", srv.addr, "-p", str(PORT + i), "-t",
                   f"{seconds:g}", "-J", "-P", str(streams)]
            if udp is not None:
                cmd += ["-u", "-b", f"{udp / streams:g}M", "-l", "1400"]
            elif tcp_mbps:
                cmd += ["-b", f"{tcp_mbps / streams:g}M"]
            clients.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        out = []
        for (cli, srv, udp), p in zip(pairs, clients):
            text, err = p.communicate(timeout=seconds + 30)
            try:
                j = json.loads(text)
            except ValueError:
                raise BenchError(f"iperf3 {cli.name} -> {srv.name}: {(err or text).strip()[:300]}")
            if "error" in j:
                raise BenchError(f"iperf3 {cli.name} -> {srv.name}: {j['error']}")
            r = reduce(j, udp)
            if udp is None and tcp_mbps:
                r["offered_mbps"] = tcp_mbps
            out.append(r)
        return out
    finally:
        for p in servers + clients:
            if p.poll() is None:
                p.kill()
                p.wait()


def reduce(j: dict, udp: float | None) -> dict:
    end = j["end"]
    cpu = end.get("cpu_utilization_percent", {})
    r = {"protocol": "udp" if udp is not None else "tcp", "offered_mbps": udp,
         "sender_cpu_percent": cpu.get("host_total"), "receiver_cpu_percent": cpu.get("remote_total")}
    if udp is not None:
        s = end["sum"]
        recv = end.get("sum_received", {}).get("bits_per_second")
        r["received_mbps"] = (recv if recv is not None else s["bits_per_second"] * (1 - s["lost_percent"] / 100)) / 1e6
        r.update(sent_mbps=s["bits_per_second"] / 1e6, lost_percent=s["lost_percent"], jitter_ms=s.get("jitter_ms"))
    else:
        r["received_mbps"] = end["sum_received"]["bits_per_second"] / 1e6
        r["sent_mbps"] = end["sum_sent"]["bits_per_second"] / 1e6
    return r
