"""The campus's own processes (switch, controller, dashboard): each in a session of its own, none outliving run_campus.

Own session: a terminal's Ctrl-C reaches run_campus alone, which stops them in order, and
stopping one kills its whole group (whatever it started too). Parent-death signal: the kernel
sends SIGTERM to each when run_campus dies, also when it is killed outright (SIGKILL, a test's
last resort), so no switch keeps its gRPC port and no controller keeps writing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess

PR_SET_PDEATHSIG = 1   # <linux/prctl.h>


def die_with_parent() -> None:
    """In the child before exec: SIGTERM when the parent goes (kept across exec)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start(cmd: list[str], **kwargs) -> subprocess.Popen:
    """`subprocess.Popen` in a new session that ends with this process."""
    return subprocess.Popen(cmd, start_new_session=True, preexec_fn=die_with_parent, **kwargs)


def stop(proc: subprocess.Popen | None, timeout: float = 10) -> None:
    """SIGTERM to the process's group, SIGKILL if it is still there after `timeout` seconds."""
    if proc is None or proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=timeout)
            return
        except subprocess.TimeoutExpired:
            pass
    proc.wait()
