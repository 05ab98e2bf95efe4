"""Midend pass: unroll `for` loops (P4-16 1.2.4), which BMv2's JSON cannot express.

Runs on the checked AST, between the checker and lowering; the driver checks the program
again afterwards, so lowering sees only ordinary statements. A loop is unrolled when its
iterations are known at compile time:

- `for (init; cond; update)`: the loop's index variables (declared or assigned in `init`
  with constant values, updated only in `update`) are simulated with the constant folder;
  `cond` must then be constant at every step. Each iteration is a copy of the body (then
  the updates of other variables) in which the indexes read as constants, so
  `h.stack[i]` becomes a constant index.
- `for (T x in a .. b)` (both ends included, constant), `for (T x in stack)` and
  `for (T x in {e1, e2})` (or a typed list, `(list<T>){e1, e2}`): one copy of the body per
  element; `x` reads as the constant of a range, and is assigned the element of a stack or
  list before each copy.

`break` and `continue` become boolean flags (as p4c's midend does): the statements after
one run only while both flags are false, and the iterations after a `break` only while
the break flag is. Anything else is refused where the loop is written.
"""
from __future__ import annotations

from dataclasses import fields

from . import ast as A
from .consteval import const_value
from .diag import Reporter
from .types import BOOL, Bits, IntT, Stack, strip_newtype

MAX_ITERATIONS = 1024   # p4c gives up after 1000
MAX_COPIES = 16384      # bodies copied in the whole program (nested loops multiply)


