#!/usr/bin/env python3
"""Random and mutated frames through vrouter.p4 as the controller configures it.

Starts the `fuzz_frames` example of the P4Runtime server crate (a switch with no
ports that serves P4Runtime), lets `vrouter apply` configure it from the full
example description of docs/controller.md (VLANs, access and trunk ports, routes
with ECMP, ACL, policers, MPLS LSPs, VPLS, NAT/firewall where the example has
them), then tells it to run the frames in-process. Exit status 0 only if the
controller configured the switch and no frame crashed, hung or misbehaved.

    .venv/bin/python fuzz/frames.py --frames 100000 --seed 1
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def example_description(address: str, p4info: Path, config: Path) -> str:
    """The full example of docs/controller.md, pointed at this switch and program."""
    docs = (ROOT / "docs" / "controller.md").read_text()
    block = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    for old, new in (("127.0.0.1:9559", address), ("../build/vrouter.p4info.txtpb", str(p4info)),
                     ("../build/vrouter.json", str(config))):
        if old not in block:
            raise SystemExit(f"frames: docs/controller.md's first yaml block lost {old!r}")
        block = block.replace(old, new)
    return block


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "examples" / "fuzz_frames",
                    help="the fuzz_frames example (cargo build --release -p p4runtime-server --example fuzz_frames)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole run")
    args = ap.parse_args(argv)
    venv = ROOT / ".venv" / "bin"
    with tempfile.TemporaryDirectory(prefix="fuzz-frames-") as tmp:
        tmpd = Path(tmp)
        json_path, p4info = tmpd / "vrouter.json", tmpd / "vrouter.p4info.txtpb"
        done = subprocess.run([str(venv / "p4compile"), str(ROOT / "p4src" / "vrouter.p4"), "-o", str(json_path),
                               "--p4runtime-files", str(p4info)], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            print(f"frames: compiling vrouter.p4 failed:\n{done.stderr}", file=sys.stderr)
            return 2
        sw = subprocess.Popen([str(args.binary), "--frames", str(args.frames), "--seed", str(args.seed),
                               "--cpu-port", "255"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              cwd=tmp)
        try:
            first = sw.stdout.readline()
            m = re.match(r"listening (\S+)", first)
            if not m:
                print(f"frames: fuzz_frames did not start: {first!r}", file=sys.stderr)
                return 2
            net = tmpd / "network.yaml"
            net.write_text(example_description(m.group(1), p4info, json_path))
            applied = subprocess.run([str(venv / "vrouter"), "apply", str(net)], capture_output=True, text=True,
                                     timeout=120, env={**os.environ, "PYTHONPATH": ""})
            print(applied.stdout.strip())
            if applied.returncode != 0 or "wrote" not in applied.stdout:
                print(f"frames: vrouter apply failed:\n{applied.stderr}", file=sys.stderr)
                return 2
            sw.stdin.write("go\n")
            sw.stdin.flush()
            out, _ = sw.communicate(timeout=args.timeout)
            print(out.strip())
            for f in tmpd.glob("fuzz-frame-*.bin"):
                keep = ROOT / "build" / "fuzz" / f.name
                keep.parent.mkdir(parents=True, exist_ok=True)
                keep.write_bytes(f.read_bytes())
                print(f"frames: finding kept as {keep}")
            return sw.returncode
        finally:
            if sw.poll() is None:
                sw.kill()
                sw.wait()


if __name__ == "__main__":
    sys.exit(main())
