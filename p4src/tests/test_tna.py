"""p4src/tna/vrouter.p4, the TNA (Tofino) top level (issue 18 Musts 2 and 3).

`p4compile --arch tna` type-checks it against the project's tna.p4/tofino.p4
(front end only); a TNA type error in it fails the check with its place; and
it is an architecture layer over the same feature controls as the v1model
program, using TNA's own means for what differs.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TNA = ROOT / "p4src" / "tna" / "vrouter.p4"
V1MODEL = ROOT / "p4src" / "vrouter.p4"


def p4compile(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p4compiler", "--arch", "tna", "--target", "tofino", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("defines", [(), ("-DCPU_PORT_NUMBER=192", "-DRECIRC_PORT_NUMBER=196")])
def test_tna_program_type_checks(defines):
    r = p4compile(*defines, str(TNA))
    assert (r.returncode, r.stderr) == (0, "")


@pytest.mark.parametrize("good,bad,message", [
    ("ig_dprsr_md.drop_ctl = 1;", "ig_dprsr_md.drop_ctl = true;", "expected bit<3>, got bool"),
    ("ig_tm_md.ucast_egress_port = CPU_PORT;", "ig_tm_md.ucast_egress_port = hdr.pkt.ethernet;", "type mismatch in assignment"),
    ("cpu_mirror.emit<bridged_md_h>(ig_md.mirror_session, hdr.bridged);",
     "cpu_mirror.emit<bridged_md_h>(hdr.bridged);", "emit"),
])
def test_a_tna_type_error_fails_the_check(tmp_path, good, bad, message):
    text = TNA.read_text()
    assert good in text
    broken = tmp_path / "tna" / "vrouter.p4"
    broken.parent.mkdir()
    broken.write_text(text.replace(good, bad, 1))
    for f in TNA.parent.glob("*.p4"):
        if f.name != "vrouter.p4":
            (broken.parent / f.name).write_text(f.read_text())
    (tmp_path / "include").symlink_to(ROOT / "p4src" / "include")
    r = p4compile(str(broken))
    assert r.returncode == 1
    line = text[:text.index(good)].count("\n") + 1
    assert re.search(rf"{re.escape(str(broken))}:{line}:\d+: error: .*{message}", r.stderr), r.stderr


def includes(top: Path) -> list[str]:
    return [Path(p).name for p in re.findall(r'#include "(?:\.\./)?include/([\w.]+)"', top.read_text())]


def test_both_top_levels_use_the_same_feature_controls():
    assert includes(TNA) == includes(V1MODEL)
    instances = re.compile(r"^\s*([A-Z]\w+)\(\)\s+(\w+);", re.M)
    v1 = set(instances.findall(V1MODEL.read_text()))
    tna = set(instances.findall(TNA.read_text()))
    shared = {(t, i) for t, i in v1 if not t.startswith("V1model")}
    assert shared - tna == set(), "feature instances of vrouter.p4 missing from tna/vrouter.p4"


def test_tna_means_are_used():
    """What issue 18 asks TNA's own externs for, each where the program needs it."""
    text = "\n".join(p.read_text() for p in sorted(TNA.parent.glob("*.p4")))
    for construct in ("ingress_intrinsic_metadata_t ig_intr_md", "pkt.advance(PORT_METADATA_SIZE)",
                      "Meter<", "MeterColor_t.RED", "Digest<mac_learn_digest_t>", "Mirror(", "Checksum()",
                      "subtract_all_and_deposit", "ActionSelector(", "Hash<", "RegisterAction<", "drop_ctl = 1",
                      "RECIRC_PORT", "bridged_md_h", "bypass_egress", "egress_intrinsic_metadata_t eg_intr_md"):
        assert construct in text, construct
