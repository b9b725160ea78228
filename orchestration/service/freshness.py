"""Make a missing or stale weekly report visible in the UI, as a failing asset check."""

from datetime import UTC, date, datetime, timedelta

import dagster as dg

from orchestration.assets import partition_key
from orchestration.config import load_settings
from orchestration.repositories.registry import load_repositories
from orchestration.weeks import monday_of

FRESHNESS_CRON = "0 12 * * 1"  # six hours after the weekly schedule


def _latest(instance: dg.DagsterInstance, key: str, partition: str) -> float | None:
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(key), asset_partitions=[partition]), limit=1
    ).records
    return records[0].timestamp if records else None


@dg.asset_check(
    asset=dg.AssetKey("weekly_report"),
    name="last_week_reported",
    description="Every repository has a report for the last complete week, newer than the "
    "facts it was built from.",
)
def last_week_reported(context: dg.AssetCheckExecutionContext) -> dg.AssetCheckResult:
    week = monday_of(datetime.now(UTC).date()) - timedelta(days=7)
    missing, stale = unreported_repositories(context.instance, week)
    return dg.AssetCheckResult(
        passed=not missing and not stale,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"week of {week}: {len(missing)} missing, {len(stale)} stale",
        metadata={
            "week": str(week),
            "missing": dg.MetadataValue.json(missing),
            "stale": dg.MetadataValue.json(stale),
        },
    )


def unreported_repositories(
    instance: dg.DagsterInstance, week: date
) -> tuple[list[str], list[str]]:
    """Repositories of repositories.yml (named as spelt there) with no report for `week`, and
    those whose facts changed after it. Partitions are the lower-case identity."""
    missing, stale = [], []
    for entry in sorted(load_repositories(load_settings().home), key=lambda r: r.repo):
        key = str(partition_key(entry.repo, week))
        reported = _latest(instance, "weekly_report", key)
        facts = _latest(instance, "fct_pull_requests", key)
        if reported is None:
            missing.append(entry.name)
        elif facts is not None and facts > reported:
            stale.append(entry.name)
    return missing, stale


freshness_job = dg.define_asset_job(
    "report_freshness_job",
    selection=dg.AssetSelection.checks(last_week_reported),
    description="Checks that last week's report exists and is current for every repository.",
)

freshness_schedule = dg.ScheduleDefinition(
    name="report_freshness_schedule",
    job=freshness_job,
    cron_schedule=FRESHNESS_CRON,
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)
