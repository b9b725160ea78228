"""A persistent Dagster instance under `$PRWEEKLY_HOME/dagster`, so run history survives."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import dagster as dg

from orchestration.config import Settings
from orchestration.service.event_log import enable_batches
from orchestration.storage import file_lock, write_bytes

# No Dagster pool limit here: DuckDB writers are serialised by the warehouse's lock file
# (orchestration/database.py), which the OS releases even when a process is killed, whereas
# a slot held by a killed in-process run would block every later run.
INSTANCE_YAML = """\
# Written by prweekly. Run history, event logs and schedules live beside this file.
telemetry:
  enabled: false
# Dagster's SQLite event log in the same files, keeping its engines and writing a step's
# events for many partitions in one transaction
event_log_storage:
  module: orchestration.service.event_log
  class: BatchingSqliteEventLogStorage
  config:
    base_dir:
      env: DAGSTER_HOME
"""
# What older prweeklys wrote, replaced by the above (the storage's files stay the same): before
# the batching event log, and before its module moved to service/ (a home made then names a
# module that is gone, and Dagster could not load the instance)
OLDER_INSTANCE_YAMLS = (
    INSTANCE_YAML.split("# Dagster's SQLite")[0],
    INSTANCE_YAML.replace("orchestration.service.event_log", "orchestration.event_log"),
)


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
    if not config.exists() or config.read_text(encoding="utf-8") in OLDER_INSTANCE_YAMLS:
        write_bytes(config, INSTANCE_YAML.encode("utf-8"))
    enable_batches()
    os.environ["DAGSTER_HOME"] = str(home)
    return str(home)


# What Dagster creates in the instance folder on first use (runs, events, schedules).
STORAGE_DIRS = ("history", "schedules")


def _ready(instance: dg.DagsterInstance) -> dg.DagsterInstance:
    """Touch every storage a build uses, so each creates its tables (or shows it cannot)."""
    instance.get_runs_count()
    instance.get_dynamic_partitions("repo")
    instance.get_latest_materialization_event(dg.AssetKey("raw_pull_requests"))  # index db
    instance.all_instigator_state()  # schedules
    return instance


# The instance last made, by its marker file: a build asks for it several times, and making
# one checks every storage's migrations (about a third of a second each time).
_latest: dict[tuple[str, int, int], dg.DagsterInstance] = {}


# prweekly's own runs print their progress themselves: Dagster's capture of a step's stdout
# and stderr would start a `tail` and a watcher process for each step, which a Ctrl-C in the
# terminal reaches too (each printing a traceback). The UI's runs keep the capture.
NO_COMPUTE_LOGS = {
    "compute_logs": {
        "module": "dagster._core.storage.noop_compute_log_manager",
        "class": "NoOpComputeLogManager",
    }
}


def _new_instance() -> dg.DagsterInstance:
    """The instance `DAGSTER_HOME` configures, without capturing steps' output."""
    from dagster._core.instance.ref import InstanceRef

    ref = InstanceRef.from_dir(os.environ["DAGSTER_HOME"], overrides=NO_COMPUTE_LOGS)
    return dg.DagsterInstance.from_ref(ref)


def _latest_instance(marker: Path, made: dg.DagsterInstance | None = None) -> dg.DagsterInstance:
    """The instance of the storage `marker` marks, made once per process while it stays the
    same storage (a storage set aside and made again has a new marker, so a new instance)."""
    stat = marker.stat()
    key = (str(marker.resolve()), stat.st_ino, stat.st_mtime_ns)
    instance = made or _latest.get(key)
    if instance is None:
        instance = _new_instance()
    if key not in _latest:
        _latest.clear()
        _latest[key] = instance
    return instance


def get_instance(settings: Settings) -> dg.DagsterInstance:
    """The persistent instance; its first creation is serialised between processes, since two
    processes creating Dagster's SQLite tables at once make one of them fail.

    The marker file is written once the storage is complete. Without it, the storage may be
    what a process killed while creating it left (tables missing, so every later build would
    fail): if it does not work, it is set aside and made again. It holds no run yet.
    """
    prepare_dagster_home(settings)
    marker = settings.dagster_home / ".initialised"
    if marker.exists():
        return _latest_instance(marker)
    with file_lock(settings.dagster_home / ".init.lock"):
        if marker.exists():  # another process finished it meanwhile
            return _latest_instance(marker)
        try:
            instance = _ready(_new_instance())
        except Exception as error:  # any failure of a half-made storage
            aside = _set_aside(settings.dagster_home)
            print(
                f"prweekly: Dagster's storage in {settings.dagster_home} was left unfinished "
                f"({' '.join(str(error).split())[:200]}); moved it to {aside} and made it again",
                file=sys.stderr,
                flush=True,
            )
            instance = _ready(_new_instance())
        marker.touch()
    return _latest_instance(marker, instance)


def _set_aside(home: Path) -> Path:
    aside = home / f"unfinished-{time.strftime('%Y%m%dT%H%M%S')}"
    aside.mkdir()
    for name in STORAGE_DIRS:
        if (home / name).exists():
            (home / name).rename(aside / name)
    return aside
