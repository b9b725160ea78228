"""The DuckDB warehouse file, shared safely between processes.

DuckDB lets one process write a file, and no other process may even read it meanwhile. Every
connection therefore takes a lock file first: writers exclusively, readers shared. A reader that
finds a build writing says so once and waits, instead of failing on DuckDB's lock.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb

from orchestration.storage import file_lock


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# DuckDB's memory for a build: a build of every model over a million PRs joined 3 to 4 GB at
# once until it was built in parts (orchestration/warehouse/parts.py); in parts it needs under
# 1 GB, and a bigger join spills to the temporary folder beside the file instead of growing.
# Measured at a million PRs: the same CPU time as without a limit, peak 1.1 GB instead of 1.6.
# $PRWEEKLY_DUCKDB_INIT runs after it, so `SET memory_limit = '...'` there overrides it.
BUILD_MEMORY_LIMIT = "1GB"


def bound_memory(conn: duckdb.DuckDBPyConnection) -> None:
    """Keep a connection that builds models to BUILD_MEMORY_LIMIT."""
    conn.execute(f"set memory_limit = '{BUILD_MEMORY_LIMIT}'")


def apply_duckdb_init(conn: duckdb.DuckDBPyConnection) -> None:
    """Give `conn` the configured object stores, then run $PRWEEKLY_DUCKDB_INIT (any other
    set-up, e.g. a `CREATE SECRET` for DuckDB's own httpfs)."""
    from orchestration.object_store import register_with_duckdb

    register_with_duckdb(conn)
    setup = os.environ.get("PRWEEKLY_DUCKDB_INIT")
    if setup:
        conn.execute(setup)


@contextmanager
def connect(
    path: Path, *, read_only: bool = False, on_wait: Callable[[str], None] = _say
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the warehouse for the duration of a `with` block, holding the matching lock."""
    if read_only and not path.exists():
        raise FileNotFoundError(
            f"no warehouse at {path} yet: run `prweekly build` first (or set PRWEEKLY_HOME)"
        )
    lock = path.with_name(path.name + ".lock")
    message = "the warehouse is busy: another prweekly process is " + (
        "writing to it; waiting for it to finish..."
        if read_only
        else "using it; waiting for it to finish..."
    )
    with file_lock(lock, exclusive=not read_only, on_wait=on_wait, waiting_message=message):
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = duckdb.connect(str(path), read_only=read_only)
        try:
            if not read_only:
                bound_memory(conn)
            apply_duckdb_init(conn)
            yield conn
        finally:
            conn.close()


def rollback(conn: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, unless DuckDB already aborted it (a full disk does):
    rolling back then fails with "no transaction is active" and would hide the real error."""
    with suppress(duckdb.Error):
        conn.execute("rollback")


@contextmanager
def transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction: committed when the block ends, rolled back when it fails."""
    conn.execute("begin transaction")
    try:
        yield
        conn.execute("commit")
    except BaseException:
        rollback(conn)
        raise


def relation_exists(conn: duckdb.DuckDBPyConnection, relation: str) -> bool:
    """Whether `schema.name` is a table or view of the database."""
    schema, name = relation.split(".")
    (count,) = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    return bool(count)
