"""Which week files each incremental model has built, so that a run rebuilds, before its own
weeks, only the history weeks some model has not seen as they are now.

A run's extract may add history weeks before the run's own (weeks the lake had not read), and a
selection in the UI may read a week again without building the models; every model must then
build those weeks. Each model records the week files it built in `runs.modelled_weeks`, with
each file's stamp (its ETag on object storage, else its size and modification time), in the
working copy with its rows: a failed build's undo puts both back as published. A week counts as
modelled only while every model recorded the stamp its file has now. A week missing here costs
a rebuild, never a wrong row.
"""

from __future__ import annotations

import weakref
from datetime import date

import duckdb

from orchestration.config import repo_slug
from orchestration.database import relation_exists, transaction
from orchestration.lake.files import WeekFile, list_week_files
from orchestration.models.project import Project
from orchestration.run_scope import RunScope
from orchestration.storage import Location

LEDGER = "runs.modelled_weeks"
COLUMNS = ["model", "repo", "week_start", "stamp"]
LAYOUT = "model varchar, repo varchar, week_start date, stamp varchar"
# the model listing every extracted week (sql/staging)
EXTRACTED = "stg_weekly_partitions"
Stamps = dict[date, str]  # a repository's week files: week -> stamp


def incremental_models(project: Project) -> list[str]:
    return [m.name for m in project.models.values() if m.materialized == "incremental"]


def _stamp(week_file: WeekFile) -> str:
    return week_file.etag or f"{week_file.size}:{week_file.mtime_ns}"


def week_stamps(lake_dir: Location, repo: str) -> Stamps:
    """The stamp of each week file of `repo` in the lake."""
    weeks = list_week_files(lake_dir, repo).weeks.get(repo_slug(repo), {})
    return {week: _stamp(week_file) for week, week_file in weeks.items()}


def _columns(conn: duckdb.DuckDBPyConnection) -> list[str]:
    return [row[0] for row in conn.execute(f"describe {LEDGER}").fetchall()]


# connections known to hold the ledger in its layout: a week's run records 20 models, and
# asking the catalog each time cost a millisecond or two of CPU per model
_ready: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()


def _create(conn: duckdb.DuckDBPyConnection) -> None:
    """The ledger; one of an older layout is dropped (every week is then rebuilt once)."""
    if conn in _ready:
        return
    _ensure(conn)
    _ready.add(conn)


