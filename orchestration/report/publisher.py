"""One report run's editions: the notes each week's report carries, and the editions it made.

Before a week is rendered, `notes` gives what the report says of itself (GitHub's count, the
correction box, corrections of earlier weeks, the weeks beside it); once rendered, `rendered`
records the edition each language's Markdown is. `save` stores the run's new editions.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

import duckdb

from orchestration.config import LANGUAGES, Settings
from orchestration.report.completeness import github_count
from orchestration.report.edition_book import Correction, EditionBook
from orchestration.report.editions import (
    Edition,
    read_editions_of,
    save_editions,
    week_facts,
    week_facts_of,
)
from orchestration.report.files import reported_weeks
from orchestration.report.notes import WeekNotes


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class ReportPublisher:
    def __init__(self, settings: Settings, clock: Callable[[], datetime] = _now) -> None:
        self.settings = settings
        self.clock = clock
        self.books: dict[str, EditionBook] = {}
        self.weeks: dict[str, set[date]] = {}
        self._pending: dict[tuple[str, date], tuple[dict, Correction | None, datetime]] = {}

    def plan(self, conn: duckdb.DuckDBPyConnection, repo: str, weeks: list[date]) -> None:
        """Load the repository's editions and reported weeks, with the weeks this run reports."""
        self.preload(conn, [repo])
        self.weeks[repo] |= set(weeks)

    def preload(self, conn: duckdb.DuckDBPyConnection, repos: list[str]) -> None:
        """Load the editions and reported weeks of those of `repos` not loaded yet, the editions
        in one query (one per repository cost a tick of 100 repositories a query each)."""
        new = [r for r in dict.fromkeys(repos) if r not in self.books]
        found = read_editions_of(conn, new)  # no query when none is new
        for repo in new:
            self.books[repo] = EditionBook(repo, found.get(repo, []))
            self.weeks[repo] = set(reported_weeks(self.settings.reports_dir, repo))

    def notes(
        self, conn: duckdb.DuckDBPyConnection, repo: str, week: date, prs: list[dict] | None = None
    ) -> WeekNotes:
        """The week's notes; `prs`, the week's rows of fct_pull_requests when already read."""
        self.plan(conn, repo, [week])
        book, now = self.books[repo], self.clock()
        facts = week_facts(conn, repo, week) if prs is None else week_facts_of(prs)
        correction = book.correction(week, facts, now)
        self._pending[(repo, week)] = (facts, correction, now)
        weeks = sorted(self.weeks[repo])
        return WeekNotes(
            merged=len(facts),
            count=github_count(self.settings.lake_dir, repo, week),
            correction=correction,
            earlier=book.earlier_corrections(week),
            previous_week=max((w for w in weeks if w < week), default=None),
            next_week=min((w for w in weeks if w > week), default=None),
        )

    def rendered(self, repo: str, week: date, files: dict[str, str]) -> None:
        facts, correction, now = self._pending.pop((repo, week))
        for lang in LANGUAGES:
            markdown = files[f"{week}.{lang}.md"]
            self.books[repo].record(week, lang, markdown, facts, correction, now)

    def new_editions(self) -> list[Edition]:
        return [e for book in self.books.values() for e in book.new]


def save_new_editions(
    settings: Settings,
    editions: list[Edition],
    say: Callable[[str], None],
    records: list = (),
    held: duckdb.DuckDBPyConnection | None = None,
) -> int:
    """Store a run's new editions (of one or several publishers) in the warehouse, with the
    record of the weeks it rendered (`render_record.RecordRow`); `held` is the working copy's
    connection while the run holds it (`warehouse.publish.write_both`)."""
    # imported here: a process that only renders reports needs neither it nor Dagster
    from orchestration.report.render_record import save_record
    from orchestration.warehouse.publish import write_both

    def write(conn: duckdb.DuckDBPyConnection) -> None:
        save_editions(conn, editions)
        if records:
            save_record(conn, list(records))

    if editions or records:
        write_both(settings, write, say, held)
    return len(editions)
