"""The delivery ledger: `delivery.sent_editions`, one row per edition sent to a target.

It lives in the warehouse, so `prweekly sql` answers "what went out, when, where". A build
publishes its working copy over the readers' file whole at times (warehouse/session.py), so each
row is written to both files, under the working copy's lock and then the readers' file's: a
later whole publish carries the row over, and a working copy made again from the readers' file
has it too. Reads take the union of both. No secret is stored: a target is only its kind.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from orchestration.config import Settings
from orchestration.database import apply_duckdb_init
from orchestration.storage import file_lock
from orchestration.warehouse.session import work_path

TABLE = "delivery.sent_editions"
FAILURES = "delivery.failed_deliveries"  # tried and failed: retried by the next run
_CREATE = f"""
create schema if not exists delivery;
create table if not exists {TABLE} (
    repo varchar not null,
    week_start date not null,
    target varchar not null,      -- slack, email or github
    language varchar not null,
    edition varchar not null,     -- sha256 of the edition's rendered Markdown
    correction boolean not null,  -- a changed edition of a week this target already had
    sent_at timestamp with time zone not null,
    provider_id varchar,          -- Slack's answer, the email's Message-ID, GitHub's node id
    thread_id varchar             -- GitHub: the discussion or issue that corrections go to
);
create table if not exists {FAILURES} (
    repo varchar not null,
    week_start date not null,
    target varchar not null,
    edition varchar not null,
    failed_at timestamp with time zone not null,
    attempts integer not null,
    error varchar not null        -- with every secret the target uses blanked out
)
"""


@dataclass(frozen=True)
class Sent:
    repo: str
    week_start: date
    target: str
    language: str
    edition: str
    correction: bool
    sent_at: datetime
    provider_id: str | None
    thread_id: str | None


def _lock(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _files(settings: Settings) -> list[Path]:
    """The working copy first (a lock order the build's publish also keeps), then readers'."""
    return [p for p in (work_path(settings), settings.warehouse_path) if p.exists()]


def _open(path: Path) -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect(str(path))
    apply_duckdb_init(conn)
    return conn


class Ledger:
    """One repository's deliveries and failures, read once; each new row written through."""

    def __init__(self, settings: Settings, repo: str, say: Callable[[str], None]) -> None:
        self.settings, self.repo, self.say = settings, repo, say
        self.sent: set[Sent] = set()
        self.failures: set[tuple] = set()  # (week_start, target, failed_at)
        for path in _files(settings):
            with file_lock(_lock(path), exclusive=False, on_wait=say, waiting_message=_busy(path)):
                conn = duckdb.connect(str(path), read_only=True)
                try:
                    apply_duckdb_init(conn)
                    if _has_tables(conn):
                        query = f"select * from {TABLE} where repo = ?"
                        self.sent |= {Sent(*r) for r in conn.execute(query, [repo]).fetchall()}
                        self.failures |= set(
                            conn.execute(
                                f"select week_start, target, failed_at from {FAILURES} "
                                "where repo = ?",
                                [repo],
                            ).fetchall()
                        )
                finally:
                    conn.close()

    def sent_to(self, week: date, target: str) -> list[Sent]:
        """What `target` has received of the week, oldest first."""
        found = [s for s in self.sent if s.week_start == week and s.target == target]
        return sorted(found, key=lambda s: (s.sent_at, s.edition))

    def weeks_to_revisit(self, first: date, last: date) -> list[date]:
        """Weeks between `first` and `last` that went out before (their edition may have
        changed since), and weeks of any date whose last delivery to a target failed."""
        done: dict[tuple, datetime] = {}
        for s in self.sent:
            done[(s.week_start, s.target)] = max(
                s.sent_at, done.get((s.week_start, s.target), s.sent_at)
            )
        pending = {w for w, t, at in self.failures if (w, t) not in done or done[(w, t)] < at}
        return sorted({s.week_start for s in self.sent if first <= s.week_start <= last} | pending)

    def record(self, entry: Sent) -> None:
        _write(
            self.settings,
            f"insert into {TABLE} values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [entry.repo, entry.week_start, entry.target, entry.language, entry.edition,
             entry.correction, entry.sent_at, entry.provider_id, entry.thread_id],
            self.say,
        )  # fmt: skip
        self.sent.add(entry)

    def record_failure(self, week: date, target: str, edition: str, attempts: int, error: str):
        at = now()
        _write(
            self.settings,
            f"insert into {FAILURES} values (?, ?, ?, ?, ?, ?, ?)",
            [self.repo, week, target, edition, at, attempts, error],
            self.say,
        )
        self.failures.add((week, target, at))


def _write(settings: Settings, statement: str, params: list, say: Callable) -> None:
    """Run `statement` on the working copy and on the readers' file, each in one transaction."""
    paths = _files(settings) or [settings.warehouse_path]
    work = work_path(settings)
    # the working copy's lock is held throughout, so no publish replaces the readers' file
    # between the two writes
    with file_lock(_lock(work), on_wait=say, waiting_message=_busy(work)):
        for path in paths:
            with ExitStack() as held:
                if path != work:
                    held.enter_context(
                        file_lock(_lock(path), on_wait=say, waiting_message=_busy(path))
                    )
                conn = _open(path)
                try:
                    conn.execute(_CREATE)
                    conn.execute(statement, params)
                finally:
                    conn.close()


def now() -> datetime:
    return datetime.now(UTC)


def _has_tables(conn: duckdb.DuckDBPyConnection) -> bool:
    (count,) = conn.execute(
        "select count(*) from information_schema.tables where table_schema = 'delivery' "
        "and table_name in ('sent_editions', 'failed_deliveries')"
    ).fetchone()
    return count == 2


def _busy(path: Path) -> str:
    return f"{path.name} is busy with another prweekly process; waiting for it to finish..."
