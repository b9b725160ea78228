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

    def stats(self) -> dict[str, float | int | str]:
        """Counters worth showing as asset metadata (requests, rate-limit points, ...)."""
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
