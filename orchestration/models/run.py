"""Materialise a model as a view, a table or an incremental table.

An incremental run deletes and inserts the rows of its scope: the partition keys the project
declares (`project.yml`), never columns the runner knows by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb

from orchestration.database import transaction
from orchestration.models.functions import register_functions
from orchestration.models.project import Model, Project
from orchestration.models.render import render
from orchestration.models.scope import Scope
from orchestration.models.sources import BuildContext, Say, SourceHooks


def _say_nothing(_: str) -> None:
    return None


def _columns(conn: duckdb.DuckDBPyConnection, relation: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in conn.execute(f"describe {relation}").fetchall()]


def _existing(conn: duckdb.DuckDBPyConnection, relation: str) -> list[tuple[str, str]] | None:
    """`relation`'s columns, None when there is no such table or view (one `describe`, where
    asking the catalog whether it exists first cost 1.3 ms a model)."""
    try:
        return _columns(conn, relation)
    except duckdb.CatalogException:
        return None


def written_scope(
    project: Project, model: Model, scope: Scope | None, *, lookback: bool = True
) -> Scope | None:
    """The partitions an incremental run of `model` replaces: the scope's, and `lookback`
    steps of its ranged key before them (unless the caller's scope already holds the earlier
    partitions that can change, `lookback=False`)."""
    if scope is None or not model.lookback or not lookback:
        return scope
    return scope.extended(project.partitions, model.lookback)


def materialize(
    conn: duckdb.DuckDBPyConnection,
    project: Project,
    model: Model,
    *,
    scope: Scope | None,
    sources: SourceHooks | None = None,
    variables: dict[str, Any] | None = None,
    log: Say | None = None,
    before_write: Any = None,
    lookback: bool = True,
    parts: list[Scope] | None = None,
    with_write: Callable[[], None] | None = None,
) -> str:
    """Build `model`; for an incremental model, replace only the scope's partitions.

    Returns how it was built: `view`, `table`, `full` (first or schema-changed incremental build)
    or `incremental`.

    A model configured with `lookback=N` replaces the N steps before the scope too: its rows
    for an earlier partition can depend on later ones (a revert, a follow-up fix), so a
    one-week run must also refresh the weeks those later rows can point back to.

    `parts` (scopes that together cover every partition, each once) builds an incremental
    model in full one part at a time, through its incremental SQL: what a build of all of a
    big history holds in memory at once is then one part's (see build.build).

    `with_write` (the ledger's record of the weeks built) runs in the transaction that
    replaces an incremental run's partitions, so both commit together and once; after any
    other write, in a transaction of its own.
    """
    scope = written_scope(project, model, scope, lookback=lookback)
    variables = {**(variables or {}), **(scope.variables(project.partitions) if scope else {})}
    relation = model.relation
    # No model relies on the order of rows in a table (every order is an explicit `order by`),
    # so DuckDB may write them in any order: building a table from the lake's many files then
    # streams instead of buffering (measured: 2.6 GB -> 0.34 GB and 40% faster for 10,000 files).
    conn.execute("set preserve_insertion_order = false")
    # the schema, where a table or view is made (an incremental run's table holds it already)
    schema = f"create schema if not exists {model.layer}"

    context = BuildContext(
        conn, log or _say_nothing, before_write or _say_nothing, project.relation_of
    )
    resolvers = {name: hook(context) for name, hook in (sources or {}).items()}

    def sql_for(run_scope: Scope | None, run_variables: dict | None = None) -> tuple[str, dict]:
        sql, params = render(
            project,
            model,
            scope=run_scope,
            variables=variables if run_variables is None else run_variables,
            resolvers=resolvers,
            conn=conn,
        )
        register_functions(conn, project.root, sql)
        return sql, params

    def after_write() -> None:  # a write without a transaction of its own is done
        if with_write:
            with transaction(conn):
                with_write()

    if model.materialized == "view":
        sql, _ = sql_for(None)
        conn.execute(schema)
        conn.execute(f"create or replace view {relation} as\n{sql}")
        after_write()
        return "view"
    if model.materialized == "incremental" and scope is None and len(parts or ()) > 1:
        # a full build in parts: each part's rows from the model's incremental SQL, into one
        # new table in one transaction (the parts cover every partition, each once)
        rendered = []  # first, as a source's hook may load a table while it is rendered
        for part in parts:
            written = written_scope(project, model, part, lookback=lookback)
            rendered.append(
                sql_for(written, {**variables, **written.variables(project.partitions)})
            )
        conn.execute(schema)
        with transaction(conn):
            for i, (sql, params) in enumerate(rendered):
                into = "insert into {} by name" if i else "create or replace table {} as"
                conn.execute(f"{into.format(relation)}\n{sql}", params)
            if with_write:
                with_write()
        return "full"
    # an incremental run's table as it is: its columns, None when it does not exist yet
    existing = None if model.materialized == "table" or scope is None else _existing(conn, relation)
    if existing is None:
        sql, params = sql_for(None)
        conn.execute(schema)
        conn.execute(f"create or replace table {relation} as\n{sql}", params)
        after_write()
        return "table" if model.materialized == "table" else "full"

    sql, params = sql_for(scope)
    with transaction(conn):
        conn.execute(f"create or replace temp table _incoming as\n{sql}", params)
        schema_changed = _columns(conn, "temp._incoming") != existing
        if not schema_changed:
            scoped, keys = scope.filter() or ("false", {})
            conn.execute(f"delete from {relation} where {scoped}", keys)
            conn.execute(f"insert into {relation} by name select * from temp._incoming")
            if with_write:
                with_write()
        conn.execute("drop table temp._incoming")
    if schema_changed:  # the model's columns changed since the table was built: rebuild it all
        sql, params = sql_for(None)
        conn.execute(f"create or replace table {relation} as\n{sql}", params)
        after_write()
        return "full"
    return "incremental"
