"""Errors raised for failed P4Runtime RPCs, with the switch's per-update details decoded."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2


class P4RuntimeError(Exception):
    """A P4Runtime RPC that failed; `code` is the gRPC status code."""

    def __init__(self, rpc: str, code: grpc.StatusCode | None, message: str) -> None:
        self.rpc = rpc
        self.code = code
        self.message = message
        code_name = code.name if code is not None else "NO_STATUS"
        super().__init__(f"{rpc} failed: {code_name}: {message}")


@dataclass
class UpdateError:
    """One failed update of a Write: its index in the request, what it was and why it failed."""

    index: int
    update: str
    code: str
    message: str
    entity: Any = field(default=None, repr=False, compare=False)   # the update's entity, as given to write()

    def __str__(self) -> str:
        return f"update #{self.index} ({self.update}): {self.code}: {self.message}"

    @property
    def may_be_full(self) -> bool:
        """True when the update may have failed for lack of room: RESOURCE_EXHAUSTED, or the UNKNOWN
        that BMv2 (PI) answers for every refusal of its target to an INSERT, a full table among them."""
        return self.code == "RESOURCE_EXHAUSTED" or (
            self.code == "UNKNOWN" and self.message == BMV2_INSERT_REFUSED and self.update.startswith("INSERT"))


BMV2_INSERT_REFUSED = "Error when adding match entry to target"


class P4RuntimeWriteError(P4RuntimeError):
    """A Write in which some updates failed; `errors` lists each failed update.

    str() names the first SHOWN failures and counts the rest by reason (`reasons()`).
    """

    SHOWN = 10

    def __init__(self, code: grpc.StatusCode | None, message: str, errors: list[UpdateError]) -> None:
        self.errors = errors
        if errors:
            lines = [str(e) for e in errors[:self.SHOWN]]
            if len(errors) > self.SHOWN:
                more = "; ".join(f"{n} x {reason}" for reason, n in self.reasons().items())
                lines.append(f"... {len(errors) - self.SHOWN} more; all {len(errors)} by reason: {more}")
            text = f"{len(errors)} update(s) failed:\n  " + "\n  ".join(lines)
        else:
            text = message
        super().__init__("Write", code, text)
        self.message = message

    @property
    def codes(self) -> list[str]:
        """The status code names of the failed updates, in order."""
        return [e.code for e in self.errors]

    def reasons(self) -> dict[str, int]:
        """How many updates failed for each `CODE: message`, most frequent first."""
        counts: dict[str, int] = {}
        for e in self.errors:
            reason = f"{e.code}: {e.message}"
            counts[reason] = counts.get(reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))


def status_details(exc: grpc.RpcError) -> list[p4runtime_pb2.Error]:
    """The p4.v1.Error messages packed in a failed call's google.rpc.Status details."""
    trailers = exc.trailing_metadata() if hasattr(exc, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status()
            try:
                status.ParseFromString(value)
            except Exception:  # a malformed trailer: no details rather than a crash
                return []
            errors = []
            for detail in status.details:
                error = p4runtime_pb2.Error()
                if detail.Unpack(error):
                    errors.append(error)
            return errors
    return []


def code_name(canonical_code: int) -> str:
    """The name of a google.rpc.Code value (e.g. `ALREADY_EXISTS`)."""
    try:
        return code_pb2.Code.Name(canonical_code)
    except ValueError:
        return f"CODE_{canonical_code}"


def rpc_error(rpc: str, exc: grpc.RpcError) -> P4RuntimeError:
    """Map a grpc.RpcError to P4RuntimeError."""
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return P4RuntimeError(rpc, code, details or "")
