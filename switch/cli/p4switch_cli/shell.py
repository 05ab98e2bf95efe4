"""`p4switch-cli`: simple_switch_CLI's commands applied to a switch over P4Runtime.

    p4switch-cli [--grpc-addr HOST:PORT] [--device-id N] [--election-id N]
                 [--p4info FILE --json FILE] [COMMANDS_FILE]

Commands come from COMMANDS_FILE, else from standard input: a prompt (`RuntimeCmd: `)
when it is a terminal, a command file when it is not (`p4switch-cli < commands.txt`, as
with simple_switch_CLI). Each command prints what simple_switch_CLI prints; a command the
CLI or the switch refuses prints `FILE:LINE: error: COMMAND: message` on stderr, the
following commands still run, and the exit status is 1.
"""
from __future__ import annotations

import argparse
import cmd
import sys

from p4rt import P4RuntimeError, SchemaError, Switch

from . import externs, pre, queues, tables
from .session import Session
from .values import CliError

COMMANDS = {**tables.COMMANDS, **pre.COMMANDS, **externs.COMMANDS, **queues.COMMANDS}

# simple_switch_CLI commands that P4Runtime (or p4switch) has no counterpart for.
UNAVAILABLE = {
    "table_set_timeout": "entry timeouts are P4Runtime idle timeouts: use a controller",
    "mc_set_lag_membership": "p4switch's packet replication engine has no LAGs",
    "load_new_config_file": "push a new pipeline with `p4rt set-pipeline P4INFO JSON`",
    "swap_configs": "push a new pipeline with `p4rt set-pipeline P4INFO JSON`",
    "pvs_add": "parser value sets are P4Runtime ValueSetEntry writes: use a controller",
    "pvs_remove": "parser value sets are P4Runtime ValueSetEntry writes: use a controller",
    "reset_state": "use `p4rt delete-all`",
}


class Shell(cmd.Cmd):
    """The prompt and the command-file reader; commands are looked up in COMMANDS."""

    prompt = "RuntimeCmd: "
    intro = "Control utility for runtime P4 table manipulation (p4switch-cli, over P4Runtime)"

    def __init__(self, session: Session, source: str = "<stdin>", stdin=None) -> None:
        super().__init__(stdin=stdin)
        self.session = session
        self.source = source
        self.lineno = 0
        self.failed = 0
        self.interactive = False

    # --- dispatch ---------------------------------------------------------------------
    def run_line(self, line: str) -> bool:
        """Carry out one line; False if it failed."""
        text = line.split("#", 1)[0].strip()
        if not text:
            return True
        word, _, rest = text.partition(" ")
        try:
            if word in UNAVAILABLE:
                raise CliError(f"{word} is not available: {UNAVAILABLE[word]}")
            fn = COMMANDS.get(word)
            if fn is None:
                raise CliError(f"unknown command '{word}' (help lists the commands)")
            fn(self.session, rest.split())
            return True
        except CliError as exc:
            self._error(word, str(exc))
        except P4RuntimeError as exc:
            self._error(word, str(exc))
        except SchemaError as exc:
            self._error(word, str(exc))
        return False

    def _error(self, word: str, message: str) -> None:
        self.failed += 1
        if self.interactive:
            print(f"Error: {message}")
        else:
            print(f"{self.source}:{self.lineno}: error: {word}: {message}", file=sys.stderr)

    def run_file(self, lines) -> int:
        """Carry out every line of a command file; the number of failed commands."""
        for self.lineno, line in enumerate(lines, start=1):
            self.run_line(line)
        return self.failed

    # --- cmd.Cmd (the prompt) -----------------------------------------------------------
    def onecmd(self, line: str) -> bool:
        self.lineno += 1
        if line.strip() == "EOF":
            print()
            return True
        if line.strip() in ("quit", "exit"):
            return True
        word = line.strip().split(" ", 1)[0]
        if word == "help":
            return super().onecmd(line)
        self.run_line(line)
        return False

    def emptyline(self) -> bool:
        return False  # unlike cmd.Cmd, an empty line does not repeat the last command

    def get_names(self) -> list[str]:
        return ["do_" + n for n in COMMANDS] + ["do_help"]

    def do_help(self, arg: str) -> None:
        """List the commands, or show one command's usage: help [command]"""
        if arg:
            fn = COMMANDS.get(arg)
            print(fn.__doc__ if fn is not None else UNAVAILABLE.get(arg, f"no command '{arg}'"))
            return
        print("Commands (help COMMAND for its usage):")
        self.columnize(sorted(COMMANDS))

    def completenames(self, text: str, *ignored) -> list[str]:
        return [n for n in sorted(COMMANDS) if n.startswith(text)]


