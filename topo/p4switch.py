"""A mininet switch that runs `p4switch` (or BMv2's simple_switch_grpc via $SWITCH) on its links.

The switch process runs in the root namespace on the switch-side veth of every link;
mininet port N becomes P4 port N. The P4 program is not given on the command line
(`--no-p4`): the controller pushes it over P4Runtime.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import time
from pathlib import Path

from mininet.node import Switch

import procs

ROOT = Path(__file__).resolve().parents[1]


def switch_command() -> list[str]:
    """$SWITCH (e.g. `simple_switch_grpc`) or the project's release p4switch."""
    if os.environ.get("SWITCH"):
        return shlex.split(os.environ["SWITCH"])
    return [str(ROOT / "target" / "release" / "p4switch")]


class P4Switch(Switch):
    """mininet switch backed by a P4Runtime software switch."""

    def __init__(self, name: str, grpc_port: int = 9559, device_id: int = 0, cpu_port: int = 255,
                 log_dir: str | None = None, metrics_port: int | None = None, **kwargs) -> None:
        super().__init__(name, **kwargs)
        self.grpc_port = grpc_port
        self.metrics_port = metrics_port    # p4switch --metrics-addr 127.0.0.1:PORT (not a simple_switch_grpc option)
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.log_path = Path(log_dir or ROOT / "build") / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def command(self) -> list[str]:
        """The switch's command line (simple_switch_grpc options)."""
        cmd = [*switch_command(), "--device-id", str(self.device_id)]
        for intf, port in sorted(self.ports.items(), key=lambda item: item[1]):
            if intf.name != "lo" and port > 0:
                cmd += ["-i", f"{port}@{intf.name}"]
        if self.metrics_port:
            cmd += ["--metrics-addr", f"127.0.0.1:{self.metrics_port}"]
        return cmd + ["--no-p4", "--", "--grpc-server-addr", self.grpc_address, "--cpu-port", str(self.cpu_port)]

    def start(self, controllers) -> None:
        """Start the switch process and wait for its gRPC port (which must be free before)."""
        try:
            socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.2).close()
        except OSError:
            pass
        else:
            raise RuntimeError(f"{self.name}: {self.grpc_address} is already in use (another switch?); "
                               f"stop it or choose another port (run_campus.py --grpc-port N)")
        for intf in self.intfList():
            if intf.name != "lo":
                self.cmd(f"sysctl -qw net.ipv6.conf.{intf.name}.disable_ipv6=1")
                self.cmd(f"ethtool -K {intf.name} tx off rx off tso off gso off gro off >/dev/null 2>&1")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.proc = procs.start(self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name}: switch exited ({self.proc.returncode}); see {self.log_path}")
            try:
                socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.name}: no gRPC server on {self.grpc_address}; see {self.log_path}")

    def stop(self, deleteIntfs: bool = True) -> None:
        """Stop the switch process and delete its interfaces."""
        procs.stop(self.proc, timeout=5)
        self.proc = None
        super().stop(deleteIntfs)
