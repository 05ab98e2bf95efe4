"""P4Runtime client: connection, arbitration, pipeline, writes, reads and the stream channel."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from .codec import CodecError
from .entity import (
    CloneSessionEntry,
    decode_entity,
    table_entry_key,
    DigestList,
    Entity,
    EntityError,
    IdleTimeout,
    MulticastGroupEntry,
    PacketIn,
    PacketOut,
    Update,
)
from .errors import P4RuntimeError, P4RuntimeWriteError, UpdateError, code_name, rpc_error, status_details
from .schema import P4Schema, SchemaError, load_p4info

log = logging.getLogger("p4rt")

_MAX_MESSAGE = 256 * 1024 * 1024
_MAX_METADATA = 64 * 1024 * 1024    # trailers of a failed batch: one p4.v1.Error per update
_CLOSE = object()
_DELETE_IN_FLIGHT = 4  # delete_all: Write RPCs outstanding for one kind of entity


@dataclass
class Pipeline:
    """A forwarding pipeline config as read from a switch."""

    p4info: p4info_pb2.P4Info | None
    device_config: bytes
    cookie: int | None


@dataclass
class Arbitration:
    """The switch's latest arbitration answer for this client."""

    is_primary: bool
    primary_election_id: int
    code: str
    message: str


def tls_credentials(ca: str | Path | None = None, cert: str | Path | None = None,
                    key: str | Path | None = None) -> grpc.ChannelCredentials:
    """TLS for a switch's gRPC server: `ca` verifies the server (default: the system's roots);
    `cert` and `key` (PEM files) are this client's certificate, for servers that require one."""
    def read(path: str | Path | None, what: str) -> bytes | None:
        if path is None:
            return None
        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise P4RuntimeError("connect", None, f"cannot read the TLS {what} {path}: {exc.strerror}") from exc

    if (cert is None) != (key is None):
        raise P4RuntimeError("connect", None, "a TLS client certificate needs its key, and a key its certificate")
    return grpc.ssl_channel_credentials(read(ca, "CA certificate"), read(key, "key"), read(cert, "certificate"))


def _uint128(value: int) -> p4runtime_pb2.Uint128:
    if not 0 <= value < 1 << 128:
        raise ValueError(f"election id {value} is not a 128-bit unsigned integer")
    return p4runtime_pb2.Uint128(high=value >> 64, low=value & ((1 << 64) - 1))


