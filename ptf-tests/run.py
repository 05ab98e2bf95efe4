#!/usr/bin/env python3
"""Run the vrouter.p4 PTF suite: compile, wire veth ports, start the switch, run PTF, clean up.

    run.py [--ports N] [--keep-logs] [PTF test specs...]

Environment: P4C (compiler, default the project's p4compile), SWITCH (default the
project's p4switch; `simple_switch_grpc` takes the same command line), SWITCH_ARGS
(extra switch options before `--`, e.g. `--thrift-port 9091` for BMv2),
PTF_NEGATIVE_TIMEOUT (seconds a "no packet" check waits, default 0.3). Needs root
(veth pairs, raw sockets). Every veth pair, the switch and PTF are removed again
on success, failure and Ctrl-C. The last line is `N passed, N failed`; the exit
status is non-zero when a test outside KNOWN_FAILURES fails.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = ROOT / "build" / "ptf"
PROGRAM = ROOT / "p4src" / "vrouter.p4"
TEST_DIR = HERE / "tests"
CPU_PORT = 255
DEFAULT_PORTS = 8

# Tests that fail because of the switch, the compiler or the program, not the test.
# They still run, separately, and are reported as "known failures": never counted as
# passed, never hidden. Key: PTF test name (module.Class); value: the diagnosis.
KNOWN_FAILURES: dict[str, str] = {
}


def tool(env: str, built: Path, fallback: str) -> list[str]:
    """The command for a tool: $ENV, else the project's build, else a name on PATH."""
    if os.environ.get(env):
        return shlex.split(os.environ[env])
    return [str(built)] if built.exists() else [fallback]


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run a short command quietly; raise with its output if it fails and `check`."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip() or done.stdout.strip()}")
    return done


def compile_program(program: Path = PROGRAM) -> tuple[Path, Path]:
    """Compile vrouter.p4 (or a variant of it) with $P4C into build/ptf/; return (json, p4info)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    json_path, p4info = BUILD / "vrouter.json", BUILD / "vrouter.p4info.txtpb"
    cmd = [*tool("P4C", ROOT / ".venv" / "bin" / "p4compile", "p4compile"),
           str(program), "-o", str(json_path), "--p4runtime-files", str(p4info)]
    print("compile:", " ".join(cmd), flush=True)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    except FileNotFoundError as exc:
        raise RuntimeError(f"compiler not found: {cmd[0]} (set P4C)") from exc
    if done.returncode != 0:
        raise RuntimeError(f"compilation failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return json_path, p4info


class Veths:
    """veth pairs `<tag>s<N>` (switch side) / `<tag>p<N>` (PTF side), offloads off, IPv6 off."""

    def __init__(self, count: int) -> None:
        # A tag unique to this run, so two runs on one machine do not collide.
        self.tag = f"h8{os.getpid() % 46656:x}"[:7]
        self.pairs: dict[int, tuple[str, str]] = {}
        for port in range(1, count + 1):
            sw, ptf = f"{self.tag}s{port}", f"{self.tag}p{port}"
            sh("ip", "link", "del", sw, check=False)
            sh("ip", "link", "add", sw, "type", "veth", "peer", "name", ptf)
            self.pairs[port] = (sw, ptf)
            for iface in (sw, ptf):
                # No kernel chatter (IPv6 DAD/RS/MLD) on the test ports; real checksums.
                sh("sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1", check=False)
                sh("ip", "link", "set", iface, "mtu", "9500")
                for feature in ("tx", "rx", "sg", "tso", "gso", "gro", "lro", "rxvlan", "txvlan"):
                    sh("ethtool", "-K", iface, feature, "off", check=False)
                sh("ip", "link", "set", iface, "up")

    def delete(self) -> None:
        """Delete every pair (deleting one end removes both)."""
        for sw, _ in self.pairs.values():
            sh("ip", "link", "del", sw, check=False)
        self.pairs.clear()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_switch(veths: Veths, log_path: Path) -> tuple[subprocess.Popen, str]:
    """Start $SWITCH with the switch-side veths; wait until its gRPC port accepts connections."""
    addr = f"127.0.0.1:{free_port()}"
    cmd = [*tool("SWITCH", ROOT / "target" / "release" / "p4switch", "p4switch"), "--device-id", "0"]
    for port, (sw, _) in sorted(veths.pairs.items()):
        cmd += ["-i", f"{port}@{sw}"]
    extra = shlex.split(os.environ.get("SWITCH_ARGS", ""))   # e.g. BMv2's --thrift-port N
    if Path(cmd[0]).name == "p4switch" and not any(a.startswith("--spread") for a in extra):
        # PTF cases, ours and those written for BMv2, send several flows into one port and
        # expect them out in that order: BMv2 runs ingress on one thread. p4switch's default
        # spreads flows over its workers and keeps only each flow's order (that mode is
        # tested over veth by io_modes and the controller's suites), so ask for BMv2's order.
        extra += ["--spread", "port"]
    cmd += extra
    cmd += ["--no-p4", "--", "--grpc-server-addr", addr, "--cpu-port", str(CPU_PORT)]
    print("switch:", " ".join(cmd), flush=True)
    log = log_path.open("wb")
    try:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    except FileNotFoundError as exc:
        raise RuntimeError(f"switch not found: {cmd[0]} (set SWITCH)") from exc
    finally:
        log.close()
    host, port = addr.split(":")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the switch exited with {proc.returncode}; log {log_path}:\n{tail(log_path)}")
        try:
            with socket.create_connection((host, int(port)), timeout=0.2):
                return proc, addr
        except OSError:
            time.sleep(0.1)
    stop(proc)
    raise RuntimeError(f"the switch did not listen on {addr} within 30 s; log {log_path}:\n{tail(log_path)}")


def stop(proc: subprocess.Popen | None) -> None:
    """Stop a process we started (SIGTERM to its session, then SIGKILL)."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# unittest's verbose lines: "mod.Class ... ok", or "mod.Class ... " followed by subtest lines
