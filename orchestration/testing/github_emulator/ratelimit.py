"""GitHub's primary GraphQL rate limit: points per hour, in a window that opens on first use.

`rateLimit { cost remaining resetAt }` in a query and the `x-ratelimit-*` headers of its
response are both read from the same snapshot, so they always agree.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Snapshot:
    limit: int
    used: int
    reset_at: float  # epoch seconds
    cost: int = 0

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-reset": str(int(self.reset_at)),
            "x-ratelimit-resource": "graphql",
        }


class RateBudget:
    def __init__(
        self, clock: Callable[[], float], limit: int = 5000, window_seconds: float = 3600
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.limit = limit
        self.window_seconds = window_seconds
        self._used = 0
        self._reset_at: float | None = None

    def _roll(self) -> None:
        now = self._clock()
        if self._reset_at is None or now >= self._reset_at:
            self._used = 0
            self._reset_at = int(now) + self.window_seconds

    def peek(self) -> Snapshot:
        with self._lock:
            self._roll()
            return Snapshot(self.limit, self._used, self._reset_at)

    def charge(self, cost: int) -> Snapshot | None:
        """Spend `cost` points; None when the budget cannot cover it (nothing is spent)."""
        with self._lock:
            self._roll()
            if self._used + cost > self.limit:
                return None
            self._used += cost
            return Snapshot(self.limit, self._used, self._reset_at, cost)

    def exhaust(self) -> None:
        """Spend whatever is left of this window (the `remaining-zero` fault)."""
        with self._lock:
            self._roll()
            self._used = self.limit