class Switch:
    """A P4Runtime connection to one device, as one controller with an election id and role.

    Use as a context manager: `with Switch("127.0.0.1:9559", election_id=1) as sw: ...`.
    """

    def __init__(
        self,
        address: str = "127.0.0.1:9559",
        *,
        device_id: int = 0,
        election_id: int = 1,
        role: str = "",
        schema: P4Schema | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        server_name: str | None = None,
        rpc_timeout: float = 60.0,
        backoff: tuple[float, float] = (0.05, 2.0),
        queue_limits: tuple[int, int, int] = (4096, 1024, 4096),
    ) -> None:
        self.address = address
        self.device_id = device_id
        self.election_id = election_id
        self.role = role
        self._schema = schema
        self._credentials = credentials        # TLS (tls_credentials()); None: plaintext
        self.server_name = server_name          # the name the server's certificate must carry, if not the host's
        self.rpc_timeout = rpc_timeout
        self.backoff = backoff
        self._channel: grpc.Channel | None = None
        self._stub: p4runtime_pb2_grpc.P4RuntimeStub | None = None
        self._requests: queue.SimpleQueue | None = None
        self._call = None
        self._reader: threading.Thread | None = None
        self._closed = threading.Event()
        self._cond = threading.Condition()
        self._arbitration: Arbitration | None = None
        self._stream_error: P4RuntimeError | None = None
        self._established = False
        self.reconnects = 0
        # Bounded: a flood of packet-ins or digests is dropped (and counted in `dropped`), not stored.
        packet_ins, digests, idle = queue_limits
        self.packet_in_queue: queue.Queue[PacketIn] = queue.Queue(packet_ins)
        self.digest_queue: queue.Queue[DigestList] = queue.Queue(digests)
        self.idle_timeout_queue: queue.Queue[IdleTimeout] = queue.Queue(idle)
        self.stream_errors: queue.Queue[p4runtime_pb2.StreamError] = queue.Queue(1024)
        self.dropped = {"packet": 0, "digest": 0, "idle_timeout_notification": 0, "error": 0}

    # --- connection and arbitration -----------------------------------------------------

    def __enter__(self) -> Switch:
        return self.connect()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def connect(self, timeout: float = 10.0, stream: bool = True) -> Switch:
        """Open the channel and the stream, send arbitration and wait for the switch's answer.

        With `stream=False` no StreamChannel is opened: a read-only client (Read, GetForwardingPipelineConfig
        and Capabilities need no arbitration), which takes no election id from the controllers.
        """
        if self._channel is not None:
            return self
        # A failed Write carries one error per update in its trailers: 1,000 of them
        # exceed gRPC's default 16 KiB metadata limit, so raise it like the message limits.
        # gRPC's own reconnect backoff (1 s, growing to 120 s) would hold a restarted switch
        # unreachable long after it listens again: follow this client's backoff instead.
        first_ms, cap_ms = int(self.backoff[0] * 1000), int(self.backoff[1] * 1000)
        options = [("grpc.max_send_message_length", _MAX_MESSAGE), ("grpc.max_receive_message_length", _MAX_MESSAGE),
                   ("grpc.max_metadata_size", _MAX_METADATA),
                   ("grpc.initial_reconnect_backoff_ms", first_ms), ("grpc.min_reconnect_backoff_ms", first_ms),
                   ("grpc.max_reconnect_backoff_ms", cap_ms)]
        if self._credentials is not None:
            if self.server_name:
                options.append(("grpc.ssl_target_name_override", self.server_name))
            self._channel = grpc.secure_channel(self.address, self._credentials, options=options)
        else:
            self._channel = grpc.insecure_channel(self.address, options=options)
        self._stub = p4runtime_pb2_grpc.P4RuntimeStub(self._channel)
        self._closed.clear()
        self._established = False
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError as exc:
            why = self._why_unreachable()
            self.close()
            raise P4RuntimeError("connect", grpc.StatusCode.UNAVAILABLE,
                                 f"no P4Runtime server answered at {self.address} within {timeout:g} s{why}") from exc
        if not stream:
            return self
        self._open_stream()
        self._reader = threading.Thread(target=self._read_stream, name=f"p4rt-stream-{self.address}", daemon=True)
        self._reader.start()
        try:
            self.wait_arbitration(timeout, fail_on_stream_error=True)
        except P4RuntimeError:
            self.close()
            raise
        return self

    def _why_unreachable(self) -> str:
        """gRPC's reason for the last failed connection attempt (e.g. a TLS handshake the server refused)."""
        try:
            self._stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=1)
        except grpc.RpcError as exc:
            details = exc.details() if hasattr(exc, "details") else ""
            return f" ({details})" if details else ""
        return ""

    def close(self) -> None:
        """Close the stream and the channel (the switch then elects a new primary)."""
        self._closed.set()
        if self._requests is not None:
            self._requests.put(_CLOSE)
        if self._call is not None:
            self._call.cancel()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=5)
        if self._channel is not None:
            self._channel.close()
        self._channel = self._stub = self._call = self._reader = self._requests = None
        with self._cond:
            self._arbitration = None
            self._cond.notify_all()

    def _open_stream(self) -> None:
        requests: queue.SimpleQueue = queue.SimpleQueue()

        def request_iterator() -> Iterator[p4runtime_pb2.StreamMessageRequest]:
            while True:
                item = requests.get()
                if item is _CLOSE:
                    return
                yield item

        old = self._requests
        self._requests = requests
        if old is not None:
            old.put(_CLOSE)
        with self._cond:
            self._arbitration = None
            self._stream_error = None
        # A reopened stream waits for the channel to connect (gRPC retries on this client's
        # backoff) instead of failing at once and being retried on top of that.
        self._call = self._stub.StreamChannel(request_iterator(), wait_for_ready=self._established or None)
        requests.put(self._arbitration_request())

    def _arbitration_request(self) -> p4runtime_pb2.StreamMessageRequest:
        update = p4runtime_pb2.MasterArbitrationUpdate(device_id=self.device_id,
                                                        election_id=_uint128(self.election_id))
        if self.role:
            update.role.name = self.role
        return p4runtime_pb2.StreamMessageRequest(arbitration=update)

    def _read_stream(self) -> None:
        delay = self.backoff[0]
        while not self._closed.is_set():
            call = self._call
            error: P4RuntimeError | None = None
            try:
                for msg in call:
                    delay = self.backoff[0]
                    self._dispatch(msg)
                error = P4RuntimeError("StreamChannel", grpc.StatusCode.UNAVAILABLE, "the switch closed the stream")
            except grpc.RpcError as exc:
                error = rpc_error("StreamChannel", exc)
            except Exception as exc:  # a decoding bug must not kill the stream silently
                log.exception("p4rt: error handling a stream message")
                error = P4RuntimeError("StreamChannel", None, f"client error: {exc}")
            if self._closed.is_set():
                break
            with self._cond:
                self._stream_error = error
                self._arbitration = None
                self._cond.notify_all()
            if not self._established:
                break  # the first stream failed: connect() reports it
            log.warning("p4rt: stream to %s lost (%s); reconnecting in %.1f s", self.address, error, delay)
            if self._closed.wait(delay):
                break
            delay = min(delay * 2, self.backoff[1])
            try:
                self._open_stream()
                self.reconnects += 1
            except Exception as exc:  # channel closed under us
                log.warning("p4rt: reconnect to %s failed: %s", self.address, exc)

    def _dispatch(self, msg: p4runtime_pb2.StreamMessageResponse) -> None:
        try:
            self._dispatch_one(msg)
        except (EntityError, SchemaError, CodecError) as exc:  # one bad message must not end the stream
            log.warning("p4rt: cannot decode %s from the switch: %s", msg.WhichOneof("update"), exc)

    def _dispatch_one(self, msg: p4runtime_pb2.StreamMessageResponse) -> None:
        kind = msg.WhichOneof("update")
        if kind == "arbitration":
            arb = msg.arbitration
            eid = (arb.election_id.high << 64) | arb.election_id.low
            state = Arbitration(arb.status.code == code_pb2.OK, eid, code_name(arb.status.code), arb.status.message)
            with self._cond:
                self._arbitration = state
                self._established = True  # from now on a lost stream is reopened
                self._cond.notify_all()
        elif kind == "packet":
            self._queue(self.packet_in_queue, kind, lambda: PacketIn.decode(msg.packet, self._schema))
        elif kind == "digest":
            self._queue(self.digest_queue, kind, lambda: DigestList.decode(msg.digest, self.schema))
        elif kind == "idle_timeout_notification":
            self._queue(self.idle_timeout_queue, kind,
                        lambda: IdleTimeout.decode(msg.idle_timeout_notification, self.schema))
        elif kind == "error":
            log.warning("p4rt: stream error from switch: %s", msg.error.message)
            self._queue(self.stream_errors, kind, lambda: msg.error)

    def _queue(self, q: queue.Queue, kind: str, decode) -> None:
        """Decode and queue a stream message, or count it dropped when the queue is full (not decoded)."""
        if q.full():
            self.dropped[kind] += 1
            return
        try:
            q.put_nowait(decode())
        except queue.Full:
            self.dropped[kind] += 1

    def wait_arbitration(self, timeout: float = 10.0, *, fail_on_stream_error: bool = False) -> Arbitration:
        """Wait for the switch's arbitration answer (across reconnects unless fail_on_stream_error)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._arbitration is None:
                if fail_on_stream_error and self._stream_error is not None:
                    raise self._stream_error
                left = deadline - time.monotonic()
                if left <= 0:
                    raise P4RuntimeError("StreamChannel", grpc.StatusCode.DEADLINE_EXCEEDED,
                                         f"no arbitration answer from {self.address} within {timeout:g} s")
                self._cond.wait(left)
            return self._arbitration

    @property
    def arbitration(self) -> Arbitration | None:
        """The latest arbitration answer (None while the stream is down)."""
        return self._arbitration

    @property
    def is_primary(self) -> bool:
        """True while the switch has named this client primary."""
        return self._arbitration is not None and self._arbitration.is_primary

    def wait_primary(self, timeout: float = 10.0) -> None:
        """Block until this client is primary (e.g. after the old primary went away)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (self._arbitration is not None and self._arbitration.is_primary):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise P4RuntimeError("StreamChannel", grpc.StatusCode.DEADLINE_EXCEEDED,
                                         f"not primary after {timeout:g} s (last answer: {self._arbitration})")
                self._cond.wait(left)

    def set_election_id(self, election_id: int, timeout: float = 10.0) -> Arbitration:
        """Send a new election id on the stream and return the switch's answer."""
        self.election_id = election_id
        with self._cond:
            self._arbitration = None
        self._send(self._arbitration_request())
        return self.wait_arbitration(timeout)

    def _send(self, msg: p4runtime_pb2.StreamMessageRequest) -> None:
        if self._requests is None:
            raise P4RuntimeError("StreamChannel", grpc.StatusCode.UNAVAILABLE, "not connected")
        self._requests.put(msg)

    # --- schema and pipeline ------------------------------------------------------------

    @property
    def schema(self) -> P4Schema:
        """The P4Info schema in use (set by set_pipeline or load_schema)."""
        if self._schema is None:
            raise SchemaError("no P4Info known for this switch: call set_pipeline() or load_schema() first")
        return self._schema

    @schema.setter
    def schema(self, value: P4Schema) -> None:
        self._schema = value

    def _stub_or_fail(self) -> p4runtime_pb2_grpc.P4RuntimeStub:
        if self._stub is None:
            raise P4RuntimeError("connect", grpc.StatusCode.UNAVAILABLE, "not connected; call connect() first")
        return self._stub

    def capabilities(self) -> str:
        """The P4Runtime API version the switch implements."""
        try:
            reply = self._stub_or_fail().Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            raise rpc_error("Capabilities", exc) from exc
        return reply.p4runtime_api_version

    def set_pipeline(
        self,
        p4info: str | Path | p4info_pb2.P4Info | P4Schema,
        device_config: str | Path | bytes,
        *,
        action: str = "VERIFY_AND_COMMIT",
        cookie: int | None = None,
    ) -> None:
        """Install a P4 program: a P4Info (file, message or schema) and its device config (BMv2 JSON)."""
        if isinstance(p4info, P4Schema):
            info = p4info.p4info
        elif isinstance(p4info, p4info_pb2.P4Info):
            info = p4info
        else:
            info = load_p4info(p4info)
        if isinstance(device_config, (str, Path)):
            try:
                data = Path(device_config).read_bytes()
            except OSError as exc:
                raise P4RuntimeError("SetForwardingPipelineConfig", None,
                                     f"cannot read device config {device_config}: {exc.strerror}") from exc
        else:
            data = bytes(device_config)
        try:
            action_value = p4runtime_pb2.SetForwardingPipelineConfigRequest.Action.Value(action)
        except ValueError as exc:
            raise ValueError(f"unknown pipeline action {action!r}") from exc
        config = p4runtime_pb2.ForwardingPipelineConfig(p4info=info, p4_device_config=data)
        if cookie is not None:
            config.cookie.cookie = cookie
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, election_id=_uint128(self.election_id), action=action_value, config=config,
            role=self.role,
        )
        try:
            self._stub_or_fail().SetForwardingPipelineConfig(request, timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            raise rpc_error("SetForwardingPipelineConfig", exc) from exc
        if action not in ("VERIFY", "VERIFY_AND_SAVE"):
            self._schema = P4Schema(info)

    def get_pipeline(self, response_type: str = "ALL") -> Pipeline:
        """Read the running pipeline config (ALL, COOKIE_ONLY, P4INFO_AND_COOKIE, DEVICE_CONFIG_AND_COOKIE)."""
        try:
            rtype = p4runtime_pb2.GetForwardingPipelineConfigRequest.ResponseType.Value(response_type)
        except ValueError as exc:
            raise ValueError(f"unknown response type {response_type!r}") from exc
        request = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=self.device_id, response_type=rtype)
        try:
            reply = self._stub_or_fail().GetForwardingPipelineConfig(request, timeout=self.rpc_timeout)
        except grpc.RpcError as exc:
            raise rpc_error("GetForwardingPipelineConfig", exc) from exc
        cfg = reply.config
        return Pipeline(
            cfg.p4info if cfg.HasField("p4info") else None,
            cfg.p4_device_config,
            cfg.cookie.cookie if cfg.HasField("cookie") else None,
        )

    def load_schema(self) -> P4Schema:
        """Take the P4Info from the running switch and use it as this client's schema."""
        pipeline = self.get_pipeline("P4INFO_AND_COOKIE")
        if pipeline.p4info is None:
            raise P4RuntimeError("GetForwardingPipelineConfig", None, "the switch returned no P4Info")
        self._schema = P4Schema(pipeline.p4info)
        return self._schema

    # --- writes -------------------------------------------------------------------------

    def write(
        self,
        updates: Iterable[Update],
        *,
        atomicity: str = "CONTINUE_ON_ERROR",
        batch_size: int = 1000,
        in_flight: int = 1,
    ) -> None:
        """Send updates in batches; raise P4RuntimeWriteError naming every failed update.

        By default every batch is encoded before the first is sent (a bad entity writes nothing)
        and each waits for the previous one's reply. `in_flight` > 1 keeps up to that many Write
        RPCs outstanding and encodes each batch while the ones before it are on their way:
        P4Runtime orders nothing between RPCs in flight, so only for updates that do not depend
        on each other (no insert of what another batch deletes, no member before its group); a
        bad entity then raises EntityError once the batches before its own have been answered.
        """
        updates = list(updates)
        batch_size = max(1, batch_size)
        self.write_batches([updates[i:i + batch_size] for i in range(0, len(updates), batch_size)],
                           atomicity=atomicity, in_flight=in_flight)

    def write_batches(
        self,
        batches: Iterable[Iterable[Update]],
        *,
        atomicity: str = "CONTINUE_ON_ERROR",
        in_flight: int = 1,
    ) -> None:
        """Send each batch as one WriteRequest, in order, `in_flight` at a time (see `write`).
        Errors name the update by its index in the concatenation of the batches."""
        batches = [list(batch) for batch in batches]
        updates = [u for batch in batches for u in batch]
        for i, u in enumerate(updates):
            if not isinstance(u, Update):
                raise TypeError(f"update #{i} is a {type(u).__name__}, not an Update: use insert()/modify()/delete()")
        try:
            atomicity_value = p4runtime_pb2.WriteRequest.Atomicity.Value(atomicity)
        except ValueError as exc:
            raise ValueError(f"unknown atomicity {atomicity!r}") from exc
        election_id = _uint128(self.election_id)  # range check
        schema = self._schema  # None: only entities that need no P4Info can be written

        def requests() -> Iterator[tuple[int, int, p4runtime_pb2.WriteRequest]]:
            start = 0
            for batch in batches:
                if not batch:
                    continue
                request = p4runtime_pb2.WriteRequest(device_id=self.device_id, election_id=election_id,
                                                     role=self.role, atomicity=atomicity_value)
                add = request.updates.add
                for u in batch:
                    u.encode_into(schema if schema is not None or not _needs_schema(u) else self.schema, add())
                yield start, len(batch), request
                start += len(batch)

        in_flight = max(1, in_flight)
        send = self._stub_or_fail().Write
        _WriteRound(send, self.rpc_timeout, updates).run(list(requests()) if in_flight == 1 else requests(), in_flight)

    def insert(self, entities: Entity | Iterable[Entity], **kwargs: Any) -> None:
        """INSERT one or more entities."""
        self.write([Update("INSERT", e) for e in _many(entities)], **kwargs)

    def modify(self, entities: Entity | Iterable[Entity], **kwargs: Any) -> None:
        """MODIFY one or more entities."""
        self.write([Update("MODIFY", e) for e in _many(entities)], **kwargs)

    def delete(self, entities: Entity | Iterable[Entity], **kwargs: Any) -> None:
        """DELETE one or more entities."""
        self.write([Update("DELETE", e) for e in _many(entities)], **kwargs)

    # --- reads --------------------------------------------------------------------------

    def read_raw(self, entities: Iterable[p4runtime_pb2.Entity], *,
                 request: p4runtime_pb2.ReadRequest | None = None) -> Iterator[p4runtime_pb2.Entity]:
        """Read with raw p4.v1.Entity messages (wildcards: leave ids at 0)."""
        if request is None:
            request = p4runtime_pb2.ReadRequest(device_id=self.device_id, role=self.role, entities=list(entities))
        try:
            for reply in self._stub_or_fail().Read(request, timeout=self.rpc_timeout):
                yield from reply.entities
        except grpc.RpcError as exc:
            raise rpc_error("Read", exc) from exc

    def read(self, entities: Entity | Iterable[Entity]) -> Iterator[Entity]:
        """Read entities; unset names, ids, indexes and matches act as wildcards."""
        schema = self.schema
        request = p4runtime_pb2.ReadRequest(device_id=self.device_id, role=self.role,
                                            entities=[e.encode(schema) for e in _many(entities)])
        for msg in self.read_raw([], request=request):
            yield decode_entity(msg, schema)

    def delete_all(self, *, reset_defaults: bool = True) -> int:
        """Clear the switch to a clean slate; returns the number of deletions sent.

        Deletes every non-const table entry, action profile group and member, multicast
        group, clone session and digest config, and resets modifiable default entries.
        """
        E = p4runtime_pb2.Entity
        deletions = [key for key in map(table_entry_key, self.read_raw([E(table_entry={})])) if key is not None]
        if self._schema is not None:  # BMv2 reads a const table's entries without is_const: never delete them
            const = {t.id for t in self._schema.tables if t.is_const}
            deletions = [key for key in deletions if key.table_entry.table_id not in const]
        count = self._delete(deletions)
        # Profiles are read only now: BMv2 refuses to read members and groups of a selector that
        # table entries still program in one-shot mode.
        groups, members, others = {}, {}, {}
        for msg in self._read_if_supported([E(action_profile_group={}), E(action_profile_member={})]):
            if msg.HasField("action_profile_group"):
                g = msg.action_profile_group
                groups[g.action_profile_id, g.group_id] = E(action_profile_group={
                    "action_profile_id": g.action_profile_id, "group_id": g.group_id})
            else:  # keyed: BMv2 reads a member once per unit of its largest weight in a group
                m = msg.action_profile_member
                members[m.action_profile_id, m.member_id] = E(action_profile_member={
                    "action_profile_id": m.action_profile_id, "member_id": m.member_id})
        pre_reads = [
            E(packet_replication_engine_entry={"multicast_group_entry": {}}),
            E(packet_replication_engine_entry={"clone_session_entry": {}}),
        ]
        for msg in self._read_if_supported(pre_reads):
            pre = msg.packet_replication_engine_entry
            if pre.HasField("multicast_group_entry"):
                gid = pre.multicast_group_entry.multicast_group_id
                others["mc", gid] = E(packet_replication_engine_entry={"multicast_group_entry": {"multicast_group_id": gid}})
            elif pre.HasField("clone_session_entry"):
                sid = pre.clone_session_entry.session_id
                others["clone", sid] = E(packet_replication_engine_entry={"clone_session_entry": {"session_id": sid}})
        if self._schema is not None and len(self._schema.digests):
            # one by one: BMv2 refuses a wildcard digest read (UNIMPLEMENTED) and answers an
            # unconfigured digest with NOT_FOUND
            for digest in self._schema.digests:
                for msg in self._read_if_supported([E(digest_entry={"digest_id": digest.id})], absent=True):
                    if msg.digest_entry.HasField("config"):
                        others["digest", digest.id] = E(digest_entry={"digest_id": digest.id})
        for batch in (groups, members, others):
            count += self._delete(list(batch.values()))
        if reset_defaults and self._schema is not None:
            resets = [
                Update("MODIFY", E(table_entry={"table_id": t.id, "is_default_action": True}))
                for t in self._schema.tables
                if not t.const_default_action_id and not t.is_const and not t.implementation_id
            ]
            if resets:
                self.write(resets)
        return count

    def _delete(self, keys: list[p4runtime_pb2.Entity]) -> int:
        """Delete entities of one kind (they do not depend on each other: several RPCs in flight)."""
        if keys:
            self.write([Update("DELETE", e) for e in keys], in_flight=_DELETE_IN_FLIGHT)
        return len(keys)

    def _read_if_supported(self, entities: list[p4runtime_pb2.Entity], absent: bool = False) -> list[p4runtime_pb2.Entity]:
        """Read entities, treating a switch that cannot read them (UNIMPLEMENTED) as having none;
        with `absent`, NOT_FOUND also means none."""
        try:
            return list(self.read_raw(entities))
        except P4RuntimeError as exc:
            if exc.code == grpc.StatusCode.UNIMPLEMENTED:
                log.info("p4rt: delete_all: the switch cannot read %s; skipped", entities[0].WhichOneof("entity"))
                return []
            if absent and exc.code == grpc.StatusCode.NOT_FOUND:
                return []
            raise

    # --- stream: packets, digests, idle timeouts ----------------------------------------

    def packet_out(self, payload: bytes, **metadata: Any) -> None:
        """Send a packet to the switch's CPU port with `packet_out` header fields."""
        self.send_packet(PacketOut(payload, metadata))

    def send_packet(self, packet: PacketOut) -> None:
        """Send a PacketOut."""
        schema = self.schema if packet.metadata else self._schema
        msg = packet.encode(schema) if schema is not None else p4runtime_pb2.PacketOut(payload=packet.payload)
        self._send(p4runtime_pb2.StreamMessageRequest(packet=msg))

    def packet_ins(self, timeout: float | None = None) -> Iterator[PacketIn]:
        """Yield packet-ins as they arrive; stop after `timeout` seconds without one."""
        yield from _drain(self.packet_in_queue, timeout, self._closed)

    def digests(self, timeout: float | None = None, *, auto_ack: bool = True) -> Iterator[DigestList]:
        """Yield digest lists as they arrive (acknowledging each unless auto_ack is False)."""
        for digest in _drain(self.digest_queue, timeout, self._closed):
            if auto_ack:
                self.ack_digest(digest)
            yield digest

    def ack_digest(self, digest: DigestList) -> None:
        """Acknowledge a digest list so the switch may send its data again."""
        ack = p4runtime_pb2.DigestListAck(digest_id=digest.digest_id, list_id=digest.list_id)
        self._send(p4runtime_pb2.StreamMessageRequest(digest_ack=ack))

    def idle_timeouts(self, timeout: float | None = None) -> Iterator[IdleTimeout]:
        """Yield idle-timeout notifications as they arrive; stop after `timeout` s without one."""
        yield from _drain(self.idle_timeout_queue, timeout, self._closed)


