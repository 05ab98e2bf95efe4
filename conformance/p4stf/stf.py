"""Parser for p4c's simple test format (STF) plus the few extensions p4stf documents.

One command per line; `#` starts a comment. Every command becomes a dataclass;
syntax errors raise StfError naming the file and line. The grammar is p4c's
(tools/stf/stf_parser.py and the simple_switch_CLI pass-through commands of
backends/bmv2/bmv2stf.py); names may be written in double quotes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


class StfError(ValueError):
    """A malformed STF line."""


@dataclass
class Packet:
    line: int
    port: int
    data: bytes


@dataclass
class Expect:
    line: int
    port: int
    pattern: str | None  # hex nibbles, '*' wildcards; None = any packet
    exact: bool = False  # '$': the packet must have exactly this length


@dataclass
class NoPacket:
    """`no_packet`: an assertion that nothing else comes out (every port is checked anyway)."""
    line: int


@dataclass
class KeyMatch:
    """One `name:value` of an add; kind tells how the value was written."""
    name: str
    kind: str  # 'value', 'lpm', 'ternary', 'range'
    value: int
    mask: int | None = None  # ternary mask; None means all ones (for 'value')
    prefix: int | None = None  # lpm prefix length; None: from nibble count
    high: int | None = None  # range upper bound
    nibbles: int | None = None  # digits written (for '*' masks and bare lpm/ternary)
    bits_per_digit: int = 4


@dataclass
class ActionCall:
    name: str
    args: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class Add:
    line: int
    table: str
    priority: int | None
    keys: list[KeyMatch]
    action: ActionCall
    handle: str | None = None


@dataclass
class SetDefault:
    line: int
    table: str
    action: ActionCall


@dataclass
class RemoveAll:
    """`remove all`: delete every entry of every table."""
    line: int


@dataclass
class McGroupCreate:
    line: int
    group: int


@dataclass
class McNodeCreate:
    line: int
    rid: int
    ports: list[int]
    handle: int  # handles are numbered 0, 1, ... in file order, as BMv2 returns them


@dataclass
class McNodeUpdate:
    line: int
    handle: int
    ports: list[int]


@dataclass
class McNodeAssociate:
    line: int
    group: int
    handle: int


@dataclass
class MirroringAdd:
    line: int
    session: int
    port: int | None = None
    group: int | None = None  # mirroring_add_mc: clone to a multicast group


@dataclass
class MirroringDelete:
    line: int
    session: int


@dataclass
class MirroringGet:
    """Read a clone session back (it must exist; nothing is compared)."""
    line: int
    session: int


@dataclass
class MemberAdd:
    line: int
    profile: str
    member: int
    action: ActionCall


@dataclass
class GroupAdd:
    line: int
    profile: str
    group: int
    members: list[int]


@dataclass
class CheckCounter:
    """check_counter NAME(INDEX|$HANDLE) ... or p4c's `counter_read NAME INDEX` (op None: read only)."""
    line: int
    counter: str
    index: int | None
    kind: str | None  # 'packets', 'bytes', None (packets)
    op: str | None
    value: int
    handle: str | None = None  # `$A`: the direct counter of the entry added with `= A`


@dataclass
class CounterWrite:
    line: int
    counter: str
    index: int
    packets: int
    bytes: int


@dataclass
class RegisterWrite:
    line: int
    register: str
    index: int
    value: int


@dataclass
class RegisterRead:
    line: int
    register: str
    index: int
    expected: int | None


@dataclass
class RegisterReset:
    line: int
    register: str


@dataclass
class MeterConfig:
    line: int
    meter: str
    index: int
    cir: int
    cburst: int
    pir: int
    pburst: int


@dataclass
class MeterSetRates:
    """simple_switch_CLI's `meter_set_rates NAME INDEX RATE:BURST...` (index None: the whole
    array, `meter_array_set_rates`). Rates are per microsecond, as the CLI takes them."""
    line: int
    meter: str
    index: int | None
    rates: list[tuple[float, int]]


@dataclass
class MeterGetRates:
    line: int
    meter: str
    index: int


@dataclass
class ValueSetAdd:
    line: int
    value_set: str
    key: KeyMatch  # a value, or VALUE&&&MASK for a masked member


@dataclass
class CheckDigest:
    line: int
    digest: str
    op: str
    count: int  # number of digest messages (data items) received


@dataclass
class CheckDirectCounter:
    line: int
    table: str
    keys: list[KeyMatch]
    kind: str | None
    op: str
    value: int


