"""Test harness: the namespaces and switch of vrouter.lab, the vrouter CLI and daemon as child processes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vrouter.lab import Host, SwitchProc, free_port, sh, switch_command  # noqa: F401 (the tests' imports)

ROOT = Path(__file__).resolve().parents[3]
VROUTER = [str(ROOT / ".venv" / "bin" / "python"), "-m", "vrouter.cli"]


def vrouter(*args: str, timeout: float = 60, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the vrouter command line."""
    return subprocess.run([*VROUTER, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT / "controller", env=env)


class Daemon:
    """`vrouter run FILE` as a child process, its log in a file."""

    def __init__(self, file: Path, log: Path, env: dict | None = None, args: tuple[str, ...] = ()) -> None:
        self.log = log
        self.out = log.open("w")
        self.proc = subprocess.Popen([*VROUTER, "run", str(file), *args], stdout=self.out, stderr=subprocess.STDOUT,
                                     cwd=ROOT / "controller", env=env)

    def text(self) -> str:
        return self.log.read_text()

    def wait_for(self, needle: str, timeout: float = 20, start: int = 0) -> str:
        """The first log line after byte `start` containing `needle` (raises on timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.text()[start:].splitlines():
                if needle in line:
                    return line
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no log line with {needle!r}; log:\n{self.text()[-3000:]}")

    def stop(self, timeout: float = 10) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return -9
        self.out.close()
        return self.proc.returncode


@contextmanager
def network(tag: str, hosts: list[Host], log: Path, extra: tuple[str, ...] = ()) -> Iterator[SwitchProc]:
    """The hosts' namespaces and a switch on their ports (`extra`: more switch options); all removed afterwards."""
    if os.geteuid() != 0:
        raise PermissionError("the vrouter integration tests need root (network namespaces)")
    switch = None
    try:
        for h in hosts:
            h.create()
        switch = SwitchProc({h.port: h.switch_side for h in hosts}, log, extra=list(extra)).start()
        yield switch
    finally:
        if switch is not None:
            switch.kill()
        for h in hosts:
            h.destroy()
