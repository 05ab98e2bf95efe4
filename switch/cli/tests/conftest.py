"""Fixtures: vrouter.p4 compiled by $P4C, a real switch ($SWITCH) on pcap-file ports, the CLI.

The switch waits (`--use-files WAIT`) before it reads its input pcaps; the test pushes the
pipeline and runs p4switch-cli in that window, then the packets flow and the output pcaps
show what the commands did.
"""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
VENV_BIN = Path(sys.executable).parent


def _tool(env: str, built: Path, name: str) -> str:
    if os.environ.get(env):
        return os.environ[env]
    return str(built) if built.exists() else (shutil.which(name) or name)


P4C = _tool("P4C", VENV_BIN / "p4compile", "p4compile")
SWITCH = _tool("SWITCH", ROOT / "target" / "release" / "p4switch", "p4switch")
CLI = [str(VENV_BIN / "p4switch-cli")] if (VENV_BIN / "p4switch-cli").exists() else \
    [sys.executable, "-m", "p4switch_cli"]


@dataclass
class Program:
    json: Path
    p4info: Path


@pytest.fixture(scope="session")
def vrouter(tmp_path_factory) -> Program:
    """p4src/vrouter.p4, the repository's program, compiled by the compiler under test."""
    out = tmp_path_factory.mktemp("vrouter")
    js, info = out / "vrouter.json", out / "vrouter.p4info.bin"
    cp = subprocess.run(shlex.split(P4C) + [str(ROOT / "p4src" / "vrouter.p4"), "-o", str(js),
                                            "--p4runtime-files", str(info)],
                        capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stderr
    return Program(js, info)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SwitchRun:
    """One switch process on pcap-file ports `pN` in `work`, serving P4Runtime on a free port."""

    def __init__(self, work: Path, program: Program, ports: list[int], wait: int) -> None:
        self.work, self.program, self.ports = work, program, ports
        self.addr = f"127.0.0.1:{_free_port()}"
        argv = shlex.split(SWITCH) + ["--use-files", str(wait), "--thrift-port", str(_free_port())]
        for p in ports:
            argv += ["-i", f"{p}@p{p}"]
        argv += [str(program.json), "--", "--grpc-server-addr", self.addr]
        self.log = open(work / "switch.log", "w")
        self.reads_input_at = time.time() + wait
        self.proc = subprocess.Popen(argv, cwd=work, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self._wait_port()

    def _wait_port(self) -> None:
        host, port = self.addr.rsplit(":", 1)
        end = time.time() + 10
        while time.time() < end:
            try:
                with socket.create_connection((host, int(port)), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise AssertionError(f"switch did not serve P4Runtime: {(self.work / 'switch.log').read_text()}")

    def cli(self, commands: str, *extra: str, push: bool = True) -> subprocess.CompletedProcess:
        """Run p4switch-cli on a command file holding `commands`."""
        path = self.work / f"commands{time.monotonic_ns()}.txt"
        path.write_text(commands)
        argv = CLI + ["--grpc-addr", self.addr, *extra, str(path)]
        if push:
            argv[len(CLI):len(CLI)] = ["--p4info", str(self.program.p4info), "--json", str(self.program.json)]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)

    def outputs(self, settle: float = 1.0) -> dict[int, list[bytes]]:
        """The frames each port sent, `settle` seconds after the switch read its input."""
        time.sleep(max(0.0, self.reads_input_at + settle - time.time()))
        return {p: read_pcap(self.work / f"p{p}_out.pcap") for p in self.ports}

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def write_pcap(path: Path, frames: list[bytes]) -> None:
    """A classic little-endian microsecond pcap file of Ethernet frames."""
    data = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)
    for i, f in enumerate(frames):
        data += struct.pack("<IIII", 1, i, len(f), len(f)) + f
    path.write_bytes(data)


def read_pcap(path: Path) -> list[bytes]:
    data = path.read_bytes() if path.exists() else b""
    frames, off = [], 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from("<IIII", data, off)
        frames.append(data[off + 16: off + 16 + incl])
        off += 16 + incl
    return frames


@pytest.fixture
def switch(tmp_path, vrouter):
    """Start a switch: switch(inputs={port: [frames]}, wait=S); stopped after the test."""
    runs: list[SwitchRun] = []

    def start(inputs: dict[int, list[bytes]] | None = None, ports=(1, 2, 3, 4), wait: int = 4) -> SwitchRun:
        inputs = inputs or {}
        for p in ports:
            write_pcap(tmp_path / f"p{p}_in.pcap", inputs.get(p, []))
        run = SwitchRun(tmp_path, vrouter, list(ports), wait)
        runs.append(run)
        return run

    yield start
    for r in runs:
        r.stop()


@pytest.fixture
def live_switch(tmp_path, vrouter):
    """$SWITCH on two veth pairs (ports 1, 2; root), vrouter.p4 loaded: its P4Runtime address."""
    tag = f"h7{os.getpid() % 10000:04d}"
    pairs = [(f"{tag}s{p}", f"{tag}t{p}") for p in (1, 2)]
    proc = log = None
    try:
        for a, b in pairs:
            subprocess.run(["ip", "link", "del", a], capture_output=True)
            subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b], check=True)
            for end in (a, b):
                subprocess.run(["ip", "link", "set", end, "up"], check=True)
        addr = f"127.0.0.1:{_free_port()}"
        argv = shlex.split(SWITCH) + ["--thrift-port", str(_free_port())]
        for p, (a, _) in enumerate(pairs, start=1):
            argv += ["-i", f"{p}@{a}"]
        argv += [str(vrouter.json), "--", "--grpc-server-addr", addr]
        log = open(tmp_path / "switch.log", "w")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        host, port = addr.rsplit(":", 1)
        end = time.time() + 10
        while time.time() < end:
            try:
                with socket.create_connection((host, int(port)), timeout=0.2):
                    break
            except OSError:
                assert proc.poll() is None, (tmp_path / "switch.log").read_text()
                time.sleep(0.05)
        yield addr
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        if log is not None:
            log.close()
        for a, _ in pairs:
            subprocess.run(["ip", "link", "del", a], capture_output=True)
