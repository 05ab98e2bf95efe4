"""Parser for p4c's simple test format (STF) plus the few extensions p4stf documents.

One command per line; `#` starts a comment. Every command becomes a dataclass;
syntax errors raise StfError naming the file and line.
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
class KeyMatch:
    """One `name:value` of an add; kind tells how the value was written."""
    name: str
    kind: str  # 'value', 'lpm', 'ternary', 'range'
    value: int
    mask: int | None = None  # ternary mask; None means all ones (for 'value')
    prefix: int | None = None  # lpm prefix length; None: from nibble count
    high: int | None = None  # range upper bound
    nibbles: int | None = None  # digits written (for '*' masks and bare lpm)
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
    line: int
    counter: str
    index: int
    kind: str | None  # 'packets', 'bytes', None (both must equal value)
    op: str
    value: int


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
class MeterConfig:
    line: int
    meter: str
    index: int
    cir: int
    cburst: int
    pir: int
    pburst: int


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


# Commands that change switch state through P4Runtime before packets flow.
CONTROL_COMMANDS = (Add, SetDefault, McGroupCreate, McNodeCreate, McNodeAssociate,
                    MirroringAdd, MemberAdd, GroupAdd, RegisterWrite, MeterConfig, ValueSetAdd,
                    DirectMeterConfig)
# Commands that read switch state after packets flowed.
CHECK_COMMANDS = (CheckCounter, RegisterRead, CheckDigest, CheckDirectCounter, CheckDigestData)

_OPS = ("==", "!=", "<=", ">=", "<", ">")


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
        return KeyMatch(name, "lpm", parse_int(v, "key value"), prefix=parse_int(p, "prefix length"))
    low = t.lower()
    if "*" in t:
        if low.startswith("0x"):
            digits, bpd, full = t[2:], 4, 0xF
        elif low.startswith("0b"):
            digits, bpd, full = t[2:], 1, 1
        elif low.startswith("0o"):
            digits, bpd, full = t[2:], 3, 7
        else:
            raise StfError(f"wildcard '*' needs a 0x/0b/0o value: '{text}'")
        digits = digits.replace("_", "")
        value = mask = 0
        for ch in digits:
            value <<= bpd
            mask <<= bpd
            if ch != "*":
                try:
                    value |= int(ch, 16 if bpd == 4 else (2 if bpd == 1 else 8))
                except ValueError:
                    raise StfError(f"bad digit '{ch}' in '{text}'") from None
                mask |= full
        return KeyMatch(name, "ternary", value, mask=mask, nibbles=len(digits), bits_per_digit=bpd)
    digits = None
    bpd = 4
    if low.startswith("0x"):
        digits = len(t[2:].replace("_", ""))
    elif low.startswith("0b"):
        digits, bpd = len(t[2:].replace("_", "")), 1
    return KeyMatch(name, "value", parse_int(t, "key value"), nibbles=digits, bits_per_digit=bpd)


def _split_action(text: str, line: int) -> ActionCall:
    m = re.fullmatch(r"\s*([A-Za-z_][\w.$\[\]]*)\s*\((.*)\)\s*", text, re.S)
    if not m:
        raise StfError(f"line {line}: expected ACTION(arg:value, ...), got '{text.strip()}'")
    name, body = m.group(1), m.group(2).strip()
    args: list[tuple[str, int]] = []
    if body:
        for part in body.split(","):
            if ":" not in part:
                # member(3) / group(3) take a bare number.
                args.append(("", parse_int(part, "argument")))
                continue
            k, v = part.split(":", 1)
            args.append((k.strip(), parse_int(v, f"value of argument {k.strip()}")))
    return ActionCall(name, args)


def _parse_hex(tokens: list[str], line: int, allow_wild: bool) -> tuple[str, bool]:
    text = "".join(tokens)
    exact = False
    if text.endswith("$"):
        exact, text = True, text[:-1]
    if "$" in text:
        raise StfError(f"line {line}: '$' may only end the packet data")
    ok = "0123456789abcdefABCDEF" + ("*" if allow_wild else "")
    for ch in text:
        if ch not in ok:
            raise StfError(f"line {line}: bad character '{ch}' in packet data")
    if len(text) % 2:
        raise StfError(f"line {line}: packet data has an odd number of hex digits ({len(text)})")
    return text.upper(), exact


def _find_action(rest: str) -> int:
    """Index where the action call starts: the first NAME( whose ')' is not followed by ':'.

    Key names may contain calls themselves (`hdr.ipv4.isValid():1`), so the first '('
    is not enough."""
    for m in re.finditer(r"(?:^|\s)([A-Za-z_][\w.$\[\]]*)\(", rest):
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


def _parse_add(rest: str, line: int) -> Add:
    handle = None
    if "=" in rest.rsplit(")", 1)[-1]:
        rest, handle = rest.rsplit("=", 1)
        handle = handle.strip()
    start = _find_action(rest)
    if start < 0:
        raise StfError(f"line {line}: add needs an ACTION(...)")
    head = rest[:start].split()
    if len(head) < 1:
        raise StfError(f"line {line}: add TABLE [PRIORITY] KEY:VALUE... ACTION(...)")
    table = head[0]
    words = head[1:]
    priority = None
    if words and re.fullmatch(r"\d+", words[0]):
        priority = int(words[0])
        words = words[1:]
    keys = []
    for w in words:
        if ":" not in w:
            raise StfError(f"line {line}: key '{w}' is not NAME:VALUE")
        if "):" in w:  # a key named by a call, e.g. hdr.ipv4.isValid():1
            k, v = w.split("):", 1)
            k += ")"
        else:
            k, v = w.split(":", 1)
        try:
            keys.append(parse_key_value(k, v))
        except StfError as exc:
            raise StfError(f"line {line}: key {k}: {exc}") from None
    action = _split_action(rest[start:], line)
    return Add(line, table, priority, keys, action, handle)


def _ints(words: list[str], line: int, what: str) -> list[int]:
    try:
        return [parse_int(w) for w in words]
    except StfError as exc:
        raise StfError(f"line {line}: {what}: {exc}") from None


def _rates(words: list[str], line: int) -> list[int]:
    """Meter rates and bursts; -1 (all four) resets the meter to unconfigured."""
    out = []
    for w in words:
        try:
            out.append(-1 if w.strip() == "-1" else parse_int(w, "rate"))
        except StfError as exc:
            raise StfError(f"line {line}: {exc}") from None
    return out


def parse(text: str, filename: str = "<stf>") -> list:
    """Parse STF text into a list of command objects."""
    cmds: list = []
    node_handles = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        word, _, rest = body.partition(" ")
        word = word.lower()
        rest = rest.strip()
        words = rest.split()
        try:
            if word == "packet":
                if not words:
                    raise StfError(f"line {lineno}: packet PORT HEX")
                port = _ints(words[:1], lineno, "port")[0]
                hexs, _ = _parse_hex(words[1:], lineno, allow_wild=False)
                if not hexs:
                    raise StfError(f"line {lineno}: packet without data")
                cmds.append(Packet(lineno, port, bytes.fromhex(hexs)))
            elif word == "expect":
                if not words:
                    raise StfError(f"line {lineno}: expect PORT [HEX]")
                port = _ints(words[:1], lineno, "port")[0]
                if len(words) == 1:
                    cmds.append(Expect(lineno, port, None))
                else:
                    hexs, exact = _parse_hex(words[1:], lineno, allow_wild=True)
                    cmds.append(Expect(lineno, port, hexs, exact))
            elif word == "add":
                cmds.append(_parse_add(rest, lineno))
            elif word == "setdefault":
                if len(words) < 2:
                    raise StfError(f"line {lineno}: setdefault TABLE ACTION(...)")
                table = words[0]
                cmds.append(SetDefault(lineno, table, _split_action(rest[len(table):], lineno)))
            elif word == "mc_mgrp_create":
                cmds.append(McGroupCreate(lineno, _ints(words, lineno, "group")[0]))
            elif word == "mc_node_create":
                v = _ints(words, lineno, "mc_node_create RID PORT...")
                if len(v) < 1:
                    raise StfError(f"line {lineno}: mc_node_create RID PORT...")
                cmds.append(McNodeCreate(lineno, v[0], v[1:], node_handles))
                node_handles += 1
            elif word == "mc_node_associate":
                v = _ints(words, lineno, "mc_node_associate GROUP HANDLE")
                if len(v) != 2:
                    raise StfError(f"line {lineno}: mc_node_associate GROUP HANDLE")
                cmds.append(McNodeAssociate(lineno, v[0], v[1]))
            elif word in ("mirroring_add", "mirroring_add_mc"):
                v = _ints(words, lineno, f"{word} SESSION PORT")
                if len(v) != 2:
                    raise StfError(f"line {lineno}: {word} SESSION {'GROUP' if word.endswith('mc') else 'PORT'}")
                if word == "mirroring_add":
                    cmds.append(MirroringAdd(lineno, v[0], port=v[1]))
                else:
                    cmds.append(MirroringAdd(lineno, v[0], group=v[1]))
            elif word == "member_add":
                if len(words) < 3:
                    raise StfError(f"line {lineno}: member_add PROFILE MEMBER_ID ACTION(...)")
                member = _ints(words[1:2], lineno, "member id")[0]
                act_text = rest.split(None, 2)[2]
                cmds.append(MemberAdd(lineno, words[0], member, _split_action(act_text, lineno)))
            elif word == "group_add":
                if len(words) < 2:
                    raise StfError(f"line {lineno}: group_add PROFILE GROUP_ID MEMBER_ID...")
                v = _ints(words[1:], lineno, "group_add ids")
                cmds.append(GroupAdd(lineno, words[0], v[0], v[1:]))
            elif word in ("check_counter", "counter_read"):
                m = re.fullmatch(r"([\w.$\[\]]+)\s*\(\s*(\w+)\s*\)\s*(?:(packets|bytes)\s*)?"
                                 r"(?:(==|!=|<=|>=|<|>)\s*(\S+))?", rest)
                if not m:
                    raise StfError(f"line {lineno}: {word} NAME(INDEX) [packets|bytes] [OP VALUE]")
                op = m.group(4) or "=="
                value = parse_int(m.group(5)) if m.group(5) else 0
                cmds.append(CheckCounter(lineno, m.group(1), parse_int(m.group(2), "index"),
                                         m.group(3), op, value))
            elif word == "register_write":
                if len(words) != 3:
                    raise StfError(f"line {lineno}: register_write NAME INDEX VALUE")
                v = _ints(words[1:], lineno, "register_write")
                cmds.append(RegisterWrite(lineno, words[0], v[0], v[1]))
            elif word in ("register_read", "check_register"):
                if len(words) not in (2, 3, 4):
                    raise StfError(f"line {lineno}: register_read NAME INDEX [[==] VALUE]")
                vals = [w for w in words[1:] if w != "=="]
                v = _ints(vals, lineno, "register_read")
                cmds.append(RegisterRead(lineno, words[0], v[0], v[1] if len(v) > 1 else None))
            elif word == "meter_config":
                if len(words) != 6:
                    raise StfError(f"line {lineno}: meter_config NAME INDEX CIR CBURST PIR PBURST")
                v = _ints(words[1:2], lineno, "meter_config") + _rates(words[2:], lineno)
                cmds.append(MeterConfig(lineno, words[0], *v))
            elif word == "direct_meter_config":
                if len(words) < 6:
                    raise StfError(f"line {lineno}: direct_meter_config TABLE KEY:VALUE... "
                                   f"CIR CBURST PIR PBURST")
                keys = []
                for w in words[1:-4]:
                    if ":" not in w:
                        raise StfError(f"line {lineno}: key '{w}' is not NAME:VALUE")
                    k, v = w.split(":", 1)
                    keys.append(parse_key_value(k, v))
                cmds.append(DirectMeterConfig(lineno, words[0], keys,
                                              tuple(_rates(words[-4:], lineno))))
            elif word == "value_set_add":
                if len(words) != 2:
                    raise StfError(f"line {lineno}: value_set_add NAME VALUE[&&&MASK]")
                cmds.append(ValueSetAdd(lineno, words[0], parse_key_value("member", words[1])))
            elif word == "check_direct_counter":
                m = re.fullmatch(r"(\S+)\s+(.*?)\s*(?:(packets|bytes)\s*)?(==|!=|<=|>=|<|>)\s*(\S+)", rest)
                if not m:
                    raise StfError(f"line {lineno}: check_direct_counter TABLE KEY:VALUE... "
                                   f"[packets|bytes] OP VALUE")
                keys = []
                for w in m.group(2).split():
                    if ":" not in w:
                        raise StfError(f"line {lineno}: key '{w}' is not NAME:VALUE")
                    k, v = w.split(":", 1)
                    keys.append(parse_key_value(k, v))
                cmds.append(CheckDirectCounter(lineno, m.group(1), keys, m.group(3), m.group(4),
                                               parse_int(m.group(5), "value")))
            elif word == "check_digest_data":
                if len(words) < 2:
                    raise StfError(f"line {lineno}: check_digest_data NAME VALUE...")
                cmds.append(CheckDigestData(lineno, words[0],
                                            _ints(words[1:], lineno, "digest value")))
            elif word == "check_digest":
                m = re.fullmatch(r"([\w.$]+)\s*(==|!=|<=|>=|<|>)?\s*(\S+)", rest)
                if not m:
                    raise StfError(f"line {lineno}: check_digest NAME [OP] COUNT")
                cmds.append(CheckDigest(lineno, m.group(1), m.group(2) or "==",
                                        parse_int(m.group(3), "count")))
            elif word == "wait":
                cmds.append(Wait(lineno))
            else:
                raise StfError(f"line {lineno}: unknown command '{word}'")
            cmds[-1].text = body  # the command as written, for reports
        except StfError as exc:
            msg = str(exc)
            if not msg.startswith("line "):
                msg = f"line {lineno}: {msg}"
            raise StfError(f"{filename}:{msg}") from None
    return cmds


def parse_file(path: str) -> list:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse(f.read(), path)
