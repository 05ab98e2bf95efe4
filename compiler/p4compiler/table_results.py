"""Front-end pass: `t.apply().hit` / `.miss` used as a value becomes a bool temporary.

BMv2 learns whether a table hit only by branching on it (`__HIT__`/`__MISS__`
next tables), so an apply whose result is stored, passed or combined
(`x = t.apply().hit;`, `f(t.apply().miss)`, `b = t.apply().hit && c;`) is split,
as p4c does, into

    bool t_hit_N;
    if (t.apply().hit) { t_hit_N = true; } else { t_hit_N = false; }
    x = t_hit_N;

placed just before the statement. An `if` whose whole condition is the apply
result is left alone (lowering branches on it directly), as are the `&&`, `||`
and `!` combinations lowering already turns into a decision graph.
Runs on the parsed AST before the checker; `.hit`/`.miss` after `.apply()` can
only be a table's, so no types are needed.
"""
from __future__ import annotations

from . import ast as A


def hoist_table_results(program: A.Program) -> None:
    """Rewrite every control of `program` in place."""
    for d in program.decls:
        if isinstance(d, A.ControlDecl):
            _Hoister(_declared_names(d)).block(d.body)


def _is_result(e) -> bool:
    return (isinstance(e, A.Member) and e.name in ("hit", "miss") and isinstance(e.expr, A.Call)
            and isinstance(e.expr.func, A.Member) and e.expr.func.name == "apply" and not e.expr.args)


def _branchable(cond) -> bool:
    """A condition lowering can branch on as it is."""
    if _is_result(cond):
        return True
    if isinstance(cond, A.Unary) and cond.op == "!":
        return _branchable(cond.expr)
    if isinstance(cond, A.Binary) and cond.op in ("&&", "||"):
        return _branchable(cond.left) and _branchable(cond.right) or not _contains(cond)
    return not _contains(cond)


def _contains(e) -> bool:
    if _is_result(e):
        return True
    return any(_contains(c) for c in e.children() if isinstance(c, A.Expr) or isinstance(c, A.Argument))


class _Hoister:
    def __init__(self, taken: set):
        self.taken = taken

    def block(self, b: A.Block) -> None:
        out = []
        for st in b.stmts:
            out.extend(self.stmt(st))
        b.stmts = out

    def stmt(self, st) -> list:
        """The statement, preceded by the temporaries its expressions need."""
        if isinstance(st, A.Block):
            self.block(st)
            return [st]
        if isinstance(st, A.If):
            st.then = self.nested(st.then)
            if st.other is not None:
                st.other = self.nested(st.other)
            if _branchable(st.cond):
                return [st]
            pre: list = []
            st.cond = self.expr(st.cond, pre)
            return pre + [st]
        if isinstance(st, A.Switch):
            for case in st.cases:
                if case.body is not None:
                    self.block(case.body)
            return [st]
        pre = []
        if isinstance(st, A.Assign):
            st.rhs = self.expr(st.rhs, pre)
        elif isinstance(st, A.VarDecl) and st.init is not None:
            st.init = self.expr(st.init, pre)
        elif isinstance(st, A.CallStmt):
            for a in st.call.args:
                a.expr = self.expr(a.expr, pre)
        elif isinstance(st, A.Return) and st.value is not None:
            st.value = self.expr(st.value, pre)
        return pre + [st]

    def nested(self, st):
        stmts = self.stmt(st)
        return stmts[0] if len(stmts) == 1 else A.Block(st.span, stmts)

    def expr(self, e, pre: list):
        """`e` with every table result in it replaced by a temporary declared in `pre`."""
        if _is_result(e):
            table = e.expr.func.expr
            base = getattr(table, "name", "table")
            tmp = A.fresh_name(f"{base}_{e.name}", self.taken)
            sp = e.span
            pre.append(A.VarDecl(sp, tmp, [], A.BaseType(sp, "bool")))
            pre.append(A.If(sp, e, A.Assign(sp, A.Name(sp, tmp), A.BoolLiteral(sp, True)),
                            A.Assign(sp, A.Name(sp, tmp), A.BoolLiteral(sp, False))))
            return A.Name(sp, tmp)
        for f in e.__dataclass_fields__:
            v = getattr(e, f)
            if isinstance(v, A.Expr):
                setattr(e, f, self.expr(v, pre))
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    if isinstance(x, A.Expr):
                        v[i] = self.expr(x, pre)
                    elif isinstance(x, A.Argument):
                        x.expr = self.expr(x.expr, pre)
        return e


def _declared_names(d) -> set:
    names = {p.name for p in d.params + d.ctor_params}

    def walk(node):
        if isinstance(node, A.Decl):
            names.add(node.name)
        for c in node.children():
            walk(c)
    walk(d)
    return names