@dataclass
class DirectMeterConfig:
    line: int
    table: str
    keys: list[KeyMatch]
    rates: tuple[int, int, int, int]  # CIR, CBURST, PIR, PBURST


@dataclass
class CheckDigestData:
    line: int
    digest: str
    values: list[int]  # the digest's members in order (struct members flattened)


@dataclass
class Wait:
    line: int


# Commands that change switch state through P4Runtime.
CONTROL_COMMANDS = (Add, SetDefault, RemoveAll, McGroupCreate, McNodeCreate, McNodeUpdate,
                    McNodeAssociate, MirroringAdd, MirroringDelete, MemberAdd, GroupAdd,
                    RegisterWrite, RegisterReset, CounterWrite, MeterConfig, MeterSetRates,
                    ValueSetAdd, DirectMeterConfig)
# Commands that read switch state (after the packets before them have come out).
CHECK_COMMANDS = (CheckCounter, RegisterRead, CheckDigest, CheckDirectCounter, CheckDigestData,
                  MirroringGet, MeterGetRates)

_OPS = ("==", "!=", "<=", ">=", "<", ">")
_NAME = r'(?:"[^"]+"|[A-Za-z_$][\w.$\[\]]*)'


def unquote(name: str) -> str:
    return name[1:-1] if len(name) >= 2 and name[0] == name[-1] == '"' else name


def parse_int(text: str, what: str = "number") -> int:
    """Parse a decimal, 0x hex, 0b binary or 0o octal integer (no wildcards)."""
    t = text.strip().replace("_", "")
    try:
        if t.lower().startswith(("0x", "0b", "0o")):
            return int(t, 0)
        if t.startswith("-"):
            raise ValueError
        return int(t, 10)
    except ValueError:
        raise StfError(f"bad {what} '{text}'") from None


_RADIX = {"0x": (4, 16), "0b": (1, 2), "0o": (3, 8)}


def parse_key_value(name: str, text: str) -> KeyMatch:
    """Parse the value part of `name:value` in an add command."""
    t = text.strip()
    if "&&&" in t:
        v, m = t.split("&&&", 1)
        return KeyMatch(name, "ternary", parse_int(v, "key value"), mask=parse_int(m, "mask"))
    if "->" in t:
        lo, hi = t.split("->", 1)
        return KeyMatch(name, "range", parse_int(lo, "range low"), high=parse_int(hi, "range high"))
    if "/" in t:
        v, p = t.split("/", 1)
        if "*" in v:
            v = v.replace("*", "0")
        return KeyMatch(name, "lpm", parse_int(v, "key value"), prefix=parse_int(p, "prefix length"))
    radix = _RADIX.get(t[:2].lower())
    if "*" in t:
        if radix is None:
            raise StfError(f"wildcard '*' needs a 0x/0b/0o value: '{text}'")
        bpd, base = radix
        digits = t[2:].replace("_", "")
        value = mask = 0
        for ch in digits:
            value <<= bpd
            mask <<= bpd
            if ch != "*":
                try:
                    value |= int(ch, base)
                except ValueError:
                    raise StfError(f"bad digit '{ch}' in '{text}'") from None
                mask |= (1 << bpd) - 1
        return KeyMatch(name, "ternary", value, mask=mask, nibbles=len(digits), bits_per_digit=bpd)
    if radix is None:
        return KeyMatch(name, "value", parse_int(t, "key value"))
    return KeyMatch(name, "value", parse_int(t, "key value"),
                    nibbles=len(t[2:].replace("_", "")), bits_per_digit=radix[0])


def _split_action(text: str) -> ActionCall:
    m = re.fullmatch(r"\s*(" + _NAME + r")\s*\((.*)\)\s*", text, re.S)
    if not m:
        raise StfError(f"expected ACTION(arg:value, ...), got '{text.strip()}'")
    name, body = unquote(m.group(1)), m.group(2).strip()
    args: list[tuple[str, int]] = []
    if body:
        for part in body.split(","):
            if ":" not in part:
                # member(3) / group(3) take a bare number.
                args.append(("", parse_int(part, "argument")))
                continue
            k, v = part.split(":", 1)
            args.append((unquote(k.strip()), parse_int(v, f"value of argument {k.strip()}")))
    return ActionCall(name, args)