class _WriteRound:
    """The Write RPCs of one write(): sent in order, at most `in_flight` awaiting their reply; each
    failed update collected; a batch that fails without per-update errors (no connection, not
    primary) stops the sending and is raised once the RPCs in flight have answered."""

    def __init__(self, send, timeout: float, updates: list[Update]) -> None:
        self.send, self.timeout, self.updates = send, timeout, updates
        self.failures: list[UpdateError] = []
        self.last_exc: grpc.RpcError | None = None
        self.fatal: tuple[int, grpc.RpcError] | None = None

    def run(self, requests: Iterable[tuple[int, int, p4runtime_pb2.WriteRequest]], in_flight: int) -> None:
        """Send `requests` (a generator encodes each while the ones before it are in flight)."""
        if in_flight == 1:
            for start, count, request in requests:
                self._settle(start, count, lambda r=request: self.send(r, timeout=self.timeout))
                if self.fatal is not None:
                    break
        else:
            pending: deque = deque()
            try:
                for start, count, request in requests:
                    while len(pending) >= in_flight:
                        self._settle(*pending.popleft())
                    if self.fatal is not None:
                        break
                    pending.append((start, count, self.send.future(request, timeout=self.timeout).result))
            finally:  # also when encoding failed: the batches sent are answered before raising
                while pending:
                    self._settle(*pending.popleft())
        if self.fatal is not None:
            start, exc = self.fatal
            done = f" (updates 0..{start - 1} were applied before)" if start and in_flight == 1 else ""
            raise P4RuntimeWriteError(exc.code(), f"{exc.details()}{done}", self.failures) from exc
        if self.failures:
            raise P4RuntimeWriteError(self.last_exc.code() if self.last_exc else None, "",
                                      self.failures) from self.last_exc

    def _settle(self, start: int, count: int, wait) -> None:
        try:
            wait()
        except grpc.RpcError as exc:
            details = status_details(exc)
            if not details:
                if self.fatal is None:
                    self.fatal = (start, exc)
                return
            self.last_exc = exc
            for i, error in enumerate(details[:count]):
                if error.canonical_code != code_pb2.OK:
                    index = start + i
                    update = self.updates[index]
                    self.failures.append(UpdateError(index, update.describe(), code_name(error.canonical_code),
                                                     error.message, update.entity))


def _needs_schema(update: Update) -> bool:
    return not isinstance(update.entity, (p4runtime_pb2.Entity, bytes, MulticastGroupEntry, CloneSessionEntry))


def _many(entities: Entity | Iterable[Entity]) -> list[Entity]:
    if isinstance(entities, (Entity, p4runtime_pb2.Entity)):
        return [entities]  # type: ignore[list-item]
    return list(entities)


def _drain(q: queue.Queue, timeout: float | None, closed: threading.Event) -> Iterator[Any]:
    while True:
        try:
            item = q.get(timeout=timeout if timeout is not None else 0.5)
        except queue.Empty:
            if timeout is not None or closed.is_set():
                return
            continue
        yield item

