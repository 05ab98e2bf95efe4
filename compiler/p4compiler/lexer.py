"""Hand-written lexer: preprocessed lines -> tokens with source spans."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .diag import Reporter, Span
from .preprocess import Line

KEYWORDS = {
    "abstract", "action", "apply", "bit", "bool", "const", "control", "default", "else",
    "enum", "error", "exit", "extern", "false", "header", "header_union", "if", "in",
    "inout", "int", "match_kind", "out", "package", "parser", "return", "select",
    "state", "string", "struct", "switch", "table", "transition", "true", "tuple",
    "typedef", "type", "varbit", "void", "value_set", "list", "this", "for",
}

# Longest operators first.
OPERATORS = [
    "&&&", "|+|", "|-|", "...", "+:", "<<", "&&", "||", "==", "!=", "<=", ">=", "++", "..",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "{", "}", "(", ")", "[", "]", "<", ">", ";", ":", ",", ".", "=", "+", "-", "*",
    "/", "%", "!", "~", "&", "|", "^", "?", "@",
]

_MASTER = re.compile(
    r"(?P<ws>[ \t\r\f\v]+)"
    r"|(?P<int>\d+[wWsS](?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|[0-9_]+)"
    r"|0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[0-9_]*)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
    r'|(?P<str>"(?:[^"\\\n]|\\.)*")'
    r'|(?P<badstr>"[^\n]*)'
    r"|(?P<op>" + "|".join(re.escape(o) for o in OPERATORS) + r")"
)


@dataclass(slots=True)
class IntLit:
    value: int
    width: int | None
    signed: bool


@dataclass(slots=True)
class Token:
    kind: str          # 'id', 'num', 'str', 'eof', or the keyword/operator text
    text: str
    span: Span
    value: object = None
    end_col: int = 0   # column just after the token

    def __repr__(self) -> str:
        return f"{self.span}\t{self.kind}\t{self.text!r}"


def parse_int(text: str) -> IntLit:
    width = None
    signed = False
    m = re.match(r"(\d+)([wWsS])(.*)$", text)
    if m:
        width = int(m.group(1))
        signed = m.group(2) in "sS"
        text = m.group(3)
    t = text.replace("_", "")
    if len(t) > 1 and t[0] == "0" and t[1] in "xXbBoOdD":
        base = {"x": 16, "b": 2, "o": 8, "d": 10}[t[1].lower()]
        value = int(t[2:], base)
    else:
        value = int(t, 10)
    return IntLit(value, width, signed)


_STRING_REST = re.compile(r'(?:[^"\\\n]|\\.)*"')  # the rest of a string literal up to its closing quote


def lex(lines: list[Line], reporter: Reporter) -> list[Token]:
    """Tokens of the preprocessed lines. A string literal may span lines (P4-16
    allows it, and annotations such as SAI-P4's @entry_restriction rely on it)."""
    toks: list[Token] = []
    append = toks.append
    match = _MASTER.match
    last = Span("<input>", 1, 1)
    i = 0
    resume = 0  # column at which to continue the current line (after a multi-line string)
    while i < len(lines):
        ln = lines[i]
        text = ln.text
        pos = resume
        resume = 0
        n = len(text)
        fname = ln.file
        lineno = ln.line
        while pos < n:
            m = match(text, pos)
            if m is None:
                ch = text[pos]
                reporter.error(Span(fname, lineno, pos + 1), f"unexpected character {ch!r}")
                if len(reporter.diagnostics) >= reporter.limit:
                    return toks
                pos += 1
                continue
            kind = m.lastgroup
            s = m.group()
            end = m.end()
            if kind == "ws":
                pos = end
                continue
            span = Span(fname, lineno, pos + 1)
            if kind == "id":
                append(Token(s if s in KEYWORDS else ("_" if s == "_" else "id"), s, span, None, end + 1))
            elif kind == "int":
                try:
                    lit = parse_int(s)
                except ValueError:
                    reporter.error(span, f"invalid integer literal '{s}'")
                    lit = IntLit(0, None, False)
                append(Token("num", s, span, lit, end + 1))
            elif kind == "badstr":
                closed = _string_across_lines(lines, i, s)
                if closed is None:
                    reporter.error(span, "unterminated string literal")
                else:
                    body, i, resume = closed
                    append(Token("str", body, span, _unescape(body[1:-1]), resume + 1))
                    break
            elif kind == "str":
                append(Token("str", s, span, _unescape(s[1:-1]), end + 1))
            else:
                if s == '"':
                    reporter.error(span, "unterminated string literal")
                append(Token(s, s, span, None, end + 1))
            pos = end
        else:
            last = Span(fname, lineno, n + 1)
            i += 1
    toks.append(Token("eof", "", last, None, last.col))
    return toks


def _string_across_lines(lines: list[Line], i: int, head: str) -> tuple[str, int, int] | None:
    """A string literal opened by `head` (the rest of line i) and closed on a later
    line: (its text with the newlines kept, the closing line's index, the column after
    the closing quote), or None when no later line closes it."""
    parts = [head]
    for j in range(i + 1, len(lines)):
        prev, ln = lines[j - 1], lines[j]
        if ln.file == prev.file and ln.line > prev.line + 1:
            parts.extend([""] * (ln.line - prev.line - 1))  # lines the preprocessor removed stay empty, as with cpp
        m = _STRING_REST.match(ln.text)
        if m:
            parts.append(m.group())
            return "\n".join(parts), j, m.end()
        parts.append(ln.text)
    return None


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}.get(m.group(1), m.group(1)), s)
