"""p4rt: a small P4Runtime client library (schema, codecs, entities, client)."""

from .client import Arbitration, Pipeline, Switch
from .codec import CodecError, Format
from .entity import (
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
from .errors import P4RuntimeError, P4RuntimeWriteError, UpdateError
from .schema import P4Schema, SchemaError, load_p4info

__all__ = [
    "Action", "ActionProfileGroup", "ActionProfileMember", "Arbitration", "CloneSessionEntry", "CodecError",
    "CounterData", "CounterEntry", "DigestEntry", "DigestList", "DirectCounterEntry", "DirectMeterEntry", "Entity",
    "EntityError", "Format", "GroupMember", "IdleTimeout", "MeterConfig", "MeterCounterData", "MeterEntry",
    "MulticastGroupEntry", "P4RuntimeError", "P4RuntimeWriteError", "P4Schema", "PacketIn", "PacketOut",
    "Pipeline", "RegisterEntry", "Replica", "SchemaError", "Switch", "TableEntry", "Update", "UpdateError",
    "ValueSetEntry", "decode_entity", "delete", "insert", "load_p4info", "modify", "table_entry_key",
]
