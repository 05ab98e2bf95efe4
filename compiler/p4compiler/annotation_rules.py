"""Rules p4c's front end applies to what is inside annotations.

The parser keeps an annotation's body as tokens; p4c parses the bodies of some annotations
as expressions and type-checks them, so a wrong body is an error there:
- a structured annotation `@a[e, ...]` / `@a[k=e, ...]` holds compile-time constants of type
  int, string or bool (TypeInference);
- `@match(e)` on a struct field names a match_kind (ValidateMatchAnnotations);
- `@pkginfo` needs `key=value` pairs (ParseAnnotations: a syntax error otherwise).
Names are resolved in the top scope: an annotation whose names are not all found there
(a constant local to a control) is left alone rather than refused.
"""
from __future__ import annotations

from . import ast as A
from .check_types import Unknown
from .diag import Reporter
from .lexer import Token
from .parser import Parser, ParseError
from .types import BOOL, MATCH_KIND, STRING, IntT


def check_annotation_bodies(ck, node, field_of_struct: bool = False) -> None:
    """Walk the declarations under `node` (not expressions) and check each annotation."""
    for a in getattr(node, "annotations", None) or []:
        if isinstance(a, A.Annotation):
            _check(ck, a, field_of_struct)
    inner_fields = isinstance(node, A.StructDecl)
    for f in getattr(node, "__dataclass_fields__", ()):
        if f in ("span", "annotations"):
            continue
        v = getattr(node, f)
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, A.Node) and not isinstance(x, (A.Expr, A.Annotation)):
                check_annotation_bodies(ck, x, inner_fields and isinstance(x, A.FieldDecl))


def _check(ck, a: A.Annotation, field_of_struct: bool) -> None:
    if a.name == "pkginfo" and not a.structured and not a.tokens:
        ck.err(a, "syntax error: @pkginfo needs key=value pairs")
        return
    if a.structured:
        items = _parse(a)
        if items is None:
            return
        exprs = [e for _, e in items]
        if not _typed(ck, exprs):
            return
        for e in exprs:
            t = e.type
            if isinstance(t, Unknown):
                continue
            if not (isinstance(t, IntT) or t in (STRING, BOOL)):
                ck.err(e, f"@{a.name}: illegal type {t} for a structured annotation value (must be int, "
                          f"string or bool)")
            elif not _constant(ck, e):
                ck.err(e, f"@{a.name}: structured annotation values must be compile-time constants")
    elif a.name == "match" and field_of_struct:
        items = _parse(a)
        if items is None or len(items) != 1 or items[0][0] is not None:
            ck.err(a, "@match must have exactly one argument")
            return
        e = items[0][1]
        if _typed(ck, [e]) and not isinstance(e.type, Unknown) and e.type != MATCH_KIND:
            ck.err(e, f"@match value must be a match_kind, not {e.type}")


def _constant(ck, e) -> bool:
    if ck.exprs.const_value(e) is not None or isinstance(e, A.StringLiteral):
        return True
    sym = getattr(e, "sym", None) if isinstance(e, A.Name) else None
    return sym is not None and sym.kind == "const" and e.type == STRING


def _parse(a: A.Annotation) -> list | None:
    """The body as [(key or None, expression)], or None when it is not an expression list."""
    if not a.tokens:
        return []
    last = a.tokens[-1]
    eof = Token("eof", "", last.span)
    p = Parser(list(a.tokens) + [eof], Reporter())
    items = []
    try:
        while not p.at("eof"):
            key = None
            if p.tok.kind == "id" and p.peek().kind == "=":
                key = p.next().text
                p.next()
            items.append((key, p.expression()))
            if not p.accept(","):
                break
    except ParseError:
        return None
    if not p.at("eof") or p.rep.failed or len({k is None for k, _ in items}) > 1:
        return None
    return items


def _typed(ck, exprs: list) -> bool:
    """Type the expressions in the top scope; False (nothing reported) when a name is not
    found there, otherwise the expression checker's own errors are reported."""
    saved, scratch = ck.rep, Reporter()
    ck.rep = scratch
    try:
        for e in exprs:
            ck.exprs.expr(e, ck.top)
    finally:
        ck.rep = saved
    if any("undeclared" in d.message or "not found" in d.message for d in scratch.diagnostics):
        return False
    for d in scratch.diagnostics:
        saved.error(d.span, d.message)
    return not scratch.diagnostics
