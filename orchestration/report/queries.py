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
# the columns of fct_pull_requests a report reads, and every importance_* factor: the other
# half of its 61 columns feed other models, and reading them cost a fifth of the week's load;
# a column a warehouse lacks is left out (a regular expression, not a list)
PR_COLUMNS = (
    *("number", "title", "url", "author", "change_type", "primary_area", "areas"),
    *("is_breaking", "additions", "deletions", "changed_files", "importance", "risk_flags"),
    *("reverted_by", "severity_word", "severity_consequence", "impact_claims"),
    *("headline_claim", "caveats", "is_release", "release_version", "summary", "is_key"),
)
_PR_SELECT = f"columns('^({'|'.join(PR_COLUMNS)}|importance_.+)$')"


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


RepoWeek = tuple[str, date]


def _keyed(
    conn: duckdb.DuckDBPyConnection, sql: str, params: list
) -> tuple[list[str], dict[RepoWeek, list[dict]]]:
    """Rows of `sql` (which selects `repo, week_start` first, then the row's own columns) by
    (repo, week), in the query's order; the rows hold only their own columns."""
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description][2:]
    by_week: dict[RepoWeek, list[dict]] = {}
    for row in cursor.fetchall():
        by_week.setdefault((row[0], row[1]), []).append(dict(zip(names, row[2:], strict=True)))
    return names, by_week


def _pairs(conn: duckdb.DuckDBPyConnection, sql: str) -> dict:
    return dict(conn.execute(sql).fetchall())


def _where(repos: list[str], weeks: list[date]) -> tuple[str, list]:
    """`repo in (...) and week_start in (...)`: every asked week, and the other repositories'
    weeks of the same dates (dropped by their key)."""
    marks = f"repo in ({', '.join('?' * len(repos))}) and week_start in "
    return marks + f"({', '.join('?' * len(weeks))})", [*repos, *weeks]


