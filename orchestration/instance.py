"""A persistent Dagster instance under `$PRWEEKLY_HOME/dagster`, so run history survives."""

from __future__ import annotations

import os

import dagster as dg

from orchestration.config import Settings
from orchestration.locks import file_lock

# No Dagster pool limit here: DuckDB writers are serialised by the warehouse's lock file
# (orchestration/warehouse.py), which the OS releases even when a process is killed, whereas
# a slot held by a killed in-process run would block every later run.
INSTANCE_YAML = """\
# Written by prweekly. Run history, event logs and schedules live beside this file.
telemetry:
  enabled: false
"""


def prepare_dagster_home(settings: Settings) -> str:
    """Create the instance folder (once) and point `DAGSTER_HOME` at it.

    A range run of N weeks would otherwise log N "planned" events per asset before it starts,
    each a separate SQLite transaction; one event per asset carrying the partition subset is
    Dagster's documented alternative for single-run backfills. (Its cost: if such a run fails,
    its partitions show as missing rather than failed; the run itself shows the failure.)
    """
    os.environ.setdefault("DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS", "1")
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(INSTANCE_YAML, encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return str(home)


def get_instance(settings: Settings) -> dg.DagsterInstance:
    """The persistent instance; its first creation is serialised between processes, since two
    processes creating Dagster's SQLite tables at once make one of them fail."""
    prepare_dagster_home(settings)
    marker = settings.dagster_home / ".initialised"
    if marker.exists():
        return dg.DagsterInstance.get()
    with file_lock(settings.dagster_home / ".init.lock"):
        instance = dg.DagsterInstance.get()
        instance.get_runs_count()  # creates the run storage's tables
        instance.get_dynamic_partitions("repo")
        instance.get_latest_materialization_event(dg.AssetKey("raw_pull_requests"))  # index db
        marker.touch()
    return instance
