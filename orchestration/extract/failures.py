"""One repository's failure in a run of several: its partitions fail, the others are built.

Dagster records a step over a range of partitions as materialised for every partition of the
range or for none (a step cannot materialise part of its range: dagster-io/dagster#17836), and
shows a partition as failed when a failed run planned it and did not materialise it. So when
the extract of a run of several repositories cannot read some of them (a token without scope,
a deleted repository, a file of bad data), it writes the others' weeks, then fails the run
naming each failed repository and its error: nothing of theirs is written, no model runs. A
follow-up run over the others (one per block of consecutive partitions) reuses those weeks
without reading them again, and models, reports and delivers them. `prweekly build --all`
launches it at once; for the Monday schedule and runs launched from the UI,
`build_the_rest_sensor` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import NoReturn

import dagster as dg

from orchestration.assets import (
    REPO_DIMENSION,
    WEEK_DIMENSION,
    blocks_of,
    partition_key,
    repo_partitions,
    weekly_partitions,
)
from orchestration.run_scope import RunScope

FAILED_TAG = "prweekly/failed_repos"  # on a run whose extract failed for these repositories
RESUMES_TAG = "prweekly/resumes"  # on a follow-up run: the failed run whose extract it reuses
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
CARRIED = ("prweekly/trigger", "prweekly/source")  # what a follow-up run keeps of the failed one
# on a run `prweekly build` executes (orchestration/service/dagster_run.py)
CLI_TAG = "prweekly/pid"
ERRORS = "failed_repositories"  # the failure's metadata: {repository: its error}


def fail_repositories(
    context: dg.AssetExecutionContext, failed: dict[str, BaseException], total: int
) -> NoReturn:
    """Fail the extract naming every repository it could not read, once the others are
    written; the run's tag tells a follow-up run which repositories to leave out."""
    context.instance.add_run_tags(context.run_id, {FAILED_TAG: ",".join(sorted(failed))})
    _plan_each_partition(context, set(failed))
    errors = {
        repo: " ".join(str(error).split()) or type(error).__name__ for repo, error in failed.items()
    }
    raise dg.Failure(
        description=f"{len(failed)} of {total} repositories could not be read; nothing of "
        "theirs was written, and the others' weeks are written for the run that builds them:\n"
        + "\n".join(f"{repo}: {errors[repo]}" for repo in sorted(errors)),
        metadata={ERRORS: dg.MetadataValue.json(errors)},
    )


def _plan_each_partition(context: dg.AssetExecutionContext, repos: set[str]) -> None:
    """Record the run's plan for each partition of `repos`, one event per asset and partition.

    prweekly plans a run's range in one event per asset (DAGSTER_EMIT_PARTITION_SUBSET_IN_
    PLANNED_EVENTS, see instance.py), which Dagster never counts as failed; a partition planned
    on its own by a run that failed without materialising it is shown as failed. These are the
    events Dagster itself logs when it plans partitions one by one."""
    from dagster._core.events import AssetMaterializationPlannedData

    layer = context.job_def.asset_layer
    keys = [k for k in layer.selected_asset_keys if layer.get(k).partitions_def is not None]
    partitions = [
        key
        for key in context.partition_keys
        if weekly_partitions.get_partition_key_from_str(key).keys_by_dimension[REPO_DIMENSION]
        in repos
    ]
    for asset_key in keys:
        for partition in partitions:
            context.instance.report_dagster_event(
                dg.DagsterEvent.build_asset_materialization_planned_event(
                    context.job_def.name,
                    asset_key.to_python_identifier(),
                    AssetMaterializationPlannedData(asset_key, partition=partition),
                ),
                run_id=context.run_id,
            )


def failures_of(instance: dg.DagsterInstance, run_id: str) -> dict[str, str]:
    """{repository: error} of a run whose extract failed for some repositories, else {}."""
    for record in instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_FAILURE):
        data = record.dagster_event.step_failure_data.user_failure_data
        if data is not None and ERRORS in data.metadata:
            return dict(data.metadata[ERRORS].value)
    return {}


