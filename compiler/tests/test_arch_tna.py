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
