"""Fault injection for the language-model emulator: the ways a chat completions server fails
and the ways a model's answer goes wrong, switchable from a test or the command line.

Like the GitHub emulator's, faults are queued for the next requests (`fail_next`) or drawn
for every request with a probability from a seeded RNG (`fail_randomly`).
"""

from __future__ import annotations

import random
import threading
from collections import Counter, deque
from enum import StrEnum


class LlmFault(StrEnum):
    TIMEOUT = "timeout"  # answer only after `delay_seconds`, past the client's timeout
    RATE_LIMIT = "429"  # 429 with Retry-After
    SERVER_ERROR = "500"  # 500 with an error body
    UNAUTHORIZED = "401"  # the key is refused
    INVALID_JSON = "invalid-json"  # the content is not JSON
    BREAK_SCHEMA = "break-schema"  # JSON that lacks a required field
    FOREIGN_PR = "foreign-pr"  # names a PR that did not merge in the week
    UNKNOWN_FIGURE = "unknown-figure"  # states a figure that is not in the facts
    ENGLISH = "english"  # English where Chinese was asked


class LlmFaults:
    """Thread-safe plan of which requests fail and how."""

    def __init__(self, seed: int = 0) -> None:
        self._lock = threading.Lock()
        self._queue: deque[LlmFault | None] = deque()
        self._rates: dict[LlmFault, float] = {}
        self._rng = random.Random(seed)
        self.injected: Counter[LlmFault] = Counter()
        self.retry_after_seconds = 1
        self.delay_seconds = 2.0

    def fail_next(self, fault: LlmFault | str, times: int = 1, after: int = 0) -> None:
        """Let `after` requests through, then fail the next `times` with `fault`."""
        with self._lock:
            self._queue.extend([None] * after + [LlmFault(fault)] * times)

    def fail_randomly(self, fault: LlmFault | str, probability: float) -> None:
        if not 0 <= probability <= 1:
            raise ValueError(f"probability {probability} is not between 0 and 1")
        with self._lock:
            self._rates[LlmFault(fault)] = probability

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self._rates.clear()

    def next_fault(self) -> LlmFault | None:
        with self._lock:
            queued = bool(self._queue)
            fault = self._queue.popleft() if queued else None
            if not queued:
                for candidate, probability in self._rates.items():
                    if self._rng.random() < probability:
                        fault = candidate
                        break
            if fault is not None:
                self.injected[fault] += 1
            return fault


def parse_fault_spec(spec: str) -> tuple[LlmFault, float]:
    """`500=0.1` (a probability) as used on the command line."""
    name, _, value = spec.partition("=")
    try:
        return LlmFault(name.strip()), float(value or 1)
    except ValueError:
        known = ", ".join(f.value for f in LlmFault)
        raise ValueError(
            f"bad fault {spec!r}: use KIND=PROBABILITY with KIND one of {known}"
        ) from None