def _parse_hex(tokens: list[str], allow_wild: bool) -> tuple[str, bool]:
    text = "".join(tokens)
    exact = False
    if text.endswith("$"):
        exact, text = True, text[:-1]
    if "$" in text:
        raise StfError("'$' may only end the packet data")
    ok = "0123456789abcdefABCDEF" + ("*" if allow_wild else "")
    for ch in text:
        if ch not in ok:
            raise StfError(f"bad character '{ch}' in packet data")
    if len(text) % 2:
        raise StfError(f"packet data has an odd number of hex digits ({len(text)})")
    return text.upper(), exact


def _find_action(rest: str) -> int:
    """Index where the action call starts: the first NAME( whose ')' is not followed by ':'.

    Key names may contain calls themselves (`hdr.ipv4.isValid():1`), so the first '('
    is not enough."""
    for m in re.finditer(r"(?:^|\s)(" + _NAME + r")\s*\(", rest):
        depth, i = 0, m.end(1)
        while i < len(rest):
            if rest[i] == "(":
                depth += 1
            elif rest[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        if rest[i + 1:i + 2] != ":":
            return m.start(1)
    return -1


def _keys(words: list[str]) -> list[KeyMatch]:
    keys = []
    for w in words:
        if ":" not in w:
            raise StfError(f"key '{w}' is not NAME:VALUE")
        if "):" in w:  # a key named by a call, e.g. hdr.ipv4.isValid():1
            k, v = w.split("):", 1)
            k += ")"
        else:
            k, v = w.rsplit(":", 1) if w.startswith('"') else w.split(":", 1)
        k = unquote(k)
        try:
            keys.append(parse_key_value(k, v))
        except StfError as exc:
            raise StfError(f"key {k}: {exc}") from None
    return keys


def _add(rest: str, words: list[str], st: "_State") -> Add:
    handle = None
    if "=" in rest.rsplit(")", 1)[-1]:
        rest, handle = rest.rsplit("=", 1)
        handle = handle.strip()
    start = _find_action(rest)
    if start < 0:
        raise StfError("add needs an ACTION(...)")
    head = rest[:start].split()
    if not head:
        raise StfError("add TABLE [PRIORITY] KEY:VALUE... ACTION(...)")
    table, words = unquote(head[0]), head[1:]
    priority = None
    if words and re.fullmatch(r"\d+", words[0]):
        priority = int(words[0])
        words = words[1:]
    return Add(st.line, table, priority, _keys(words), _split_action(rest[start:]), handle)


def _ints(words: list[str], what: str) -> list[int]:
    return [parse_int(w, what) for w in words]


def _n_ints(words: list[str], n: int, usage: str) -> list[int]:
    if len(words) != n:
        raise StfError(usage)
    return _ints(words, usage)


def _rates(words: list[str]) -> list[int]:
    """Meter rates and bursts; -1 (all four) resets the meter to unconfigured."""
    return [-1 if w.strip() == "-1" else parse_int(w, "rate") for w in words]


def _cli_rates(words: list[str]) -> list[tuple[float, int]]:
    """simple_switch_CLI rates: RATE:BURST pairs, the rate per microsecond (may be a decimal)."""
    out = []
    for w in words:
        r, sep, b = w.partition(":")
        try:
            rate = float(r)
        except ValueError:
            rate = -1.0
        if not sep or rate < 0:
            raise StfError(f"bad meter rate '{w}' (RATE:BURST, rate per microsecond)")
        out.append((rate, parse_int(b, "burst")))
    if not out:
        raise StfError("meter rates: at least one RATE:BURST")
    return out


class _State:
    """What parsing needs to carry from line to line."""

    def __init__(self) -> None:
        self.line = 0
        self.node_handles = 0


def _packet(rest, words, st):
    if not words:
        raise StfError("packet PORT HEX")
    hexs, _ = _parse_hex(words[1:], allow_wild=False)
    if not hexs:
        raise StfError("packet without data")
    return Packet(st.line, parse_int(words[0], "port"), bytes.fromhex(hexs))


def _expect(rest, words, st):
    if not words:
        raise StfError("expect PORT [HEX]")
    port = parse_int(words[0], "port")
    if len(words) == 1:
        return Expect(st.line, port, None)
    hexs, exact = _parse_hex(words[1:], allow_wild=True)
    return Expect(st.line, port, hexs, exact)


def _setdefault(rest, words, st):
    if len(words) < 2:
        raise StfError("setdefault TABLE ACTION(...)")
    return SetDefault(st.line, unquote(words[0]), _split_action(rest[len(words[0]):]))


def _remove(rest, words, st):
    if [w.lower() for w in words] != ["all"]:
        raise StfError("remove all (removing single entries is not part of STF)")
    return RemoveAll(st.line)


def _mc_node_create(rest, words, st):
    v = _ints(words, "mc_node_create RID PORT...")
    if not v:
        raise StfError("mc_node_create RID PORT...")
    st.node_handles += 1
    return McNodeCreate(st.line, v[0], v[1:], st.node_handles - 1)


def _mc_node_update(rest, words, st):
    v = _ints(words, "mc_node_update HANDLE PORT...")
    if not v:
        raise StfError("mc_node_update HANDLE PORT...")
    return McNodeUpdate(st.line, v[0], v[1:])


def _mirroring_add(rest, words, st):
    session, port = _n_ints(words, 2, "mirroring_add SESSION PORT")
    return MirroringAdd(st.line, session, port=port)


def _mirroring_add_mc(rest, words, st):
    session, group = _n_ints(words, 2, "mirroring_add_mc SESSION GROUP")
    return MirroringAdd(st.line, session, group=group)


def _member_add(rest, words, st):
    if len(words) < 3:
        raise StfError("member_add PROFILE MEMBER_ID ACTION(...)")
    return MemberAdd(st.line, unquote(words[0]), parse_int(words[1], "member id"),
                     _split_action(rest.split(None, 2)[2]))


def _group_add(rest, words, st):
    if len(words) < 2:
        raise StfError("group_add PROFILE GROUP_ID MEMBER_ID...")
    v = _ints(words[1:], "group_add ids")
    return GroupAdd(st.line, unquote(words[0]), v[0], v[1:])


def _check_counter(rest, words, st):
    m = re.fullmatch(r"(" + _NAME + r")\s*\(\s*(\$?\w+)\s*\)\s*(?:(packets|bytes)\s*)?"
                     r"(?:(==|!=|<=|>=|<|>)\s*(\S+))?", rest, re.I)
    if not m:
        raise StfError("check_counter NAME(INDEX) [packets|bytes] [OP VALUE]")
    name, ref = unquote(m.group(1)), m.group(2)
    kind = m.group(3).lower() if m.group(3) else None
    value = parse_int(m.group(5), "value") if m.group(5) else 0
    if ref.startswith("$"):
        return CheckCounter(st.line, name, None, kind, m.group(4) or "==", value, handle=ref[1:])
    return CheckCounter(st.line, name, parse_int(ref, "index"), kind, m.group(4) or "==", value)


def _counter_read(rest, words, st):
    if "(" in rest:  # the check_counter spelling
        return _check_counter(rest, words, st)
    if len(words) != 2:
        raise StfError("counter_read NAME INDEX")
    return CheckCounter(st.line, unquote(words[0]), parse_int(words[1], "index"), None, None, 0)


def _counter_write(rest, words, st):
    if len(words) != 4:
        raise StfError("counter_write NAME INDEX PACKETS BYTES")
    index, packets, byts = _ints(words[1:], "counter_write")
    return CounterWrite(st.line, unquote(words[0]), index, packets, byts)


def _register_write(rest, words, st):
    if len(words) != 3:
        raise StfError("register_write NAME INDEX VALUE")
    index, value = _ints(words[1:], "register_write")
    return RegisterWrite(st.line, unquote(words[0]), index, value)


def _register_read(rest, words, st):
    if len(words) not in (2, 3, 4):
        raise StfError("register_read NAME INDEX [[==] VALUE]")
    v = _ints([w for w in words[1:] if w != "=="], "register_read")
    return RegisterRead(st.line, unquote(words[0]), v[0], v[1] if len(v) > 1 else None)


def _register_reset(rest, words, st):
    if len(words) != 1:
        raise StfError("register_reset NAME")
    return RegisterReset(st.line, unquote(words[0]))


def _meter_config(rest, words, st):
    if len(words) != 6:
        raise StfError("meter_config NAME INDEX CIR CBURST PIR PBURST")
    return MeterConfig(st.line, unquote(words[0]), parse_int(words[1], "index"), *_rates(words[2:]))


def _meter_set_rates(rest, words, st):
    if len(words) < 3:
        raise StfError("meter_set_rates NAME INDEX RATE:BURST...")
    return MeterSetRates(st.line, unquote(words[0]), parse_int(words[1], "index"),
                         _cli_rates(words[2:]))


def _meter_array_set_rates(rest, words, st):
    if len(words) < 2:
        raise StfError("meter_array_set_rates NAME RATE:BURST...")
    return MeterSetRates(st.line, unquote(words[0]), None, _cli_rates(words[1:]))


def _meter_get_rates(rest, words, st):
    if len(words) != 2:
        raise StfError("meter_get_rates NAME INDEX")
    return MeterGetRates(st.line, unquote(words[0]), parse_int(words[1], "index"))


def _direct_meter_config(rest, words, st):
    if len(words) < 6:
        raise StfError("direct_meter_config TABLE KEY:VALUE... CIR CBURST PIR PBURST")
    return DirectMeterConfig(st.line, unquote(words[0]), _keys(words[1:-4]), tuple(_rates(words[-4:])))


def _value_set_add(rest, words, st):
    if len(words) != 2:
        raise StfError("value_set_add NAME VALUE[&&&MASK]")
    return ValueSetAdd(st.line, unquote(words[0]), parse_key_value("member", words[1]))


def _check_direct_counter(rest, words, st):
    m = re.fullmatch(r"(\S+)\s+(.*?)\s*(?:(packets|bytes)\s*)?(==|!=|<=|>=|<|>)\s*(\S+)", rest)
    if not m:
        raise StfError("check_direct_counter TABLE KEY:VALUE... [packets|bytes] OP VALUE")
    return CheckDirectCounter(st.line, unquote(m.group(1)), _keys(m.group(2).split()), m.group(3),
                              m.group(4), parse_int(m.group(5), "value"))


def _check_digest_data(rest, words, st):
    if len(words) < 2:
        raise StfError("check_digest_data NAME VALUE...")
    return CheckDigestData(st.line, unquote(words[0]), _ints(words[1:], "digest value"))


def _check_digest(rest, words, st):
    m = re.fullmatch(r"(" + _NAME + r")\s*(==|!=|<=|>=|<|>)?\s*(\S+)", rest)
    if not m:
        raise StfError("check_digest NAME [OP] COUNT")
    return CheckDigest(st.line, unquote(m.group(1)), m.group(2) or "==", parse_int(m.group(3), "count"))


def _no_args(cls, usage):
    def parse(rest, words, st):
        if words:
            raise StfError(usage)
        return cls(st.line)
    return parse


_COMMANDS = {
    "packet": _packet,
    "expect": _expect,
    "no_packet": _no_args(NoPacket, "no_packet takes no arguments"),
    "add": _add,
    "setdefault": _setdefault,
    "remove": _remove,
    "wait": _no_args(Wait, "wait takes no arguments"),
    "mc_mgrp_create": lambda r, w, st: McGroupCreate(st.line, *_n_ints(w, 1, "mc_mgrp_create GROUP")),
    "mc_node_create": _mc_node_create,
    "mc_node_update": _mc_node_update,
    "mc_node_associate": lambda r, w, st: McNodeAssociate(
        st.line, *_n_ints(w, 2, "mc_node_associate GROUP HANDLE")),
    "mirroring_add": _mirroring_add,
    "mirroring_add_mc": _mirroring_add_mc,
    "mirroring_delete": lambda r, w, st: MirroringDelete(st.line, *_n_ints(w, 1, "mirroring_delete SESSION")),
    "mirroring_get": lambda r, w, st: MirroringGet(st.line, *_n_ints(w, 1, "mirroring_get SESSION")),
    "member_add": _member_add,
    "group_add": _group_add,
    "check_counter": _check_counter,
    "counter_read": _counter_read,
    "counter_write": _counter_write,
    "register_write": _register_write,
    "register_read": _register_read,
    "check_register": _register_read,
    "register_reset": _register_reset,
    "meter_config": _meter_config,
    "meter_set_rates": _meter_set_rates,
    "meter_array_set_rates": _meter_array_set_rates,
    "meter_get_rates": _meter_get_rates,
    "direct_meter_config": _direct_meter_config,
    "value_set_add": _value_set_add,
    "check_direct_counter": _check_direct_counter,
    "check_digest_data": _check_digest_data,
    "check_digest": _check_digest,
}


def parse(text: str, filename: str = "<stf>") -> list:
    """Parse STF text into a list of command objects."""
    cmds: list = []
    st = _State()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        word, _, rest = body.partition(" ")
        rest = rest.strip()
        st.line = lineno
        try:
            handler = _COMMANDS.get(word.lower())
            if handler is None:
                raise StfError(f"unknown command '{word.lower()}'")
            cmd = handler(rest, rest.split(), st)
        except StfError as exc:
            raise StfError(f"{filename}:line {lineno}: {exc}") from None
        cmd.text = body  # the command as written, for reports
        cmds.append(cmd)
    return cmds


def parse_file(path: str) -> list:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse(f.read(), path)
