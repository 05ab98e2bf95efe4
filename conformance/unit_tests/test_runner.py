"""Runner bookkeeping that needs no real switch: skipped commands are never passed."""
import sys

from p4stf import runner, stf


def _opts(tmp_path, switch="true"):
    return runner.Options(p4c="true", switch=switch, build_dir=str(tmp_path), wait=1.0,
                          extra_ports=(0, 1))


def test_control_after_first_packet_is_not_run(tmp_path):
    cmds = stf.parse("add t k:1 a()\npacket 0 0102030405060708090a0b0c0d0e\n"
                     "add t k:2 a()\nexpect 1 01\n")
    res = runner.Result("x", "area", runner.FAIL)
    runner._execute(_opts(tmp_path), cmds, "x.json", "x.p4info.bin", str(tmp_path), res)
    assert res.status == runner.NOT_RUN
    assert res.skipped == ["line 3: add t k:2 a()"]


def test_switch_without_p4runtime_means_not_run(tmp_path):
    # A process that never opens the gRPC port stands in for a switch without P4Runtime.
    idle = f"{sys.executable} -c 'import time; time.sleep(20)'"
    cmds = stf.parse("setdefault t a()\npacket 0 0102030405060708090a0b0c0d0e\nexpect 1 01\n")
    res = runner.Result("x", "area", runner.FAIL)
    runner._execute(_opts(tmp_path, idle), cmds, "x.json", "x.p4info.bin", str(tmp_path), res)
    assert res.status == runner.NOT_RUN
    assert res.skipped == ["line 1: setdefault t a()"]


def test_missing_compiler_fails_with_message(tmp_path):
    p4 = tmp_path / "a.p4"
    p4.write_text("")
    st = tmp_path / "a.stf"
    st.write_text("packet 0 00\n")
    opts = _opts(tmp_path)
    opts.p4c = "/nonexistent/p4c"
    res = runner.run_case(opts, str(p4), str(st))
    assert res.status == runner.FAIL and "compiler not found" in res.details
