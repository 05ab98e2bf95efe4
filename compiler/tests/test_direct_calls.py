"""instantiate_direct_calls: `C.apply(...)` on a control type becomes an instance."""
import conftest
from conftest import program
from p4compiler import ast as A
from p4compiler.direct_calls import instantiate_direct_calls

SUB = "control sub(inout headers_t hdr) { table t { key = { hdr.eth.etherType: exact; } actions = { NoAction; } } apply { t.apply(); } }"


def test_each_direct_call_is_its_own_instance_named_after_the_type():
    src = program(top=SUB, ingress_apply="sub.apply(hdr);", egress_apply="sub.apply(hdr);")
    tables = [t["name"] for p in conftest.compile_src(src).json["pipelines"] for t in p["tables"]]
    assert "I.sub.t" in tables and "E.sub.t" in tables


def test_a_local_name_hides_the_type():
    prog = A.Program(None, [])
    ctl = A.ControlDecl(None, "sub", [], [], [], [], [], A.Block(None, []))
    name = A.Name(None, "sub")
    call = A.Call(None, A.Member(None, name, "apply"), [], [])
    caller = A.ControlDecl(None, "I", [], [], [A.Param(None, "sub", [], "inout", A.NamedType(None, "sub"))],
                           [], [], A.Block(None, [A.CallStmt(None, call)]))
    prog.decls = [ctl, caller]
    instantiate_direct_calls(prog)
    assert caller.locals == [] and call.func.expr is name
