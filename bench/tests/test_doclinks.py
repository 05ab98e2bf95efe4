"""The project's docs stand alone (issue 19 Must 6): no Markdown link leaves the repository
or points at a missing file. Fast: reads files only."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import doclinks  # noqa: E402


def test_every_markdown_link_of_the_repository_stays_inside_and_exists():
    assert doclinks.markdown_files(), "no Markdown files found"
    assert doclinks.check() == []


def make_repo(tmp_path: Path, text: str) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# there\n")
    (tmp_path / "docs" / "page.md").write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    return tmp_path / "docs" / "page.md"


def test_links_inside_the_repository_to_existing_files_pass(tmp_path):
    page = make_repo(tmp_path, "[a](there.md) [b](there.md#part) [c](#here) ![d](../docs/there.md)\n"
                               "```\n[not a link](nowhere.md) in a code block\n```\n"
                               "run `curl http://127.0.0.1:9101/metrics` or ``see `http://x/` ``\n")
    assert doclinks.problems(page, tmp_path) == []


def test_a_missing_target_fails(tmp_path):
    page = make_repo(tmp_path, "see [the plan](plan.md)\n")
    assert doclinks.problems(page, tmp_path) == ["docs/page.md:1: link to a missing file: plan.md"]


def test_a_path_out_of_the_repository_fails(tmp_path):
    page = make_repo(tmp_path, "see [design](../../shared/docs/notes.md)\n")
    out = doclinks.problems(page, tmp_path)
    assert len(out) == 2 and "link leaves the repository: ../../shared/docs/notes.md" in out[1], out


def test_web_addresses_and_outside_documents_fail(tmp_path):
    page = make_repo(tmp_path, "[site](https://example.org/x)\n<https://example.org>\nas DESIGN.md says\n")
    out = doclinks.problems(page, tmp_path)
    assert out == ["docs/page.md:1: link outside the repository: https://example.org/x",
                   "docs/page.md:2: link outside the repository: https://example.org",
                   "docs/page.md:3: names DESIGN.md, a document outside the repository"], out
