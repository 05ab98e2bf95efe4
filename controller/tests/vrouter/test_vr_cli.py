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


def test_missing_program_is_refused_before_connecting(tmp_path, capsys) -> None:
    path = tmp_path / "np.yaml"
    path.write_text("pipeline: {p4info: nope.txtpb, config: nope.json}\nswitches:\n  s1: {address: '127.0.0.1:1'}\n")
    for command in ("check", "diff", "apply", "run"):
        assert main([command, str(path)]) == 2
        assert capsys.readouterr().err.splitlines() == [
            f"np.yaml: pipeline.p4info: cannot read P4Info {tmp_path / 'nope.txtpb'}: No such file or directory; "
            "compile the program first (make build-p4)",
            f"np.yaml: pipeline.config: cannot read {tmp_path / 'nope.json'}: No such file or directory; "
            "compile the program first (make build-p4)"]


def test_pipeline_that_cannot_load_or_hold_the_description_is_refused(tmp_path, capsys, vrouter_program) -> None:
    info = vrouter_program.p4info.read_text()
    # A P4Info without the ACL table, and a device config that is not BMv2 JSON.
    start = info.index('name: "ingress.acl.acl_ingress_table"')
    info = info.replace('name: "ingress.acl.acl_ingress_table"', 'name: "ingress.acl.renamed"', 1)
    assert start
    (tmp_path / "p.txtpb").write_text(info)
    (tmp_path / "p.json").write_text('{"program": "x"}')
    path = tmp_path / "acl.yaml"
    path.write_text("pipeline: {p4info: p.txtpb, config: p.json}\nswitches:\n  s1:\n    address: '127.0.0.1:1'\n"
                    "    acl: [{match: {protocol: tcp, dst_port: 23}, action: deny}]\n")
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err == \
        f"acl.yaml: pipeline.config: {tmp_path / 'p.json'} is not BMv2 JSON (no header_types, headers, parsers, " \
        "pipelines, actions)\n"
    (tmp_path / "p.json").write_text(vrouter_program.json.read_text())
    assert main(["apply", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("acl.yaml: switches.s1: the program p.txtpb cannot hold the description: "
                          "no table named 'ingress.acl.acl_ingress_table'"), err
    assert err.count("\n") == 1


def test_description_too_big_for_a_table_is_refused(tmp_path, capsys, vrouter_program) -> None:
    lsps = "".join(f"      - {{role: egress, in_label: {16 + i}}}\n" for i in range(4097))
    path = tmp_path / "big.yaml"
    path.write_text(f"pipeline: {{p4info: {vrouter_program.p4info}, config: {vrouter_program.json}}}\n"
                    f"switches:\n  s1:\n    address: '127.0.0.1:1'\n    lsps:\n{lsps}")
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err == "big.yaml: switches.s1: the description needs 4097 entries in table " \
                                      "ingress.mpls.mpls_label, which holds 4096 in this program\n"
