"""Write the FileDescriptorSet of P4Runtime v1 (and its imports) to a file.

Used by build.rs: the Rust protobuf types are generated from the descriptors
of the P4Runtime modules `make setup` generates into the venv (from the pinned
P4Runtime release) and of `googleapis-common-protos`, so the server and every
Python client speak exactly the same schema.
"""
import sys

from google.protobuf import descriptor_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2


def collect(files):
    """Return the FileDescriptorSet of `files` and their imports, imports first."""
    out = descriptor_pb2.FileDescriptorSet()
    seen = set()

    def add(fd):
        if fd.name in seen:
            return
        seen.add(fd.name)
        for dep in fd.dependencies:
            add(dep)
        out.file.add().ParseFromString(fd.serialized_pb)

    for fd in files:
        add(fd)
    return out


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: descriptors.py OUT_FILE [VERSION_FILE]\n")
        return 2
    fds = collect([p4runtime_pb2.DESCRIPTOR, status_pb2.DESCRIPTOR, code_pb2.DESCRIPTOR])
    with open(argv[1], "wb") as f:
        f.write(fds.SerializeToString())
    if len(argv) == 3:
        from p4 import P4RUNTIME_VERSION  # written by mk/p4runtime_stubs.py at setup

        with open(argv[2], "w") as f:
            f.write(P4RUNTIME_VERSION)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
