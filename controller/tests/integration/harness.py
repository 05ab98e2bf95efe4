"""Test harness: compile a P4 program, run a real switch process, and real veth ports."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
P4_DIR = Path(__file__).resolve().parents[1] / "p4"
CPU_PORT = 255


def _default(env: str, built: Path, fallback: str) -> list[str]:
    if os.environ.get(env):
        return shlex.split(os.environ[env])
    return [str(built)] if built.exists() else [fallback]


def compiler_command() -> list[str]:
    """The P4 compiler: $P4C (e.g. `p4c-bm2-ss`) or the project's p4compile."""
    return _default("P4C", ROOT / ".venv" / "bin" / "p4compile", "p4compile")


def switch_command() -> list[str]:
    """The switch: $SWITCH (e.g. `simple_switch_grpc`) or the project's p4switch."""
    return _default("SWITCH", ROOT / "target" / "release" / "p4switch", "p4switch")


@dataclass
class Program:
    """A compiled P4 program: BMv2 JSON and P4Info (text) paths."""

    json: Path
    p4info: Path


def compile_program(source: Path, out_dir: Path) -> Program:
    """Compile `source` with the compiler under test; raise with its output on failure."""
    json_path = out_dir / f"{source.stem}.json"
    p4info = out_dir / f"{source.stem}.p4info.txtpb"
    cmd = [*compiler_command(), str(source), "-o", str(json_path), "--p4runtime-files", str(p4info)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except FileNotFoundError as exc:
        raise RuntimeError(f"compiler not found: {cmd[0]} (set P4C or build p4compile)") from exc
    if done.returncode != 0 or not json_path.exists() or not p4info.exists():
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return Program(json_path, p4info)


def free_port() -> int:
    """A TCP port that is free on the loopback interface right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class SwitchProcess:
    """A switch process serving P4Runtime on 127.0.0.1:PORT, with optional interfaces."""

    log_path: Path
    ports: dict[int, str] = field(default_factory=dict)
    grpc_port: int = field(default_factory=free_port)
    device_id: int = 0
    grpc_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        """host:port of the P4Runtime server."""
        return f"127.0.0.1:{self.grpc_port}"

    def start(self, timeout: float = 15.0) -> SwitchProcess:
        """Start the switch and wait until its gRPC port accepts connections."""
        cmd = [*switch_command(), "--device-id", str(self.device_id)]
        for port, iface in sorted(self.ports.items()):
            cmd += ["-i", f"{port}@{iface}"]
        cmd += ["--no-p4", "--", "--grpc-server-addr", self.address, "--cpu-port", str(CPU_PORT), *self.grpc_args]
        log = self.log_path.open("ab")
        try:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except FileNotFoundError as exc:
            raise RuntimeError(f"switch not found: {cmd[0]} (set SWITCH or build p4switch)") from exc
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{' '.join(cmd)} exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{' '.join(cmd)} did not listen within {timeout:g} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """Stop the switch (SIGTERM, then SIGKILL)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None

    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of the switch's output."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class VethPair:
    """A veth pair: the switch side `name`a and the test side `name`b (needs root)."""

    def __init__(self, name: str) -> None:
        self.switch_side = f"{name}a"
        self.test_side = f"{name}b"
        subprocess.run(["ip", "link", "del", self.switch_side], capture_output=True)
        _ip("link", "add", self.switch_side, "type", "veth", "peer", "name", self.test_side)
        for iface in (self.switch_side, self.test_side):
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1"], capture_output=True)
            _ip("link", "set", iface, "up")
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.bind((self.test_side, 0))

    def send(self, frame: bytes) -> None:
        """Send a frame into the switch."""
        self.sock.send(frame)

    def _incoming(self, timeout: float):
        """Yield the frames the switch sends out of this port until `timeout` seconds have passed."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                data, addr = self.sock.recvfrom(65535)
            except TimeoutError:
                return
            if addr[2] != socket.PACKET_OUTGOING:
                yield data

    def receive(self, timeout: float = 2.0) -> list[bytes]:
        """Frames the switch sent out of this port within `timeout` seconds."""
        return list(self._incoming(timeout))

    def wait_for(self, predicate, timeout: float = 3.0) -> bytes | None:
        """The first frame from the switch matching `predicate`, or None after `timeout`."""
        return next((data for data in self._incoming(timeout) if predicate(data)), None)

    def close(self) -> None:
        """Close the socket and delete the pair."""
        self.sock.close()
        subprocess.run(["ip", "link", "del", self.switch_side], capture_output=True)


def make_certificates(folder: Path) -> dict[str, Path]:
    """A throw-away CA, a server certificate for 127.0.0.1 and a client certificate (openssl)."""
    paths = {name: folder / name for name in ("ca.crt", "ca.key", "server.crt", "server.key",
                                              "client.crt", "client.key")}
    key_opts = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def openssl(*args: str) -> None:
        done = subprocess.run(["openssl", *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"openssl {' '.join(args)}: {done.stderr.strip()}")

    openssl("req", "-x509", *key_opts, "-keyout", str(paths["ca.key"]), "-out", str(paths["ca.crt"]),
            "-days", "1", "-subj", "/CN=p4rt-test-ca")
    for role, san in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"), ("client", "extendedKeyUsage=clientAuth")):
        csr = folder / f"{role}.csr"
        ext = folder / f"{role}.ext"
        ext.write_text(san + "\n")
        openssl("req", *key_opts, "-keyout", str(paths[f"{role}.key"]), "-out", str(csr), "-subj", f"/CN=p4rt-{role}")
        openssl("x509", "-req", "-in", str(csr), "-CA", str(paths["ca.crt"]), "-CAkey", str(paths["ca.key"]),
                "-CAcreateserial", "-out", str(paths[f"{role}.crt"]), "-days", "1", "-extfile", str(ext))
    return paths


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def ethernet(dst: str, src: str, ether_type: int, payload: bytes = b"") -> bytes:
    """An Ethernet frame padded to 60 bytes."""
    frame = bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) + ether_type.to_bytes(2, "big")
    frame += payload
    return frame + bytes(max(0, 60 - len(frame)))
