"""The studies' published tables (bench/reference/sN_*.json): loader, accessors, and the
check of a reference file against the study's text.

A reference file holds the study (`title`, `authors`, `venue`), its `method` (repetitions,
trial length, tool, as published) and `tables`: each with its `source` as the study numbers
it ("Table 3", "Table VII", "slide 2 of 4", "Figure 7 and text"), the `unit`, the `columns`
and the `rows` exactly as printed (every frame size, load, series), and `seed`: how to find
it in the study's text (`anchor`: the caption line; `kind`: `table` = the numbers of the
rows below the caption, `text` = numbers quoted in the anchor's paragraph, `marks` = a
matrix of ✓/✗). `reproduced` is false for tables of things the project does not do (the
report lists them, with `why`).

    python -m bench.published SEED_DIR     # check every reference file against the studies' text
"""
from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "bench" / "reference"
FILES = {"s1": "s1_marcel.json", "s2": "s2_larasati.json", "s3": "s3_myers.json",
         "s4": "s4_utomo.json", "s5": "s5_hokkanen.json"}
# the study text files of the seed folder, by the order of its README
SEED_FILES = {"s1": "000_", "s2": "001_", "s3": "002_", "s4": "003_", "s5": "004_"}


@lru_cache(maxsize=None)
def load(scenario: str) -> dict:
    return json.loads((REFERENCE / FILES[scenario]).read_text())


def citation(ref: dict) -> str:
    """Authors, "Title" (venue): how the reports name a study."""
    return f"{', '.join(ref['authors'])}, \"{ref['title']}\" ({ref['venue']})"


def table(ref: dict, source: str) -> dict:
    for t in ref["tables"]:
        if t["source"] == source:
            return t
    raise KeyError(f"{ref['scenario']}: no table {source!r}")


def column(t: dict, name: str) -> list:
    return [r[t["columns"].index(name)] for r in t["rows"]]


def series(t: dict, x: str, y: str) -> dict:
    """{x value: y value} of two columns of a table."""
    return dict(zip(column(t, x), column(t, y)))


def number(cell: str) -> float | None:
    """A table cell as the study prints it ("207,2", "0.121%", "949") as a number, or None."""
    s = cell.strip().rstrip("%").strip().replace(",", ".")
    try:
        return float(s)
    except ValueError:
        return None


def flat(rows: list) -> list[float]:
    return sorted(round(float(v), 6) for r in rows for v in (r if isinstance(r, list) else [r])
                  if isinstance(v, (int, float)) and not isinstance(v, bool))


def seed_block(text: str, anchor: str, skip: int = 0, marks: bool = False, count: int = 1) -> list[list[str]]:
    """The rows (tab-separated cells) of the table printed below the line `anchor`: from the
    first row holding a number (or a ✓/✗ mark) to the last one before a line without any;
    `skip` passes over that many such blocks first, `count` joins that many blocks."""
    lines = text.splitlines()
    try:
        i = next(k for k, l in enumerate(lines) if l.strip() == anchor.strip())
    except StopIteration:
        raise KeyError(f"anchor not found: {anchor!r}")
    has = (lambda l: any(c in l for c in "✓✗")) if marks else (
        lambda l: any(number(c) is not None for c in l.split("\t")))
    blocks, cur = [], []
    for line in lines[i + 1:]:
        if has(line):
            cur.append(line.split("\t"))
        elif cur:
            blocks.append(cur)
            cur = []
            if len(blocks) >= skip + count:
                break
    if cur:
        blocks.append(cur)
    if len(blocks) < skip + count:
        raise KeyError(f"no table below {anchor!r}")
    return [row for b in blocks[skip:skip + count] for row in b]


def paragraph(text: str, anchor: str) -> str:
    for line in text.splitlines():
        if anchor in line:
            return line
    raise KeyError(f"anchor not found: {anchor!r}")


def check_table(t: dict, text: str) -> list[str]:
    """Differences between table `t` and the study's text (empty when they agree)."""
    seed = t.get("seed")
    if not seed:
        return []
    name = f"{t['source']}"
    try:
        if seed["kind"] == "table":
            block = seed_block(text, seed["anchor"], seed.get("skip", 0), count=seed.get("blocks", 1))
            printed = flat([[number(c) for c in row if number(c) is not None] for row in block])
            skip_cols = set(seed.get("ignore_columns", []))
            ours = flat([[v for k, v in enumerate(r) if k not in skip_cols] for r in t["rows"]])
            if printed != ours:
                missing = sorted(set(printed) - set(ours))
                extra = sorted(set(ours) - set(printed))
                return [f"{name}: {len(ours)} numbers here, {len(printed)} in the study; "
                        f"in the study only: {missing[:8]}, here only: {extra[:8]}"]
        elif seed["kind"] == "text":
            para = paragraph(text, seed["anchor"])
            quoted = {round(n, 6) for n in (number(w) for w in re.findall(r"\d+(?:[.,]\d+)?", para))
                      if n is not None}
            missing = [v for v in flat(t["rows"]) if v not in quoted]
            if missing:
                return [f"{name}: not in the study's text: {missing}"]
        elif seed["kind"] == "marks":
            block = seed_block(text, seed["anchor"], seed.get("skip", 0), marks=True)
            sign = {"✓": True, "✗": False, "■": None}
            printed = [[sign[c.strip()] for c in row[1:] if c.strip() in sign] for row in block]
            ours = [r[1:] for r in t["rows"]]
            if printed != ours:
                return [f"{name}: reachability differs from the study: {printed} vs {ours}"]
    except KeyError as e:
        return [f"{name}: {e}"]
    return []


def check(scenario: str, seed_dir: Path) -> list[str]:
    """Every table of the scenario's reference file against the study's text in seed_dir."""
    files = sorted(seed_dir.glob(SEED_FILES[scenario] + "*.txt"))
    if not files:
        return [f"{scenario}: no study text {SEED_FILES[scenario]}*.txt in {seed_dir}"]
    text = files[0].read_text(encoding="utf-8")
    ref = load(scenario)
    out = [f"{scenario}: {p}" for t in ref["tables"] for p in check_table(t, text)]
    if ref["title"].split(":")[0].split("–")[0].strip().lower()[:30] not in text.lower().replace("\n", " "):
        out.append(f"{scenario}: title {ref['title']!r} not in the study's text")
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python -m bench.published SEED_DIR", file=sys.stderr)
        return 2
    bad = [p for sc in FILES for p in check(sc, Path(sys.argv[1]))]
    for p in bad:
        print(p)
    n = sum(len(load(sc)["tables"]) for sc in FILES)
    print(f"published: {n} tables in {len(FILES)} reference files, {len(bad)} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
