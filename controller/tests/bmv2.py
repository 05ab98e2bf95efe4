"""BMv2 as the switch under test (`SWITCH=simple_switch_grpc`): the one check both test folders use, and the skip
of what its P4Runtime server lacks (docs/reference-tools.md lists them)."""

from __future__ import annotations

from vrouter.lab import is_bmv2  # noqa: F401 (the tests' import): $SWITCH names simple_switch*


def skip_on_bmv2(limitation: str) -> None:
    """Skip the calling test on BMv2 only, naming what BMv2 lacks."""
    __tracebackhide__ = True   # the skip is reported at the test's line
    if is_bmv2():
        import pytest

        pytest.skip(f"BMv2 limitation: {limitation}")
