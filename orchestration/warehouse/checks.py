"""Data tests declared in YAML, run on the rows a build wrote and reported by partition.

A failing row belongs to a repository and week (the model's `repo` and `week_start`), so a
test names the keys that fail it (repository, week, PR) and blocks only those partitions:
the other repositories' and weeks' builds and reports go on. A test counts the rows of the
weeks the run wrote; rows elsewhere that fail it are another build's business (they blocked
that build's reports when it wrote them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.database import transaction
from orchestration.models.project import DataTest, Model, Project
from orchestration.models.scope import Scope, any_of

FAILURES = "checks.data_test_failures"  # one row per failing test, model and partition
EXAMPLES = 5  # failing keys named per test


@dataclass(frozen=True)
class CheckOutcome:
    test: DataTest
    failing_rows: int
    sql: str
    partitions: list[tuple[str | None, date | None]] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.failing_rows == 0

    def describe(self, model: Model) -> str:
        if self.passed:
            return f"{self.test.name} passed on {model.name}"
        rows = f"{self.failing_rows} row{'s' if self.failing_rows != 1 else ''}"
        return f"data test {self.test.name} failed on {model.name} ({rows}): " + "; ".join(
            self.examples
        )


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def failing_rows_sql(project: Project, model: Model, test: DataTest) -> tuple[str, dict]:
    """A query over `failing` (the rows that break `test`), as the text after `with`."""
    rel = model.relation
    cols = [_quote(c) for c in test.columns]
    if test.kind == "not_null":
        cond = " or ".join(f"{c} is null" for c in cols)
        return f"select * from {rel} where {cond}", {}
    if test.kind == "unique":
        keys = ", ".join(cols)
        return (
            f"select * from {rel} semi join "
            f"(select {keys} from {rel} group by {keys} having count(*) > 1) using ({keys})",
            {},
        )
    if test.kind == "accepted_values":
        values = [str(v) for v in test.args["values"]]
        return (
            f"select * from {rel} where {cols[0]} is not null "
            f"and cast({cols[0]} as varchar) not in (select unnest($accepted::varchar[]))",
            {"accepted": values},
        )
    if test.kind == "relationships":
        target = test.args["to"]
        target = target.removeprefix("ref('").removesuffix("')")
        parent = project.relation_of(target)
        field = _quote(test.args["field"])
        return (
            f"select * from {rel} child where child.{cols[0]} is not null and not exists "
            f"(select 1 from {parent} parent where parent.{field} = child.{cols[0]})",
            {},
        )
    raise ValueError(f"unknown data test {test.kind}")


def _partition_columns(conn: duckdb.DuckDBPyConnection, model: Model) -> set[str]:
    return {name for name, *_ in conn.execute(f"describe {model.relation}").fetchall()}


def _example(row: dict, test: DataTest) -> str:
    where = [str(row[k]) for k in ("repo",) if row.get(k) is not None]
    if row.get("week_start") is not None:
        where.append(f"week {row['week_start']}")
    if row.get("number") is not None:
        where.append(f"PR #{row['number']}")
    values = ", ".join(f"{c}={row[c]!r}" for c in test.columns if c not in ("repo", "number"))
    text = " ".join(where)
    return f"{text} ({values})" if text and values else text or values


def run_checks(
    conn: duckdb.DuckDBPyConnection,
    project: Project,
    model: Model,
    scopes: list[Scope] | None = None,
) -> list[CheckOutcome]:
    """Run `model`'s tests on the rows of `scopes` (every row when None)."""
    columns = _partition_columns(conn, model)
    keys = [c for c in ("repo", "week_start") if c in columns]
    scoped, scope_params = any_of(scopes, columns)
    outcomes = []
    for test in model.tests:
        failing, params = failing_rows_sql(project, model, test)
        params = {**params, **scope_params}
        sql = f"with failing as ({failing}) select count(*) from failing where {scoped}"
        (count,) = conn.execute(sql, params).fetchone()
        if not count:
            outcomes.append(CheckOutcome(test, 0, sql))
            continue
        shown = [c for c in (*keys, "number", *test.columns) if c in columns]
        picked = ", ".join(dict.fromkeys(_quote(c) for c in shown))
        # a duplicate is named with every row that shares its key, wherever they are
        group = ", ".join(_quote(c) for c in test.columns)
        named = (
            f"failing semi join (select {group} from failing where {scoped}) using ({group})"
            if test.kind == "unique"
            else f"failing where {scoped}"
        )
        cursor = conn.execute(
            f"with failing as ({failing}) select distinct {picked} from {named} "
            "order by all limit $examples",
            {**params, "examples": EXAMPLES},
        )
        names = [d[0] for d in cursor.description]
        examples = [_example(dict(zip(names, r, strict=True)), test) for r in cursor.fetchall()]
        partitions: list = [(None, None)]
        if keys:
            partition_keys = ", ".join([*keys, *([] if "week_start" in keys else ["null"])])
            partitions = conn.execute(
                f"with failing as ({failing}) select distinct {partition_keys} "
                f"from failing where {scoped} order by all",
                params,
            ).fetchall()
        outcomes.append(CheckOutcome(test, int(count), sql, partitions, examples))
    return outcomes


