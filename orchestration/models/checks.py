"""Data tests declared in YAML, compiled to queries that count failing rows."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from orchestration.models.project import DataTest, Model, Project


@dataclass(frozen=True)
class CheckOutcome:
    test: DataTest
    failing_rows: int
    sql: str

    @property
    def passed(self) -> bool:
        return self.failing_rows == 0


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def failing_rows_sql(project: Project, model: Model, test: DataTest) -> tuple[str, list]:
    """A query whose single value is the number of rows that break `test`."""
    rel = model.relation
    cols = [_quote(c) for c in test.columns]
    if test.kind == "not_null":
        cond = " or ".join(f"{c} is null" for c in cols)
        return f"select count(*) from {rel} where {cond}", []
    if test.kind == "unique":
        keys = ", ".join(cols)
        return (
            f"select coalesce(sum(n - 1), 0) from "
            f"(select count(*) as n from {rel} group by {keys} having count(*) > 1)",
            [],
        )
    if test.kind == "accepted_values":
        values = [str(v) for v in test.args["values"]]
        return (
            f"select count(*) from {rel} where {cols[0]} is not null "
            f"and cast({cols[0]} as varchar) not in (select unnest(?::varchar[]))",
            [values],
        )
    if test.kind == "relationships":
        target = test.args["to"]
        target = target.removeprefix("ref('").removesuffix("')")
        parent = project.relation_of(target)
        field = _quote(test.args["field"])
        return (
            f"select count(*) from {rel} child where child.{cols[0]} is not null and not exists "
            f"(select 1 from {parent} parent where parent.{field} = child.{cols[0]})",
            [],
        )
    raise ValueError(f"unknown data test {test.kind}")


def run_checks(
    conn: duckdb.DuckDBPyConnection, project: Project, model: Model
) -> list[CheckOutcome]:
    outcomes = []
    for test in model.tests:
        sql, params = failing_rows_sql(project, model, test)
        (count,) = conn.execute(sql, params).fetchone()
        outcomes.append(CheckOutcome(test, int(count), sql))
    return outcomes
