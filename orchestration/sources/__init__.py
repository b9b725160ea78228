"""Where merged pull requests come from: `github` (the GraphQL API) or `file:PATH` (JSON lines).

Every source yields the same GitHub GraphQL `PullRequest` nodes, so everything downstream of the
raw lake is identical whichever one ran.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Protocol

from orchestration.config import Settings, UsageError


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


def open_source(
    spec: str, settings: Settings, log: Callable[[str], None] | None = None
) -> PullRequestSource:
    """Build the source named by `--source` / `PRWEEKLY_SOURCE`: `github` or `file:PATH`."""
    if spec.startswith("file:"):
        from orchestration.sources.file import FileSource

        path = Path(spec.removeprefix("file:")).expanduser()
        return FileSource(path)
    if spec == "github":
        from orchestration.sources.github import GitHubSource

        return GitHubSource(
            url=settings.graphql_url,
            token=settings.github_token,
            max_wait_seconds=settings.max_wait_seconds,
            log=log,
        )
    raise UsageError(f"unknown source {spec!r}: use 'github' or 'file:PATH' (a JSONL file)")
