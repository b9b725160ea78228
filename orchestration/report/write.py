"""Writing a run's reports: each week's files, the earlier and later weeks whose facts the
run changed, and many repositories' weeks shared out among a few processes.

Kept apart from the Dagster asset so that a process rendering a share imports no Dagster."""

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date, timedelta
from multiprocessing import get_context

import duckdb

from orchestration.config import LANGUAGES, Settings, repo_slug
from orchestration.database import connect
from orchestration.extract.history import history_weeks, rebuild_scope
from orchestration.narrative.report import load_narrative
from orchestration.report.editions import Edition
from orchestration.report.publisher import ReportPublisher
from orchestration.report.queries import WeekReader
from orchestration.report.render import (
    appendix_name,
    chart_name,
    render_week,
    write_atomic,
)
from orchestration.report.render_record import RecordRow, RenderRecord
from orchestration.run_scope import RunScope
from orchestration.storage import Location, delete, join, read_bytes
from orchestration.warehouse.checks import blocked_reason, blocked_weeks, failing_weeks
from orchestration.weeks import weeks_between

REPORT_PROCESSES = 4  # at most, and no more than the machine's cores
MIN_WEEKS_PER_PROCESS = 16  # fewer weeks are rendered sooner than a process starts
Say = Callable[[str], None]


def write_week(
    conn: duckdb.DuckDBPyConnection,
    reports_dir: Location,
    repo: str,
    week: date,
    only_changed: bool = False,
    publisher: ReportPublisher | None = None,
    record: RenderRecord | None = None,
    reader: WeekReader | None = None,
) -> dict[str, tuple[Location, int, str]]:
    """Render one week and write its files (with `only_changed`, those whose text differs from
    the file's); {file name: (path, bytes, text)} of the files written. With `publisher`, the
    report carries its notes (completeness, corrections, links) and is recorded as an edition.
    With `record`, a week whose inputs are those of its files is kept as it is (nothing
    written). `reader` reads the week with the others it was given (a run's)."""
    folder = join(reports_dir, repo_slug(repo))
    facts = (reader or WeekReader(conn, []))(repo, week)
    notes = publisher.notes(conn, repo, week, facts.prs) if publisher else None
    facts.narrative = load_narrative(conn, repo, week)  # None without a language model
    if record is not None and record.unchanged(conn, folder, repo, facts, notes):
        return {}
    files = render_week(facts, notes)
    if publisher:
        publisher.rendered(repo, week, files)
    # an empty week has no chart and no appendix page: drop those left from before, and the
    # one chart for both languages that reports before per-language charts linked
    stale = [chart_name(week, lang) for lang in LANGUAGES] + [f"{week}.areas.svg"]
    for name in stale + [appendix_name(week, lang) for lang in LANGUAGES]:
        if name not in files:
            delete(join(folder, name))
    written = {}
    for name, text in files.items():
        path = join(folder, name)
        if only_changed and read_bytes(path) == text.encode("utf-8"):
            continue
        written[name] = (path, write_atomic(path, text), text)
    if record is not None:
        record.rendered(repo, week, files)
    return written


def weeks_to_refresh(
    conn: duckdb.DuckDBPyConnection, reports_dir: Location, scope: RunScope, rebuilt: RunScope
) -> list[date]:
    """Reported weeks outside the run whose facts the run may have changed: every later week
    the models rebuilt (trends, hotspots, first-time authors compare with the run's weeks), and
    the earlier weeks holding a PR that a PR of the run reverts or follows up."""
    return reported(reports_dir, scope.repo, refresh_candidates(conn, [(scope, rebuilt)])[0])


def reported(reports_dir: Location, repo: str, weeks: list[date]) -> list[date]:
    """Those of `weeks` that have a report."""
    folder = join(reports_dir, repo_slug(repo))
    return [w for w in weeks if read_bytes(join(folder, f"{w}.en.md")) is not None]


def refresh_candidates(
    conn: duckdb.DuckDBPyConnection, runs: list[tuple[RunScope, RunScope]]
) -> list[list[date]]:
    """`weeks_to_refresh` of each (scope, rebuilt) before the look for their reports, in two
    queries for them all (two per repository cost a tick of 100 repositories a second)."""
    if not runs:
        return []
    since = timedelta(weeks=history_weeks())
    marks = ", ".join(["(?, ?, ?::date, ?::date, ?::date, ?::date)"] * len(runs))
    params = []
    for i, (scope, rebuilt) in enumerate(runs):
        params += [i, scope.repo, scope.start_week, scope.end_week, rebuilt.end_week]
        params.append(rebuilt.start_week - since)
    later = conn.execute(
        f"""
        with runs as (select * from (values {marks}) s(i, repo, first, last, rebuilt_end, since))
        select s.i, w.week_start
        from runs s join marts.fct_weekly_summary w
            on w.repo = s.repo and w.week_start > s.last and w.week_start <= s.rebuilt_end
        """,
        params,
    ).fetchall()
    # each run's PRs as one list, which each earlier PR's reverts and follow-ups are tested
    # against (a join on list_contains cost a third more)
    earlier = conn.execute(
        f"""
        with runs as (select * from (values {marks}) s(i, repo, first, last, rebuilt_end, since)),
        run as (
            select s.i, list(p.number) as numbers
            from runs s join marts.fct_pull_requests p
                on p.repo = s.repo and p.week_start between s.first and s.last
            group by s.i
        )
        select distinct s.i, p.week_start
        from runs s join run using (i) join marts.fct_pull_requests p
            on p.repo = s.repo and p.week_start >= s.since and p.week_start < s.first
        where list_has_any(p.reverted_by, run.numbers)
           or list_has_any(p.followed_up_by, run.numbers)
        """,
        params,
    ).fetchall()
    found: list[set[date]] = [set() for _ in runs]
    for i, week in earlier + later:
        found[i].add(week)
    return [sorted(weeks) for weeks in found]


