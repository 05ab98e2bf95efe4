"""Hosts in network namespaces on veth pairs, and a switch process on their peers: the rig of the
controller's end-to-end tests and of `bench_recovery` (root needed)."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def switch_command() -> list[str]:
    """$SWITCH or the project's p4switch."""
    if os.environ.get("SWITCH"):
        return shlex.split(os.environ["SWITCH"])
    return [str(ROOT / "target" / "release" / "p4switch")]


def is_bmv2() -> bool:
    """True when the switch is BMv2's simple_switch_grpc."""
    return Path(switch_command()[0]).name.startswith("simple_switch")


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(args, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")
    return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Host:
    """A namespace with one interface: address/prefix and default gateway only (no static ARP)."""

    name: str
    port: int
    address: str
    gateway: str
    tag: str

    @property
    def ns(self) -> str:
        return f"{self.tag}-{self.name}"

    @property
    def switch_side(self) -> str:
        return f"{self.tag}p{self.port}"

    def create(self) -> None:
        host_side = f"{self.tag}h{self.port}"
        sh("ip", "netns", "add", self.ns)
        sh("ip", "link", "add", self.switch_side, "type", "veth", "peer", "name", host_side)
        sh("sysctl", "-qw", f"net.ipv6.conf.{self.switch_side}.disable_ipv6=1", check=False)
        sh("ip", "link", "set", self.switch_side, "up")
        sh("ip", "link", "set", host_side, "netns", self.ns)
        ns = ("ip", "netns", "exec", self.ns)
        sh(*ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", check=False)
        sh(*ns, "ip", "link", "set", host_side, "name", "eth0")
        if is_bmv2():  # BMv2 forwards a veth's offloaded (partial) UDP/TCP checksums unfinished: hosts compute them
            sh(*ns, "ethtool", "-K", "eth0", "tx", "off")
        sh(*ns, "ip", "addr", "add", self.address, "dev", "eth0")
        sh(*ns, "ip", "link", "set", "eth0", "up")
        sh(*ns, "ip", "link", "set", "lo", "up")
        sh(*ns, "ip", "route", "add", "default", "via", self.gateway)

    @property
    def ip(self) -> str:
        return self.address.split("/")[0]

    def ping(self, target: str, count: int = 1, wait: float = 1.0) -> bool:
        done = subprocess.run(["ip", "netns", "exec", self.ns, "ping", "-n", "-q", "-c", str(count), "-W", str(wait),
                               "-i", "0.2", target], capture_output=True, text=True)
        return done.returncode == 0

    def reaches(self, target: str, tries: int = 8) -> bool:
        """Ping until one answer arrives (the first packets may wait for ARP)."""
        return any(self.ping(target) for _ in range(tries))

    def run(self, *cmd: str) -> str:
        """Run a command in the namespace; its stdout and stderr."""
        done = subprocess.run(["ip", "netns", "exec", self.ns, *cmd], capture_output=True, text=True)
        return done.stdout + done.stderr

    def mac(self) -> str:
        return self.run("cat", "/sys/class/net/eth0/address").strip()

    def set_mac(self, mac: str) -> None:
        sh("ip", "netns", "exec", self.ns, "ip", "link", "set", "eth0", "address", mac)

    def destroy(self) -> None:
        subprocess.run(["ip", "link", "del", self.switch_side], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)


@dataclass
class SwitchProc:
    """A switch with the hosts' switch-side interfaces as ports, no program, gRPC on loopback."""

    ports: dict[int, str]
    log: Path
    grpc_port: int = field(default_factory=free_port)
    extra: list[str] = field(default_factory=list)     # more server options (e.g. TLS)
    command: list[str] = field(default_factory=switch_command)
    proc: subprocess.Popen | None = None
    started_after: float = 0.0                          # seconds the last start() took

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def start(self, timeout: float = 15) -> SwitchProc:
        """Start it and wait until it listens; one that exits at once (its address still held by a
        switch on its way out) is started again."""
        cmd = [*self.command]
        for port, iface in sorted(self.ports.items()):
            cmd += ["-i", f"{port}@{iface}"]
        cmd += ["--no-p4", "--", "--grpc-server-addr", self.address, "--cpu-port", "255", *self.extra]
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            with self.log.open("ab") as out:
                self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
            while self.proc.poll() is None and time.monotonic() - t0 < timeout:
                try:
                    socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.05).close()
                    self.started_after = time.monotonic() - t0
                    return self
                except OSError:
                    time.sleep(0.005)
        raise RuntimeError(f"switch did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> float:
        """SIGTERM; the seconds until it exited (SIGKILL after 5 s)."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return time.monotonic() - t0

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None
