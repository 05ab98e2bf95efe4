"""Midend pass: statements that reach a header-stack element through a run-time index in a
way BMv2 cannot express.

BMv2 reads and writes a field of `s[i]` with a run-time `i` (`stack_field` and
`dereference_header_stack` expressions) and tests `s[i].isValid()`, but its primitives that
change validity or copy a whole header, and every access to a stack of header unions, take
a fixed header instance. Such a statement becomes a chain of `if`s over the constant
indexes, as p4c's midend does (its HSIndexSimplifier):

    s[i].setValid();      =>    bit<W> hsi_index_N = i;
                                if (hsi_index_N == 0) { s[0].setValid(); }
                                else if (hsi_index_N == 1) { s[1].setValid(); } ...

The index is evaluated once, before the statement; an index past the end of the stack
changes nothing (the specification leaves that case undefined). An `if` whose condition
needs a fixed element first computes the condition into a bool the same way. Runs on the checked AST
after `for` unrolling; the driver checks the program again when something changed, so
lowering sees only constant indexes there. In a parser state the chain is split into
states as any `if` there is.
"""
from __future__ import annotations

from dataclasses import fields

from . import ast as A
from .consteval import const_value
from .types import Bits, Composite, Stack, strip_newtype

VALIDITY = ("setValid", "setInvalid")


def concretize_stack_indexes(program: A.Program) -> bool:
    """Rewrite, in place, every statement that needs a constant stack index; True if any."""
    p = _Pass()
    p.walk(program)
    return p.changed


class _Pass:
    def __init__(self):
        self.changed = False
        self.count = 0

    def walk(self, node: A.Node) -> None:
        for f in fields(node):
            if not f.init:
                continue
            v = getattr(node, f.name)
            if isinstance(v, list):
                in_stmts = isinstance(node, (A.Block, A.ParserState)) and f.name == "stmts"
                out = []
                for x in v:
                    if isinstance(x, (A.Assign, A.CallStmt)):
                        out.extend(self.stmt(x))
                    elif isinstance(x, A.If) and _needs_constant(x.cond) is not None:
                        # the condition goes to a bool through the chain, then the if tests it
                        out.extend(self.hoisted_condition(x))
                    elif in_stmts and isinstance(x, A.VarDecl) and x.init is not None \
                            and _needs_constant(x.init) is not None:
                        # `T r = s[i];`: declare r, then assign it through the chain
                        out.append(A.VarDecl(x.span, x.name, x.annotations, x.type_ref))
                        out.extend(self.stmt(A.Assign(x.init.span, A.Name(x.span, x.name), x.init)))
                    else:
                        out.append(x)
                        if isinstance(x, A.Node):
                            self.walk(x)
                v[:] = out
            elif isinstance(v, (A.Assign, A.CallStmt)):
                new = self.stmt(v)
                setattr(node, f.name, new[0] if len(new) == 1 else A.Block(v.span, new))
            elif isinstance(v, A.If) and _needs_constant(v.cond) is not None:
                setattr(node, f.name, A.Block(v.span, self.hoisted_condition(v)))
            elif isinstance(v, A.Node):
                self.walk(v)

    def hoisted_condition(self, st: A.If) -> list:
        sp = st.cond.span
        name = f"hsi_cond_{self.count}"
        self.count += 1
        decl = A.VarDecl(sp, name, [], A.BaseType(sp, "bool"))
        chain = self.stmt(A.Assign(sp, A.Name(sp, name), st.cond))
        rest = A.If(st.span, A.Name(sp, name), st.then, st.other)
        self.walk(rest)
        return [decl, *chain, rest]

    def stmt(self, st: A.Stmt) -> list:
        """The statement itself, or the index temporary and the chain of `if`s replacing it."""
        ix = _needs_constant(st)
        if ix is None:
            return [st]
        stack = strip_newtype(ix.expr.type)
        it = strip_newtype(ix.index.type)
        if not isinstance(it, Bits):
            return [st]          # left for lowering to refuse where it is written
        self.changed = True
        sp = ix.index.span
        name = f"hsi_index_{self.count}"
        self.count += 1
        decl = A.VarDecl(sp, name, [], A.BitType(sp, A.IntLiteral(sp, it.width), it.signed), ix.index)
        chain = None
        for k in reversed(range(stack.size)):
            copy = _clone_replacing(st, ix, k)
            cond = A.Binary(sp, "==", A.Name(sp, name), A.IntLiteral(sp, k, it.width, it.signed))
            # a copy may hold another run-time index (`s[i] = s[j]`): rewrite it in turn
            then = A.Block(st.span, self.stmt(copy))
            chain = A.If(st.span, cond, then, chain)
        return [decl, chain]


def _needs_constant(st: A.Stmt) -> A.Index | None:
    """The first stack index in `st` that is not a compile-time constant and is used in a way
    only a fixed element supports: an element of a stack of header unions, a whole element
    (assigned, copied, passed), or the target of setValid/setInvalid. A field of `s[i]` and
    `s[i].isValid()` stay as they are."""
    found = []

    def visit(n, parent):
        if isinstance(n, A.Index) and isinstance(strip_newtype(n.expr.type), Stack) \
                and not isinstance(const_value(n.index), int):
            elem = _composite(strip_newtype(n.expr.type).elem)
            union = elem is not None and elem.kind == "header_union"
            field_use = isinstance(parent, A.Member) and (parent.name not in VALIDITY)
            if union or not field_use:
                found.append(n)
                return
        if isinstance(n, A.Node):
            for f in fields(n):
                if f.init:
                    v = getattr(n, f.name)
                    for c in (v if isinstance(v, list) else [v]):
                        if isinstance(c, A.Node) and not found:
                            visit(c, n)

    visit(st, None)
    return found[0] if found else None


def _composite(t) -> Composite | None:
    t = strip_newtype(t)
    t = getattr(t, "target", t)      # a named type
    return t if isinstance(t, Composite) else None


def _clone_replacing(n, ix: A.Index, k: int):
    """A copy of `n` in which the index node `ix` reads the constant `k`; the checker's
    results are kept (the program is checked again)."""
    if isinstance(n, list):
        return [_clone_replacing(x, ix, k) for x in n]
    if not isinstance(n, A.Node):
        return n
    if n is ix:
        return A.Index(n.span, _clone_replacing(n.expr, ix, k), A.IntLiteral(n.index.span, k))
    c = type(n)(**{f.name: _clone_replacing(getattr(n, f.name), ix, k) for f in fields(n) if f.init})
    for f in fields(n):
        if not f.init:
            setattr(c, f.name, getattr(n, f.name))
    return c
