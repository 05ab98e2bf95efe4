"""Type checking of expressions: names, members, operators and P4's width rules, casts,
calls (with generic type inference), and the coercion of unsized constants and list or
struct initialisers to the type a context expects: the expression part of check.Checker,
which it holds as `exprs` and reaches back through `ck`."""
from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING

from . import ast as A
from .check_types import UNKNOWN, ActionRun, CallTarget, MethodRef, TableResult, TypeName
from .consteval import const_value
from .call_args import arity_ok, order_args
from . import decl_rules as R
from .scope import Scope, Symbol
from .types import (BOOL, DONTCARE, ERROR, INT, MATCH_KIND, STATE, STRING, VOID, Bits, Composite, Enum, IntT, ListT, NewType,
                    ObjectT, P4List, Simple, Stack, StructInitT, Tuple, Type, TypeVar, Varbit, bit_width, same_type,
                    strip_newtype, MAX_INT32, MAX_SHIFT, MAX_WIDTH)
from .visitor import Visitor

if TYPE_CHECKING:
    from .check import Checker


def _enum_value_type(t):
    """A serializable enum read as its value (its underlying type), as p4c reads it in
    arithmetic, slices, shifts and concatenation; any other type unchanged."""
    return t.underlying if isinstance(t, Enum) and t.underlying is not None else t


def _reads_loop_index(e: A.Node) -> bool:
    if isinstance(e, A.Name):
        return e.sym is not None and e.sym.loop_index
    return any(_reads_loop_index(c) for c in e.children())


