"""Minimal pcap (libpcap classic format) reader and writer for Ethernet frames."""
from __future__ import annotations

import struct
import time

_MAGIC_US = 0xA1B2C3D4
_MAGIC_NS = 0xA1B23C4D


def write(path: str, packets: list[bytes], stamps: list[float] | None = None) -> None:
    """Write packets as an Ethernet (linktype 1) pcap, microsecond timestamps."""
    now = time.time()
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", _MAGIC_US, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(packets):
            t = stamps[i] if stamps else now + i * 1e-6
            f.write(struct.pack("<IIII", int(t), int((t % 1) * 1e6), len(p), len(p)))
            f.write(p)


def read(path: str) -> list[bytes]:
    """Read the complete records of a pcap file; a torn last record is ignored."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    if len(data) < 24:
        return []
    magic_le = struct.unpack("<I", data[:4])[0]
    if magic_le in (_MAGIC_US, _MAGIC_NS):
        endian = "<"
    elif struct.unpack(">I", data[:4])[0] in (_MAGIC_US, _MAGIC_NS):
        endian = ">"
    else:
        raise ValueError(f"{path}: not a pcap file")
    out = []
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        if off + 16 + incl > len(data):
            break
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out
