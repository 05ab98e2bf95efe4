"""p4rt: a small P4Runtime client library (schema, codecs, entities, client)."""

import os

# Every failed RPC is raised as P4RuntimeError with gRPC's reason; gRPC's own log lines on
# stderr (one per failed TLS handshake or reconnect) would only repeat them. Export
# GRPC_VERBOSITY=INFO to see them.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

from .client import Arbitration, Pipeline, Switch, tls_credentials  # noqa: E402
from .codec import CodecError, Format  # noqa: E402
from .entity import (  # noqa: E402
    Action,
    ActionProfileGroup,
    ActionProfileMember,
    CloneSessionEntry,
    CounterData,
    CounterEntry,
    DigestEntry,
    DigestList,
    DirectCounterEntry,
    DirectMeterEntry,
    Entity,
    EntityError,
    GroupMember,
    IdleTimeout,
    MeterConfig,
    MeterCounterData,
    MeterEntry,
    MulticastGroupEntry,
    PacketIn,
    PacketOut,
    RegisterEntry,
    Replica,
    TableEntry,
    Update,
    ValueSetEntry,
    decode_entity,
    delete,
    insert,
    modify,
    table_entry_key,
)
from .errors import P4RuntimeError, P4RuntimeWriteError, UpdateError  # noqa: E402
from .schema import P4Schema, SchemaError, load_p4info  # noqa: E402

__all__ = [
    "Action", "ActionProfileGroup", "ActionProfileMember", "Arbitration", "CloneSessionEntry", "CodecError",
    "CounterData", "CounterEntry", "DigestEntry", "DigestList", "DirectCounterEntry", "DirectMeterEntry", "Entity",
    "EntityError", "Format", "GroupMember", "IdleTimeout", "MeterConfig", "MeterCounterData", "MeterEntry",
    "MulticastGroupEntry", "P4RuntimeError", "P4RuntimeWriteError", "P4Schema", "PacketIn", "PacketOut",
    "Pipeline", "RegisterEntry", "Replica", "SchemaError", "Switch", "TableEntry", "Update", "UpdateError",
    "ValueSetEntry", "decode_entity", "delete", "insert", "load_p4info", "modify", "table_entry_key",
    "tls_credentials",
]
