"""p4info-diff: compare two P4Info files object by object (ours against p4c's, say).

Objects are matched by kind and name, so the order in which a compiler lists them does
not count; a map (type_info) is compared entry by entry. Prints one line per object that
is missing or different, with a unified diff of the differing object, and exits 1 if
anything differs. Files are text (.txt/.txtpb/.pbtxt), binary (.bin/.pb) or JSON (.json).

    p4info-diff build/vrouter.p4info.txtpb p4c-out/vrouter.p4info.txtpb
"""
from __future__ import annotations

import argparse
import difflib
import sys

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2


def load(path: str) -> p4info_pb2.P4Info:
    """A P4Info file in the format its extension says."""
    info = p4info_pb2.P4Info()
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith((".bin", ".pb")):
        info.ParseFromString(data)
    elif path.endswith(".json"):
        json_format.Parse(data.decode(), info)
    else:
        text_format.Parse(data.decode(), info)
    return info


def differences(ours: p4info_pb2.P4Info, theirs: p4info_pb2.P4Info) -> list[tuple[str, str, str]]:
    """(kind, name, diff text) for every object that is not the same in both."""
    out = []
    for fd in ours.DESCRIPTOR.fields:
        a, b = getattr(ours, fd.name), getattr(theirs, fd.name)
        if fd.is_repeated:
            mine = {o.preamble.name: o for o in a}
            other = {o.preamble.name: o for o in b}
            for name in sorted(set(mine) | set(other)):
                if mine.get(name) != other.get(name):
                    out.append((fd.name, name, _diff(other.get(name), mine.get(name))))
        elif fd.name == "type_info":
            out.extend(_type_info_differences(a, b))
        elif a != b:
            out.append((fd.name, "", _diff(b, a)))
    return out


def _type_info_differences(a, b) -> list:
    out = []
    for fd in a.DESCRIPTOR.fields:
        x, y = getattr(a, fd.name), getattr(b, fd.name)
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            for key in sorted(set(x) | set(y)):
                if key not in x or key not in y or x[key] != y[key]:
                    out.append((f"type_info.{fd.name}", key, _diff(y[key] if key in y else None,
                                                                  x[key] if key in x else None)))
        elif x != y:
            out.append((f"type_info.{fd.name}", "", _diff(y, x)))
    return out


def _diff(theirs, ours) -> str:
    left = text_format.MessageToString(theirs).splitlines() if theirs is not None else ["(absent)"]
    right = text_format.MessageToString(ours).splitlines() if ours is not None else ["(absent)"]
    return "\n".join(difflib.unified_diff(left, right, "second", "first", lineterm="", n=1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="p4info-diff", description=__doc__.split("\n\n")[0])
    ap.add_argument("first", help="a P4Info file (e.g. p4compile's)")
    ap.add_argument("second", help="the P4Info file to compare it with (e.g. p4c's)")
    ap.add_argument("-q", "--quiet", action="store_true", help="only the summary line")
    args = ap.parse_args(argv)
    try:
        diffs = differences(load(args.first), load(args.second))
    except (OSError, text_format.ParseError, json_format.ParseError) as exc:
        print(f"p4info-diff: {exc}", file=sys.stderr)
        return 2
    for kind, name, text in diffs:
        print(f"differs: {kind} {name}".rstrip())
        if not args.quiet:
            print(text)
    print(f"p4info-diff: {len(diffs)} object(s) differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
