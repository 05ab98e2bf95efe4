"""The command line without a switch: check, and errors for bad files and unreachable switches."""

from __future__ import annotations

from pathlib import Path

from vrouter.cli import main

HERE = Path(__file__).parent


def test_check_good_file(capsys) -> None:
    assert main(["check", str(HERE / "data" / "small.yaml")]) == 0
    assert capsys.readouterr().out == "small.yaml: s1: 4 ports, 3 VLANs, 2 routes, 0 LSPs, 3 ACL rules: ok\n"


def test_bad_file_exits_2_with_the_pinned_messages(capsys) -> None:
    bad = HERE / "bad" / "vlan_out_of_range.yaml"
    for command in ("check", "diff", "apply"):
        assert main([command, str(bad)]) == 2
        err = capsys.readouterr().err
        assert err == "vlan_out_of_range.yaml: switches.s1.ports.3.vlans[2]: 5000 is not a VLAN id (1-4094)\n"


def test_unreachable_switch_is_one_line_error(tmp_path, capsys) -> None:
    path = tmp_path / "far.yaml"
    path.write_text("switches:\n  s1: {address: '127.0.0.1:1'}\n")
    assert main(["diff", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vrouter: ") and "127.0.0.1:1" in err and "Traceback" not in err


def test_unknown_switch_name(capsys) -> None:
    assert main(["diff", str(HERE / "data" / "small.yaml"), "--switch", "s9"]) == 2
    assert capsys.readouterr().err == "small.yaml: no switch named s9 (switches: s1)\n"


def test_missing_program_is_explained(tmp_path, capsys) -> None:
    path = tmp_path / "np.yaml"
    path.write_text("pipeline: {p4info: nope.txtpb, config: nope.json}\nswitches:\n  s1: {address: '127.0.0.1:1'}\n")
    for command in ("apply", "run"):
        assert main([command, str(path)]) == 1
        err = capsys.readouterr().err
        assert err == f"vrouter: {tmp_path / 'nope.txtpb'}: no such file; compile the program first " \
                      f"(make build-p4), or point `pipeline:` in np.yaml at it\n"
