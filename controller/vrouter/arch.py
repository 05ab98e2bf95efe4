"""What differs for the controller between vrouter.p4's architectures (docs/porting.md §5).

The controller runs the same code against p4src/vrouter.p4 (v1model: p4switch, BMv2) and
p4src/tna/vrouter.p4 (TNA: Tofino): the TNA program keeps the v1model names and pinned ids
of every table, action, counter, meter and digest the controller uses.  What is left differs
by architecture and lives here, chosen from the P4Info's `pkg_info.arch`:

- the device config `pipeline.config` names (BMv2 JSON, or bf-p4c's output for Tofino);
- the CPU port (p4switch's 255 is no Tofino port) and the mirror (clone) session id range
  (TNA's MirrorId_t is 10 bits, sessions 1..1015);
- digests: found by name, and failing that by their struct (a compiler that ignores the TNA
  program's @name calls them after the Digest instance);
- meter colours: the TNA program maps MeterColor_t to the v1model values itself, so the
  colour counters' index is the same (`color_index`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from p4.config.v1 import p4info_pb2
from p4rt import P4Schema, SchemaError


@dataclass(frozen=True)
class Arch:
    """One architecture's side of the differences."""

    name: str
    default_cpu_port: int | None       # None: the description must name it
    mirror_sessions: range             # clone session ids the target accepts
    meter_colors: dict[str, int]       # the target's colour values (the program maps them to v1model's)

    def device_config_problems(self, file: str, path: Path) -> list[str]:
        """Why `pipeline.config` cannot be this architecture's device config (empty: it can)."""
        try:
            data = path.read_bytes()
        except OSError as exc:
            return [f"{file}: pipeline.config: cannot read {path}: {exc.strerror}; compile the program first "
                    "(make build-p4)"]
        bmv2 = _bmv2_json_missing(data)
        if self.name == "v1model":
            if bmv2 is None:
                return []
            if bmv2.startswith("JSON:"):
                return [f"{file}: pipeline.config: {path} is not {bmv2}"]
            return [f"{file}: pipeline.config: {path} is not BMv2 JSON (no {bmv2})"]
        if not data:
            return [f"{file}: pipeline.config: {path} is empty"]
        if bmv2 is None:
            return [f"{file}: pipeline.config: {path} is BMv2 JSON, but the P4Info is for {self.name}: give the "
                    "target compiler's output (Tofino: bf-p4c's tofino.bin, context.json and bfrt.json, "
                    "packed as the switch expects)"]
        return []

    def switch_problems(self, where: str, cpu_port: int, clone_session: int) -> list[str]:
        """The CPU port and the CPU clone session of one switch, against this target."""
        out = []
        if self.default_cpu_port is None and cpu_port == 255:
            out.append(f"{where}.cpu_port: 255 is p4switch's CPU port; a {self.name} switch has its own "
                       "(build the program with -DCPU_PORT_NUMBER=N and set cpu_port: N)")
        if clone_session not in self.mirror_sessions:
            out.append(f"{where}: clone session {clone_session} is outside {self.name}'s mirror sessions "
                       f"{self.mirror_sessions.start}..{self.mirror_sessions.stop - 1}")
        return out

    def digest(self, schema: P4Schema, struct: str):
        """The digest of `struct` (e.g. mac_learn_digest_t): by name, else by its struct type."""
        try:
            return schema.digests.get(struct)
        except SchemaError:
            found = [d for d in schema.digests
                     if d.type_spec is not None and d.type_spec.struct.name == struct]
            if len(found) == 1:
                return found[0]
            raise

    def color_index(self, index: int, color: str) -> int:
        """Index of a policer's colour counter (the program counts v1model colour values)."""
        return index * 4 + V1MODEL.meter_colors[color]


V1MODEL = Arch("v1model", 255, range(0, 1 << 15), {"GREEN": 0, "YELLOW": 1, "RED": 2})
TNA = Arch("tna", None, range(1, 1016), {"GREEN": 0, "YELLOW": 1, "RED": 3})
ARCHES = {a.name: a for a in (V1MODEL, TNA)}


def arch_of(info: p4info_pb2.P4Info | P4Schema) -> Arch:
    """The architecture a P4Info was compiled for (pkg_info.arch; none given: v1model)."""
    if isinstance(info, P4Schema):
        info = info.p4info
    name = (info.pkg_info.arch or "v1model").lower()
    try:
        return ARCHES[name]
    except KeyError:
        raise ValueError(f"P4Info pkg_info.arch {info.pkg_info.arch!r} is not supported "
                         f"(supported: {', '.join(ARCHES)})") from None


def _bmv2_json_missing(data: bytes) -> str | None:
    """None if `data` is BMv2 JSON, else what it lacks."""
    try:
        doc = json.loads(data)
    except ValueError as exc:
        return f"JSON: {exc}"
    if not isinstance(doc, dict):
        return "a JSON object"
    missing = [k for k in ("header_types", "headers", "parsers", "pipelines", "actions") if k not in doc]
    return ", ".join(missing) or None
