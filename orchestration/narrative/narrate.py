"""Asking the model for a week: the cache first, then each request with its checks, one retry
with the reasons, and the deterministic text when the answer still fails."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from orchestration.narrative.checks import problems
from orchestration.narrative.client import ChatClient, Unavailable
from orchestration.narrative.prompt import PROMPT_VERSION, Ask
from orchestration.narrative.schema import SCHEMAS
from orchestration.narrative.store import Outcome

RETRY = (
    "Your answer cannot be used: {reasons}. Answer again with one corrected JSON object that "
    "follows the schema and uses only the facts given."
)


@dataclass
class Tally:
    """A run's counts, for the log and the asset's metadata."""

    asked: int = 0
    cached: int = 0
    fallbacks: int = 0
    unavailable: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        if outcome.cached:
            self.cached += 1
            return
        self.asked += 1
        self.prompt_tokens += outcome.prompt_tokens
        self.completion_tokens += outcome.completion_tokens
        if outcome.source == "fallback":
            self.fallbacks += 1
        elif outcome.source == "unavailable":
            self.unavailable += 1
        if outcome.source != "model":
            where = f"#{outcome.number}" if outcome.number else "week"
            self.failed.append(
                f"{outcome.repo} {outcome.week_start} {where}: {'; '.join(outcome.failed_checks)}"
            )


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
    messages = list(item.messages)
    for _ in range(2):
        try:
            completion = client.complete(messages, item.schema_name, schema)
        except Unavailable as error:
            outcome.source = "unavailable"
            outcome.failed_checks.append(f"unavailable: {error}")
            return outcome
        outcome.attempts += 1
        outcome.response = completion.content
        outcome.prompt_tokens += completion.prompt_tokens
        outcome.completion_tokens += completion.completion_tokens
        outcome.latency_ms += completion.latency_ms
        answer, reasons = problems(item, completion.content, week_numbers)
        if not reasons:
            outcome.narrative, outcome.source = answer, "model"
            return outcome
        outcome.failed_checks += reasons
        messages = [
            *item.messages,
            {"role": "assistant", "content": completion.content[:4000]},
            {"role": "user", "content": RETRY.format(reasons="; ".join(reasons))},
        ]
    outcome.source = "fallback"
    return outcome


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
