"""Coverage of a frame fuzz run: what the fuzz_frames example reached (its
`--coverage` file) out of what the program has (its BMv2 JSON, and the drop
reasons of p4src/include/constants.p4 for vrouter.p4's drop counters).

The summary line (one line, wrapped here), parsed by fuzz/tests (keep its shape):

    coverage: parser states 15/19, tables 19/21, table x action pairs 50/73, branches 80/132, drop reasons 20/30;
    300000 execs in 25.1 s (11952 exec/s), 250 seeds kept
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("parser states", "tables", "table x action pairs", "branches", "drop reasons")
LINE = re.compile(r"coverage: " + ", ".join(rf"{k} (?P<k{i}>\d+)/(?P<n{i}>\d+)" for i, k in enumerate(KINDS))
                  + r"; (?P<execs>\d+) execs in (?P<secs>[\d.]+) s \((?P<rate>\d+) exec/s\), (?P<seeds>\d+) seeds kept")


def program_points(bmv2: dict, constants: str) -> dict[str, set[str]]:
    """Every point of each kind, named as the example names what it reached."""
    states = {f"state {p['name']} {s['name']}" for p in bmv2.get("parsers", []) for s in p.get("parse_states", [])}
    tables, pairs, branches = set(), set(), set()
    for pl in bmv2.get("pipelines", []):
        for t in pl.get("tables", []):
            if not t.get("key") and (t.get("default_entry") or {}).get("action_const"):
                continue  # p4c's wrapper of an action in a control body: nothing to look up
            tables.add(f"table {t['name']}")
            pairs |= {f"pair {t['name']} {a}" for a in t.get("actions", [])}
        for c in pl.get("conditionals", []):
            branches |= {f"branch {c['name']} true", f"branch {c['name']} false"}
    drops = {f"drop {n}" for n, v in re.findall(r"const\s+drop_reason_t\s+DROP_(\w+)\s*=\s*(\d+)", constants)
             if int(v) != 0}
    return dict(zip(KINDS, (states, tables, pairs, branches, drops)))


def drop_names(constants: str) -> dict[int, str]:
    return {int(v): n for n, v in re.findall(r"const\s+drop_reason_t\s+DROP_(\w+)\s*=\s*(\d+)", constants)}


@dataclass
class Run:
    execs: int
    seconds: float
    seeds: int
    reached: set[str]


def read_run(text: str, constants: str) -> Run:
    """The example's --coverage file; drop counter cells become "drop NAME"."""
    head, reached = {}, set()
    names = drop_names(constants)
    for line in text.splitlines():
        point, _, _times = line.partition("\t")
        if not _:
            key, value = line.split(" ", 1)
            head[key] = value
        elif point.startswith("drop "):
            index = int(point.rsplit(" ", 1)[1])
            reached.add(f"drop {names.get(index, index)}")
        else:
            reached.add(point)
    return Run(int(head["execs"]), float(head["seconds"]), int(head["seeds"]), reached)


def summary(run: Run, points: dict[str, set[str]]) -> tuple[str, dict[str, set[str]]]:
    """The summary line and, per kind, what the run did not reach."""
    parts, missed = [], {}
    for kind in KINDS:
        parts.append(f"{kind} {len(points[kind] & run.reached)}/{len(points[kind])}")
        missed[kind] = points[kind] - run.reached
    rate = run.execs / max(run.seconds, 1e-9)
    return (f"coverage: {', '.join(parts)}; {run.execs} execs in {run.seconds:.1f} s ({rate:.0f} exec/s), "
            f"{run.seeds} seeds kept"), missed


def report(coverage_file: Path, bmv2_json: Path, verbose: bool = False) -> str:
    constants = (ROOT / "p4src" / "include" / "constants.p4").read_text()
    points = program_points(json.loads(bmv2_json.read_text()), constants)
    line, missed = summary(read_run(coverage_file.read_text(), constants), points)
    lines = [line, "coverage: drop reasons not reached: " + (", ".join(sorted(missed["drop reasons"])) or "none")]
    if verbose:
        lines += [f"coverage: {kind} not reached: {', '.join(sorted(missed[kind])) or 'none'}"
                  for kind in KINDS[:-1]]
    return "\n".join(lines)


def parse(line: str) -> dict[str, tuple[int, int]] | None:
    """The summary line back as {kind: (reached, of)} plus execs / exec/s (None if it is not one)."""
    m = LINE.search(line)
    if not m:
        return None
    d = {k: (int(m[f"k{i}"]), int(m[f"n{i}"])) for i, k in enumerate(KINDS)}
    d["execs"], d["exec/s"] = (int(m["execs"]), 0), (int(m["rate"]), 0)
    return d
