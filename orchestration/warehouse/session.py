"""A build's working copy of the warehouse, published to readers as one whole build.

Readers (`prweekly sql`, the report, the UI, anyone's `duckdb.connect(..., read_only=True)`)
open `$PRWEEKLY_HOME/warehouse.duckdb`. A build never writes that file model by model, or a
reader between two models would see `fct_pull_requests` new and `fct_weekly_summary` old.
It writes its working copy, `build/work.duckdb`, holding that copy's lock for its whole
model phase, and notes before each write what it is about to change (`_build.pending`). Once
every model is built, `publish` brings the readers' file up to date in one step:

- after a rebuild of whole models (a first build, a changed model), the working copy is
  copied and renamed over `warehouse.duckdb`: readers never wait, and those reading keep the
  file they opened;
- otherwise only the changed weeks are copied, in one transaction, while readers wait on
  `warehouse.duckdb.lock`: about as long as one model's write of those weeks.

A build that fails or is killed leaves its notes behind; the next build first puts those
weeks back as published (from `warehouse.duckdb`), so the working copy again holds whole
builds only. A run that succeeded without publishing (a selection in the UI without
`published_warehouse`) is published by the next build instead.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import duckdb

from orchestration.config import Settings
from orchestration.database import apply_duckdb_init, bound_memory, transaction
from orchestration.lake.case_merge import warehouse_needs_rebuild
from orchestration.models.build import REBUILT
from orchestration.models.render import sql_string
from orchestration.run_scope import RunScope
from orchestration.storage import acquire_lock, file_lock, release_lock

Say = Callable[[str], None]
PENDING = "_build.pending"
# a note's kind is the runner's (orchestration/models/build.py): `weeks`, `whole` or `rebuilt`
# a relation's rows in any of the noted weeks (`t`), the notes passed as three lists
WEEKS_FILTER = (
    "exists (select 1 from (select unnest($repos) as repo, unnest($firsts) as first_week, "
    "unnest($lasts) as last_week) s "
    "where s.repo = t.repo and t.week_start between s.first_week and s.last_week)"
)


def work_path(settings: Settings) -> Path:
    return settings.home / "build" / "work.duckdb"


def _lock(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@dataclass
class BuildSession:
    """One run's hold on the working copy: its connection and lock, until published or ended."""

    run_id: str
    settings: Settings
    conn: duckdb.DuckDBPyConnection
    lock_fd: int
    rebuild_all: bool = False

    def note(self, relation: str, kind: str, scope: RunScope | None = None) -> None:
        """Record, before writing it, what this run is about to change."""
        self.note_all(relation, kind, [scope])

    def note_all(self, relation: str, kind: str, scopes: list[RunScope | None]) -> None:
        """`note` for many repositories' weeks, in one statement."""
        self.conn.execute(
            f"insert into {PENDING} select ?, ?, ?, unnest(?), unnest(?::date[]), "
            "unnest(?::date[])",
            [
                self.run_id,
                relation,
                kind,
                [s.repo if s else None for s in scopes],
                [s.start_week if s else None for s in scopes],
                [s.end_week if s else None for s in scopes],
            ],
        )


def open_session(
    settings: Settings, run_id: str, instance: dg.DagsterInstance, say: Say
) -> BuildSession:
    """A run's session, waiting for another build's model phase: the working copy, with what
    runs before left in it settled (`_settle`). The run's resource holds it (resource.py)."""
    work = work_path(settings)
    fd = acquire_lock(
        _lock(work),
        on_wait=say,
        waiting_message="another build is writing the warehouse; waiting for it to finish...",
    )
    try:
        conn = _open_work(settings, say)
        _settle(conn, settings, run_id, instance, say)
    except BaseException:
        release_lock(fd)
        raise
    session = BuildSession(run_id, settings, conn, fd, warehouse_needs_rebuild(conn))
    if session.rebuild_all:
        say("the warehouse holds a repository under two spellings: rebuilding every model")
    return session


