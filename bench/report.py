"""Result folders: bench/results/<UTC stamp>-<scenario>/ with results.json, report.md and PNG plots."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
REFERENCE = ROOT / "bench" / "reference"


def new_run(scenario: str, base: Path | None = None) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    d = (base or RESULTS) / f"{stamp}-{scenario}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def reference(name: str) -> dict:
    return json.loads((REFERENCE / name).read_text())


def machine() -> dict:
    def cmd(*a: str) -> str:
        try:
            return subprocess.run(a, capture_output=True, text=True, timeout=5).stdout.strip()
        except OSError:
            return ""
    model = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                  if l.startswith("model name")), platform.machine())
    return {"cores": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "loadavg": Path("/proc/loadavg").read_text().split()[:3],
            "git": cmd("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"),
            "ovs": cmd("ovs-vswitchd", "--version").splitlines()[0] if cmd("ovs-vswitchd", "--version") else None,
            "switch": os.environ.get("SWITCH", "target/release/p4switch")}


def write_json(d: Path, data: dict) -> Path:
    p = d / "results.json"
    p.write_text(json.dumps(data, indent=1, default=str))
    return p


def finish(d: Path, data: dict, t0: float, label: str, write_report) -> None:
    """End of a scenario run: its duration, results.json, report.md (by
    `write_report()`), and the line naming the report."""
    data["seconds"] = time.monotonic() - t0
    write_json(d, data)
    write_report()
    print(f"{label} done in {data['seconds']:.0f} s: {d / 'report.md'}", flush=True)


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


def plot_lines(path: Path, title: str, xlabel: str, ylabel: str, series: dict[str, tuple[list, list]],
               refs: dict[str, tuple[list, list]] | None = None, logx: bool = False) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, marker="o", label=label)
    for label, (xs, ys) in (refs or {}).items():
        # published points only where the study gives them: no line drawn between distant points
        ax.plot(xs, ys, linestyle="--" if len(xs) > 2 else "none", marker="x", markersize=9,
                label=f"published: {label}")
    if logx:
        ax.set_xscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_bars(path: Path, title: str, ylabel: str, labels: list[str], groups: dict[str, list[float]]) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    n = len(groups)
    width = 0.8 / max(n, 1)
    for i, (name, vals) in enumerate(groups.items()):
        ax.bar([x + i * width for x in range(len(labels))], [v or 0 for v in vals], width, label=name)
    ax.set_xticks([x + width * (n - 1) / 2 for x in range(len(labels))], labels)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
