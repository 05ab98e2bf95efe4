"""set_queue_depth / set_queue_rate / queue_dump over p4switch's admin service.

P4Runtime has no message for egress queues; p4switch serves them as the small gRPC
service `p4switch.admin.v1.Admin` on the P4Runtime address
(switch/p4switch/proto/p4switch_admin.proto). The message classes are compiled from that
file when first needed (grpcio-tools, as pinned in requirements.txt), so the CLI and the
switch read one definition.
A switch without the service (simple_switch_grpc) answers UNIMPLEMENTED, and the CLI
says the command is not available there.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import grpc

from .session import Session, need_args, parse_int
from .values import CliError

_SERVICE = "/p4switch.admin.v1.Admin/"
PROTO_DIR = Path(__file__).resolve().parents[2] / "p4switch" / "proto"


@functools.cache
def messages():
    """The admin service's message classes (module of p4switch_admin.proto)."""
    sys.path.insert(0, str(PROTO_DIR))
    try:
        return grpc.protos("p4switch_admin.proto")
    finally:
        sys.path.remove(str(PROTO_DIR))


def encode_request(method: str, device_id: int, value: int | None, port: int | None) -> bytes:
    """The request of `method` (SetQueueDepth, SetQueueRate or GetQueues), serialized."""
    m = messages()
    if method == "GetQueues":
        return m.GetQueuesRequest(device_id=device_id).SerializeToString()
    cls, field = (m.SetQueueDepthRequest, "depth") if method == "SetQueueDepth" else (m.SetQueueRateRequest, "rate_pps")
    req = cls(device_id=device_id, **{field: value or 0})
    if port is not None:       # `optional`: present even when 0
        req.port = port
    return req.SerializeToString()


def decode_reply(data: bytes) -> list:
    """QueueReply's queues (QueueState messages)."""
    reply = messages().QueueReply()
    try:
        reply.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError
        raise CliError(f"malformed reply from the switch: {exc}") from None
    return list(reply.queues)


def call(s: Session, method: str, request: bytes, command: str) -> list:
    """One admin RPC on the session's switch address."""
    with grpc.insecure_channel(s.sw.address) as channel:
        rpc = channel.unary_unary(_SERVICE + method, request_serializer=None, response_deserializer=None)
        try:
            reply = rpc(request, timeout=10)
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.UNIMPLEMENTED:
                raise CliError(f"{command} is not available: the switch has no p4switch admin service "
                               f"(queue control is p4switch's; UNIMPLEMENTED)") from None
            raise CliError(f"{code.name}: {exc.details()}") from None
    return decode_reply(reply)


def _queue_command(s: Session, args: list[str], command: str, what: str, method: str) -> None:
    need_args(args, 1, at_least=True)
    if len(args) > 3:
        raise CliError(f"Wrong number of args, expected at most 3 but got {len(args)}")
    value = parse_int(args[0], what)
    port = parse_int(args[1], "egress_port") if len(args) > 1 else None
    if len(args) == 3:
        raise CliError("priority queues are not supported: p4switch has one egress queue per port")
    call(s, method, encode_request(method, s.sw.device_id, value, port), command)


def set_queue_depth(s: Session, args: list[str]) -> None:
    """Set depth of one / all egress queue(s): set_queue_depth <nb_pkts> [<egress_port>]"""
    _queue_command(s, args, "set_queue_depth", "nb_pkts", "SetQueueDepth")


def set_queue_rate(s: Session, args: list[str]) -> None:
    """Set rate of one / all egress queue(s): set_queue_rate <rate_pps> [<egress_port>] (0 = unlimited)"""
    _queue_command(s, args, "set_queue_rate", "rate_pps", "SetQueueRate")


def queue_dump(s: Session, args: list[str]) -> None:
    """Show every port's egress queue (p4switch only): queue_dump"""
    need_args(args, 0)
    for q in call(s, "GetQueues", encode_request("GetQueues", s.sw.device_id, None, None), "queue_dump"):
        rate = q.rate_pps or "unlimited"
        s.out(f"port {q.port} ({q.interface}): depth {q.depth}, rate {rate} pps, transmitted "
              f"{q.transmitted}, dropped {q.dropped}, received {q.received}, rx dropped {q.rx_dropped}")


COMMANDS = {f.__name__: f for f in (set_queue_depth, set_queue_rate, queue_dump)}
