"""Lowering state of one block being translated: the primitives of the BMv2 action (or
parser state) being built, and the context of the block instance that names resolve in.

Every field is declared here; lowering never adds attributes of its own to these objects."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

from .bmv2 import bmv2_param, const
from .diag import Span


@dataclass(eq=False)
class CallFrame:
    """An action or function being inlined into the body: where its `return` jumps go (patched
    to the end of its code), its result, and its out/inout arguments to copy back."""
    caller: "Ctx"
    copy_back: list                   # (argument, temporary, caller's location) triples
    ret: object = None                # Loc of the function's result, if it has one
    jumps: list = field(default_factory=list)   # indexes of `return` jumps
    tail: object = None               # the body's last statement if it is a `return`: it needs no jump


@dataclass(eq=False)
class ActionBody:
    """Primitive calls of one BMv2 action (or parser state) being built."""
    prims: list = field(default_factory=list)
    runtime_data: list = field(default_factory=list)
    in_parser: bool = False
    end_jumps: list = field(default_factory=list)   # indexes of _jump to the end of the action
    return_stack: list[CallFrame] = field(default_factory=list)  # the callees being inlined, innermost last

    def emit(self, op: str, params: list, span: Span | None = None, doc=None) -> int:
        # BMv2 builds a parser `verify`'s operands as plain expressions; every other op takes parameters.
        if op == "set" and params[1].get("type") not in ("field", "hexstr", "lookahead", "expression"):
            params = [params[0], {"type": "expression", "value": params[1]}]  # e.g. a stack_field source
        p = {"op": op, "parameters": params if op == "verify" else [bmv2_param(x) for x in params]}
        if span is not None and doc is not None:
            si = doc.source_info(span)
            if si:
                p["source_info"] = si
        self.prims.append(p)
        return len(self.prims) - 1

    def patch(self, idx: int, target: int) -> None:
        params = self.prims[idx]["parameters"]
        params[-1] = const(target)


@dataclass(eq=False)
class Ctx:
    """Lowering context of one block instance (control, parser, action or function body):
    where its names are stored (`env`, then the parents'), and what its statements need."""
    prefix: str                       # control-plane name prefix of the instance ("" at the top)
    decl: object                      # the declaration being lowered
    env: dict = field(default_factory=dict)   # declaration -> Loc (storage or object)
    parent: "Ctx | None" = None
    body: ActionBody | None = None    # where primitives go (None in apply-block control flow)
    pipeline: dict | None = None      # the BMv2 pipeline tables and conditionals go into
    return_next: str | None = None    # a control's `return`: the node after its apply
    kind: str = "control"             # "control", "parser" or "action"
    var_inits: list = field(default_factory=list)      # local VarDecls with initialisers, run first
    # parsers only
    state_names: dict = field(default_factory=dict)    # P4 state name -> BMv2 state name
    accept_to: str | None = None      # where `accept` goes (a sub-parser continues in its caller)
    stack_cursor: Callable | None = None   # `.next`/`.last` of a stack in this position
    packet_call: Callable | None = None    # packet_in method calls inside a state
    value_call: Callable | None = None     # calls used as values inside a state (lookahead)

    def child(self, **kw) -> "Ctx":
        c = copy.copy(self)
        c.env = {}
        c.parent = self
        for k, v in kw.items():
            if not hasattr(c, k):
                raise AttributeError(f"Ctx has no field '{k}'")
            setattr(c, k, v)
        return c
