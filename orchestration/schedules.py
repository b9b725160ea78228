"""Every Monday, report the week that just ended for every repository."""

from datetime import timedelta

import dagster as dg

from orchestration.partitions import partition_key, repo_partitions
from orchestration.weeks import monday_of

WEEKLY_CRON = "0 6 * * 1"  # Mondays 06:00 UTC, after the week has closed everywhere


def weekly_schedule(job_name: str) -> dg.ScheduleDefinition:
    @dg.schedule(
        job_name=job_name,
        cron_schedule=WEEKLY_CRON,
        execution_timezone="UTC",
        name="weekly_report_schedule",
        default_status=dg.DefaultScheduleStatus.RUNNING,
        description="Materialise last week for every repository, every Monday.",
    )
    def _schedule(context: dg.ScheduleEvaluationContext):
        now = context.scheduled_execution_time
        week = monday_of(now.date()) - timedelta(days=7)
        repos = context.instance.get_dynamic_partitions(repo_partitions.name)
        for repo in sorted(repos):
            key = partition_key(repo, week)
            yield dg.RunRequest(run_key=f"{repo}|{week}", partition_key=key)

    return _schedule