def _ensure(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("create schema if not exists runs")
    if relation_exists(conn, LEDGER):
        if _columns(conn) == COLUMNS:
            return
        conn.execute(f"drop table {LEDGER}")
    conn.execute(f"create table {LEDGER} ({LAYOUT})")


def record(
    conn: duckdb.DuckDBPyConnection,
    model: str,
    scopes: list[RunScope],
    extracted: dict[str, Stamps],
) -> None:
    """`model` has built `scopes`' weeks from the week files `extracted` lists (per repository);
    the scopes' weeks without a file are not modelled (a later extract may add them). One
    transaction: a week's run records 20 models, and each commit waits for the disk."""
    try:
        with transaction(conn):
            _record(conn, model, scopes, extracted)
    except duckdb.CatalogException:
        if conn not in _ready:
            raise
        _ready.discard(conn)  # the ledger went (an undo, a rolled-back first record): again
        with transaction(conn):
            _record(conn, model, scopes, extracted)


def record_within(
    conn: duckdb.DuckDBPyConnection,
    model: str,
    scopes: list[RunScope],
    extracted: dict[str, Stamps],
) -> None:
    """`record`, in the transaction the caller holds open (the one writing the model's rows:
    both commit together, and a week's run commits once a model, not twice). A failed
    statement would abort that transaction, so a ledger that went since this connection made
    it (an undo) is made again first, not found missing."""
    if conn in _ready:  # one call for both: a week's run makes it for each of 21 models
        conn.execute(
            f"create schema if not exists runs; create table if not exists {LEDGER} ({LAYOUT})"
        )
    _record(conn, model, scopes, extracted)


def _record(
    conn: duckdb.DuckDBPyConnection,
    model: str,
    scopes: list[RunScope],
    extracted: dict[str, Stamps],
) -> None:
    _create(conn)
    repos, firsts, lasts = zip(*((s.repo, s.start_week, s.end_week) for s in scopes), strict=True)
    if len(set(repos)) == 1 and len(set(firsts)) == 1 and len(set(lasts)) == 1:
        # one repository's weeks (a week's run): `=` rather than a join with a list, 1.6 ms
        # -> 0.9 ms of CPU, each of the 21 models
        conn.execute(
            f"delete from {LEDGER} where model = $model and repo = $repo "
            "and week_start between $first and $last",
            {"model": model, "repo": repos[0], "first": firsts[0], "last": lasts[0]},
        )
    elif len(set(firsts)) == 1 and len(set(lasts)) == 1:
        # the same weeks for each repository (every week of a whole build): the plain terms
        # are the exact test
        conn.execute(
            f"delete from {LEDGER} where model = $model and repo in (select unnest($repos)) "
            "and week_start between $first and $last",
            {"model": model, "repos": list(repos), "first": firsts[0], "last": lasts[0]},
        )
    # the plain terms first narrow the rows (the ledger holds every model's every week: two
    # million rows at a million PRs) to those the exact test then looks at
    else:
        conn.execute(
            f"delete from {LEDGER} t where model = $model "
            "and repo in (select unnest($repos)) and week_start between $first and $last "
            "and exists (select 1 from (select unnest($repos) as repo, unnest($firsts) as "
            "first_week, unnest($lasts) as last_week) s "
            "where s.repo = t.repo and t.week_start between s.first_week and s.last_week)",
            {
                "model": model,
                "repos": list(repos),
                "firsts": list(firsts),
                "lasts": list(lasts),
                "first": min(firsts),
                "last": max(lasts),
            },
        )
    rows = [
        (s.repo, week, stamp)
        for s in scopes
        for week, stamp in extracted.get(s.repo, {}).items()
        if s.start_week <= week <= s.end_week
    ]
    if rows:
        repo_list, weeks, stamps = (list(column) for column in zip(*rows, strict=True))
        conn.execute(
            f"insert into {LEDGER} select $model, unnest($repos), unnest($weeks::date[]), "
            "unnest($stamps)",
            {"model": model, "repos": repo_list, "weeks": weeks, "stamps": stamps},
        )


def record_every_week(
    conn: duckdb.DuckDBPyConnection, project: Project, lake_dir: Location
) -> None:
    """Every incremental model has been built over the whole lake as it is now (a warehouse
    built in one pass, outside Dagster): the lake listed once, and every model's rows written
    in one statement (at a million PRs, 100,000 week files for 20 models: listing the lake
    per repository and recording each model apart took 6.5 s)."""
    relation = project.models[EXTRACTED].relation
    repos = [r for (r,) in conn.execute(f"select distinct repo from {relation}").fetchall()]
    listed = list_week_files(lake_dir).weeks
    rows = [
        (repo, week, _stamp(week_file))
        for repo in repos
        for week, week_file in listed.get(repo_slug(repo), {}).items()
    ]
    models = incremental_models(project)
    with transaction(conn):
        _create(conn)
        conn.execute(
            f"delete from {LEDGER} where repo in (select unnest($repos)) "
            "and list_contains($models, model)",
            {"repos": repos, "models": models},
        )
        if rows:
            repo_list, weeks, stamps = (list(column) for column in zip(*rows, strict=True))
            conn.execute(
                f"insert into {LEDGER} select m.model, w.repo, w.week_start, w.stamp "
                "from (select unnest($models) as model) m, (select unnest($repos) as repo, "
                "unnest($weeks::date[]) as week_start, unnest($stamps) as stamp) w",
                {"models": models, "repos": repo_list, "weeks": weeks, "stamps": stamps},
            )


def modelled_by_all(
    conn: duckdb.DuckDBPyConnection, project: Project, extracted: dict[str, Stamps]
) -> dict[str, set[date]]:
    """The weeks of `extracted`'s repositories whose current file every incremental model
    has built."""
    models = incremental_models(project)
    if not relation_exists(conn, LEDGER) or _columns(conn) != COLUMNS:
        return {}
    rows = conn.execute(
        f"select repo, week_start, stamp from {LEDGER} "
        "where repo in (select unnest($repos)) and list_contains($models, model) "
        "group by repo, week_start, stamp having count(distinct model) = $count",
        {"repos": list(extracted), "models": models, "count": len(set(models))},
    ).fetchall()
    weeks: dict[str, set[date]] = {}
    for repo, week, stamp in rows:
        if extracted.get(repo, {}).get(week) == stamp:
            weeks.setdefault(repo, set()).add(week)
    return weeks
