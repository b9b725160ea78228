"""Delivery holds back the weeks whose facts fail a data test, as the warehouse records them
(`checks.data_test_failures`), whichever step of whichever run rendered the reports."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pytest
import yaml

from orchestration.assets import (
    RANGE_END,
    RANGE_START,
    PrweeklyResource,
    partition_key,
    repo_partitions,
)
from orchestration.delivery import asset as delivery_asset
from orchestration.warehouse.resource import WarehouseResource

W29, W30 = date(2026, 7, 13), date(2026, 7, 20)


def _home(home: Path) -> None:
    """A registered repository with a Slack target, and a warehouse whose W29 fails a test."""
    home.mkdir(parents=True)
    entry = {
        "name": "acme/rocket",
        "deliver": {"slack": {"webhook_url": "${TEST_SLACK_WEBHOOK}"}},
    }
    (home / "repositories.yml").write_text(yaml.safe_dump({"repositories": [entry]}))
    with duckdb.connect(str(home / "warehouse.duckdb")) as conn:
        conn.execute("create schema marts")
        conn.execute("create table marts.fct_weekly_summary (repo varchar, week_start date)")
        conn.execute(
            "create table marts.fct_pull_requests (repo varchar, week_start date, "
            "number bigint, reverted_by bigint[], followed_up_by bigint[])"
        )
        conn.execute("create schema checks")
        conn.execute(
            "create table checks.data_test_failures (model varchar, test varchar, "
            "repo varchar, week_start date, failing_rows bigint, example varchar)"
        )
        conn.execute(
            "insert into checks.data_test_failures values ('stg_pull_requests', "
            "'unique_repo_number', 'acme/rocket', ?, 2, 'acme/rocket week 2026-07-13 PR #129')",
            [W29],
        )


def test_a_week_whose_facts_fail_a_test_is_held_back_without_the_report_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`delivered_reports` materialised alone (a selection in the UI): no report step of the
    run says which weeks it held back, the failures table does."""
    home = tmp_path / "home"
    _home(home)
    monkeypatch.setenv("TEST_SLACK_WEBHOOK", "https://hooks.slack.com/services/T0/B0/x0123456789")
    sent = []
    monkeypatch.setattr(
        delivery_asset,
        "deliver_week",
        lambda settings, entry, week, **kwargs: sent.append(week) or [],
    )
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(repo_partitions.name, ["acme/rocket"])
    result = dg.materialize(
        [delivery_asset.delivered_reports],
        instance=instance,
        tags={
            RANGE_START: str(partition_key("acme/rocket", W29)),
            RANGE_END: str(partition_key("acme/rocket", W30)),
        },
        resources={"prweekly": PrweeklyResource(home=str(home)), "warehouse": WarehouseResource()},
        raise_on_error=False,
    )
    assert sent == [W30]
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    message = failure.step_failure_data.user_failure_data.description
    assert message.startswith(
        "not reported, as their facts failed data tests: acme/rocket week "
        "2026-07-13 (unique_repo_number on stg_pull_requests: "
    ), message
    assert "0 editions delivered" in message