class Unroller:
    def __init__(self, rep: Reporter):
        self.rep = rep
        self.flags = 0
        self.found = False
        self.copies = 0
        self.exhausted = False

    # ---------------------------------------------------------------- walking
    def walk(self, node: A.Node) -> None:
        """Unroll, in place, every loop below `node` (outer loops first, so that an inner
        loop's bounds may use the outer loop's index)."""
        for f in fields(node):
            if not f.init:
                continue
            v = getattr(node, f.name)
            if isinstance(v, (A.For, A.ForIn)):
                setattr(node, f.name, self.loop(v))
            elif isinstance(v, A.Node):
                self.walk(v)
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    if isinstance(x, (A.For, A.ForIn)):
                        v[i] = self.loop(x)
                    elif isinstance(x, A.Node):
                        self.walk(x)

    def loop(self, st: A.For | A.ForIn) -> A.Stmt:
        self.found = True
        if self.exhausted:
            return A.Empty(st.span)
        try:
            out = self.for_stmt(st) if isinstance(st, A.For) else self.for_in(st)
        except _Refused as r:
            self.rep.error(r.node.span, f"unsupported: {r.why}")
            return A.Empty(st.span)
        if self.copies > MAX_COPIES:
            self.rep.error(st.span, f"unsupported: unrolling 'for' loops into more than {MAX_COPIES} "
                                    "copies of their bodies (nested loops multiply)")
            self.exhausted = True
            return A.Empty(st.span)
        self.walk(out)      # loops inside, their bounds now constant where they used this index
        return out

    # ---------------------------------------------------------------- for (;;)
    def for_stmt(self, st: A.For) -> A.Stmt:
        """Unroll `for (init; cond; update) body`: the variables initialised to constants and not
        assigned in the body are the loop's indexes; the condition and updates are evaluated at
        compile time to list each iteration's index values, and the body is copied once per
        iteration with the indexes as literals. Raises _Refused when the bounds are not known
        at compile time or the iterations exceed MAX_ITERATIONS."""
        written = _assigned(st.body)
        env: dict = {}
        out: list[A.Stmt] = []
        indexes = set()
        for s in st.init:
            sym = _target(s)
            v = const_value(_value(s), env) if sym is not None and _value(s) is not None else None
            if v is not None and sym in written and st.cond is not None and _reads(st.cond, sym):
                raise _Refused(s, f"'for' loop whose variable '{sym.name}' is assigned in its body "
                                  "(only loops with compile-time bounds are unrolled)")
            if v is not None and sym not in written:
                indexes.add(sym)
                env[sym] = v
            else:
                out.append(s)
        body, brk, cont = self.flagged(st.body, out, st.span)
        steps: list[dict] = []
        while True:
            if st.cond is not None:
                c = const_value(st.cond, env)
                if not isinstance(c, bool):
                    raise _Refused(st.cond, "'for' loop whose condition is not known at compile time "
                                            "(only loops with compile-time bounds are unrolled)")
                if not c:
                    break
            else:
                raise _Refused(st, "'for' loop without a condition (only loops with compile-time bounds are unrolled)")
            steps.append(dict(env))
            if len(steps) > MAX_ITERATIONS:
                raise _Refused(st, f"'for' loop of more than {MAX_ITERATIONS} iterations")
            for u in st.update:
                sym = _target(u)
                if sym in indexes:
                    env[sym] = self.constant(_value(u), env, u, sym)
        updates = [u for u in st.update if _target(u) not in indexes]
        # an index declared outside the loop keeps, after it, the value it had when a
        # `break` left the loop, or its final value
        outer = [s for s in st.init if isinstance(s, A.Assign) and _target(s) in indexes]
        iterations = []
        for e in steps:
            stmts = [A.Assign(s.span, s.lhs, _literal(s.lhs, e[_target(s)])) for s in outer]
            stmts.append(_clone(body, e))
            ups = [_clone(u, e) for u in updates]
            if ups and brk:     # a `break` skips the updates too
                ups = [A.If(st.span, A.Unary(st.span, "!", A.Name(st.span, brk)), A.Block(st.span, ups))]
            iterations.append(stmts + ups)
        after = [A.Assign(s.span, s.lhs, _literal(s.lhs, env[_target(s)])) for s in outer]
        return self.chain(out, iterations, brk, cont, st.span, after)

    def constant(self, e: A.Expr | None, env: dict, where: A.Node, sym) -> int | bool:
        v = const_value(e, env) if e is not None else None
        if v is None:
            raise _Refused(where, f"'for' loop whose variable '{sym.name}' is not given a compile-time value "
                                  "(only loops with compile-time bounds are unrolled)")
        return v

    # ---------------------------------------------------------------- for (x in)
    def for_in(self, st: A.ForIn) -> A.Stmt:
        """Unroll `for (T x in c) body` over a constant range `a .. b`, a list or a header stack:
        one copy of the body per element, with `x` a literal when the element is a constant and
        otherwise a variable assigned the element before each copy."""
        env: dict = {}
        out: list[A.Stmt] = []
        body, brk, cont = self.flagged(st.body, out, st.span)
        sym = st.var.symbol
        c = st.collection
        if isinstance(c, A.Cast) and isinstance(c.expr, A.ListExpr):
            c = c.expr      # `(list<T>){...}`: the checker gave the elements their type T
        iterations = []
        if isinstance(c, A.Range):
            lo, hi = const_value(c.lo, env), const_value(c.hi, env)
            if not isinstance(lo, int) or not isinstance(hi, int) or isinstance(lo, bool):
                raise _Refused(c, "'for' range whose bounds are not known at compile time")
            if hi - lo + 1 > MAX_ITERATIONS:
                raise _Refused(c, f"'for' loop of more than {MAX_ITERATIONS} iterations")
            if sym is not None and sym in _assigned(st.body):
                raise _Refused(st.var, f"loop variable '{st.var.name}' assigned in the body of a 'for' range")
            iterations = [[_clone(body, {**env, sym: v} if sym is not None else env)] for v in range(lo, hi + 1)]
        elif isinstance(c, A.ListExpr) and sym is not None and sym not in _assigned(st.body) \
                and all(const_value(x, env) is not None for x in c.items):
            iterations = [[_clone(body, {**env, sym: const_value(x, env)})] for x in c.items]
        else:
            if isinstance(c, A.ListExpr):
                items = c.items
            else:
                st_t = strip_newtype(c.type)
                if not isinstance(st_t, Stack):
                    raise _Refused(c, "'for' over this collection")
                items = [A.Index(c.span, c, A.IntLiteral(c.span, k)) for k in range(st_t.size)]
            out.append(A.VarDecl(st.var.span, st.var.name, [], st.var.type_ref))
            iterations = [[A.Assign(st.var.span, A.Name(st.var.span, st.var.name), _clone(item, env)),
                           _clone(body, env)] for item in items]
        return self.chain(out, iterations, brk, cont, st.span)

    # ---------------------------------------------------------------- break/continue
    def flagged(self, body: A.Stmt, decls: list, span) -> tuple[A.Stmt, str | None, str | None]:
        """The body with `break`/`continue` (of this loop) replaced by flag assignments;
        the flags' declarations are appended to `decls`."""
        kinds = _jumps(body)
        self.flags += 1
        brk = f"for_break_{self.flags}" if A.Break in kinds else None
        cont = f"for_continue_{self.flags}" if A.Continue in kinds else None
        for name in (brk, cont):
            if name:
                decls.append(A.VarDecl(span, name, [], A.BaseType(span, "bool"), A.BoolLiteral(span, False)))
        if brk or cont:
            body, _ = _rewrite_jumps(body, brk, cont)
        return body, brk, cont

    def chain(self, out: list, iterations: list[list[A.Stmt]], brk, cont, span, after=()) -> A.Block:
        """The iterations one after the other, then `after`; after a `break`, the later
        ones (and `after`) are skipped."""
        self.copies += len(iterations)
        tail: list[A.Stmt] = out
        for stmts in iterations:
            if cont:
                tail.append(A.Assign(span, A.Name(span, cont), A.BoolLiteral(span, False)))
            tail.append(A.Block(span, stmts))
            if brk:
                rest = A.Block(span, [])
                tail.append(A.If(span, A.Unary(span, "!", A.Name(span, brk)), rest))
                tail = rest.stmts
        tail.extend(after)
        return A.Block(span, out)


class _Refused(Exception):
    def __init__(self, node: A.Node, why: str):
        self.node, self.why = node, why


def unroll_loops(program: A.Program, rep: Reporter) -> bool:
    """Unroll every `for` loop of the checked `program` in place; True if there was one
    (the program must then be checked again)."""
    u = Unroller(rep)
    u.walk(program)
    return u.found


