"""Dagster's storage in a real PostgreSQL, configured by `deploy/dagster.yaml` itself: the
schedule's weekly run, a backfill and the freshness check land there, and another process sees
them."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest
import yaml

from tests.conftest import ROOT, SAMPLE_DATASET
from tests.servers import Postgres, postgres_cluster

DEPLOY_INSTANCE = ROOT / "deploy" / "dagster.yaml"
SCHEDULED = datetime(2026, 7, 27, 6, tzinfo=UTC)  # the Monday after week 2026-07-20


@pytest.fixture(scope="module")
def postgres() -> Postgres:
    with postgres_cluster() as server:
        yield server


def install_deploy_instance(dagster_home: Path) -> dict:
    """`deploy/dagster.yaml` as the instance, less its Kubernetes run launcher: no cluster
    runs here, so each run executes in this process, as it does inside a run pod."""
    config = yaml.safe_load(DEPLOY_INSTANCE.read_text(encoding="utf-8"))
    assert config["run_launcher"]["class"] == "K8sRunLauncher"
    del config["run_launcher"]
    dagster_home.mkdir(parents=True)
    (dagster_home / "dagster.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return config


# Run in a second process: what the webserver or daemon, started elsewhere, reads back.
READ_BACK = """
import json, dagster as dg
instance = dg.DagsterInstance.get()
runs = instance.get_runs()
reports = instance.get_materialized_partitions(dg.AssetKey("weekly_report"))
check = instance.event_log_storage.get_asset_check_execution_history(
    dg.AssetCheckKey(dg.AssetKey("weekly_report"), "last_week_reported"), limit=1)[0]
print(json.dumps({
    "storage": type(instance.run_storage).__name__,
    "runs": sorted([r.job_name, r.status.value, r.tags.get("prweekly/trigger", "")] for r in runs),
    "repos": instance.get_dynamic_partitions("repo"),
    "reports": sorted(reports),
    "check": [check.status.value, check.event.dagster_event.event_specific_data.description],
}))
"""


def test_runs_materialisations_partitions_and_checks_land_in_postgres(
    postgres: Postgres, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestration.config import load_settings
    from orchestration.service.cli import main
    from orchestration.service.definitions import defs
    from orchestration.service.instance import get_instance

    for name, value in postgres.env().items():
        monkeypatch.setenv(name, value)
    config = install_deploy_instance(home / "dagster")
    assert config["storage"]["postgres"]["postgres_db"]["port"] == {"env": "DAGSTER_PG_PORT"}
    sample = f"file:{SAMPLE_DATASET}"
    assert main(["repo", "add", "acme/rocket", "--source", sample]) == 0

    # A backfill of two weeks: one run for the range, as `prweekly build --to` launches it.
    args = ["build", "--repo", "acme/rocket", "--week", "2026-W28", "--to", "2026-W29"]
    assert main(args) == 0
    instance = get_instance(load_settings())

    # The schedule's tick for the Monday after 2026-W30, and the run it asks for.
    schedule = defs.resolve_schedule_def("weekly_report_schedule")
    context = dg.build_schedule_context(
        instance=instance,
        scheduled_execution_time=SCHEDULED,
        repository_def=defs.get_repository_def(),
    )
    (request,) = schedule.evaluate_tick(context).run_requests
    # the week that ended, and the week before read again (GitHub's index can lag a merge)
    assert request.tags["dagster/asset_partition_range_start"] == "acme/rocket|2026-07-13"
    assert request.tags["dagster/asset_partition_range_end"] == "acme/rocket|2026-07-20"
    job = defs.resolve_job_def("weekly_report_job")
    scheduled = job.execute_in_process(
        instance=instance, run_config=request.run_config, tags=request.tags
    )
    assert scheduled.success

    freshness = defs.resolve_job_def("report_freshness_job").execute_in_process(instance=instance)
    assert freshness.success
    last_week = datetime.now(UTC).date() - timedelta(days=datetime.now(UTC).weekday() + 7)

    env = {**postgres.env(), "DAGSTER_HOME": str(home / "dagster"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", READ_BACK], env=env, capture_output=True, text=True, check=True
    ).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["storage"] == "PostgresRunStorage"
    assert seen["runs"] == [
        ["report_freshness_job", "SUCCESS", ""],
        ["weekly_report_job", "SUCCESS", ""],
        ["weekly_report_job", "SUCCESS", "schedule"],
    ]
    assert seen["repos"] == ["acme/rocket"]
    assert seen["reports"] == [f"acme/rocket|2026-07-{d}" for d in ("06", "13", "20")]
    # No report exists for the week that really ended last, so the check warns and says so.
    assert seen["check"] == ["FAILED", f"week of {last_week}: 1 missing, 0 stale"]

    # Nothing fell back to SQLite: no run, event or schedule database beside the configuration.
    assert not [p.name for p in (home / "dagster").rglob("*.db")]
    assert not (home / "dagster" / "history").exists()
