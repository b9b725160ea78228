"""Launch the weekly job for a repository and week range as one in-process Dagster run."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from datetime import date

import dagster as dg

from orchestration.assets import blocks_of, partition_key, repo_partitions
from orchestration.config import Settings
from orchestration.service.instance import get_instance

EXTRACT_STEP = "raw_pull_requests"


class BuildFailed(RuntimeError):
    """The run failed; the message is the first failing step's own error."""

    def __init__(self, message: str, extracted: bool, run_id: str = "") -> None:
        super().__init__(message)
        self.extracted = extracted  # the extract succeeded: the repository exists
        self.run_id = run_id


class BuildInterrupted(KeyboardInterrupt):
    """The run stopped at an interrupt (Ctrl-C, SIGINT); Dagster marked it failed."""


class RepositoriesFailed(RuntimeError):
    """Some repositories of a run of several could not be built; the others were."""

    keep_lines = True  # the CLI prints one line per repository


def merge_spellings_of_home(settings: Settings, say: Callable[[str], None]) -> list[str]:
    """Merge what an older prweekly kept under a second spelling of a repository."""
    from orchestration.lake.case_merge import merge_case_variants

    return merge_case_variants(settings, get_instance(settings), say)


def register_repo(settings: Settings, repo: str) -> dg.DagsterInstance:
    """Make `repo` a partition, so the UI, backfills and the schedule offer it."""
    instance = get_instance(settings)
    if not instance.has_dynamic_partition(repo_partitions.name, repo):
        instance.add_dynamic_partitions(repo_partitions.name, [repo])
    return instance


def is_registered(settings: Settings, repo: str) -> bool:
    """Whether `repo` is a partition (a build's run adds it; `prweekly repo remove` drops it)."""
    return get_instance(settings).has_dynamic_partition(repo_partitions.name, repo)


def forget_repo(settings: Settings, repo: str) -> None:
    instance = get_instance(settings)
    if instance.has_dynamic_partition(repo_partitions.name, repo):
        instance.delete_dynamic_partition(repo_partitions.name, repo)


