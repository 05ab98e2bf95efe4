"""bench: RFC 2544 measurements and the published scenarios of docs/scenarios.md (issue 9)."""
