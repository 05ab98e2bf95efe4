"""The `p4rt` command line against a real switch."""

from __future__ import annotations

import subprocess
import sys

from p4rt import Action, Switch, TableEntry

from harness import free_port


def p4rt(*args: str) -> subprocess.CompletedProcess:
    """Run `python -m p4rt ARGS`."""
    return subprocess.run([sys.executable, "-m", "p4rt", *args], capture_output=True, text=True, timeout=60)


def test_cli_set_pipeline_info_read_delete_all(switch_factory, program):
    proc = switch_factory()
    addr = ["--addr", proc.address]
    done = p4rt(*addr, "set-pipeline", str(program.p4info), str(program.json), "--cookie", "7")
    assert done.returncode == 0, done.stderr
    with Switch(proc.address, election_id=5) as sw:
        sw.load_schema()
        sw.insert(TableEntry("ipv4_lpm", {"dst_addr": "10.0.0.0/8"},
                             Action("set_nhop", {"dmac": "00:00:00:00:00:01", "port": 1})))
    info = p4rt(*addr, "info")
    assert info.returncode == 0, info.stderr
    assert "cookie 7" in info.stdout and "RtIngress.ipv4_lpm: 1 entries" in info.stdout
    read = p4rt(*addr, "read", "ipv4_lpm", "--defaults")
    assert read.returncode == 0, read.stderr
    assert "RtIngress.ipv4_lpm hdr.ipv4.dst_addr=(167772160, 8) -> RtIngress.set_nhop(dmac=1, port=1)" in read.stdout
    assert "(default) -> RtIngress.drop()" in read.stdout
    cleared = p4rt(*addr, "delete-all")
    assert cleared.returncode == 0 and "1 deletions" in cleared.stdout
    assert "RtIngress.ipv4_lpm: 0 entries" in p4rt(*addr, "info").stdout


def test_cli_errors_are_one_line(switch_factory, program):
    proc = switch_factory()
    done = p4rt("--addr", f"127.0.0.1:{free_port()}", "--timeout", "0.5", "info")
    assert done.returncode == 1 and done.stderr.startswith("p4rt: error:") and "Traceback" not in done.stderr
    p4rt("--addr", proc.address, "set-pipeline", str(program.p4info), str(program.json))
    bad = p4rt("--addr", proc.address, "read", "ipv4_lmp")
    assert bad.returncode == 1 and "did you mean" in bad.stderr and "Traceback" not in bad.stderr