PID_TAG = "prweekly/pid"
HOST_TAG = "prweekly/host"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark runs that a killed `prweekly build` on this host left STARTED as failed.

    Such a run can never finish; left alone it would show as in progress in the UI forever.
    Locks cannot be left behind: the warehouse lock is released by the OS with the process.
    """
    host = socket.gethostname()
    orphaned = []
    for run in instance.get_runs(
        filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED], tags={HOST_TAG: host})
    ):
        pid = run.tags.get(PID_TAG, "")
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            instance.report_run_failed(
                run,
                f"the prweekly process (pid {pid}) that ran this build ended without finishing it",
            )
            orphaned.append(run.run_id)
    return orphaned


def run_weekly_job(
    settings: Settings,
    repo: str,
    first: date,
    last: date,
    source: str | None,
    verbose: bool = False,
) -> dg.ExecuteInProcessResult:
    """One run of every asset for `repo`'s weeks; `source` overrides the repository's own.

    The repository becomes a partition for the run; if it was new and its extract failed (a
    misspelt name, say), the partition is removed again, so the schedule does not pick it up.
    """
    new = not get_instance(settings).has_dynamic_partition(repo_partitions.name, repo)
    instance = register_repo(settings, repo)
    try:
        return _execute(settings, instance, (repo, repo), first, last, source, verbose=verbose)
    except BuildFailed as failed:
        if new and not failed.extracted:
            forget_repo(settings, repo)
        raise


def run_all_job(
    settings: Settings, repos: list[str], first: date, last: date, verbose: bool = False
) -> list[dg.ExecuteInProcessResult]:
    """Every asset of `repos`' weeks in one Dagster run (one per block of consecutive
    partitions, see blocks_of): each model runs once for all the repositories. Repositories
    that cannot be read fail that run; the others are built by a follow-up run
    (repo_failures), and RepositoriesFailed names the failed ones and why."""
    from orchestration.extract.failures import failed_lines, failures_of, rest_of

    instance = get_instance(settings)
    missing = [r for r in repos if not instance.has_dynamic_partition(repo_partitions.name, r)]
    if missing:
        instance.add_dynamic_partitions(repo_partitions.name, missing)
    ordered = list(instance.get_dynamic_partitions(repo_partitions.name))
    results, failures, runs = [], {}, []
    for block in blocks_of(ordered, set(repos)):
        try:
            results.append(_execute(settings, instance, block, first, last, None, None, verbose))
        except BuildFailed as failed:
            if not (failed_here := failures_of(instance, failed.run_id)):
                raise
            failures.update(failed_here)
            runs.append(failed.run_id)
            try:  # the others, in the follow-up runs the failed one asks for
                for rest, tags in rest_of(instance, instance.get_run_by_id(failed.run_id)):
                    results.append(
                        _execute(settings, instance, rest, first, last, None, tags, verbose)
                    )
            except BuildFailed as also:
                raise RepositoriesFailed(
                    failed_lines(failures, repos, runs) + f"\nand the others' run failed: {also}"
                ) from None
    if failures:
        built = sorted(set(repos) - set(failures))
        raise RepositoriesFailed(
            failed_lines(failures, repos, runs)
            + f"\nthe other {len(built)} were built: {', '.join(built) or 'none'}"
        )
    return results


def _execute(
    settings: Settings,
    instance: dg.DagsterInstance,
    repos: tuple[str, str],
    first: date,
    last: date,
    source: str | None,
    extra_tags: dict[str, str] | None = None,
    verbose: bool = False,
) -> dg.ExecuteInProcessResult:
    """The weekly job over the partitions `repos[0]..repos[1]` × `first..last`; an interrupt
    (Ctrl-C) that stopped a step is BuildInterrupted, not a failure of the step."""
    fail_orphaned_runs(instance)

    from orchestration.service.definitions import defs
    from orchestration.service.progress import progress_logger

    job = defs.resolve_job_def("weekly_report_job").with_logger_defs({"progress": progress_logger})
    tags = {
        **(extra_tags or {}),
        "dagster/asset_partition_range_start": str(partition_key(repos[0], first)),
        "dagster/asset_partition_range_end": str(partition_key(repos[1], last)),
        **({"prweekly/source": source.split(":", 1)[0]} if source else {}),
        PID_TAG: str(os.getpid()),
        HOST_TAG: socket.gethostname(),
    }
    result = job.execute_in_process(
        instance=instance,
        tags=tags,
        run_config={
            "loggers": {"progress": {"config": {"verbose": verbose}}},
            "resources": {
                "prweekly": {
                    "config": {"home": str(settings.home), **({"source": source} if source else {})}
                }
            },
        },
        raise_on_error=False,
    )
    if not result.success:
        if _interrupted(result):
            raise BuildInterrupted()
        extracted = any(
            event.event_type_value == "STEP_SUCCESS" and event.step_key == EXTRACT_STEP
            for event in result.all_events
        )
        raise BuildFailed(
            _first_failure(result) + f" (run {result.run_id} in the Dagster UI)",
            extracted,
            result.run_id,
        )
    return result


def _interrupted(result: dg.ExecuteInProcessResult) -> bool:
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.step_failure_data.error
            while error is not None:
                if error.cls_name == "DagsterExecutionInterruptedError":
                    return True
                error = error.cause
    return False


def _first_failure(result: dg.ExecuteInProcessResult) -> str:
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.step_failure_data.error
            while error.cause is not None and error.cls_name in {
                "DagsterExecutionStepExecutionError",
                "DagsterUserCodeExecutionError",
            }:
                error = error.cause
            return f"{event.step_key}: {_without_class_path(error.message.strip())}"
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            data = event.event_specific_data
            if not data.passed:
                key = data.asset_key.to_user_string()
                return data.description or f"data test {data.check_name} failed on {key}"
    return "the run failed"


def _without_class_path(message: str) -> str:
    """`orchestration.lake.layout.SourceDataError: PR #4 ...` as `PR #4 ...`: the class path is
    Python's business, not the user's (a built-in such as `KeyError: 'x'` keeps its name)."""
    head, sep, rest = message.partition(": ")
    return rest if sep and "." in head and " " not in head else message
