"""Fault injection: the ways GitHub's GraphQL endpoint really fails, switchable from a test.

A test either queues faults for the next requests (`fail_next`) or makes every request fail
with some probability (`fail_randomly`, from a seeded RNG so a run can be repeated). Queued
faults win over random ones. The server asks `next_fault()` once per request.
"""

from __future__ import annotations

from enum import StrEnum

from orchestration.testing.stand_in import FaultPlan
from orchestration.testing.stand_in import parse_fault_spec as parse_spec


class Fault(StrEnum):
    BAD_GATEWAY_JSON = "502-json"  # 502 with GitHub's JSON body
    BAD_GATEWAY_HTML = "502-html"  # 502 with an HTML error page, as a proxy sends it
    GATEWAY_TIMEOUT = "504"  # 504 with an HTML body
    TIMEOUT = "timeout"  # answer only after `delay_seconds`, past the client's timeout
    RESET = "reset"  # read the request, then reset the connection without answering
    RATE_LIMITED = "rate-limited"  # 200 with an error of type RATE_LIMITED
    RATE_LIMIT = "rate-limit"  # 200 with an error of type RATE_LIMIT (an older spelling)
    REMAINING_ZERO = "remaining-zero"  # a good answer that spends the rest of the hour's budget
    RATE_LIMIT_403 = "rate-limit-403"  # 403 "API rate limit exceeded", x-ratelimit-remaining 0
    SECONDARY_403 = "secondary-403"  # 403 secondary rate limit, no retry-after
    SECONDARY_403_RETRY_AFTER = "secondary-403-retry-after"  # 403 with retry-after
    SECONDARY_429 = "secondary-429"  # 429 with retry-after
    SECONDARY_MESSAGE = "secondary-message"  # 200 whose error says "secondary rate limit"
    UNAUTHORIZED = "401"  # bad credentials
    NOT_FOUND = "not-found"  # the repository cannot be resolved
    PARTIAL = "partial"  # data with a field nulled out, plus "Something went wrong"
    WENT_WRONG = "went-wrong"  # 200, no data, "Something went wrong while executing your query"
    WENT_WRONG_502 = "went-wrong-502"  # the same error as a 502, as GitHub also sends it
    FORBIDDEN = "forbidden"  # 200 with a FORBIDDEN error: the token may not read the repository
    INSUFFICIENT_SCOPES = "insufficient-scopes"  # 200, an INSUFFICIENT_SCOPES error, no data
    FORBIDDEN_403 = "forbidden-403"  # 403 "Resource not accessible", budget left, no retry-after
    SAML_403 = "saml-403"  # 403: the token is not authorised for the organisation's SAML SSO
    SHIFT_PAGES = "shift-pages"  # a search page served before the window's newest PR was indexed
    NULL_MERGED_AT = "null-merged-at"  # the first search node's mergedAt is null
    TRICKLE = "trickle"  # a good answer sent a few bytes at a time, slower than any deadline
    DONE_502 = "done-502"  # the request is carried out (a post is created), then a proxy's 502


class Faults(FaultPlan[Fault]):
    """Thread-safe plan of which requests fail and how (`orchestration/testing/stand_in.py`)."""

    kinds = Fault

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.retry_after_seconds = 30
        self.delay_seconds = 1.0
        self.trickle_bytes = 64  # the `trickle` fault sends this many bytes...
        self.trickle_seconds = 0.05  # ...then pauses this long, until the answer is sent
        self._by_repo: dict[str, Fault] = {}

    def fail_repository(self, repo: str, fault: Fault | str | None) -> None:
        """Fail every request about `repo` with `fault` (None: answer it again), whatever the
        plan says for the others: one deleted repository or one the token may not read."""
        with self._lock:
            if fault is None:
                self._by_repo.pop(repo.lower(), None)
            else:
                self._by_repo[repo.lower()] = Fault(fault)

    def fault_for(self, repo: str | None) -> Fault | None:
        """The fault set for this repository, if any (counted as injected)."""
        with self._lock:
            fault = self._by_repo.get((repo or "").lower())
            if fault is not None:
                self.injected[fault] += 1
            return fault


def parse_fault_spec(spec: str) -> tuple[Fault, float]:
    """`KIND=0.1` (a probability) as used on the command line."""
    return parse_spec(spec, Fault)
