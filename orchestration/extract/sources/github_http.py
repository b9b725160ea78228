"""One GraphQL request at a time to GitHub, surviving the ways GitHub really fails.

- 5xx (JSON or HTML bodies), "Something went wrong", timeouts and connection resets: retried
  with exponential backoff and jitter; after a timeout the caller's `first` is halved, since
  GitHub times out on heavy pages.
- Primary rate limit (`RATE_LIMITED` / `RATE_LIMIT` errors, or a budget at 0): wait until the
  reset GitHub announces.
- Secondary rate limits: honour `retry-after`, else wait at least 60 s, doubling on each repeat.
- 401, a permission refusal (403, FORBIDDEN), NOT_FOUND: fail at once saying what to fix.
- Any other `errors` entry, with or without partial `data`: fail; nothing partial is returned.
- Every wait counts against a ceiling per partition; a wait that would pass it fails at once.
- Each request has a deadline for its whole answer (a trickling server is dropped and asked
  again), and the weeks being fetched have one for everything, waits included.
(`github_answers` reads each answer; this module acts on the reading.)
"""

from __future__ import annotations

import logging
import random
import ssl
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import httpx

from orchestration.extract.sources.github_answers import judge
from orchestration.extract.sources.github_errors import (
    GitHubDeadlineError,
    GitHubUnavailableError,
    GitHubWaitCeilingError,
    secs,
)
from orchestration.extract.sources.github_transfer import DeadlinePassed, post
from orchestration.retry import Backoff

MAX_LIMITED = 30  # per request, for rate-limit answers (the wait ceiling usually stops first)
# per request, for failures that are not rate limits
RETRY = Backoff(attempts=8, base=1.0, cap=60.0, jitter=(0.5, 1.0))
SECONDARY_MIN_WAIT = 60.0
MIN_PAGE = 5
_log = logging.getLogger("prweekly.github")


def user_agent() -> str:
    try:
        return f"prweekly/{version('prweekly')}"
    except PackageNotFoundError:
        return "prweekly"


def _epoch_to_iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@cache
def _tls() -> ssl.SSLContext:
    """httpx's default certificate checks, made once: loading the trusted certificates takes
    40 ms of CPU, and a run of a hundred repositories opens a client for each."""
    return httpx.create_ssl_context()


