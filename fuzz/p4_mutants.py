#!/usr/bin/env python3
"""Mutants of the repository's P4 programs through p4compile: never a traceback, never a hang.

Each mutant is one of the repository's own programs (p4src/vrouter.p4, conformance/tests/,
compiler/tests/, controller/tests/) with one to three token- or line-level edits
(delete, duplicate, swap, replace with another token of the program or a keyword,
odd numbers and widths, stray characters, truncation). It is compiled in-process
exactly as `p4compile` compiles a file. Allowed outcomes: it compiles, or it
fails with diagnostics that render as `file:line:col: error: ...`. Anything else
(another exception, a diagnostic without a position, more than --timeout
seconds or 4 GiB) is a finding: it is written to --out as a .p4 file with the reason,
and the exit status is 1. The generator has a fixed seed, so runs repeat.

    .venv/bin/python fuzz/p4_mutants.py --count 600            # the smoke of make test
    .venv/bin/python fuzz/p4_mutants.py --count 100000 --seed 7  # a long run (make fuzz)
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import signal
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "compiler"))

from p4compiler.diag import CompileError  # noqa: E402
from p4compiler.driver import Compilation, Options  # noqa: E402

CORPUS_DIRS = ("conformance/tests", "compiler/tests/programs", "compiler/tests/bad", "controller/tests/p4")
TOKEN = re.compile(r"0x[0-9a-fA-F_]+|\d+[wsWS]\d+|\d+|[A-Za-z_]\w*|<<|>>|&&&|\+\+|==|!=|<=|>=|&&|\|\||\S")
KEYWORDS = ("if", "else", "apply", "action", "table", "key", "actions", "state", "transition", "select",
            "return", "exit", "header", "struct", "bit", "int", "varbit", "bool", "const", "in", "out", "inout",
            "control", "parser", "extern", "typedef", "type", "enum", "error", "switch", "default", "true",
            "false", "this", "tuple", "void", "{", "}", "(", ")", "<", ">", ";", ",", ".", "=", "[", "]", ":",
            "#include", "#define", "@name", "@id", "0", "1", "8w255", "1w1", "32w0xFFFFFFFF", "4294967296",
            "0x" + "f" * 40, "-1", "8s-128", "1024w1", "0w0")
MEMORY_LIMIT = 4 << 30     # a mutant that needs more is a finding, and the machine is shared
POSITION = re.compile(r"^[^\s:][^:]*:\d+:\d+: error: ", re.M)


class Hang(Exception):
    pass


class LineCoverage:
    """Lines of the compiler's own modules that ran (sys.settrace: slower, for long runs)."""

    def __init__(self) -> None:
        self.package = str(ROOT / "compiler" / "p4compiler")
        self.lines: set[tuple[str, int]] = set()

    def _local(self, frame, event, arg):
        if event == "line":
            self.lines.add((frame.f_code.co_filename, frame.f_lineno))
        return self._local

    def _global(self, frame, event, arg):
        return self._local if frame.f_code.co_filename.startswith(self.package) else None

    def start(self) -> None:
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)


def corpus() -> list[Path]:
    files = [ROOT / "p4src" / "vrouter.p4"]     # its include/ files are not programs on their own
    for d in CORPUS_DIRS:
        files += sorted((ROOT / d).rglob("*.p4"))
    return files


