"""`--pcap DIR`: packet captures of every port of a run for one trial.

The scenario script arms the capture with the run's name prefix; the first trial that asks
(`rfc2544.trial`, `iperf.start`) then runs with a `tcpdump` on every interface of every
namespace whose name starts with the prefix (the hosts' ends and the switch's ports), one
file per interface: DIR/<namespace>-<interface>.pcap. Later trials run without. Headers only
(the first 128 bytes of a frame) and at most 100,000 frames per file, so a capture stays
small even at line rate; tcpdump's own drop count is in DIR/capture.txt.

p4switch moves frames past the taps tcpdump listens on: it receives over AF_XDP (`--io xdp`,
its default), before the kernel's taps, and transmits with PACKET_QDISC_BYPASS. So its side of
a port shows nothing (with `--io mmap`/`socket`, what it received); what it received and sent
is in the file of the other end of each link (the host's interface, or the next switch's
port). The kernel baselines' ports capture both ways.
"""
from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from pathlib import Path

SNAPLEN = 128
MAX_FRAMES = 100_000

_armed: dict = {}


def arm(directory: Path | None, prefix: str = "", devices: list[tuple[str | None, str]] | None = None) -> None:
    """Capture the next trial of namespaces PREFIX* into `directory` (None: no capture), or of
    the given (namespace, interface) pairs, None naming the host's own namespace (a benchmark
    whose veths are not in namespaces)."""
    _armed.clear()
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        _armed.update(dir=Path(directory), prefix=prefix, devices=devices)


def namespaces(prefix: str) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return sorted(l.split()[0] for l in out.splitlines() if l.split() and l.split()[0].startswith(prefix))


def interfaces(ns: str) -> list[str]:
    out = subprocess.run(["ip", "-n", ns, "-o", "link", "show"], capture_output=True, text=True).stdout
    names = [l.split(":")[1].strip().split("@")[0] for l in out.splitlines() if l.count(":") >= 2]
    return [n for n in names if n != "lo"]


@contextlib.contextmanager
def once(what: str):
    """Around one trial: captures it if armed and not done yet."""
    if not _armed or _armed.get("done"):
        yield
        return
    _armed["done"] = True
    d: Path = _armed["dir"]
    procs = []
    targets = _armed["devices"] or [(ns, dev) for ns in namespaces(_armed["prefix"]) for dev in interfaces(ns)]
    for ns, dev in targets:
        f = d / f"{ns or 'host'}-{dev}.pcap"
        procs.append((f, subprocess.Popen(
            (["ip", "netns", "exec", ns] if ns else []) + ["tcpdump", "-i", dev, "-s", str(SNAPLEN), "-c",
                                                           str(MAX_FRAMES), "-U", "-n", "-w", str(f)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)))
    deadline = time.monotonic() + 3
    while any(not f.exists() for f, p in procs if p.poll() is None) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)            # tcpdump has the file open before its socket is bound
    try:
        yield
    finally:
        time.sleep(1.2)        # tcpdump reads its ring a block at a time (1 s timeout): let it take the last one in
        notes = [f"capture of one trial: {what}"]
        for f, p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            try:
                _, err = p.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
            counts = " ".join(l.strip() for l in (err or "").splitlines() if "packets" in l)
            notes.append(f"{f.name}: {counts or (err or '').strip()[-200:]}")
        (d / "capture.txt").write_text("\n".join(notes) + "\n")
