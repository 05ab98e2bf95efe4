"""The command line: p4c-bm2-ss options, output files, diagnostics with caret, no tracebacks."""
import json
import os
import subprocess
import sys

from conftest import HERE

BASIC = os.path.join(HERE, "programs", "basic.p4")


def p4compile(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "p4compiler", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": os.path.dirname(HERE)}, timeout=120)


def test_outputs_in_all_formats(tmp_path):
    out = tmp_path / "basic.json"
    files = [tmp_path / "b.p4info.txtpb", tmp_path / "b.p4info.bin", tmp_path / "b.p4info.json"]
    r = p4compile(BASIC, "-o", str(out), "--p4runtime-files", ",".join(map(str, files)),
                  "--std", "p4-16", "--arch", "v1model", "--target", "bmv2")
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["program"].endswith("basic.p4")
    from p4.config.v1 import p4info_pb2
    info = p4info_pb2.P4Info()
    info.ParseFromString(files[1].read_bytes())
    assert info.tables[0].preamble.name == "MyIngress.ipv4_lpm"
    assert 'name: "MyIngress.ipv4_lpm"' in files[0].read_text()
    assert json.loads(files[2].read_text())["tables"][0]["preamble"]["name"] == "MyIngress.ipv4_lpm"


def test_defines_and_include_dirs(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "sizes.p4").write_text("#define TABLE_SIZE 77\n")
    src = open(BASIC).read().replace("size = 1024;", "size = TABLE_SIZE;").replace(
        "#include <v1model.p4>", "#include <v1model.p4>\n#include \"sizes.p4\"\n#if WITH_X\n#error WITH_X set\n#endif")
    prog = tmp_path / "p.p4"
    prog.write_text(src)
    out = tmp_path / "p.json"
    r = p4compile(str(prog), "-I", str(inc), "-D", "WITH_X=0", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["pipelines"][0]["tables"][0]["max_size"] == 77
    r = p4compile(str(prog), "-I", str(inc), "-DWITH_X", "-o", str(out))
    assert r.returncode == 1 and "error: #error WITH_X set" in r.stderr


def test_error_has_location_source_line_and_caret(tmp_path):
    bad = tmp_path / "bad.p4"
    bad.write_text("#include <v1model.p4>\nconst bit<8> x = y;\n")
    r = p4compile(str(bad))
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0] == f"{bad}:2:18: error: undeclared name 'y'"
    assert lines[1] == "const bit<8> x = y;"
    assert lines[2] == " " * 17 + "^"


def test_dumps():
    r = p4compile(BASIC, "--dump-tokens", "--dump-ast", "--dump-ir")
    assert r.returncode == 0
    assert "ipv4_lpm" in r.stdout and "ControlDecl" in r.stdout and '"pipelines"' in r.stdout


def test_never_a_traceback(tmp_path):
    cases = {
        "empty.p4": b"",
        "garbage.p4": bytes(range(256)) * 400,
        "deep_parens.p4": b"const bit<8> a = " + b"(" * 30000 + b"1" + b")" * 30000 + b";\n",
        "deep_blocks.p4": b"#include <core.p4>\ncontrol C() { apply " + b"{" * 20000 + b"}" * 20000 + b" }\n",
        "big.p4": b"/* filler */\n" * 800000,
    }
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        r = p4compile(str(p))
        assert r.returncode == 1, name
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr, (name, r.stderr[-500:])
        assert "error:" in r.stderr, name
    r = p4compile(str(tmp_path / "missing.p4"))
    assert r.returncode == 1 and "cannot open file" in r.stderr


def test_usage_errors_exit_1():
    assert p4compile("--no-such-flag", BASIC).returncode == 1
    r = p4compile(BASIC, "--arch", "psa")
    assert r.returncode == 1 and "unsupported: --arch psa" in r.stderr


def test_p4v_is_p4cs_older_spelling_of_std(tmp_path):
    """The tutorials' utils/Makefile runs `p4c --p4v 16`; p4c takes 16 and 1.2 as P4-16."""
    for v in ("16", "1.2"):
        r = p4compile("--p4v", v, BASIC, "-o", str(tmp_path / "b.json"))
        assert r.returncode == 0, r.stderr
    assert p4compile("--std", "16", BASIC).returncode == 0
    r = p4compile("--p4v", "14", BASIC)
    assert r.returncode == 1 and "unsupported: --p4v 14" in r.stderr


def test_pp_writes_the_preprocessed_program_which_compiles_to_the_same_p4info(tmp_path):
    """fabric-tna's build.sh runs `--pp _pp.p4` for debugging: macros expanded, user includes
    inlined, the compiler's own headers kept as #include lines (as in p4c's copy)."""
    src = open(BASIC).read().replace("size = 1024;", "size = TABLE_SIZE;")
    prog = tmp_path / "p.p4"
    prog.write_text(src)
    pp = tmp_path / "out" / "p_pp.p4"
    r = p4compile(str(prog), "-DTABLE_SIZE=77", "--pp", str(pp), "--p4runtime-files", str(tmp_path / "a.txtpb"))
    assert r.returncode == 0, r.stderr
    text = pp.read_text()
    assert "size = 77;" in text and "TABLE_SIZE" not in text
    assert "#include <core.p4>" in text and "#include <v1model.p4>" in text and "extern register" not in text
    r = p4compile(str(pp), "--p4runtime-files", str(tmp_path / "b.txtpb"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.txtpb").read_text() == (tmp_path / "b.txtpb").read_text()


def test_pp_keeps_the_v1model_version_the_program_chose(tmp_path):
    """V1MODEL_VERSION picks v1model.p4's generation: the #include line in the --pp file
    must come after the same #define, or the generic register<T, I> would not resolve."""
    prog = os.path.join(os.path.dirname(os.path.dirname(HERE)), "conformance", "tests", "lang", "extern_ctor_arg.p4")
    pp = tmp_path / "pp.p4"
    assert p4compile(prog, "--pp", str(pp), "--p4runtime-files", str(tmp_path / "a.txtpb")).returncode == 0
    text = pp.read_text()
    assert text.index("#define V1MODEL_VERSION 20200408") < text.index("#include <v1model.p4>")
    assert text.count("#define V1MODEL_VERSION") == 1
    r = p4compile(str(pp), "--p4runtime-files", str(tmp_path / "b.txtpb"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.txtpb").read_text() == (tmp_path / "b.txtpb").read_text()


def test_pp_is_written_even_when_the_program_is_wrong(tmp_path):
    bad = tmp_path / "bad.p4"
    bad.write_text("#include <v1model.p4>\n#define Y y\nconst bit<8> x = Y;\n")
    r = p4compile(str(bad), "--pp", str(tmp_path / "bad_pp.p4"))
    assert r.returncode == 1 and "undeclared name 'y'" in r.stderr
    assert "const bit<8> x = y;" in (tmp_path / "bad_pp.p4").read_text()
