"""Generate the P4Runtime Python modules (`p4.v1`, `p4.config.v1`) into a directory.

The schema is P4Runtime's own, taken from the `p4runtime` wheel on PyPI (its
modules carry each .proto file's serialized FileDescriptorProto). The wheel's
Python code is never imported or installed: it was generated long ago and does
not match today's protobuf runtime. `grpc_tools.protoc` (pinned beside protobuf
in requirements.txt, so compiler and runtime agree) compiles the descriptors
into fresh `_pb2.py`, `_pb2.pyi` and `_pb2_grpc.py` modules.

usage: p4runtime_stubs.py P4RUNTIME_WHEEL OUT_DIR
"""
import ast
import re
import sys
import tempfile
import zipfile
from pathlib import Path

from google.protobuf import any_pb2, descriptor_pb2
from google.rpc import code_pb2, status_pb2
from grpc_tools import protoc

MODULES = ["p4/config/v1/p4types_pb2.py", "p4/config/v1/p4info_pb2.py", "p4/v1/p4data_pb2.py", "p4/v1/p4runtime_pb2.py"]


def serialized_descriptor(source: str, name: str) -> bytes:
    """The serialized FileDescriptorProto a generated module embeds (old and new protoc styles)."""
    for node in ast.walk(ast.parse(source, name)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if func == "AddSerializedFile" and node.args and isinstance(node.args[0], ast.Constant):
            return node.args[0].value
        for kw in node.keywords:
            if kw.arg == "serialized_pb" and isinstance(kw.value, ast.Constant):
                return kw.value.value
    raise SystemExit(f"p4runtime_stubs: {name}: no serialized descriptor found")


def wheel_version(wheel: zipfile.ZipFile) -> str:
    """The package version from the wheel's METADATA."""
    [meta] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    found = re.search(r"^Version: (\S+)$", wheel.read(meta).decode(), re.M)
    if not found:
        raise SystemExit(f"p4runtime_stubs: {meta}: no Version")
    return found.group(1)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("usage: ")[1])
        return 2
    wheel_path, out = Path(argv[1]), Path(argv[2])
    fds = descriptor_pb2.FileDescriptorSet()
    for dep in (any_pb2, status_pb2, code_pb2):      # imports first, as protoc wants them
        fds.file.add().ParseFromString(dep.DESCRIPTOR.serialized_pb)
    protos = []
    with zipfile.ZipFile(wheel_path) as wheel:
        version = wheel_version(wheel)
        for module in MODULES:
            data = serialized_descriptor(wheel.read(module).decode(), module)
            proto = fds.file.add()
            proto.ParseFromString(data)
            protos.append(proto.name)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix=".fds") as tmp:
        tmp.write(fds.SerializeToString())
        tmp.flush()
        rc = protoc.main(["protoc", f"--descriptor_set_in={tmp.name}", f"--python_out={out}", f"--pyi_out={out}",
                          f"--grpc_python_out={out}", *protos])
    if rc != 0:
        raise SystemExit(f"p4runtime_stubs: protoc failed ({rc})")
    for pkg in ("p4/config", "p4/config/v1", "p4/v1"):
        (out / pkg / "__init__.py").write_text("")
    (out / "p4" / "__init__.py").write_text(
        f'"""P4Runtime {version} modules, generated at setup by mk/p4runtime_stubs.py; do not edit."""\n\n'
        f'P4RUNTIME_VERSION = "{version}"\n')
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
