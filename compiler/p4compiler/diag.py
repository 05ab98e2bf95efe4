"""Source locations and diagnostics: FILE:LINE:COL: error: MESSAGE + source line + caret."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Span(NamedTuple):
    """A position in a source file (1-based line and column). A tuple: cheap to make per token."""
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span("<builtin>", 0, 0)


@dataclass
class Diagnostic:
    span: Span
    message: str
    severity: str = "error"

    def render(self, sources: "SourceCache") -> str:
        head = f"{self.span}: {self.severity}: {self.message}"
        text = sources.line(self.span.file, self.span.line)
        if text is None:
            return head
        text = text.replace("\t", " ")
        col = max(1, min(self.span.col, len(text) + 1))
        return f"{head}\n{text}\n{' ' * (col - 1)}^"


class CompileError(Exception):
    """Raised when a phase ends with errors; carries all diagnostics of that phase."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(f"{d.span}: {d.message}" for d in diagnostics))
        self.diagnostics = diagnostics


class SourceCache:
    """Remembers the text of every file read, to quote lines in diagnostics."""

    def __init__(self) -> None:
        self.files: dict[str, list[str]] = {}
        self.marked: dict[tuple[str, int], str] = {}   # lines placed by a line marker

    def add(self, name: str, text: str) -> None:
        self.files[name] = text.split("\n")

    def add_line(self, name: str, line: int, text: str) -> None:
        """Line `line` of `name` as a line marker placed it (`# 12 "x.p4"`): quoted in place
        of the file's own text, which may not exist or differ."""
        self.marked[(name, line)] = text

    def line(self, name: str, line: int) -> str | None:
        if self.marked:
            text = self.marked.get((name, line))
            if text is not None:
                return text.rstrip("\r")
        lines = self.files.get(name)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1].rstrip("\r")


@dataclass
class Reporter:
    """Collects the diagnostics of one phase."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)  # shown, but do not stop the compilation
    limit: int = 200

    def warning(self, span: Span | None, message: str) -> None:
        d = Diagnostic(span or NO_SPAN, message, "warning")
        if len(self.warnings) < self.limit and d not in self.warnings:
            self.warnings.append(d)

    def error(self, span: Span | None, message: str) -> None:
        if len(self.diagnostics) >= self.limit:
            return
        d = Diagnostic(span or NO_SPAN, message)
        for old in self.diagnostics:
            if old.span == d.span and old.message == d.message:
                return
        self.diagnostics.append(d)

    def unsupported(self, span: Span | None, what: str) -> None:
        self.error(span, f"unsupported: {what}")

    @property
    def failed(self) -> bool:
        return bool(self.diagnostics)

    def check(self) -> None:
        """End of a phase: raise if anything was reported."""
        if self.diagnostics:
            raise CompileError(list(self.diagnostics))

