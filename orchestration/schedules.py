"""Every Monday, report the week that just ended for every registered repository."""

from datetime import timedelta

import dagster as dg

from orchestration.config import load_settings
from orchestration.partitions import partition_key, repo_partitions
from orchestration.repositories import load_repositories
from orchestration.weeks import monday_of

DEFAULT_CRON = "0 6 * * 1"  # Mondays 06:00 UTC, once the week has closed everywhere


def weekly_schedule(job_name: str, cron: str = DEFAULT_CRON) -> dg.ScheduleDefinition:
    @dg.schedule(
        job_name=job_name,
        cron_schedule=cron,
        execution_timezone="UTC",
        name="weekly_report_schedule",
        default_status=dg.DefaultScheduleStatus.RUNNING,
        description="Build last week for every repository in repositories.yml, each with its "
        "own source. The file is the truth: a repo partition that is not in it is not built.",
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
            yield dg.RunRequest(
                run_key=f"{repo}|{week}",
                partition_key=partition_key(repo, week),
                run_config=(
                    {"resources": {"prweekly": {"config": {"source": source}}}} if source else {}
                ),
                tags={"prweekly/trigger": "schedule"},
            )

    return _schedule
