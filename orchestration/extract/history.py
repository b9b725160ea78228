"""The history a build needs before its weeks, where a repository's history begins, and which
weeks a build must rebuild.

Facts that compare a week with earlier ones (first-time authors, trends, hotspots, reverts and
quick follow-ups) look up to `history_weeks()` weeks back, the longest lookback the SQL project
declares. A build extracts the weeks of that history the lake lacks, models them with its own
weeks and reports only its own. Where the source can tell, the lake also records the week of
the repository's first merged PR (`raw/history/`), so the models know whether the history they
hold reaches the beginning: first-time authors are known only then.

Building weeks changes the facts of the weeks after them (trends, hotspots, first-time authors)
and, through reverts and follow-ups, of weeks before them: the models rebuild those too.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from orchestration.config import SQL_DIR, UsageError, canonical_repo, repo_slug
from orchestration.extract.sources import PullRequestSource
from orchestration.lake.files import list_week_files
from orchestration.lake.layout import history_file
from orchestration.models.project import load_project
from orchestration.run_scope import RunScope
from orchestration.storage import Location, write_bytes
from orchestration.weeks import FIRST_WEEK, iso_label, monday_of, week_window, weeks_between

HISTORY_SCHEMA = pa.schema(
    [
        ("repo", pa.string(), False),
        # the source found no PR merged before this Monday: the week of the first merged PR
        ("nothing_merged_before", pa.date32(), False),
        ("source", pa.string()),
        ("checked_at", pa.timestamp("us", "UTC")),
    ]
)


def _project(root: Path):
    """The SQL project under `root`: the one the Dagster definitions loaded, when this process
    has them (reading it again costs a build a seventh of a second)."""
    loaded = getattr(sys.modules.get("orchestration.service.definitions"), "project", None)
    return loaded if loaded is not None and loaded.root == root else load_project(root)


@cache
def history_weeks(root: Path = SQL_DIR) -> int:
    """The longest lookback the SQL project declares: a model's `lookback` (the project's
    `lookback_weeks`), or a `*_weeks` threshold in seeds/thresholds.csv (hotspot_weeks, ...)."""
    weeks = [model.lookback for model in _project(root).models.values()]
    with open(root / "seeds" / "thresholds.csv", newline="", encoding="utf-8") as seed:
        rows = csv.DictReader(seed)
        weeks += [int(float(row["value"])) for row in rows if row["name"].endswith("_weeks")]
    return max(weeks, default=0)


@dataclass(frozen=True)
class ExtractPlan:
    """What an extract of one repository reads: its weeks, and the earlier ones the lake lacks."""

    weeks: list[date]
    history: list[date]

    @property
    def fetch_start(self) -> date:
        return min([*self.history, *self.weeks])


def plan_extract(lake_dir: Location, scope: RunScope, lookback: int) -> ExtractPlan:
    present = list_week_files(lake_dir, scope.repo).weeks.get(repo_slug(scope.repo), {})
    first = max(scope.start_week - timedelta(weeks=lookback), FIRST_WEEK)
    earlier = weeks_between(first, scope.start_week)[:-1]
    return ExtractPlan(
        weeks_between(scope.start_week, scope.end_week),
        [week for week in earlier if week not in present],
    )


def check_coverage(source: PullRequestSource, weeks: list[date]) -> None:
    """Refuse weeks a bounded source (a file) does not cover: nothing merged then is unknown,
    not an empty week."""
    covered = source.coverage()
    if covered is None:
        return
    first, last = (monday_of(moment.date()) for moment in covered)
    outside = [week for week in weeks if week < first or week > last]
    if outside:
        span = iso_label(outside[0]) + (f"..{iso_label(outside[-1])}" if len(outside) > 1 else "")
        raise UsageError(
            f"{source.description} holds PRs merged from {iso_label(first)} ({first}) to "
            f"{iso_label(last)} ({last}); {span} is outside it, so what merged then is unknown"
        )


def find_origin(
    source: PullRequestSource, repo: str, plan: ExtractPlan, weeks_with_prs: list[date]
) -> date | None:
    """The week of the repository's first merged PR, when the source can tell.

    A file's is the week of its first `mergedAt`. GitHub is asked (one counting search) only
    when the fetched window begins with empty weeks: if nothing merged before the window, its
    first week with PRs is the beginning; if none has any, nothing merged up to its end.
    """
    covered = source.coverage()
    if covered is not None:
        return monday_of(covered[0].date())
    first_with_prs = min(weeks_with_prs, default=None)
    if first_with_prs == plan.fetch_start:
        return None
    if source.merged_before(repo, week_window(plan.fetch_start)[0]):
        return None
    return first_with_prs or plan.weeks[-1] + timedelta(weeks=1)


def write_origin(lake_dir: Location, repo: str, origin: date, source: str) -> Location:
    """Record, atomically, that nothing of `repo` merged before the week `origin`."""
    row = {
        "repo": canonical_repo(repo),
        "nothing_merged_before": origin,
        "source": source,
        "checked_at": datetime.now(UTC),
    }
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist([row], schema=HISTORY_SCHEMA), buffer)
    target = history_file(lake_dir, repo)
    write_bytes(target, buffer.getvalue().to_pybytes())
    return target


def extracted_weeks(lake_dir: Location, repo: str) -> list[date]:
    """The weeks of `repo` the lake holds a file of."""
    return sorted(list_week_files(lake_dir, repo).weeks.get(repo_slug(repo), {}))


def rebuild_scope(
    scope: RunScope,
    lake_dir: Location,
    lookback: int,
    modelled: Collection[date] | None = None,
    extracted: Collection[date] | None = None,
) -> RunScope:
    """The weeks the models rebuild for a run's weeks: from the first of the `lookback` weeks
    before them that the extract may just have added (every one, unless the weeks already
    `modelled` are known: then those the lake holds and the models have not seen) through the
    repository's last extracted week (later weeks whose trends, hotspots and first-time authors
    depend on these). A weekly run of the latest week has no later weeks. Models with a
    `lookback` (those whose earlier rows a revert or a follow-up changes) reach further back.
    `extracted`: the repository's week files, when already listed."""
    if extracted is None:
        extracted = extracted_weeks(lake_dir, scope.repo)
    first = max(scope.start_week - timedelta(weeks=lookback), FIRST_WEEK)
    if modelled is not None:
        added = [w for w in extracted if first <= w < scope.start_week and w not in modelled]
        first = min([scope.start_week, *added])
    return RunScope(scope.repo, first, max([scope.end_week, *extracted]))
