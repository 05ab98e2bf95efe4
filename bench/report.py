"""Result folders: bench/results/<UTC stamp>-<scenario>/ with results.json, report.md and the plots
(bench/figures.py); the machine description; Markdown tables."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def new_run(scenario: str, base: Path | None = None) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    d = (base or RESULTS) / f"{stamp}-{scenario}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def machine() -> dict:
    def cmd(*a: str) -> str:
        try:
            return subprocess.run(a, capture_output=True, text=True, timeout=5).stdout.strip()
        except OSError:
            return ""
    model = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                  if l.startswith("model name")), platform.machine())
    return {"cores": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "loadavg": loadavg(),
            "git": cmd("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"),
            "git_revision": cmd("git", "-C", str(ROOT), "rev-parse", "HEAD"),
            "git_dirty": bool(cmd("git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no")),
            "hostname": platform.node(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "ovs": cmd("ovs-vswitchd", "--version").splitlines()[0] if cmd("ovs-vswitchd", "--version") else None,
            "switch": os.environ.get("SWITCH", "target/release/p4switch")}


def loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


QUIET_LOAD = 0.5


def machine_line(m: dict) -> str:
    """The report's "Machine:" line (its load goes in `load_note`)."""
    return f"Machine: {m['cores']} cores, {m['cpu']}, kernel {m['kernel']}, git {m['git']}"


def load_note(m: dict) -> str:
    """The load average at start and end of a run, and a warning when the machine was not quiet."""
    start, end = m.get("loadavg") or ["?"] * 3, m.get("loadavg_end")
    note = f"Load average (1/5/15 min) {' '.join(start)} at start" + (f", {' '.join(end)} at end" if end else "") + "."
    try:
        busy = float(start[0]) > QUIET_LOAD
    except ValueError:
        busy = False
    if busy:
        note = (f"**{note} The 1-minute load at start exceeded {QUIET_LOAD}: other work on the machine may have "
                "lowered these figures.**")
    return note


def write_json(d: Path, data: dict) -> Path:
    p = d / "results.json"
    p.write_text(json.dumps(data, indent=1, default=str))
    return p


def finish(d: Path, data: dict, t0: float, label: str, write_report, json_file: Path | None = None) -> None:
    """End of a scenario run: its duration, the load average at the end, results.json (and a
    copy at `json_file`, --json), report.md (by `write_report()`), and the line naming the report."""
    data["seconds"] = time.monotonic() - t0
    data.setdefault("machine", machine())["loadavg_end"] = loadavg()
    write_json(d, data)
    if json_file:
        save_json(json_file, data)
    write_report()
    print(f"{label} done in {data['seconds']:.0f} s: {d / 'report.md'}"
          + (f" (results also in {json_file})" if json_file else ""), flush=True)


def save_json(path: Path, data: dict, m: dict | None = None) -> Path:
    """A benchmark's `--json FILE`: `data` with the machine header (`machine()`: cores, CPU,
    kernel, load average, git revision) under "machine", taken at the start of the run when `m`
    is given, and the load average at the end. The benchmarks outside bench/ (vrouter's, the
    shell ones through `python -m bench.report`) write theirs with it too."""
    data = {"machine": dict(m or data.get("machine") or machine()), **{k: v for k, v in data.items() if k != "machine"}}
    data["machine"].setdefault("loadavg_end", loadavg())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=str))
    return path


def write_md(d: Path, md: list[str], failures: list[tuple[str, str]]) -> Path:
    """Write report.md: the lines of md, then one line per (what, error) that failed."""
    lines = md + [f"- **{what} failed**: {error}" for what, error in failures]
    p = d / "report.md"
    p.write_text("\n".join(lines) + "\n")
    return p


def md_table(header: list[str], rows: list[list]) -> str:
    def fmt(x) -> str:
        if x is None:
            return "–"
        if isinstance(x, float):
            return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"
        return str(x)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """For the shell benchmarks (bench-switch.sh, stop-idle.sh): `python -m bench.report machine`
    prints the header at the start of a run; `python -m bench.report save FILE --machine START
    [--data DATA]` writes FILE by `save_json` (DATA: the run's own JSON, "-" for stdin)."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="python -m bench.report", description=main.__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("machine", help="print the machine header (load average and git revision now) as JSON")
    save = sub.add_parser("save", help="write FILE: the run's data under the header taken at its start")
    save.add_argument("file", type=Path)
    save.add_argument("--machine", type=Path, help="the header printed by `machine` at the start (default: now)")
    save.add_argument("--data", default=None, help="a JSON object file of the run's results, - for stdin")
    args = ap.parse_args(argv)
    if args.cmd == "machine":
        print(json.dumps(machine()))
        return 0
    m = json.loads(args.machine.read_text()) if args.machine else None
    text = sys.stdin.read() if args.data == "-" else Path(args.data).read_text() if args.data else "{}"
    print(save_json(args.file, json.loads(text), m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
