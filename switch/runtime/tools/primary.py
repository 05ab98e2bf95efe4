"""A minimal P4Runtime controller on the reference Python protobufs: the set-up that
tools/smoke_check.py and switch/p4switch/bench/stop-idle.sh share.

    python tools/primary.py HOST:PORT PROGRAM.json P4INFO.txtpb [--digests] [--ready FILE]

As a script: becomes primary (election id 1), sets the pipeline (VERIFY_AND_COMMIT),
with --digests configures every digest of the P4Info (a list per digest, 1 s ack
timeout), touches FILE once all that is done, then holds the stream open and prints
how it ended (stop-idle.sh stops the switch under it). As a module: `Primary`.
"""
import argparse
import queue
import sys

import grpc
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2 as p4, p4runtime_pb2_grpc


class Primary:
    """One controller: a stream on which it asked to be primary, and its stub."""

    def __init__(self, addr, election_id=1, device_id=0):
        self.device_id = device_id
        self.election_id = election_id
        self.channel = grpc.insecure_channel(addr)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._requests = queue.Queue()
        arb = p4.StreamMessageRequest()
        arb.arbitration.device_id = device_id
        arb.arbitration.election_id.low = election_id
        self._requests.put(arb)
        self.stream = self.stub.StreamChannel(iter(self._requests.get, None))
        # the first answer: status OK when primary
        self.arbitration = next(self.stream).arbitration

    def write_request(self):
        """An empty WriteRequest from this controller."""
        w = p4.WriteRequest(device_id=self.device_id)
        w.election_id.low = self.election_id
        return w

    def set_pipeline(self, json_path, p4info_path):
        """VERIFY_AND_COMMIT of the BMv2 JSON with the P4Info text; returns the P4Info."""
        with open(p4info_path) as f:
            info = text_format.Parse(f.read(), p4info_pb2.P4Info())
        req = p4.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, action=p4.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        )
        req.election_id.low = self.election_id
        req.config.p4info.CopyFrom(info)
        with open(json_path, "rb") as f:
            req.config.p4_device_config = f.read()
        self.stub.SetForwardingPipelineConfig(req)
        return info

    def configure_digests(self, info, max_list_size=1, ack_timeout_ns=10**9):
        """Inserts a DigestEntry for every digest of `info`; returns how many."""
        w = self.write_request()
        for d in info.digests:
            u = w.updates.add(type=p4.Update.INSERT)
            u.entity.digest_entry.digest_id = d.preamble.id
            u.entity.digest_entry.config.max_list_size = max_list_size
            u.entity.digest_entry.config.ack_timeout_ns = ack_timeout_ns
        if w.updates:
            self.stub.Write(w)
        return len(w.updates)

    def stream_end(self):
        """Reads the stream until it ends; says how."""
        try:
            for _ in self.stream:
                pass
            return "stream ended without a status"
        except grpc.RpcError as e:
            return f'stream ended {e.code().name} "{e.details()}"'

    def close(self):
        self._requests.put(None)
        self.channel.close()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("addr")
    ap.add_argument("json")
    ap.add_argument("p4info")
    ap.add_argument("--digests", action="store_true", help="configure every digest of the P4Info")
    ap.add_argument("--ready", help="touched once set up")
    a = ap.parse_args(argv)
    c = Primary(a.addr)
    info = c.set_pipeline(a.json, a.p4info)
    if a.digests:
        c.configure_digests(info)
    if a.ready:
        open(a.ready, "w").close()
    print(c.stream_end())


if __name__ == "__main__":
    main(sys.argv[1:])
