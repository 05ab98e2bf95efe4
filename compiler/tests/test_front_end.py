"""Preprocessor, lexer and parser units: what the later phases rely on."""
import pytest

from conftest import compile_errors, compile_src, program
from p4compiler.diag import CompileError, Reporter
from p4compiler.driver import Compilation
from p4compiler.lexer import lex, parse_int
from p4compiler.parser import parse
from p4compiler.preprocess import Preprocessor


def pp(text: str, *defines: str) -> list[str]:
    p = Preprocessor()
    for d in defines:
        p.define_cmdline(d)
    p.run_text(text, "t.p4")
    assert not p.reporter.diagnostics, p.reporter.diagnostics
    return [l.text.strip() for l in p.out if l.text.strip()]


def test_object_and_function_macros_stringify_paste():
    out = pp("#define W 8\n#define ADD(a, b) ((a) + (b))\n#define STR(x) #x\n#define CAT(a, b) a##b\n"
             "bit<W> ADD(1, W); STR(hi); CAT(foo, bar);\n")
    assert out == ['bit<8> ((1) + (8)); "hi"; foobar;']


def test_conditionals_defined_elif_and_cmdline():
    src = "#if defined(A) && B > 2\nx\n#elif B == 2\ny\n#else\nz\n#endif\n#ifndef A\nna\n#endif\n"
    assert pp(src, "A", "B=3") == ["x"]
    assert pp(src, "B=2") == ["y", "na"]
    assert pp(src) == ["z", "na"]


def test_line_origin_survives_comments_and_continuations():
    p = Preprocessor()
    p.run_text("/* a\n b */ x\n#define M \\\n  1\ny M\n", "f.p4")
    assert [(l.text.strip(), l.line) for l in p.out if l.text.strip()] == [("x", 2), ("y 1", 5)]


def test_line_markers_rename_and_renumber_what_follows():
    """cpp's `# N "file" flags` and `#line N ["file"]`: the next line is line N of that file
    (a program run through cpp first reports its own files, as with p4c); an #include
    "..." still looks beside the file read."""
    p = Preprocessor()
    p.run_text('a\n# 40 "gen/x.p4" 1 3\nb\n\nc\n#line 7 "y.p4"\nd\n#line 100\ne\n#if 0\n#line 1 "no.p4"\n#endif\nf\n',
               "t.p4")
    assert not p.reporter.diagnostics
    assert [(l.text, l.file, l.line) for l in p.out if l.text] == [
        ("a", "t.p4", 1), ("b", "gen/x.p4", 40), ("c", "gen/x.p4", 42), ("d", "y.p4", 7), ("e", "y.p4", 100),
        ("f", "y.p4", 104)]


def test_error_after_a_line_marker_names_the_marked_place():
    src = program(top='# 20 "orig/prog.p4"\nconst bit<8> x = y;\n')
    comp = Compilation("t.p4", None, src)
    with pytest.raises(CompileError) as ei:
        comp.run()
    assert [d.render(comp.sources) for d in ei.value.diagnostics] == [
        "orig/prog.p4:20:18: error: undeclared name 'y'\nconst bit<8> x = y;\n" + " " * 17 + "^"]


def test_malformed_line_markers():
    assert compile_errors("#line x\n") == ['1:1: #line expects a line number and an optional "file"']
    assert compile_errors("# 12abc\n") == ["1:1: invalid preprocessing directive #12abc"]


@pytest.mark.parametrize("text,value,width,signed", [
    ("8w5", 5, 8, False), ("4s3", 3, 4, True), ("0xFF", 255, None, False), ("32w0x0a_00", 0xa00, 32, False),
    ("0b1010", 10, None, False), ("0o17", 15, None, False), ("1_000", 1000, None, False), ("16w0d99", 99, 16, False),
])
def test_integer_literals(text, value, width, signed):
    lit = parse_int(text)
    assert (lit.value, lit.width, lit.signed) == (value, width, signed)


def test_tokens_and_spans():
    p = Preprocessor()
    p.run_text("a |+| b &&& 8w1 ..  c >> 2;", "t.p4")
    toks = lex(p.out, Reporter())
    assert [t.kind for t in toks] == ["id", "|+|", "id", "&&&", "num", "..", "id", ">", ">", "num", ";", "eof"]
    assert toks[3].span.col == 9


def test_string_literal_spanning_lines():
    p = Preprocessor()
    p.run_text('@entry_restriction("\n  a == 1;\n  b != 2;\n") x;\ny', "t.p4")
    toks = lex(p.out, Reporter())
    assert [t.kind for t in toks] == ["@", "id", "(", "str", ")", "id", ";", "id", "eof"]
    assert toks[3].value == "\n  a == 1;\n  b != 2;\n" and toks[3].span.line == 1
    assert toks[5].span.line == 4 and toks[7].span.line == 5


def test_unterminated_string_is_reported_where_it_starts():
    p = Preprocessor()
    p.run_text('x = "abc\n y;', "t.p4")
    rep = Reporter()
    lex(p.out, rep)
    assert [str(d.span) for d in rep.diagnostics] == ["t.p4:1:5"]


def test_shift_right_versus_nested_generics():
    p = Preprocessor()
    p.run_text("const bit<8> a = 8w16 >> 2; extern E<T> { E(); } control C() { E<bit<8>>() e; apply { } }", "t.p4")
    rep = Reporter()
    prog = parse(lex(p.out, rep), rep)
    assert not rep.diagnostics
    assert [type(d).__name__ for d in prog.decls] == ["ConstDecl", "ExternDecl", "ControlDecl"]


def test_parser_reports_several_declarations():
    errs = compile_errors("const bit<8> a = ;\nheader h { bit<8> x }\nconst bit<8> c = 1;\n")
    assert errs == ["1:18: syntax error: expected an expression, found ';'",
                    "2:21: syntax error: expected ';', found '}'"]


def test_indexed_part_select_is_the_slice_it_stands_for():
    # e[lo +: w] (P4-16 1.2.4) is e[lo + w - 1 : lo]
    ok = program(meta="bit<16> x;", ingress_apply="meta.x[4 +: 8] = 1;")
    assert compile_src(ok).json is not None
    bad = program(meta="bit<16> x;", ingress_apply="meta.x[12 +: 8] = 1;")
    assert [e.split(": ", 1)[1] for e in compile_errors(bad)] == ["slice [19:12] out of range for bit<16>"]
