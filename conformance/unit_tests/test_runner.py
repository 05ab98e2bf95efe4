"""Runner bookkeeping that needs no real switch: skipped commands are never passed."""
import sys

from p4stf import runner, stf


def _opts(tmp_path, switch="true"):
    return runner.Options(p4c="true", switch=switch, build_dir=str(tmp_path), wait=1.0,
                          extra_ports=(0, 1))


def test_commands_between_packets_split_the_file_into_phases():
    cmds = stf.parse("add t k:1 a()\npacket 0 01\nexpect 1 01\npacket 0 02\n"
                     "check_counter c(1) packets == 2\nadd t k:2 a()\nwait\nexpect 1 03\n"
                     "packet 0 03\nregister_read r 0 1\n")
    one, two = runner.split_phases(cmds)
    assert [c.line for c in one.before] == [1] and [c.line for c in one.packets] == [2, 4]
    assert one.after == [] and one.end_line == 5
    assert [c.line for c in two.before] == [5, 6] and [c.line for c in two.packets] == [9]
    assert [c.line for c in two.after] == [10] and two.end_line == float("inf")


def test_file_with_commands_only_before_packets_is_one_phase():
    cmds = stf.parse("add t k:1 a()\npacket 0 01\npacket 1 02\nexpect 1 01\n"
                     "check_counter c(1) packets == 2\n")
    (only,) = runner.split_phases(cmds)
    assert len(only.before) == 1 and len(only.packets) == 2 and len(only.after) == 1


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


def test_case_newer_than_the_p4c_given_is_not_run_and_says_why(tmp_path):
    # A stand-in p4c that reports release 1.2.4.8 as p4c-bm2-ss does.
    fake = tmp_path / "p4c-old"
    fake.write_text("#!/bin/sh\necho p4c-bm2-ss; echo 'Version 1.2.4.8 (SHA: 0 BUILD: Release)'\n")
    fake.chmod(0o755)
    prog = tmp_path / "loops.p4"
    prog.write_text("// needs p4c 1.2.4.12: 'for' loops\n// needs p4c 1.2.4.8: nothing new\n")
    stf_file = tmp_path / "loops.stf"
    stf_file.write_text("packet 0 00\n")
    res = runner.run_case(runner.Options(p4c=str(fake), build_dir=str(tmp_path)), str(prog), str(stf_file))
    assert res.status == runner.NOT_RUN
    assert res.reason == "p4c 1.2.4.8 predates 'for' loops (p4c 1.2.4.12)"
    # p4compile (no "Version x.y" line) is never held back by such a line.
    assert runner.held_back("true", str(prog)) is None
    prog.write_text("// not on p4c: its JSON differs here\n")
    assert runner.held_back(str(fake), str(prog)) == "not on p4c 1.2.4.8: its JSON differs here"


def test_each_switch_runs_the_one_compile(tmp_path):
    # A compiler that counts its runs and writes empty outputs; switches that exit at once (no
    # packet expected, no control command: each run passes without a real switch).
    calls = tmp_path / "calls"
    p4c = tmp_path / "p4c.py"
    p4c.write_text("import sys\nopen(sys.argv[3], 'w').close()\n"
                   "for f in sys.argv[5].split(','):\n    open(f, 'w').close()\n"
                   f"open({str(calls)!r}, 'a').write('x')\n")
    p4, st = tmp_path / "a.p4", tmp_path / "a.stf"
    p4.write_text("")
    st.write_text("packet 0 00\n")
    first = _opts(tmp_path / "one")
    first.p4c = f"{sys.executable} {p4c}"
    second = _opts(tmp_path / "two")
    second.p4c = "/nonexistent/p4c"   # never run: the second switch gets the first's compile
    res = runner.run_case_on_each([first, second], str(p4), str(st), "area", "a")
    assert [r.status for r in res] == [runner.PASS, runner.PASS]
    assert calls.read_text() == "x"
    assert res[1].compiled == res[0].compiled and (tmp_path / "two" / "area" / "a").is_dir()


def test_a_compile_failure_fails_the_case_on_every_switch(tmp_path):
    p4, st = tmp_path / "a.p4", tmp_path / "a.stf"
    p4.write_text("")
    st.write_text("packet 0 00\n")
    opts = _opts(tmp_path)
    opts.p4c = "/nonexistent/p4c"
    res = runner.run_case_on_each([opts, _opts(tmp_path / "two")], str(p4), str(st))
    assert [r.status for r in res] == [runner.FAIL, runner.FAIL]
    assert all("compiler not found" in r.details for r in res)