def close_session(session: BuildSession) -> None:
    """End a session without publishing (the run failed, or it has published)."""
    try:
        session.conn.close()
    finally:
        release_lock(session.lock_fd)


def _connect(path: Path) -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect(str(path))
    bound_memory(conn)
    apply_duckdb_init(conn)
    return conn


def _open_work(settings: Settings, say: Say) -> duckdb.DuckDBPyConnection:
    """The working copy, made from the readers' file the first time, or when it cannot be
    opened (a write that failed half-way on a full disk can leave it so)."""
    work, published = work_path(settings), settings.warehouse_path
    work.parent.mkdir(parents=True, exist_ok=True)
    if not work.exists() and published.exists():
        with file_lock(_lock(published), exclusive=False):
            _checkpoint(published)
            shutil.copyfile(published, work.with_suffix(".copying"))
        os.replace(work.with_suffix(".copying"), work)
    try:
        conn = _connect(work)
    except duckdb.Error as error:
        if not published.exists():
            raise
        broken = work.with_name(f"work.broken-{time.strftime('%Y%m%dT%H%M%S')}.duckdb")
        say(f"the working copy {work} cannot be opened ({error}); set it aside as {broken}")
        work.rename(broken)
        work.with_name(work.name + ".wal").unlink(missing_ok=True)
        return _open_work(settings, say)
    conn.execute("create schema if not exists _build")
    conn.execute(
        f"create table if not exists {PENDING} (run_id varchar, relation varchar, "
        "kind varchar, repo varchar, first_week date, last_week date)"
    )
    return conn


def _checkpoint(path: Path) -> None:
    """Fold a write-ahead log a killed publish left into the file, so a copy is whole."""
    if path.with_name(path.name + ".wal").exists():
        duckdb.connect(str(path)).close()


def _settle(
    conn: duckdb.DuckDBPyConnection,
    settings: Settings,
    run_id: str,
    instance: dg.DagsterInstance,
    say: Say,
) -> None:
    """Adopt the notes of runs that succeeded unpublished; undo those of runs that did not."""
    others = [
        r
        for (r,) in conn.execute(f"select distinct run_id from {PENDING}").fetchall()
        if r != run_id
    ]
    undo = []
    for other in others:
        run = instance.get_run_by_id(other)
        if run is not None and run.status == dg.DagsterRunStatus.SUCCESS:
            conn.execute(f"update {PENDING} set run_id = ? where run_id = ?", [run_id, other])
        else:
            undo.append(other)
    if not undo:
        return
    say(f"undoing what {len(undo)} unfinished build(s) left in the working copy")
    entries = conn.execute(
        f"select distinct relation, kind, repo, first_week, last_week from {PENDING} "
        "where list_contains(?, run_id)",
        [undo],
    ).fetchall()
    published = settings.warehouse_path
    with file_lock(_lock(published), exclusive=False):
        if published.exists():
            quoted_path = sql_string(str(published))  # ATTACH takes no parameter
            conn.execute(f"attach {quoted_path} as pub (read_only)")
        try:
            with transaction(conn):
                for relation, scopes in _by_relation(entries).items():
                    _sync(conn, relation, scopes, source="pub", target="work", missing_ok=True)
                conn.execute(f"delete from {PENDING} where list_contains(?, run_id)", [undo])
        finally:
            if published.exists():
                conn.execute("detach pub")


def _columns(conn: duckdb.DuckDBPyConnection, catalog: str, relation: str) -> list[tuple]:
    schema, name = relation.split(".")
    return conn.execute(
        "select column_name, data_type, table_type from information_schema.columns "
        "join information_schema.tables using (table_catalog, table_schema, table_name) "
        "where table_catalog = ? and table_schema = ? and table_name = ? "
        "order by ordinal_position",
        [catalog, schema, name],
    ).fetchall()


