"""Fault injection for the language-model emulator: the ways a chat completions server fails
and the ways a model's answer goes wrong, switchable from a test or the command line.

Like the GitHub emulator's, faults are queued for the next requests (`fail_next`) or drawn
for every request with a probability from a seeded RNG (`fail_randomly`).
"""

from __future__ import annotations

from enum import StrEnum

from orchestration.testing.stand_in import FaultPlan
from orchestration.testing.stand_in import parse_fault_spec as parse_spec


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
    HOSTILE = "hostile"  # schema-valid inventions: figures, events, links, mentions, a foreign PR
    TRICKLE = "trickle"  # the answer one byte at a time, `trickle_seconds` apart
    NO_USAGE = "no-usage"  # an answer without `usage`
    BAD_USAGE = "bad-usage"  # `usage.prompt_tokens: "n/a"`, a malformed header beside it
    REFUTE = "refute"  # the verification pass finds no claim supported


class LlmFaults(FaultPlan[LlmFault]):
    """Thread-safe plan of which requests fail and how (`orchestration/testing/stand_in.py`)."""

    kinds = LlmFault

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.retry_after_seconds = 1
        self.delay_seconds = 2.0
        self.trickle_seconds = 0.5


def parse_fault_spec(spec: str) -> tuple[LlmFault, float]:
    """`KIND=0.1` (a probability) as used on the command line."""
    return parse_spec(spec, LlmFault)
