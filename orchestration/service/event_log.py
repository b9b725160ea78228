"""Dagster's SQLite event log, made cheaper to write: one engine and connection per file, no
disk flush per event, and a step's events for many partitions in one batch.

Same files and tables as Dagster's own `SqliteEventLogStorage`; four costs removed:

- Dagster makes a new SQLAlchemy engine for every connection, and so compiles every statement
  anew: in a build that was a third of the time spent storing events. An engine kept per file
  keeps the compiled statements.
- Each event opened a connection and closed it. Dagster's files are in WAL mode, and closing
  the last connection to one checkpoints it: the WAL flushed to disk, copied into the database,
  the database flushed, the WAL deleted; the commit before had flushed the WAL once already.
  A one-week build stored about 550 events in that way, 5,500 flushes at some milliseconds
  each on a busy disk (far more than the build's CPU time). The kept connection stays open,
  so a commit only appends to the WAL, and `synchronous=NORMAL`, what SQLite advises for WAL,
  flushes it at checkpoints only (every 1,000 pages, and when the connection closes). A crash
  of the process loses nothing; a power cut may lose the latest events, never the file's
  consistency. A UI watching a run is told of the WAL's changes too (`watch`).
- A run over 100 repositories × 2 weeks materialises every asset for 200 partitions, one event
  per partition, each three transactions on two files: about a minute for one Monday run.
  Dagster hands those events over as one batch when `DAGSTER_EVENT_BATCH_SIZE` is set (its
  Postgres storage writes a batch at once); this storage does the same on SQLite: the batch
  goes into the run's file in one transaction and into the cross-run index in another, row for
  row what `store_event` writes (the asset's own row, which holds its latest event, once).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from typing import Any

import dagster._check as check
from dagster import DagsterEventType
from dagster._config import StringSource
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus
from dagster._core.storage.event_log.schema import (
    AssetCheckExecutionsTable,
    SqlEventLogStorageTable,
)
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
    SqliteEventLogStorageWatchdog,
)
from dagster._serdes import ConfigurableClassData
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import QueuePool
from watchdog.events import FileSystemEvent

from orchestration.service.empty_event_log import copy_empty_log

KEPT_ENGINES = 8  # the index file's and the latest runs' (a long-lived UI sees many runs)
BATCH_SIZE = "1000"  # events per write: far more than one step's partitions
# the asset events `SqliteEventLogStorage.store_event` writes alike: the run's row, the index's
# row with its tags, and the asset's row
BATCHED = {
    DagsterEventType.ASSET_MATERIALIZATION,
    DagsterEventType.ASSET_MATERIALIZATION_PLANNED,
    DagsterEventType.ASSET_OBSERVATION,
}
# a check's planned event: `store_event` writes the run's row, the index's row, and the
# check's planned execution
CHECK_PLANNED = DagsterEventType.ASSET_CHECK_EVALUATION_PLANNED


def _no_flush_per_commit(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("pragma synchronous = normal")


class EngineKeepingSqliteEventLogStorage(SqliteEventLogStorage):
    """Dagster's own SQLite event log with one engine, and its connection, kept per file."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_lock = threading.Lock()
        self._present: set[str | tuple[str, str]] = set()  # see has_table
        super().__init__(base_dir, inst_data=inst_data)

    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            engine = self._engines.get(shard)
            if engine is None:
                # every use holds `_db_lock`, so one connection serves it from any thread
                engine = create_engine(
                    self.conn_string_for_shard(shard),
                    poolclass=QueuePool,
                    pool_size=1,
                    connect_args={
                        "timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
                        "check_same_thread": False,
                    },
                )
                event.listen(engine, "connect", _no_flush_per_commit)
                self._engines[shard] = engine
                if len(self._engines) > KEPT_ENGINES:  # closing it checkpoints its file
                    self._engines.popitem(last=False)[1].dispose()
            self._engines.move_to_end(shard)
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Any]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                # a new run's file is a copy of the empty one Dagster made once (see
                # empty_event_log); any other is checked (or made) by Dagster itself
                if shard == INDEX_SHARD_NAME or not copy_empty_log(
                    self._base_dir, self.path_for_shard(shard), self._initdb
                ):
                    self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def has_table(self, table_name: str) -> bool:
        """Whether the index has the table, remembered once it has: Dagster asks before each
        check's and partition's write (about 850 times in a one-week build), and a table a
        migration added stays (a wipe or an upgrade forgets what was remembered)."""
        if table_name in self._present:
            return True
        engine = self._engine(INDEX_SHARD_NAME)
        with engine.connect() as conn:
            present = bool(engine.dialect.has_table(conn, table_name))
        if present:
            self._present.add(table_name)
        return present

    def has_secondary_index(self, name: str) -> bool:
        """Dagster's test of a completed data migration, remembered once completed (asked at
        each read of the assets' rows, twice per step)."""
        if ("index", name) in self._present:
            return True
        if present := super().has_secondary_index(name):
            self._present.add(("index", name))
        return present

    def wipe(self) -> None:
        self._present.clear()
        super().wipe()

    def upgrade(self) -> None:
        self._present.clear()
        super().upgrade()

    def watch(self, run_id: str, cursor: str | None, callback: Any) -> None:
        """Dagster's watch of a run's file, told of its WAL's changes too: its events reach
        the WAL at once and the file itself only at a checkpoint."""
        from watchdog.observers import Observer

        if not self._obs:
            self._obs = Observer()
            self._obs.start()
        watchdog = _RunFileWatchdog(self, run_id, callback, cursor)
        self._watchers[run_id][callback] = (
            watchdog,
            self._obs.schedule(watchdog, self._base_dir, recursive=True),
        )

    def dispose(self) -> None:
        super().dispose()
        with self._engines_lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()


