"""Everything a week's report says, read from the marts in a handful of queries.

The marts are the report's only input: what it prints (a PR's summary, whether it is key, the
trailing averages, the risk flags and their order, the weights it states) is a column of a mart,
documented and tested in sql/marts/marts.yml; nothing here applies a rule of its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import duckdb

HISTORY_WEEKS = 12
FACTOR_ORDER = ("size", "breadth", "type", "severity", "impact", "breaking")
FACTORS = (*FACTOR_ORDER, "core", "surface", "review", "dampener")


class WeekNotBuilt(LookupError):
    """The warehouse holds no row of fct_weekly_summary for the week asked for."""


@dataclass
class WeekFacts:
    repo: str
    week_start: date
    summary: dict
    prs: list[dict]
    risks: list[dict]
    trends: list[dict]
    key_threshold: float  # fct_weekly_summary: the importance from which a PR is key
    trailing_weeks: int  # fct_weekly_summary: the weeks the trailing averages cover
    # (week_start, merged_prs, {primary_area: prs}) for the weeks of the chart, oldest first
    history: list[tuple[date, int, dict[str, int]]] = field(default_factory=list)
    trailing_avg_prs: float | None = None
    volume_trend: str | None = None
    weights: dict[str, float] = field(default_factory=dict)  # dim_importance_weights
    # the risk flags in their listing order, each with its severity rank (dim_risk_flags)
    flag_ranks: dict[str, int] = field(default_factory=dict)
    # every importance factor the mart stores, in the report's order (also for an empty week)
    factor_names: list[str] = field(default_factory=lambda: list(FACTORS))
    # the week's topics (fct_weekly_topics) with PRs, each with its PRs as `prs`, busiest first
    topics: list[dict] = field(default_factory=list)
    # the week's stories (fct_weekly_stories), most important first; [] before they existed
    stories: list[dict] = field(default_factory=list)
    # the language model's checked text for the week (orchestration.narrative), or None
    narrative: Any = None

    @property
    def week_end(self) -> date:
        return self.week_start + timedelta(days=6)

    @property
    def flags(self) -> list[str]:
        return list(self.flag_ranks)

    @property
    def key_prs(self) -> list[dict]:
        return [p for p in self.prs if p["is_key"]]


def _factor_order(column: str) -> tuple[int, str]:
    name = column.removeprefix("importance_")
    return (FACTOR_ORDER.index(name) if name in FACTOR_ORDER else len(FACTOR_ORDER), name)


def _factor_columns(columns: list[str]) -> list[str]:
    """The importance_* columns among `columns` (fct_pull_requests'), in report order."""
    return sorted((c for c in columns if c.startswith("importance_")), key=_factor_order)


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    return _columns_and_rows(conn, sql, params)[1]


def _columns_and_rows(
    conn: duckdb.DuckDBPyConnection, sql: str, params: list | None = None
) -> tuple[list[str], list[dict]]:
    cursor = conn.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return names, [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _pairs(conn: duckdb.DuckDBPyConnection, sql: str) -> dict:
    return dict(conn.execute(sql).fetchall())


def _topics(
    conn: duckdb.DuckDBPyConnection, repo: str, week_start: date, prs: list[dict]
) -> list[dict]:
    """The week's topics, each with its PRs (most important first); [] for a warehouse built
    before topics existed."""
    try:
        topics = _rows(
            conn,
            """
            select topic, topic_en, topic_zh, pr_count, importance_sum, trailing_avg, trend, numbers
            from marts.fct_weekly_topics
            where repo = ? and week_start = ? and pr_count > 0
            order by pr_count desc, importance_sum desc, topic
            """,
            [repo, week_start],
        )
    except duckdb.CatalogException:
        return []
    by_number = {pr["number"]: pr for pr in prs}
    for topic in topics:
        topic["prs"] = [by_number[n] for n in topic["numbers"] if n in by_number]
    return topics


def _stories(conn: duckdb.DuckDBPyConnection, repo: str, week_start: date) -> list[dict]:
    """The week's stories (related PRs told once); [] for a warehouse built before them."""
    try:
        return _rows(
            conn,
            """
            select *
            from marts.fct_weekly_stories
            where repo = ? and week_start = ?
            order by importance desc, story_id
            """,
            [repo, week_start],
        )
    except duckdb.CatalogException:
        return []


def display_name(conn: duckdb.DuckDBPyConnection, repo: str) -> str:
    """The spelling of `repo` that GitHub uses (or the user registered), for the reader."""
    try:
        row = conn.execute(
            "select display_name from marts.dim_repositories where repo = ?", [repo]
        ).fetchone()
    except duckdb.CatalogException:  # a warehouse built before the table existed
        row = None
    return row[0] if row else repo


def load_week(conn: duckdb.DuckDBPyConnection, repo: str, week_start: date) -> WeekFacts:
    first = week_start - timedelta(weeks=HISTORY_WEEKS - 1)
    # the week's summary, then only the counts of the chart's weeks: the other weeks' lists
    # of structs cost more to read as Python values than a second query
    summary = _rows(
        conn,
        "select * from marts.fct_weekly_summary where repo = ? and week_start = ?",
        [repo, week_start],
    )
    weeks = conn.execute(
        """
        select week_start, merged_prs from marts.fct_weekly_summary
        where repo = ? and week_start between ? and ?
        order by week_start
        """,
        [repo, first, week_start],
    ).fetchall()
    columns, prs = _columns_and_rows(
        conn,
        """
        select *
        from marts.fct_pull_requests
        where repo = ? and week_start = ?
        order by importance desc, number
        """,
        [repo, week_start],
    )
    factor_columns = _factor_columns(columns)
    factor_names = [c.removeprefix("importance_") for c in factor_columns]
    for rank, pr in enumerate(prs, start=1):
        pr["rank"] = rank
        pr["factors"] = {
            name: float(pr[column] or 0)
            for name, column in zip(factor_names, factor_columns, strict=True)
        }
    risks = _rows(
        conn,
        """
        select r.risk_flag, r.number, r.reason, r.reason_key, r.evidence
        from marts.fct_weekly_risks r
        where r.repo = ? and r.week_start = ?
        order by r.risk_flag, r.number
        """,
        [repo, week_start],
    )
    for risk in risks:  # JSON text from DuckDB: the values the reason is worded from
        risk["evidence"] = json.loads(risk["evidence"]) if risk["evidence"] else {}
    trends = _rows(
        conn,
        """
        select *
        from marts.fct_weekly_area_trends
        where repo = ? and week_start = ? and pr_count > 0
        order by pr_count desc, importance_sum desc, area
        """,
        [repo, week_start],
    )
    per_area = conn.execute(
        """
        select week_start, primary_area, count(*)
        from marts.fct_pull_requests
        where repo = ? and week_start between ? and ?
        group by all
        """,
        [repo, first, week_start],
    ).fetchall()
    areas_by_week: dict[date, dict[str, int]] = {}
    for week, area, count in per_area:
        areas_by_week.setdefault(week, {})[area] = count
    history = [(week, prs, areas_by_week.get(week, {})) for week, prs in weeks]

    if not summary:
        raise WeekNotBuilt(f"the warehouse holds no week {week_start} of {repo}: build it first")
    row = summary[0]
    trailing = row["trailing_avg_prs"]
    return WeekFacts(
        repo=display_name(conn, repo),
        week_start=week_start,
        summary=row,
        prs=prs,
        risks=risks,
        trends=trends,
        key_threshold=float(row["key_threshold"]),
        trailing_weeks=int(row["trailing_weeks"]),
        history=history,
        trailing_avg_prs=None if trailing is None else float(trailing),
        volume_trend=row["volume_trend"],
        weights={
            k: float(v)
            for k, v in _pairs(
                conn, "select factor, weight from marts.dim_importance_weights"
            ).items()
        },
        flag_ranks=_pairs(
            conn, "select risk_flag, severity_rank from marts.dim_risk_flags order by position"
        ),
        factor_names=factor_names,
        topics=_topics(conn, repo, week_start, prs),
        stories=_stories(conn, repo, week_start),
    )
