"""bench: RFC 2544 measurements and the published scenarios of SCENARIOS.md (issue 9)."""
