"""GitHub's own count of the PRs merged in each week, as the `github` source checked it.

Every window the source searched matched GitHub's `issueCount` for it before it was kept; these
are those counts, per week, for the lake to store beside the week's rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from orchestration.extract.sources.base import WeekCount
from orchestration.weeks import monday_of


@dataclass(frozen=True)
class Counted:
    """A window whose PRs matched GitHub's count: how many fell in each week, and when GitHub
    counted them (the first page of the read that matched)."""

    start: datetime
    end: datetime
    counted_at: datetime
    weeks: Counter[date]  # adds up to the window's issueCount

    @classmethod
    def of(cls, start: datetime, end: datetime, counted_at: datetime, nodes: Iterable[dict]):
        merged = (datetime.fromisoformat(n["mergedAt"].replace("Z", "+00:00")) for n in nodes)
        return cls(
            start, end, counted_at, Counter(monday_of(m.astimezone(UTC).date()) for m in merged)
        )


def week_counts(windows: Iterable[Counted]) -> dict[date, WeekCount]:
    """Each week the windows touch, with its merged PRs and the earliest time they were counted.

    A window spanning several weeks is shared between them by the PRs' merge times; a week
    read in several windows (a busy week split into days) gets their sum.
    """
    weeks: dict[date, WeekCount] = {}
    for window in windows:
        monday = monday_of(window.start.astimezone(UTC).date())
        while datetime(monday.year, monday.month, monday.day, tzinfo=UTC) < window.end:
            merged, counted_at = window.weeks.get(monday, 0), window.counted_at
            if monday in weeks:
                merged += weeks[monday].merged
                counted_at = min(counted_at, weeks[monday].counted_at)
            weeks[monday] = WeekCount(merged, counted_at)
            monday += timedelta(weeks=1)
    return weeks
