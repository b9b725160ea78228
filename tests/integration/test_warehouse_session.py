"""The run's working copy of the warehouse is a Dagster resource: one copy per run, whatever
the number of models, let go of when the run ends, published whole, and undone by the next run
when the run failed."""

from __future__ import annotations

import fcntl
import os
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from orchestration.assets import PrweeklyResource, partition_key, repo_partitions
from orchestration.models.project import load_project
from orchestration.warehouse import asset as model_asset
from orchestration.warehouse import session as build_session
from orchestration.warehouse.asset import build_model_assets
from orchestration.warehouse.publish import build_publish_asset
from orchestration.warehouse.resource import WarehouseResource
from tests.unit.test_model_runner import PROJECT, write_project

WEEK = partition_key("acme/rocket", date(2026, 7, 20))
# two incremental models, so that a plan made per model (not per run) shows
TWO_INCREMENTAL = {
    **PROJECT,
    "marts/weekly_total.sql": "{{ config(materialized='incremental') }}\n"
    "select repo, week_start, sum(scaled) as total from {{ ref('weekly') }}\n"
    "{% if is_incremental() %}where true{% endif %}\ngroup by all",
}


def _assets(root: Path, files: dict[str, str]) -> list[dg.AssetsDefinition]:
    models = build_model_assets(load_project(write_project(root, files)))
    return [*models, build_publish_asset([a.key for a in models])]


def _run(assets, home: Path, instance: dg.DagsterInstance, selection=None):
    return dg.materialize(
        assets,
        instance=instance,
        partition_key=str(WEEK),
        selection=selection,
        resources={
            "prweekly": PrweeklyResource(home=str(home)),
            "warehouse": WarehouseResource(),
        },
        raise_on_error=False,
    )


def _lock_is_free(home: Path) -> bool:
    fd = os.open(home / "build" / "work.duckdb.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@pytest.fixture
def instance() -> dg.DagsterInstance:
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(repo_partitions.name, ["acme/rocket"])
    return instance


def test_a_run_opens_one_working_copy_plans_once_and_lets_go_when_published(
    tmp_path: Path, instance: dg.DagsterInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    locks, plans = [], []
    acquire = build_session.acquire_lock
    monkeypatch.setattr(
        build_session, "acquire_lock", lambda *a, **k: locks.append(a[0]) or acquire(*a, **k)
    )

    class CountedPlan(model_asset.RebuildPlan):
        def __init__(self, *args, **kwargs) -> None:
            plans.append(args[-1])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(model_asset, "RebuildPlan", CountedPlan)
    home = tmp_path / "home"
    result = _run(_assets(tmp_path / "sql", TWO_INCREMENTAL), home, instance)
    assert result.success
    assert len(locks) == 1  # five models and the publish step: one hold on the working copy
    assert len(plans) == 1  # one rebuild plan for both incremental models
    assert _lock_is_free(home)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        assert conn.execute("select total from marts.weekly_total").fetchall() == [(50,)]
        assert conn.execute(
            "select count(*) from information_schema.schemata where schema_name = '_build'"
        ).fetchone() == (0,)
    with duckdb.connect(str(home / "build" / "work.duckdb"), read_only=True) as conn:
        assert conn.execute("select count(*) from _build.pending").fetchone() == (0,)


def test_a_failed_run_lets_go_and_the_next_run_undoes_what_it_wrote(
    tmp_path: Path, instance: dg.DagsterInstance
) -> None:
    home = tmp_path / "home"
    assert _run(_assets(tmp_path / "first", PROJECT), home, instance).success

    changed = {
        **PROJECT,
        "staging/numbers.sql": "{{ config(materialized='table') }}\n"
        "select * from (values (1, 'a'), (4, 'b')) t(id, name)",
        "marts/broken.sql": "select no_such_column from {{ ref('numbers') }}",
    }
    failed = _run(_assets(tmp_path / "changed", changed), home, instance)
    assert not failed.success
    assert _lock_is_free(home)  # the failed run let go of the working copy
    work = home / "build" / "work.duckdb"
    with duckdb.connect(str(work), read_only=True) as conn:
        assert conn.execute("select count(*) from staging.numbers").fetchone() == (2,)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        assert conn.execute("select count(*) from staging.numbers").fetchone() == (3,)

    # the next run's first step puts the failed run's writes back as published
    scaled = _assets(tmp_path / "first", PROJECT)
    again = _run(scaled, home, instance, selection=[dg.AssetKey("scaled")])
    assert again.success
    with duckdb.connect(str(work), read_only=True) as conn:
        assert conn.execute("select id from staging.numbers order by 1").fetchall() == [
            (1,), (2,), (2,)
        ]  # fmt: skip
        assert conn.execute(
            "select count(*) from _build.pending where run_id = ?", [failed.run_id]
        ).fetchone() == (0,)
    assert _lock_is_free(home)  # a run without the publish step lets go at its end too
