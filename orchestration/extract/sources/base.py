"""What every source of merged pull requests is (the protocol) and says besides its nodes (its
own count of a week); the sources' package face opens one by name."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Protocol

from orchestration.config import UsageError


@dataclass(frozen=True)
class WeekCount:
    """How many PRs the source itself counted as merged in a week, and when it counted them."""

    merged: int
    counted_at: datetime

    OBSERVED_AT = "prweekly.github_counted_at"  # when it counted: no reason alone to rewrite

    def metadata(self) -> dict[str, str]:
        """As stored in the week's Parquet file (key-value metadata, written with the rows)."""
        return {
            "prweekly.github_issue_count": str(self.merged),
            self.OBSERVED_AT: self.counted_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }


class PullRequestSource(Protocol):
    """Yields merged `PullRequest` nodes of one repository inside a UTC window."""

    description: str

    def fetch(self, repo: str, start: datetime, end: datetime) -> Iterator[dict]:
        """Nodes with `start <= mergedAt < end`; raises on any doubt rather than guessing."""
        ...

    def coverage(self) -> tuple[datetime, datetime] | None:
        """The first and last `mergedAt` the source holds when it is bounded (a file, once
        read); None when it holds every week (GitHub)."""
        ...

    def merged_before(self, repo: str, moment: datetime) -> bool:
        """Whether any PR of `repo` merged before `moment`: a build's history reaches the
        repository's beginning when nothing did before its first week."""
        ...

    def stats(self) -> dict[str, float | int | str]:
        """Counters worth showing as asset metadata (requests, rate-limit points, ...)."""
        ...

    def week_counts(self) -> dict[date, WeekCount]:
        """The source's own count per week of the last fetch; empty when it has none."""
        ...


def check_dataset_file(path: Path) -> Path:
    """`path` if it is a file; otherwise an error that says what it is instead."""
    if path.is_dir():
        raise UsageError(
            f"{path} is a folder, not a dataset file: give the file of JSON lines of "
            "PullRequest nodes (plain or gzip)"
        )
    if not path.is_file():
        raise UsageError(f"dataset file {path} does not exist")
    return path
