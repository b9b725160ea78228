"""What every asset shares: the partitions (repository × ISO week, Monday start, UTC) and the
one resource, where prweekly keeps its data and what it reads from.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

import dagster as dg

from orchestration.config import Settings, load_settings
from orchestration.repositories.registry import find, load_repositories
from orchestration.run_scope import RunScope
from orchestration.weeks import FIRST_WEEK

REPO_DIMENSION = "repo"
WEEK_DIMENSION = "week"
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
PARTITION_TAG = "dagster/partition"

repo_partitions = dg.DynamicPartitionsDefinition(name="repo")
week_partitions = dg.WeeklyPartitionsDefinition(
    start_date=FIRST_WEEK.isoformat(), day_offset=1, timezone="UTC"
)
weekly_partitions = dg.MultiPartitionsDefinition(
    {REPO_DIMENSION: repo_partitions, WEEK_DIMENSION: week_partitions}
)


def partition_key(repo: str, week: date) -> dg.MultiPartitionKey:
    return dg.MultiPartitionKey({REPO_DIMENSION: repo, WEEK_DIMENSION: week.isoformat()})


def scopes_of(context: dg.AssetExecutionContext) -> list[RunScope]:
    """The run's partitions as one contiguous week range per repository."""
    weeks: dict[str, list[date]] = defaultdict(list)
    for key in context.partition_keys:
        dims = weekly_partitions.get_partition_key_from_str(key).keys_by_dimension
        weeks[dims[REPO_DIMENSION]].append(date.fromisoformat(dims[WEEK_DIMENSION]))
    return [RunScope(repo, min(ws), max(ws)) for repo, ws in sorted(weeks.items())]


def scopes_of_run(context: dg.AssetExecutionContext) -> list[RunScope]:
    """The run's partitions, for an asset of the run that is not partitioned itself (a table
    of every repository): read from the run's tags, as the rectangle of repositories × weeks
    between its first and last key; none for a run without partitions."""
    tags = context.run.tags
    first, last = tags.get(RANGE_START), tags.get(RANGE_END)
    if not (first and last):
        first = last = tags.get(PARTITION_TAG)
    if not first:
        return []
    start = weekly_partitions.get_partition_key_from_str(first).keys_by_dimension
    end = weekly_partitions.get_partition_key_from_str(last).keys_by_dimension
    ordered = list(context.instance.get_dynamic_partitions(repo_partitions.name))
    repos = [start[REPO_DIMENSION], end[REPO_DIMENSION]]
    if all(r in ordered for r in repos):
        repos = ordered[ordered.index(repos[0]) : ordered.index(repos[1]) + 1]
    weeks = (date.fromisoformat(start[WEEK_DIMENSION]), date.fromisoformat(end[WEEK_DIMENSION]))
    return [RunScope(repo, min(weeks), max(weeks)) for repo in sorted(set(repos))]


def blocks_of(ordered: list[str], wanted: set[str]) -> list[tuple[str, str]]:
    """The runs of consecutive `wanted` repositories in the partitions' own order, as (first,
    last): a Dagster run covers a rectangle of partitions, so a repository that is a
    partition but not wanted (not in repositories.yml) must fall outside every run."""
    blocks: list[list[str]] = []
    previous = False
    for repo in ordered:
        if repo in wanted:
            if previous:
                blocks[-1].append(repo)
            else:
                blocks.append([repo])
        previous = repo in wanted
    return [(block[0], block[-1]) for block in blocks]


class PrweeklyResource(dg.ConfigurableResource):
    """Settings come from the environment; a run may override the home or the source.

    The GitHub token is read from `GITHUB_TOKEN` when needed and never enters run config.
    """

    home: str | None = None
    source: str | None = None

    def settings(self) -> Settings:
        settings = load_settings()
        overrides = {}
        if self.home:
            overrides["home"] = Path(self.home).resolve()
        if self.source:
            overrides["source"] = self.source
        return dataclasses.replace(settings, **overrides)

    def source_for(self, repo: str) -> str:
        """Where `repo`'s PRs come from in this run: the run's own `source` (`build --source`),
        else the repository's in repositories.yml, else `PRWEEKLY_SOURCE` (default `github`).

        Every run asks this, however it was launched (the CLI, a UI materialisation or
        backfill, the schedule, `dagster asset materialize`), so none falls back to GitHub
        for a repository registered with a file.
        """
        if self.source:
            return self.source
        settings = self.settings()
        registered = find(load_repositories(settings.home), repo)
        return (registered.source if registered else None) or settings.source


BLOCKED = "blocked"  # the weekly_report metadata entry listing the weeks not reported, and why


def blocked_message(blocked: list[tuple[str, str, str]]) -> str:
    return f"not reported, as their facts failed data tests: {' | '.join(b[2] for b in blocked)}"


def report_metadata(instance: dg.DagsterInstance, run_id: str, name: str) -> Any:
    """The value of the metadata entry `name` of this run's `weekly_report`; None if the run
    rendered no reports or the entry is not there."""
    records = instance.get_records_for_run(
        run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION, ascending=False, limit=100
    ).records
    for record in records:
        materialization = record.event_log_entry.asset_materialization
        if materialization and materialization.asset_key == dg.AssetKey("weekly_report"):
            entry = materialization.metadata.get(name)
            return entry.value if entry else None
    return None
