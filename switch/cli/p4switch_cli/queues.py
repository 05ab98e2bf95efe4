"""set_queue_depth / set_queue_rate / queue_dump over p4switch's admin service.

P4Runtime has no message for egress queues; p4switch serves them as the small gRPC
service `p4switch.admin.v1.Admin` on the P4Runtime address
(switch/p4switch/proto/p4switch_admin.proto). Its messages are a few integer fields,
encoded directly in protobuf's wire format (with p4rt's wire helpers) rather than
through generated code.
A switch without the service (simple_switch_grpc) answers UNIMPLEMENTED, and the CLI
says the command is not available there.
"""
from __future__ import annotations

from dataclasses import dataclass

import grpc
from p4rt.wire import WireError, field_varint, fields, varint

from .session import Session, need_args, parse_int
from .values import CliError

_SERVICE = "/p4switch.admin.v1.Admin/"


@dataclass
class QueueState:
    port: int = 0
    interface: str = ""
    depth: int = 0
    rate_pps: int = 0
    transmitted: int = 0
    dropped: int = 0
    received: int = 0
    rx_dropped: int = 0


_STATE_FIELDS = {1: "port", 2: "interface", 3: "depth", 4: "rate_pps", 5: "transmitted",
                 6: "dropped", 7: "received", 8: "rx_dropped"}


def encode_request(device_id: int, value: int | None, port: int | None) -> bytes:
    """SetQueueDepth/SetQueueRate (1 device_id, 2 depth or rate, 3 optional port) or
    GetQueues (value None): varint fields, zeros left out except an explicit port."""
    out = field_varint(1, device_id) + field_varint(2, value or 0)
    if port is not None:  # `optional`: present even when 0
        out += varint(3 << 3) + varint(port)
    return out


def decode_reply(data: bytes) -> list[QueueState]:
    """QueueReply: 1 repeated QueueState."""
    states = []
    try:
        for num, value in fields(data):
            if num != 1 or not isinstance(value, bytes):
                continue
            q = QueueState()
            for fnum, fval in fields(value):
                name = _STATE_FIELDS.get(fnum)
                if name == "interface" and isinstance(fval, bytes):
                    q.interface = fval.decode(errors="replace")
                elif name and name != "interface" and isinstance(fval, int):
                    setattr(q, name, fval)
            states.append(q)
    except WireError as exc:
        raise CliError(f"malformed reply from the switch: {exc}") from None
    return states


def call(s: Session, method: str, request: bytes, command: str) -> list[QueueState]:
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
    call(s, method, encode_request(s.sw.device_id, value, port), command)


def set_queue_depth(s: Session, args: list[str]) -> None:
    """Set depth of one / all egress queue(s): set_queue_depth <nb_pkts> [<egress_port>]"""
    _queue_command(s, args, "set_queue_depth", "nb_pkts", "SetQueueDepth")


def set_queue_rate(s: Session, args: list[str]) -> None:
    """Set rate of one / all egress queue(s): set_queue_rate <rate_pps> [<egress_port>] (0 = unlimited)"""
    _queue_command(s, args, "set_queue_rate", "rate_pps", "SetQueueRate")


def queue_dump(s: Session, args: list[str]) -> None:
    """Show every port's egress queue (p4switch only): queue_dump"""
    need_args(args, 0)
    for q in call(s, "GetQueues", encode_request(s.sw.device_id, None, None), "queue_dump"):
        rate = q.rate_pps or "unlimited"
        s.out(f"port {q.port} ({q.interface}): depth {q.depth}, rate {rate} pps, transmitted "
              f"{q.transmitted}, dropped {q.dropped}, received {q.received}, rx dropped {q.rx_dropped}")


COMMANDS = {f.__name__: f for f in (set_queue_depth, set_queue_rate, queue_dump)}
