"""Everything a group's weekly report says, read from the group marts in a few queries.

Like a repository's report, it reads the marts and nothing else: which repositories are
busiest or newly quiet, how stories compare across repositories, which risks recur, who is new
are columns of fct_weekly_group_* (sql/marts/groups.yml); nothing here applies a rule of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

import duckdb


class GroupWeekNotBuilt(LookupError):
    """The warehouse holds no row of fct_weekly_group_summary for the group and week."""


@dataclass
class GroupWeek:
    group: str
    week_start: date
    summary: dict
    repos: list[dict]  # fct_weekly_group_repositories, in the group's order
    stories: list[dict]  # fct_weekly_group_stories, by group_rank
    risks: list[dict]  # fct_weekly_group_risks, by rank
    # the repositories' own reports of the week (their identities): the lines link to them
    reported: set[str] = field(default_factory=set)

    @property
    def week_end(self) -> date:
        return self.week_start + timedelta(days=6)

    @property
    def releases(self) -> list[dict]:
        return list(self.summary["releases"] or [])

    @property
    def busiest(self) -> list[dict]:
        return sorted((r for r in self.repos if r["is_busiest"]), key=lambda r: r["busy_rank"])

    @property
    def newly_quiet(self) -> list[dict]:
        return [r for r in self.repos if r["is_newly_quiet"]]

    def lead_of(self, repo: str) -> dict | None:
        """The repository's first story of the week (the one its line names)."""
        return next((s for s in self.stories if s["repo"] == repo and s["is_repo_lead"]), None)


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def group_weeks(conn: duckdb.DuckDBPyConnection, group: str) -> list[date]:
    """The group's weeks in the warehouse, oldest first; none before the marts exist."""
    try:
        rows = conn.execute(
            "select week_start from marts.fct_weekly_group_summary where group_name = ? "
            "order by week_start",
            [group],
        ).fetchall()
    except duckdb.CatalogException:
        return []
    return [week for (week,) in rows]


def load_group_week(conn: duckdb.DuckDBPyConnection, group: str, week: date) -> GroupWeek:
    summary = _rows(
        conn,
        "select * from marts.fct_weekly_group_summary where group_name = ? and week_start = ?",
        [group, week],
    )
    if not summary:
        raise GroupWeekNotBuilt(f"the warehouse holds no week {week} of group {group}")
    params = [group, week]
    repos = _rows(
        conn,
        "select * from marts.fct_weekly_group_repositories "
        "where group_name = ? and week_start = ? order by position",
        params,
    )
    stories = _rows(
        conn,
        "select * from marts.fct_weekly_group_stories "
        "where group_name = ? and week_start = ? order by group_rank",
        params,
    )
    risks = _rows(
        conn,
        "select * from marts.fct_weekly_group_risks "
        "where group_name = ? and week_start = ? order by rank",
        params,
    )
    return GroupWeek(group, week, summary[0], repos, stories, risks)
