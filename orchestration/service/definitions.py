"""Wires prweekly's assets, checks, job and schedule into one Dagster code location."""

from __future__ import annotations

import os

import dagster as dg

from orchestration.assets import PrweeklyResource, weekly_partitions
from orchestration.config import SQL_DIR
from orchestration.delivery.asset import delivered_reports
from orchestration.extract.asset import raw_pull_requests
from orchestration.extract.failures import build_the_rest_sensor
from orchestration.group.asset import delivered_group_reports, group_report
from orchestration.models.project import load_project
from orchestration.narrative.asset import build_narrative_asset
from orchestration.service.freshness import freshness_job, freshness_schedule, last_week_reported
from orchestration.service.schedules import DEFAULT_CRON, weekly_schedule
from orchestration.site.asset import build_report_asset
from orchestration.warehouse.asset import build_model_assets, seed_specs
from orchestration.warehouse.publish import build_publish_asset
from orchestration.warehouse.resource import WarehouseResource

project = load_project(SQL_DIR)
model_assets = build_model_assets(project)
pr_narratives = build_narrative_asset(project)
weekly_report = build_report_asset(project)
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
    resources={"prweekly": PrweeklyResource(), "warehouse": WarehouseResource()},
    executor=dg.in_process_executor,
)
