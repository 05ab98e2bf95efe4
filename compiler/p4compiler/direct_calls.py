"""Front-end pass: a parser or control type applied directly (`C.apply(...)`)
becomes an instance of its own, declared among the caller's locals.

The specification lets a parser or control without constructor parameters be
applied as if it were an instance; each such call stands for a fresh instance.
Like p4c, the instance is named `<type>_inst` (made unique) and carries
`@name("<type>")`, so control-plane names read `caller.<type>.<table>`.
Runs on the parsed AST, before the checker, which then sees ordinary instances.
"""
from __future__ import annotations

from . import ast as A


def instantiate_direct_calls(program: A.Program) -> None:
    """Rewrite every direct application in `program` in place."""
    blocks = {d.name: d for d in program.decls
              if isinstance(d, (A.ControlDecl, A.ParserDecl)) and not d.type_params and not d.ctor_params}
    for caller in program.decls:
        if isinstance(caller, (A.ControlDecl, A.ParserDecl)):
            _rewrite_block(caller, blocks)


def _rewrite_block(caller, blocks: dict) -> None:
    taken = _local_names(caller)
    new_instances = []
    for call in _direct_calls(caller, blocks, taken):
        type_name = call.func.expr.name
        name = A.fresh_name(f"{type_name}_inst", taken)
        span = call.span
        new_instances.append(A.Instantiation(
            span, name, [A.Annotation(span, "name", [A.StrArg(type_name)])],
            A.NamedType(span, type_name), []))
        call.func.expr = A.Name(call.func.expr.span, name)
    caller.locals[:0] = new_instances


def _direct_calls(caller, blocks: dict, shadowed: set) -> list:
    """Calls `T.apply(...)` in the caller where T names a parser/control type that no
    local name (parameter, instance, variable) hides."""
    found = []

    def walk(node):
        if isinstance(node, A.Call):
            f = node.func
            if (isinstance(f, A.Member) and f.name == "apply" and isinstance(f.expr, A.Name)
                    and not f.expr.top_level and f.expr.name in blocks and f.expr.name not in shadowed):
                found.append(node)
        for child in node.children():
            walk(child)

    for part in _body_parts(caller):
        walk(part)
    return found


def _body_parts(caller) -> list:
    parts = [d for d in caller.locals if not isinstance(d, A.Instantiation)]
    if isinstance(caller, A.ControlDecl):
        parts.append(caller.body)
    else:
        parts.extend(caller.states)
    return parts


def _local_names(caller) -> set:
    """Every name declared in the caller (parameters, locals, variables anywhere)."""
    names = {p.name for p in caller.params + caller.ctor_params}
    names.update(d.name for d in caller.locals)

    def walk(node):
        if isinstance(node, A.Decl):
            names.add(node.name)
        for child in node.children():
            walk(child)

    for part in _body_parts(caller):
        walk(part)
    return names

