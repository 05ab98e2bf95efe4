"""Run one STF test: compile, start the switch, program it, send, compare.

With pcap-file ports the switch runs with `--use-files WAIT_S`: it waits WAIT_S seconds
before reading `pN_in.pcap`, and the runner carries out the control commands over
P4Runtime in that window. A switch reads all its input files at once, so a file whose
control or check commands sit between packets runs in phases, one switch run each
(split_phases). With veth ports one switch serves the whole file in file order.
"""
from __future__ import annotations

import itertools
import math
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field, replace

from . import compare, pcap, stf
from .control import ControlError, Controller, wait_for_port
from .execute import ControlState, apply_control, enable_digests, run_checks
from .toolout import p4c_release

PASS, FAIL, NOT_RUN = "passed", "failed", "not run"

# Every switch a run starts gets its own device id, so cases run at once (-j) never share
# simple_switch_grpc's per-device IPC socket; P4Runtime requests carry the same id.
_DEVICE_IDS = itertools.count(1)


@dataclass
class Options:
    p4c: str = "p4compile"
    switch: str = "p4switch"
    build_dir: str = "build/conformance"
    wait: float = 2.0  # seconds the switch waits before reading its input pcaps
    extra_ports: tuple[int, ...] = tuple(range(8))  # opened even when the STF is silent on them
    timeout: float = 20.0
    ports: str = "files"  # "files": pcap files with --use-files; "veth": live veth pairs (root)


@dataclass
class Result:
    name: str
    area: str
    status: str
    reason: str = ""
    details: str = ""
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    switch: int = 1  # which of p4stf's --switch options (1 = the first)
    # Seconds the control commands took when they did not fit in the --use-files window.
    programming_s: float = field(default=0.0, repr=False, compare=False)
    compiled: tuple[str, str] | None = field(default=None, repr=False, compare=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: str, n: int = 25) -> str:
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    return "\n".join("    " + ln for ln in lines[-n:])


def _cmd_text(cmd) -> str:
    return f"line {cmd.line}: {getattr(cmd, 'text', type(cmd).__name__)}"


