"""The Dagster runs that are building a repository, so that removing it can wait for them.

A run reads its repository partition at every step: deleting the partition under a running
build failed the build half-way, with some marts rebuilt and others not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import dagster as dg

from orchestration.service.dagster_run import fail_orphaned_runs

UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]
_RANGE_TAGS = ("dagster/asset_partition_range_start", "dagster/asset_partition_range_end")


def builds_repo(tags: Mapping[str, str], repo: str) -> bool:
    """Whether a run with these tags covers `repo` (one partition, or a range of them)."""
    repo = repo.lower()
    if tags.get("dagster/partition/repo", "").lower() == repo:
        return True
    if tags.get("dagster/partition", "").lower().partition("|")[0] == repo:
        return True
    start, end = (tags.get(tag, "").lower().partition("|")[0] for tag in _RANGE_TAGS)
    return bool(start and end) and start <= repo <= end  # partition keys sort by repository


def running_builds(instance: dg.DagsterInstance, repo: str) -> list[dg.DagsterRun]:
    runs = instance.get_runs(filters=dg.RunsFilter(statuses=UNFINISHED))
    return [run for run in runs if builds_repo(run.tags, repo)]


def wait_for_builds(
    instance: dg.DagsterInstance,
    repo: str,
    say: Callable[[str], None],
    poll_seconds: float = 0.5,
) -> None:
    """Return once no unfinished run builds `repo`; say once what is being waited for."""
    fail_orphaned_runs(instance)  # a killed `prweekly build` would be waited for forever
    runs = running_builds(instance, repo)
    if not runs:
        return
    started = time.monotonic()
    ids = ", ".join(run.run_id[:8] for run in runs)
    say(
        f"waiting for the running build of {repo} to finish (run {ids}); "
        "Ctrl-C stops waiting and removes nothing"
    )
    while runs:
        time.sleep(poll_seconds)
        runs = running_builds(instance, repo)
    say(f"...the build ended after {time.monotonic() - started:.0f}s")
