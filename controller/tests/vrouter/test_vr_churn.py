"""Route churn through the daemon's reload path and through a routes file (vrouter.bench_churn)
against a real p4switch: the controller's memory stays flat; what makes a reload cheap (the pipeline files are checked
again only when they change, libyaml parses the description) keeps working."""

from __future__ import annotations

import shutil
import tracemalloc

import pytest
import yaml

from netns import SwitchProc
from vrouter import config, program
from vrouter.bench_churn import Churn, run


@pytest.mark.parametrize("via", ["description", "file"])
def test_reload_churn_keeps_memory_flat(tmp_path, vrouter_program, via):
    switch = SwitchProc({}, tmp_path / "switch.log").start()
    churn = Churn(switch.address, vrouter_program.p4info, vrouter_program.json, tmp_path, routes=400, step=100,
                  via=via)
    tracemalloc.start()                      # from the start: every object alive at the end is traced
    try:
        churn.start()
        run(churn, 20)                       # caches, encoders and the allocator settle
        plain = run(churn, 100)
        traced = run(churn, 60, trace=True)
    finally:
        tracemalloc.stop()
        churn.close()
        switch.stop()
    routes = sum(1 for key in churn.router.installed if key[0] == "table" and "ipv4_route" in key[1])
    assert routes >= 400                     # every churned route is on the switch (and the connected one)
    rss = [kib for _, kib in plain["rss_kib"][1:]]
    assert rss[-1] - rss[0] <= 0.01 * rss[0], plain["rss_kib"]
    # the last 30 reloads wrote 6,000 new prefixes: nothing may be kept per prefix, write or reload
    kib = traced["traced_kib"]
    assert kib["end"] - kib["half_way"] < 32, traced["tracemalloc_top_growth"]


def test_pipeline_files_read_again_only_when_they_change(tmp_path, vrouter_program):
    p4info, json = tmp_path / "vrouter.p4info.txtpb", tmp_path / "vrouter.json"
    shutil.copy(vrouter_program.p4info, p4info)
    shutil.copy(vrouter_program.json, json)
    net = config.loads(f"pipeline: {{p4info: {p4info}, config: {json}}}\nswitches: {{s1: {{address: '127.0.0.1:1'}}}}\n",
                       "t.yaml", tmp_path)
    first = program.load_schema(net)
    assert program.load_schema(net) is first                 # unchanged files: not parsed again
    p4info.write_text(p4info.read_text() + "\n# rebuilt\n")
    again = program.load_schema(net)
    assert again is not first                                # a rebuilt program is read again
    p4info.write_text("not a p4info {")
    with pytest.raises(config.ConfigError):
        program.load_schema(net)                             # and a broken one refused, not taken from before


def test_description_parsed_by_libyaml():
    if yaml.__with_libyaml__:                # the pinned PyYAML wheel has it
        assert config.YAML_LOADER is yaml.CSafeLoader
    else:                                    # a PyYAML without its C extension still works, slower
        assert config.YAML_LOADER is yaml.SafeLoader
