"""`p4compile --arch tna`: the front end type-checks TNA (Tofino) programs against the
project's own p4include/tna.p4 and tofino.p4; there is no TNA back end, so no output files.
Bad TNA programs are in bad/check/tna_*.p4; p4src/tests/test_tna.py checks p4src/tna/vrouter.p4."""
import os
import subprocess
import sys

from conftest import HERE

TNA_BASIC = os.path.join(HERE, "programs", "tna_basic.p4")
V1_BASIC = os.path.join(HERE, "programs", "basic.p4")


def p4compile(*args):
    return subprocess.run([sys.executable, "-m", "p4compiler", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.path.dirname(HERE)}, timeout=120)


def test_tna_program_type_checks():
    r = p4compile("--arch", "tna", "--target", "tofino", TNA_BASIC)
    assert (r.returncode, r.stderr) == (0, "")


def test_tna_writes_no_outputs(tmp_path):
    r = p4compile("--arch", "tna", TNA_BASIC, "-o", str(tmp_path / "x.json"))
    assert r.returncode == 1
    assert "type-checks only" in r.stderr
    assert not (tmp_path / "x.json").exists()


def test_tna_needs_the_switch_package():
    r = p4compile("--arch", "tna", V1_BASIC)
    assert r.returncode == 1
    assert "'main' must instantiate the Switch package, not V1Switch" in r.stderr


def test_a_type_error_is_reported_with_its_place(tmp_path):
    bad = tmp_path / "bad.p4"
    bad.write_text(open(TNA_BASIC).read().replace("ig_tm_md.ucast_egress_port = 1;", "ig_tm_md.ucast_egress_port = true;"))
    r = p4compile("--arch", "tna", str(bad))
    assert r.returncode == 1
    assert f"{bad}:" in r.stderr and "error:" in r.stderr and "ucast_egress_port" in r.stderr


def test_unknown_architecture_is_refused():
    r = p4compile("--arch", "psa", V1_BASIC)
    assert r.returncode == 1
    assert "unsupported: --arch psa (supported: v1model, tna)" in r.stderr


def test_register_action_apply_may_read_the_controls_variables(tmp_path):
    """TNA's RegisterAction.apply is @synchronous(execute, execute_log) in Intel's tofino.p4
    (fabric-tna's INT code reads a control variable there); an extern's abstract method
    without @synchronous may not (bad/check/abstract_method_scope.p4)."""
    src = open(os.path.join(HERE, "bad", "check", "abstract_method_scope.p4")).read()
    start, end = src.index("extern Cell<T, I> {"), src.index("parser IP(")
    src = src[:start] + src[end:]
    src = src.replace("Cell<bit<32>, bit<9>>(512) bump = {",
                      "Register<bit<32>, bit<9>>(512) cells;\n"
                      "    RegisterAction<bit<32>, bit<9>, bit<32>>(cells) bump = {")
    src = src.replace("bump.update(", "bump.execute(")
    prog = tmp_path / "sync.p4"
    prog.write_text(src)
    r = p4compile("--arch", "tna", str(prog))
    assert (r.returncode, r.stderr) == (0, "")


def test_deprecated_deparser_constructors_without_type_value(tmp_path):
    """Intel's tofino.p4 keeps Mirror(), Resubmit() and Digest<T>() (deprecated) beside the
    forms taking the *_type value; fabric-tna's TNA program uses Mirror()."""
    src = open(TNA_BASIC).read().replace(
        "                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {\n    apply { pkt.emit(hdr); }",
        "                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {\n"
        "    Mirror() mirror;\n    Resubmit() resubmit;\n    Digest<meta_t>() digest;\n"
        "    apply { mirror.emit(0); resubmit.emit(); digest.pack(md); pkt.emit(hdr); }")
    assert "Mirror() mirror;" in src
    prog = tmp_path / "old_ctors.p4"
    prog.write_text(src)
    r = p4compile("--arch", "tna", str(prog))
    assert (r.returncode, r.stderr) == (0, "")
