"""Every answer is checked against the warehouse before it is kept, claim by claim. An answer must
parse as JSON and follow its schema, and be about the PR it was asked about: otherwise the
whole part fails. Then each claim is held to the evidence rule (`evidence.py`): a claim that
fails is dropped with its reasons, and the rest is kept as plain text (`sanitize.py`), a
Chinese text with its names as code (`names_as_code`). Labels (a Chinese title, a core value, a
story's title) are checked the same way against the facts of their PRs; a PR list may hold only
PRs of the week. The part fails when what it needs most is gone: a PR's summary, or the week's
summary. The reasons are worded so that the model can be told them on its one retry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from orchestration.narrative.evidence import FactIndex, check_claim, check_label
from orchestration.narrative.prompt import Ask
from orchestration.narrative.sanitize import names_as_code
from orchestration.narrative.schema import SCHEMAS, SUMMARY_ZH_CHARS, schema_errors

MAX_REASONS = 6  # per dropped claim, the first distinct ones


@dataclass
class Review:
    """What came of checking one answer: the text kept, why the part fails (if it does), the
    claims dropped with their reasons, and what sanitising removed."""

    answer: dict | None
    failed: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    dropped_at: list[str] = field(default_factory=list)  # where: `summary[1]`, `title_zh`

    @property
    def usable(self) -> bool:
        return self.answer is not None and not self.failed

    @property
    def reasons(self) -> list[str]:
        return self.failed + self.dropped


def parse(content: str) -> tuple[Any, list[str]]:
    """The answer's JSON, or the reason it is not JSON."""
    try:
        return json.loads(content), []
    except (ValueError, TypeError) as error:
        return None, [f"the answer is not valid JSON ({error})"]


class _Checker:
    def __init__(self, ask: Ask, week_numbers: set[int]) -> None:
        self.ask = ask
        self.index = FactIndex.of(ask.fact_list, week_numbers)
        self.week = set(week_numbers)
        self.dropped: list[str] = []
        self.dropped_at: list[str] = []
        self.removed: set[str] = set()
        self.written_size = 0  # the Chinese length of the claim last kept

    def claim(self, item: dict, where: str) -> dict | None:
        zh, en, problems, removed = check_claim(item, self.index, where)
        self.removed.update(removed)
        if problems:
            self._drop(where, en[:80] or zh[:40], problems)
            return None
        self.written_size = len(zh)  # as the model wrote it, before its names became code
        return {"zh": names_as_code(zh), "en": en, "facts": list(item["facts"])}

    def _drop(self, where: str, text: str, problems: list[str]) -> None:
        shown = list(dict.fromkeys(problems))[:MAX_REASONS]
        self.dropped.append(f"{where} dropped ({text}): {'; '.join(shown)}")
        self.dropped_at.append(where)

    def claims(self, items: list[dict], where: str) -> list[dict]:
        kept = [self.claim(item, f"{where}[{i}]") for i, item in enumerate(items)]
        return [k for k in kept if k is not None]

    def label(self, text: str, numbers: set[int] | None, where: str, lang: str) -> str | None:
        pool = [f for f in self.index.all if numbers is None or f.owners & numbers or not f.owners]
        plain, problems = check_label(text, pool, self.index, where, lang)
        if problems or not plain:
            self._drop(where, plain[:40], problems or ["it is empty"])
            return None
        return names_as_code(plain) if lang == "zh" else plain

    def prs(self, numbers: list[int], where: str) -> list[int]:
        foreign = [n for n in numbers if n not in self.week]
        if foreign:
            names = ", ".join(f"#{n}" for n in foreign)
            self.dropped.append(f"{where} names {names}, which did not merge this week")
            self.dropped_at.append(where)
        return [n for n in dict.fromkeys(numbers) if n in self.week]


def _fit(check: _Checker, items: list[dict], limit: int) -> list[dict]:
    """The kept sentences whose Chinese fits in `limit` characters together (at least one);
    the ones past it are dropped, saying so."""
    kept, used = [], 0
    for index, item in enumerate(items):
        claim = check.claim(item, f"summary[{index}]")
        if claim is None:
            continue
        size = check.written_size
        if kept and used + size > limit:
            check._drop(
                f"summary[{index}]",
                claim["en"][:80],
                [f"the Chinese summary would pass {limit} characters"],
            )
            continue
        kept.append(claim)
        used += size
    return kept


def _pr(check: _Checker, answer: dict) -> tuple[dict, list[str]]:
    number = answer["number"]
    summary = _fit(check, answer["summary"], SUMMARY_ZH_CHARS + 40)
    kept = {
        "number": number,
        "title_zh": check.label(answer["title_zh"], {number}, "title_zh", "zh"),
        "summary": summary,
        "value_zh": check.label(answer["value_zh"], {number}, "value_zh", "zh"),
        "value_en": check.label(answer["value_en"], {number}, "value_en", "en"),
    }
    if kept["value_zh"] is None or kept["value_en"] is None:
        kept["value_zh"] = kept["value_en"] = None
    return kept, [] if summary else ["every sentence of `summary` was dropped"]


def _week(check: _Checker, answer: dict) -> tuple[dict, list[str]]:
    stories = []
    for i, story in enumerate(answer["stories"]):
        where = f"stories[{i}]"
        prs = check.prs(story["prs"], f"{where}.prs")
        sentences = check.claims(story["sentences"], f"{where}.sentences")
        title_zh = check.label(story["title_zh"], set(prs), f"{where}.title_zh", "zh")
        title_en = check.label(story["title_en"], set(prs), f"{where}.title_en", "en")
        if prs and sentences and title_zh and title_en:
            stories.append(
                {
                    "story": story["story"],
                    "title_zh": title_zh,
                    "title_en": title_en,
                    "prs": prs,
                    "sentences": sentences,
                }
            )
    recommendations = []
    for i, item in enumerate(answer["recommendations"]):
        where = f"recommendations[{i}]"
        prs = check.prs(item["prs"], f"{where}.prs")
        kept = check.claim(item, where)
        if kept and prs:
            recommendations.append({**kept, "prs": prs})
    theme = check.claim(answer["theme"], "theme")
    summary = check.claims(answer["summary"], "summary")
    kept = {
        "summary": summary,
        "theme": theme,
        "stories": stories,
        "recommendations": recommendations,
    }
    return kept, [] if summary else ["every sentence of `summary` was dropped"]


def review(ask: Ask, content: str, week_numbers: set[int]) -> Review:
    """The answer as it may be used, or why the part fails (see the module's docstring)."""
    answer, errors = parse(content)
    if errors:
        return Review(None, errors)
    errors = schema_errors(answer, SCHEMAS[ask.schema_name])
    if errors:
        return Review(None, [f"the answer breaks the schema: {e}" for e in errors[:5]])
    if ask.number is not None and answer["number"] != ask.number:
        return Review(None, [f"`number` is {answer['number']}, but this is PR #{ask.number}"])
    check = _Checker(ask, week_numbers)
    kept, failed = (_pr if ask.number is not None else _week)(check, answer)
    return Review(kept, failed, check.dropped, sorted(check.removed), check.dropped_at)


def problems(ask: Ask, content: str, week_numbers: set[int]) -> tuple[Any, list[str]]:
    """The kept answer and every reason found ([] when nothing was dropped)."""
    result = review(ask, content, week_numbers)
    return result.answer, result.reasons
