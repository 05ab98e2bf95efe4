"""The Python environment's P4Runtime modules agree with the protobuf runtime (issue 17, Must 9)."""

from __future__ import annotations

import os
import subprocess
import sys

from google.protobuf import json_format, text_format
from google.protobuf.internal import api_implementation
from p4.config.v1 import p4info_pb2

from p4rt import P4Schema


def test_protobuf_runs_its_fast_backend_without_being_forced():
    # A fresh interpreter: importing the controller must not switch protobuf to pure Python.
    code = ("import p4rt, vrouter, os; from google.protobuf.internal import api_implementation as a; "
            "print(a.Type(), os.environ.get('PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION'))")
    env = {k: v for k, v in os.environ.items() if k != "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["upb", "None"]
    if "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION" not in os.environ:
        assert api_implementation.Type() == "upb"


def test_stock_text_format_reads_our_p4info_with_type_info(vrouter_program):
    text = vrouter_program.p4info.read_text()
    assert "type_info {" in text
    info = text_format.Parse(text, p4info_pb2.P4Info())
    digests = [d.type_spec.struct.name for d in info.digests]
    assert digests and all(name in info.type_info.structs for name in digests)
    assert [m.name for m in info.type_info.structs[digests[0]].members]
    # The stock printers and parsers round-trip it, JSON included.
    assert text_format.Parse(text_format.MessageToString(info), p4info_pb2.P4Info()) == info
    assert json_format.Parse(json_format.MessageToJson(info), p4info_pb2.P4Info()) == info
    assert P4Schema(info).digest(digests[0]).id == info.digests[0].preamble.id
