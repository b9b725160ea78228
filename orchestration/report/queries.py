"""Everything a week's report says, read from the marts in a handful of queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

import duckdb

HISTORY_WEEKS = 12
TRAILING_WEEKS = 4


@dataclass
class WeekFacts:
    repo: str
    week_start: date
    summary: dict
    prs: list[dict]
    risks: list[dict]
    trends: list[dict]
    history: list[dict] = field(default_factory=list)
    trailing_avg_prs: float | None = None

    @property
    def week_end(self) -> date:
        return self.week_start + timedelta(days=6)

    @property
    def key_prs(self) -> list[dict]:
        return [p for p in self.prs if p["is_key"]]


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def load_week(conn: duckdb.DuckDBPyConnection, repo: str, week_start: date) -> WeekFacts:
    summary = _rows(
        conn,
        "select * from marts.fct_weekly_summary where repo = ? and week_start = ?",
        [repo, week_start],
    )
    (threshold,) = conn.execute(
        "select weight from seeds.importance_weights where factor = 'key_threshold'"
    ).fetchone()
    prs = _rows(
        conn,
        """
        select *, importance >= ? as is_key
        from marts.fct_pull_requests
        where repo = ? and week_start = ?
        order by importance desc, number
        """,
        [threshold, repo, week_start],
    )
    risks = _rows(
        conn,
        """
        select r.risk_flag, r.number, r.reason, p.title, p.url, p.importance
        from marts.fct_weekly_risks r
        join marts.fct_pull_requests p using (repo, number)
        where r.repo = ? and r.week_start = ?
        order by r.risk_flag, p.importance desc, r.number
        """,
        [repo, week_start],
    )
    trends = _rows(
        conn,
        """
        select area, pr_count, importance_sum, trailing_avg, trend
        from marts.fct_weekly_area_trends
        where repo = ? and week_start = ?
        order by pr_count desc, importance_sum desc, area
        """,
        [repo, week_start],
    )
    history = _rows(
        conn,
        """
        select week_start, area, pr_count
        from marts.fct_weekly_area_trends
        where repo = ? and week_start between ? and ? and pr_count > 0
        order by week_start, area
        """,
        [repo, week_start - timedelta(weeks=HISTORY_WEEKS - 1), week_start],
    )
    (trailing,) = conn.execute(
        """
        select avg(merged_prs) from marts.fct_weekly_summary
        where repo = ? and week_start >= ? and week_start < ?
        """,
        [repo, week_start - timedelta(weeks=TRAILING_WEEKS), week_start],
    ).fetchone()
    return WeekFacts(
        repo=repo,
        week_start=week_start,
        summary=summary[0] if summary else {"merged_prs": 0, "key_prs": 0},
        prs=prs,
        risks=risks,
        trends=trends,
        history=history,
        trailing_avg_prs=None if trailing is None else float(trailing),
    )
