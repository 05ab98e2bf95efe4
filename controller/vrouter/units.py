"""Value parsers for the network description: rates, sizes, durations, addresses."""

from __future__ import annotations

import ipaddress
import re

_RATE_UNITS = {"": 1, "bit": 1, "bps": 1, "kbit": 10**3, "kbps": 10**3, "mbit": 10**6, "mbps": 10**6,
               "gbit": 10**9, "gbps": 10**9}
_SIZE_UNITS = {"": 1, "b": 1, "kb": 1000, "kib": 1024, "mb": 10**6, "mib": 1 << 20}
_TIME_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}
_NUMBER = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


class BadValue(ValueError):
    """A value that does not parse; the message is the reason shown to the user."""


def _scaled(value: object, units: dict[str, float], what: str, example: str) -> float:
    if isinstance(value, bool):
        raise BadValue(f"{value!r} is not a {what} (e.g. {example})")
    if isinstance(value, (int, float)):
        if value < 0:
            raise BadValue(f"{value} is not a {what}: negative")
        return value
    m = _NUMBER.match(str(value))
    if not m or m.group(2).lower() not in units:
        names = ", ".join(u for u in units if u)
        raise BadValue(f"{value!r} is not a {what} (e.g. {example}; units: {names})")
    return float(m.group(1)) * units[m.group(2).lower()]


def parse_rate(value: object) -> int:
    """A rate in bit/s: `100mbit`, `1.5gbit`, `64kbit` or a plain number of bit/s."""
    return int(round(_scaled(value, _RATE_UNITS, "rate", "100mbit")))


def parse_size(value: object) -> int:
    """A size in bytes: `1500`, `64kb`, `1mib`."""
    return int(round(_scaled(value, _SIZE_UNITS, "size in bytes", "100000 or 64kb")))


def parse_duration(value: object) -> float:
    """A duration in seconds: `300`, `300s`, `5m`, `500ms`."""
    return float(_scaled(value, _TIME_UNITS, "duration", "300s or 5m"))


def format_rate(bits: int) -> str:
    """A rate in the largest unit that keeps it whole: 100000000 -> `100mbit`."""
    for unit, scale in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bits and bits % scale == 0:
            return f"{bits // scale}{unit}"
    return f"{bits}bit"


def parse_mac(value: object) -> str:
    """A MAC address `aa:bb:cc:dd:ee:ff` (or with `-`), returned lower-case with colons."""
    text = str(value).strip().lower().replace("-", ":")
    parts = text.split(":")
    if len(parts) != 6 or not all(len(p) == 2 and all(c in "0123456789abcdef" for c in p) for p in parts):
        raise BadValue(f"{value!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
    return text


def parse_ipv4(value: object) -> ipaddress.IPv4Address:
    """A dotted IPv4 address."""
    try:
        return ipaddress.IPv4Address(str(value))
    except ValueError as exc:
        raise BadValue(f"{value!r} is not an IPv4 address") from exc


def parse_prefix(value: object) -> ipaddress.IPv4Network:
    """An IPv4 prefix `a.b.c.d/len` (host bits must be zero; a bare address is a /32)."""
    try:
        return ipaddress.IPv4Network(str(value))
    except ValueError as exc:
        raise BadValue(f"{value!r} is not an IPv4 prefix (a.b.c.d/len, host bits zero)") from exc


def parse_interface(value: object) -> ipaddress.IPv4Interface:
    """An interface address with its prefix length: `10.0.10.1/24`."""
    text = str(value)
    if "/" not in text:
        raise BadValue(f"{value!r} is not an address/prefix-length (e.g. 10.0.10.1/24)")
    try:
        iface = ipaddress.IPv4Interface(text)
    except ValueError as exc:
        raise BadValue(f"{value!r} is not an address/prefix-length (e.g. 10.0.10.1/24)") from exc
    if iface.network.prefixlen < 31 and iface.ip in (iface.network.network_address, iface.network.broadcast_address):
        raise BadValue(f"{value!r} is the network or broadcast address of {iface.network}")
    ip = iface.ip
    if ip.is_multicast or ip.is_loopback or ip.is_unspecified or ip.is_reserved or ip == ipaddress.IPv4Address(
            "255.255.255.255"):
        raise BadValue(f"{value!r}: {ip} is not a unicast host address (multicast, loopback, 0.0.0.0/8 or 240/4)")
    return iface


_HOST_LABEL = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def parse_grpc_address(value: object) -> str:
    """A gRPC server address `host:port`: an IPv4 address, `[IPv6]` or a host name, and a TCP port 1-65535."""
    text = str(value) if isinstance(value, str) else ""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise BadValue(f"{value!r} is not a gRPC address (host:port)")
    if not 1 <= int(port) <= 65535:
        raise BadValue(f"{value!r}: port {int(port)} is outside 1-65535")
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1] if host.endswith("]") else "x")
        except ValueError:
            raise BadValue(f"{value!r}: {host} is not an IPv6 address in brackets") from None
    elif host.replace(".", "").isdigit():
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise BadValue(f"{value!r}: {host} is not an IPv4 address") from None
    elif len(host) > 253 or not all(_HOST_LABEL.match(label) for label in host.split(".")):
        raise BadValue(f"{value!r}: {host!r} is not a host name")
    return text
