"""How prweekly asks again after a failure it may outlive (GitHub, the language model, a
delivery target): one policy, with each caller's own figures, and what a `Retry-After` asks."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """Give up after `attempts` failures; before the next try after the n-th, wait
    `base * factor ** (n - 1)` seconds, at most `cap`, times a random factor in `jitter` (so
    that many clients failing together do not come back together)."""

    attempts: int
    base: float
    cap: float
    factor: float = 2.0
    jitter: tuple[float, float] | None = None

    def gives_up(self, failures: int) -> bool:
        return failures >= self.attempts

    def wait(self, failures: int, rng: random.Random | None = None) -> float:
        """The seconds to wait after the `failures`-th failure (1 for the first)."""
        delay = min(self.cap, self.base * self.factor ** (failures - 1))
        if self.jitter:
            delay *= (rng or random).uniform(*self.jitter)
        return delay


def retry_after(raw: str | None, unreadable: float | None = None) -> float | None:
    """The seconds a `Retry-After` header asks for (a number, or an HTTP date); `unreadable`
    when it is missing or neither."""
    try:
        return max(0.0, float(raw or ""))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw or "")
    except (TypeError, ValueError, OverflowError):
        return unreadable
    return max(0.0, when.timestamp() - time.time())