# "  mod.Class (x=1) ... FAIL", or by a bare status after output the test printed.
TEST_LINE = re.compile(r"^(?P<name>[\w.]+) \.\.\. ?(?P<status>.*)$")
SUBTEST_LINE = re.compile(r"^\s+(?P<name>[\w.]+) \(.*\) \.\.\. (?P<status>FAIL|ERROR)$")
STATUS = re.compile(r"^(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
RAN_LINE = re.compile(r"^Ran (?P<n>\d+) tests? in ")


def run_ptf(specs: list[str], veths: Veths, params: str, log_name: str) -> dict[str, str]:
    """Run PTF on `specs`; echo its output; return {test: ok|FAIL|ERROR|skipped ...}."""
    cmd = [str(ROOT / ".venv" / "bin" / "ptf"), "--test-dir", str(TEST_DIR),
           "--log-file", str(BUILD / f"{log_name}.log"), "--test-params", params,
           "--default-negative-timeout", os.environ.get("PTF_NEGATIVE_TIMEOUT", "0.3"), "--test-case-timeout", "300"]
    for port, (_, ptf) in sorted(veths.pairs.items()):
        cmd += ["--interface", f"{port}@{ptf}"]
    cmd += specs
    print("ptf:", " ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=BUILD,
                            start_new_session=True)
    results: dict[str, str] = {}
    current, ran = None, None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            text = line.rstrip("\n")
            if m := SUBTEST_LINE.match(text):
                results[m["name"]] = m["status"]
            elif m := TEST_LINE.match(text):
                current = m["name"]
                if STATUS.match(m["status"].strip()):
                    results[current] = m["status"].strip()
            elif current and current not in results and STATUS.match(text.strip()):
                results[current] = text.strip()
            elif m := RAN_LINE.match(text):
                ran = int(m["n"])
        proc.wait()
    finally:
        stop(proc)
    if proc.returncode not in (0, 1) and not results:
        raise RuntimeError(f"ptf exited with {proc.returncode} before running any test")
    if ran is not None and ran != len(results):
        # A test whose outcome could not be read is a failure, never a silent pass.
        results[f"<{ran - len(results)} test(s) with unreadable results in {log_name}>"] = "ERROR"
    if proc.returncode != 0 and all(s == "ok" or s.startswith("skipped") for s in results.values()):
        results[f"<ptf exited with {proc.returncode}>"] = "ERROR"
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ports", type=int, default=DEFAULT_PORTS, help="data ports 1..N (default 8)")
    ap.add_argument("--program", type=Path, default=PROGRAM,
                    help="P4 program to test (default p4src/vrouter.p4; e.g. a deliberately broken copy)")
    ap.add_argument("specs", nargs="*", help="PTF test specs (module or module.Class); default: all")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("run.py: needs root (veth pairs and raw sockets)", file=sys.stderr)
        return 2
    for exe in ("ip", "ethtool"):
        if shutil.which(exe) is None:
            print(f"run.py: `{exe}` not found", file=sys.stderr)
            return 2

    veths: Veths | None = None
    switch: subprocess.Popen | None = None
    started = time.monotonic()

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)   # also when started with SIGINT ignored (background)
    try:
        json_path, p4info = compile_program(args.program.resolve())
        veths = Veths(args.ports)
        switch, addr = start_switch(veths, BUILD / "switch.log")
        params = f"grpc_addr='{addr}';p4info='{p4info}';json='{json_path}';cpu_port={CPU_PORT}"
        known = [k for k in KNOWN_FAILURES if not args.specs or any(k == s or k.startswith(s + ".") for s in args.specs)]
        main_specs = (args.specs or []) + [f"^{k}" for k in known]
        results = run_ptf(main_specs, veths, params, "ptf")
        known_results = run_ptf(known, veths, params, "ptf-known") if known else {}
        if switch.poll() is not None:
            print(f"run.py: the switch died during the run (exit {switch.returncode}); log: {BUILD / 'switch.log'}")
    except KeyboardInterrupt:
        print("\nrun.py: interrupted; cleaning up", file=sys.stderr)
        return 130
    except RuntimeError as exc:
        print(f"run.py: {exc}", file=sys.stderr)
        return 2
    finally:
        stop(switch)
        if veths is not None:
            veths.delete()

    passed = sorted(n for n, s in results.items() if s == "ok")
    failed = sorted(n for n, s in results.items() if s in ("FAIL", "ERROR", "unexpected success"))
    skipped = sorted(n for n, s in results.items() if s.startswith("skipped"))
    print()
    print(f"== PTF summary ({time.monotonic() - started:.0f} s, switch {tool('SWITCH', ROOT / 'target/release/p4switch', 'p4switch')[0]}) ==")
    for name in failed:
        print(f"FAILED  {name} ({results[name]})")
    for name in skipped:
        print(f"SKIPPED {name} ({results[name]})  -- counts as failed")
    if known_results or KNOWN_FAILURES:
        print("known failures (run, not counted as passed):")
        for name in sorted(known_results):
            status = known_results[name]
            note = "still failing" if status != "ok" else "NOW PASSES: remove it from KNOWN_FAILURES"
            print(f"  {name}: {status}, {note} -- {KNOWN_FAILURES.get(name, '')}")
    n_failed = len(failed) + len(skipped)
    if not results:
        print("no test ran")
        n_failed += 1
    print(f"{len(passed)} passed, {n_failed} failed" + (f", {len(known_results)} known failures" if known_results else ""))
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