class ExprChecker(Visitor):
    """Expression typing (named pass `visit_<Expr>`) for the Checker `ck`, whose declarations,
    scopes, type resolution and error reporting it uses."""

    def __init__(self, ck: "Checker"):
        self.ck = ck    # the checker this is the expression part of

    # ------------------------------------------------------------ expressions
    def expr(self, e: A.Expr, scope: Scope, stmt_ctx: bool = False) -> Type:
        try:
            t = self._expr(e, scope, stmt_ctx)
        except RecursionError:
            self.ck.err(e, "expression nested too deeply")
            t = UNKNOWN
        e.type = t
        return t

    def _expr(self, e, scope, stmt_ctx):
        return self.visit(e, scope, stmt_ctx)

    def visit_IntLiteral(self, e, scope, stmt_ctx):
        if e.width is not None:
            if e.width == 0 and e.value != 0 or e.width < 0:
                self.ck.err(e, f"invalid width {e.width}")
                return UNKNOWN
            if e.width == 0 and e.signed:       # bit<0> holds 0, int<0> nothing (p4c)
                self.ck.err(e, "width of a signed constant cannot be zero (int<0>)")
                return UNKNOWN
            if e.width > MAX_WIDTH:
                self.ck.err(e, f"width {e.width} too large (the compiler supports widths up to {MAX_WIDTH}, as p4c)")
                return UNKNOWN
            return Bits(e.width, e.signed)
        return INT

    def shift_amount_ok(self, e, v: int) -> bool:
        """A constant shift amount: it must fit an int (p4c), fold to at most MAX_WIDTH
        bits when the shifted value is constant too, and stay within what BMv2 shifts."""
        if v > MAX_INT32:
            self.ck.err(e.right, f"shift amount {v} too large")
        elif self.const_value(e.left) is not None:
            if v > MAX_WIDTH:
                self.ck.err(e, f"shift by {v} too large (the compiler supports widths up to {MAX_WIDTH}, as p4c)")
            else:
                return True
        elif v > MAX_SHIFT:
            self.ck.err(e, f"unsupported on this target: shift amount {v} (BMv2 shifts by at most {MAX_SHIFT} bits)")
        else:
            return True
        return False

    def visit_BoolLiteral(self, e, scope, stmt_ctx):
        return BOOL

    def visit_StringLiteral(self, e, scope, stmt_ctx):
        return STRING

    def visit_Name(self, e, scope, stmt_ctx):
        return self.name(e, scope)

    def visit_Member(self, e, scope, stmt_ctx):
        return self.member(e, scope)

    def visit_Index(self, e, scope, stmt_ctx):
        bt = self.expr(e.expr, scope)
        it = self.expr(e.index, scope)
        if bt is UNKNOWN:
            return UNKNOWN
        if isinstance(bt, Stack):
            if not (isinstance(strip_newtype(it), (Bits, IntT)) or it is UNKNOWN):
                self.ck.err(e.index, f"stack index must be an integer, not {it}")
            v = self.const_value(e.index)
            if isinstance(v, int) and not isinstance(v, bool) and not 0 <= v < bt.size:
                self.ck.err(e.index, f"index {v} out of bounds for {bt}")
            if isinstance(it, IntT):
                e.index.type = Bits(32)
            return bt.elem
        if isinstance(bt, Tuple):
            v = self.const_value(e.index)
            if not isinstance(v, int) or not 0 <= v < len(bt.elems):
                self.ck.err(e.index, "tuple index must be a constant in range")
                return UNKNOWN
            return bt.elems[v]
        self.ck.err(e, f"cannot index a value of type {bt}")
        return UNKNOWN

    def visit_Slice(self, e, scope, stmt_ctx):
        bt = strip_newtype(self.expr(e.expr, scope))
        bt = _enum_value_type(bt)
        self.expr(e.hi, scope)
        self.expr(e.lo, scope)
        hi, lo = self.const_value(e.hi), self.const_value(e.lo)
        if bt is UNKNOWN:
            return UNKNOWN
        if isinstance(bt, IntT):
            if isinstance(hi, int) and isinstance(lo, int):
                return Bits(hi - lo + 1)
        if not isinstance(bt, Bits):
            self.ck.err(e, f"cannot slice a value of type {bt}")
            return UNKNOWN
        if not isinstance(hi, int) or not isinstance(lo, int):
            if not _reads_loop_index(e.hi) and not _reads_loop_index(e.lo):
                self.ck.err(e, "slice bounds must be compile-time constants")
            return UNKNOWN     # with a loop's variable: checked again once the loop is unrolled
        if not (0 <= lo <= hi < bt.width):
            self.ck.err(e, f"slice [{hi}:{lo}] out of range for {bt}")
            return UNKNOWN
        return Bits(hi - lo + 1)

    def visit_Unary(self, e, scope, stmt_ctx):
        return self.unary(e, scope)

    def visit_Binary(self, e, scope, stmt_ctx):
        return self.binary(e, scope)

    def visit_Ternary(self, e, scope, stmt_ctx):
        ct = self.expr(e.cond, scope)
        if ct not in (BOOL, UNKNOWN):
            self.ck.err(e.cond, f"condition must be bool, not {ct}")
        a = self.expr(e.then, scope)
        b = self.expr(e.other, scope)
        if a is UNKNOWN or b is UNKNOWN:
            return UNKNOWN
        if isinstance(a, IntT) and not isinstance(b, IntT):
            self.coerce(e.then, b, "'?:' branch")
            return b
        if isinstance(b, IntT) and not isinstance(a, IntT):
            self.coerce(e.other, a, "'?:' branch")
            return a
        if isinstance(a, IntT) and isinstance(b, IntT):
            if self.const_value(e.cond) is None or _saturates(e.cond, 0):
                self.ck.err(e, "'?:' with unsized integer branches needs a width (cast one branch)")
            return INT
        if not same_type(a, b):
            self.ck.err(e, f"'?:' branches have different types: {a} and {b}")
            return UNKNOWN
        return a

    def visit_Cast(self, e, scope, stmt_ctx):
        return self.cast(e, scope)

    def visit_Call(self, e, scope, stmt_ctx):
        return self.call(e, scope, stmt_ctx)

    def visit_ListExpr(self, e, scope, stmt_ctx):
        return ListT([self.expr(x, scope) for x in e.items])

    def visit_StructInit(self, e, scope, stmt_ctx):
        return StructInitT(list(e.names), [self.expr(x, scope) for x in e.values])

    def visit_DontCare(self, e, scope, stmt_ctx):
        return DONTCARE

    visit_DefaultExpr = visit_DontCare

    def visit_TypeExpr(self, e, scope, stmt_ctx):
        t = self.ck.resolve_type(e.ref, scope)
        return TypeName(t)

    def visit_Mask(self, e, scope, stmt_ctx):
        self.ck.err(e, "'&&&' and '..' are only allowed in select and table entry keysets")
        return UNKNOWN

    visit_Range = visit_Mask

    def visit_Expr(self, e, scope, stmt_ctx):
        self.ck.err(e, f"unsupported: expression {type(e).__name__}")
        return UNKNOWN


    def name(self, e: A.Name, scope: Scope) -> Type:
        """Type of a name: what it is declared as (a variable's type, a type name, an instance,
        a function's overloads); a hidden control variable, a function calling itself or a
        parser/control naming itself are errors."""
        sym = (scope.root() if e.top_level else scope).lookup(e.name)
        if sym is None:
            local = scope.hidden_local(e.name)
            if local is not None:
                self.ck.err(e, f"'{e.name}' is a variable of the enclosing {type(local.owner).__name__.removesuffix('Decl').lower()}:"
                            " an initializer block's method sees only parameters, constants and instances")
            else:
                self.ck.err(e, f"undeclared name '{e.name}'")
            return UNKNOWN
        e.sym = sym
        k = sym.kind
        if k == "function" and sym.decl is self.ck.declaring:
            self.ck.err(e, f"undeclared name '{e.name}' (a function cannot call itself)")
            return UNKNOWN
        if k in ("parser", "control") and sym.decl is self.ck.declaring:
            self.ck.self_reference(e, sym.decl)
            return UNKNOWN
        if k in ("var", "param", "const", "value_set"):
            return sym.type
        if k == "type":
            return TypeName(sym.type)
        if k == "match_kind":
            return MATCH_KIND
        if k in ("instance", "table", "action", "parser", "control", "extern_type"):
            return sym.type
        if k in ("extern_function", "function"):
            return MethodRef("extern_function" if k == "extern_function" else "function", e.name, None,
                             list(sym.overloads), sym.decl)
        if k == "state":
            return STATE
        return UNKNOWN

    def member(self, e: A.Member, scope: Scope) -> Type:
        """Type of `x.f`: enum and error members, header/struct/union fields, stack properties
        (next, last, size, lastIndex), methods of externs, headers and tables."""
        bt = self.expr(e.expr, scope)
        if bt is UNKNOWN:
            return UNKNOWN
        n = e.name
        if isinstance(bt, TypeName):
            tt = bt.target
            if tt == ERROR:
                if n not in self.ck.errors:
                    self.ck.err(e, f"undeclared error '{n}'")
                    return UNKNOWN
                return ERROR
            if isinstance(tt, Enum):
                if n not in tt.members:
                    self.ck.err(e, f"enum {tt.tname} has no member '{n}'")
                    return UNKNOWN
                return tt
            self.ck.err(e, f"type {tt} has no member '{n}'")
            return UNKNOWN
        sbt = strip_newtype(bt)
        if isinstance(sbt, Composite):
            ft = sbt.field(n)
            if ft is not None:
                return ft
            if sbt.kind in ("header", "header_union") and n in ("isValid", "setValid", "setInvalid"):
                return MethodRef("builtin", n, e.expr, recv_type=sbt)
            if n in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
                return MethodRef("builtin", n, e.expr, recv_type=sbt)
            self.ck.err(e, f"{sbt.kind} {sbt.tname} has no field '{n}'")
            return UNKNOWN
        if isinstance(sbt, Stack):
            if n in ("next", "last", "lastIndex") and not isinstance(scope.owner, A.ParserDecl):
                self.ck.err(e, f"'{n}' of a header stack can only be used in a parser")
                return UNKNOWN
            if n in ("next", "last"):
                return sbt.elem
            if n in ("lastIndex",):
                return Bits(32)
            if n == "size":
                return INT
            if n in ("push_front", "pop_front"):
                return MethodRef("builtin", n, e.expr, recv_type=sbt)
            self.ck.err(e, f"header stack has no member '{n}'")
            return UNKNOWN
        if isinstance(sbt, ObjectT) and sbt.kind == "extern" and sbt.tname in ("packet_in", "packet_out"):
            sbt = Simple(sbt.tname)
        if isinstance(sbt, Simple) and sbt.kind in ("packet_in", "packet_out"):
            ok = {"packet_in": ("extract", "lookahead", "advance", "length"), "packet_out": ("emit",)}[sbt.kind]
            if n not in ok:
                self.ck.err(e, f"{sbt.kind} has no method '{n}'")
                return UNKNOWN
            return MethodRef("builtin", n, e.expr, recv_type=sbt)
        if isinstance(sbt, ObjectT):
            if sbt.kind == "extern":
                if sbt.tname in ("packet_in", "packet_out"):
                    pass
                protos = [m for m in sbt.decl.methods if m.name == n and m.ret is not None]
                if not protos:
                    self.ck.err(e, f"extern {sbt.tname} has no method '{n}'")
                    return UNKNOWN
                return MethodRef("extern_method", n, e.expr, protos, sbt.decl, recv_type=sbt)
            if sbt.kind == "table":
                if n == "apply":
                    return MethodRef("table_apply", n, e.expr, None, sbt.decl)
                self.ck.err(e, f"table {sbt.tname} has no member '{n}'")
                return UNKNOWN
            if sbt.kind in ("parser", "control"):
                if n == "apply":
                    return MethodRef("apply", n, e.expr, None, sbt.decl, recv_type=sbt)
                self.ck.err(e, f"{sbt.kind} {sbt.tname} has no member '{n}'")
                return UNKNOWN
        if isinstance(bt, TableResult):
            if n in ("hit", "miss"):
                return BOOL
            if n == "action_run":
                return ActionRun(bt.table)
            self.ck.err(e, f"table apply result has no member '{n}'")
            return UNKNOWN
        self.ck.err(e, f"a value of type {bt} has no member '{n}'")
        return UNKNOWN

    def unary(self, e: A.Unary, scope: Scope) -> Type:
        t = self.expr(e.expr, scope)
        st = strip_newtype(t)
        if t is UNKNOWN:
            return UNKNOWN
        if isinstance(t, NewType):
            self.ck.err(e, f"'{e.op}' cannot be applied to a value of type {t} (a 'type': cast it to its base)")
            return UNKNOWN
        if _enum_value_type(st) is not st:
            t = st = _enum_value_type(st)
        if e.op == "!":
            if t != BOOL:
                self.ck.err(e, f"'!' needs a bool operand, not {t}")
                return UNKNOWN
            return BOOL
        if e.op == "~":
            if not isinstance(st, Bits):
                self.ck.err(e, f"'~' needs a bit<W> or int<W> operand, not {t}")
                return UNKNOWN
            return t
        if not isinstance(st, (Bits, IntT)):
            self.ck.err(e, f"'{e.op}' needs a numeric operand, not {t}")
            return UNKNOWN
        return t

    def binary(self, e: A.Binary, scope: Scope) -> Type:
        """Type of a binary expression: operands coerced to one another (an int constant takes
        the other side's width), the spec's rules for shifts, concatenation, comparisons and
        boolean operators."""
        op = e.op
        lt = self.expr(e.left, scope)
        rt = self.expr(e.right, scope)
        if lt is UNKNOWN or rt is UNKNOWN:
            return UNKNOWN
        if op in ("&&", "||"):
            for side, t in ((e.left, lt), (e.right, rt)):
                if t != BOOL:
                    self.ck.err(side, f"'{op}' needs bool operands, not {t}")
                    return UNKNOWN
            return BOOL
        if op in ("==", "!="):
            odd = next((t for t in (lt, rt) if isinstance(t, ObjectT) or t == VOID), None)
            if odd is not None:
                what = {"extern": "externs", "table": "tables", "action": "actions"}.get(getattr(odd, "kind", ""), "values of type void")
                self.ck.err(e, f"{what} cannot be compared ('{op}')")
                return BOOL
            if isinstance(lt, NewType) and isinstance(rt, IntT) or isinstance(rt, NewType) and isinstance(lt, IntT):
                self.ck.err(e, f"cannot compare {lt} and {rt} with '{op}' (cast the constant to the 'type')")
            elif isinstance(lt, IntT) and not isinstance(rt, IntT):
                self.coerce(e.left, rt, f"operand of '{op}'")
            elif isinstance(rt, IntT) and not isinstance(lt, IntT):
                self.coerce(e.right, lt, f"operand of '{op}'")
            elif isinstance(lt, StructInitT) and isinstance(rt, StructInitT):
                # p4c: neither side says which struct the fields belong to
                self.ck.err(e, f"cannot compare structure-valued expressions with unknown types ('{op}'): "
                               f"give one side a type")
            elif isinstance(lt, ListT) and isinstance(rt, ListT):
                # p4c compares them element by element (lowering does not yet: it says so)
                if len(lt.elems) != len(rt.elems):
                    self.ck.err(e, f"cannot compare {lt} and {rt} with '{op}'")
            elif isinstance(rt, (ListT, StructInitT)):
                self.coerce(e.right, lt, f"operand of '{op}'")
            elif isinstance(lt, (ListT, StructInitT)):
                self.coerce(e.left, rt, f"operand of '{op}'")
            elif not self.equal_types(lt, rt) or _newtype_mix(lt, rt):
                self.ck.err(e, f"cannot compare {lt} and {rt} with '{op}'")
            return BOOL
        newtype = next((t for t in (lt, rt) if isinstance(t, NewType)), None)
        if newtype is not None:
            self.ck.err(e, f"'{op}' cannot be applied to a value of type {newtype} (a 'type': cast it to its base)")
            return UNKNOWN
        if op == "++":
            slt, srt = (_enum_value_type(strip_newtype(x)) for x in (lt, rt))
            if not isinstance(slt, Bits) or not isinstance(srt, Bits):
                self.ck.err(e, f"'++' needs bit<W>/int<W> operands, not {lt} and {rt}")
                return UNKNOWN
            if slt.width + srt.width > MAX_WIDTH:
                self.ck.err(e, f"'++' result of width {slt.width + srt.width} too large (the compiler supports widths up to {MAX_WIDTH}, as p4c)")
                return UNKNOWN
            return Bits(slt.width + srt.width, slt.signed)
        if op in ("<<", ">>"):
            slt, srt = strip_newtype(lt), strip_newtype(rt)
            if _enum_value_type(slt) is not slt:
                lt = slt = _enum_value_type(slt)
            if not isinstance(slt, (Bits, IntT)):
                self.ck.err(e.left, f"'{op}' needs a numeric left operand, not {lt}")
                return UNKNOWN
            srt = _enum_value_type(srt)     # p4c's sample issue3288
            signed_constant = isinstance(srt, Bits) and srt.signed and isinstance(self.const_value(e.right), int) \
                and self.const_value(e.right) >= 0     # p4c accepts a non-negative constant of a signed type
            if not isinstance(srt, (Bits, IntT)) or (isinstance(srt, Bits) and srt.signed and not signed_constant):
                self.ck.err(e.right, f"shift amount must be unsigned, not {rt}")
                return UNKNOWN
            if isinstance(slt, IntT) and not isinstance(srt, IntT) and self.const_value(e.left) is not None:
                self.ck.err(e, "shifting an unsized constant by a run-time amount needs a width (cast the constant)")
                return UNKNOWN
            if isinstance(srt, IntT):
                v = self.const_value(e.right)
                if isinstance(v, int) and v < 0:
                    self.ck.err(e.right, "shift amount must not be negative")
                elif isinstance(v, int) and not self.shift_amount_ok(e, v):
                    return UNKNOWN
                e.right.type = Bits(32) if not isinstance(slt, IntT) else INT
            return lt
        # arithmetic, bitwise and relational
        slt, srt = strip_newtype(lt), strip_newtype(rt)
        num = (Bits, IntT)
        if isinstance(slt, Enum) and slt.underlying:
            slt = slt.underlying
        if isinstance(srt, Enum) and srt.underlying:
            srt = srt.underlying
        if not isinstance(slt, num) or not isinstance(srt, num):
            bad = lt if not isinstance(slt, num) else rt
            self.ck.err(e, f"'{op}' needs numeric operands, not {bad}")
            return UNKNOWN
        if op in ("/", "%") and isinstance(slt, IntT) != isinstance(srt, IntT):
            v = self.const_value(e.left if isinstance(slt, IntT) else e.right)
            if isinstance(v, int) and v < 0:
                self.ck.err(e, f"'{op}' is not defined on negative numbers")
                return UNKNOWN
        if isinstance(slt, IntT) and isinstance(srt, Bits):
            self.coerce(e.left, srt, f"operand of '{op}'")
            res = srt
        elif isinstance(srt, IntT) and isinstance(slt, Bits):
            self.coerce(e.right, slt, f"operand of '{op}'")
            res = slt
        elif isinstance(slt, IntT):
            res = INT
            if op in ("/", "%"):
                lv, rv = self.const_value(e.left), self.const_value(e.right)
                if rv == 0:
                    self.ck.err(e.right, "division by zero")
                elif isinstance(lv, int) and isinstance(rv, int) and (lv < 0 or rv < 0):
                    self.ck.err(e, "division of negative unsized constants is not allowed")
        else:
            if slt != srt:
                self.ck.err(e, f"'{op}' operands have different types: {lt} and {rt}")
                return UNKNOWN
            res = lt if isinstance(strip_newtype(lt), Bits) else slt
            if op in ("/", "%") and slt.signed:
                self.ck.err(e, f"'{op}' is not defined on signed values")
        if op in ("<", ">", "<=", ">="):
            return BOOL
        if op in ("/", "%") and not isinstance(res, IntT):
            rv, lv = self.const_value(e.right), self.const_value(e.left)
            if rv == 0:
                self.ck.err(e.right, "division by zero")
            elif not (lv is not None and rv is not None or lv == 0 or op == "%" and rv == 1
                      or isinstance(rv, int) and rv > 0 and rv & (rv - 1) == 0):
                # p4c's midend (CompileTimeOperations) refuses, for every target, a division
                # its strength reduction cannot turn into a shift or a mask: reported by
                # check() when there is a main package (p4c runs no midend without one)
                if self.ck.runtime_division is None:
                    self.ck.runtime_division = e
        return res

    def equal_types(self, a: Type, b: Type) -> bool:
        a, b = strip_newtype(a), strip_newtype(b)
        if isinstance(a, Enum) and a.underlying and isinstance(b, Bits):
            return a.underlying == b
        if isinstance(b, Enum) and b.underlying and isinstance(a, Bits):
            return b.underlying == a
        return same_type(a, b)

    def cast(self, e: A.Cast, scope: Scope) -> Type:
        """Check an explicit cast against the casts the spec allows (bit/int widths, bool,
        serializable enums, new types, structs from lists)."""
        to = self.ck.resolve_type(e.to, scope)
        ft = self.expr(e.expr, scope)
        if to is UNKNOWN or ft is UNKNOWN:
            return to if ft is UNKNOWN else UNKNOWN
        sto, sft = strip_newtype(to), strip_newtype(ft)
        if isinstance(to, NewType) and not isinstance(sft, IntT) and not same_type(sto, sft):
            # p4c: a 'type' is made only from its own underlying type (cast the width first)
            self.ck.err(e, f"cannot cast {ft} to {to}: a 'type' is cast only from its underlying type {sto}")
            return UNKNOWN
        if isinstance(sft, Enum) and sft.underlying:
            sft = sft.underlying
        if isinstance(sto, Enum) and sto.underlying and isinstance(sft, (Bits, IntT)):
            if isinstance(sft, IntT):
                e.expr.type = sto.underlying
            return to
        if isinstance(sto, Bits):
            if isinstance(sft, IntT):
                self.set_const_type(e.expr, sto)
                return to
            if isinstance(sft, Bits):
                if sft.signed != sto.signed and sft.width != sto.width:
                    self.ck.err(e, f"cannot cast {ft} to {to} directly (change the width and the sign in two casts)")
                    return UNKNOWN
                return to
            if sft == BOOL and sto.width == 1 and not sto.signed:
                return to
        if sto == BOOL and (isinstance(sft, Bits) and sft.width == 1 and not sft.signed or isinstance(sft, IntT) or sft == BOOL):
            if isinstance(sft, IntT):
                v = self.const_value(e.expr)
                if v not in (0, 1):
                    self.ck.err(e, "only 0 and 1 can be cast to bool")
                e.expr.type = Bits(1)
            return BOOL
        if isinstance(sto, IntT) and isinstance(sft, (Bits, IntT)):
            return INT
        if isinstance(sto, (Composite, Tuple, Stack, P4List)) and isinstance(ft, (ListT, StructInitT)):
            self.coerce(e.expr, to, "cast")
            return to
        if isinstance(sto, (Composite, Stack)):
            self.ck.err(e, f"cannot cast {ft} to {to}: a struct, header or stack is cast only from a list or "
                           f"struct expression")
            return UNKNOWN
        if same_type(sto, sft):
            return to
        self.ck.err(e, f"cannot cast {ft} to {to}")
        return UNKNOWN

    # ------------------------------------------------------------ calls
    def call(self, e: A.Call, scope: Scope, stmt_ctx: bool) -> Type:
        """Type of a call and what it resolves to (its CallTarget): a constructor, an action, a
        table or parser/control apply, a function, an extern function or method (overloads by
        arity), or a builtin method."""
        ft = self.expr(e.func, scope)
        targs = [self.ck.resolve_type(t, scope) for t in e.type_args]
        for a in e.args:
            if not isinstance(a.expr, A.DontCare):
                self.expr(a.expr, scope)
            else:
                a.expr.type = DONTCARE
        if ft is UNKNOWN:
            return UNKNOWN
        if isinstance(ft, ObjectT) and ft.kind in ("parser", "control", "extern") and isinstance(e.func, A.Name) \
                and e.func.sym is not None and e.func.sym.kind in ("parser", "control", "extern_type"):
            e.target = CallTarget("ctor", decl=ft.decl)
            R.check_instantiated_ctor(self.ck, ft.decl, e.args, e)
            if ft.kind == "extern" and any(m.abstract for m in ft.decl.methods):
                self.ck.err(e, f"extern {ft.decl.name} has abstract methods: it cannot be constructed by a call "
                               f"(declare an instance with an initializer block)")
            if ft.kind == "extern" and getattr(ft.decl, "type_params", None) and not e.type_args:
                self.ck.ctor_needs_type_args(ft.decl, e)
            return ft
        if isinstance(ft, ObjectT) and ft.kind == "action":
            decl = ft.decl
            e.target = CallTarget("action", decl=decl)
            if e.type_args:
                self.ck.err(e, f"cannot supply type arguments to a call of action '{decl.name}'")
            if isinstance(scope.owner, A.FunctionDecl):
                self.ck.err(e, f"functions cannot call actions ('{decl.name}')")
            if len(e.args) != len(decl.params):
                self.ck.err(e, f"wrong number of arguments to action '{decl.name}': expected {len(decl.params)}, got {len(e.args)}")
                return UNKNOWN
            for a, p in zip(order_args(decl.params, e.args), decl.params):
                if a is not None:
                    self.coerce(a, p.resolved_type, f"argument '{p.name}' of '{decl.name}'")
                    if p.direction in ("out", "inout"):
                        self.ck.check_lvalue(a, scope)
            return VOID
        if not isinstance(ft, MethodRef):
            self.ck.err(e, f"cannot call a value of type {ft}")
            return UNKNOWN
        if ft.kind == "builtin":
            return self.builtin_call(e, ft, targs, scope)
        if ft.kind in ("table_apply", "apply") and isinstance(scope.owner, A.ActionDecl):
            self.ck.err(e, f"apply cannot be called from actions ('{_text(e.func)}')")
        if ft.kind == "extern_function" and ft.mname == "verify" and not isinstance(scope.owner, A.ParserDecl):
            self.ck.err(e, "verify may only be invoked in parsers")
        if ft.kind == "table_apply":
            if e.args:
                self.ck.err(e, "table apply takes no arguments")
            e.target = CallTarget("table_apply", decl=ft.decl)
            return TableResult(ft.decl)
        if ft.kind == "apply":
            decl = ft.decl
            e.target = CallTarget("apply", decl=decl)
            params = decl.params
            if len(e.args) != len(params):
                self.ck.err(e, f"wrong number of arguments to {decl.name}.apply: expected {len(params)}, got {len(e.args)}")
                return UNKNOWN
            for a, p in zip(e.args, params):
                pt = p.resolved_type
                if pt is not None and not isinstance(pt, TypeVar):
                    self.coerce(a.expr, pt, f"argument '{p.name}' of {decl.name}.apply")
            return VOID
        # extern methods, extern functions, functions
        protos = [p for p in ft.protos if arity_ok(p.params, e.args)]
        if not protos:
            counts = sorted({len(p.params) for p in ft.protos})
            self.ck.err(e, f"wrong number of arguments to '{ft.mname}': expected {' or '.join(map(str, counts))}, got {len(e.args)}")
            return UNKNOWN
        proto = protos[0]
        if len(protos) > 1:
            # prefer exact arity without defaults
            exact = [p for p in protos if len(p.params) == len(e.args)]
            proto = exact[0] if exact else proto
        binding: dict[str, Type] = {}
        if isinstance(ft.recv_type, ObjectT):
            binding.update(ft.recv_type.type_args)
        if targs:
            if len(targs) != len(proto.type_params):
                self.ck.err(e, f"'{ft.mname}' expects {len(proto.type_params)} type arguments, got {len(targs)}")
            binding.update({tp: t for tp, t in zip(proto.type_params, targs) if t != DONTCARE})
        ret = self.bind_args(proto, e.args, binding, e, ft.mname, scope)
        e.target = CallTarget(ft.kind, decl=ft.decl, proto=proto, obj=ft.obj, binding=binding, name=ft.mname)
        if ft.kind in ("extern_function", "extern_method") and self.ck.nested_out_call is None:
            self.note_nested_out(e, proto, binding, ft.mname)
        return ret

    def note_nested_out(self, e: A.Call, proto: A.MethodProto, binding: dict, fname: str) -> None:
        """Remember the first extern call with an `out`/`inout` parameter whose type (type
        variables bound) is a struct holding a struct, header, union, tuple or stack: p4c's
        midend (NestedStructs, run for every target) refuses it; check() reports it once the
        program has a main package."""
        for p in proto.params:
            if p.direction not in ("out", "inout"):
                continue
            pt = strip_newtype(self.ck.resolve_type(p.type_ref, self.generic_scope(proto, binding)))
            if isinstance(pt, Composite) and pt.is_struct and \
                    any(isinstance(strip_newtype(ft), (Composite, Tuple, Stack)) for _, ft in pt.fields):
                self.ck.nested_out_call = (e, p, fname, pt)
                return

    def bind_args(self, proto: A.MethodProto, args: list[A.Argument], binding: dict, node, fname: str, scope: Scope, type_binding=None) -> Type:
        """Match arguments to a prototype's parameters (by position or name, defaults and
        @optional), infer type parameters, check directions and l-values; returns the result
        type."""
        ordered = order_args(proto.params, args)
        unsized = []        # unsized constants passed where only a type variable says the width
        for p, a in zip(proto.params, ordered):
            pt = self.ck.resolve_type(p.type_ref, self.generic_scope(proto, binding))
            if a is None:
                continue
            at = a.type
            if isinstance(pt, TypeVar):
                if pt.tname in binding:
                    pt = binding[pt.tname]
                elif at is not None and at is not UNKNOWN and at != DONTCARE:
                    if isinstance(at, IntT) and p.direction in ("out", "inout"):
                        self.ck.err(a, f"argument '{p.name}' of '{fname}' must be a variable")
                        continue
                    if isinstance(at, IntT):
                        unsized.append((a, p, pt.tname))
                        continue
                    if not self.generic_arg_ok(p, a, at):
                        continue
                    binding[pt.tname] = at
                    pt = at
                else:
                    continue
            elif isinstance(pt, ObjectT) and pt.type_args and isinstance(at, ObjectT):
                if not self.unify_type_args(pt, at, proto, binding, a, p, fname):
                    continue
            if at == DONTCARE:
                if p.direction not in ("out",):
                    self.ck.err(a, "'_' can only be passed to an out parameter")
                continue
            if not self.coerce(a, pt, f"argument '{p.name}' of '{fname}'"):
                continue
            if p.direction in ("out", "inout"):
                self.ck.check_lvalue(a, scope)
        for a, p, tname in unsized:
            if tname in binding:        # a later argument fixed the type
                self.coerce(a, binding[tname], f"argument '{p.name}' of '{fname}'")
            else:
                self.ck.err(a, f"could not infer a width for argument '{p.name}' of '{fname}' (cast the constant, as p4c requires)")
        if type_binding is not None:
            type_binding.update(binding)
        if proto.ret is None:
            return VOID
        rt = self.ck.resolve_type(proto.ret, self.generic_scope(proto, binding))
        if isinstance(rt, TypeVar):
            if rt.tname in binding:
                return binding[rt.tname]
            self.ck.err(node, f"cannot infer the type of the result of '{fname}'; give it as a type argument")
            return UNKNOWN
        return rt

    def unify_type_args(self, pt: ObjectT, at: ObjectT, proto: A.MethodProto, binding: dict, a, p, fname: str) -> bool:
        """A generic parameter type such as `register<T>` given `register<bool>`: binds the
        call's free type variables from the argument's type arguments, and refuses type
        arguments that differ (p4c unifies them: `f(r, 8w2)` with `r` a register<bool> fails)."""
        if pt.tname != at.tname:
            return True         # reported by coerce
        free = set(proto.type_params) - set(binding)
        for tp, want in pt.type_args.items():
            got = at.type_args.get(tp)
            if got is None or got is UNKNOWN or want is UNKNOWN:
                continue
            if isinstance(want, TypeVar) and want.tname in free:
                binding[want.tname] = got
                free.discard(want.tname)
            elif not (same_type(want, got) or isinstance(want, TypeVar) and isinstance(got, TypeVar)
                      and want.tname == got.tname):
                self.ck.err(a, f"type mismatch in argument '{p.name}' of '{fname}': expected {pt.tname}<{want}>, "
                               f"got {at.tname}<{got}> (type variable {tp} bound inconsistently)")
                return False
        return True

    def same_expr(self, a: A.Expr, b: A.Expr) -> bool:
        """Two checked expressions denote the same thing: equal constants, or the same tree."""
        va, vb = self.const_value(a), self.const_value(b)
        if va is not None or vb is not None:
            return va == vb
        return _same_tree(a, b)

    def generic_arg_ok(self, p: A.Param, a: A.Argument, at: Type) -> bool:
        """A type variable bound by an argument takes only what a parameter of that type could
        be (p4c): no string or extern through a direction, no parser, control, table or package."""
        if isinstance(at, ObjectT) and at.kind != "extern":
            self.ck.err(a, f"argument cannot have type {at.kind} {at.tname}")
            return False
        if p.direction and (at == STRING or isinstance(at, ObjectT)):
            self.ck.err(p, f"parameter '{p.name}' of type {at} cannot have a direction")
            return False
        return True

    def generic_scope(self, proto: A.MethodProto, binding: dict) -> Scope:
        s = Scope(self.ck.top)
        ext = proto.extern_type_params
        for tp in list(proto.type_params) + list(ext or []):
            s.names[tp] = Symbol("type", tp, None, binding.get(tp, TypeVar(tp)))
        for tp, t in binding.items():
            s.names[tp] = Symbol("type", tp, None, t)
        # extern type parameters not bound: leave as type variables
        return s

    def builtin_call(self, e: A.Call, ft: MethodRef, targs: list[Type], scope: Scope) -> Type:
        """Type of a builtin method call: header validity, stack push/pop, packet_in/packet_out
        methods (extract, lookahead, advance, length, emit), minSizeInBits and friends."""
        n = ft.mname
        args = e.args
        e.target = CallTarget("builtin", obj=ft.obj, name=n, recv_type=ft.recv_type)
        rt = ft.recv_type

        def nargs(*ok):
            if len(args) not in ok:
                self.ck.err(e, f"wrong number of arguments to '{n}': expected {' or '.join(map(str, ok))}, got {len(args)}")
                return False
            return True
        if n in ("isValid",):
            nargs(0)
            return BOOL
        if n in ("setValid", "setInvalid"):
            nargs(0)
            if isinstance(rt, Composite) and rt.is_union:
                self.ck.err(e, f"'{n}' is not defined on a header_union")
            return VOID
        if n in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
            nargs(0)
            return INT
        if n in ("push_front", "pop_front"):
            if nargs(1):
                v = self.const_value(args[0].expr)
                if not isinstance(v, int) or v < 0:
                    self.ck.err(args[0], f"'{n}' count must be a non-negative compile-time constant")
            return VOID
        if n == "extract":
            if nargs(1, 2):
                at = args[0].expr.type
                if isinstance(args[0].expr, A.DontCare) and len(args) == 1 and e.type_args:
                    # extract<H>(_): read an H and throw it away
                    at = args[0].expr.type = self.ck.resolve_type(e.type_args[0], scope)
                    if isinstance(at, Composite) and at.is_header:
                        return VOID
                if not (isinstance(at, Composite) and at.is_header) and at is not UNKNOWN:
                    self.ck.err(args[0], f"extract needs a header, not {at}")
                else:
                    self.ck.check_lvalue(args[0].expr, scope)
                    hv = isinstance(at, Composite) and any(isinstance(ft_, Varbit) for _, ft_ in at.fields)
                    if len(args) == 1 and hv:
                        self.ck.err(e, f"extract of header {at} with a varbit field needs the varbit size argument")
                    if len(args) == 2:
                        if not hv:
                            self.ck.err(e, "two-argument extract needs a header with a varbit field")
                        self.coerce(args[1].expr, Bits(32), "extract size")
            return VOID
        if n == "lookahead":
            nargs(0)
            if len(targs) != 1:
                self.ck.err(e, "lookahead needs one type argument")
                return UNKNOWN
            t = targs[0]
            st = strip_newtype(t)
            fixed = isinstance(st, Composite) and st.kind in ("header", "struct") \
                and all(bit_width(lt) for _, lt, _ in st.layout())
            if not (bit_width(t) or fixed):
                self.ck.err(e, f"lookahead of {t} is not supported")
            return t
        if n == "advance":
            if nargs(1):
                self.coerce(args[0].expr, Bits(32), "advance size")
            return VOID
        if n == "length":
            nargs(0)
            return Bits(32)
        if n == "emit":
            if nargs(1):
                at = args[0].expr.type
                if not isinstance(strip_newtype(at), (Composite, Stack)) and at is not UNKNOWN:
                    self.ck.err(args[0], f"emit needs a header, header stack, header_union or struct, not {at}")
            return VOID
        self.ck.err(e, f"unsupported: method '{n}'")
        return UNKNOWN

    # ------------------------------------------------------------ coercion
    def coerce(self, e: A.Expr, target: Type, what: str) -> bool:
        """Check that e can be used where `target` is expected; give unsized
        constants and list/struct expressions their type. Reports and returns False if not."""
        src = e.type
        if src is None or src is UNKNOWN or target is UNKNOWN or target is None:
            return True
        if isinstance(target, TypeVar):
            # inside a generic declaration a type variable stands for any type: only a value of
            # that same variable fits it (p4c: 'int' cannot be unified with 'H')
            if isinstance(src, TypeVar) and src.tname == target.tname or src == DONTCARE:
                return True
            self.ck.err(e, f"type mismatch in {what}: expected a value of type variable {target}, got {src}")
            return False
        st, tt = strip_newtype(src), strip_newtype(target)
        if same_type(src, target):
            return True
        if (isinstance(src, NewType) or isinstance(target, NewType)) and not isinstance(src, IntT) \
                and same_type(st, tt):
            # a 'type' is distinct from its base: only an explicit cast converts (p4c)
            self.ck.err(e, f"cannot convert {src} to {target} implicitly ({what}; a 'type' is distinct "
                           f"from its base: cast it)")
            return False
        if isinstance(tt, IntT) and isinstance(src, Bits) and self.const_value(e) is not None:
            return True     # a sized constant gives its value to an int (p4c: const int a = 4w2)
        if isinstance(st, IntT):
            if isinstance(tt, Bits):
                v = self.const_value(e)
                if isinstance(v, int) and not isinstance(v, bool):
                    lim = 1 << tt.width
                    if not tt.signed and (v >= lim or v < -(lim >> 1) and v < 0 and -v > lim):
                        # p4c keeps the low bits and warns; so do we
                        self.ck.rep.warning(e.span, f"value {v} does not fit in {target} ({what}); only its low {tt.width} bits are kept")
                self.set_const_type(e, tt)
                return True
            if isinstance(tt, IntT):
                return True
            if isinstance(tt, Enum) and tt.underlying:
                self.ck.err(e, f"cannot use int for {target} without a cast ({what})")
                return False
        if isinstance(st, Enum) and st.underlying and isinstance(tt, Bits) and st.underlying == tt:
            return True
        if isinstance(st, (ListT, StructInitT)) and isinstance(tt, (Composite, Tuple, Stack, P4List)):
            return self.coerce_aggregate(e, tt, what)
        if isinstance(st, Bits) and isinstance(tt, Bits):
            self.ck.err(e, f"type mismatch in {what}: expected {target}, got {src}")
            return False
        if isinstance(tt, Tuple) and isinstance(st, Tuple):
            return True
        if st == DONTCARE:
            return True
        self.ck.err(e, f"type mismatch in {what}: expected {target}, got {src}")
        return False

    def coerce_aggregate(self, e: A.Expr, tt: Type, what: str) -> bool:
        """Check a list or struct expression against a struct, header, tuple or stack type,
        element by element."""
        if isinstance(e, A.ListExpr):
            if isinstance(tt, Composite):
                if len(e.items) != len(tt.fields):
                    self.ck.err(e, f"{tt} has {len(tt.fields)} fields but the list has {len(e.items)} elements ({what})")
                    return False
                for item, (_, ftp) in zip(e.items, tt.fields):
                    self.coerce(item, ftp, what)
            elif isinstance(tt, Tuple):
                if len(e.items) != len(tt.elems):
                    self.ck.err(e, f"tuple has {len(tt.elems)} elements but the list has {len(e.items)} ({what})")
                    return False
                for item, et in zip(e.items, tt.elems):
                    self.coerce(item, et, what)
            elif isinstance(tt, (Stack, P4List)):
                for item in e.items:
                    self.coerce(item, tt.elem, what)
            e.type = tt
            return True
        if isinstance(e, A.StructInit) and isinstance(tt, Composite):
            names = set(e.names)
            for fname, ftp in tt.fields:
                if fname not in names:
                    self.ck.err(e, f"field '{fname}' of {tt} is missing from the initializer ({what})")
                    return False
            for n, v in zip(e.names, e.values):
                ftp = tt.field(n)
                if ftp is None:
                    self.ck.err(v, f"{tt} has no field '{n}'")
                    return False
                self.coerce(v, ftp, what)
            e.type = tt
            return True
        if isinstance(e, A.Cast):
            return True
        self.ck.err(e, f"type mismatch in {what}: expected {tt}, got {e.type}")
        return False

    def set_const_type(self, e: A.Expr, t: Type) -> None:
        # unsized constants are folded with infinite precision first, then converted
        v = const_value(e)
        if isinstance(v, int) and not isinstance(v, bool):
            e.folded = v
            e.type = t
            return
        e.type = t
        if isinstance(e, A.Binary) and e.op not in ("<<", ">>"):
            for x in (e.left, e.right):
                if isinstance(x.type, IntT):
                    self.set_const_type(x, t)
        elif isinstance(e, A.Binary):
            if isinstance(e.left.type, IntT):
                self.set_const_type(e.left, t)
        elif isinstance(e, A.Unary) and isinstance(e.expr.type, IntT):
            self.set_const_type(e.expr, t)
        elif isinstance(e, A.Ternary):
            for x in (e.then, e.other):
                if isinstance(x.type, IntT):
                    self.set_const_type(x, t)

    # ------------------------------------------------------------ constants
    def const_value(self, e: A.Expr):
        return const_value(e)


