"""What the site shows, read from the marts, the editions and the report files (never staging)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.config import repo_slug
from orchestration.report.editions import Edition, read_editions_of
from orchestration.report.files import reported_weeks
from orchestration.report.queries import display_names
from orchestration.storage import Location

SPARK_WEEKS = 12
TOP_RISKS = 3


@dataclass
class SiteWeek:
    week_start: date
    merged_prs: int
    key_prs: int
    authors: int | None
    theme: str | None
    theme_zh: str | None
    key: list[dict] = field(default_factory=list)  # number, title, url, importance
    risks: list[tuple[str, int]] = field(default_factory=list)  # flag, PRs; most first
    # each language's editions, oldest first
    editions: dict[str, list[Edition]] = field(default_factory=lambda: {"en": [], "zh": []})


@dataclass
class SiteRepo:
    repo: str
    name: str  # GitHub's spelling
    slug: str
    weeks: list[SiteWeek]  # the reported weeks, newest first
    spark: list[tuple[date, int]]  # merged PRs of the last SPARK_WEEKS weeks, oldest first


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[tuple]:
    return conn.execute(sql, params).fetchall()


def _by_repo(
    conn: duckdb.DuckDBPyConnection, sql: str, params: list | None = None
) -> dict[str, list[tuple]]:
    """`sql`'s rows (the repository first) per repository, in their order."""
    grouped: dict[str, list[tuple]] = {}
    for repo, *row in _rows(conn, sql, params or []):
        grouped.setdefault(repo, []).append(tuple(row))
    return grouped


def _load_repo(
    reported: set[date],
    repo: str,
    summary: list[tuple],
    ranked: list[tuple],
    risks: list[tuple],
    editions: list[Edition],
    name: str,
) -> SiteRepo | None:
    """The repository's reported weeks with their headline facts; None if none is reported."""
    weeks = [SiteWeek(*row) for row in summary if row[0] in reported]
    if not weeks:
        return None
    by_week = {w.week_start: w for w in weeks}
    for week, number, title, url, importance, _ in ranked:  # each week's key PRs, in order
        w = by_week.get(week)
        if w is not None:
            w.key.append({"number": number, "title": title, "url": url, "importance": importance})
    for week, flag, prs in risks:
        w = by_week.get(week)
        if w is not None and len(w.risks) < TOP_RISKS:
            w.risks.append((flag, prs))
    for edition in editions:
        if edition.week_start in by_week:
            by_week[edition.week_start].editions.setdefault(edition.lang, []).append(edition)
    last = weeks[0].week_start
    spark = [(row[0], row[1]) for row in reversed(summary) if row[0] <= last][-SPARK_WEEKS:]
    return SiteRepo(repo, name, repo_slug(repo), weeks, spark)


def load_site(conn: duckdb.DuckDBPyConnection, reports_dir: Location) -> list[SiteRepo]:
    """Every repository with a report, by name."""
    # three queries for every repository at once: one each per repository took seconds at 100
    summary = _by_repo(
        conn,
        "select repo, week_start, merged_prs, key_prs, authors, theme, theme_zh "
        "from marts.fct_weekly_summary order by repo, week_start desc",
    )
    reported = {repo: set(reported_weeks(reports_dir, repo)) for repo in summary}
    # the key PRs and risks of the reported weeks only: the site shows no other week's, and
    # every week's cost the tick's site a fifth of its time (156,000 PRs for 200 weeks)
    pairs = [(repo, week) for repo, weeks in reported.items() for week in sorted(weeks)]
    shown = [[repo for repo, _ in pairs], [week for _, week in pairs]]
    reported_cte = (
        "with shown as (select unnest(?::varchar[]) as repo, unnest(?::date[]) as week_start) "
    )
    ranked = _by_repo(
        conn,
        reported_cte
        + """
        select p.repo, p.week_start, p.number, p.title, p.url, p.importance,
            row_number() over (
                partition by p.repo, p.week_start order by p.importance desc, p.number
            ) as rank
        from marts.fct_pull_requests p
        semi join shown s on s.repo = p.repo and s.week_start = p.week_start
        join marts.fct_weekly_summary w on w.repo = p.repo and w.week_start = p.week_start
        -- the key PRs (a breaking change or a release is key whatever its importance)
        where p.is_key
        qualify rank <= w.key_prs
        order by p.repo, p.week_start, rank
        """,
        shown,
    )
    risks = _by_repo(
        conn,
        reported_cte
        + """
        select r.repo, r.week_start, r.risk_flag, count(distinct r.number)
        from marts.fct_weekly_risks r
        semi join shown s on s.repo = r.repo and s.week_start = r.week_start
        group by all order by r.repo, r.week_start, 4 desc, 3
        """,
        shown,
    )
    # and each repository's editions and name, in one query each for them all
    editions = read_editions_of(conn, list(summary))
    names = display_names(conn, list(summary))
    repos = [
        _load_repo(
            reported[repo],
            repo,
            rows,
            ranked.get(repo, []),
            risks.get(repo, []),
            editions.get(repo, []),
            names.get(repo, repo),
        )
        for repo, rows in summary.items()
    ]
    return sorted((r for r in repos if r is not None), key=lambda r: r.repo)
