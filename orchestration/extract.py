"""The raw extract: each week's merged pull requests, written to the Parquet lake."""

import time
from collections import defaultdict
from pathlib import Path

import dagster as dg

from orchestration.case_merge import merge_case_variants
from orchestration.compaction import compact_repository
from orchestration.config import UsageError, canonical_repo
from orchestration.lake import SourceDataError, to_row, write_partition
from orchestration.partitions import scopes_of, weekly_partitions
from orchestration.resources import PrweeklyResource
from orchestration.sources import open_source
from orchestration.storage import Location
from orchestration.sweep import sweep_stray_files
from orchestration.weeks import week_window, weeks_between

STALE_TEMP_SECONDS = 3600  # a temporary file this old belongs to a write that was killed


def sweep_stale_temp_files(partition: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove `.data.*.tmp` files a killed write left in a partition's folder.

    Readers never see them (DuckDB reads `*/*/data.parquet`); this only reclaims the space.
    Young ones are kept: they may belong to a build still writing.
    """
    removed = 0
    for temp in partition.glob(".data.*.tmp"):
        try:
            if time.time() - temp.stat().st_mtime > older_than:
                temp.unlink()
                removed += 1
        except FileNotFoundError:
            pass
    return removed


def _compact(context: dg.AssetExecutionContext, lake_dir: Location, repo: str) -> None:
    """Refresh the repository's compacted copy; the week files are already safe, so a failure
    here only costs the next full build some speed, and is logged instead of failing the run."""
    try:
        weeks = compact_repository(lake_dir, repo)
    except Exception as error:  # a cache must not fail the extract
        context.log.warning(f"{repo}: could not compact the lake ({error}); builds read week files")
        return
    if weeks:
        context.log.info(f"{repo}: compacted {weeks} finished week(s) into one file")


@dg.asset(
    partitions_def=weekly_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="extract",
    kinds={"github", "parquet"},
    description="Merged pull requests of one repository and ISO week, one Parquet file each.",
)
def raw_pull_requests(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    merge_case_variants(settings, context.instance, context.log.warning)
    sweep_stray_files(settings, context.log.info)
    source = open_source(settings.source, settings, log=context.log.info)
    total = 0
    weeks_written = 0
    for scope in scopes_of(context):
        # a partition added by hand must not reach a path or a query, nor be a second spelling
        if canonical_repo(scope.repo) != scope.repo:
            raise UsageError(
                f"partition {scope.repo!r} is a second spelling of {canonical_repo(scope.repo)}: "
                "GitHub treats letter case as the same repository; use the lower-case key"
            )
        weeks = weeks_between(scope.start_week, scope.end_week)
        start, _ = week_window(scope.start_week)
        _, end = week_window(scope.end_week)
        context.log.info(f"{scope.repo}: reading {len(weeks)} week(s) from {source.description}")
        # Fetch everything first: a failure part-way must not leave some weeks rewritten.
        buckets: dict = defaultdict(list)
        for node in source.fetch(scope.repo, start, end):
            row = to_row(node, scope.repo)
            buckets[row["week_start"]].append(row)
        stray = sorted(set(buckets) - set(weeks))
        if stray:
            raise SourceDataError(
                f"{source.description} returned PRs merged outside the requested weeks: {stray}"
            )
        for week in weeks:
            path = write_partition(settings.lake_dir, scope.repo, week, buckets.get(week, []))
            if isinstance(path, Path):  # an object store publishes whole objects: no temp files
                sweep_stale_temp_files(path.parent)
            total += len(buckets.get(week, []))
            weeks_written += 1
        context.log.info(f"{scope.repo}: wrote {weeks_written} week(s), {total} PR(s)")
        _compact(context, settings.lake_dir, scope.repo)
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": total,
            "weeks": weeks_written,
            **{f"source/{k}": v for k, v in source.stats().items()},
        }
    )
