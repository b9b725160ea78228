"""Where merged pull requests come from: `github` (the GraphQL API) or `file:PATH` (JSON lines).

Every source yields the same GitHub GraphQL `PullRequest` nodes, so everything downstream of the
raw lake is identical whichever one ran.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Protocol

from orchestration.config import Settings, UsageError


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


@dataclass(frozen=True)
class SourceSpec:
    """A source as `--source`, `PRWEEKLY_SOURCE` and repositories.yml name it: `github`, or
    `file:PATH` (`path` set)."""

    path: Path | None = None

    def absolute(self) -> str:
        """The spec with PATH made absolute (scheduled and UI runs start elsewhere)."""
        return "github" if self.path is None else f"file:{self.path.resolve()}"


def parse_source(spec: str) -> SourceSpec:
    """The one reading of a source spec; anything but `github` or `file:PATH` is refused."""
    if spec.startswith("file:"):
        return SourceSpec(Path(spec.removeprefix("file:")).expanduser())
    if spec == "github":
        return SourceSpec()
    raise UsageError(f"unknown source {spec!r}: use 'github' or 'file:PATH' (a JSONL file)")


def open_source(
    spec: str, settings: Settings, log: Callable[[str], None] | None = None
) -> PullRequestSource:
    """Build the source named by `--source` / `PRWEEKLY_SOURCE`: `github` or `file:PATH`."""
    parsed = parse_source(spec)
    if parsed.path is not None:
        from orchestration.extract.sources.file import FileSource

        return FileSource(parsed.path)
    from orchestration.extract.sources.github import GitHubSource

    return GitHubSource(
        url=settings.graphql_url,
        token=settings.github_token,
        max_wait_seconds=settings.max_wait_seconds,
        request_deadline=settings.request_deadline_seconds,
        week_deadline=settings.week_deadline_seconds,
        log=log,
    )
