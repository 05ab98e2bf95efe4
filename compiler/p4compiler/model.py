"""Control-plane model collected during lowering; P4Info is generated from it."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class MatchFieldInfo:
    name: str
    bitwidth: int
    match_type: str          # exact, lpm, ternary, range, optional
    annotations: list = field(default_factory=list)
    type: object = None              # the key expression's type (a `type` or serializable enum goes to type_info)
    type_name: str | None = None


@dataclass
class ActionInfo:
    name: str
    decl: object
    params: list             # (name, bitwidth, param decl)


@dataclass
class TableInfo:
    name: str
    decl: object
    keys: list[MatchFieldInfo]
    actions: list            # (action name, scope: TABLE_AND_DEFAULT/TABLE_ONLY/DEFAULT_ONLY, annotations)
    size: int
    const_default_action: str | None = None
    default_action: str | None = None
    direct_counter: str | None = None
    direct_meter: str | None = None
    implementation: str | None = None
    is_const: bool = False
    idle_timeout: bool = False
    has_initial_entries: bool = False


@dataclass
class ResourceInfo:
    kind: str                # counter, direct_counter, meter, direct_meter, register, action_profile
    name: str
    decl: object = None
    size: int = 0
    unit: str = "BOTH"       # counters: BOTH/BYTES/PACKETS; meters: BYTES/PACKETS
    table: str | None = None
    bitwidth: int = 0
    tables: list = field(default_factory=list)
    with_selector: bool = False
    type_name: str | None = None
    elem_type: object = None         # registers: types.Type of a cell


@dataclass
class DigestInfo:
    name: str
    type: object             # types.Type of the data


@dataclass
class ValueSetInfo:
    name: str
    decl: object
    fields: list             # (name, bitwidth)
    size: int


@dataclass
class Model:
    actions: list[ActionInfo] = field(default_factory=list)
    tables: list[TableInfo] = field(default_factory=list)
    resources: list[ResourceInfo] = field(default_factory=list)
    digests: list[DigestInfo] = field(default_factory=list)
    value_sets: list[ValueSetInfo] = field(default_factory=list)
    H: object = None
    M: object = None

    def add_action(self, name: str, decl, params) -> None:
        known = [a for a in self.actions if a.name == name]
        if not known:
            self.actions.append(ActionInfo(name, decl, params))
        elif not known[0].params:
            known[0].params = params  # a table's copy shows the parameters a direct call bound

    def resource(self, name: str, kind: str | None = None) -> ResourceInfo | None:
        for r in self.resources:
            if r.name == name and (kind is None or r.kind == kind):
                return r
        return None
