"""vrouter: the network description, its reconciliation over P4Runtime, and the router daemon."""

import os

os.environ.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")

from .config import ConfigError, Network, load, loads  # noqa: E402

__all__ = ["ConfigError", "Network", "load", "loads"]
