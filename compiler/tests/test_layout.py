"""The compiler's house rules (issue 15 Must 8), pinned so they do not regress:

- lowering is one shared context (`Lowerer`) holding one collaborator per concern; no class of
  a lowering module inherits from another lowering class (no mixins), and every cross-concern
  call `self.lw.<part>.<method>` names a part the context declares and a method that part has;
- every attribute of the context and of a collaborator is declared in its `__init__`;
- no function-level imports and no getattr/hasattr on the lowering's own objects;
- the checker's output is declared: after checking, AST nodes carry no attribute that is not
  a dataclass field, and what a call resolves to is a `CallTarget`, not a tuple.
"""
import ast
import dataclasses
import functools
import glob
import os

import pytest

from conftest import HERE, program
from p4compiler import ast as A
from p4compiler import driver
from p4compiler.check_types import CallTarget

PKG = os.path.join(os.path.dirname(HERE), "p4compiler")
LOWERING = sorted(glob.glob(os.path.join(PKG, "lower*.py"))) + [os.path.join(PKG, f) for f in ("context.py", "storage.py")]


def parsed(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


@functools.cache
def classes():
    """Every class of the lowering modules: name -> (file, ClassDef)."""
    out = {}
    for path in LOWERING:
        for n in parsed(path).body:
            if isinstance(n, ast.ClassDef):
                out[n.name] = (os.path.basename(path), n)
    return out


def methods(c: ast.ClassDef) -> set[str]:
    return {n.name for n in c.body if isinstance(n, ast.FunctionDef)}


def init_fields(c: ast.ClassDef) -> dict[str, ast.expr]:
    """Attributes assigned in __init__ (`self.x = value` or `self.x: T = value`): name -> value."""
    init = next((n for n in c.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    out = {}
    for st in ast.walk(init) if init is not None else []:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                out[t.attr] = st.value
    return out


@functools.cache
def parts() -> dict[str, str]:
    """The collaborators the context declares: attribute -> class name (`self.exprs = ExprLowerer(self)`)."""
    _, lowerer = classes()["Lowerer"]
    return {k: v.func.id for k, v in init_fields(lowerer).items()
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id.endswith("Lowerer")}


def test_lowering_has_one_collaborator_per_concern():
    assert set(parts()) == {"storage", "exprs", "stmts", "calls", "controls", "parsers", "externs"}
    files = {classes()[c][0] for c in parts().values()}
    assert len(files) == len(parts()), "one file per concern"


def test_no_lowering_class_inherits_from_another():
    """The context and the collaborators are plain classes (a Visitor at most, for named-pass
    dispatch); no class of a lower*.py module derives from a class of the lowering."""
    cls = classes()
    for cname in ["Lowerer", *parts().values()]:
        path, c = cls[cname]
        bases = [ast.unparse(b) for b in c.bases]
        assert set(bases) <= {"Visitor"}, f"{path}: class {cname}({', '.join(bases)})"
    for name, (path, c) in cls.items():
        if path.startswith("lower"):
            for b in c.bases:
                assert ast.unparse(b) not in cls or ast.unparse(b) == "Exception", f"{path}: class {name}({ast.unparse(b)})"


def test_cross_concern_calls_resolve():
    """`self.lw.<part>.<name>` names a declared part and one of its methods; `self.lw.<name>` a
    field of the context; `self.<name>` in a collaborator one of its own methods or fields."""
    cls = classes()
    _, lowerer = cls["Lowerer"]
    ctx_fields = set(init_fields(lowerer)) | methods(lowerer)
    checked = 0
    for cname in parts().values():
        path, c = cls[cname]
        own = methods(c) | set(init_fields(c)) | {"dispatch"}
        parents = {child: node for node in ast.walk(c) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(c):
            if not isinstance(node, ast.Attribute) or isinstance(parents.get(node), ast.Attribute):
                continue
            chain, v = [], node
            while isinstance(v, ast.Attribute):
                chain.insert(0, v.attr)
                v = v.value
            if not (isinstance(v, ast.Name) and v.id == "self"):
                continue
            where = f"{path}:{node.lineno}: self.{'.'.join(chain)}"
            checked += 1
            if chain[0] != "lw":
                assert chain[0] in own, where
            elif len(chain) >= 2:
                assert chain[1] in ctx_fields, where
                if chain[1] in parts() and len(chain) >= 3:
                    assert chain[2] in methods(cls[parts()[chain[1]]][1]), where
    assert checked > 300


def test_attributes_declared_in_init():
    """No collaborator or context object grows attributes outside __init__."""
    for name, (path, c) in classes().items():
        declared = set(init_fields(c))
        for fn in c.body:
            if not isinstance(fn, ast.FunctionDef) or fn.name == "__init__":
                continue
            for st in ast.walk(fn):
                targets = st.targets if isinstance(st, ast.Assign) else \
                    [st.target] if isinstance(st, (ast.AnnAssign, ast.AugAssign)) else []
                for t in targets:
                    for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        if isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name) and el.value.id == "self":
                            assert el.attr in declared or dataclasses_field(c, el.attr), \
                                f"{path}:{st.lineno}: {name}.{el.attr} set outside __init__"


def dataclasses_field(c: ast.ClassDef, name: str) -> bool:
    return any(isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name for n in c.body)


def test_no_function_level_imports_or_getattr_fallbacks_in_lowering():
    for path in LOWERING:
        tree = parsed(path)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.Lambda)):
                continue
            for n in ast.walk(fn):
                assert not isinstance(n, (ast.Import, ast.ImportFrom)), \
                    f"{os.path.basename(path)}:{n.lineno}: import inside a function"
        for n in ast.walk(tree):
            # a fallback: getattr with a default, or hasattr, on the lowering's own objects
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                    (n.func.id == "getattr" and len(n.args) == 3 or n.func.id == "hasattr"):
                subject = ast.unparse(n.args[0])
                assert not (subject in ("self", "ctx") or subject.startswith(("self.lw", "ctx."))), \
                    f"{os.path.basename(path)}:{n.lineno}: {n.func.id}({subject}, ...) on lowering state"


def _program():
    return program(meta="bit<8> a; bit<8> b;", top="bit<8> twice(in bit<8> x) { return x + x; }",
                   ingress_locals="""
    counter(32w4, CounterType.packets) cnt;
    action swap(inout bit<8> x, inout bit<8> y) { bit<8> t = x; x = y; y = t; }
    action set_a(bit<8> v) { meta.a = v; cnt.count(0); }
    table t { key = { hdr.eth.dst: exact; } actions = { set_a; NoAction; } default_action = NoAction(); }""",
                   ingress_apply="swap(meta.a, meta.b); meta.a = twice(meta.b); if (t.apply().hit) { meta.b = 1; }")


@pytest.fixture(scope="module")
def checked_and_lowered():
    """Compile one program, keeping the checker's result and the lowering context."""
    seen = {}
    real_lower = driver.lower

    def spy(ck, *args, **kw):
        seen["ck"] = ck
        seen["lw"] = real_lower(ck, *args, **kw)
        return seen["lw"]
    driver.lower = spy
    try:
        driver.compile_text(_program())
    finally:
        driver.lower = real_lower
    return seen["ck"], seen["lw"]


def test_checker_output_is_declared_on_the_ast(checked_and_lowered):
    ck, _ = checked_and_lowered
    seen = set()
    calls = 0

    def walk(n):
        nonlocal calls
        if id(n) in seen:
            return
        seen.add(id(n))
        names = {f.name for f in dataclasses.fields(n)}
        extra = set(vars(n)) - names
        assert not extra, f"{type(n).__name__} carries undeclared {sorted(extra)}"
        if isinstance(n, A.Call):
            calls += 1
            assert n.target is None or isinstance(n.target, CallTarget)
        # what the checker attaches (types, symbols, call targets) is declared too
        for attached in (getattr(n, "type", None), getattr(n, "sym", None), getattr(n, "target", None)):
            if dataclasses.is_dataclass(attached):
                extra = set(vars(attached)) - {f.name for f in dataclasses.fields(attached)}
                assert not extra, f"{type(attached).__name__} carries undeclared {sorted(extra)}"
        for f in dataclasses.fields(n):
            v = getattr(n, f.name)
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, A.Node):
                    walk(x)
    walk(ck.program)
    assert calls > 5