def record_failures(
    conn: duckdb.DuckDBPyConnection,
    model: Model,
    outcomes: list[CheckOutcome],
    scopes: list[Scope] | None,
) -> None:
    """Replace the model's failures in the weeks it checked with what failed now, so a report
    can tell which of its weeks it must not be written from."""
    conn.execute("create schema if not exists checks")
    conn.execute(
        f"create table if not exists {FAILURES} (model varchar, test varchar, repo varchar, "
        "week_start date, failing_rows bigint, example varchar)"
    )
    scoped, params = any_of(scopes, {"repo", "week_start"})
    with transaction(conn):
        conn.execute(
            f"delete from {FAILURES} where model = $model and ({scoped})",
            {"model": model.name, **params},
        )
        rows = [
            (model.name, o.test.name, repo, week, o.failing_rows, "; ".join(o.examples))
            for o in outcomes
            for repo, week in o.partitions
        ]
        if rows:
            conn.executemany(f"insert into {FAILURES} values (?, ?, ?, ?, ?, ?)", rows)


def blocked_weeks(
    conn: duckdb.DuckDBPyConnection, repo: str, week: date
) -> list[tuple[str, str, str]]:
    """The failing tests that keep this repository's week from being reported:
    (model, test, example)."""
    return failing_weeks(conn, repo, [week]).get(week, [])


def failing_weeks(
    conn: duckdb.DuckDBPyConnection, repo: str, weeks: list[date]
) -> dict[date, list[tuple[str, str, str]]]:
    """The failing tests of many weeks of one repository, in one query: {week: its failing
    tests (model, test, example), sorted} for the weeks that fail one."""
    try:
        rows = conn.execute(
            f"select week_start, model, test, example from {FAILURES} "
            "where (repo = ? or repo is null) "
            "and (week_start is null or list_contains(?::date[], week_start))",
            [repo, weeks],
        ).fetchall()
    except duckdb.CatalogException:  # no test has failed in this warehouse yet
        return {}
    failing: dict[date, set[tuple[str, str, str]]] = {}
    for week_start, *failure in rows:
        for week in weeks if week_start is None else [week_start]:
            failing.setdefault(week, set()).add(tuple(failure))
    return {week: sorted(failing[week]) for week in sorted(failing)}


def blocked_reason(
    repo: str, week: date, failed: list[tuple[str, str, str]]
) -> tuple[str, str, str]:
    """A week not reported, as (repository, week, why): its first failing tests named."""
    tests = "; ".join(f"{test} on {model}: {example}" for model, test, example in failed[:3])
    return repo, week.isoformat(), f"{repo} week {week} ({tests})"
