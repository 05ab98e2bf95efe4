"""Pacing for the daemon: token buckets (how much work per second) and capped backoff (when to retry)."""

from __future__ import annotations

import random


class TokenBucket:
    """Up to `rate` events per second on average, `burst` at once."""

    def __init__(self, rate: float, burst: float | None = None, now: float = 0.0) -> None:
        self.rate = float(rate)
        self.burst = float(burst if burst is not None else rate)
        self.tokens = self.burst
        self.last = now

    def take(self, now: float, n: float = 1.0) -> bool:
        """True (and spend `n` tokens) if the event may go ahead at time `now`."""
        if now > self.last:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
        if self.tokens >= n:
            self.tokens -= n
            return True
        return False


class Backoff:
    """Delays that start at `first` seconds and double up to `cap`, with ±10 % jitter."""

    def __init__(self, first: float, cap: float) -> None:
        self.first, self.cap = first, cap
        self.delay = first

    def next(self) -> float:
        """The delay before the next attempt (and double it for the one after)."""
        delay = self.delay
        self.delay = min(self.cap, self.delay * 2)
        return delay * random.uniform(0.9, 1.1)

    def reset(self) -> None:
        """Back to the first delay (after a success)."""
        self.delay = self.first