def failed_lines(failures: dict[str, str], repos: list[str], runs: list[str]) -> str:
    """What `prweekly build --all` says of the repositories that failed."""
    return (
        f"{len(failures)} of {len(repos)} repositories failed; their lake, facts and reports "
        f"are as they were (run {', '.join(runs)} in the Dagster UI):\n"
        + "\n".join(f"  {repo}: {failures[repo]}" for repo in sorted(failures))
    )


def _bounds(run: dg.DagsterRun) -> tuple[str, str, date, date]:
    first = weekly_partitions.get_partition_key_from_str(run.tags[RANGE_START]).keys_by_dimension
    last = weekly_partitions.get_partition_key_from_str(run.tags[RANGE_END]).keys_by_dimension
    return (
        first[REPO_DIMENSION],
        last[REPO_DIMENSION],
        date.fromisoformat(first[WEEK_DIMENSION]),
        date.fromisoformat(last[WEEK_DIMENSION]),
    )


def _repos_of(instance: dg.DagsterInstance, run: dg.DagsterRun) -> list[str]:
    """The repositories a run covered, in the partitions' order."""
    start, end, _, _ = _bounds(run)
    ordered = list(instance.get_dynamic_partitions(repo_partitions.name))
    if start not in ordered or end not in ordered:
        return []
    return ordered[ordered.index(start) : ordered.index(end) + 1]


def rest_of(
    instance: dg.DagsterInstance, run: dg.DagsterRun
) -> list[tuple[tuple[str, str], dict[str, str]]]:
    """The follow-up runs over the repositories of `run` that did not fail: each one's first
    and last repository, and its tags."""
    failed = set(run.tags.get(FAILED_TAG, "").split(",")) - {""}
    if not failed or RANGE_START not in run.tags:
        return []
    repos = _repos_of(instance, run)
    _, _, first, last = _bounds(run)
    return [
        (
            (start, end),
            {
                **{k: v for k, v in run.tags.items() if k in CARRIED},
                RANGE_START: str(partition_key(start, first)),
                RANGE_END: str(partition_key(end, last)),
                RESUMES_TAG: run.run_id,
            },
        )
        for start, end in blocks_of(repos, set(repos) - failed)
    ]


def extracted_before(context: dg.AssetExecutionContext, scopes: list[RunScope]) -> set[str]:
    """The repositories of `scopes` whose weeks the failed run this one follows has just
    written: it read every repository of its range over the same weeks, and failed only once
    all were read."""
    resumed = context.run.tags.get(RESUMES_TAG)
    parent = context.instance.get_run_by_id(resumed) if resumed else None
    if parent is None or FAILED_TAG not in parent.tags:
        return set()
    _, _, first, last = _bounds(parent)
    failed = set(parent.tags[FAILED_TAG].split(","))
    covered = set(_repos_of(context.instance, parent)) - failed
    return {
        s.repo for s in scopes if s.repo in covered and (s.start_week, s.end_week) == (first, last)
    }


def build_the_rest_sensor(job: dg.UnresolvedAssetJobDefinition) -> dg.SensorDefinition:
    @dg.run_status_sensor(
        name="build_the_rest_sensor",
        run_status=dg.DagsterRunStatus.FAILURE,
        monitored_jobs=[job],
        request_job=job,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="When some repositories of a run (scheduled, or launched from the UI) "
        "could not be read, build the others in a follow-up run that reuses what the failed "
        "run extracted.",
    )
    def _sensor(context: dg.RunStatusSensorContext) -> Iterator[dg.RunRequest]:
        run = context.dagster_run
        if CLI_TAG in run.tags or RESUMES_TAG in run.tags:
            return  # the CLI follows up its own runs; a follow-up is never followed up
        for _, tags in rest_of(context.instance, run):
            yield dg.RunRequest(run_key=f"{run.run_id}|{tags[RANGE_START]}", tags=tags)

    return _sensor