def mutate(rng: random.Random, text: str) -> str:
    """One to three random edits of `text`."""
    for _ in range(rng.randint(1, 3)):
        spans = [m.span() for m in TOKEN.finditer(text)]
        if not spans:
            return text + rng.choice(KEYWORDS)
        a, b = rng.choice(spans)
        kind = rng.randrange(9)
        if kind == 0:                                   # delete a token
            text = text[:a] + text[b:]
        elif kind == 1:                                 # duplicate a token
            text = text[:b] + " " + text[a:b] + text[b:]
        elif kind == 2:                                 # another token of the program
            c, d = rng.choice(spans)
            text = text[:a] + text[c:d] + text[b:]
        elif kind == 3:                                 # a keyword, punctuation or odd literal
            text = text[:a] + rng.choice(KEYWORDS) + text[b:]
        elif kind == 4:                                 # swap with the next token
            i = spans.index((a, b))
            if i + 1 < len(spans):
                c, d = spans[i + 1]
                text = text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
        elif kind == 5:                                 # delete or duplicate a line
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                del lines[i]
            else:
                lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 6:                                 # a stray character
            text = text[:a] + chr(rng.choice([0, 7, 0x22, 0x27, 0x5c, 0x60, 0x24, 0xe9, 0x2028])) + text[a:]
        elif kind == 7:                                 # truncate
            text = text[:rng.randrange(len(text) + 1)]
        else:                                           # a number of another size
            nums = [s for s in spans if text[s[0]].isdigit()]
            if nums:
                c, d = rng.choice(nums)
                text = text[:c] + rng.choice(["0", "1", "65536", "4294967297", "9" * 30, "1w2", "3w9"]) + text[d:]
    return text


def on_alarm(signum, frame):
    raise Hang()


def compile_one(path: Path, text: str, timeout: float) -> tuple[str, str | None]:
    """("compiled" | "refused", None) if the outcome is allowed, else ("finding", why)."""
    comp = Compilation(str(path), Options(), text)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        comp.run()
        return "compiled", None
    except CompileError as e:
        rendered = "\n".join(d.render(comp.sources) for d in e.diagnostics)
        if not e.diagnostics or any(not POSITION.match(d.render(comp.sources)) for d in e.diagnostics):
            return "finding", f"diagnostic without file:line:col: error:\n{rendered}"
        return "refused", None
    except Hang:
        return "finding", f"no answer within {timeout} s"
    except MemoryError:
        pass    # answered below, once the traceback (and what it holds) is gone
    except RecursionError:
        return "refused", None     # p4compile reports "program nested too deeply" (cli.main)
    except Exception:
        return "finding", "traceback:\n" + traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    del comp
    return "finding", f"more than {MEMORY_LIMIT >> 30} GiB of memory"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=600, help="mutants to compile (default 600)")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per mutant before it counts as a hang")
    ap.add_argument("--coverage", action="store_true", help="report the compiler lines the mutants reached")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "fuzz" / "p4_mutants", help="findings go here")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGALRM, on_alarm)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, resource.getrlimit(resource.RLIMIT_AS)[1]))
    sys.setrecursionlimit(20000)
    files = corpus()
    texts = {p: p.read_text() for p in files}
    rng = random.Random(args.seed)
    cov = LineCoverage() if args.coverage else None
    start = time.monotonic()
    outcomes = {"compiled": 0, "refused": 0, "finding": 0}
    findings: list[tuple[int, Path, str]] = []
    for i in range(args.count):
        path = files[rng.randrange(len(files))]
        text = mutate(rng, texts[path])
        if cov:
            cov.start()
        outcome, why = compile_one(path, text, args.timeout)
        if cov:
            cov.stop()
        outcomes[outcome] += 1
        if why is None:
            continue
        findings.append((i, path, why))
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"finding-{args.seed}-{i}.p4").write_text(text)
        (args.out / f"finding-{args.seed}-{i}.txt").write_text(f"{path.relative_to(ROOT)}\n{why}\n")
    elapsed = time.monotonic() - start
    print(f"p4 mutants: {args.count} of {len(files)} programs (seed {args.seed}) in {elapsed:.1f} s: "
          f"{outcomes['compiled']} compiled, {outcomes['refused']} refused with file:line:col: error:, "
          f"{len(findings)} findings (tracebacks, hangs, unpositioned errors)")
    if cov:
        print(f"coverage: {len(cov.lines)} lines of compiler/p4compiler ran "
              f"in {len({f for f, _ in cov.lines})} modules")
    for i, path, why in findings[:10]:
        print(f"  mutant {i} of {path.relative_to(ROOT)}: {why.splitlines()[0]} -> {args.out}/finding-{args.seed}-{i}.p4")
        print("    " + "\n    ".join(why.splitlines()[-3:]))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
