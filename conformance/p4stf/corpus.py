"""Fidelity measurement on p4c's own test programs (`p4stf --corpus P4C_CHECKOUT`).

Every `testdata/p4_16_samples/NAME.p4` of a p4c checkout that includes `v1model.p4` and
has a `NAME.stf` beside it runs in up to four configurations:

  a  p4compile  + p4switch             (our toolchain)
  b  p4c-bm2-ss + p4switch             (is p4switch faithful to p4c's JSON?)
  c  p4c-bm2-ss + simple_switch_grpc   (the reference)
  d  p4compile  + simple_switch_grpc   (does real BMv2 take our JSON?)

Each failure gets a class (compile error, load error, control-plane error, wrong
packets, not run, runner error) and its first error line; the report is Markdown, with
a JSON twin that the next run compares itself against. p4c's files are only read where
they are: nothing of them is copied into the repository.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

from .runner import FAIL, NOT_RUN, PASS, Options, Result, run_case
from .toolout import first_line, version_line

CONFIGS = {
    "a": "p4compile + p4switch",
    "b": "p4c-bm2-ss + p4switch",
    "c": "p4c-bm2-ss + simple_switch_grpc",
    "d": "p4compile + simple_switch_grpc",
}
# Failure classes, in the order a program meets them.
CLASSES = ("pass", "compile-error", "load-error", "control-error", "wrong-packets", "not-run",
           "runner-error")

_V1MODEL = re.compile(r'^\s*#\s*include\s*[<"]v1model\.p4[>"]', re.M)


@dataclass
class Outcome:
    program: str
    config: str
    cls: str
    first_error: str = ""
    seconds: float = 0.0


def find_programs(p4c_src: str) -> list[tuple[str, str, str]]:
    """(name, p4, stf) of every v1model sample with an STF file, sorted by name."""
    samples = os.path.join(p4c_src, "testdata", "p4_16_samples")
    if not os.path.isdir(samples):
        raise FileNotFoundError(f"{samples}: not a p4c checkout (no testdata/p4_16_samples)")
    out = []
    for f in sorted(os.listdir(samples)):
        if not f.endswith(".stf"):
            continue
        p4 = os.path.join(samples, f[:-4] + ".p4")
        if not os.path.isfile(p4):
            continue
        with open(p4, encoding="utf-8", errors="replace") as fh:
            if _V1MODEL.search(fh.read()):
                out.append((f[:-4], p4, os.path.join(samples, f)))
    return out


def classify(r: Result) -> tuple[str, str]:
    """The failure class of a runner result and the one line that says most about it."""
    details = [ln for ln in r.details.splitlines()]
    reason = r.reason
    if r.status == PASS:
        return "pass", ""
    if r.status == NOT_RUN:
        return "not-run", reason.splitlines()[0] if reason else ""
    if reason == "compile failed":
        return "compile-error", first_line(details, r"error")
    if reason.startswith("switch exited") or reason.startswith("pipeline refused"):
        line = first_line(details, r"error|exception|abort|invalid|unsupported|what\(\)") if details else ""
        return "load-error", line or reason
    if reason.startswith("packet mismatch") or "check(s) failed" in reason:
        return "wrong-packets", first_line(details, r"DIFFERS|MISSING|EXTRA|stf line")
    if reason.startswith("control command failed"):
        return "control-error", reason[len("control command failed: "):]
    if reason.startswith(("bad STF", "runner error")):
        return "runner-error", reason
    return "runner-error", reason or "failed"


def _shorten(text: str, n: int = 200) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= n else text[: n - 1] + "…"


def run_corpus(p4c_src: str, configs: dict[str, tuple[str, str]], build_dir: str, jobs: int,
               wait: float, only: list[str], log=print, verbose: bool = False) -> list[Outcome]:
    """Run every program in each configuration; configs maps a letter to (p4c, switch)."""
    programs = find_programs(p4c_src)
    if only:
        programs = [p for p in programs if any(k in p[0] for k in only)]
    tasks = [(cfg, prog) for prog in programs for cfg in configs]

    def one(task) -> Outcome:
        cfg, (name, p4, stf_path) = task
        p4c, switch = configs[cfg]
        # Only the ports the STF names are attached, as p4c's runner does: a packet sent
        # elsewhere is dropped there, so it is not an unexpected packet here either.
        opts = Options(p4c=p4c, switch=switch, build_dir=os.path.join(build_dir, cfg), wait=wait,
                       extra_ports=())
        t0 = time.time()
        try:
            res = run_case(opts, p4, stf_path, "", name)
        except Exception as exc:  # one broken case must not stop the measurement
            res = Result(name, "", FAIL, reason=f"runner error: {type(exc).__name__}: {exc}")
        cls, line = classify(res)
        line = line.replace(os.path.join(os.path.abspath(p4c_src), "testdata", ""), "")
        line = line.replace(os.path.join(os.path.abspath(opts.build_dir), name, ""), "")
        out = Outcome(name, cfg, cls, _shorten(line), round(time.time() - t0, 1))
        text = f"{cfg} {cls:14} {name}" + (f": {out.first_error}" if line else "")
        if verbose and cls != "pass":
            text += "\n" + "\n".join(filter(None, [res.reason, res.details]))
        log(text)
        return out

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, tasks))
    return sorted(results, key=lambda o: (o.program, o.config))


def totals(outcomes: list[Outcome], cfg: str) -> dict[str, int]:
    counts = {c: 0 for c in CLASSES}
    for o in outcomes:
        if o.config == cfg:
            counts[o.cls] += 1
    return counts


def report(outcomes: list[Outcome], configs: dict[str, tuple[str, str]], command: str,
           previous: list[Outcome] | None, header: str) -> str:
    """The Markdown report: totals, changes since the previous run, then every program."""
    lines = [f"# p4c's v1model STF programs on our toolchain and the reference", "", header, "",
             f"Command: `{command}`", ""]
    programs = sorted({o.program for o in outcomes})
    lines += [f"{len(programs)} programs (testdata/p4_16_samples/*.p4 that include v1model.p4 "
              f"and have a .stf beside them). One program again, with the runner's full "
              f"report (per-port diff, switch log in build/p4c-corpus/CONFIG/NAME/): "
              f"`p4stf --corpus P4C_CHECKOUT --configs a -k NAME -v` (add --ref-p4c/--ref-switch for b, c).", ""]
    lines += ["| config | tools | " + " | ".join(CLASSES) + " |",
              "|---|---|" + "---:|" * len(CLASSES)]
    for cfg in configs:
        t = totals(outcomes, cfg)
        lines.append(f"| {cfg} | `{configs[cfg][0]}` + `{configs[cfg][1]}` | "
                     + " | ".join(str(t[c]) for c in CLASSES) + " |")
    lines.append("")
    if previous is not None:
        before = {(o.program, o.config): o.cls for o in previous}
        changed = [o for o in outcomes if (o.program, o.config) in before
                   and before[(o.program, o.config)] != o.cls]
        lines += ["## Changed since the previous run", ""]
        if changed:
            lines += [f"- {o.program} ({o.config}): {before[(o.program, o.config)]} → {o.cls}"
                      for o in changed]
        else:
            lines.append("Nothing changed class.")
        lines.append("")
    lines += ["## Per program", "",
              "Class per configuration; the failures with their first error line follow below.", "",
              "| program | " + " | ".join(configs) + " |", "|---|" + "---|" * len(configs)]
    by = {(o.program, o.config): o for o in outcomes}
    for p in programs:
        lines.append(f"| {p} | " + " | ".join(by[(p, c)].cls if (p, c) in by else "" for c in configs)
                     + " |")
    lines += ["", "## Failures", "", "| program | config | class | first error line |", "|---|---|---|---|"]
    for o in outcomes:
        if o.cls != "pass":
            lines.append(f"| {o.program} | {o.config} | {o.cls} | {o.first_error} |")
    return "\n".join(lines) + "\n"


def load_previous(path: str) -> list[Outcome] | None:
    try:
        with open(path) as f:
            return [Outcome(**d) for d in json.load(f)["outcomes"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _git_head(path: str) -> str:
    try:
        cp = subprocess.run(["git", "-C", path, "log", "-1", "--format=%h %cs"], capture_output=True,
                            text=True, timeout=10)
        return cp.stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def main(p4c_src: str, configs: str, p4c: str, switch: str, ref_p4c: str | None,
         ref_switch: str | None, build_dir: str, jobs: int, wait: float, only: list[str],
         out: str | None, json_out: str | None, command: str, verbose: bool = False) -> int:
    """`p4stf --corpus`: run, print a line per (program, config), write the reports."""
    ref_p4c = ref_p4c or shutil.which("p4c-bm2-ss")
    ref_switch = ref_switch or shutil.which("simple_switch_grpc")
    tools = {"a": (p4c, switch), "b": (ref_p4c, switch), "c": (ref_p4c, ref_switch), "d": (p4c, ref_switch)}
    chosen: dict[str, tuple[str, str]] = {}
    for cfg in configs.split(","):
        cfg = cfg.strip()
        if cfg not in tools:
            raise SystemExit(f"p4stf: --configs: unknown configuration {cfg!r} (a, b, c, d)")
        if None in tools[cfg]:
            print(f"p4stf: configuration {cfg} ({CONFIGS[cfg]}) skipped: reference tool not found "
                  f"(--ref-p4c / --ref-switch)")
            continue
        chosen[cfg] = tools[cfg]
    if not chosen:
        raise SystemExit("p4stf: no configuration to run")
    t0 = time.time()
    outcomes = run_corpus(p4c_src, chosen, build_dir, jobs, wait, only, verbose=verbose)
    minutes = (time.time() - t0) / 60
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    header = (f"Run {time.strftime('%Y-%m-%d %H:%M %Z')}, {minutes:.1f} min, load average {load:.1f}; "
              f"p4c checkout {p4c_src} ({_git_head(p4c_src)}); reference p4c: "
              f"{version_line(ref_p4c) if ref_p4c else 'none'}; this repository at {_git_head('.')}.")
    previous = load_previous(json_out) if json_out else None
    text = report(outcomes, chosen, command, previous, header)
    print()
    for cfg in chosen:
        t = totals(outcomes, cfg)
        print(f"{cfg} ({CONFIGS[cfg]}): " + ", ".join(f"{t[c]} {c}" for c in CLASSES if t[c]))
    if out:
        with open(out, "w") as f:
            f.write(text)
        print(f"report: {out}")
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"header": header, "command": command,
                       "configs": {k: list(v) for k, v in chosen.items()},
                       "outcomes": [asdict(o) for o in outcomes]}, f, indent=1)
    return 0
