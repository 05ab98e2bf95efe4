"""Mann-Whitney U (Wilcoxon rank-sum) test: do two small samples come from one distribution?

The soak compares a handful of quiet windows with a handful of churn windows (loss %, p99):
too few for a normal approximation, and window loss rates tie at 0. So the p value is exact:
under the null hypothesis every way of picking len(x) of the pooled values as "x" is equally
likely, and a dynamic programme over the (doubled, so integer) midranks counts how many of those
ways give a rank sum at least as far from its mean as the observed one. Ties get midranks, so
the exact p holds with ties too. Beyond EXACT_MAX values the normal approximation (tie-corrected,
with continuity correction) is used instead and says so.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

EXACT_MAX = 40      # pooled values up to which p is exact (the count table stays small)


@dataclass(frozen=True)
class RankTest:
    u: float            # U of x: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2
    p: float            # two-sided
    exact: bool
    min_p: float        # the smallest two-sided p these sample sizes can give (no ties): below
                        # the significance level or the test could never tell anything


def doubled_midranks(values: list[float]) -> list[int]:
    """Twice the rank of each value in the pooled order, tied values sharing their mean rank."""
    order = sorted(values)
    first: dict[float, int] = {}
    last: dict[float, int] = {}
    for i, v in enumerate(order, 1):
        first.setdefault(v, i)
        last[v] = i
    return [first[v] + last[v] for v in values]


def mann_whitney(x: list[float], y: list[float]) -> RankTest:
    n1, n2 = len(x), len(y)
    if not n1 or not n2:
        raise ValueError("both samples need at least one value")
    n = n1 + n2
    r = doubled_midranks(list(x) + list(y))
    s = sum(r[:n1])                     # doubled rank sum of x
    u = s / 2 - n1 * (n1 + 1) / 2
    mean = n1 * (n + 1)                 # its expectation (doubled)
    min_p = min(1.0, 2 / math.comb(n, n1))
    if n <= EXACT_MAX:
        ways = [Counter() for _ in range(n1 + 1)]      # ways[k][t]: k values chosen, doubled sum t
        ways[0][0] = 1
        for v in r:
            for k in range(n1, 0, -1):                  # downwards: each value chosen at most once
                for t, c in ways[k - 1].items():
                    ways[k][t + v] += c
        far = sum(c for t, c in ways[n1].items() if abs(t - mean) >= abs(s - mean))
        return RankTest(u, far / math.comb(n, n1), True, min_p)
    ties = Counter(r).values()
    var = n1 * n2 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties) / (n * (n - 1)))
    if var <= 0:
        return RankTest(u, 1.0, False, min_p)
    z = max(0.0, abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return RankTest(u, min(1.0, math.erfc(z / math.sqrt(2))), False, min_p)
