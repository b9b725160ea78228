"""prweekly's Dagster instance stores a step's events for many partitions in one batch, and
what it stores is what Dagster's own SQLite event log stores one event at a time; its writes
flush nothing to disk per event, and a watcher still sees them."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log import SqliteEventLogStorage

from orchestration.config import load_settings
from orchestration.service.empty_event_log import TEMPLATE
from orchestration.service.event_log import BatchingSqliteEventLogStorage
from orchestration.service.instance import INSTANCE_YAML, OLDER_INSTANCE_YAMLS, get_instance

PARTITIONS = dg.StaticPartitionsDefinition([f"p{i:02d}" for i in range(12)])
SINGLE_RUN = dg.BackfillPolicy.single_run()
MATERIALIZATION = dg.DagsterEventType.ASSET_MATERIALIZATION
PLANNED = dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED


@dg.asset(partitions_def=PARTITIONS, backfill_policy=SINGLE_RUN)
def upstream() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": 3})


@dg.asset(
    partitions_def=PARTITIONS,
    backfill_policy=SINGLE_RUN,
    deps=[upstream],
    check_specs=[
        dg.AssetCheckSpec(name, asset="downstream", blocking=False) for name in ("a", "b")
    ],
)
def downstream() -> dg.MaterializeResult:
    return dg.MaterializeResult(
        metadata={"rows": 4},
        check_results=[
            dg.AssetCheckResult(check_name="a", passed=True),
            dg.AssetCheckResult(check_name="b", passed=False),
        ],
    )


def _run(instance: dg.DagsterInstance) -> str:
    job = dg.Definitions(assets=[upstream, downstream]).resolve_implicit_global_asset_job_def()
    result = job.execute_in_process(
        instance=instance,
        tags={
            "dagster/asset_partition_range_start": "p00",
            "dagster/asset_partition_range_end": "p11",
        },
    )
    assert result.success
    return result.run_id


def _stored(instance: dg.DagsterInstance, run_id: str) -> dict:
    """What the UI and the freshness check read back: per asset, its partitions, their tags
    and metadata, and the asset's latest record."""
    out = {}
    for key in (dg.AssetKey("upstream"), dg.AssetKey("downstream")):
        records = instance.fetch_materializations(key, limit=100).records
        out[key.to_user_string()] = {
            "partitions": sorted(instance.get_materialized_partitions(key)),
            "events": sorted(
                (
                    r.partition_key,
                    r.asset_materialization.metadata["rows"].value,
                    tuple(sorted(k for k in r.asset_materialization.tags)),
                )
                for r in records
            ),
            "latest": instance.get_latest_materialization_event(key).dagster_event.partition,
            "planned": sum(
                1
                for e in instance.all_logs(run_id, of_type=PLANNED)
                if e.dagster_event.asset_key == key
            ),
            "last_run_is_this_one": instance.get_asset_records([key])[0].asset_entry.last_run_id
            == run_id,
            "in_run_log": sum(
                1
                for e in instance.all_logs(run_id, of_type=MATERIALIZATION)
                if e.dagster_event.asset_key == key
            ),
        }
    for name in ("a", "b"):  # the checks' executions, planned when the run starts
        check_key = dg.AssetCheckKey(dg.AssetKey("downstream"), name)
        history = instance.event_log_storage.get_asset_check_execution_history(check_key, 100)
        out[f"check {name}"] = sorted(
            (
                r.partition or "",
                r.status.value,
                r.run_id == run_id,
                r.event.dagster_event_type.value,
            )
            for r in history
        )
    out["check events in the run's log"] = sorted(
        e.dagster_event_type.value
        for e in instance.all_logs(run_id)
        if e.dagster_event_type.value.startswith("ASSET_CHECK")
    )
    return out


def test_a_range_run_stores_the_same_events_as_dagsters_own_sqlite_log(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    instance = get_instance(load_settings())
    assert isinstance(instance.event_log_storage, BatchingSqliteEventLogStorage)
    batches = []
    store_batch = BatchingSqliteEventLogStorage.store_event_batch
    monkeypatch.setattr(
        BatchingSqliteEventLogStorage,
        "store_event_batch",
        lambda self, events: (
            batches.append({e.dagster_event_type.value for e in events})
            or batches.append(len(events))
            or store_batch(self, events)
        ),
    )
    checks_planned = []
    store_checks = BatchingSqliteEventLogStorage._store_check_planned_events
    monkeypatch.setattr(
        BatchingSqliteEventLogStorage,
        "_store_check_planned_events",
        lambda self, events: checks_planned.append(len(events)) or store_checks(self, events),
    )
    ours = _stored(instance, _run(instance))
    assert checks_planned == [2]  # both checks' planned events in one write
    materialized = [
        n
        for kinds, n in zip(batches[::2], batches[1::2], strict=True)
        if kinds == {"ASSET_MATERIALIZATION"}
    ]
    assert materialized == [12, 12]  # each step's twelve partitions in one write
    # the run's plan, when it starts: the assets' and the checks' planned events
    assert {"ASSET_MATERIALIZATION_PLANNED", "ASSET_CHECK_EVALUATION_PLANNED"} in batches
    (tmp_path / "plain").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "plain")) as plain:
        assert type(plain.event_log_storage).__name__ == "SqliteEventLogStorage"
        theirs = _stored(plain, _run(plain))
    assert ours == theirs
    assert ours["downstream"]["partitions"] == [f"p{i:02d}" for i in range(12)]
    assert ours["downstream"]["in_run_log"] == 12
    assert ours["downstream"]["planned"] >= 1 and ours["downstream"]["last_run_is_this_one"]


