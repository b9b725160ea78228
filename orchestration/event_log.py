"""Dagster's SQLite event log, storing a step's asset events for many partitions at once.

A run over 100 repositories × 2 weeks materialises every asset for 200 partitions, and Dagster
writes one event per partition: with its SQLite storage each is three transactions on two
files (a new engine and an fsync each), about a minute for one Monday run. Dagster hands those
events over as one batch when `DAGSTER_EVENT_BATCH_SIZE` is set (its Postgres storage writes a
batch at once); this storage does the same on SQLite: the batch goes into the run's file in one
transaction and into the cross-run index in another, row for row what `store_event` writes
(the asset's own row, which holds its latest event, once).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import groupby

from dagster import DagsterEventType
from dagster._config import StringSource
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log import SqliteEventLogStorage

BATCH_SIZE = "1000"  # events per write: far more than one step's partitions
# the asset events `SqliteEventLogStorage.store_event` writes alike: the run's row, the index's
# row with its tags, and the asset's row
BATCHED = {
    DagsterEventType.ASSET_MATERIALIZATION,
    DagsterEventType.ASSET_MATERIALIZATION_PLANNED,
    DagsterEventType.ASSET_OBSERVATION,
}


class BatchingSqliteEventLogStorage(SqliteEventLogStorage):
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
        """Consecutive asset events of one run in two transactions; any other event (a check's,
        say) on its own, in the batch's order."""
        for together, group in groupby(events, key=_batchable):
            group = list(group)
            if together and len({event.run_id for event in group}) == 1:
                self._store_asset_events(group)
            else:
                for event in group:
                    self.store_event(event)

    def _store_asset_events(self, events: list[EventLogEntry]) -> None:
        """What `store_event` writes for each asset event, the run's rows in one transaction
        and the index's in another."""
        inserts = [self.prepare_insert_event(event) for event in events]
        with self.run_connection(events[0].run_id) as conn:
            for insert in inserts:
                conn.execute(insert)
        with self.index_transaction() as conn:
            ids = [conn.execute(insert).inserted_primary_key[0] for insert in inserts]
            self._store_asset_event_tags(conn, events, ids)
            # an asset's row holds its latest event: each asset's last one in the batch
            latest = {e.dagster_event.asset_key: (e, i) for e, i in zip(events, ids, strict=True)}
            for event, event_id in latest.values():
                self._store_asset_event(conn, event, event_id)


def _batchable(event: EventLogEntry) -> bool:
    return event.dagster_event_type in BATCHED


def enable_batches() -> None:
    """Have Dagster hand a step's partition events over as one batch (read at every event)."""
    os.environ.setdefault("DAGSTER_EVENT_BATCH_SIZE", BATCH_SIZE)
