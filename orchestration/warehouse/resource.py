"""The run's hold on the warehouse, as a Dagster resource: one working copy per run, opened by
the first step that writes it, published by `published_warehouse`, let go of when the run ends.

Dagster sets a resource up once per run in each process that runs steps (once per run with the
in-process executor prweekly's job uses) and tears it down when the run ends, whether it
succeeded, failed or was stopped. What a run holds (the working copy's connection and lock,
its rebuild plan) is the resource's, not the process's: two runs in one process (tests, the UI's
in-process runs) never see each other's, and a run that ends before publishing lets go of the
copy at teardown; the next run then undoes what it wrote (session.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import dagster as dg
import duckdb
from pydantic import PrivateAttr

from orchestration.config import Settings
from orchestration.warehouse.session import BuildSession, Say, close_session, open_session
from orchestration.warehouse.session import publish as publish_session

T = TypeVar("T")


class WarehouseResource(dg.ConfigurableResource):
    """The run's working copy of the warehouse (`session`), what the run worked out once for
    every model (`once`: the rebuild plan) and the step that makes it the readers' (`publish`)."""

    _run_id: str | None = PrivateAttr(default=None)
    _instance: Any = PrivateAttr(default=None)
    _session: BuildSession | None = PrivateAttr(default=None)
    _once: dict[str, Any] = PrivateAttr(default_factory=dict)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._run_id = context.run_id
        self._instance = context.instance

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        """A run that ends before publishing (failed, stopped, or a selection without
        `published_warehouse`) lets go of the working copy; the next run settles it."""
        self.close()

    def session(self, settings: Settings, say: Say) -> BuildSession:
        """The run's session: opened (waiting for another build's model phase) at the first
        call, then the same for every step of the run."""
        if self._session is None:
            self._session = open_session(settings, self._run_id, self._instance, say)
        return self._session

    def once(self, name: str, make: Callable[[], T]) -> T:
        """What `make` returns, made at the run's first call for `name` (the rebuild plan,
        before any model writes)."""
        if name not in self._once:
            self._once[name] = make()
        return self._once[name]

    @property
    def held(self) -> duckdb.DuckDBPyConnection | None:
        """The working copy's connection while this run holds it (its models are built and not
        yet published), so a later step writes through it rather than wait for its lock."""
        return self._session.conn if self._session is not None else None

    def publish(self, settings: Settings, say: Say) -> float:
        """Make the run's working copy the readers' warehouse and let go of it; returns how long
        readers were held."""
        try:
            return publish_session(self.session(settings, say), say)
        finally:
            self.close()

    def close(self) -> None:
        """Let go of the working copy without publishing (a delivery step runs without it)."""
        session, self._session = self._session, None
        if session is not None:
            close_session(session)