def _newtype_mix(a: Type, b: Type) -> bool:
    """A 'type' against anything but the same 'type' (its base included)."""
    if isinstance(a, NewType) or isinstance(b, NewType):
        return not (isinstance(a, NewType) and isinstance(b, NewType) and a.tname == b.tname)
    return False


def _saturates(e: A.Expr, depth: int) -> bool:
    """Whether a constant condition uses a saturating operator, directly or through the
    constants it names: p4c folds a '?:' condition before it knows widths, and cannot fold
    `|+|`/`|-|` then, so it refuses unsized branches that we could still choose between."""
    if depth > 50:
        return False
    if isinstance(e, A.Binary) and e.op in ("|+|", "|-|"):
        return True
    if isinstance(e, A.Name):
        sym = getattr(e, "sym", None)
        value = getattr(getattr(sym, "decl", None), "value", None) if sym is not None and sym.kind == "const" else None
        return isinstance(value, A.Expr) and _saturates(value, depth + 1)
    return any(_saturates(c, depth + 1) for c in e.children() if isinstance(c, A.Expr))


def _same_tree(a, b) -> bool:
    """Structural equality of two syntax trees, ignoring places and what the checker added."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_tree(x, y) for x, y in zip(a, b))
    if not isinstance(a, A.Node):
        return a == b
    if isinstance(a, A.StructInit):      # fields by name, in any order
        return sorted(a.names) == sorted(b.names) and _same_tree(a.type_name, b.type_name) and \
            all(_same_tree(v, b.values[b.names.index(n)]) for n, v in zip(a.names, a.values))
    return all(_same_tree(getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if f.name != "span" and f.compare)


def _text(e: A.Expr) -> str:
    """A dotted name as written (`t.apply`), for messages."""
    if isinstance(e, A.Member):
        return f"{_text(e.expr)}.{e.name}"
    return e.name if isinstance(e, A.Name) else "..."
