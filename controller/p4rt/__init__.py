"""p4rt: a small P4Runtime client library (schema, codecs, entities, client)."""

import os

# p4runtime's generated modules predate protobuf's upb backend; use the pure-Python one.
os.environ.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")

from .client import Arbitration, Pipeline, Switch  # noqa: E402
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
)
from .errors import P4RuntimeError, P4RuntimeWriteError, UpdateError  # noqa: E402
from .schema import P4Schema, SchemaError, load_p4info  # noqa: E402

__all__ = [
    "Action", "ActionProfileGroup", "ActionProfileMember", "Arbitration", "CloneSessionEntry", "CodecError",
    "CounterData", "CounterEntry", "DigestEntry", "DigestList", "DirectCounterEntry", "DirectMeterEntry", "Entity",
    "EntityError", "Format", "GroupMember", "IdleTimeout", "MeterConfig", "MeterCounterData", "MeterEntry",
    "MulticastGroupEntry", "P4RuntimeError", "P4RuntimeWriteError", "P4Schema", "PacketIn", "PacketOut",
    "Pipeline", "RegisterEntry", "Replica", "SchemaError", "Switch", "TableEntry", "Update", "UpdateError",
    "ValueSetEntry", "decode_entity", "delete", "insert", "load_p4info", "modify",
]
