"""The `vrouter` command: check, diff, apply, run, show, dashboard."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from p4rt import EntityError, P4RuntimeError, P4RuntimeWriteError, SchemaError, Switch

from .config import ConfigError, Network, load

log = logging.getLogger("vrouter")
DEFAULT_FILE = os.environ.get("VROUTER_CONFIG", "topo/campus.yaml")
DEFAULT_NICE = 10       # `vrouter run --nice`: below the data plane (priority.py)


class CommandError(Exception):
    """A refusal explained in one line."""


def _connect(net: Network, name: str, election_id: int | None = 1) -> Switch:
    """A client of the switch; with `election_id` None a read-only one (no stream, no arbitration)."""
    from .reconcile import open_switch

    return open_switch(net.switches[name], election_id or 0).connect(timeout=5, stream=election_id is not None)


def _selected(net: Network, only: list[str] | None) -> list[str]:
    if not only:
        return list(net.switches)
    unknown = [s for s in only if s not in net.switches]
    if unknown:
        raise ConfigError([f"{net.file}: no switch named {', '.join(unknown)} (switches: {', '.join(net.switches)})"])
    return only


def cmd_check(args: argparse.Namespace) -> int:
    from .program import check_program

    net = load(args.file)
    check_program(net)
    for sw in net.switches.values():
        listed = f" ({len(sw.routes_file.lines)} from {sw.routes_file.name})" if sw.routes_file is not None else ""
        print(f"{net.file}: {sw.name}: {len(sw.ports)} ports, {len(sw.vlans)} VLANs, {len(sw.routes)} routes{listed}, "
              f"{len(sw.lsps)} LSPs, {len(sw.acl)} ACL rules: ok")
    return 0


def cmd_apply(args: argparse.Namespace, dry_run: bool) -> int:
    from .desired import desired_state
    from .program import capacity_problems, check_program
    from .reconcile import ensure_pipeline, reconcile

    net = load(args.file)
    check_program(net)
    for name in _selected(net, args.switch):
        cfg = net.switches[name]
        with _connect(net, name) as sw:
            if not dry_run and not sw.is_primary:
                arb = sw.arbitration
                raise CommandError(f"{name}: another controller is primary (election id "
                                   f"{arb.primary_election_id if arb else '?'}); if `vrouter run` manages this "
                                   f"switch, edit the file instead: the daemon applies the change")
            rt = None
            if dry_run:
                sw.load_schema()
                rt = _daemon_runtime(args.file, name)
            elif ensure_pipeline(sw, net):
                print(f"{name}: pipeline installed ({net.device_config.name})")
            result, canon, rt = reconcile(sw, net, cfg, rt, dry_run=dry_run)
            p = result.plan
            if dry_run:
                for sign, items in (("+", p.inserts), ("~", p.modifies), ("-", p.deletes)):
                    for item in items:
                        print(f"{name}: {sign} {canon.describe(item)}")
                for problem in capacity_problems(sw.schema, net, cfg, desired_state(net, cfg, rt)):
                    print(f"{name}: does not fit: {problem.split(': ', 2)[-1]}")
            if not len(p):
                print(f"{name}: in sync, nothing to write")
            else:
                verb = "would write" if dry_run else "wrote"
                print(f"{name}: {verb} {p.summary()} ({result.seconds:.2f} s)")
    return 0


def _daemon_runtime(file: Path, name: str):
    """The run-time state of a `vrouter run` managing this switch (so that `diff` shows what it could
    not write), after one line on its health; None without a daemon (state recovered from the switch)."""
    from . import status

    data = status.read_live(file, name)
    if data is None:
        return None
    if data.get("synced"):
        health = "in sync"
    else:
        health = f"NOT in sync ({data.get('failures', 0)} failures; last: {data.get('last_error') or 'none'}; " \
                 f"next try in {data.get('retry_in', 0):.1f} s)"
    print(f"{name}: vrouter run (pid {data['pid']}) {health}; diff against its run-time state")
    return status.runtime_from_json(data)


def cmd_run(args: argparse.Namespace) -> int:
    from .daemon import run
    from .program import check_program

    net = load(args.file)
    check_program(net)
    try:
        return run(net, _selected(net, args.switch), election_id=args.election_id, path=args.file,
                   metrics_addr=args.metrics_addr, nice=args.nice, sched=args.sched)
    except OSError as exc:
        raise CommandError(f"cannot serve metrics on {args.metrics_addr}: {exc.strerror or exc}") from None


def cmd_dashboard(args: argparse.Namespace) -> int:
    from .dashboard import serve

    net = load(args.file)
    try:
        return serve(net, _selected(net, args.switch), args.file, args.listen, interval=args.interval)
    except OSError as exc:
        raise CommandError(f"cannot serve the dashboard on {args.listen}: {exc.strerror or exc}") from None


def cmd_show(args: argparse.Namespace) -> int:
    from .show import show

    net = load(args.file)
    rows_by_switch = {}
    for name in _selected(net, args.switch):
        with _connect(net, name, election_id=None) as sw:
            sw.load_schema()
            rows_by_switch[name] = show(args.what, sw, net, net.switches[name], args.file)
    if args.json:
        print(json.dumps(rows_by_switch, indent=2, default=str))
    else:
        from .show import table
        for name, rows in rows_by_switch.items():
            print(f"== {name}: {args.what}")
            print(table(rows))
    return 0


def host_port(text: str) -> str:
    """HOST:PORT for a listening address (HOST may be empty, an IPv6 one in brackets)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:9101)")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vrouter", description="Declarative P4Runtime controller for vrouter.p4")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logs")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("check", "validate a network description"), ("diff", "print the writes apply would make"),
                       ("apply", "make the switches match the description"),
                       ("run", "apply, then run the router daemon (learning, ARP, ICMP, recovery)")):
        p = sub.add_parser(name, help=text)
        p.add_argument("file", type=Path)
        p.add_argument("--switch", action="append", help="only this switch (repeatable)")
        if name == "run":
            p.add_argument("--election-id", type=int, default=10)
            p.add_argument("--nice", type=int, default=DEFAULT_NICE, choices=range(20), metavar="N",
                           help=f"run at nice N (never above where it was started) as SCHED_BATCH, so the "
                                f"data plane beside it comes first (0..19, default {DEFAULT_NICE}; 0 = off)")
            p.add_argument("--sched", choices=("batch", "idle"), default="batch",
                           help="the policy --nice runs under: batch (default) or idle, CPU only when a "
                                "core is otherwise idle (zero loss under churn in the soak; can wait "
                                "indefinitely on a saturated machine)")
            p.add_argument("--metrics-addr", type=host_port, metavar="HOST:PORT",
                           help="serve Prometheus metrics there (off by default)")
    p = sub.add_parser("show", help="print live switch state")
    p.add_argument("what", choices=("ports", "vlans", "macs", "routes", "lsps", "vpls", "acl", "meters",
                                             "counters", "limits"))
    p.add_argument("file", type=Path, nargs="?", default=Path(DEFAULT_FILE))
    p.add_argument("--switch", action="append")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    p = sub.add_parser("dashboard", help="serve a live web page of the switches (counters, rates, state)")
    p.add_argument("file", type=Path, nargs="?", default=Path(DEFAULT_FILE))
    p.add_argument("--switch", action="append", help="only this switch (repeatable)")
    p.add_argument("--listen", type=host_port, default="127.0.0.1:8080", metavar="HOST:PORT",
                   help="where the page is served (default 127.0.0.1:8080)")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between samples (default 1)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="ts=%(asctime)s level=%(levelname)s %(message)s")
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command in ("diff", "apply"):
            return cmd_apply(args, dry_run=args.command == "diff")
        if args.command == "run":
            return cmd_run(args)
        if args.command == "dashboard":
            return cmd_dashboard(args)
        return cmd_show(args)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except P4RuntimeWriteError as exc:
        print(f"vrouter: write failed: {exc}", file=sys.stderr)
        for failure in exc.errors[:20]:
            print(f"  {failure}", file=sys.stderr)
        return 1
    except (P4RuntimeError, EntityError, SchemaError, CommandError) as exc:
        print(f"vrouter: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
