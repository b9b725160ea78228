"""Render a model's SQL for one run: refs, sources (through their hooks), variables, macros.

Values that vary per run (`var('repo')`, `var('start_week')`, ...) reach DuckDB as bound
parameters, never spliced into the SQL text; the project file's variables are the project's
own text and are rendered as they are written, as dbt does.

An ephemeral model a model refs (through another one too) is rendered with the model's own
context (its scope, so `is_incremental()` is the model's) and put before the model's own CTEs
as `__dbt__cte__<name> as (...)`, the name dbt gives it; `ref()` names that CTE.
"""

from __future__ import annotations

import re
from typing import Any

import duckdb

from orchestration.models.project import Model, Project, ProjectError, render_template
from orchestration.models.scope import Scope
from orchestration.models.sources import Resolve, SourceRequest, warehouse_table

_MISSING = object()
EPHEMERAL_CTE = "__dbt__cte__"
# what may come before a query's first keyword: blanks and comments
_LEADING = re.compile(r"(?:\s+|--[^\n]*|/\*.*?\*/)*", re.S)
_WITH = re.compile(r"with\b(?:\s+recursive\b)?", re.I)


def sql_string(text: str) -> str:
    """A SQL string literal, for the few places DuckDB accepts no parameter (file paths)."""
    return "'" + text.replace("'", "''") + "'"


def with_ctes(sql: str, ctes: list[str]) -> str:
    """`sql` with `ctes` (`name as (...)`) first among its CTEs, or as its only ones."""
    if not ctes:
        return sql
    start = _LEADING.match(sql).end()
    found = _WITH.match(sql, start)
    if found:
        return f"{sql[: found.end()]} {', '.join(ctes)},{sql[found.end() :]}"
    return f"{sql[:start]}with {', '.join(ctes)}\n{sql[start:]}"


class QueryResult:
    """What `run_query` returns, as dbt's does: `.rows`, `.column_names` and `.columns`, each
    column's `.values()` (the part of dbt's agate table that a model uses)."""

    def __init__(self, names: list[str], rows: list[tuple]) -> None:
        self.column_names, self.rows = tuple(names), [tuple(r) for r in rows]
        self.columns = [_Column(tuple(r[i] for r in self.rows)) for i in range(len(names))]


class _Column:
    def __init__(self, values: tuple) -> None:
        self._values = values

    def values(self) -> tuple:
        return self._values


def render(
    project: Project,
    model: Model,
    *,
    scope: Scope | None,
    variables: dict[str, Any],
    resolvers: dict[str, Resolve] | None = None,
    conn: duckdb.DuckDBPyConnection | None = None,
) -> tuple[str, dict[str, Any]]:
    """Return the model's SQL and the parameters it uses; `scope` is set for an incremental
    run (only its partitions are read and written). `run_query(sql)` runs a query on `conn`
    while the model is rendered, as dbt's does (under `{% if execute %}`): what a seed lists
    can then be spelt into the SQL, where DuckDB takes no parameter (a pivot's columns)."""
    resolvers = resolvers or {}
    used: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    inline = model.materialized == "view"  # a view keeps no parameters: its list is spelt out

    def var(name: str, default: Any = _MISSING) -> Any:
        if name in project.vars:
            return project.vars[name]
        if name in variables:
            used[name] = variables[name]
        elif default is not _MISSING:
            used[name] = default
        else:
            key = next((k for k in project.partitions.values() if k.var == name), None)
            if key is not None and scope is not None and scope.several(key.column):
                raise ProjectError(
                    f"{model.path}: model {model.name}: var({name!r}) holds one {key.column}, "
                    f"the scope names {scope.several(key.column)}; filter with "
                    f"scoped({key.column!r}) instead"
                )
            raise ProjectError(f"{model.path}: model {model.name} needs var {name!r}, not set")
        return f"${name}"

    def scoped(column: str, expr: str | None = None) -> str:
        """`expr` (the column itself by default) kept to the run's values of the partition
        key `column`: `= var(...)` for one value, as a model would write it, a list, or the
        closed range of values one part of a full build covers."""
        key = project.partitions.get(column)
        if key is None or not key.var:
            raise ProjectError(
                f"{model.path}: model {model.name}: scoped({column!r}) names no partition key "
                "with a var in project.yml"
            )
        if scope is not None and scope.several(column):
            lists[f"scope_{column}"] = list(scope.values[column])
            return f"{expr or column} in (select unnest($scope_{column}::{key.type}[]))"
        if scope is not None and column in scope.ranges:  # a part of a full build (run.py)
            lists[f"scope_{column}_first"], lists[f"scope_{column}_last"] = scope.ranges[column]
            return (
                f"{expr or column} between $scope_{column}_first::{key.type} "
                f"and $scope_{column}_last::{key.type}"
            )
        return f"{expr or column} = {var(key.var)}"

    def bind_texts(name: str, texts: list[str]) -> str:
        if inline:
            return "[" + ", ".join(sql_string(t) for t in texts) + "]::varchar[]"
        lists[name] = texts
        return f"${name}::varchar[]"

    def source(source_name: str, table: str) -> str:
        request = SourceRequest(
            source_name,
            table,
            project.sources[(source_name, table)],
            scope,
            model.materialized,
            bind_texts,
        )
        return resolvers.get(source_name, warehouse_table)(request)

    def run_query(sql: str) -> QueryResult:
        if conn is None:
            raise ProjectError(f"{model.path}: model {model.name}: run_query needs a connection")
        cursor = conn.execute(sql)
        return QueryResult([d[0] for d in cursor.description], cursor.fetchall())

    def ref(name: str) -> str:
        return EPHEMERAL_CTE + name if name in project.ephemerals else project.relation_of(name)

    context = {
        "ref": ref,
        "source": source,
        "config": lambda **_: "",
        "var": var,
        "scoped": scoped,
        "is_incremental": lambda: scope is not None,
        "execute": True,
        "run_query": run_query,
    }
    sql = render_template(model.template, project.macros, context)
    ctes = [
        f"{EPHEMERAL_CTE}{name} as (\n{render_template(e.template, project.macros, context)}\n)"
        for name, e in ((n, project.ephemerals[n]) for n in model.ephemerals)
    ]
    sql = with_ctes(sql, ctes)
    if used and model.materialized == "view":
        raise ProjectError(
            f"{model.path}: model {model.name} is a view and cannot use var(): "
            "make it a table or incremental"
        )
    return sql, {**used, **lists}