# -------------------------------------------------------------------- helpers
def _target(s: A.Stmt):
    """The symbol a declaration or a plain `name = value` assignment sets (else None)."""
    if isinstance(s, A.VarDecl):
        return s.symbol
    if isinstance(s, A.Assign) and isinstance(s.lhs, A.Name):
        return s.lhs.sym
    return None


def _value(s: A.Stmt):
    return s.init if isinstance(s, A.VarDecl) else s.rhs


def _nodes(n: A.Node):
    yield n
    for c in n.children():
        yield from _nodes(c)


def _reads(e: A.Node, sym) -> bool:
    return any(isinstance(n, A.Name) and n.sym is sym for n in _nodes(e))


def _assigned(body: A.Node) -> set:
    """Symbols assigned anywhere in `body`: as the root of an l-value, or passed to an
    `out`/`inout` parameter of a call."""
    out = set()
    for n in _nodes(body):
        if isinstance(n, A.Assign):
            out.add(_root_symbol(n.lhs))
        elif isinstance(n, A.Call) and n.target is not None:
            params = _params(n.target)
            by_name = {p.name: p for p in params}
            for i, a in enumerate(n.args):
                p = by_name.get(a.name) if a.name else (params[i] if i < len(params) else None)
                if p is not None and p.direction in ("out", "inout"):
                    out.add(_root_symbol(a.expr))
    out.discard(None)
    return out


def _params(target) -> list:
    if target.proto is not None:
        return target.proto.params
    decl = target.decl
    if isinstance(decl, A.FunctionDecl):
        return decl.proto.params
    return getattr(decl, "params", None) or []


def _root_symbol(e: A.Expr):
    while isinstance(e, (A.Member, A.Index, A.Slice)):
        e = e.expr
    return e.sym if isinstance(e, A.Name) else None


def _jumps(body: A.Node) -> set:
    """The kinds of jump (Break, Continue) in `body` that leave this loop (not an inner one)."""
    if isinstance(body, (A.Break, A.Continue)):
        return {type(body)}
    if isinstance(body, (A.For, A.ForIn)):
        return set()
    out = set()
    for c in body.children():
        out |= _jumps(c)
    return out


def _rewrite_jumps(s: A.Stmt, brk, cont) -> tuple[A.Stmt, bool]:
    """`s` with its jumps replaced by flag assignments; True if it may jump."""
    sp = s.span
    if isinstance(s, A.Break):
        return A.Assign(sp, A.Name(sp, brk), A.BoolLiteral(sp, True)), True
    if isinstance(s, A.Continue):
        return A.Assign(sp, A.Name(sp, cont), A.BoolLiteral(sp, True)), True
    if isinstance(s, A.Block):
        out: list[A.Stmt] = []
        tail = out
        jumped = False
        for x in s.stmts:
            y, j = _rewrite_jumps(x, brk, cont)
            tail.append(y)
            if j:
                guard = A.Block(sp, [])
                flags = [A.Name(sp, f) for f in (brk, cont) if f]
                cond = flags[0] if len(flags) == 1 else A.Binary(sp, "||", flags[0], flags[1])
                tail.append(A.If(sp, A.Unary(sp, "!", cond), guard))
                tail = guard.stmts
                jumped = True
        return A.Block(sp, out, s.annotations), jumped
    if isinstance(s, A.If):
        then, j1 = _rewrite_jumps(s.then, brk, cont)
        other, j2 = _rewrite_jumps(s.other, brk, cont) if s.other is not None else (None, False)
        return A.If(sp, s.cond, then, other), j1 or j2
    if isinstance(s, A.Switch):
        jumped = False
        cases = []
        for c in s.cases:
            body, j = _rewrite_jumps(c.body, brk, cont) if c.body is not None else (None, False)
            cases.append(A.SwitchCase(c.span, c.labels, body))
            jumped = jumped or j
        return A.Switch(sp, s.expr, cases), jumped
    return s, False


def _clone(n, env: dict):
    """A copy of the subtree `n` for one iteration: index variables (symbols in `env`) read
    as their constants; the checker's results are kept (the program is checked again)."""
    if isinstance(n, list):
        return [_clone(x, env) for x in n]
    if not isinstance(n, A.Node):
        return n
    if isinstance(n, A.Name) and n.sym is not None and n.sym in env:
        return _literal(n, env[n.sym])
    kwargs = {f.name: _clone(getattr(n, f.name), env) for f in fields(n) if f.init}
    c = type(n)(**kwargs)
    for f in fields(n):
        if not f.init:
            setattr(c, f.name, getattr(n, f.name))
    return c


def _literal(n: A.Name, v) -> A.Expr:
    t = strip_newtype(n.type)
    if isinstance(v, bool) or t == BOOL:
        lit = A.BoolLiteral(n.span, bool(v))
    elif isinstance(t, Bits):
        lit = A.IntLiteral(n.span, v & ((1 << t.width) - 1) if not t.signed else v, t.width, t.signed)
    else:
        lit = A.IntLiteral(n.span, v)
    lit.type = n.type if not isinstance(t, IntT) else t
    return lit
