"""The architecture adapter (vrouter/arch.py, issue 18 Must 6): one controller for the v1model
and the TNA program.

p4compile has no TNA back end (p4src/tna/vrouter.p4 is type-checked only), so the TNA P4Info
here is the v1model one with a hand-written TNA pkg_info: the TNA program keeps the v1model
names and pinned ids of what the controller uses (docs/porting.md §5), and what differs is
what arch.py holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from p4rt import P4Schema, load_p4info
from vrouter.arch import TNA, V1MODEL, arch_of
from vrouter.cli import main

HERE = Path(__file__).parent
SMALL = (HERE / "data" / "small.yaml").read_text()


def tna_p4info(v1model: Path, digest_names: dict[str, str] | None = None) -> p4info_pb2.P4Info:
    info = load_p4info(v1model)
    info.pkg_info.arch = "tna"
    for digest in info.digests:
        digest.preamble.name = (digest_names or {}).get(digest.preamble.name, digest.preamble.name)
    return info


def description(tmp_path: Path, info: p4info_pb2.P4Info, config: bytes, cpu_port: int | None) -> Path:
    (tmp_path / "p.txtpb").write_text(text_format.MessageToString(info))
    (tmp_path / "p.bin").write_bytes(config)
    text = SMALL.replace("switches:\n", "pipeline: {p4info: p.txtpb, config: p.bin}\nswitches:\n", 1)
    if cpu_port is not None:
        text = text.replace("    address: 127.0.0.1:50051\n", f"    address: 127.0.0.1:50051\n    cpu_port: {cpu_port}\n")
    path = tmp_path / "tna.yaml"
    path.write_text(text)
    return path


def test_the_architecture_comes_from_pkg_info(vrouter_program) -> None:
    v1 = load_p4info(vrouter_program.p4info)
    assert v1.pkg_info.arch == "v1model" and arch_of(v1) is V1MODEL
    assert arch_of(tna_p4info(vrouter_program.p4info)) is TNA
    v1.pkg_info.arch = "psa"
    with pytest.raises(ValueError, match="pkg_info.arch 'psa' is not supported \\(supported: v1model, tna\\)"):
        arch_of(v1)


def test_the_controller_checks_a_description_against_a_tna_program(tmp_path, capsys, vrouter_program) -> None:
    """Same tables, actions, meters and digests: `vrouter check` passes with a Tofino CPU port."""
    path = description(tmp_path, tna_p4info(vrouter_program.p4info), b"\x00tofino pipeline config", 192)
    assert main(["check", str(path)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.endswith(": ok\n")


def test_tna_differences_are_refused_with_a_reason(tmp_path, capsys, vrouter_program) -> None:
    """BMv2 JSON and p4switch's CPU port 255 make no sense on Tofino."""
    path = description(tmp_path, tna_p4info(vrouter_program.p4info), vrouter_program.json.read_bytes(), None)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"tna.yaml: pipeline.config: {tmp_path / 'p.bin'} is BMv2 JSON, but the P4Info is for tna: " \
        "give the target compiler's output (Tofino: bf-p4c's tofino.bin, context.json and bfrt.json, packed as " \
        "the switch expects)"
    (tmp_path / "p.bin").write_bytes(b"\x00tofino pipeline config")
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err == "tna.yaml: switches.s1.cpu_port: 255 is p4switch's CPU port; a tna switch " \
        "has its own (build the program with -DCPU_PORT_NUMBER=N and set cpu_port: N)\n"


def test_the_same_description_still_passes_on_v1model(tmp_path, capsys, vrouter_program) -> None:
    path = description(tmp_path, load_p4info(vrouter_program.p4info), vrouter_program.json.read_bytes(), None)
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


def test_mirror_sessions_per_target() -> None:
    assert TNA.switch_problems("switches.s1", 192, 511) == []
    assert TNA.switch_problems("switches.s1", 192, 1016) == [
        "switches.s1: clone session 1016 is outside tna's mirror sessions 1..1015"]
    assert V1MODEL.switch_problems("switches.s1", 255, 511) == []


def test_digests_are_found_by_struct_when_a_compiler_names_them_otherwise(vrouter_program) -> None:
    info = tna_p4info(vrouter_program.p4info, {"mac_learn_digest_t": "ingress_deparser.mac_learn_digest",
                                               "pw_learn_digest_t": "ingress_deparser.pw_learn_digest"})
    schema = P4Schema(info)
    found = TNA.digest(schema, "mac_learn_digest_t")
    assert found.name == "ingress_deparser.mac_learn_digest"
    assert found.type_spec.struct.name == "mac_learn_digest_t"
    assert TNA.digest(schema, "pw_learn_digest_t").name == "ingress_deparser.pw_learn_digest"


def test_colour_counters_index_the_same_on_both() -> None:
    """The TNA program maps MeterColor_t (RED 3) to the v1model values before counting."""
    assert TNA.meter_colors["RED"] == 3 and V1MODEL.meter_colors["RED"] == 2
    assert [TNA.color_index(7, c) for c in ("GREEN", "YELLOW", "RED")] == \
        [V1MODEL.color_index(7, c) for c in ("GREEN", "YELLOW", "RED")] == [28, 29, 30]
