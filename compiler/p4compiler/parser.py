"""Recursive-descent parser for P4-16: tokens -> ast.Program.

Like the P4 grammar, it needs to know which identifiers name types; it records
them as declarations are parsed. Syntax errors are collected per top-level
declaration (the parser skips to the next declaration and carries on).
"""
from __future__ import annotations

from . import ast as A
from .diag import Reporter
from .lexer import Token
from .types import MAX_INT32


class ParseError(Exception):
    pass


BUILTIN_TYPE_KEYWORDS = {"bit", "int", "varbit", "bool", "error", "string", "void", "tuple", "match_kind"}

# Binary operator precedence (P4-16 grammar: == binds looser than |, unlike C).
BINARY_PREC = [
    {"||"}, {"&&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"|"}, {"^"}, {"&"},
    {"<<", ">>"}, {"++", "+", "-", "|+|", "|-|"}, {"*", "/", "%"},
]
_PREC_OF = {op: level for level, ops in enumerate(BINARY_PREC) for op in ops}
_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&", "|=": "|", "^=": "^"}


class Parser:
    def __init__(self, toks: list[Token], reporter: Reporter):
        self.toks = toks
        self.i = 0
        self.rep = reporter
        self.type_names: set[str] = {"packet_in", "packet_out"}
        self.scopes: list[set[str]] = []
        # a type declared inside a typedef (`typedef header h_t {...} alias_t;`): the program
        # gets it as a declaration of its own, before the typedef
        self.inner_decls: list[A.Decl] = []

    # ----------------------------------------------------------- utilities
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = min(self.i + k, len(self.toks) - 1)
        return self.toks[j]

    def at(self, *kinds: str) -> bool:
        return self.toks[self.i].kind in kinds

    def next(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def accept(self, kind: str) -> Token | None:
        if self.toks[self.i].kind == kind:
            return self.next()
        return None

    def expect(self, kind: str, what: str | None = None) -> Token:
        t = self.toks[self.i]
        if t.kind == kind:
            self.i += 1
            return t
        self.error(t, f"expected {what or repr(kind)}")
        raise ParseError

    def error(self, t: Token, msg: str) -> None:
        found = "end of file" if t.kind == "eof" else f"'{t.text}'"
        self.rep.error(t.span, f"syntax error: {msg}, found {found}")

    def ident(self, what: str = "identifier") -> Token:
        t = self.tok
        # P4 lets some keywords be used as names in member/field position
        if t.kind == "id" or t.kind in ("apply", "key", "actions", "state", "entries", "type", "priority", "list"):
            self.i += 1
            return t
        self.error(t, f"expected {what}")
        raise ParseError

    def is_type_name(self, name: str) -> bool:
        if name in self.type_names:
            return True
        return any(name in s for s in self.scopes)

    def push_type_params(self, names: list[str]) -> None:
        self.scopes.append(set(names))

    def pop_type_params(self) -> None:
        self.scopes.pop()

    # ------------------------------------------------------------- program
    def program(self) -> A.Program:
        decls: list[A.Decl] = []
        start = self.tok.span
        while not self.at("eof"):
            if self.accept(";"):
                continue
            before = self.i
            self.inner_decls = []
            try:
                d = self.declaration()
                decls += self.inner_decls
                if d is not None:
                    decls.append(d)
            except ParseError:
                self.recover(before)
            except RecursionError:
                self.rep.error(self.toks[before].span, "syntax error: declaration nested too deeply")
                self.recover(before)
            if len(self.rep.diagnostics) >= self.rep.limit:
                break
        return A.Program(start, decls)

    _DECL_START = {"control", "parser", "header", "header_union", "struct", "action", "const", "typedef",
                   "type", "extern", "enum", "error", "match_kind", "package", "@", "id", "bit", "int", "void"}

    def recover(self, before: int) -> None:
        """Skip to the start of the next top-level declaration: a declaration keyword
        (or a name) in the first column of a line."""
        if self.i == before:
            self.i += 1
        while not self.at("eof"):
            t = self.tok
            if t.span.col == 1 and t.kind in self._DECL_START and self.i > before:
                return
            self.next()

    # Annotations whose number P4Info or BMv2 stores in 32 bits (ids are uint32, the rest int32).
    _ANNOTATION_LIMITS = {"id": (1 << 32) - 1, "priority": MAX_INT32, "max_group_size": MAX_INT32,
                          "max_member_weight": MAX_INT32}

    def check_annotation_number(self, name: str, t: Token) -> None:
        lim = self._ANNOTATION_LIMITS.get(name)
        if lim is not None and not 0 <= t.value.value <= lim:
            self.rep.error(t.span, f"@{name} value {t.value.value} out of range (0 to {lim})")

    def annotations(self) -> list[A.Annotation]:
        """Parse any annotations before a declaration: `@name`, `@name(tokens)` and structured
        `@name[...]`."""
        annos = []
        while self.at("@"):
            at = self.next()
            name = self.ident("annotation name")
            args: list = []
            body: list = []
            toks: list = []
            structured = self.at("[")
            if self.at("(") and self.tok.span.line == name.span.line or structured:
                self.next()
                depth = 1
                while True:
                    t = self.next()
                    if t.kind != "eof":
                        body.append((t.kind, t.text))
                        toks.append(t)
                    if t.kind == "eof":
                        self.error(t, f"unterminated annotation @{name.text}")
                        raise ParseError
                    if t.kind in ("(", "["):
                        depth += 1
                    elif t.kind in (")", "]"):
                        depth -= 1
                        if depth == 0:
                            break
                    if t.kind == "str":
                        args.append(A.StrArg(t.value))
                    elif t.kind == "num":
                        args.append(t.value.value)
                        self.check_annotation_number(name.text, t)
                    elif t.kind == ",":
                        continue
                    else:
                        args.append(t.text)
            if structured:
                mixed = _mixed_structured_body(toks[:-1])
                if mixed is not None:
                    self.error(mixed, f"the body of structured annotation @{name.text} is either expressions "
                                      f"or key=value pairs, not both")
            if name.text == "p4runtime_translation" and not structured:
                args = self.translation_args(name, args)
            annos.append(A.Annotation(at.span, name.text, args, body[:-1], structured, toks[:-1]))
        return annos

    def translation_args(self, name: Token, args: list) -> list:
        """@p4runtime_translation(uri, T): T is the controller's view, `bit<W>` (read as the
        width W), a width, or `string`; anything else is refused as p4c's grammar does."""
        rest = args[1:]
        if len(rest) == 4 and rest[0] == "bit" and rest[1] == "<" and isinstance(rest[2], int) and rest[3] == ">":
            return args[:1] + [rest[2]]
        if len(args) >= 1 and (rest == ["string"] or len(rest) == 1 and isinstance(rest[0], int)):
            return args
        self.rep.error(name.span, "syntax error: @p4runtime_translation(uri, T) needs T to be bit<W>, "
                                  f"a width or string, not {' '.join(str(x) for x in rest) or 'nothing'}")
        return args[:1]

    def declaration(self) -> A.Decl | None:
        """Parse one top-level declaration, dispatching on its first keyword (a function when
        a type and a name are followed by a parameter list); an error otherwise."""
        annos = self.annotations()
        t = self.tok
        k = t.kind
        if k == "const":
            return self.const_decl(annos)
        if k == "extern":
            return self.extern_decl(annos)
        if k == "action":
            return self.action_decl(annos)
        if k == "parser":
            return self.parser_decl(annos)
        if k == "control":
            return self.control_decl(annos)
        if k == "package":
            return self.package_decl(annos)
        if k in ("header", "header_union", "struct"):
            return self.struct_like(annos)
        if k == "enum":
            return self.enum_decl(annos)
        if k in ("error", "match_kind") and self.peek().kind == "{":
            return self.member_list_decl(annos)
        if k in ("typedef", "type"):
            return self.typedef_decl(annos)
        if k == "table":
            self.rep.error(t.span, "syntax error: a table must be declared inside a control")
            raise ParseError
        # `T max<T>(...)`: a generic function whose result is one of its own type parameters,
        # which are not type names yet where the result type is read
        generic_result = k == "id" and self.peek().kind == "id" and self.peek(2).kind == "<"
        if self.starts_type() or generic_result:
            ty = self.type_ref()
            if self.at("("):
                return self.instantiation_rest(ty, annos)
            name = self.ident("declaration name")
            if self.at("(") or self.at("<"):
                proto = self.proto_rest(ty, name, annos)
                if self.at("{"):
                    self.push_type_params(proto.type_params)
                    try:
                        body = self.block()
                    finally:
                        self.pop_type_params()
                    return A.FunctionDecl(name.span, name.text, annos, proto, body)
                self.expect(";")
                return A.ExternFunctionDecl(name.span, name.text, annos, proto)
            self.error(self.tok, "expected '(' after declaration name")
            raise ParseError
        self.error(t, "expected a declaration")
        raise ParseError

    # ------------------------------------------------------------- types
    def starts_type(self) -> bool:
        t = self.tok
        if t.kind in BUILTIN_TYPE_KEYWORDS or t.kind == "_":
            return True
        if t.kind == "list":     # `list<T>` (P4-16 1.2.4); `list` alone may name a variable
            return self.peek().kind == "<"
        if t.kind == "." and self.peek().kind == "id":
            return self.is_type_name(self.peek().text)
        return t.kind == "id" and self.is_type_name(t.text)

    def type_ref(self) -> A.TypeRef:
        """Parse a type: base types, bit/int/varbit with widths, named types with type
        arguments, tuples, stacks (`T[n]`)."""
        t = self.tok
        k = t.kind
        if k in ("bit", "int"):
            self.next()
            signed = k == "int"
            if self.at("<"):
                self.next()
                w = self.width_expr()
                self.expect(">")
                ty: A.TypeRef = A.BitType(t.span, w, signed)
            elif signed:
                ty = A.BaseType(t.span, "int")
            else:
                ty = A.BitType(t.span, A.IntLiteral(t.span, 1), False)
        elif k == "varbit":
            self.next()
            self.expect("<")
            w = self.width_expr()
            self.expect(">")
            ty = A.VarbitType(t.span, w)
        elif k in ("bool", "error", "string", "void", "match_kind"):
            self.next()
            ty = A.BaseType(t.span, k)
        elif k == "_":
            self.next()
            ty = A.DontCareType(t.span)
        elif k == "tuple":
            self.next()
            self.expect("<")
            args = self.type_args_rest()
            ty = A.TupleType(t.span, args)
        elif k == "list":
            self.next()
            self.expect("<")
            elem = self.type_ref()
            self.expect(">", "'>'")
            ty = A.ListType(t.span, elem)
        elif k in ("id", "."):
            if k == ".":
                self.next()
            name = self.ident("type name")
            args = []
            if self.at("<"):
                self.next()
                args = self.type_args_rest()
            ty = A.NamedType(name.span, name.text, args)
        else:
            self.error(t, "expected a type")
            raise ParseError
        while self.at("[") :
            lb = self.next()
            size = self.expression()
            self.expect("]")
            ty = A.StackType(lb.span, ty, size)
        return ty

    def type_args_rest(self) -> list[A.TypeRef]:
        args = []
        if not self.at(">"):
            while True:
                if self.at("num", "(") or (self.at("id") and not self.is_type_name(self.tok.text)):
                    # a non-type argument (e.g. an integer constant)
                    e = self.width_expr()
                    ref = A.NamedType(e.span, "__expr__", [])
                    ref.expr = e
                    args.append(ref)
                else:
                    args.append(self.type_ref())
                if not self.accept(","):
                    break
        self.expect(">", "'>'")
        return args

    def width_expr(self) -> A.Expr:
        t = self.tok
        if t.kind == "num":
            self.next()
            return A.IntLiteral(t.span, t.value.value, t.value.width, t.value.signed)
        if t.kind == "(":
            self.next()
            e = self.expression()
            self.expect(")")
            return e
        if t.kind == "id":
            self.next()
            return A.Name(t.span, t.text)
        self.error(t, "expected a width")
        raise ParseError

    def type_params(self) -> list[str]:
        names = []
        if self.accept("<"):
            while True:
                names.append(self.ident("type parameter").text)
                if not self.accept(","):
                    break
            self.expect(">")
        return names

    # ------------------------------------------------------- declarations
    def const_decl(self, annos) -> A.ConstDecl:
        self.expect("const")
        ty = self.type_ref()
        name = self.ident("constant name")
        self.expect("=")
        value = self.expression()
        self.expect(";")
        return A.ConstDecl(name.span, name.text, annos, ty, value)

    def params(self) -> list[A.Param]:
        self.expect("(")
        out = []
        if not self.at(")"):
            while True:
                annos = self.annotations()
                d = ""
                if self.at("in", "out", "inout"):
                    d = self.next().kind
                ty = self.type_ref()
                name = self.ident("parameter name")
                default = None
                if self.accept("="):
                    default = self.expression()
                out.append(A.Param(name.span, name.text, annos, d, ty, default))
                if not self.accept(","):
                    break
        self.expect(")")
        return out

    def proto_rest(self, ret, name: Token, annos) -> A.MethodProto:
        tps = self.type_params()
        self.push_type_params(tps)
        try:
            ps = self.params()
        finally:
            self.pop_type_params()
        return A.MethodProto(name.span, name.text, annos, ret, tps, ps)

    def extern_decl(self, annos) -> A.Decl:
        """Parse an extern object type (constructors, methods, abstract methods) or an extern
        function."""
        self.expect("extern")
        t = self.tok
        is_object = False
        if t.kind == "id" and self.peek().kind == "{":
            is_object = True
        elif t.kind == "id" and self.peek().kind == "<":
            j = self.i + 1
            depth = 0
            while j < len(self.toks):
                kk = self.toks[j].kind
                if kk == "<":
                    depth += 1
                elif kk == ">":
                    depth -= 1
                    if depth == 0:
                        break
                elif kk in (";", "{", "eof"):
                    break
                j += 1
            is_object = j + 1 < len(self.toks) and self.toks[j + 1].kind == "{"
        if is_object:
            name = self.ident()
            self.type_names.add(name.text)
            tps = self.type_params()
            self.push_type_params(tps)
            methods = []
            try:
                self.expect("{")
                while not self.at("}"):
                    if self.at("eof"):
                        self.expect("}")
                    mannos = self.annotations()
                    abstract = bool(self.accept("abstract"))
                    if self.at("id") and self.tok.text == name.text and self.peek().kind == "(":
                        mname = self.next()
                        ps = self.params()
                        methods.append(A.MethodProto(mname.span, mname.text, mannos, None, [], ps))
                    else:
                        ret = self.type_ref()
                        mname = self.ident("method name")
                        m = self.proto_rest(ret, mname, mannos)
                        m.abstract = abstract
                        methods.append(m)
                    self.expect(";")
                self.expect("}")
            finally:
                self.pop_type_params()
            return A.ExternDecl(name.span, name.text, annos, tps, methods)
        ret = self.type_ref()
        name = self.ident("function name")
        proto = self.proto_rest(ret, name, annos)
        self.expect(";")
        return A.ExternFunctionDecl(name.span, name.text, annos, proto)

    def action_decl(self, annos) -> A.ActionDecl:
        self.expect("action")
        name = self.ident("action name")
        ps = self.params()
        body = self.block()
        return A.ActionDecl(name.span, name.text, annos, ps, body)

    def parser_decl(self, annos) -> A.Decl:
        self.expect("parser")
        name = self.ident("parser name")
        self.type_names.add(name.text)
        tps = self.type_params()
        self.push_type_params(tps)
        try:
            ps = self.params()
            if self.accept(";"):
                return A.ParserTypeDecl(name.span, name.text, annos, tps, ps)
            cps = self.params() if self.at("(") else []
            self.expect("{")
            locals_: list[A.Decl] = []
            states: list[A.ParserState] = []
            while not self.at("}"):
                if self.at("eof"):
                    self.expect("}")
                lannos = self.annotations()
                if self.at("state"):
                    states.append(self.parser_state(lannos))
                else:
                    locals_.append(self.local_decl(lannos))
            self.expect("}")
        finally:
            self.pop_type_params()
        return A.ParserDecl(name.span, name.text, annos, tps, ps, cps, locals_, states)

    def parser_state(self, annos) -> A.ParserState:
        self.expect("state")
        name = self.ident("state name")
        self.expect("{")
        stmts = []
        transition = None
        tspan = None
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            if self.at("transition"):
                tt = self.next()
                tspan = tt.span
                if self.at("select"):
                    transition = self.select_expr()
                    self.accept(";")
                else:
                    target = self.ident("state name")
                    tspan = target.span
                    transition = target.text
                    self.expect(";")
                if not self.at("}"):
                    self.error(self.tok, "expected '}' after transition")
                    raise ParseError
                break
            stmts.append(self.statement())
        self.expect("}")
        return A.ParserState(name.span, name.text, annos, stmts, transition, tspan)

    def select_expr(self) -> A.Select:
        st = self.expect("select")
        self.expect("(")
        exprs = []
        if not self.at(")"):
            while True:
                exprs.append(self.expression())
                if not self.accept(","):
                    break
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            self.annotations()
            ks = self.keyset()
            self.expect(":")
            target = self.ident("state name")
            self.expect(";")
            cases.append(A.SelectCase(ks.span, ks, target.text, target.span))
        self.expect("}")
        return A.Select(st.span, exprs, cases)

    def keyset(self) -> A.Expr:
        t = self.tok
        if t.kind == "(":
            # tuple keyset or parenthesised expression
            save = self.i
            self.next()
            items = [self.keyset_elem()]
            if self.at(","):
                while self.accept(","):
                    items.append(self.keyset_elem())
                self.expect(")")
                return A.ListExpr(t.span, items)
            if self.accept(")") and self.at(":"):
                return items[0]
            self.i = save
        return self.keyset_elem()

    def keyset_elem(self) -> A.Expr:
        t = self.tok
        if t.kind == "default":
            self.next()
            return A.DefaultExpr(t.span)
        if t.kind == "_":
            self.next()
            return A.DontCare(t.span)
        e = self.expression()
        if self.at("&&&"):
            op = self.next()
            m = self.expression()
            return A.Mask(op.span, e, m)
        if self.at(".."):
            op = self.next()
            hi = self.expression()
            return A.Range(op.span, e, hi)
        return e

    def control_decl(self, annos) -> A.Decl:
        """Parse a control type declaration or a control with parameters, constructor
        parameters, locals and an apply block."""
        self.expect("control")
        name = self.ident("control name")
        self.type_names.add(name.text)
        tps = self.type_params()
        self.push_type_params(tps)
        try:
            ps = self.params()
            if self.accept(";"):
                return A.ControlTypeDecl(name.span, name.text, annos, tps, ps)
            cps = self.params() if self.at("(") else []
            self.expect("{")
            locals_: list[A.Decl] = []
            body = None
            while not self.at("}"):
                if self.at("eof"):
                    self.expect("}")
                lannos = self.annotations()
                if self.at("apply"):
                    self.next()
                    body = self.block()
                    continue
                if body is not None:
                    self.error(self.tok, "expected '}' after the apply block")
                    raise ParseError
                if self.at("action"):
                    locals_.append(self.action_decl(lannos))
                elif self.at("table"):
                    locals_.append(self.table_decl(lannos))
                else:
                    locals_.append(self.local_decl(lannos))
            close = self.expect("}")
            if body is None:
                body = A.Block(close.span, [])
        finally:
            self.pop_type_params()
        return A.ControlDecl(name.span, name.text, annos, tps, ps, cps, locals_, body)

    def local_decl(self, annos) -> A.Decl:
        if self.at("const"):
            return self.const_decl(annos)
        if self.at("value_set"):
            self.next()
            self.expect("<")
            elem = self.type_ref()
            self.expect(">")
            self.expect("(")
            size = self.expression()
            self.expect(")")
            name = self.ident("value set name")
            self.expect(";")
            return A.ValueSetDecl(name.span, name.text, annos, elem, size)
        if self.at("action"):
            return self.action_decl(annos)
        if self.starts_type():
            ty = self.type_ref()
            if self.at("("):
                return self.instantiation_rest(ty, annos)
            name = self.ident("variable name")
            init = None
            if self.accept("="):
                init = self.expression()
            self.expect(";")
            return A.VarDecl(name.span, name.text, annos, ty, init)
        self.error(self.tok, "expected a declaration")
        raise ParseError

    def instantiation_rest(self, ty, annos) -> A.Instantiation:
        args = self.arguments()
        name = self.ident("instance name")
        init = None
        if self.accept("="):
            self.expect("{")
            init = []
            while not self.at("}"):
                if self.at("eof"):
                    self.expect("}")
                dannos = self.annotations()
                init.append(self.declaration_in_block(dannos))
            self.expect("}")
        self.expect(";")
        return A.Instantiation(name.span, name.text, annos, ty, args, init)

    def declaration_in_block(self, annos):
        if self.at("action"):
            return self.action_decl(annos)
        ty = self.type_ref()
        name = self.ident()
        proto = self.proto_rest(ty, name, annos)
        body = self.block()
        return A.FunctionDecl(name.span, name.text, annos, proto, body)

    def package_decl(self, annos) -> A.PackageTypeDecl:
        self.expect("package")
        name = self.ident("package name")
        self.type_names.add(name.text)
        tps = self.type_params()
        self.push_type_params(tps)
        try:
            ps = self.params()
        finally:
            self.pop_type_params()
        self.expect(";")
        return A.PackageTypeDecl(name.span, name.text, annos, tps, ps)

    def struct_like(self, annos) -> A.Decl:
        kw = self.next().kind
        name = self.ident("type name")
        self.type_names.add(name.text)
        tps = self.type_params()
        self.push_type_params(tps)
        try:
            self.expect("{")
            fields = []
            while not self.at("}"):
                if self.at("eof"):
                    self.expect("}")
                fannos = self.annotations()
                ty = self.type_ref()
                fname = self.ident("field name")
                self.expect(";")
                fields.append(A.FieldDecl(fname.span, fname.text, fannos, ty))
            self.expect("}")
        finally:
            self.pop_type_params()
        if kw == "header":
            return A.HeaderDecl(name.span, name.text, annos, fields, tps)
        if kw == "header_union":
            return A.HeaderUnionDecl(name.span, name.text, annos, fields, tps)
        return A.StructDecl(name.span, name.text, annos, fields, tps)

    def enum_decl(self, annos) -> A.EnumDecl:
        self.expect("enum")
        underlying = None
        if self.at("bit", "int") or (self.at("id") and self.peek().kind == "id"):
            underlying = self.type_ref()
        name = self.ident("enum name")
        self.type_names.add(name.text)
        self.expect("{")
        members = []
        while not self.at("}"):
            self.annotations()
            m = self.ident("enum member")
            val = None
            if self.accept("="):
                val = self.expression()
            members.append(A.EnumMember(m.span, m.text, val))
            if not self.accept(","):
                break
        self.expect("}")
        return A.EnumDecl(name.span, name.text, annos, members, underlying)

    def member_list_decl(self, annos) -> A.Decl:
        kw = self.next()
        self.expect("{")
        members = []
        while not self.at("}"):
            m = self.ident("member name")
            members.append(A.EnumMember(m.span, m.text, None))
            if not self.accept(","):
                break
        self.expect("}")
        if kw.kind == "error":
            return A.ErrorDecl(kw.span, "error", annos, members)
        return A.MatchKindDecl(kw.span, "match_kind", annos, members)

    def typedef_decl(self, annos) -> A.TypedefDecl:
        kw = self.next()
        if self.at("header", "header_union", "struct", "enum"):
            # `typedef struct s_t { ... } alias_t;` (the grammar's derivedTypeDeclaration): the
            # program gets s_t as a declaration of its own, which only alias_t names afterwards
            inner = self.enum_decl([]) if self.at("enum") else self.struct_like([])
            self.inner_decls.append(inner)
            ty: A.TypeRef = A.NamedType(inner.span, inner.name, [])
        else:
            inner = None
            ty = self.type_ref()
        name = self.ident("type name")
        self.type_names.add(name.text)
        self.expect(";")
        return A.TypedefDecl(name.span, name.text, annos, ty, kw.kind == "type", inner.name if inner else "")

    # -------------------------------------------------------------- tables
    def table_decl(self, annos) -> A.TableDecl:
        self.expect("table")
        name = self.ident("table name")
        self.expect("{")
        props = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            pannos = self.annotations()
            is_const = bool(self.accept("const"))
            pname = self.ident("table property")
            self.expect("=")
            if pname.text == "key":
                value = self.table_key()
            elif pname.text == "actions":
                value = self.table_actions()
            elif pname.text == "entries":
                value = self.table_entries(is_const)
            elif pname.text == "default_action":
                value = self.action_ref([])
                self.expect(";")
            else:
                value = self.expression()
                self.expect(";")
            props.append(A.TableProperty(pname.span, pname.text, value, is_const, pannos))
        self.expect("}")
        return A.TableDecl(name.span, name.text, annos, props)

    def table_key(self) -> list[A.KeyElement]:
        self.expect("{")
        keys = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            e = self.expression()
            self.expect(":")
            mk = self.ident("match kind")
            annos = self.annotations()
            self.expect(";")
            keys.append(A.KeyElement(e.span, e, mk.text, annos))
        self.expect("}")
        self.accept(";")
        return keys

    def action_ref(self, annos) -> A.ActionRef:
        t = self.tok
        e = self.expression()
        name = None
        args: list[A.Argument] = []
        if isinstance(e, A.Call):
            args = e.args
            e = e.func
        if isinstance(e, A.Name):
            name = e.name
        elif isinstance(e, A.Member):
            parts = []
            x: A.Expr = e
            while isinstance(x, A.Member):
                parts.append(x.name)
                x = x.expr
            if isinstance(x, A.Name):
                parts.append(x.name)
                name = ".".join(reversed(parts))
        if name is None:
            self.rep.error(t.span, "syntax error: expected an action name")
            raise ParseError
        return A.ActionRef(t.span, name, args, annos, e)

    def table_actions(self) -> list[A.ActionRef]:
        self.expect("{")
        out = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            annos = self.annotations()
            out.append(self.action_ref(annos))
            self.expect(";")
        self.expect("}")
        self.accept(";")
        return out

    def table_entries(self, is_const: bool) -> list[A.TableEntry]:
        self.expect("{")
        out = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            annos = self.annotations()
            entry_const = is_const
            if self.at("const"):
                self.next()
                entry_const = True
            prio = None
            t = self.tok
            if self.at("id") and self.tok.text == "priority" and self.peek().kind == "=":
                self.next()
                self.expect("=")
                prio = self.expression()
                self.expect(":")
            ks = self.keyset()
            keys = ks.items if isinstance(ks, A.ListExpr) else [ks]
            self.expect(":")
            act = self.action_ref([])
            annos = annos + self.annotations()  # the grammar puts an entry's annotations after its action
            self.expect(";")
            out.append(A.TableEntry(t.span, keys, act, prio, annos, entry_const))
        self.expect("}")
        self.accept(";")
        return out

    # ---------------------------------------------------------- statements
    def block(self) -> A.Block:
        lb = self.expect("{")
        stmts = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            stmts.append(self.statement())
        self.expect("}")
        return A.Block(lb.span, stmts)

    def stack_type_ahead(self) -> bool:
        """At `name [`: is this `name [ ... ] ident` (a stack type starting a declaration)?"""
        depth, k = 0, 1
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return False
            if t.kind == "[":
                depth += 1
            elif t.kind == "]":
                depth -= 1
                if depth == 0:
                    return self.peek(k + 1).kind == "id"
            k += 1

    def for_stmt(self) -> A.Stmt:
        """`for (init; cond; update) body` or `for (T x in collection) body` (P4-16 1.2.4)."""
        t = self.expect("for")
        self.expect("(")
        if self.decl_ahead() and self.for_in_ahead():
            ty = self.type_ref()
            name = self.ident("loop variable name")
            self.expect("in")
            coll = self.expression()
            if self.at(".."):
                op = self.next()
                coll = A.Range(op.span, coll, self.expression())
            self.expect(")")
            return A.ForIn(t.span, A.VarDecl(name.span, name.text, [], ty, None), coll, self.statement())
        init = self.for_clauses(";", decls=True)
        self.expect(";")
        cond = None if self.at(";") else self.expression()
        self.expect(";")
        update = self.for_clauses(")", decls=False)
        self.expect(")")
        return A.For(t.span, init, cond, update, self.statement())

    def decl_ahead(self) -> bool:
        """A type then a name starts here (a declaration, not an expression)."""
        return self.starts_type() and (self.tok.kind != "id" or self.peek().kind in ("id", "<"))

    def for_in_ahead(self) -> bool:
        """`T x in` follows: parse the type on trial, then go back."""
        start, errors = self.i, len(self.rep.diagnostics)
        try:
            self.type_ref()
            found = self.at("id") and self.peek().kind == "in"
        except ParseError:
            found = False
        self.i = start
        del self.rep.diagnostics[errors:]
        return found

    def for_clauses(self, end: str, decls: bool) -> list[A.Stmt]:
        """Comma-separated declarations (init only), assignments and calls up to `end`."""
        out: list[A.Stmt] = []
        while not self.at(end):
            if decls and self.decl_ahead():
                ty = self.type_ref()
                name = self.ident("variable name")
                init = self.expression() if self.accept("=") else None
                out.append(A.VarDecl(name.span, name.text, [], ty, init))
            else:
                lhs = self.expression()
                if self.at("=") or self.tok.kind in _COMPOUND:
                    op = self.next()
                    rhs = self.expression()
                    if op.kind != "=":
                        rhs = A.Binary(op.span, _COMPOUND[op.kind], lhs, rhs)
                    out.append(A.Assign(op.span, lhs, rhs))
                elif isinstance(lhs, A.Call):
                    out.append(A.CallStmt(lhs.span, lhs))
                else:
                    self.error(self.tok, "expected an assignment or a call in a 'for' clause")
                    raise ParseError
            if not self.accept(","):
                break
        return out

    def statement(self) -> A.Stmt:
        """Parse one statement (assignment, call, if, switch, block, return, exit, variable or
        constant declaration, ...)."""
        annos = self.annotations()
        t = self.tok
        k = t.kind
        if k == "{":
            b = self.block()
            b.annotations = annos
            return b
        if k == ";":
            self.next()
            return A.Empty(t.span)
        if k == "if":
            self.next()
            self.expect("(")
            cond = self.expression()
            self.expect(")")
            then = self.statement()
            other = None
            if self.accept("else"):
                other = self.statement()
            return A.If(t.span, cond, then, other)
        if k == "switch":
            return self.switch_stmt()
        if k == "return":
            self.next()
            val = None if self.at(";") else self.expression()
            self.expect(";")
            return A.Return(t.span, val)
        if k == "exit":
            self.next()
            self.expect(";")
            return A.Exit(t.span)
        if k == "const":
            return self.const_decl(annos)
        if k == "for":
            return self.for_stmt()
        if k == "id" and t.text in ("break", "continue") and self.peek().kind == ";":
            self.next()
            self.next()
            return A.Break(t.span) if t.text == "break" else A.Continue(t.span)
        if k == "transition":
            self.error(t, "'transition' must be the last statement of a parser state")
            raise ParseError
        if k in ("action", "table"):
            self.error(t, f"expected a statement ({k} declarations belong in the control's local declarations)")
            raise ParseError
        if self.starts_type():
            nk = self.peek().kind
            is_expr = (k == "error" and nk == ".") or (k == "id" and nk in (".", "=", "[") )
            if is_expr and k == "id" and nk == "[" and self.stack_type_ahead():
                is_expr = False  # `H[2] tmp;` declares a header stack, `a[1] = x;` assigns
            if not is_expr:
                return self.local_decl(annos)
        lhs = self.expression()
        if self.at("=") or self.tok.kind in _COMPOUND:
            op = self.next()
            rhs = self.expression()
            self.expect(";")
            if op.kind != "=":
                rhs = A.Binary(op.span, _COMPOUND[op.kind], lhs, rhs)
            return A.Assign(op.span, lhs, rhs)
        self.expect(";")
        if isinstance(lhs, A.Call):
            return A.CallStmt(lhs.span, lhs)
        self.rep.error(t.span, "syntax error: expected an assignment or a method call")
        raise ParseError

    def switch_stmt(self) -> A.Switch:
        t = self.expect("switch")
        self.expect("(")
        e = self.expression()
        self.expect(")")
        self.expect("{")
        cases = []
        labels: list[A.Expr] = []
        while not self.at("}"):
            if self.at("eof"):
                self.expect("}")
            lt = self.tok
            if self.accept("default"):
                label: A.Expr = A.DefaultExpr(lt.span)
            else:
                label = self.expression()
            self.expect(":")
            labels.append(label)
            if self.at("{"):
                body = self.block()
                cases.append(A.SwitchCase(labels[0].span, labels, body))
                labels = []
        if labels:
            cases.append(A.SwitchCase(labels[0].span, labels, None))
        self.expect("}")
        return A.Switch(t.span, e, cases)

    # --------------------------------------------------------- expressions
    def arguments(self) -> list[A.Argument]:
        self.expect("(")
        args = []
        if not self.at(")"):
            while True:
                t = self.tok
                if t.kind in ("id",) and self.peek().kind == "=":
                    self.next()
                    self.next()
                    e = self.expression() if not self.at("_") else A.DontCare(self.next().span)
                    args.append(A.Argument(t.span, t.text, e))
                elif t.kind == "_" and self.peek().kind in (",", ")"):
                    self.next()
                    args.append(A.Argument(t.span, None, A.DontCare(t.span)))
                else:
                    e = self.expression()
                    args.append(A.Argument(e.span, None, e))
                if not self.accept(","):
                    break
        self.expect(")", "')'")
        return args

    def expression(self) -> A.Expr:
        cond = self.binary(0)
        if self.at("?"):
            q = self.next()
            a = self.expression()
            self.expect(":")
            b = self.expression()
            return A.Ternary(q.span, cond, a, b)
        return cond

    def binary(self, min_level: int) -> A.Expr:
        """Precedence climbing over BINARY_PREC (all binary operators are left-associative)."""
        left = self.unary()
        while True:
            t = self.tok
            op = t.kind
            if op == ">" and self.peek().kind == ">" and self.peek().span.col == t.end_col \
                    and self.peek().span.line == t.span.line:
                op = ">>"
            level = _PREC_OF.get(op)
            if level is None or level < min_level:
                return left
            self.next()
            if op == ">>":
                self.next()
            right = self.binary(level + 1)
            left = A.Binary(t.span, op, left, right)

    def unary(self) -> A.Expr:
        t = self.tok
        if t.kind in ("!", "~", "-", "+"):
            self.next()
            e = self.unary()
            if t.kind == "-" and isinstance(e, A.IntLiteral) and e.width is None:
                return A.IntLiteral(t.span, -e.value)
            return A.Unary(t.span, t.kind, e)
        if t.kind == "(" and self.is_cast():
            self.next()
            ty = self.type_ref()
            self.expect(")")
            e = self.unary()
            return A.Cast(t.span, ty, e)
        return self.postfix(self.primary())

    def is_cast(self) -> bool:
        nt = self.peek()
        if nt.kind in ("bit", "int", "varbit", "bool", "tuple"):
            return True
        if nt.kind == "list" and self.peek(2).kind == "<":
            return True
        if nt.kind == "id" and self.is_type_name(nt.text):
            after = self.peek(2)
            if after.kind == ")":
                follow = self.peek(3)
                return follow.kind in ("id", "num", "(", "{", "true", "false", "!", "~", "-", "str") \
                    or follow.kind in ("error",)
            return after.kind == "<"
        return False

    def primary(self) -> A.Expr:
        """Parse a primary expression: literals, names, parenthesised expressions, lists and
        struct expressions, casts, `_`, followed by member accesses, indexes, slices and
        calls."""
        t = self.tok
        k = t.kind
        if k == "num":
            self.next()
            v = t.value
            return A.IntLiteral(t.span, v.value, v.width, v.signed)
        if k in ("true", "false"):
            self.next()
            return A.BoolLiteral(t.span, k == "true")
        if k == "str":
            self.next()
            return A.StringLiteral(t.span, t.value)
        if k == "id" or k in ("apply", "key", "actions", "entries", "type", "state", "priority", "list"):
            self.next()
            return A.Name(t.span, t.text)
        if k == "error":
            self.next()
            return A.Name(t.span, "error")
        if k == ".":
            self.next()
            n = self.ident()
            return A.Name(n.span, n.text, True)
        if k == "(":
            self.next()
            e = self.expression()
            self.expect(")", "')'")
            return e
        if k == "{":
            return self.brace_expr()
        if k == "_":
            self.next()
            return A.DontCare(t.span)
        if k in ("bit", "int", "varbit", "bool"):
            ty = self.type_ref()
            return A.TypeExpr(t.span, ty)
        if k == "this":
            self.rep.error(t.span, "unsupported: 'this' expressions")
            raise ParseError
        self.error(t, "expected an expression")
        raise ParseError

    def brace_expr(self) -> A.Expr:
        lb = self.expect("{")
        if self.at("id") and self.peek().kind == "=":
            names, values = [], []
            while not self.at("}"):
                n = self.ident("field name")
                self.expect("=")
                names.append(n.text)
                values.append(self.expression())
                if not self.accept(","):
                    break
            self.expect("}")
            return A.StructInit(lb.span, names, values)
        items = []
        while not self.at("}"):
            items.append(self.expression())
            if not self.accept(","):
                break
        self.expect("}", "'}'")
        return A.ListExpr(lb.span, items)

    def postfix(self, e: A.Expr) -> A.Expr:
        """The postfix operators after a primary expression, left to right: `.member`, `[index]`,
        `[hi:lo]`, `[lo +: w]` (read as the slice `[lo + w - 1 : lo]`), calls `(args)` and calls
        with type arguments `<T>(args)` (only where `<` cannot be a comparison)."""
        while True:
            t = self.tok
            if t.kind == ".":
                self.next()
                n = self.ident("member name")
                e = A.Member(n.span, e, n.text)
            elif t.kind == "[":
                self.next()
                a = self.expression()
                if self.at("+:"):     # indexed part-select e[lo +: w] (1.2.4): the slice [lo + w - 1 : lo]
                    op = self.next()
                    w = self.expression()
                    self.expect("]")
                    one = A.IntLiteral(op.span, 1)
                    e = A.Slice(t.span, e, A.Binary(op.span, "+", a, A.Binary(op.span, "-", w, one)), a)
                elif self.accept(":"):
                    b = self.expression()
                    self.expect("]")
                    e = A.Slice(t.span, e, a, b)
                else:
                    self.expect("]")
                    e = A.Index(t.span, e, a)
            elif t.kind == "(":
                args = self.arguments()
                e = A.Call(e.span, e, [], args)
            elif t.kind == "<" and isinstance(e, (A.Name, A.Member)) and self.looks_like_type_args():
                self.next()
                targs = self.type_args_rest()
                if not self.at("("):
                    self.error(self.tok, "expected '(' after type arguments")
                    raise ParseError
                args = self.arguments()
                e = A.Call(e.span, e, targs, args)
            else:
                return e

    def looks_like_type_args(self) -> bool:
        nt = self.peek()
        if nt.kind in ("bit", "varbit", "bool", "tuple", "_"):
            return True
        if nt.kind == "list" and self.peek(2).kind == "<":
            return True
        if nt.kind == "int" and self.peek(2).kind == "<":
            return True
        if nt.kind == "id" and self.is_type_name(nt.text):
            return self.peek(2).kind in (">", ",", "<")
        return False


def parse(toks: list[Token], reporter: Reporter) -> A.Program:
    p = Parser(toks, reporter)
    return p.program()


def _mixed_structured_body(toks: list[Token]) -> Token | None:
    """In the body of a structured annotation (`@a[...]`, brackets excluded), the token where
    expressions and `key=value` pairs start to mix, which the grammar does not allow (its
    first element decides which the body is); None if they do not mix."""
    items: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.kind in ("(", "[", "{"):
            depth += 1
        elif t.kind in (")", "]", "}"):
            depth -= 1
        if t.kind == "," and depth == 0:
            items.append([])
        else:
            items[-1].append(t)
    pairs = None
    for item in items:
        if not item:
            continue
        is_pair = len(item) > 1 and item[1].kind == "="
        if pairs is None:
            pairs = is_pair
        elif is_pair != pairs:
            return item[1] if is_pair else item[0]
    return None
