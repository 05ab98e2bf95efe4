"""Run one STF test: compile, start the switch on pcap-file ports, program it, compare.

The switch runs with `--use-files WAIT_S`: it waits WAIT_S seconds before reading
`pN_in.pcap`, and the runner installs every control command over P4Runtime in that
window. Packets therefore all see the state the file's control commands build, so a
control command after the first packet cannot be honoured and the file is refused.
"""
from __future__ import annotations

import itertools
import os
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field

from . import compare, pcap, stf
from .control import ControlError, Controller, wait_for_port

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


def run_case(opts: Options, p4: str, stf_path: str, area: str = "", name: str = "") -> Result:
    t0 = time.time()
    name = name or os.path.splitext(os.path.basename(p4))[0]
    res = Result(name, area, FAIL)
    try:
        cmds = stf.parse_file(stf_path)
    except (stf.StfError, OSError) as exc:
        res.reason = f"bad STF: {exc}"
        return res
    out_dir = os.path.join(opts.build_dir, area, name) if area else os.path.join(opts.build_dir, name)
    js, info_path, err = compile_program(opts, p4, out_dir)
    if err:
        res.reason = "compile failed"
        res.details = err
        return res
    try:
        if opts.ports == "veth":
            _execute_veth(opts, cmds, js, info_path, out_dir, res)
        else:
            _execute(opts, cmds, js, info_path, out_dir, res)
    finally:
        res.seconds = time.time() - t0
    return res


