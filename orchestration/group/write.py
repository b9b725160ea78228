"""Writing a run's group reports: each group holding a repository of the run, for the run's
weeks and the weeks whose repository reports the run rewrote, each week an edition.

Kept apart from the Dagster asset, like the repositories' report writer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import duckdb

from orchestration.config import LANGUAGES, Settings
from orchestration.database import connect
from orchestration.group.editions import GroupNotes, group_changes, group_facts
from orchestration.group.queries import group_weeks, load_group_week
from orchestration.group.render import render_group_week
from orchestration.group.site import group_dir, reported_group_weeks
from orchestration.report.edition_book import EditionBook
from orchestration.report.editions import Edition, read_editions
from orchestration.report.files import reported_weeks
from orchestration.repositories.groups import Group, groups_with
from orchestration.repositories.registry import load_groups
from orchestration.run_scope import RunScope
from orchestration.storage import Location, join, read_bytes, write_bytes
from orchestration.weeks import weeks_between

Say = Callable[[str], None]
# the group marts (tables across repositories, assets without partitions of their own) and
# the model they read of the repositories' facts: a failed data test of one of them in a week
# keeps that week's group reports as they were
GROUP_MARTS = (
    "dim_groups",
    "fct_weekly_group_repositories",
    "fct_weekly_group_summary",
    "fct_weekly_group_stories",
    "fct_weekly_group_risks",
)
GROUP_MODELS = ("int_weekly_repo_digest", *GROUP_MARTS)


@dataclass
class GroupRendered:
    written: list[tuple[Location, int]] = field(default_factory=list)
    last: dict[str, str] = field(default_factory=dict)  # the last Markdown, per language
    editions: list[Edition] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # "group week" not written, and why
    groups: int = 0


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def weeks_of_run(
    groups: list[Group], scopes: list[RunScope], refreshed: list[str]
) -> dict[str, set[date]]:
    """Per group holding a repository of the run: the run's weeks of its repositories, and
    the weeks of their reports the run wrote again (`refreshed`: "repo week")."""
    by_repo: dict[str, set[date]] = {}
    for scope in scopes:
        by_repo.setdefault(scope.repo, set()).update(
            weeks_between(scope.start_week, scope.end_week)
        )
    for item in refreshed:
        repo, _, week = item.rpartition(" ")
        by_repo.setdefault(repo, set()).add(date.fromisoformat(week))
    wanted: dict[str, set[date]] = {}
    for group in groups_with(groups, set(by_repo)):
        wanted[group.name] = set().union(*(by_repo.get(r, set()) for r in group.repositories))
    return wanted


def _blocked(conn: duckdb.DuckDBPyConnection, week: date) -> list[tuple]:
    try:
        return conn.execute(
            "select model, test, example from checks.failures "
            "where (week_start = ? or week_start is null) and list_contains(?, model) "
            "order by all",
            [week, list(GROUP_MODELS)],
        ).fetchall()
    except duckdb.CatalogException:
        return []


def write_group_week(
    conn: duckdb.DuckDBPyConnection,
    reports_dir: Location,
    group: Group,
    week: date,
    book: EditionBook,
    weeks: list[date],
    now: datetime,
    repo_weeks: dict[str, set[date]],
) -> dict[str, tuple[Location, int, str]]:
    """Render one group week, record its editions in `book` and write the files that changed."""
    g = load_group_week(conn, group.name, week)
    g.reported = {repo for repo in group.repositories if week in repo_weeks[repo]}
    facts = group_facts(g)
    correction = book.correction(week, facts, now)
    notes = GroupNotes(
        correction=correction,
        previous_week=max((w for w in weeks if w < week), default=None),
        next_week=min((w for w in weeks if w > week), default=None),
    )
    files = render_group_week(g, notes)
    for lang in LANGUAGES:
        book.record(week, lang, files[f"{week}.{lang}.md"], facts, correction, now)
    folder = group_dir(reports_dir, group.name)
    written = {}
    for name, text in files.items():
        path = join(folder, name)
        data = text.encode("utf-8")
        if read_bytes(path) != data:
            written[name] = (path, write_bytes(path, data), text)
    return written


def write_group_reports(
    settings: Settings,
    scopes: list[RunScope],
    refreshed: list[str] | None = None,
    say: Say | None = None,
    clock: Callable[[], datetime] = _now,
) -> GroupRendered:
    """Write the reports of the run's groups and weeks (with no scope, as when the asset is
    materialised alone, every group's latest week); the new editions are returned."""
    out = GroupRendered()
    groups = {g.name: g for g in load_groups(settings.home)}
    wanted = weeks_of_run(list(groups.values()), scopes, refreshed or [])
    if not settings.warehouse_path.exists() or not (wanted or not scopes):
        return out
    with connect(settings.warehouse_path, read_only=True, on_wait=say) as conn:
        if not scopes:
            latest = {name: group_weeks(conn, name)[-1:] for name in groups}
            wanted = {name: set(weeks) for name, weeks in latest.items() if weeks}
        for name, weeks in sorted(wanted.items()):
            group = groups[name]
            known = set(group_weeks(conn, name))
            todo = sorted(weeks & known)
            if not todo:
                continue
            out.groups += 1
            book = EditionBook(group.key, read_editions(conn, group.key), diff=group_changes)
            reported = sorted(set(reported_group_weeks(settings.reports_dir, name)) | set(todo))
            repo_weeks = {
                r: set(reported_weeks(settings.reports_dir, r)) for r in group.repositories
            }
            now = clock()
            for week in todo:
                if failed := _blocked(conn, week):
                    tests = "; ".join(
                        f"{test} on {model}: {example}" for model, test, example in failed[:3]
                    )
                    out.blocked.append(f"{name} {week} ({tests})")
                    continue
                files = write_group_week(
                    conn, settings.reports_dir, group, week, book, reported, now, repo_weeks
                )
                for file_name, (path, size, text) in files.items():
                    out.written.append((path, size))
                    for lang in LANGUAGES:
                        if file_name.endswith(f".{lang}.md"):
                            out.last[lang] = text
            out.editions += book.new
    return out
