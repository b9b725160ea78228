"""Wires prweekly's assets, checks, job and schedule into one Dagster code location."""

from __future__ import annotations

import os

import dagster as dg

from orchestration.config import SQL_DIR
from orchestration.delivery.asset import delivered_reports
from orchestration.extract import raw_pull_requests
from orchestration.freshness import freshness_job, freshness_schedule, last_week_reported
from orchestration.group.asset import delivered_group_reports, group_report
from orchestration.models.assets import build_model_assets, seed_specs
from orchestration.models.project import load_project
from orchestration.models.publish import build_publish_asset
from orchestration.narrative.asset import pr_narratives
from orchestration.partitions import weekly_partitions
from orchestration.repo_failures import build_the_rest_sensor
from orchestration.report.asset import weekly_report
from orchestration.resources import PrweeklyResource
from orchestration.schedules import DEFAULT_CRON, weekly_schedule

project = load_project(SQL_DIR)
model_assets = build_model_assets(project)
published_warehouse = build_publish_asset([*(a.key for a in model_assets), pr_narratives.key])

weekly_job = dg.define_asset_job(
    "weekly_report_job",
    selection=dg.AssetSelection.assets(
        raw_pull_requests,
        *model_assets,
        pr_narratives,
        published_warehouse,
        weekly_report,
        delivered_reports,
        group_report,
        delivered_group_reports,
    )
    - dg.AssetSelection.checks(last_week_reported),
    partitions_def=weekly_partitions,
    description="Extract, model and report the selected repositories and weeks.",
)

defs = dg.Definitions(
    assets=[
        raw_pull_requests,
        *model_assets,
        pr_narratives,
        published_warehouse,
        weekly_report,
        delivered_reports,
        group_report,
        delivered_group_reports,
        *seed_specs(project),
    ],
    asset_checks=[last_week_reported],
    jobs=[weekly_job, freshness_job],
    schedules=[
        weekly_schedule(weekly_job.name, os.environ.get("PRWEEKLY_SCHEDULE_CRON", DEFAULT_CRON)),
        freshness_schedule,
    ],
    sensors=[build_the_rest_sensor(weekly_job)],
    resources={"prweekly": PrweeklyResource()},
    executor=dg.in_process_executor,
)
