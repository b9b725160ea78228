"""Render a model for one run and materialise it as a view, a table or an incremental table.

Values that vary per run (`var('repo')`, `var('start_week')`, ...) reach DuckDB as bound
parameters, never spliced into the SQL text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

import duckdb

from orchestration.compaction import ReadPlan
from orchestration.models.functions import register_functions
from orchestration.models.lake_source import LakeError, LakeReader, Say, check_extracted_weeks
from orchestration.models.project import Model, Project, ProjectError, Seed, jinja_env
from orchestration.storage import Location
from orchestration.warehouse import rollback

_MISSING = object()
ONE_PER_REPOSITORY = "/repo=*/data.parquet"  # a lake folder of one file per repository


@dataclass(frozen=True)
class RunScope:
    """The partitions a run covers for one repository: `[start_week, end_week]`, both Mondays."""

    repo: str
    start_week: date
    end_week: date

    def params(self) -> dict[str, Any]:
        return {"repo": self.repo, "start_week": self.start_week, "end_week": self.end_week}


def sql_string(text: str) -> str:
    """A SQL string literal, for the few places DuckDB accepts no parameter (file paths)."""
    return "'" + text.replace("'", "''") + "'"


def render(
    project: Project,
    model: Model,
    *,
    lake_dir: Location,
    incremental: bool,
    variables: dict[str, Any],
    reader: LakeReader | None = None,
) -> tuple[str, dict[str, Any]]:
    """Return the model's SQL and the parameters it uses.

    A lake source reads the files the lake's layout allows, listed by `reader` and passed as a
    list (`orchestration/models/lake_source.py`). In an incremental run that is only the run's
    repository folder: DuckDB would otherwise list every file of every repository (100,000
    at scale) before any filter applies. A full build of a source marked `compacted` reads
    the repositories' compacted copies instead, and only the week files they leave out
    (`orchestration/compaction.py`).
    """
    reader = reader or LakeReader(lake_dir)
    used: dict[str, Any] = {}
    lake: dict[str, Any] = {}
    only_repo = variables.get("repo") if incremental else None
    inline = model.materialized == "view"  # a view keeps no parameters: its list is spelt out

    def var(name: str, default: Any = _MISSING) -> str:
        if name in variables:
            used[name] = variables[name]
        elif default is not _MISSING:
            used[name] = default
        else:
            raise ProjectError(f"{model.path}: model {model.name} needs var {name!r}, not set")
        return f"${name}"

    def files(name: str, paths: list[str]) -> str:
        if inline:
            return "[" + ", ".join(sql_string(p) for p in paths) + "]::varchar[]"
        lake[name] = paths
        return f"${name}::varchar[]"

    def source(source_name: str, table: str) -> str:
        spec = project.sources[(source_name, table)]
        if spec.get("format") == "table":  # loaded by the runner, e.g. repository settings
            return f"{source_name}.{table}"
        if spec["path"].endswith(ONE_PER_REPOSITORY):  # e.g. raw/history/
            folder = tuple(spec["path"].removesuffix(ONE_PER_REPOSITORY).split("/"))
            listed = reader.repository_files(folder, only_repo)
            if not listed and spec.get("optional"):  # nothing learnt yet: no rows
                return _no_rows(spec["optional"])
            if not listed:
                raise LakeError(f"the lake at {lake_dir} holds no {'/'.join(folder)} files yet")
            read = files(f"lake_{table}_files", listed)
            return f"read_parquet({read}, {_partitioning(spec)})"
        if spec.get("format") == "file_list":
            listed = files("lake_partition_files", reader.week_files(only_repo))
            return f"(select unnest({listed}) as file)"
        # a full build of a table reads the compacted copies (a view would freeze the plan)
        compacted = spec.get("compacted") and not incremental and model.materialized != "view"
        plan = reader.plan(only_repo, bool(compacted))
        if not plan.compacted and not plan.weekly:
            where = f" for {only_repo}" if only_repo else ""
            raise LakeError(f"the lake at {lake_dir} holds no week files{where} yet")
        return _lake_read(plan, spec, files)

    sql = (
        jinja_env()
        .from_string(model.template)
        .render(
            ref=project.relation_of,
            source=source,
            config=lambda **_: "",
            var=var,
            is_incremental=lambda: incremental,
        )
    )
    if used and model.materialized == "view":
        raise ProjectError(
            f"{model.path}: model {model.name} is a view and cannot use var(): "
            "make it a table or incremental"
        )
    return sql, {**used, **lake}


def _lake_read(plan: ReadPlan, spec: dict[str, Any], files) -> str:
    """The compacted copies and the week files they leave out, as one relation.

    A copy holds the same columns as the week files read with their folder keys, so the two
    stack by name. The file lists are parameters: a full build may list thousands.
    """
    parts = []
    if plan.compacted:
        copies = files("lake_compacted_files", plan.compacted)
        parts.append(f"select * from read_parquet({copies}, hive_partitioning = false)")
    if plan.weekly:
        weeks = files("lake_week_files", plan.weekly)
        parts.append(f"select * from read_parquet({weeks}, {_partitioning(spec)})")
    if len(parts) == 1:
        return parts[0].removeprefix("select * from ")
    return "(" + "\n    union all by name\n    ".join(parts) + ")"


def _no_rows(columns: dict[str, str]) -> str:
    """An optional source with no file yet: its declared columns and no rows."""
    typed = ", ".join(f"cast(null as {kind}) as {name}" for name, kind in columns.items())
    return f"(select {typed} where false)"


def _partitioning(spec: dict[str, Any]) -> str:
    """Hive partitioning for a source whose YAML names its folder keys (`partitions:`).

    The keys become columns read from each file's path, so a filter on them (`repo = ...`,
    `week = ...`) makes DuckDB open only the matching files instead of every file's footer.
    A key that is also a column of the files takes the folder's value.
    """
    partitions = spec.get("partitions") or {}
    if not partitions:
        return "hive_partitioning = false"
    types = ", ".join(f"{sql_string(k)}: {sql_string(v)}" for k, v in partitions.items())
    return f"hive_partitioning = true, hive_types = {{{types}}}"


def _exists(conn: duckdb.DuckDBPyConnection, relation: str) -> bool:
    schema, name = relation.split(".")
    row = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    return bool(row and row[0])


def _columns(conn: duckdb.DuckDBPyConnection, relation: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in conn.execute(f"describe {relation}").fetchall()]


def written_scope(model: Model, scope: RunScope | None) -> RunScope | None:
    """The weeks an incremental run of `model` replaces: the scope's, and `lookback_weeks`
    before them."""
    if scope is None or not model.lookback_weeks:
        return scope
    return replace(scope, start_week=scope.start_week - timedelta(weeks=model.lookback_weeks))


def materialize(
    conn: duckdb.DuckDBPyConnection,
    project: Project,
    model: Model,
    *,
    lake_dir: Location,
    scope: RunScope | None,
    variables: dict[str, Any] | None = None,
    log: Say | None = None,
) -> str:
    """Build `model`; for an incremental model, replace only the scope's weeks.

    Returns how it was built: `view`, `table`, `full` (first or schema-changed incremental build)
    or `incremental`.

    A model configured with `lookback_weeks=N` replaces the N weeks before the scope too: its
    rows for an earlier PR can depend on later ones (a revert, a follow-up fix), so a one-week
    run must also refresh the weeks those later PRs can point back to.
    """
    scope = written_scope(model, scope)
    variables = {**(variables or {}), **(scope.params() if scope else {})}
    relation = model.relation
    # No model relies on the order of rows in a table (every order is an explicit `order by`),
    # so DuckDB may write them in any order: building a table from the lake's many files then
    # streams instead of buffering (measured: 2.6 GB -> 0.34 GB and 40% faster for 10,000 files).
    conn.execute("set preserve_insertion_order = false")
    conn.execute(f"create schema if not exists {model.layer}")

    reader = LakeReader(lake_dir, log) if log else LakeReader(lake_dir)

    def sql_for(incremental: bool) -> tuple[str, dict]:
        if not incremental:
            _check_lake(conn, project, model, reader, None)
        sql, params = render(
            project,
            model,
            lake_dir=lake_dir,
            incremental=incremental,
            variables=variables,
            reader=reader,
        )
        register_functions(conn, project.root, sql)
        return sql, params

    if model.materialized == "view":
        sql, _ = sql_for(False)
        conn.execute(f"create or replace view {relation} as\n{sql}")
        return "view"
    if model.materialized == "table" or scope is None or not _exists(conn, relation):
        sql, params = sql_for(False)
        conn.execute(f"create or replace table {relation} as\n{sql}", params)
        return "table" if model.materialized == "table" else "full"

    _check_lake(conn, project, model, reader, scope)
    sql, params = sql_for(True)
    conn.execute("begin transaction")
    try:
        conn.execute(f"create or replace temp table _incoming as\n{sql}", params)
        schema_changed = _columns(conn, "temp._incoming") != _columns(conn, relation)
        if not schema_changed:
            conn.execute(
                f"delete from {relation} where repo = $repo "
                "and week_start between $start_week and $end_week",
                scope.params(),
            )
            conn.execute(f"insert into {relation} by name select * from temp._incoming")
        conn.execute("drop table temp._incoming")
        conn.execute("commit")
    except BaseException:
        rollback(conn)
        raise
    if schema_changed:  # the model's columns changed since the table was built: rebuild it all
        sql, params = sql_for(False)
        conn.execute(f"create or replace table {relation} as\n{sql}", params)
        return "full"
    return "incremental"


def _check_lake(
    conn: duckdb.DuckDBPyConnection,
    project: Project,
    model: Model,
    reader: LakeReader,
    scope: RunScope | None,
) -> None:
    """Before a model reads the lake, make sure no week the warehouse knows of is missing."""
    for source in model.sources:
        known = project.sources[source].get("extracted_weeks")
        if known and known in project.models:
            weeks = (scope.start_week, scope.end_week) if scope else None
            repo = scope.repo if scope else None
            check_extracted_weeks(conn, project.relation_of(known), reader, repo, weeks)


def stale_seeds(conn: duckdb.DuckDBPyConnection, project: Project) -> list[Seed]:
    """The CSV seeds whose content changed since they were last loaded (or never loaded)."""
    conn.execute("create schema if not exists seeds")
    conn.execute(
        "create table if not exists seeds._checksums (name varchar primary key, sha256 varchar)"
    )
    known = dict(conn.execute("select name, sha256 from seeds._checksums").fetchall())
    return [
        seed
        for seed in project.seeds.values()
        if known.get(seed.name) != _digest(seed) or not _exists(conn, seed.relation)
    ]


def _digest(seed: Seed) -> str:
    return hashlib.sha256(seed.path.read_bytes()).hexdigest()


def load_seeds(
    conn: duckdb.DuckDBPyConnection, project: Project, seeds: list[Seed] | None = None
) -> list[str]:
    """(Re)load every CSV seed whose content changed since it was last loaded."""
    loaded = []
    for seed in stale_seeds(conn, project) if seeds is None else seeds:
        conn.execute("begin transaction")
        conn.execute(
            f"create or replace table {seed.relation} as select * from "
            f"read_csv({sql_string(str(seed.path))}, header = true)"
        )
        conn.execute(
            "insert or replace into seeds._checksums values (?, ?)", [seed.name, _digest(seed)]
        )
        conn.execute("commit")
        loaded.append(seed.name)
    return loaded