class GraphQLClient:
    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        transport: httpx.BaseTransport | None = None,
        log: Callable[[str], None] | None = None,
        timeout: float = 30.0,
        max_wait_seconds: float = 900.0,
        request_deadline: float = 120.0,
        week_deadline: float = 1800.0,
        timer: Callable[[], float] = time.monotonic,
        seed: int | None = None,
    ) -> None:
        self.url = url
        self._token = token or ""
        self._sleep = sleep
        self._clock = clock
        self._log = log or _log.info
        self._rng = random.Random(seed)
        self.max_wait_seconds = max_wait_seconds
        self.request_deadline = request_deadline
        self.week_deadline = week_deadline
        self._timer = timer
        self._deadline_at = timer() + week_deadline
        headers = {"user-agent": user_agent(), "accept": "application/json"}
        if token:
            headers["authorization"] = f"bearer {token}"
        self._http = httpx.Client(
            transport=transport,
            verify=_tls(),
            headers=headers,
            timeout=httpx.Timeout(min(timeout, request_deadline), connect=min(timeout, 10.0)),
            follow_redirects=False,
        )
        self.requests = 0
        self.points = 0
        self.remaining: int | None = None
        self.reset_at: float | None = None
        self.waited = 0.0
        self.retries = 0
        self._waited_partition = 0.0
        self._partitions = 1

    def begin_partition(self, partitions: int = 1) -> None:
        """Start a new waiting allowance and deadline: both are per partition (week) fetched."""
        self._waited_partition = 0.0
        self._partitions = max(1, partitions)
        self._deadline_at = self._timer() + self.week_deadline * self._partitions

    def close(self) -> None:
        self._http.close()

    def query(self, document: str, variables: dict[str, Any]) -> dict:
        """`data` of a fully successful answer. May halve `variables['first']` after timeouts."""
        failures = limited = secondary = 0
        last_problem = ""
        while True:
            self._wait_for_budget()
            problem = None
            allowed = min(self.request_deadline, self._time_left(last_problem))
            try:
                self.requests += 1
                payload = {"query": document, "variables": variables}
                response = post(self._http, self.url, payload, allowed)
            except httpx.TimeoutException:
                problem = "timed out"
                self._shrink(variables)
            except DeadlinePassed:
                problem = f"was not answered whole within its {secs(allowed)} s deadline"
                self._shrink(variables)
            except httpx.TransportError as exc:
                problem = f"connection failed ({type(exc).__name__})"
            if problem is None:
                self._note_headers(response)
                outcome = judge(response, self._redact, self._until_reset)
                if isinstance(outcome, dict):
                    self._note_rate_limit(outcome.get("rateLimit"))
                    return outcome
                kind, problem, wait = outcome.kind, outcome.problem, outcome.wait
                if kind == "primary":
                    limited += 1
                    self._give_up_if(limited > MAX_LIMITED, problem)
                    self.retries += 1
                    self._wait(wait, f"GitHub rate limit reached ({problem})")
                    continue
                if kind == "secondary":
                    limited += 1
                    self._give_up_if(limited > MAX_LIMITED, problem)
                    self.retries += 1
                    backoff = SECONDARY_MIN_WAIT * 2**secondary * self._rng.uniform(1.0, 1.25)
                    secondary += 1
                    self._wait(wait if wait is not None else backoff, f"GitHub {problem}")
                    continue
            failures += 1
            last_problem = problem
            if RETRY.gives_up(failures):
                raise GitHubUnavailableError(
                    f"GitHub GraphQL at {self.url} kept failing: {failures} attempts, "
                    f"the last {last_problem}; try again later"
                )
            self.retries += 1
            self._wait(
                RETRY.wait(failures, self._rng), f"GitHub request {problem}; retrying", problem
            )

    def _redact(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

    def _note_headers(self, response: httpx.Response) -> None:
        remaining = response.headers.get("x-ratelimit-remaining")
        reset = response.headers.get("x-ratelimit-reset")
        if remaining is not None and remaining.isdigit():
            self.remaining = int(remaining)
        if reset is not None and reset.isdigit():
            self.reset_at = float(reset)

    def _note_rate_limit(self, rate: Any) -> None:
        if not isinstance(rate, dict):
            return
        self.points += int(rate.get("cost") or 0)
        if isinstance(rate.get("remaining"), int):
            self.remaining = rate["remaining"]
        if rate.get("resetAt"):
            reset = datetime.fromisoformat(str(rate["resetAt"]).replace("Z", "+00:00"))
            self.reset_at = reset.timestamp()

    def _until_reset(self) -> float:
        """Seconds until the primary budget's announced reset (headers are noted first)."""
        if self.reset_at is None:
            return SECONDARY_MIN_WAIT
        return max(1.0, self.reset_at - self._clock() + 1.0)

    def _wait_for_budget(self) -> None:
        """A budget already at 0 would only earn a RATE_LIMITED answer: wait for the reset."""
        if self.remaining == 0 and self.reset_at is not None:
            wait = self.reset_at - self._clock() + 1.0
            if wait > 0:
                self._wait(wait, "GitHub rate limit budget is spent")
            self.remaining = None

    def _time_left(self, last_problem: str = "") -> float:
        """Seconds before the deadline of the weeks being fetched; past it, stop."""
        left = self._deadline_at - self._timer()
        if left <= 0:
            after = f" (the last request {last_problem})" if last_problem else ""
            raise GitHubDeadlineError(f"no time was left for the next request{after}")
        return left

    def _wait(self, seconds: float, reason: str, last_problem: str = "") -> None:
        """Sleep `seconds` for `reason`, unless that passes the wait ceiling or the deadline
        (which may have passed during the request that failed with `last_problem`)."""
        ceiling = self.max_wait_seconds * self._partitions
        if self._waited_partition + seconds > ceiling:
            raise GitHubWaitCeilingError(
                f"{reason}: waiting {seconds:.0f} s more would pass the ceiling of "
                f"{self.max_wait_seconds:.0f} s per week fetched (PRWEEKLY_MAX_WAIT_SECONDS); "
                "run again later"
            )
        if seconds >= self._time_left(last_problem):
            raise GitHubDeadlineError(
                f"{reason.removesuffix('; retrying')}, and waiting {secs(seconds)} s "
                "to ask again would pass it"
            )
        until = ""
        if self.reset_at is not None and "rate limit" in reason and "secondary" not in reason:
            until = f" until {_epoch_to_iso(self.reset_at)}"
        self._log(f"{reason}: waiting {seconds:.1f} s{until}")
        self._sleep(seconds)
        self._waited_partition += seconds
        self.waited += seconds

    def _shrink(self, variables: dict[str, Any]) -> None:
        first = variables.get("first")
        if isinstance(first, int) and first > MIN_PAGE:
            variables["first"] = max(MIN_PAGE, first // 2)
            self._log(f"GitHub timed out; asking for {variables['first']} per page from now on")

    def _give_up_if(self, condition: bool, problem: str) -> None:
        if condition:
            raise GitHubUnavailableError(
                f"GitHub kept answering '{problem}' after {MAX_LIMITED} waits; try again later"
            )
