"""Entry, member, group and node handles numbered as BMv2 numbers them.

P4Runtime names an entry by its key, BMv2's CLI by a handle. BMv2 hands out the lowest
free slot; a table entry's handle also carries the slot's version in its top byte, bumped
each time the slot is freed, so a stale handle never names a newer entry (the first entry
is 0, an entry re-using slot 0 after one delete is 0x1000000). Members, groups and
multicast nodes use the plain slot number.
"""
from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Handles(Generic[T]):
    """Objects by handle: lowest free slot first, optionally versioned."""

    def __init__(self, versioned: bool = False) -> None:
        self.versioned = versioned
        self._slots: dict[int, T] = {}
        self._versions: dict[int, int] = {}

    def add(self, obj: T) -> int:
        slot = 0
        while slot in self._slots:
            slot += 1
        self._slots[slot] = obj
        return self._handle(slot)

    def _handle(self, slot: int) -> int:
        if not self.versioned:
            return slot
        return ((self._versions.get(slot, 0) & 0xFF) << 24) | slot

    def _slot(self, handle: int) -> int | None:
        slot = handle & 0xFFFFFF if self.versioned else handle
        if slot not in self._slots or self._handle(slot) != handle:
            return None
        return slot

    def get(self, handle: int) -> T | None:
        slot = self._slot(handle)
        return None if slot is None else self._slots[slot]

    def set(self, handle: int, obj: T) -> None:
        slot = self._slot(handle)
        if slot is None:
            raise KeyError(handle)
        self._slots[slot] = obj

    def remove(self, handle: int) -> T | None:
        slot = self._slot(handle)
        if slot is None:
            return None
        self._versions[slot] = self._versions.get(slot, 0) + 1
        return self._slots.pop(slot)

    def items(self) -> list[tuple[int, T]]:
        return [(self._handle(s), o) for s, o in sorted(self._slots.items())]

    def __len__(self) -> int:
        return len(self._slots)

    def clear(self) -> None:
        for slot in list(self._slots):
            self._versions[slot] = self._versions.get(slot, 0) + 1
        self._slots.clear()
