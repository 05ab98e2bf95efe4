"""The studies' tables in bench/reference/ (issue 19 Must 3): complete as published, and equal
to the studies' text where the seed folder is at hand. Fast: reads files only."""
from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import published  # noqa: E402

# the studies' text is not part of the repository (their prose may not be copied in); where a
# copy is at hand (VROUTER_STUDIES, or the development machine's folder) the tables are
# compared with it number by number
STUDIES = Path(os.environ.get("VROUTER_STUDIES", "/work/shared/seeds"))
SIZES = [64, 128, 256, 512, 768, 1024, 1280, 1518, 1522, 1600, 1728, 2496, 3584, 4016, 9104, 9136]
LOADS = [100 * i for i in range(1, 11)]


@pytest.mark.parametrize("sc", published.FILES)
def test_every_table_says_where_it_comes_from_and_is_rectangular(sc):
    ref = published.load(sc)
    assert ref["title"] and ref["authors"] and ref["venue"] and ref["method"]
    assert ref["tables"]
    sources = [t["source"] for t in ref["tables"]]
    assert len(sources) == len(set(sources)), sources
    for t in ref["tables"]:
        assert t["unit"] and t["columns"] and t["rows"], t["source"]
        assert all(len(r) == len(t["columns"]) for r in t["rows"]), t["source"]
        assert t.get("reproduced", True) or t.get("why"), f"{t['source']}: not reproduced needs a reason"
        assert t["seed"]["kind"] in ("table", "text", "marks") and t["seed"]["anchor"]


def test_s1_has_all_sixteen_sizes_of_the_six_series_and_the_physical_switch_from_table_6():
    ref = published.load("s1")
    for no in range(3, 10):
        assert published.column(published.table(ref, f"Table {no}"), "frame_bytes") == SIZES, no
    assert ref["method"]["repetitions"] == 3 and ref["method"]["trial_seconds"] == 60
    one_route_physical = published.series(published.table(ref, "Table 6"), "frame_bytes", "mbps")
    assert one_route_physical[9136] == 370.2 and one_route_physical[64] == 116.8


def test_s2_has_every_load_of_every_table_and_the_three_hop_counts():
    ref = published.load("s2")
    assert ref["method"]["repetitions"] == 30 and ref["method"]["offered_mbps"] == LOADS
    for t in ref["tables"]:
        assert published.column(t, "offered_mbps") == LOADS, t["source"]
    by_hops = [t for t in ref["tables"] if "hops3" in t["columns"]]
    assert {t["metric"] for t in by_hops} == {"udp_mbps", "jitter_ms", "tcp_mbps", "udp_loss_percent"}
    assert published.series(published.table(ref, "Table VII"), "offered_mbps", "hops3")[1000] == 16.803


def test_s5_gives_nat_off_and_on_per_policy_count():
    t = published.table(published.load("s5"), "Table 11")
    assert t["rows"] == [[1, 1900, 1890], [100, 1890, 1890], [1000, 1890, 1890]]


needs_studies = pytest.mark.skipif(not STUDIES.is_dir(), reason=f"the studies' text is not at {STUDIES} "
                                   "(set VROUTER_STUDIES to its folder)")


@needs_studies
@pytest.mark.parametrize("sc", published.FILES)
def test_tables_equal_the_studies_text(sc):
    assert published.check(sc, STUDIES) == []


@needs_studies
def test_the_check_sees_a_changed_number_and_a_dropped_row():
    text = next(STUDIES.glob("000_*.txt")).read_text()
    t = copy.deepcopy(published.table(published.load("s1"), "Table 6"))
    t["rows"][-1][1] = 377.1                       # the physical L2 switch's 9136 B value (Table 4)
    assert published.check_table(t, text) and "370.2" in published.check_table(t, text)[0]
    t = copy.deepcopy(published.table(published.load("s2"), "Table VII"))
    del t["rows"][3]
    assert published.check_table(t, next(STUDIES.glob("001_*.txt")).read_text())
