"""C-preprocessor subset: #include, #define (object- and function-like), #undef,
#if/#ifdef/#ifndef/#elif/#else/#endif with defined(), #error, -D and -I.

Output is a list of logical lines, each tagged with the file and line it came from,
so later phases can point at the original source.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .diag import Reporter, SourceCache, Span

BUILTIN_INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "p4include")
MAX_INCLUDE_DEPTH = 100
# Macros a program sets for the compiler's own headers (v1model.p4 reads V1MODEL_VERSION):
# --pp writes them before the #include line that stands for such a header.
_HEADER_KNOBS = ("V1MODEL_VERSION",)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d[\w]*|##|#|\s+|.', re.S)


@dataclass(slots=True)
class Line:
    text: str
    file: str
    line: int


@dataclass
class Macro:
    name: str
    params: list[str] | None  # None: object-like
    body: str
    variadic: bool = False


@dataclass
class _Cond:
    active: bool       # this branch is being emitted
    taken: bool        # some branch of this #if group was already taken
    parent_active: bool
    span: Span
    seen_else: bool = False


@dataclass
class Preprocessor:
    include_dirs: list[str] = field(default_factory=list)
    defines: dict[str, Macro] = field(default_factory=dict)
    sources: SourceCache = field(default_factory=SourceCache)
    reporter: Reporter = field(default_factory=Reporter)
    out: list[Line] = field(default_factory=list)
    once: set[str] = field(default_factory=set)
    # (index in out, header name, its knobs' values): where the program includes a header
    # of the compiler's own (BUILTIN_INCLUDE), for --pp
    builtin_includes: list[tuple[int, str, dict[str, str]]] = field(default_factory=list)

    def define_cmdline(self, text: str) -> None:
        name, _, value = text.partition("=")
        if not _IDENT.fullmatch(name.strip()):
            self.reporter.error(Span("<command line>", 0, 0), f"invalid macro name in -D{text}")
            return
        self.defines[name.strip()] = Macro(name.strip(), None, value if "=" in text else "1")

    # ---------------------------------------------------------------- files
    def run_file(self, path: str, depth: int = 0, span: Span | None = None) -> None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            self.reporter.error(span or Span(path, 0, 0), f"cannot read {path}: {exc.strerror}")
            return
        text = data.decode("utf-8", errors="replace")
        if text.startswith("\ufeff"):
            text = text[1:]
        self.run_text(text.replace("\r\n", "\n"), path, depth)

    def run_text(self, text: str, name: str, depth: int = 0) -> None:
        """Preprocess one file's text into `out`: comments removed, continuation lines joined,
        directives obeyed, macros expanded; each line tagged with its file and line, which
        line markers may rename."""
        self.sources.add(name, text)
        lines = _strip_comments(text, name, self.reporter)
        originals: list[str] | None = None
        conds: list[_Cond] = []
        i = 0
        n = len(lines)
        # A line marker (`# N "file"`, `#line N "file"`) renames what follows: `where` is the
        # file named and `shift` the difference between its line numbers and this file's.
        where, shift = name, 0
        while i < n:
            raw = lines[i]
            lineno = i + 1
            # join continuation lines (spliced with nothing between, as in C: a name may be split)
            while raw.endswith("\\") and i + 1 < n:
                i += 1
                raw = raw[:-1] + lines[i]
                lines[i] = ""
            i += 1
            stripped = raw.lstrip()
            active = not conds or conds[-1].active
            line = lineno + shift
            if where != name or shift:
                # the diagnostics quote a marked line from the text it came from
                originals = originals or text.split("\n")
                self.sources.add_line(where, line, originals[lineno - 1])
            if stripped.startswith("#"):
                col = len(raw) - len(stripped) + 1
                directive = stripped[1:].strip()
                marker = self._line_marker(directive, Span(where, line, col)) if active else None
                if marker is not None:
                    new_line, new_file = marker
                    where = new_file if new_file is not None else where
                    shift = new_line - (i + 1)
                    continue
                self._directive(directive, Span(where, line, col), conds, depth, active, name)
                continue
            if not active:
                continue
            if self.defines and _IDENT.search(raw):
                raw = self._expand(raw, Span(where, line, 1))
            self.out.append(Line(raw, where, line))
        for c in conds:
            self.reporter.error(c.span, "unterminated conditional directive")

    def _line_marker(self, text: str, span: Span) -> tuple[int, str | None] | None:
        """`N "file" flags...` (cpp's output) or `line N "file"`: the number of the next
        line and the file name (None: unchanged); None when `text` is no line marker."""
        if text.startswith("line") and not _IDENT.match(text[4:5] or " "):
            body = text[4:].strip()
            if body and not body[0].isdigit():
                body = self._expand(body, span)
            m = re.match(r'(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*$', body)
            if not m:
                self.reporter.error(span, '#line expects a line number and an optional "file"')
                return None
        else:
            m = re.match(r'(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?(?:\s+\d+)*\s*$', text)
            if not m:
                return None
        name = _unescape_c(m.group(2)) if m.group(2) is not None else None
        return int(m.group(1)), name

    # ----------------------------------------------------------- directives
    def _directive(self, text: str, span: Span, conds: list[_Cond], depth: int, active: bool, here: str) -> None:
        """One directive; `span` names the (possibly marked) place, `here` the file read
        (where `#include "..."` looks first and what `#pragma once` marks)."""
        m = re.match(r"([A-Za-z_]*)\s*(.*)$", text, re.S)
        word, rest = (m.group(1), m.group(2).strip()) if m else ("", text)
        if word in ("if", "ifdef", "ifndef"):
            if not active:
                conds.append(_Cond(False, True, False, span))
                return
            if word == "if":
                val = self._eval(rest, span)
            else:
                name = rest.split()[0] if rest.split() else ""
                if not name:
                    self.reporter.error(span, f"#{word} without a macro name")
                val = (name in self.defines) == (word == "ifdef")
            conds.append(_Cond(val, val, True, span))
            return
        if word in ("elif", "else", "endif"):
            if not conds:
                self.reporter.error(span, f"#{word} without #if")
                return
            c = conds[-1]
            if word == "endif":
                conds.pop()
            elif word == "else":
                if c.seen_else:
                    self.reporter.error(span, "#else after #else")
                c.seen_else = True
                c.active = c.parent_active and not c.taken
                c.taken = True
            else:
                if c.parent_active and not c.taken:
                    c.active = self._eval(rest, span)
                    c.taken = c.active
                else:
                    c.active = False
            return
        if not active:
            return
        if word == "include":
            self._include(rest, span, depth, here)
        elif word == "define":
            self._define(rest, span)
        elif word == "undef":
            self.defines.pop(rest.split()[0] if rest.split() else "", None)
        elif word == "error":
            self.reporter.error(span, f"#error {rest}")
        elif word == "pragma":
            if rest.strip() == "once":
                self.once.add(os.path.abspath(here))
        elif word in ("warning", "ident", "line"):
            pass    # a malformed #line was reported by _line_marker
        elif word == "":
            if rest:
                self.reporter.error(span, f"invalid preprocessing directive #{rest.split()[0]}")
        else:
            self.reporter.error(span, f"unknown preprocessor directive #{word}")

    def _include(self, rest: str, span: Span, depth: int, here: str) -> None:
        rest = self._expand(rest, span) if not rest.startswith(('"', "<")) else rest
        m = re.match(r'"([^"]+)"|<([^>]+)>', rest)
        if not m:
            self.reporter.error(span, "#include expects \"FILE\" or <FILE>")
            return
        target = m.group(1) or m.group(2)
        dirs = []
        if m.group(1):
            dirs.append(os.path.dirname(here) or ".")
        dirs += self.include_dirs + [BUILTIN_INCLUDE]
        if m.group(2) and target in ("core.p4", "v1model.p4"):
            dirs = [BUILTIN_INCLUDE] + self.include_dirs
        for d in dirs:
            p = os.path.join(d, target)
            if os.path.isfile(p):
                if os.path.abspath(p) in self.once:
                    return
                if depth >= MAX_INCLUDE_DEPTH:
                    self.reporter.error(span, "#include nested too deeply")
                    return
                if _builtin(p) and not _builtin(here):
                    knobs = {k: self.defines[k].body for k in _HEADER_KNOBS if k in self.defines}
                    self.builtin_includes.append((len(self.out), target, knobs))
                self.run_file(p, depth + 1, span)
                return
        self.reporter.error(span, f"cannot find include file {target}")

    def _define(self, rest: str, span: Span) -> None:
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?\s*(.*)$", rest, re.S)
        if not m:
            self.reporter.error(span, "#define expects a macro name")
            return
        name, has_params, params, body = m.group(1), m.group(2), m.group(3), m.group(4)
        if has_params is not None:
            plist = [p.strip() for p in params.split(",")] if params.strip() else []
            variadic = bool(plist) and plist[-1] == "..."
            if variadic:
                plist[-1] = "__VA_ARGS__"
            for p in plist:
                if not _IDENT.fullmatch(p):
                    self.reporter.error(span, f"invalid macro parameter '{p}'")
                    return
            self.defines[name] = Macro(name, plist, body.strip(), variadic)
        else:
            self.defines[name] = Macro(name, None, body.strip())

    # ------------------------------------------------------------ expansion
    def _expand(self, text: str, span: Span, hide: frozenset = frozenset(), depth: int = 0) -> str:
        if depth > 64:
            self.reporter.error(span, "macro expansion nested too deeply")
            return text
        toks = _TOKEN.findall(text)
        out: list[str] = []
        i = 0
        changed = False
        while i < len(toks):
            t = toks[i]
            mac = self.defines.get(t)
            if mac is None or t in hide:
                out.append(t)
                i += 1
                continue
            if mac.params is None:
                out.append(self._expand(mac.body, span, hide | {t}, depth + 1))
                i += 1
                changed = True
                continue
            j = i + 1
            while j < len(toks) and toks[j].isspace():
                j += 1
            if j >= len(toks) or toks[j] != "(":
                out.append(t)
                i += 1
                continue
            args, j = _collect_args(toks, j)
            if args is None:
                self.reporter.error(span, f"unterminated call of macro {t}")
                return text
            if args == [""] and not mac.params:
                args = []
            if len(args) != len(mac.params) and not (mac.variadic and len(args) >= len(mac.params) - 1):
                self.reporter.error(span, f"macro {t} expects {len(mac.params)} arguments, got {len(args)}")
                out.append(t)
                i += 1
                continue
            if mac.variadic:
                k = len(mac.params) - 1
                args = args[:k] + [",".join(args[k:])]
            amap = {p: a.strip() for p, a in zip(mac.params, args)}
            body = _substitute(mac.body, amap, lambda s: self._expand(s, span, hide, depth + 1))
            out.append(self._expand(body, span, hide | {t}, depth + 1))
            i = j
            changed = True
        return "".join(out) if changed else text

    def _eval(self, expr: str, span: Span) -> bool:
        expr = re.sub(r"defined\s*\(\s*([A-Za-z_]\w*)\s*\)|defined\s+([A-Za-z_]\w*)",
                      lambda m: "1" if (m.group(1) or m.group(2)) in self.defines else "0", expr)
        expr = self._expand(expr, span)
        expr = re.sub(r"defined\s*\(\s*([A-Za-z_]\w*)\s*\)|defined\s+([A-Za-z_]\w*)",
                      lambda m: "1" if (m.group(1) or m.group(2)) in self.defines else "0", expr)
        try:
            return bool(_CondEval(expr).run())
        except (ValueError, ZeroDivisionError, IndexError, RecursionError):
            self.reporter.error(span, f"invalid #if expression '{expr.strip()}'")
            return False


def program_text(lines: list[Line], builtin_includes: list[tuple[int, str, dict[str, str]]]) -> str:
    """The preprocessed program as P4 source (--pp): every line the later phases see, except
    that the compiler's own core.p4/v1model.p4/... stay `#include <...>` lines (after the
    #defines the program set for them), as in p4c's copy, so the file compiles again to
    the same program."""
    out: list[str] = []
    marks: dict[int, list[str]] = {}
    written: dict[str, str] = {}
    for at, name, knobs in builtin_includes:
        mark = marks.setdefault(at, [])
        for k, v in knobs.items():
            if written.get(k) != v:
                mark.append(f"#define {k} {v}")
                written[k] = v
        mark.append(f"#include <{name}>")
    prev: Line | None = None
    for i, ln in enumerate(lines):
        out.extend(marks.pop(i, ()))
        if _builtin(ln.file):
            continue
        if prev is not None and prev.file == ln.file and prev.line < ln.line:
            # lines the preprocessor removed stay empty, as with cpp: inside a string
            # literal spanning lines they are part of its text
            out.extend([""] * (ln.line - prev.line - 1))
        out.append(ln.text)
        prev = ln
    for rest in marks.values():
        out.extend(rest)
    return "\n".join(out) + "\n"


def _builtin(path: str) -> bool:
    return os.path.dirname(os.path.abspath(path)) == BUILTIN_INCLUDE


def _unescape_c(s: str) -> str:
    """A file name in a line marker: cpp writes `\\` and `\"` escaped."""
    return re.sub(r"\\(.)", r"\1", s)


def _collect_args(toks: list[str], j: int) -> tuple[list[str] | None, int]:
    depth = 0
    args: list[str] = []
    cur: list[str] = []
    j += 1
    depth = 1
    while j < len(toks):
        t = toks[j]
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                return args, j + 1
        elif t == "," and depth == 1:
            args.append("".join(cur))
            cur = []
            j += 1
            continue
        cur.append(t)
        j += 1
    return None, j


def _substitute(body: str, amap: dict[str, str], expand) -> str:
    toks = [t for t in _TOKEN.findall(body)]
    out: list[str] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "#" and i + 1 < len(toks):
            k = i + 1
            while k < len(toks) and toks[k].isspace():
                k += 1
            if k < len(toks) and toks[k] in amap:
                out.append('"' + amap[toks[k]].replace("\\", "\\\\").replace('"', '\\"') + '"')
                i = k + 1
                continue
        if t == "##":
            while out and out[-1].isspace():
                out.pop()
            i += 1
            while i < len(toks) and toks[i].isspace():
                i += 1
            if i < len(toks):
                out.append(amap.get(toks[i], toks[i]))
                i += 1
            continue
        if t in amap:
            nxt = i + 1
            while nxt < len(toks) and toks[nxt].isspace():
                nxt += 1
            raw = nxt < len(toks) and toks[nxt] == "##"
            out.append(amap[t] if raw else expand(amap[t]))
        else:
            out.append(t)
        i += 1
    return "".join(out)


def _strip_comments(text: str, name: str, reporter: Reporter) -> list[str]:
    """Replace comments by spaces (keeping line structure); returns the lines."""
    if "/" not in text:
        return text.split("\n")
    out: list[str] = []
    i = 0
    n = len(text)
    start = 0
    while i < n:
        c = text[i]
        if c == '"':
            # a string literal may span lines (as in SAI-P4's annotations): comments in it are text
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "/" and i + 1 < n:
            nx = text[i + 1]
            if nx == "/":
                j = text.find("\n", i)
                j = n if j < 0 else j
                out.append(text[start:i])
                start = i = j
                continue
            if nx == "*":
                j = text.find("*/", i + 2)
                if j < 0:
                    ln = text.count("\n", 0, i) + 1
                    col = i - text.rfind("\n", 0, i)
                    reporter.error(Span(name, ln, col), "unterminated comment")
                    j = n
                    end = n
                else:
                    end = j + 2
                out.append(text[start:i])
                out.append("".join("\n" if ch == "\n" else " " for ch in text[i:end]))
                start = i = end
                continue
        i += 1
    out.append(text[start:])
    return "".join(out).split("\n")


class _CondEval:
    """Evaluates a #if expression (integers, C operators)."""
    _tok = re.compile(r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%()<>!~&|^?:])")

    def __init__(self, text: str):
        self.toks: list[str] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = self._tok.match(text, pos)
            if not m:
                raise ValueError(text)
            self.toks.append(m.group(1))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.i = 0

    def run(self) -> int:
        v = self.cond()
        if self.i != len(self.toks):
            raise ValueError("trailing")
        return v

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        t = self.toks[self.i]
        self.i += 1
        return t

    def cond(self) -> int:
        c = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.cond()
            if self.take() != ":":
                raise ValueError(":")
            b = self.cond()
            return a if c else b
        return c

    _prec = [["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", ">", "<=", ">="],
             ["<<", ">>"], ["+", "-"], ["*", "/", "%"]]

    def binary(self, level: int) -> int:
        if level == len(self._prec):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self._prec[level]:
            op = self.take()
            r = self.binary(level + 1)
            v = {"||": lambda a, b: int(bool(a or b)), "&&": lambda a, b: int(bool(a and b)),
                 "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "&": lambda a, b: a & b,
                 "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
                 "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
                 "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
                 "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
                 "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
                 "/": lambda a, b: int(a / b), "%": lambda a, b: a % b}[op](v, r)
        return v

    def unary(self) -> int:
        t = self.take()
        if t == "!":
            return int(not self.unary())
        if t == "-":
            return -self.unary()
        if t == "+":
            return self.unary()
        if t == "~":
            return ~self.unary()
        if t == "(":
            v = self.cond()
            if self.take() != ")":
                raise ValueError(")")
            return v
        if t[0].isdigit():
            return int(t, 0) if not (len(t) > 1 and t[0] == "0" and t[1].isdigit()) else int(t, 8)
        if t[0].isalpha() or t[0] == "_":
            return 0  # undefined identifiers are 0, as in C
        raise ValueError(t)