def _by_relation(entries: list[tuple]) -> dict[str, list[RunScope] | None]:
    """The notes per relation: the weeks noted, or None where the whole relation was."""
    noted: dict[str, list[RunScope] | None] = {}
    for relation, _, repo, first, last in entries:
        if repo is None:
            noted[relation] = None
        elif noted.setdefault(relation, []) is not None:
            noted[relation].append(RunScope(repo, first, last))
    return noted


def _sync(
    conn: duckdb.DuckDBPyConnection,
    relation: str,
    scopes: list[RunScope] | None,
    *,
    source: str,
    target: str,
    missing_ok: bool = False,
) -> None:
    """Make `target`'s copy of `relation` (or of its `scopes`' weeks) equal `source`'s: one
    delete and one insert for every repository's weeks, whatever their number."""
    have, want = _columns(conn, target, relation), _columns(conn, source, relation)
    if (have and have[0][2] == "VIEW") or (want and want[0][2] == "VIEW"):
        return  # views are made again by every build; nothing to copy
    if not want:
        if missing_ok and have:  # never published: it goes
            conn.execute(f"drop table {target}.{relation}")
        return
    schema = relation.split(".")[0]
    conn.execute(f"create schema if not exists {target}.{schema}")
    if scopes is None or have != want:
        conn.execute(
            f"create or replace table {target}.{relation} as select * from {source}.{relation}"
        )
        return
    params = {
        "repos": [s.repo for s in scopes],
        "firsts": [s.start_week for s in scopes],
        "lasts": [s.end_week for s in scopes],
    }
    conn.execute(f"delete from {target}.{relation} as t where {WEEKS_FILTER}", params)
    conn.execute(
        f"insert into {target}.{relation} by name "
        f"select * from {source}.{relation} as t where {WEEKS_FILTER}",
        params,
    )


def publish(session: BuildSession, say: Say) -> float:
    """Bring the readers' file up to date with this run; returns how long readers were held."""
    conn, published = session.conn, session.settings.warehouse_path
    entries = conn.execute(
        f"select distinct relation, kind, repo, first_week, last_week from {PENDING} "
        "where run_id = ? order by all",
        [session.run_id],
    ).fetchall()
    whole_file = not published.exists() or any(kind == REBUILT for _, kind, *_ in entries)
    held = 0.0
    if whole_file:
        _publish_file(session)
    else:
        try:
            held = _publish_weeks(conn, published, entries)
        except duckdb.IOException as error:  # a reader outside prweekly holds the file
            say(f"could not update {published} in place ({error}); replacing it whole")
            _publish_file(session)
    conn = session.conn  # _publish_file reopens it
    conn.execute(f"delete from {PENDING} where run_id = ?", [session.run_id])
    return held


def _publish_weeks(conn: duckdb.DuckDBPyConnection, published: Path, entries: list) -> float:
    with file_lock(_lock(published)):
        started = time.monotonic()
        quoted_path = sql_string(str(published))  # ATTACH takes no parameter
        conn.execute(f"attach {quoted_path} as pub")
        try:
            with transaction(conn):
                for relation, scopes in _by_relation(entries).items():
                    _sync(conn, relation, scopes, source="work", target="pub")
        finally:
            conn.execute("detach pub")
        return time.monotonic() - started


def _publish_file(session: BuildSession) -> None:
    """Copy the working copy whole (without its notes) and rename it over the readers' file."""
    work, published = work_path(session.settings), session.settings.warehouse_path
    session.conn.execute("checkpoint")
    session.conn.close()
    scratch = published.with_name(f".{published.name}.{uuid.uuid4().hex}.tmp")
    try:
        shutil.copyfile(work, scratch)
        copy = duckdb.connect(str(scratch))
        copy.execute("drop schema if exists _build cascade")
        copy.execute("checkpoint")
        copy.close()
        with open(scratch, "rb+") as handle:
            os.fsync(handle.fileno())
        with file_lock(_lock(published)):
            published.with_name(published.name + ".wal").unlink(missing_ok=True)
            os.replace(scratch, published)
    finally:
        scratch.unlink(missing_ok=True)
        session.conn = _connect(work)
