"""vrouter: the network description, its reconciliation over P4Runtime, and the router daemon."""

from .config import ConfigError, Network, load, loads

__all__ = ["ConfigError", "Network", "load", "loads"]
