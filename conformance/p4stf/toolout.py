"""Reading what a compiler or switch prints: the line that says most, and its version.

Shared by the corpus report (corpus.py), the runner's p4c version check (runner.py) and
compiler/tools/p4c_errors.py, which all read the same tools' output."""
from __future__ import annotations

import functools
import re
import shlex
import subprocess


def first_line(text: str | list[str], pattern: str) -> str:
    """The first line matching `pattern` (a regular expression, any case), else the first
    non-blank line, stripped; "" when there is none."""
    lines = text.splitlines() if isinstance(text, str) else text
    rx = re.compile(pattern, re.I)
    return next((ln.strip() for ln in lines if rx.search(ln)), None) or next(
        (ln.strip() for ln in lines if ln.strip()), "")


def first_error(text: str) -> str:
    """A compiler's first error line (p4c's internal errors say BUG), at most 200 characters."""
    return first_line(text, r"error|bug")[:200]


def version_line(cmd: str) -> str:
    """The line of `cmd --version` that names the version (else its first line); "?" when the
    tool cannot be run."""
    try:
        cp = subprocess.run(shlex.split(cmd) + ["--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    lines = (cp.stdout or cp.stderr).strip().splitlines()
    return next((ln.strip() for ln in lines if "ersion" in ln), lines[0].strip() if lines else "?")


@functools.lru_cache(maxsize=None)
def p4c_release(cmd: str) -> tuple[int, ...] | None:
    """p4c's release as printed by `--version` ("Version 1.2.4.8 (SHA: ...)"); None for another
    compiler (p4compile has no such limits). Asked once per command."""
    m = re.match(r"Version (\d+(?:\.\d+)+)", version_line(cmd))
    return tuple(int(x) for x in m.group(1).split(".")) if m else None
