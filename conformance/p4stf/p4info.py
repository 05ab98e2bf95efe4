"""P4Info lookups by the names STF files use: fully qualified or a unique suffix."""
from __future__ import annotations

import re

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2


class NameError_(LookupError):
    """A name that matches nothing or more than one P4Info object."""


def load(path: str) -> p4info_pb2.P4Info:
    info = p4info_pb2.P4Info()
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith((".bin", ".pb")):
        info.ParseFromString(data)
    elif path.endswith(".json"):
        from google.protobuf import json_format
        json_format.Parse(data.decode(), info)
    else:
        text_format.Parse(data.decode(), info)
    return info


def resolve(objs, name: str, kind: str):
    """Find the object whose name is `name` or ends with '.'+`name` (unique)."""
    def full(o):
        return o.preamble.name if hasattr(o, "preamble") else o.name
    exact = [o for o in objs if full(o) == name]
    if len(exact) == 1:
        return exact[0]
    cands = [o for o in objs if full(o).endswith("." + name)]
    if not cands:
        # p4c's own runner also accepts a plain suffix; keep that as the last resort.
        cands = [o for o in objs if full(o).endswith(name)]
    if len(cands) == 1:
        return cands[0]
    names = sorted(full(o) for o in objs)
    if not cands:
        raise NameError_(f"no {kind} named '{name}' (have: {', '.join(names) or 'none'})")
    raise NameError_(f"{kind} name '{name}' is ambiguous: {', '.join(sorted(full(o) for o in cands))}")


def resolve_key(table, name: str):
    """A table's match field by name, unique suffix, or BMv2-style `$N` stack index."""
    # BMv2-style spellings p4c's STF files use: hdr.h$0.f for hdr.h[0].f and
    # hdr.h.$valid$ for the validity key hdr.h.isValid().
    alt = re.sub(r"\$(\d+)", r"[\1]", name)
    if alt.endswith(".$valid$"):
        alt = alt[: -len(".$valid$")] + ".isValid()"
    for cand in (name, alt):
        for mf in table.match_fields:
            if mf.name == cand:
                return mf
    for cand in (name, alt):
        hits = [mf for mf in table.match_fields if mf.name.endswith("." + cand)]
        if len(hits) == 1:
            return hits[0]
    have = ", ".join(mf.name for mf in table.match_fields)
    raise NameError_(f"table {table.preamble.name} has no key field '{name}' (keys: {have})")


class Schema:
    """Index of a P4Info by kind and id."""

    def __init__(self, info: p4info_pb2.P4Info):
        self.info = info
        self.actions = {a.preamble.id: a for a in info.actions}

    def table(self, name):
        return resolve(self.info.tables, name, "table")

    def action_of_table(self, table, name):
        acts = [self.actions[r.id] for r in table.action_refs if r.id in self.actions]
        return resolve(acts, name, f"action of table {table.preamble.name}")

    def action(self, name):
        return resolve(self.info.actions, name, "action")

    def profile(self, name):
        return resolve(self.info.action_profiles, name, "action profile")

    def profile_by_id(self, pid):
        for p in self.info.action_profiles:
            if p.preamble.id == pid:
                return p
        return None

    def counter(self, name):
        objs = list(self.info.counters) + list(self.info.direct_counters)
        return resolve(objs, name, "counter")

    def meter(self, name):
        return resolve(self.info.meters, name, "meter")

    def register(self, name):
        return resolve(self.info.registers, name, "register")
