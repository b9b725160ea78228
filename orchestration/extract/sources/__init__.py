"""Where merged pull requests come from: `github` (the GraphQL API) or `file:PATH` (JSON lines).

Every source yields the same GitHub GraphQL `PullRequest` nodes, so everything downstream of the
raw lake is identical whichever one ran.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from orchestration.config import Settings, UsageError
from orchestration.extract.sources.base import PullRequestSource, WeekCount, check_dataset_file

__all__ = [
    "PullRequestSource",
    "SourceSpec",
    "WeekCount",
    "check_dataset_file",
    "open_source",
    "parse_source",
]


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
