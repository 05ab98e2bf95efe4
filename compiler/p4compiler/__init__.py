"""p4compiler: a P4-16 compiler for the v1model architecture (BMv2 JSON + P4Info)."""

__version__ = "0.1.0"