def connect(args) -> Switch:
    """Connect as primary and get the P4Info (from the switch, or push --p4info/--json)."""
    sw = Switch(args.grpc_addr, device_id=args.device_id, election_id=args.election_id)
    try:
        sw.connect(timeout=args.timeout)
    except P4RuntimeError as exc:
        raise SystemExit(f"p4switch-cli: error: {exc}") from None
    if not sw.is_primary:
        sw.close()
        raise SystemExit(f"p4switch-cli: error: not the primary controller of device {args.device_id} "
                         f"with election id {args.election_id} ({sw.arbitration}); "
                         f"a controller with a higher id is connected: pass a higher --election-id")
    try:
        sw.load_schema()
        return sw
    except P4RuntimeError as exc:
        if not (args.p4info and args.json):
            sw.close()
            raise SystemExit(f"p4switch-cli: error: the switch has no P4Runtime pipeline ({exc}); "
                             f"give --p4info FILE --json FILE to push one") from None
    try:
        sw.set_pipeline(args.p4info, args.json)
    except (P4RuntimeError, SchemaError) as exc:
        sw.close()
        raise SystemExit(f"p4switch-cli: error: pushing {args.p4info} + {args.json}: {exc}") from None
    return sw


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="p4switch-cli",
        description="simple_switch_CLI's commands (table_add, mc_node_create, counter_read, ...) "
                    "applied to a running p4switch, or any P4Runtime server, over P4Runtime.")
    ap.add_argument("file", nargs="?", help="command file (default: standard input; a prompt on a terminal)")
    ap.add_argument("--grpc-addr", default="127.0.0.1:9559", help="P4Runtime server (default %(default)s)")
    ap.add_argument("--device-id", type=int, default=0, help="P4Runtime device id (default %(default)s)")
    ap.add_argument("--election-id", type=int, default=1,
                    help="election id; the CLI must be primary to write (default %(default)s)")
    ap.add_argument("--p4info", help="P4Info to push if the switch has no pipeline yet (with --json)")
    ap.add_argument("--json", help="BMv2 JSON to push with --p4info")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the switch")
    args = ap.parse_args(argv)
    if bool(args.p4info) != bool(args.json):
        ap.error("--p4info and --json go together")
    if args.file:
        try:
            lines = open(args.file, encoding="utf-8").read().splitlines()
        except OSError as exc:
            ap.error(f"cannot read {args.file}: {exc.strerror}")
    sw = connect(args)
    try:
        session = Session(sw)
        if args.file:
            return 1 if Shell(session, args.file).run_file(lines) else 0
        if sys.stdin.isatty():
            shell = Shell(session, "<prompt>")
            shell.interactive = True
            try:
                shell.cmdloop()
            except KeyboardInterrupt:
                print()
            return 0
        return 1 if Shell(session, "<stdin>").run_file(sys.stdin.read().splitlines()) else 0
    except CliError as exc:
        print(f"p4switch-cli: error: {exc}", file=sys.stderr)
        return 1
    finally:
        sw.close()


if __name__ == "__main__":
    sys.exit(main())
