"""Which extracted weeks each incremental model has built, so that a run rebuilds, before its
own weeks, only the history weeks some model has not seen yet.

A run's extract may add history weeks before the run's own (weeks the lake had not read); then
every model must build them. Each model records the weeks it built in `runs.modelled_weeks`,
in the working copy with its rows: a failed build's undo puts both back as published, and a
selection in the UI that builds some models only leaves the other models' weeks unrecorded, so
the next run builds them. A week missing here costs a rebuild, never a wrong row.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

import duckdb

from orchestration.models.project import Project
from orchestration.run_scope import RunScope
from orchestration.warehouse import relation_exists

LEDGER = "runs.modelled_weeks"
# the model listing every extracted week (sql/staging)
EXTRACTED = "stg_weekly_partitions"


def incremental_models(project: Project) -> list[str]:
    return [m.name for m in project.models.values() if m.materialized == "incremental"]


def _create(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("create schema if not exists runs")
    conn.execute(
        f"create table if not exists {LEDGER} (model varchar, repo varchar, week_start date)"
    )


def record(
    conn: duckdb.DuckDBPyConnection,
    model: str,
    scopes: list[RunScope],
    extracted: dict[str, Collection[date]],
) -> None:
    """`model` has built `scopes`' weeks: those of them the lake holds (`extracted`, per
    repository) are now modelled; the scopes' other weeks are not (a later extract may add
    them)."""
    _create(conn)
    repos, firsts, lasts = zip(*((s.repo, s.start_week, s.end_week) for s in scopes), strict=True)
    conn.execute(
        f"delete from {LEDGER} t where model = $model and exists ("
        "select 1 from (select unnest($repos) as repo, unnest($firsts) as first_week, "
        "unnest($lasts) as last_week) s "
        "where s.repo = t.repo and t.week_start between s.first_week and s.last_week)",
        {"model": model, "repos": list(repos), "firsts": list(firsts), "lasts": list(lasts)},
    )
    weeks = [
        (s.repo, week)
        for s in scopes
        for week in extracted.get(s.repo, ())
        if s.start_week <= week <= s.end_week
    ]
    if weeks:
        conn.execute(
            f"insert into {LEDGER} select $model, unnest($repos), unnest($weeks::date[])",
            {"model": model, "repos": [r for r, _ in weeks], "weeks": [w for _, w in weeks]},
        )


def record_every_week(conn: duckdb.DuckDBPyConnection, project: Project) -> None:
    """Every incremental model has been built over the whole lake, as `stg_weekly_partitions`
    lists it (a warehouse built in one pass, outside Dagster)."""
    _create(conn)
    models = incremental_models(project)
    conn.execute(f"delete from {LEDGER} where list_contains($models, model)", {"models": models})
    relation = project.models[EXTRACTED].relation
    conn.execute(
        f"insert into {LEDGER} select m.model, w.repo, w.week_start "
        f"from {relation} w, (select unnest($models) as model) m",
        {"models": models},
    )


def modelled_by_all(
    conn: duckdb.DuckDBPyConnection, project: Project, repos: list[str]
) -> dict[str, set[date]]:
    """The weeks of `repos` that every incremental model has built."""
    models = incremental_models(project)
    if not relation_exists(conn, LEDGER):
        return {}
    rows = conn.execute(
        f"select repo, week_start from {LEDGER} "
        "where repo in (select unnest($repos)) and list_contains($models, model) "
        "group by repo, week_start having count(distinct model) = $count",
        {"repos": repos, "models": models, "count": len(set(models))},
    ).fetchall()
    weeks: dict[str, set[date]] = {}
    for repo, week in rows:
        weeks.setdefault(repo, set()).add(week)
    return weeks