def _optional(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> dict:
    """`_keyed`'s rows, none for a warehouse built before the table existed."""
    try:
        return _keyed(conn, sql, params)[1]
    except duckdb.CatalogException:
        return {}


def display_name(conn: duckdb.DuckDBPyConnection, repo: str) -> str:
    """The spelling of `repo` that GitHub uses (or the user registered), for the reader."""
    return display_names(conn, [repo]).get(repo, repo)


def display_names(conn: duckdb.DuckDBPyConnection, repos: list[str]) -> dict[str, str]:
    """`display_name` of each of `repos` that has one registered, in one query."""
    if not repos:
        return {}
    marks = ", ".join("?" * len(repos))
    try:
        rows = conn.execute(
            f"select repo, display_name from marts.dim_repositories where repo in ({marks})",
            repos,
        ).fetchall()
    except duckdb.CatalogException:  # a warehouse built before the table existed
        return {}
    return dict(rows)


def load_week(conn: duckdb.DuckDBPyConnection, repo: str, week_start: date) -> WeekFacts:
    facts = load_weeks(conn, [(repo, week_start)]).get((repo, week_start))
    if facts is None:
        raise WeekNotBuilt(f"the warehouse holds no week {week_start} of {repo}: build it first")
    return facts


class WeekReader:
    """`load_week` of the weeks a run renders, read `chunk` at a time in the order given (a
    few dozen weeks' rows in memory at most); a week not in that order is read alone."""

    def __init__(
        self, conn: duckdb.DuckDBPyConnection, order: list[RepoWeek], chunk: int = 64
    ) -> None:
        self.conn, self.order, self.chunk = conn, list(dict.fromkeys(order)), chunk
        self.position = {key: at for at, key in enumerate(self.order)}
        self.loaded: dict[RepoWeek, WeekFacts] = {}

    def __call__(self, repo: str, week_start: date) -> WeekFacts:
        key = (repo, week_start)
        if key not in self.loaded and key in self.position:
            at = self.position[key]
            self.loaded = load_weeks(self.conn, self.order[at : at + self.chunk])
        facts = self.loaded.pop(key, None)  # each given once: its caller may change it
        return facts if facts is not None else load_week(self.conn, repo, week_start)


def load_weeks(
    conn: duckdb.DuckDBPyConnection, repo_weeks: list[RepoWeek]
) -> dict[RepoWeek, WeekFacts]:
    """`load_week` of each (repo, week) asked, in one query per mart for them all (each query
    costs DuckDB the same for one week as for a hundred); the weeks not built are left out."""
    asked = list(dict.fromkeys(repo_weeks))
    if not asked:
        return {}
    repos = list(dict.fromkeys(r for r, _ in asked))
    weeks = sorted({w for _, w in asked})
    where, params = _where(repos, weeks)
    summaries = _keyed(
        conn, f"select repo, week_start, * from marts.fct_weekly_summary where {where}", params
    )[1]
    # only the counts of the chart's weeks: their lists of structs cost more to read as Python
    # values than a second query (one scan of both, the rows only for the weeks asked, was
    # measured no cheaper)
    first = weeks[0] - timedelta(weeks=HISTORY_WEEKS - 1)
    marks = ", ".join("?" * len(repos))
    counts = conn.execute(
        f"""
        select repo, week_start, merged_prs from marts.fct_weekly_summary
        where repo in ({marks}) and week_start between ? and ?
        order by repo, week_start
        """,
        [*repos, first, weeks[-1]],
    ).fetchall()
    per_area = conn.execute(
        f"""
        select repo, week_start, primary_area, count(*)
        from marts.fct_pull_requests
        where repo in ({marks}) and week_start between ? and ?
        group by all
        """,
        [*repos, first, weeks[-1]],
    ).fetchall()
    columns, prs_of = _keyed(
        conn,
        f"""
        select repo, week_start, {_PR_SELECT}
        from marts.fct_pull_requests
        where {where}
        order by repo, week_start, importance desc, number
        """,
        params,
    )
    risks_of = _keyed(
        conn,
        f"""
        select repo, week_start, risk_flag, number, reason, reason_key, evidence
        from marts.fct_weekly_risks
        where {where}
        order by repo, week_start, risk_flag, number
        """,
        params,
    )[1]
    trends_of = _keyed(
        conn,
        f"""
        select repo, week_start, *
        from marts.fct_weekly_area_trends
        where {where} and pr_count > 0
        order by repo, week_start, pr_count desc, importance_sum desc, area
        """,
        params,
    )[1]
    topics_of = _optional(
        conn,
        f"""
        select repo, week_start,
            topic, topic_en, topic_zh, pr_count, importance_sum, trailing_avg, trend, numbers
        from marts.fct_weekly_topics
        where {where} and pr_count > 0
        order by repo, week_start, pr_count desc, importance_sum desc, topic
        """,
        params,
    )
    stories_of = _optional(
        conn,
        f"""
        select repo, week_start, *
        from marts.fct_weekly_stories
        where {where}
        order by repo, week_start, importance desc, story_id
        """,
        params,
    )
    weights = {
        k: float(v)
        for k, v in _pairs(conn, "select factor, weight from marts.dim_importance_weights").items()
    }
    flag_ranks = _pairs(
        conn, "select risk_flag, severity_rank from marts.dim_risk_flags order by position"
    )
    names = display_names(conn, repos)
    factor_columns = _factor_columns(columns)
    factor_names = [c.removeprefix("importance_") for c in factor_columns]
    areas_by_week: dict[RepoWeek, dict[str, int]] = {}
    for repo, week, area, count in per_area:
        areas_by_week.setdefault((repo, week), {})[area] = count
    counts_of: dict[str, list[tuple[date, int]]] = {}
    for repo, week, merged in counts:
        counts_of.setdefault(repo, []).append((week, merged))
    out: dict[RepoWeek, WeekFacts] = {}
    for repo, week_start in asked:
        summary = summaries.get((repo, week_start))
        if not summary:
            continue
        since = week_start - timedelta(weeks=HISTORY_WEEKS - 1)
        history = [
            (week, merged, areas_by_week.get((repo, week), {}))
            for week, merged in counts_of.get(repo, [])
            if since <= week <= week_start
        ]
        out[(repo, week_start)] = _facts(
            repo=names.get(repo, repo),
            week_start=week_start,
            row=summary[0],
            prs=prs_of.get((repo, week_start), []),
            factors=(factor_names, factor_columns),
            risks=risks_of.get((repo, week_start), []),
            trends=trends_of.get((repo, week_start), []),
            history=history,
            weights=dict(weights),
            flag_ranks=dict(flag_ranks),
            topics=topics_of.get((repo, week_start), []),
            stories=stories_of.get((repo, week_start), []),
        )
    return out


def _facts(
    *,
    row: dict,
    prs: list[dict],
    factors: tuple[list[str], list[str]],
    risks: list[dict],
    topics: list[dict],
    **rest: Any,
) -> WeekFacts:
    """One week's facts from its rows: each PR's rank and factors, each risk's evidence as
    values, each topic's PRs."""
    factor_names, factor_columns = factors
    for rank, pr in enumerate(prs, start=1):
        pr["rank"] = rank
        pr["factors"] = {
            name: float(pr[column] or 0)
            for name, column in zip(factor_names, factor_columns, strict=True)
        }
    for risk in risks:  # JSON text from DuckDB: the values the reason is worded from
        risk["evidence"] = json.loads(risk["evidence"]) if risk["evidence"] else {}
    by_number = {pr["number"]: pr for pr in prs}
    for topic in topics:
        topic["prs"] = [by_number[n] for n in topic["numbers"] if n in by_number]
    trailing = row["trailing_avg_prs"]
    return WeekFacts(
        summary=row,
        prs=prs,
        risks=risks,
        key_threshold=float(row["key_threshold"]),
        trailing_weeks=int(row["trailing_weeks"]),
        trailing_avg_prs=None if trailing is None else float(trailing),
        volume_trend=row["volume_trend"],
        factor_names=factor_names,
        topics=topics,
        **rest,
    )
