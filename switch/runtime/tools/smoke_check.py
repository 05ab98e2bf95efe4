"""Check a running P4Runtime server with the reference Python protobufs.

    python tools/smoke_check.py [HOST:PORT]

Becomes primary, sets the pipeline from tests/fixtures/tables.{json,p4info.txtpb},
inserts a table entry with padded values, reads it back (canonical form), and
checks that a duplicate INSERT is reported as UNKNOWN with ALREADY_EXISTS
details. Prints what it checked; exits non-zero on the first mismatch.
"""
import os
import sys

import grpc
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from primary import Primary  # noqa: E402  (the set-up stop-idle.sh uses too)

FIXTURES = os.path.join(HERE, "..", "tests", "fixtures")
T_EXACT = 37375156
A_SET_PORT = 24742814


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")


def main(addr):
    c = Primary(addr)
    stub = c.stub
    check(c.arbitration.status.code == code_pb2.OK, "arbitration: primary")
    c.set_pipeline(os.path.join(FIXTURES, "tables.json"), os.path.join(FIXTURES, "tables.p4info.txtpb"))
    check(True, "SetForwardingPipelineConfig VERIFY_AND_COMMIT")

    def insert():
        w = c.write_request()
        u = w.updates.add()
        u.type = p4runtime_pb2.Update.INSERT
        e = u.entity.table_entry
        e.table_id = T_EXACT
        m = e.match.add()
        m.field_id = 1
        m.exact.value = b"\x00\x00\x00\x00\x00\x00\x0a\x01"  # padded 48-bit MAC
        e.action.action.action_id = A_SET_PORT
        p = e.action.action.params.add()
        p.param_id = 1
        p.value = b"\x00\x00\x00\x05"  # padded bit<9>
        stub.Write(w)

    insert()
    check(True, "Write INSERT with padded values")

    r = p4runtime_pb2.ReadRequest(device_id=0)
    r.entities.add().table_entry.table_id = T_EXACT
    entities = [e for resp in stub.Read(r) for e in resp.entities]
    check(len(entities) == 1, "Read returns the entry")
    e = entities[0].table_entry
    check(e.match[0].exact.value == b"\x0a\x01", "match value in canonical form")
    check(e.action.action.params[0].value == b"\x05", "param value in canonical form")

    try:
        insert()
        check(False, "duplicate INSERT fails")
    except grpc.RpcError as err:
        check(err.code() == grpc.StatusCode.UNKNOWN, "duplicate INSERT: UNKNOWN")
        details = dict(err.trailing_metadata()).get("grpc-status-details-bin")
        st = status_pb2.Status.FromString(details)
        errs = [p4runtime_pb2.Error.FromString(a.value) for a in st.details]
        check([x.canonical_code for x in errs] == [code_pb2.ALREADY_EXISTS], "per-update error ALREADY_EXISTS")
    c.close()
    print("smoke check passed")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9559")
