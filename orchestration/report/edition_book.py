"""A repository's editions during one report run: which box a week's report carries, which
corrections of earlier weeks it lists, and which new editions the run made.

A week's report is corrected when the facts it states differ from those of an earlier
edition: its box names the latest such edition and what changed since. The box is a function
of the editions, not of the run, so rendering the same facts again gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from orchestration.report.editions import Edition, changes_between, content_sha256


@dataclass(frozen=True)
class Correction:
    """A week's facts differ from those of the edition of `since`: `changes` says how."""

    week_start: date
    since: datetime
    corrected_at: datetime
    changes: list[dict]


class EditionBook:
    """Every edition of one repository, those of this run included."""

    def __init__(
        self,
        repo: str,
        editions: list[Edition],
        diff: Callable[[dict, dict], list[dict]] = changes_between,
    ) -> None:
        """`diff` says what changed between two editions' facts (a group's facts are not a
        repository's PRs: orchestration.group.editions)."""
        self.repo = repo
        self.diff = diff
        self.editions = sorted(editions, key=lambda e: (e.rendered_at, e.edition))
        self.new: list[Edition] = []

    def of_week(self, week: date, lang: str | None = None) -> list[Edition]:
        return [
            e for e in self.editions if e.week_start == week and (lang is None or e.lang == lang)
        ]

    def correction(self, week: date, facts: dict[str, dict], now: datetime) -> Correction | None:
        """Against the latest edition whose facts differ from `facts`, if any; the correction
        is dated by the first edition that stated `facts` after it (else `now`)."""
        past = self.of_week(week)
        for index in range(len(past) - 1, -1, -1):
            if past[index].facts != facts:
                later = past[index + 1 :]
                at = later[0].rendered_at if later else now
                return Correction(
                    week, past[index].rendered_at, at, self.diff(past[index].facts, facts)
                )
        return None

    def earlier_corrections(self, week: date) -> list[Correction]:
        """Corrections of weeks before `week` made since the previous reported week's first
        edition (when last week's report first went out), newest week first."""
        before = [e for e in self.editions if e.week_start < week]
        if not before:
            return []
        previous = max(e.week_start for e in before)
        since = min(e.rendered_at for e in before if e.week_start == previous)
        latest: dict[date, Edition] = {}
        for e in before:
            if e.corrected_since is not None and e.rendered_at >= since:
                latest[e.week_start] = e  # oldest first: the last one wins
        return [
            Correction(w, e.corrected_since, e.rendered_at, e.changes)
            for w, e in sorted(latest.items(), reverse=True)
        ]

    def record(
        self,
        week: date,
        lang: str,
        markdown: str,
        facts: dict[str, dict],
        correction: Correction | None,
        now: datetime,
    ) -> Edition:
        """The edition `markdown` is: the latest one when its text is unchanged, else a new one."""
        sha = content_sha256(markdown)
        mine = self.of_week(week, lang)
        if mine and mine[-1].content_sha256 == sha:
            return mine[-1]
        edition = Edition(
            self.repo,
            week,
            lang,
            max((e.edition for e in mine), default=0) + 1,
            sha,
            now,
            facts,
            correction.since if correction else None,
            correction.changes if correction else [],
        )
        self.editions.append(edition)
        self.new.append(edition)
        return edition
