"""`p4rt`: a small command line for looking at and resetting a P4Runtime switch."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from .client import Switch, tls_credentials
from .codec import CodecError
from .entity import EntityError, TableEntry
from .errors import P4RuntimeError
from .schema import SchemaError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p4rt", description="Inspect or reset a P4Runtime switch.")
    parser.add_argument("--addr", default="127.0.0.1:9559", help="P4Runtime server (default 127.0.0.1:9559)")
    parser.add_argument("--device-id", type=int, default=0)
    parser.add_argument("--election-id", type=int, default=1, help="election id (writes need to be primary)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the switch")
    parser.add_argument("--tls", action="store_true", help="connect over TLS (implied by the --tls-* files)")
    parser.add_argument("--tls-ca", help="CA certificate (PEM) that signed the switch's certificate")
    parser.add_argument("--tls-cert", help="client certificate (PEM), for switches that require one")
    parser.add_argument("--tls-key", help="the client certificate's private key (PEM)")
    parser.add_argument("--tls-server-name", help="name the switch's certificate carries, if not the address's host")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="API version, pipeline cookie and entries per table")
    read = sub.add_parser("read", help="print table entries (all tables, or the ones named)")
    read.add_argument("tables", nargs="*", help="table names (full, alias or unique suffix)")
    read.add_argument("--defaults", action="store_true", help="also print default entries")
    load = sub.add_parser("set-pipeline", help="install a program: P4Info file and BMv2 JSON")
    load.add_argument("p4info")
    load.add_argument("json")
    load.add_argument("--cookie", type=int)
    sub.add_parser("delete-all", help="delete every entry, group, member, PRE entry and digest config")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        credentials = tls_credentials(args.tls_ca, args.tls_cert, args.tls_key) \
            if args.tls or args.tls_ca or args.tls_cert or args.tls_key else None
        with Switch(args.addr, device_id=args.device_id, election_id=args.election_id, credentials=credentials,
                    server_name=args.tls_server_name).connect(args.timeout) as sw:
            return _run(sw, args)
    except (P4RuntimeError, SchemaError, EntityError, CodecError) as exc:
        print(f"p4rt: error: {exc}", file=sys.stderr)
        return 1


def _run(sw: Switch, args: argparse.Namespace) -> int:
    if args.command == "set-pipeline":
        sw.set_pipeline(args.p4info, args.json, cookie=args.cookie)
        print(f"p4rt: pipeline installed on {sw.address}")
        return 0
    sw.load_schema()
    if args.command == "info":
        pipeline = sw.get_pipeline("COOKIE_ONLY")
        print(f"switch {sw.address} device {sw.device_id}: P4Runtime {sw.capabilities()}, "
              f"cookie {pipeline.cookie}, {'primary' if sw.is_primary else 'backup'}")
        counts = Counter(e.table for e in sw.read(TableEntry()))
        for table in sw.schema.tables:
            print(f"  {table.name}: {counts.get(table.name, 0)} entries (size {table.size})")
    elif args.command == "read":
        tables = [sw.schema.table(name) for name in args.tables] or list(sw.schema.tables)
        for table in tables:
            requests = [TableEntry(table.name)] + ([TableEntry(table.name, is_default=True)] if args.defaults else [])
            for entry in sw.read(requests):
                print(_format(entry))
    elif args.command == "delete-all":
        print(f"p4rt: {sw.delete_all()} deletions")
    return 0


def _format(entry: TableEntry) -> str:
    if entry.action is not None:
        action = f"{entry.action.name}({', '.join(f'{k}={v}' for k, v in entry.action.params.items())})"
    elif entry.member_id is not None:
        action = f"member {entry.member_id}"
    elif entry.group_id is not None:
        action = f"group {entry.group_id}"
    else:
        action = f"one-shot {entry.one_shot}"
    match = " ".join(f"{k}={v}" for k, v in entry.match.items()) or ("(default)" if entry.is_default else "*")
    prio = f" priority {entry.priority}" if entry.priority else ""
    const = " const" if entry.is_const else ""
    return f"{entry.table} {match}{prio} -> {action}{const}"


if __name__ == "__main__":
    sys.exit(main())