class _RunFileWatchdog(SqliteEventLogStorageWatchdog):
    """Dagster's watchdog of a run's file, matching the file's WAL too."""

    def __init__(self, storage: SqliteEventLogStorage, run_id: str, callback: Any, cursor: Any):
        super().__init__(storage, run_id, callback, cursor)
        path = storage.path_for_shard(run_id)
        self._patterns = [path, f"{path}-wal"]

    def on_modified(self, event: FileSystemEvent) -> None:
        self._process_log()


class BatchingSqliteEventLogStorage(EngineKeepingSqliteEventLogStorage):
    """`SqliteEventLogStorage` with `store_event_batch` for asset events (materialisations,
    and those planned when a run starts)."""

    @classmethod
    def config_type(cls) -> dict:
        return {"base_dir": StringSource}

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> BatchingSqliteEventLogStorage:  # type: ignore[override]
        """`base_dir` is the instance folder; the event logs live where Dagster's own are."""
        base_dir = os.path.join(config_value["base_dir"], "history", "runs")
        return cls(base_dir, inst_data=inst_data)

    def store_event_batch(self, events: Sequence[EventLogEntry]) -> None:
        """Consecutive asset events of one run in two transactions, and consecutive checks'
        planned events alike; any other event on its own, in the batch's order."""
        for kind, group in groupby(events, key=_batch_kind):
            group = list(group)
            if kind and len({event.run_id for event in group}) == 1:
                if kind == CHECK_PLANNED:
                    self._store_check_planned_events(group)
                else:
                    self._store_asset_events(group)
            else:
                for event in group:
                    self.store_event(event)

    @contextmanager
    def _stored(self, events: list[EventLogEntry]) -> Iterator[tuple[Any, list[dict], list[int]]]:
        """The events' rows written to the run's file and to the index, one statement each (the
        rows `prepare_insert_event` inserts one by one); yields the index's open transaction,
        the rows and their ids in the index, for what the caller stores beside them."""
        rows = [self._event_to_row(event) for event in events]
        with self.run_connection(events[0].run_id) as conn:
            conn.execute(SqlEventLogStorageTable.insert(), rows)
        with self.index_transaction() as conn:
            insert = SqlEventLogStorageTable.insert().returning(
                SqlEventLogStorageTable.c.id, sort_by_parameter_order=True
            )
            yield conn, rows, [event_id for (event_id,) in conn.execute(insert, rows)]

    def _store_check_planned_events(self, events: list[EventLogEntry]) -> None:
        """What `store_event` writes for each check's planned event (the run's row, the index's
        row, the check's planned execution per partition), in two transactions."""
        check.invariant(
            self.supports_asset_checks,
            "Asset checks require a database schema migration. Run `dagster instance migrate`.",
        )
        with self._stored(events) as (conn, rows, ids):
            # the rows `_store_asset_check_evaluation_planned` inserts, for all the events
            executions = [
                {
                    "asset_key": planned.asset_key.to_string(),
                    "check_name": planned.check_name,
                    "partition": partition,
                    "run_id": event.run_id,
                    "execution_status": AssetCheckExecutionRecordStatus.PLANNED.value,
                    "evaluation_event": row["event"],
                    "evaluation_event_timestamp": row["timestamp"],
                    "evaluation_event_storage_id": event_id,
                }
                for event, row, event_id in zip(events, rows, ids, strict=True)
                for planned in [event.get_dagster_event().event_specific_data]
                for partition in (
                    planned.partitions_subset.get_partition_keys()
                    if planned.partitions_subset
                    else [None]
                )
            ]
            if executions:
                conn.execute(AssetCheckExecutionsTable.insert(), executions)

    def _store_asset_events(self, events: list[EventLogEntry]) -> None:
        """What `store_event` writes for each asset event, the run's rows in one transaction
        and the index's in another."""
        with self._stored(events) as (conn, _, ids):
            self._store_asset_event_tags(conn, events, ids)
            # an asset's row holds its latest event: each asset's last one in the batch
            latest = {e.dagster_event.asset_key: (e, i) for e, i in zip(events, ids, strict=True)}
            for event, event_id in latest.values():
                self._store_asset_event(conn, event, event_id)


def _batch_kind(event: EventLogEntry) -> DagsterEventType | None:
    """What batch an event can join: asset events together, checks' planned events together."""
    kind = event.dagster_event_type
    if kind in BATCHED:
        return DagsterEventType.ASSET_MATERIALIZATION
    return kind if kind == CHECK_PLANNED else None


def enable_batches() -> None:
    """Have Dagster hand a step's partition events over as one batch (read at every event)."""
    os.environ.setdefault("DAGSTER_EVENT_BATCH_SIZE", BATCH_SIZE)