def test_checker_fields_are_declared_with_defaults():
    """The fields the checker fills in exist on every node of their class before checking."""
    for cls, name in ((A.Expr, "type"), (A.Expr, "folded"), (A.Name, "sym"), (A.Call, "target"),
                      (A.Param, "resolved_type"), (A.Instantiation, "resolved_type"), (A.TypeRef, "resolved"),
                      (A.ActionRef, "sym")):
        f = {f.name: f for f in dataclasses.fields(cls)}.get(name)
        assert f is not None and not f.init, f"{cls.__name__}.{name} is not a declared checker field"


def test_lowering_objects_have_only_declared_attributes(checked_and_lowered):
    _, lw = checked_and_lowered
    declared = set(init_fields(classes()["Lowerer"][1]))
    assert set(vars(lw)) == declared
    for part, cname in parts().items():
        obj = getattr(lw, part)
        assert type(obj).__name__ == cname
        assert set(vars(obj)) == set(init_fields(classes()[cname][1]))


def test_long_public_functions_say_what_they_do():
    """Every public function of more than 30 lines in the compiler has a docstring."""
    missing = []
    for path in sorted(glob.glob(os.path.join(PKG, "*.py"))):
        def walk(node, private=False):
            for c in ast.iter_child_nodes(node):
                if isinstance(c, ast.ClassDef):
                    walk(c, private or c.name.startswith("_"))
                elif isinstance(c, ast.FunctionDef):
                    if not (private or c.name.startswith("_")) and c.end_lineno - c.lineno + 1 > 30 \
                            and ast.get_docstring(c) is None:
                        missing.append(f"{os.path.basename(path)}:{c.lineno}: {c.name}")
        walk(parsed(path))
    assert missing == []


def test_checker_is_two_collaborators_not_a_mixin():
    """Checker (declarations, statements) holds its expression part ExprChecker as `exprs`; the
    expression part reaches back through `ck`. Both derive from Visitor only, and every
    `self.exprs.<name>` / `self.ck.<name>` names a method or declared field of the other."""
    def cls_of(fname, name):
        return next(n for n in parsed(os.path.join(PKG, fname)).body if isinstance(n, ast.ClassDef) and n.name == name)
    checker, exprs = cls_of("check.py", "Checker"), cls_of("check_expr.py", "ExprChecker")
    for c in (checker, exprs):
        assert [ast.unparse(b) for b in c.bases] == ["Visitor"], c.name
    assert ast.unparse(init_fields(checker)["exprs"]) == "ExprChecker(self)"
    c_names = methods(checker) | set(init_fields(checker))
    e_names = methods(exprs) | set(init_fields(exprs))
    for c, own, other_attr, other in ((checker, c_names, "exprs", e_names), (exprs, e_names, "ck", c_names)):
        parents = {child: node for node in ast.walk(c) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(c):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
                continue
            where = f"{c.name}:{node.lineno}: self.{node.attr}"
            assert node.attr in own | {"visit"}, where
            up = parents.get(node)
            if node.attr == other_attr and isinstance(up, ast.Attribute):
                assert up.attr in other, f"{where}.{up.attr}"
