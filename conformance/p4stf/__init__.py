"""p4stf: run p4c-style STF tests against a P4 compiler and a v1model switch."""
