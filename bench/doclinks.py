"""The project's docs stand alone: every link in a tracked Markdown file points at a file
inside the repository that exists.

    python -m bench.doclinks          # prints each bad link as path:line: why; exit 1 if any

A link is a Markdown link or image `[text](target)` / `![alt](target)`, an autolink
`<scheme://...>`, a bare `http(s)://` address, or a mention of a document that lives outside
the repository (the shared design notes and study summaries, or a path climbing out of the
repository). Targets are resolved from the linking file's folder; `#anchors` are ignored, and
so is text in code (fenced blocks and `inline code`: commands with a local address).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
AUTOLINK = re.compile(r"<([a-z][a-z0-9+.-]*:[^>\s]+)>", re.I)
BARE_URL = re.compile(r"\bhttps?://[^\s)>\]]+", re.I)
# documents that existed only beside the repository, never in it
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")     # `curl http://127.0.0.1:9101/` is a command, not a link
OUTSIDE_DOCS = re.compile(r"\b(SCENARIOS\.md|DESIGN\.md|TARGET\.md|STYLE\.md)\b|shared/(docs|seeds)\b")


def markdown_files(root: Path = ROOT) -> list[Path]:
    """Tracked *.md files (git ls-files), or every *.md outside hidden and build folders."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "*.md"], capture_output=True,
                             text=True, check=True).stdout
        files = [root / p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in root.rglob("*.md")
                 if not any(part.startswith(".") or part in ("target", "build") for part in p.relative_to(root).parts)]
    return sorted(f for f in files if f.exists())


def problems(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line: why` for every link of `path` that leaves the repository or points at nothing."""
    out = []
    rel = path.relative_to(root)
    in_fence = False
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        where = f"{rel}:{n}"
        m = OUTSIDE_DOCS.search(line)
        if m:
            out.append(f"{where}: names {m.group(0)}, a document outside the repository")
        if in_fence:
            continue
        line = CODE_SPAN.sub("", line)
        for url in dict.fromkeys(AUTOLINK.findall(line) + BARE_URL.findall(line)):
            out.append(f"{where}: link outside the repository: {url}")
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
                if not target.lower().startswith(("http:", "https:")):   # bare URLs are reported above
                    out.append(f"{where}: link outside the repository: {target}")
                continue
            file_part = target.split("#", 1)[0]
            if not file_part:
                continue                                          # an anchor in the same file
            dest = (root / file_part.lstrip("/")) if file_part.startswith("/") else (path.parent / file_part)
            dest = Path(*dest.parts).resolve()
            try:
                dest.relative_to(root)
            except ValueError:
                out.append(f"{where}: link leaves the repository: {target}")
                continue
            if not dest.exists():
                out.append(f"{where}: link to a missing file: {target}")
    return out


def check(root: Path = ROOT) -> list[str]:
    return [p for f in markdown_files(root) for p in problems(f, root)]


def main() -> int:
    bad = check()
    for b in bad:
        print(b)
    print(f"doclinks: {len(markdown_files())} Markdown files, {len(bad)} bad link(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