def compile_program(opts: Options, p4: str, out_dir: str) -> tuple[str, str, str | None]:
    """Compile with $P4C; returns (json, p4info, error text or None)."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, os.path.splitext(os.path.basename(p4))[0])
    # The binary P4Info is what the runner loads (text-format maps do not parse with the
    # pure-Python protobuf runtime); the text one is for people reading the build folder.
    js, text, info = base + ".json", base + ".p4info.txt", base + ".p4info.bin"
    for f in (js, text, info):
        if os.path.exists(f):
            os.remove(f)
    argv = shlex.split(opts.p4c) + [p4, "-o", js, "--p4runtime-files", f"{text},{info}"]
    try:
        cp = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        return js, info, f"compiler not found: {argv[0]}"
    except subprocess.TimeoutExpired:
        return js, info, "compiler timed out after 120 s"
    if cp.returncode != 0 or not os.path.exists(js) or not os.path.exists(info):
        msg = (cp.stderr or cp.stdout).strip().splitlines()[-15:]
        return js, info, f"compiler exit {cp.returncode}:\n" + "\n".join("    " + m for m in msg)
    return js, info, None


# A case that p4c cannot run as written says so in its header, and with p4c (a compiler
# whose --version prints "Version X.Y...") it is not run, the line saying why:
#   // needs p4c 1.2.4.12: 'for' loops          (p4c releases before 1.2.4.12 lack it)
#   // not on p4c: <why p4c's output differs from the specification here>
_NEEDS = re.compile(r"^//\s*needs p4c (\d+(?:\.\d+)+):\s*(.*)$", re.M)
_NOT_ON_P4C = re.compile(r"^//\s*not on p4c:\s*(.*)$", re.M)


def held_back(p4c: str, p4: str) -> str | None:
    """Why this compiler, being p4c, cannot run the program as the test expects (the
    header lines above), or None."""
    try:
        with open(p4, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    needs, never = _NEEDS.findall(text), _NOT_ON_P4C.findall(text)
    have = p4c_release(p4c) if needs or never else None
    if have is None:
        return None
    release = ".".join(map(str, have))
    why = [f"p4c {release} predates {what.strip()} (p4c {v})" for v, what in needs
           if have < tuple(int(x) for x in v.split("."))]
    why += [f"not on p4c {release}: {what.strip()}" for what in never]
    return "; ".join(why) or None


def run_case(opts: Options, p4: str, stf_path: str, area: str = "", name: str = "",
             compiled: tuple[str, str] | None = None, retried: bool = False) -> Result:
    """Compile `p4` with opts.p4c (unless `compiled` gives the (json, p4info) of an earlier
    compile of it) and run the STF file on opts.switch."""
    t0 = time.time()
    name = name or os.path.splitext(os.path.basename(p4))[0]
    res = Result(name, area, FAIL)
    why = held_back(opts.p4c, p4)
    if why:
        res.status, res.reason = NOT_RUN, why
        return res
    try:
        cmds = stf.parse_file(stf_path)
    except (stf.StfError, OSError) as exc:
        res.reason = f"bad STF: {exc}"
        return res
    out_dir = os.path.join(opts.build_dir, area, name) if area else os.path.join(opts.build_dir, name)
    if compiled is None:
        js, info_path, err = compile_program(opts, p4, out_dir)
        if err:
            res.reason = "compile failed"
            res.details = err
            return res
    else:
        js, info_path = compiled
        os.makedirs(out_dir, exist_ok=True)
    try:
        if opts.ports == "veth":
            _execute_veth(opts, cmds, js, info_path, out_dir, res)
        else:
            _execute(opts, cmds, js, info_path, out_dir, res)
    finally:
        res.seconds = time.time() - t0
    res.compiled = (js, info_path)
    if res.programming_s and not retried:
        # The switch read its packets before the control commands were done (a busy
        # machine): nothing was checked yet. Run the case once more with a window long
        # enough for them; that run decides, and the line says it was needed.
        wait = float(math.ceil(res.programming_s * 1.5) + 1)
        again = run_case(replace(opts, wait=wait), p4, stf_path, area, name, (js, info_path), retried=True)
        again.seconds += res.seconds
        note = f"run again with --wait {wait:g}: programming took {res.programming_s:.1f}s"
        again.reason = f"{again.reason}; {note}" if again.reason else note
        return again
    return res


def run_case_on_each(opts_list: list[Options], p4: str, stf_path: str, area: str = "",
                     name: str = "", compiled: tuple[str, str] | None = None) -> list[Result]:
    """The case on each switch of opts_list (same compiler): compiled once, by the first
    (or given as `compiled`), and the same JSON and P4Info run on every switch. A compile
    failure fails them all."""
    first = run_case(opts_list[0], p4, stf_path, area, name, compiled=compiled)
    results = [first]
    for opts in opts_list[1:]:
        if first.compiled is None:
            # Not compiled: held back for this compiler (NOT_RUN) or a compile failure (FAIL).
            results.append(Result(first.name, area, first.status, reason=first.reason, details=first.details))
        else:
            results.append(run_case(opts, p4, stf_path, area, name, compiled=first.compiled))
    return results


@dataclass
class Phase:
    """A stretch of the file that one switch run covers with pcap-file ports.

    `before`: control and check commands carried out (in file order) before the phase's
    packets flow; `packets`; `after` (last phase only): the commands after the last
    packet; `end_line`: where the next phase starts (the expect lines above it are
    this phase's)."""
    before: list = field(default_factory=list)
    packets: list = field(default_factory=list)
    after: list = field(default_factory=list)
    end_line: float = float("inf")


def split_phases(cmds: list) -> list[Phase]:
    """Cut the file where a control or check command follows packets and more packets
    come after it: with pcap files a switch reads all its input at once, so each such
    stretch gets a switch run of its own."""
    phases = [Phase()]
    for c in cmds:
        ph = phases[-1]
        if isinstance(c, stf.Packet):
            if ph.after:
                ph.end_line = ph.after[0].line
                phases.append(Phase(before=ph.after, packets=[c]))
                ph.after = []
            else:
                ph.packets.append(c)
        elif isinstance(c, stf.CONTROL_COMMANDS + stf.CHECK_COMMANDS):
            (ph.after if ph.packets else ph.before).append(c)
    return phases


def _execute(opts: Options, cmds: list, js: str, info_path: str, work: str, res: Result) -> None:
    """Run the file with pcap-file ports, one switch run per phase (see split_phases).

    A later phase's switch gets the control commands of the phases before it again and
    the data-plane state they left (registers, counters, direct counters: read at the end
    of one phase, written at the start of the next), so it continues where the last
    one stopped; meter buckets start full again."""
    packets = [c for c in cmds if isinstance(c, stf.Packet)]
    expects = [c for c in cmds if isinstance(c, stf.Expect)]
    needs_rt = [c for c in cmds if isinstance(c, stf.CONTROL_COMMANDS + stf.CHECK_COMMANDS)]
    ports = sorted(set(opts.extra_ports) | {c.port for c in packets} | {c.port for c in expects})
    bad = [p for p in ports if p < 0 or p > 510]
    if bad:
        res.reason = f"port(s) {bad} outside 0..510"
        return
    phases = split_phases(cmds)
    outputs: dict[int, list[bytes]] = {p: [] for p in ports}
    fails: list[str] = []
    run = _PhaseRun(opts, cmds, js, info_path, res, needs_rt)
    for k, ph in enumerate(phases):
        pdir = work if len(phases) == 1 else os.path.join(work, f"phase{k + 1}")
        n_before = sum(len(v) for v in outputs.values())
        n_expected = sum(1 for e in expects if e.line < ph.end_line)
        ok = run.phase(ph, phases[:k], pdir, ports, n_expected - n_before, last=k == len(phases) - 1)
        for p in ports:
            outputs[p] += pcap.read(os.path.join(pdir, f"p{p}_out.pcap"))
        if not ok:
            return
        fails += run.fails
    reports = compare.compare(expects, outputs, ports)
    bad = [r for r in reports if not r.ok]
    if bad or fails:
        res.reason = "; ".join(filter(None, [
            f"packet mismatch on port(s) {', '.join(str(r.port) for r in bad)}" if bad else "",
            f"{len(fails)} check(s) failed" if fails else "",
            f"{len(phases)} phases" if len(phases) > 1 and bad else ""]))
        res.details = "\n".join([r.text for r in bad] + fails)
        return
    res.status = PASS


class _PhaseRun:
    """Starts the switch for one phase, programs it, lets the packets through."""

    def __init__(self, opts: Options, cmds: list, js: str, info_path: str, res: Result,
                 needs_rt: list) -> None:
        self.opts, self.cmds, self.js, self.info_path, self.res = opts, cmds, js, info_path, res
        self.needs_rt = needs_rt
        self.snapshot: list = []
        self.carry: Controller | None = None  # last phase's controller: its digests
        self.fails: list[str] = []

    def phase(self, ph: Phase, earlier: list[Phase], work: str, ports: list[int],
              n_expected: int, last: bool) -> bool:
        """Run one phase; False if the case is decided (res says why)."""
        opts, res = self.opts, self.res
        self.fails = []
        os.makedirs(work, exist_ok=True)
        for f in os.listdir(work):
            if f.endswith(".pcap") or f == "switch.log":
                os.remove(os.path.join(work, f))
        base = time.time()
        by_port: dict[int, list[tuple[float, bytes]]] = {p: [] for p in ports}
        for i, c in enumerate(ph.packets):
            by_port[c.port].append((base + i * 0.001, c.data))
        for p, lst in by_port.items():
            pcap.write(os.path.join(work, f"p{p}_in.pcap"), [d for _, d in lst], [t for t, _ in lst])
        wait = opts.wait if self.needs_rt else 0
        addr = f"127.0.0.1:{_free_port()}"
        # A free Thrift port too: simple_switch_grpc opens one (9090 by default) when built
        # with Thrift; p4switch accepts and ignores the option.
        device = next(_DEVICE_IDS)
        argv = shlex.split(opts.switch) + ["--use-files", str(int(wait + 0.999)),
                                           "--thrift-port", str(_free_port()),
                                           "--device-id", str(device)]
        for p in ports:
            argv += ["-i", f"{p}@p{p}"]
        argv += [os.path.abspath(self.js), "--", "--grpc-server-addr", addr]
        log_path = os.path.join(work, "switch.log")
        log = open(log_path, "w")
        try:
            sw = subprocess.Popen(argv, cwd=work, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        except FileNotFoundError:
            log.close()
            res.reason = f"switch not found: {argv[0]}"
            return False
        started = time.time()
        ctl = None
        try:
            if self.needs_rt:
                ctl = self._program(sw, addr, device, ph, earlier, started, log_path)
                if ctl is None:
                    return False
            _settle(opts, sw, work, ports, n_expected, started + wait)
            # A switch may exit on its own once its pcap input is done: fine if it says so
            # with status 0 and nothing still needs to be read from it.
            if sw.poll() is not None and (sw.returncode != 0 or ctl is not None):
                res.reason = f"switch exited with code {sw.returncode}"
                res.details = _tail(log_path)
                return False
            if last:
                for c in ph.after:
                    if isinstance(c, stf.CONTROL_COMMANDS):
                        apply_control(ctl, c, self.state)
                    else:
                        self.fails += run_checks(ctl, [c])
            elif ctl is not None:
                try:
                    self.snapshot = ctl.snapshot()
                except ControlError as exc:
                    self._refused("the state cannot be carried to the next phase", exc)
                    return False
        except ControlError as exc:
            self._refused("control command failed", exc)
            return False
        finally:
            if ctl is not None:
                ctl.close()
                self.carry = ctl
            _stop(sw)
            log.close()
        return True

    def _refused(self, what: str, exc: ControlError) -> None:
        """The switch refused something: the case fails, or is not run if it cannot do it."""
        self.res.reason = f"{what}: {exc}"
        if "UNIMPLEMENTED" in str(exc):
            self.res.status = NOT_RUN
            self.res.skipped = [_cmd_text(c) for c in self.needs_rt]

    def _program(self, sw, addr, device, ph: Phase, earlier: list[Phase], started, log_path):
        """Connect, push the pipeline, replay earlier phases and run this phase's commands
        before its packets; None if not possible (res says why)."""
        opts, res = self.opts, self.res
        ready = wait_for_port(addr, max(0.5, opts.wait - 0.5))
        if not ready:
            res.status = NOT_RUN
            res.reason = f"no P4Runtime server on {addr} (switch gRPC missing?)"
            res.skipped = [_cmd_text(c) for c in self.needs_rt]
            if sw.poll() is not None:
                res.status = FAIL
                res.skipped = []
                res.reason = f"switch exited with code {sw.returncode} before serving P4Runtime"
                res.details = _tail(log_path)
            return None
        try:
            ctl = Controller(addr, device_id=device, timeout=2.0, carry=self.carry)
        except ControlError as exc:
            res.status = NOT_RUN
            res.reason = f"P4Runtime not usable: {exc}"
            res.skipped = [_cmd_text(c) for c in self.needs_rt]
            return None
        self.state = ControlState()
        try:
            ctl.set_pipeline(self.info_path, self.js)
        except ControlError as exc:
            ctl.close()
            return self._refused("pipeline refused", exc)
        try:
            enable_digests(ctl, self.cmds)
            for c in (c for e in earlier for c in e.before if isinstance(c, stf.CONTROL_COMMANDS)):
                apply_control(ctl, c, self.state)
            ctl.flush_multicast()
            ctl.restore(self.snapshot)
            for c in ph.before:
                if isinstance(c, stf.CONTROL_COMMANDS):
                    apply_control(ctl, c, self.state)
                else:
                    ctl.flush_multicast()
                    self.fails += run_checks(ctl, [c])
            ctl.flush_multicast()
        except ControlError as exc:
            ctl.close()
            return self._refused("control command failed", exc)
        spent = time.time() - started
        if spent > opts.wait:
            ctl.close()
            res.reason = (f"programming took {spent:.1f}s, longer than the switch's --use-files wait "
                          f"({opts.wait:.0f}s); rerun with a larger --wait")
            if not self.fails:
                # nothing checked has failed yet: run_case may run the case again with more time
                res.programming_s = spent
            return None
        return ctl


def _execute_veth(opts: Options, cmds: list, js: str, info_path: str, work: str, res: Result) -> None:
    """Run the STF in file order against a live switch on veth pairs."""
    from .veth import VethError, VethPorts, settle
    packets = [c for c in cmds if isinstance(c, stf.Packet)]
    expects = [c for c in cmds if isinstance(c, stf.Expect)]
    needs_rt = [c for c in cmds if isinstance(c, stf.CONTROL_COMMANDS + stf.CHECK_COMMANDS)]
    ports = sorted(set(opts.extra_ports) | {c.port for c in packets} | {c.port for c in expects})
    try:
        vp = VethPorts(ports)
    except (VethError, OSError) as exc:
        res.reason = f"veth ports: {exc}"
        return
    addr = f"127.0.0.1:{_free_port()}"
    device = next(_DEVICE_IDS)
    argv = shlex.split(opts.switch) + ["--thrift-port", str(_free_port()),
                                       "--device-id", str(device)]
    for p in ports:
        argv += ["-i", f"{p}@{vp.switch_iface(p)}"]
    argv += [os.path.abspath(js), "--", "--grpc-server-addr", addr]
    log_path = os.path.join(work, "switch.log")
    log = open(log_path, "w")
    sw = None
    ctl = None
    try:
        try:
            sw = subprocess.Popen(argv, cwd=work, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        except FileNotFoundError:
            res.reason = f"switch not found: {argv[0]}"
            return
        ready = wait_for_port(addr, 10.0)
        if sw.poll() is not None:
            res.reason = f"switch exited with code {sw.returncode}"
            res.details = _tail(log_path)
            return
        if needs_rt:
            if not ready:
                res.status = NOT_RUN
                res.reason = f"no P4Runtime server on {addr}"
                res.skipped = [_cmd_text(c) for c in needs_rt]
                return
            try:
                ctl = Controller(addr, device_id=device, timeout=5.0)
                ctl.set_pipeline(info_path, js)
                enable_digests(ctl, cmds)
            except ControlError as exc:
                res.reason = str(exc)
                if "UNIMPLEMENTED" in str(exc):
                    res.status = NOT_RUN
                    res.skipped = [_cmd_text(c) for c in needs_rt]
                return
        elif not ready:
            time.sleep(1.0)  # no gRPC to tell us the switch is up; give it a moment
        state = ControlState()
        fails: list[str] = []
        sent = 0
        last_port = None
        for c in cmds:
            if isinstance(c, stf.Packet):
                if last_port is not None and c.port != last_port:
                    # Ports are served concurrently: let the earlier packets come out
                    # first so that the order across input ports stays the file's.
                    settle(vp, sum(1 for e in expects if e.line < c.line), max_quiet=0.3)
                vp.send(c.port, c.data)
                last_port = c.port
                sent += 1
            elif isinstance(c, stf.CONTROL_COMMANDS):
                apply_control(ctl, c, state)
                if isinstance(c, (stf.McGroupCreate, stf.McNodeCreate, stf.McNodeUpdate,
                                  stf.McNodeAssociate)):
                    ctl.flush_multicast()
            elif isinstance(c, (stf.Wait,) + stf.CHECK_COMMANDS):
                done_before = sum(1 for e in expects if e.line < c.line)
                settle(vp, done_before, max_quiet=0.6)
                if isinstance(c, stf.CHECK_COMMANDS):
                    fails += run_checks(ctl, [c])
        settle(vp, len(expects))
    except (ControlError, VethError, OSError) as exc:
        res.reason = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, ControlError) and "UNIMPLEMENTED" in str(exc):
            res.status = NOT_RUN
            res.skipped = [_cmd_text(c) for c in needs_rt]
        return
    finally:
        if ctl is not None:
            ctl.close()
        if sw is not None:
            _stop(sw)
        log.close()
        vp.close()
    reports = compare.compare(expects, vp.got, ports)
    bad = [r for r in reports if not r.ok]
    if bad or fails:
        res.reason = "; ".join(filter(None, [
            f"packet mismatch on port(s) {', '.join(str(r.port) for r in bad)}" if bad else "",
            f"{len(fails)} check(s) failed" if fails else ""]))
        res.details = "\n".join([r.text for r in bad] + fails)
        return
    res.status = PASS


def _settle(opts, sw, work, ports, n_expected, not_before):
    """Wait until the output pcaps hold the expected count and stop growing."""
    deadline = not_before + opts.timeout
    while time.time() < not_before and sw.poll() is None:
        time.sleep(0.05)
    last, last_change = -1, time.time()
    while time.time() < deadline and sw.poll() is None:
        n = sum(len(pcap.read(os.path.join(work, f"p{p}_out.pcap"))) for p in ports)
        now = time.time()
        if n != last:
            last, last_change = n, now
        quiet = now - last_change
        if (n >= n_expected and quiet >= 0.4) or quiet >= 1.5:
            return
        time.sleep(0.05)


def _stop(sw: subprocess.Popen) -> None:
    if sw.poll() is not None:
        return
    try:
        os.killpg(sw.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        sw.wait(timeout=3)
    except subprocess.TimeoutExpired:
        os.killpg(sw.pid, signal.SIGKILL)
        sw.wait()
