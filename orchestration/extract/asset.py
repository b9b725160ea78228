"""The raw extract: each week's merged pull requests, written to the Parquet lake."""

import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import dagster as dg

from orchestration.assets import PrweeklyResource, scopes_of, weekly_partitions
from orchestration.config import SourceDataError, UsageError, canonical_repo
from orchestration.extract.failures import RESUMES_TAG, extracted_before, fail_repositories
from orchestration.extract.history import (
    check_coverage,
    find_origin,
    history_weeks,
    plan_extract,
    write_origin,
)
from orchestration.extract.sources import PullRequestSource, WeekCount, open_source
from orchestration.extract.sources.nodes import to_row
from orchestration.lake.case_merge import merge_case_variants
from orchestration.lake.compaction import compact_repository
from orchestration.lake.layout import write_partition
from orchestration.lake.sweep import sweep_stray_files
from orchestration.run_scope import RunScope
from orchestration.storage import Location
from orchestration.text import plural
from orchestration.weeks import week_window

EXTRACT_CONCURRENCY = 4  # repositories read at once in a run of several
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
        context.log.info(f"{repo}: compacted {plural(weeks, 'finished week')} into one file")


@dg.asset(
    partitions_def=weekly_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="extract",
    kinds={"github", "parquet"},
    description="Merged pull requests of one repository and ISO week, one Parquet file each; "
    "also the earlier weeks the facts compare with, where the lake lacks them.",
)
def raw_pull_requests(
    context: dg.AssetExecutionContext, prweekly: PrweeklyResource
) -> dg.MaterializeResult:
    settings = prweekly.settings()
    merge_case_variants(settings, context.instance, context.log.warning)
    sweep_stray_files(settings, context.log.info)
    lookback = history_weeks()
    scopes = scopes_of(context)
    for scope in scopes:
        # a partition added by hand must not reach a path or a query, nor be a second spelling
        if canonical_repo(scope.repo) != scope.repo:
            raise UsageError(
                f"partition {scope.repo!r} is a second spelling of {canonical_repo(scope.repo)}: "
                "GitHub treats letter case as the same repository; use the lower-case key"
            )

    def extract_one(scope: RunScope) -> tuple[int, int, int, dict]:
        source = open_source(prweekly.source_for(scope.repo), settings, log=context.log.info)
        try:
            counted = _extract(context, settings.lake_dir, source, scope, lookback)
        finally:
            close = getattr(source, "close", None)
            if close:
                close()
        _compact(context, settings.lake_dir, scope.repo)
        return (*counted, source.stats())

    # Several repositories are read side by side, a few at a time (GitHub's secondary limits
    # punish more concurrent requests on one token), each in its turn; every one is finished
    # before the step fails naming those that failed (see repo_failures).
    # One repository is read in this thread, as before, so that an interrupt stops it at once.
    reused = extracted_before(context, scopes)
    if reused:
        context.log.info(
            f"the weeks of {plural(len(reused), 'repository')} were written by the run this "
            "one follows "
            f"({context.run.tags[RESUMES_TAG]}); not read again: {', '.join(sorted(reused))}"
        )
    to_read = [scope for scope in scopes if scope.repo not in reused]
    if len(scopes) == 1 and to_read:
        results = [extract_one(to_read[0])]
    else:
        with ThreadPoolExecutor(max_workers=EXTRACT_CONCURRENCY) as pool:
            futures = {scope.repo: pool.submit(extract_one, scope) for scope in to_read}
            wait(futures.values())
        failed = {repo: f.exception() for repo, f in futures.items() if f.exception()}
        if failed:
            fail_repositories(context, failed, len(scopes))
        results = [future.result() for future in futures.values()]
    totals = {"prs": 0, "weeks": 0, "history_weeks": 0}
    for prs, weeks, history, _ in results:
        totals["prs"] += prs
        totals["weeks"] += weeks
        totals["history_weeks"] += history
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": totals["prs"],
            "weeks": totals["weeks"],
            "history_weeks": totals["history_weeks"],
            **({f"source/{k}": v for k, v in results[-1][3].items()} if results else {}),
        }
    )


def _extract(
    context: dg.AssetExecutionContext,
    lake_dir: Location,
    source: PullRequestSource,
    scope: RunScope,
    lookback: int,
) -> tuple[int, int, int]:
    """Extract one repository's weeks and the earlier weeks the lake lacks; returns the PRs
    written and how many of its own and earlier weeks."""
    plan = plan_extract(lake_dir, scope, lookback)
    earlier = (
        f", and {plural(len(plan.history), 'earlier week')} the lake lacks" if plan.history else ""
    )
    context.log.info(
        f"{scope.repo}: reading {plural(len(plan.weeks), 'week')}{earlier} "
        f"from {source.description}"
    )
    start, _ = week_window(plan.fetch_start)
    _, end = week_window(scope.end_week)
    # Fetch everything first: a failure part-way must not leave some weeks rewritten.
    buckets: dict = defaultdict(list)
    for node in source.fetch(scope.repo, start, end):
        row = to_row(node, scope.repo)
        buckets[row["week_start"]].append(row)
    stray = sorted(w for w in buckets if not plan.fetch_start <= w <= scope.end_week)
    if stray:
        raise SourceDataError(
            f"{source.description} returned PRs merged outside the requested weeks: {stray}"
        )
    check_coverage(source, plan.weeks)
    origin = find_origin(source, scope.repo, plan, [w for w, rows in buckets.items() if rows])
    history = [week for week in plan.history if origin is None or week >= origin]
    counts = source.week_counts()  # GitHub's own count, stored with the week's rows
    total = 0
    for week in [*history, *plan.weeks]:
        count = counts.get(week)
        path = write_partition(
            lake_dir,
            scope.repo,
            week,
            buckets.get(week, []),
            metadata=count.metadata() if count else None,
            observed_at=[WeekCount.OBSERVED_AT],
        )
        if isinstance(path, Path):  # an object store publishes whole objects: no temp files
            sweep_stale_temp_files(path.parent)
        total += len(buckets.get(week, []))
    if origin is not None:
        write_origin(lake_dir, scope.repo, origin, source.description)
    context.log.info(
        f"{scope.repo}: wrote {plural(len(plan.weeks), 'week')}, {plural(total, 'PR')} in all"
    )
    if origin is not None and plan.history and plan.history[0] < origin:
        context.log.info(f"{scope.repo}: nothing merged before {origin}, its first PR's week")
    if history:
        context.log.info(
            f"{scope.repo}: {plural(len(history), 'earlier week')} ({history[0]}..{history[-1]}) "
            f"{'was' if len(history) == 1 else 'were'} "
            "extracted for the facts that compare with them; they are modelled, not reported"
        )
    return total, len(plan.weeks), len(history)
