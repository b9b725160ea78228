"""Asking the model for a week: the key PRs first, then the week with their accepted
summaries; the cache first, then each request with its checks, one retry with the reasons,
the optional verification pass, and the deterministic text when an answer still fails.

A part fails alone: whatever goes wrong in one request (a malformed answer, header or usage
field, a deadline, an error of our own) makes that part `unavailable` or `fallback`, never
the build; only `EndpointError` (the endpoint cannot be used at all) stops the step.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.narrative.checks import Review, review
from orchestration.narrative.client import ChatClient, EndpointError, Unavailable
from orchestration.narrative.prompt import PROMPT_VERSION, Ask, pr_asks, week_ask
from orchestration.narrative.schema import SCHEMAS
from orchestration.narrative.store import Outcome, find
from orchestration.narrative.verify import verify

RETRY = (
    "Your answer cannot be used as it is: {reasons}. Answer again with one corrected JSON "
    "object that follows the schema; leave out what the cited facts do not support."
)
MAX_RETRY_REASONS = 12


@dataclass
class Tally:
    """A run's counts, for the log and the asset's metadata."""

    asked: int = 0
    cached: int = 0
    fallbacks: int = 0
    unavailable: int = 0
    dropped_claims: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_usage: int = 0
    failed: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        if outcome.cached:
            self.cached += 1
            return
        self.asked += 1
        self.prompt_tokens += outcome.prompt_tokens
        self.completion_tokens += outcome.completion_tokens
        self.estimated_usage += bool(outcome.usage_estimated)
        self.dropped_claims += len(outcome.dropped_claims)
        if outcome.source == "fallback":
            self.fallbacks += 1
        elif outcome.source == "unavailable":
            self.unavailable += 1
        if outcome.source != "model":
            where = f"#{outcome.number}" if outcome.number else "week"
            self.failed.append(
                f"{outcome.repo} {outcome.week_start} {where}: {'; '.join(outcome.failed_checks)}"
            )


def _choose(best: Review | None, result: Review) -> Review | None:
    if not result.usable:
        return best
    if best is None or len(result.dropped) <= len(best.dropped):
        return result
    return best


def ask(client: ChatClient, item: Ask, week_numbers: set[int]) -> Outcome:
    """One request through its checks: the answer, or the deterministic text and why."""
    model = client.settings.model
    schema = SCHEMAS[item.schema_name]
    outcome = Outcome(
        item.repo,
        item.week_start,
        item.kind,
        item.number,
        item.key(model),
        model,
        PROMPT_VERSION,
        request={"messages": list(item.messages), "schema_name": item.schema_name},
    )
    messages, best = list(item.messages), None
    try:
        for _ in range(2):
            try:
                completion = client.complete(messages, item.schema_name, schema)
            except Unavailable as error:
                outcome.failed_checks.append(f"unavailable: {error}")
                break
            outcome.attempts += 1
            _count(outcome, completion)
            outcome.response = completion.content
            result = review(item, completion.content, week_numbers)
            if completion.truncated and not result.usable:
                result.failed.append("the answer was cut off at max_tokens")
            best = _choose(best, result)
            outcome.failed_checks += result.reasons
            if result.usable and not result.dropped:
                break
            reasons = "; ".join(result.reasons[:MAX_RETRY_REASONS])
            messages = [
                *item.messages,
                {"role": "assistant", "content": completion.content[:6000]},
                {"role": "user", "content": RETRY.format(reasons=reasons)},
            ]
        if best is None:
            outcome.source = "unavailable" if outcome.attempts < 2 else "fallback"
            return outcome
        outcome.narrative, outcome.source = best.answer, "model"
        outcome.dropped_claims = list(best.dropped)
        if client.settings.verify:
            _verify(client, item, outcome)
    except EndpointError:
        raise
    except Exception as error:  # one part's failure must stay in that part
        outcome.narrative, outcome.source = None, "unavailable"
        outcome.failed_checks.append(f"unavailable: {type(error).__name__}: {str(error)[:200]}")
    return outcome


def _count(outcome: Outcome, completion) -> None:
    outcome.prompt_tokens += completion.prompt_tokens
    outcome.completion_tokens += completion.completion_tokens
    outcome.latency_ms += completion.latency_ms
    outcome.usage_estimated = bool(outcome.usage_estimated) or completion.usage_estimated


def _verify(client: ChatClient, item: Ask, outcome: Outcome) -> None:
    try:
        kept, refuted, completion = verify(client, item, outcome.narrative)
    except Unavailable as error:
        outcome.dropped_claims.append(f"verification not done: {error}")
        return
    if completion is not None:
        _count(outcome, completion)
    outcome.dropped_claims += refuted
    if not kept.get("summary"):
        outcome.narrative, outcome.source = None, "fallback"
        outcome.failed_checks += refuted
    else:
        outcome.narrative = kept


def narrate(
    client: ChatClient, asks: Iterable[Ask], week_numbers: set[int], cache: dict[str, Outcome]
) -> list[Outcome]:
    """Every request's outcome, in the order asked: from the cache, else from the model (as
    many at once as the concurrency setting allows)."""
    asks = list(asks)
    model = client.settings.model
    keys = [a.key(model) for a in asks]
    todo = [i for i, key in enumerate(keys) if key not in cache]
    with ThreadPoolExecutor(max_workers=client.settings.concurrency) as pool:
        answers = list(pool.map(lambda i: ask(client, asks[i], week_numbers), todo))
    answered = dict(zip(todo, answers, strict=True))
    return [answered[i] if i in answered else cache[key] for i, key in enumerate(keys)]


def week_numbers(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> set[int]:
    rows = conn.execute(
        "select number from marts.fct_pull_requests where repo = ? and week_start = ?",
        [repo, week],
    ).fetchall()
    return {n for (n,) in rows}


def told(outcomes: list[Outcome]) -> dict[int, dict | None]:
    """The accepted PR answers by number (None where the model's text is not used)."""
    return {o.number: o.narrative if o.source == "model" else None for o in outcomes}


def narrate_week(
    client: ChatClient, conn: duckdb.DuckDBPyConnection, repo: str, week: date
) -> list[Outcome]:
    """The week's outcomes: its key PRs (from the cache or asked), then the week's request,
    built with their accepted summaries."""
    model = client.settings.model
    numbers = week_numbers(conn, repo, week)
    prs = pr_asks(conn, repo, week)
    outcomes = narrate(client, prs, numbers, find(conn, [a.key(model) for a in prs]))
    last = week_ask(conn, repo, week, told(outcomes))
    if last is not None:
        outcomes += narrate(client, [last], numbers, find(conn, [last.key(model)]))
    return outcomes
