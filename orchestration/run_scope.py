"""A run's partitions as prweekly names them: one repository and a range of weeks, and the
same as the model runner's generic scope (`project.yml` partition keys `repo`, `week_start`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from orchestration.models.scope import Scope


@dataclass(frozen=True)
class RunScope:
    """The partitions a run covers for one repository: `[start_week, end_week]`, both Mondays."""

    repo: str
    start_week: date
    end_week: date

    def partitions(self) -> Scope:
        return Scope({"repo": (self.repo,)}, {"week_start": (self.start_week, self.end_week)})

    @classmethod
    def of(cls, scope: Scope) -> RunScope:
        """A scope of one repository, as a RunScope."""
        (repo,) = scope.values["repo"]
        first, last = scope.ranges["week_start"]
        return cls(repo, first, last)

    @classmethod
    def each_of(cls, scope: Scope) -> list[RunScope]:
        """A scope of one or more repositories (sharing its weeks), one RunScope each."""
        first, last = scope.ranges["week_start"]
        return [cls(repo, first, last) for repo in scope.values["repo"]]


def together(scopes: list[RunScope]) -> list[Scope]:
    """The repositories of `scopes` that share a week range, as one scope each: a model then
    runs once for all of them instead of once per repository."""
    by_weeks: dict[tuple[date, date], list[str]] = {}
    for scope in scopes:
        by_weeks.setdefault((scope.start_week, scope.end_week), []).append(scope.repo)
    return [
        Scope({"repo": tuple(repos)}, {"week_start": weeks}) for weeks, repos in by_weeks.items()
    ]
