"""Shared fixtures: the sample P4Info as a message and as a schema."""

from __future__ import annotations

import pytest
from p4.config.v1 import p4info_pb2

from p4rt import P4Schema
from p4rt.schema import parse_p4info_text
from sample_p4info import P4INFO_TEXT


@pytest.fixture
def p4info() -> p4info_pb2.P4Info:
    """The hand-written P4Info as a message."""
    return parse_p4info_text(P4INFO_TEXT)


@pytest.fixture
def schema(p4info: p4info_pb2.P4Info) -> P4Schema:
    """The hand-written P4Info as a schema."""
    return P4Schema(p4info)
