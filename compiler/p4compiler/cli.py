"""`p4compile`: command line compatible with p4c-bm2-ss."""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import threading

from .diag import CompileError, SourceCache

_FORMATS = {".txt": "text", ".txtpb": "text", ".pbtxt": "text", ".bin": "binary", ".pb": "binary", ".json": "json"}


class _ArgParser(argparse.ArgumentParser):
    def error(self, message: str):
        """Usage errors exit with status 1 like every other error."""
        self.print_usage(sys.stderr)
        print(f"p4compile: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def make_parser() -> argparse.ArgumentParser:
    ap = _ArgParser(prog="p4compile", description="Compile a P4-16 v1model program to BMv2 JSON and P4Info.")
    ap.add_argument("source", help="P4 source file")
    ap.add_argument("-o", dest="output", help="BMv2 JSON output file")
    ap.add_argument("--p4runtime-files", dest="p4runtime_files", default="",
                    help="comma-separated P4Info output files; format from the extension (.txt/.txtpb, .bin, .json)")
    ap.add_argument("--p4runtime-file", dest="p4runtime_file", default="", help="(deprecated) one P4Info output file")
    ap.add_argument("--p4runtime-format", dest="p4runtime_format", choices=["text", "binary", "json"], default=None,
                    help="format for files whose extension does not say")
    ap.add_argument("-I", dest="include", action="append", default=[], help="add an include directory")
    ap.add_argument("-D", dest="define", action="append", default=[], help="define a macro NAME[=VALUE]")
    ap.add_argument("--std", default="p4-16", help="language version (only p4-16)")
    ap.add_argument("--p4v", default=None, help="language version, p4c's older spelling of --std (16 or 1.2)")
    ap.add_argument("--pp", dest="pp_file", default=None,
                    help="write the preprocessed program to this file (p4c pretty-prints its IR there)")
    ap.add_argument("--arch", default="v1model",
                    help="architecture: v1model, or tna (Tofino: type check only, no -o/--p4runtime-files)")
    ap.add_argument("--target", default=None, help="target (bmv2; tofino with --arch tna)")
    ap.add_argument("--dump-tokens", action="store_true", help="print the tokens")
    ap.add_argument("--dump-ast", action="store_true", help="print the syntax tree")
    ap.add_argument("--dump-ir", action="store_true", help="print the lowered BMv2 program")
    ap.add_argument("--version", action="version", version="p4compile 0.1.0")
    return ap


def render(err: CompileError, sources: SourceCache) -> str:
    return "\n".join(d.render(sources) for d in err.diagnostics)


def write_preprocessed(comp, path: str | None) -> bool:
    """--pp FILE: the preprocessed program, written even when a later phase fails (p4c
    writes its copy before type checking); False if it cannot be written."""
    if not path or comp.preprocessed is None:
        return True
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write(comp.preprocessed)
    except OSError as e:
        print(f"p4compile: error: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return False
    return True


def run(argv: list[str]) -> int:
    """The p4compile command: parse options, compile, print diagnostics and dumps, write the
    JSON and P4Info files; returns the exit status."""
    from .driver import Compilation, Options
    from .p4info import serialize
    ap = make_parser()
    args = ap.parse_args(argv)
    targets = {"v1model": ("bmv2", "bmv2-ss"), "tna": ("tofino",)}
    # p4c spells P4-16 "p4-16" or "16" for --std, and "16" or "1.2" for --p4v (the tutorials' Makefile)
    std = ("--p4v", args.p4v, ("16", "1.2")) if args.p4v is not None else ("--std", args.std, ("p4-16", "p4_16", "16"))
    for flag, val, ok in (std, ("--arch", args.arch, tuple(targets)),
                          ("--target", args.target or targets.get(args.arch, ("",))[0], targets.get(args.arch, ()))):
        if val not in ok:
            print(f"p4compile: error: unsupported: {flag} {val} (supported: {', '.join(ok)})", file=sys.stderr)
            return 1
    if args.arch != "v1model" and (args.output or args.p4runtime_files or args.p4runtime_file or args.dump_ir):
        print(f"p4compile: error: --arch {args.arch} type-checks only: no -o, --p4runtime-files or --dump-ir",
              file=sys.stderr)
        return 1
    opts = Options(include_dirs=args.include, defines=args.define, dump_tokens=args.dump_tokens,
                   dump_ast=args.dump_ast, dump_ir=args.dump_ir, arch=args.arch, keep_preprocessed=bool(args.pp_file))
    comp = Compilation(args.source, opts)
    # A compilation builds many small objects and no reference cycles worth collecting:
    # the cyclic collector only costs time here (up to half of it on large inputs).
    gc.disable()
    try:
        res = comp.run()
    except CompileError as e:
        if not write_preprocessed(comp, args.pp_file):
            return 1
        for d in comp.dumps:
            print(d)
        for w in comp.warnings:
            print(w.render(comp.sources), file=sys.stderr)
        print(render(e, comp.sources), file=sys.stderr)
        return 1
    if not write_preprocessed(comp, args.pp_file):
        return 1
    for d in comp.dumps:
        print(d)
    for w in res.warnings:
        print(w.render(comp.sources), file=sys.stderr)
    try:
        if args.output:
            os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
            with open(args.output, "w") as f:
                json.dump(res.json, f, indent=2)
                f.write("\n")
        files = [x for x in args.p4runtime_files.split(",") if x] + ([args.p4runtime_file] if args.p4runtime_file else [])
        for path in files:
            ext = os.path.splitext(path)[1].lower()
            fmt = _FORMATS.get(ext) or args.p4runtime_format or "text"
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "wb") as f:
                f.write(serialize(res.p4info, fmt))
    except OSError as e:
        print(f"p4compile: error: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the compiler in a thread with a large stack so that deeply
    nested input is reported as an error rather than crashing the interpreter."""
    argv = sys.argv[1:] if argv is None else argv
    result = [1]

    def target():
        try:
            result[0] = run(argv)
        except SystemExit as e:
            result[0] = e.code if isinstance(e.code, int) else 1
        except RecursionError:
            print("p4compile: error: program nested too deeply", file=sys.stderr)
            result[0] = 1
        except MemoryError:
            print("p4compile: error: out of memory", file=sys.stderr)
            result[0] = 1
        except Exception as e:  # never show a traceback to users
            print(f"p4compile: internal error: {type(e).__name__}: {e}", file=sys.stderr)
            result[0] = 1

    sys.setrecursionlimit(100000)
    threading.stack_size(512 * 1024 * 1024)
    t = threading.Thread(target=target)
    t.start()
    t.join()
    return result[0]


if __name__ == "__main__":
    sys.exit(main())