@pytest.mark.parametrize("older", OLDER_INSTANCE_YAMLS, ids=["before-batching", "before-move"])
def test_an_instance_an_older_prweekly_made_gets_the_batching_log(home: Path, older: str) -> None:
    """Also one that names the event log's module where it was before the folder move."""
    settings = load_settings()
    settings.dagster_home.mkdir(parents=True)
    (settings.dagster_home / "dagster.yaml").write_text(older, encoding="utf-8")
    instance = get_instance(settings)
    assert isinstance(instance.event_log_storage, BatchingSqliteEventLogStorage)
    assert (settings.dagster_home / "dagster.yaml").read_text(encoding="utf-8") == INSTANCE_YAML


def _log_line(run_id: str, text: str) -> EventLogEntry:
    return EventLogEntry(
        error_info=None,
        level=logging.INFO,
        user_message=text,
        run_id=run_id,
        timestamp=time.time(),
    )


def test_events_are_committed_without_a_flush_and_the_connection_stays_open(
    tmp_path: Path,
) -> None:
    storage = BatchingSqliteEventLogStorage(str(tmp_path))
    for n in range(3):
        storage.store_event(_log_line("run-a", f"line {n}"))
    with storage.run_connection("run-a") as conn:
        assert conn.exec_driver_sql("pragma journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("pragma synchronous").scalar() == 1  # NORMAL
    engine = storage._engines["run-a"]
    assert engine.pool.checkedin() == 1  # kept: closing it would checkpoint the file
    assert (tmp_path / "run-a.db-wal").exists()
    assert [
        r.event_log_entry.user_message for r in storage.get_records_for_run("run-a").records
    ] == [
        "line 0",
        "line 1",
        "line 2",
    ]
    storage.dispose()


def test_a_watcher_in_another_process_sees_events_that_are_still_in_the_wal(
    tmp_path: Path,
) -> None:
    """The UI watches a run's file while `prweekly build` writes it: the events reach the WAL
    at once and the file itself only at a checkpoint."""
    writer = BatchingSqliteEventLogStorage(str(tmp_path))
    writer.store_event(_log_line("run-b", "before the watch"))
    seen: list[str] = []
    ui = BatchingSqliteEventLogStorage(str(tmp_path))
    ui.watch("run-b", None, lambda entry, cursor: seen.append(entry.user_message))
    try:
        deadline = time.monotonic() + 20
        writer.store_event(_log_line("run-b", "while watched"))
        while "while watched" not in seen and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "while watched" in seen
    finally:
        ui.dispose()
        writer.dispose()


def _schema(path: Path) -> dict:
    with sqlite3.connect(path) as db:
        return {
            "tables": sorted(db.execute("select type, name, sql from sqlite_master").fetchall()),
            "revision": db.execute("select version_num from alembic_version").fetchall(),
            "journal_mode": db.execute("pragma journal_mode").fetchone()[0],
        }


def test_a_new_runs_file_is_a_copy_of_the_empty_log_dagster_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy holds what Dagster's own making of the file holds, and the run reads and
    writes it; a second run's file is copied without Dagster making anything."""
    made = []
    initdb = BatchingSqliteEventLogStorage._initdb
    monkeypatch.setattr(
        BatchingSqliteEventLogStorage,
        "_initdb",
        lambda self, engine, **kw: made.append(str(engine.url)) or initdb(self, engine, **kw),
    )
    ours = BatchingSqliteEventLogStorage(str(tmp_path / "ours"))
    ours.store_event(_log_line("run-c", "first"))
    template = tmp_path / "ours" / TEMPLATE
    assert template.exists() and ours.get_all_run_ids() == ["run-c"]
    made.clear()
    ours.store_event(_log_line("run-d", "second"))
    assert made == []  # neither made nor checked: a copy of the empty log
    assert [r.event_log_entry.user_message for r in ours.get_records_for_run("run-d").records] == [
        "second"
    ]
    ours.dispose()
    theirs = SqliteEventLogStorage(str(tmp_path / "theirs"))
    theirs.store_event(_log_line("run-c", "first"))
    theirs.dispose()
    assert _schema(tmp_path / "ours" / "run-d.db") == _schema(tmp_path / "theirs" / "run-c.db")
    assert _schema(template)["journal_mode"] == "wal"
    # a run's file that exists already (another process made it) is kept, and checked
    again = BatchingSqliteEventLogStorage(str(tmp_path / "ours"))
    again.store_event(_log_line("run-d", "third"))
    assert [r.event_log_entry.user_message for r in again.get_records_for_run("run-d").records] == [
        "second",
        "third",
    ]
    assert any("run-d" in url for url in made)
    again.dispose()


def test_the_index_tables_are_asked_for_once_and_again_after_a_wipe(tmp_path: Path) -> None:
    storage = BatchingSqliteEventLogStorage(str(tmp_path))
    assert storage.has_table("asset_check_executions") and not storage.has_table("no_such")
    assert storage._present == {"asset_check_executions"}  # only what exists is remembered
    storage.wipe()  # forgets, and asks again (the wipe itself asks for the tables it empties)
    assert "asset_event_tags" in storage._present and "no_such" not in storage._present
    assert storage.has_table("asset_check_executions")
    storage.dispose()
