"""The runner's `ephemeral` models, on a toy project with no prweekly table: no relation, no
build step, inlined as a CTE into each model that refs them (as dbt does)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from orchestration.models.build import build
from orchestration.models.project import ProjectError, load_project
from orchestration.models.render import render, with_ctes
from orchestration.models.scope import Scope

PARTITIONS = "partitions:\n  repo: {type: varchar, var: repo}\n"

TOY = {
    "project.yml": PARTITIONS,
    "seeds/factors.csv": "name,value\nscale,10\n",
    "staging/events.sql": "{{ config(materialized='table') }}\n"
    "select * from (values ('a/x', 1), ('a/x', 2), ('b/y', 3)) t(repo, n)",
    # a step of a model, kept to the run's repository when the model that reads it is
    "intermediate/kept.sql": "{{ config(materialized='ephemeral') }}\n"
    "-- the events of the run's repositories\n"
    "select repo, n from {{ ref('events') }}\n"
    "{% if is_incremental() %}where {{ scoped('repo') }}{% endif %}",
    # one ephemeral reading another, and a seed
    "intermediate/scaled.sql": "{{ config(materialized='ephemeral') }}\n"
    "with factor as (select value from {{ ref('factors') }} where name = 'scale')\n"
    "select repo, n * (select value from factor) as n from {{ ref('kept') }}",
    "marts/totals.sql": "{{ config(materialized='incremental') }}\n"
    "-- a model with CTEs of its own\n"
    "with summed as (select repo, sum(n) as n from {{ ref('scaled') }} group by repo)\n"
    "select repo, n, (select count(*) from {{ ref('kept') }}) as kept from summed",
    "marts/listed.sql": "{{ config(materialized='view') }}\nselect repo, n from {{ ref('kept') }}",
}


def _project(tmp_path: Path, files: dict[str, str]):
    root = tmp_path / "sql"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return load_project(root)


def test_an_ephemeral_model_is_no_model_of_the_build(tmp_path: Path) -> None:
    project = _project(tmp_path, TOY)
    assert set(project.models) == {"events", "totals", "listed"}
    assert set(project.ephemerals) == {"kept", "scaled"}
    assert project.order.index("events") < project.order.index("totals")
    # a model takes on what its ephemerals read, each ephemeral after the one it reads
    totals = project.models["totals"]
    assert totals.ephemerals == ("kept", "scaled")
    assert set(totals.refs) == {"events", "factors"}
    conn = duckdb.connect()
    result = build(conn, project, None)
    assert set(result.modes) == {"events", "totals", "listed"}
    tables = conn.execute("select table_name from information_schema.tables").fetchall()
    relations = {r[0] for r in tables}
    assert {"kept", "scaled"}.isdisjoint(relations)
    assert conn.execute("select * from marts.totals order by repo").fetchall() == [
        ("a/x", 30, 3),
        ("b/y", 30, 3),
    ]
    assert conn.execute("select count(*) from marts.listed").fetchone() == (3,)


def test_an_ephemeral_model_is_rendered_with_the_scope_of_its_reader(tmp_path: Path) -> None:
    project = _project(tmp_path, TOY)
    conn = duckdb.connect()
    build(conn, project, None)
    one = Scope({"repo": ("a/x",)})
    sql, params = render(project, project.models["totals"], scope=one, variables={"repo": "a/x"})
    assert params == {"repo": "a/x"}
    assert sql.index("__dbt__cte__kept as (") < sql.index("__dbt__cte__scaled as (")
    assert "where repo = $repo" in sql and "from __dbt__cte__kept" in sql
    conn.execute("update marts.totals set n = -n")
    assert build(conn, project, one, select=["totals"]).modes == {"totals": "incremental"}
    assert conn.execute("select * from marts.totals order by repo").fetchall() == [
        ("a/x", 30, 2),
        ("b/y", -30, 3),
    ]


def test_an_ephemeral_model_takes_no_data_test_and_no_cycle(tmp_path: Path) -> None:
    tested = {**TOY, "schema.yml": "models:\n  - name: kept\n    columns:\n"
              "      - name: repo\n        data_tests: [not_null]\n"}  # fmt: skip
    with pytest.raises(ProjectError, match="model kept is ephemeral"):
        _project(tmp_path / "tested", tested)
    looped = {**TOY, "staging/events.sql": "select * from {{ ref('listed') }}"}
    with pytest.raises(ProjectError, match="dependency cycle"):
        _project(tmp_path / "looped", looped)


def test_the_ctes_go_first_after_the_comments() -> None:
    ctes = ["__dbt__cte__a as (\nselect 1\n)"]
    assert with_ctes("-- what\nwith b as (select 2) select * from b", ctes) == (
        "-- what\nwith __dbt__cte__a as (\nselect 1\n), b as (select 2) select * from b"
    )
    assert with_ctes("\n/* a */ select 3", ctes) == (
        "\n/* a */ with __dbt__cte__a as (\nselect 1\n)\nselect 3"
    )
    assert with_ctes("select 3", []) == "select 3"
