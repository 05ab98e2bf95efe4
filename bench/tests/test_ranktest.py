"""The exact Mann-Whitney U test the soak's verdicts rest on (bench/ranktest.py), against the
definition: every split of the pooled values listed."""
from __future__ import annotations

import itertools

import pytest

from bench.ranktest import doubled_midranks, mann_whitney


def brute_force_p(x: list[float], y: list[float]) -> float:
    """Two-sided p by listing every split of the pooled values (the definition)."""
    r = doubled_midranks(x + y)
    mean, s = len(x) * (len(x) + len(y) + 1), sum(r[:len(x)])
    splits = list(itertools.combinations(r, len(x)))
    return sum(abs(sum(c) - mean) >= abs(s - mean) for c in splits) / len(splits)


def test_mann_whitney_exact_p():
    t = mann_whitney([4, 5, 6], [1, 2, 3])
    assert (t.u, t.p, t.exact, t.min_p) == (9, pytest.approx(0.1), True, pytest.approx(0.1))
    assert mann_whitney(list(range(6, 12)), list(range(6))).p == pytest.approx(2 / 924)
    assert mann_whitney([0, 0], [0, 0]).p == 1.0                 # all tied: nothing to tell
    assert mann_whitney([1, 3, 5], [2, 4, 6]).p == pytest.approx(0.7)
    cases = [([0.03, 0.05, 0.02, 0.0], [0.0, 0.076, 0.04]), ([0, 0, 1, 2, 2], [0, 1, 1, 3]),
             ([0.026, 0.031, 0.076, 0.05, 0.04, 0.06], [0.027, 0.01, 0.02, 0.03, 0.027, 0.015])]
    for x, y in cases:                                           # ties included
        assert mann_whitney(x, y).p == pytest.approx(brute_force_p(x, y)), (x, y)


def test_mann_whitney_normal_approximation_for_many_windows():
    low, high = [i / 10 for i in range(30)], [3 + i / 10 for i in range(30)]
    t = mann_whitney(high, low)
    assert not t.exact and t.u == 900 and t.p < 1e-9
    assert mann_whitney(low[::2] + high[::2], low[1::2] + high[1::2]).p > 0.5