def _execute(opts: Options, cmds: list, js: str, info_path: str, work: str, res: Result) -> None:
    packets = [c for c in cmds if isinstance(c, stf.Packet)]
    expects = [c for c in cmds if isinstance(c, stf.Expect)]
    controls = [c for c in cmds if isinstance(c, stf.CONTROL_COMMANDS)]
    checks = [c for c in cmds if isinstance(c, stf.CHECK_COMMANDS)]
    first_pkt = packets[0].line if packets else None
    late = [c for c in controls if first_pkt is not None and c.line > first_pkt]
    if late:
        res.status = NOT_RUN
        res.reason = "control commands after the first packet (pcap-file ports take all input at once)"
        res.skipped = [_cmd_text(c) for c in late]
        return
    ports = sorted(set(opts.extra_ports) | {c.port for c in packets} | {c.port for c in expects})
    bad = [p for p in ports if p < 0 or p > 510]
    if bad:
        res.reason = f"port(s) {bad} outside 0..510"
        return
    for f in os.listdir(work):
        if f.endswith(".pcap") or f == "switch.log":
            os.remove(os.path.join(work, f))
    base = time.time()
    by_port: dict[int, list[tuple[float, bytes]]] = {p: [] for p in ports}
    for i, c in enumerate(packets):
        by_port[c.port].append((base + i * 0.001, c.data))
    for p, lst in by_port.items():
        pcap.write(os.path.join(work, f"p{p}_in.pcap"), [d for _, d in lst], [t for t, _ in lst])
    need_rt = bool(controls or checks)
    wait = opts.wait if need_rt else 0
    addr = f"127.0.0.1:{_free_port()}"
    # A free Thrift port too: simple_switch_grpc opens one (9090 by default), p4switch
    # accepts and ignores the option.
    device = next(_DEVICE_IDS)
    argv = shlex.split(opts.switch) + ["--use-files", str(int(wait + 0.999)),
                                       "--thrift-port", str(_free_port()),
                                       "--device-id", str(device)]
    for p in ports:
        argv += ["-i", f"{p}@p{p}"]
    argv += [os.path.abspath(js), "--", "--grpc-server-addr", addr]
    log_path = os.path.join(work, "switch.log")
    log = open(log_path, "w")
    try:
        sw = subprocess.Popen(argv, cwd=work, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    except FileNotFoundError:
        log.close()
        res.reason = f"switch not found: {argv[0]}"
        return
    started = time.time()
    ctl = None
    try:
        if need_rt:
            ctl = _program(opts, sw, addr, cmds, controls, js, info_path, res, started, device)
            if ctl is None:
                return
        _settle(opts, sw, work, ports, len(expects), started + wait)
        # A switch may exit on its own once its pcap input is done: fine if it says so
        # with status 0 and nothing still needs to be read from it.
        if sw.poll() is not None and (sw.returncode != 0 or checks):
            res.reason = f"switch exited with code {sw.returncode}"
            res.details = _tail(log_path)
            return
        check_fail = []
        if checks:
            check_fail = _run_checks(ctl, checks)
    finally:
        if ctl is not None:
            ctl.close()
        _stop(sw)
        log.close()
    outputs = {p: pcap.read(os.path.join(work, f"p{p}_out.pcap")) for p in ports}
    reports = compare.compare(expects, outputs, ports)
    bad = [r for r in reports if not r.ok]
    if bad or check_fail:
        res.reason = "; ".join(filter(None, [
            f"packet mismatch on port(s) {', '.join(str(r.port) for r in bad)}" if bad else "",
            f"{len(check_fail)} check(s) failed" if check_fail else ""]))
        res.details = "\n".join([r.text for r in bad] + check_fail)
        return
    res.status = PASS


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
                _enable_digests(ctl, cmds)
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
                if isinstance(c, (stf.McGroupCreate, stf.McNodeCreate, stf.McNodeAssociate)):
                    ctl.flush_multicast()
            elif isinstance(c, (stf.Wait,) + stf.CHECK_COMMANDS):
                done_before = sum(1 for e in expects if e.line < c.line)
                settle(vp, done_before, max_quiet=0.6)
                if isinstance(c, stf.CHECK_COMMANDS):
                    fails += _run_checks(ctl, [c])
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


def _program(opts, sw, addr, cmds, controls, js, info_path, res, started, device):
    """Connect, push the pipeline and run the control commands; None if not possible."""
    ready = wait_for_port(addr, max(0.5, opts.wait - 0.5))
    if not ready:
        res.status = NOT_RUN
        res.reason = f"no P4Runtime server on {addr} (switch gRPC missing?)"
        res.skipped = [_cmd_text(c) for c in cmds if isinstance(c, stf.CONTROL_COMMANDS + stf.CHECK_COMMANDS)]
        if sw.poll() is not None:
            res.status = FAIL
            res.skipped = []
            res.reason = f"switch exited with code {sw.returncode} before serving P4Runtime"
            res.details = _tail(os.path.join(os.path.dirname(js), "switch.log"))
        return None
    try:
        ctl = Controller(addr, device_id=device, timeout=2.0)
    except ControlError as exc:
        res.status = NOT_RUN
        res.reason = f"P4Runtime not usable: {exc}"
        res.skipped = [_cmd_text(c) for c in cmds if isinstance(c, stf.CONTROL_COMMANDS + stf.CHECK_COMMANDS)]
        return None
    try:
        ctl.set_pipeline(info_path, js)
    except ControlError as exc:
        ctl.close()
        if "UNIMPLEMENTED" in str(exc):
            res.status = NOT_RUN
            res.skipped = [_cmd_text(c) for c in controls]
        res.reason = str(exc)
        return None
    state = ControlState()
    try:
        _enable_digests(ctl, cmds)
        for c in controls:
            apply_control(ctl, c, state)
        ctl.flush_multicast()
    except ControlError as exc:
        ctl.close()
        res.reason = f"control command failed: {exc}"
        if "UNIMPLEMENTED" in str(exc):
            res.status = NOT_RUN
            res.skipped = [_cmd_text(c) for c in controls]
        return None
    spent = time.time() - started
    if spent > opts.wait:
        ctl.close()
        res.reason = (f"programming took {spent:.1f}s, longer than the switch's --use-files wait "
                      f"({opts.wait:.0f}s); rerun with a larger --wait")
        return None
    return ctl


def _enable_digests(ctl: Controller, cmds: list) -> None:
    """Turn on every digest a check command names (once each), before packets flow."""
    enabled: dict[str, int] = {}
    for c in cmds:
        if isinstance(c, (stf.CheckDigest, stf.CheckDigestData)):
            if c.digest not in enabled:
                enabled[c.digest] = ctl.enable_digest(c.digest)
            c.digest_id = enabled[c.digest]


class ControlState:
    """What carrying out control commands in file order needs to remember."""

    def __init__(self) -> None:
        self.priority = 100000  # automatic priorities: first entry highest


def apply_control(ctl: Controller, c, state: ControlState) -> None:
    """Carry out one STF control command on the switch."""
    if isinstance(c, stf.Add):
        ctl.add(c, state.priority)
        state.priority -= 1
    elif isinstance(c, stf.SetDefault):
        ctl.set_default(c)
    elif isinstance(c, stf.McGroupCreate):
        ctl.mc_group_create(c)
    elif isinstance(c, stf.McNodeCreate):
        ctl.mc_node_create(c)
    elif isinstance(c, stf.McNodeAssociate):
        ctl.mc_node_associate(c)
    elif isinstance(c, stf.MirroringAdd):
        if c.group is not None:
            ctl.flush_multicast()
        ctl.mirroring_add(c)
    elif isinstance(c, stf.MemberAdd):
        ctl.member_add(c)
    elif isinstance(c, stf.GroupAdd):
        ctl.group_add(c)
    elif isinstance(c, stf.RegisterWrite):
        ctl.register_write(c)
    elif isinstance(c, stf.MeterConfig):
        ctl.meter_config(c)
    elif isinstance(c, stf.ValueSetAdd):
        ctl.value_set_add(c)
    elif isinstance(c, stf.DirectMeterConfig):
        ctl.direct_meter_config(c)
    else:
        raise ControlError(f"stf line {c.line}: not a control command")


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


def _run_checks(ctl, checks) -> list[str]:
    fails = []
    ops = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__,
           ">": int.__gt__, ">=": int.__ge__}
    for c in checks:
        try:
            if isinstance(c, stf.CheckCounter):
                pkts, byts = ctl.counter(c)
                pairs = ([("packets", pkts)] if c.kind in (None, "packets") else []) + \
                        ([("bytes", byts)] if c.kind in (None, "bytes") else [])
                if c.kind is None:
                    pairs = [("packets", pkts)]
                for kind, got in pairs:
                    if not ops[c.op](got, c.value):
                        fails.append(f"check_counter {c.counter}({c.index}) {kind} {c.op} {c.value} "
                                     f"(stf line {c.line}): actual {got} (bytes {byts}, packets {pkts})")
            elif isinstance(c, stf.CheckDirectCounter):
                pkts, byts = ctl.direct_counter(c)
                got = byts if c.kind == "bytes" else pkts
                if not ops[c.op](got, c.value):
                    fails.append(f"check_direct_counter {c.table} {c.kind or 'packets'} {c.op} "
                                 f"{c.value} (stf line {c.line}): actual {got} "
                                 f"(bytes {byts}, packets {pkts})")
            elif isinstance(c, stf.CheckDigestData):
                items = ctl.digest_data.get(getattr(c, "digest_id", -1), [])
                if tuple(c.values) not in items:
                    seen = "; ".join(" ".join(f"{v:#x}" for v in it) for it in items) or "none"
                    fails.append(f"check_digest_data {c.digest} "
                                 f"{' '.join(f'{v:#x}' for v in c.values)} (stf line {c.line}): "
                                 f"not received (received: {seen})")
            elif isinstance(c, stf.CheckDigest):
                got = ctl.digests.get(getattr(c, "digest_id", -1), 0)
                if not ops[c.op](got, c.count):
                    fails.append(f"check_digest {c.digest} {c.op} {c.count} (stf line {c.line}): "
                                 f"received {got} digest message(s)")
            elif isinstance(c, stf.RegisterRead):
                got = ctl.register_read(c)
                if c.expected is not None and got != c.expected:
                    fails.append(f"register_read {c.register}[{c.index}] (stf line {c.line}): "
                                 f"expected {c.expected:#x}, actual {got:#x}")
        except ControlError as exc:
            fails.append(f"stf line {c.line}: {exc}")
    return fails


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
