"""A run's new event log file, copied from an empty one made once per Dagster version.

Dagster makes each run's SQLite file by creating its tables and indexes and stamping the
migrations' head revision with alembic: about a tenth of a second of CPU per run, before its
first step. The file that makes is the same for every run of one Dagster version, so it is
made once, by Dagster's own code, into a hidden file beside the runs' files (`glob("*.db")`,
which lists the runs, skips it), and a new run's file is a copy of it: the same tables, the
same revision, WAL mode (kept in the file's header).

The copy reaches its place by a hard link, which fails if the file exists: a process that
finds a run's file there already (another one made it meanwhile) leaves it to Dagster's own
check. A file system without hard links gets Dagster's own making of the file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

import dagster
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

# the file's name says what made it: another Dagster version makes its own
TEMPLATE = f".empty-event-log-{dagster.__version__}.db"


def _make_template(base_dir: str, initdb: Callable[[Engine], None]) -> str:
    """The empty event log of this Dagster version, made by `initdb` (Dagster's) if absent."""
    from dagster._core.storage.sql import create_engine

    template = os.path.join(base_dir, TEMPLATE)
    if os.path.exists(template):
        return template
    making = f"{template}.{os.getpid()}.making"
    engine = create_engine(f"sqlite:///{making}", poolclass=NullPool)
    try:
        initdb(engine)
    finally:
        engine.dispose()  # its last connection closed: the WAL is in the file, and gone
    if os.path.exists(f"{making}-wal"):
        raise OSError(f"the empty event log {making} kept a WAL file")
    os.replace(making, template)  # whole or absent; two processes make the same file
    return template


def copy_empty_log(base_dir: str, path: str, initdb: Callable[[Engine], None]) -> bool:
    """Make the run's event log at `path` as a copy of the empty one; False when it exists
    already or cannot be made so (the caller then has Dagster check or make it)."""
    if os.path.exists(path):
        return False
    copy = f"{path}.{os.getpid()}.copy"
    try:
        shutil.copyfile(_make_template(base_dir, initdb), copy)
        os.link(copy, path)
    except OSError:  # it exists now, or no hard links here
        return False
    finally:
        if os.path.exists(copy):
            os.unlink(copy)
    return True
