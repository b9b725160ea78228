"""Every Monday, report the week that just ended for every registered repository."""

from datetime import timedelta

import dagster as dg

from orchestration.config import load_settings
from orchestration.partitions import partition_key, repo_partitions
from orchestration.repositories import load_repositories
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
        description="Build last week for every repository in repositories.yml, each with its "
        "own source, and read the week before again (GitHub's search index can lag merges). "
        "The file is the truth: a repo partition that is not in it is not built.",
    )
    def _schedule(context: dg.ScheduleEvaluationContext):
        week = monday_of(context.scheduled_execution_time.date()) - timedelta(days=7)
        registered = {r.repo: r for r in load_repositories(load_settings().home)}
        known = set(context.instance.get_dynamic_partitions(repo_partitions.name))
        missing = sorted(set(registered) - known)
        if missing:
            context.instance.add_dynamic_partitions(repo_partitions.name, missing)
        for repo in sorted(registered):
            source = registered[repo].source
            first = week - timedelta(weeks=REREAD_WEEKS)
            yield dg.RunRequest(
                run_key=f"{repo}|{week}",
                run_config=(
                    {"resources": {"prweekly": {"config": {"source": source}}}} if source else {}
                ),
                tags={
                    "prweekly/trigger": "schedule",
                    "dagster/asset_partition_range_start": str(partition_key(repo, first)),
                    "dagster/asset_partition_range_end": str(partition_key(repo, week)),
                },
            )

    return _schedule