@dataclass
class Rendered:
    """What writing some repositories' reports did, for the step's log and metadata."""

    written: list[tuple[Location, int]] = field(default_factory=list)
    last: dict[str, str] = field(default_factory=dict)  # the last Markdown, per language
    refreshed: list[str] = field(default_factory=list)
    # weeks not reported, as their facts failed data tests: (repository, week, why)
    blocked: list[tuple[str, str, str]] = field(default_factory=list)
    editions: list[Edition] = field(default_factory=list)
    records: list[RecordRow] = field(default_factory=list)  # the weeks rendered, by inputs
    kept: list[tuple[str, date]] = field(default_factory=list)  # the weeks left as they were


def write_reports(settings: Settings, scopes: list[RunScope], say: Say | None = None) -> Rendered:
    """Write the reports of `scopes`' weeks and of the other weeks whose facts they changed;
    the new editions are returned, not saved."""
    out = Rendered()
    publisher, record = ReportPublisher(settings), RenderRecord()

    def refresh(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> None:
        if failed := blocked_weeks(conn, repo, week):  # keep its previous report
            out.blocked.append(blocked_reason(repo, week, failed))
            return
        changed = write_week(
            conn, settings.reports_dir, repo, week, True, publisher, record, reader
        )
        if changed:
            out.refreshed.append(f"{repo} {week}")
            out.written.extend((path, size) for path, size, _ in changed.values())

    with connect(settings.warehouse_path, read_only=True, on_wait=say) as conn:
        # the run's weeks read a few dozen at a time, in the order they are rendered
        run_weeks = [(s.repo, w) for s in scopes for w in weeks_between(s.start_week, s.end_week)]
        reader = WeekReader(conn, run_weeks)
        publisher.preload(conn, [s.repo for s in scopes])
        rebuilt = [(s, rebuild_scope(s, settings.lake_dir, history_weeks())) for s in scopes]
        candidates = refresh_candidates(conn, rebuilt)
        for scope, outside in zip(scopes, candidates, strict=True):
            weeks = weeks_between(scope.start_week, scope.end_week)
            others = reported(settings.reports_dir, scope.repo, outside)
            publisher.plan(conn, scope.repo, weeks)
            failing = failing_weeks(conn, scope.repo, weeks)
            # earlier weeks first: the run's reports list the corrections made to them
            for week in [w for w in others if w < scope.start_week]:
                refresh(conn, scope.repo, week)
            for week in weeks:
                failed = failing.get(week, [])
                if failed:  # its facts failed a data test: keep the previous report
                    out.blocked.append(blocked_reason(scope.repo, week, failed))
                    continue
                week_files = write_week(
                    conn,
                    settings.reports_dir,
                    scope.repo,
                    week,
                    publisher=publisher,
                    record=record,
                    reader=reader,
                )
                for name, (path, size, text) in week_files.items():
                    out.written.append((path, size))
                    for lang in LANGUAGES:
                        if name.endswith(f".{lang}.md"):
                            out.last[lang] = text
            for week in [w for w in others if w > scope.end_week]:
                refresh(conn, scope.repo, week)
    out.editions = publisher.new_editions()
    out.records, out.kept = record.new, record.kept
    return out


def write_reports_shared(settings: Settings, scopes: list[RunScope], say: Say) -> Rendered:
    """`write_reports`, the repositories shared out among a few processes when there are many
    weeks to render (a week takes about a tenth of a second of one core): this process renders
    the last share while new ones render the others. Their results are put together in the
    repositories' order, as one process would have written them."""
    weeks = sum(len(weeks_between(s.start_week, s.end_week)) for s in scopes)
    repos = list(dict.fromkeys(s.repo for s in scopes))  # each repository in one share
    workers = min(os.cpu_count() or 1, REPORT_PROCESSES, weeks // MIN_WEEKS_PER_PROCESS)
    workers = min(workers, len(repos))
    if workers < 2:
        return write_reports(settings, scopes, say)
    share_of = {repo: index * workers // len(repos) for index, repo in enumerate(repos)}
    shares = [[s for s in scopes if share_of[s.repo] == n] for n in range(workers)]
    with ProcessPoolExecutor(workers - 1, mp_context=get_context("spawn")) as pool:
        others = [pool.submit(write_reports, settings, share) for share in shares[:-1]]
        last = write_reports(settings, shares[-1], say)
        parts = [other.result() for other in others] + [last]
    whole = Rendered()
    for part in parts:
        whole.written += part.written
        whole.last |= part.last
        whole.refreshed += part.refreshed
        whole.blocked += part.blocked
        whole.editions += part.editions
        whole.records += part.records
        whole.kept += part.kept
    return whole
