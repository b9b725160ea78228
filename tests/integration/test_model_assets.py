"""The model runner's Dagster adapter: one asset per model, its YAML data tests as checks."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import dagster as dg
import duckdb

from orchestration.assets import PrweeklyResource, partition_key, repo_partitions
from orchestration.models.project import load_project
from orchestration.service.dagster_run import _first_failure
from orchestration.warehouse.asset import build_model_assets
from orchestration.warehouse.resource import WarehouseResource
from tests.unit.test_model_runner import PROJECT, write_project


def test_yaml_data_tests_become_dagster_checks_that_can_fail(tmp_path: Path) -> None:
    project = load_project(write_project(tmp_path / "sql", PROJECT))
    assets = build_model_assets(project)
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(repo_partitions.name, ["acme/rocket"])
    result = dg.materialize(
        assets,
        instance=instance,
        partition_key=partition_key("acme/rocket", date(2026, 7, 20)),
        resources={
            "prweekly": PrweeklyResource(home=str(tmp_path / "home")),
            "warehouse": WarehouseResource(),
        },
        raise_on_error=False,
    )
    evaluations = {
        e.check_name: e
        for e in result.get_asset_check_evaluations()
        if e.asset_key.path == ["numbers"]
    }
    assert evaluations["not_null_id"].passed
    assert evaluations["accepted_values_name"].passed
    assert not evaluations["unique_id"].passed
    assert evaluations["unique_id"].metadata["failing_rows"].value == 2  # both rows of id 2
    assert _first_failure(result) == "data test unique_id failed on numbers (2 rows): id=2"
    # the failure is recorded for the partitions it touches (here, having no repo or week
    # column, all of them), which keeps their reports from being written
    with duckdb.connect(str(tmp_path / "home" / "build" / "work.duckdb"), read_only=True) as c:
        failures = c.execute("select model, test, repo from checks.data_test_failures").fetchall()
    assert failures == [("numbers", "unique_id", None)]
