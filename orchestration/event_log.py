"""Dagster's SQLite event log, keeping one SQLAlchemy engine per database file."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
)
from dagster._serdes import ConfigurableClassData
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

KEPT_ENGINES = 8  # the index file's and the latest runs' (a long-lived UI sees many runs)


class EngineKeepingSqliteEventLogStorage(SqliteEventLogStorage):
    """Dagster's own SQLite event log (same files, same tables), with fewer engines.

    Dagster makes a new engine for every connection, and so compiles every statement anew:
    in a build that was a third of the time spent storing events, one event per asset and
    week. An engine kept per file keeps SQLAlchemy's compiled statements. The connections
    are not pooled (NullPool, as Dagster has it), so each is still opened and closed per use.
    """

    def __init__(
        self,
        base_dir: str | None = None,
        inst_data: ConfigurableClassData | None = None,
    ) -> None:
        # relative to the instance folder, so that a home copied or moved keeps its run history
        home = os.environ.get("DAGSTER_HOME", "")
        folder = os.path.join(home, base_dir or os.path.join("history", "runs"), "")
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_lock = threading.Lock()
        super().__init__(folder, inst_data=inst_data)

    @classmethod
    def config_type(cls) -> dict:
        from dagster import Field, StringSource

        return {"base_dir": Field(StringSource, is_required=False)}

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData | None, config_value: Any
    ) -> EngineKeepingSqliteEventLogStorage:
        return cls(inst_data=inst_data, **config_value)

    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            engine = self._engines.get(shard)
            if engine is None:
                engine = create_engine(
                    self.conn_string_for_shard(shard),
                    poolclass=NullPool,
                    connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS},
                )
                self._engines[shard] = engine
                if len(self._engines) > KEPT_ENGINES:  # NullPool: nothing open to close
                    self._engines.popitem(last=False)
            self._engines.move_to_end(shard)
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Any]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def has_table(self, table_name: str) -> bool:
        engine = self._engine(INDEX_SHARD_NAME)
        with engine.connect() as conn:
            return bool(engine.dialect.has_table(conn, table_name))

    def dispose(self) -> None:
        super().dispose()
        with self._engines_lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()
