"""Every Monday, report the week that just ended for every registered repository, in one run."""

from datetime import timedelta

import dagster as dg

from orchestration.assets import blocks_of, partition_key, repo_partitions
from orchestration.config import load_settings
from orchestration.repositories.registry import load_repositories
from orchestration.weeks import monday_of

DEFAULT_CRON = "0 6 * * 1"  # Mondays 06:00 UTC, once the week has closed everywhere
# GitHub's search index can lag a merge by hours: each run reads the week before again, so a
# PR it missed at the end of that week is found a week later
REREAD_WEEKS = 1


def weekly_schedule(job_name: str, cron: str = DEFAULT_CRON) -> dg.ScheduleDefinition:
    @dg.schedule(
        job_name=job_name,
        cron_schedule=cron,
        execution_timezone="UTC",
        name="weekly_report_schedule",
        default_status=dg.DefaultScheduleStatus.RUNNING,
        description="Build last week for every repository in repositories.yml in one run, each "
        "with its own source, and read the week before again (GitHub's search index can lag "
        "merges). The file is the truth: a repo partition that is not in it is not built.",
    )
    def _schedule(context: dg.ScheduleEvaluationContext):
        week = monday_of(context.scheduled_execution_time.date()) - timedelta(days=7)
        first = week - timedelta(weeks=REREAD_WEEKS)
        registered = {r.repo for r in load_repositories(load_settings().home)}
        known = set(context.instance.get_dynamic_partitions(repo_partitions.name))
        missing = sorted(registered - known)
        if missing:
            context.instance.add_dynamic_partitions(repo_partitions.name, missing)
        ordered = list(context.instance.get_dynamic_partitions(repo_partitions.name))
        # one run for them all; a partition not in the file splits it (a run is a rectangle)
        for start, end in blocks_of(ordered, registered):
            yield dg.RunRequest(
                run_key=f"{week}|{start}..{end}",
                tags={
                    "prweekly/trigger": "schedule",
                    "dagster/asset_partition_range_start": str(partition_key(start, first)),
                    "dagster/asset_partition_range_end": str(partition_key(end, week)),
                },
            )

    return _schedule
