"""The dbt-style runner on small projects written by each test, with no prweekly table and no
Dagster (its adapters: tests/integration/test_model_assets.py)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest

from orchestration.models.project import Project, ProjectError, load_project
from orchestration.models.run import materialize
from orchestration.run_scope import RunScope


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


PARTITIONS = (  # the project file's partition keys: a run's repository and weeks
    "partitions:\n  repo: {type: varchar, var: repo}\n"
    "  week_start: {type: date, first: start_week, last: end_week, step_days: 7}\n"
)


PROJECT = {
    "project.yml": PARTITIONS,
    "seeds/factors.csv": "name,value\nscale,10\n",
    "staging/numbers.sql": "{{ config(materialized='table') }}\n"
    "select * from (values (1, 'a'), (2, 'b'), (2, 'c')) t(id, name)",
    "marts/scaled.sql": "{{ config(materialized='view') }}\n"
    "select n.id * f.value as scaled from {{ ref('numbers') }} n\n"
    "cross join {{ ref('factors') }} f where f.name = 'scale'",
    "marts/weekly.sql": "{{ config(materialized='incremental') }}\n"
    "select {{ var('repo') }} as repo, cast({{ var('start_week') }} as date) as week_start,\n"
    "    scaled from {{ ref('scaled') }}\n"
    "{% if is_incremental() %}where true{% endif %}",
    "staging/schema.yml": "models:\n  - name: numbers\n    columns:\n      - name: id\n"
    "        data_tests: [not_null, unique]\n      - name: name\n"
    "        data_tests:\n          - accepted_values:\n              values: [a, b, c]\n",
}


def test_models_are_ordered_by_their_refs(tmp_path: Path) -> None:
    project = load_project(write_project(tmp_path / "sql", PROJECT))
    assert project.order.index("numbers") < project.order.index("scaled")
    assert project.order.index("scaled") < project.order.index("weekly")
    assert project.models["scaled"].refs == ("numbers", "factors")
    assert project.models["weekly"].materialized == "incremental"
    assert project.models["numbers"].relation == "staging.numbers"
    assert [t.name for t in project.models["numbers"].tests] == [
        "not_null_id",
        "unique_id",
        "accepted_values_name",
    ]


def test_a_cycle_names_the_file_and_the_model(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "sql",
        {"m/a.sql": "select * from {{ ref('b') }}", "m/b.sql": "select * from {{ ref('a') }}"},
    )
    with pytest.raises(
        ProjectError, match=r"m/[ab]\.sql: model [ab] is part of a dependency cycle"
    ):
        load_project(root)


def test_an_unknown_ref_names_the_file_the_model_and_the_ref(tmp_path: Path) -> None:
    root = write_project(tmp_path / "sql", {"m/a.sql": "select * from {{ ref('missing') }}"})
    with pytest.raises(ProjectError, match=r"m/a\.sql: model a refers to unknown .* 'missing'"):
        load_project(root)


def test_a_bad_materialization_is_refused(tmp_path: Path) -> None:
    root = write_project(tmp_path / "sql", {"m/a.sql": "{{ config(materialized='snapshot') }}"})
    with pytest.raises(ProjectError, match="materialized='snapshot'"):
        load_project(root)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("materialized='incremental', lookback=-1", "lookback=-1, expected"),
        ("materialized='incremental', lookback='4'", "lookback='4', expected"),
        ("materialized='table', lookback=4", "needs materialized='incremental'"),
    ],
)
def test_a_bad_lookback_is_refused(tmp_path: Path, config: str, message: str) -> None:
    root = write_project(tmp_path / "sql", {"m/a.sql": f"{{{{ config({config}) }}}}"})
    with pytest.raises(ProjectError, match=message):
        load_project(root)


def _upstream_built(tmp_path: Path) -> tuple[Project, duckdb.DuckDBPyConnection]:
    """PROJECT in memory, its seeds loaded and the models `weekly` reads built."""
    from orchestration.models.seeds import load_seeds

    project = load_project(write_project(tmp_path / "sql", PROJECT))
    conn = duckdb.connect()
    load_seeds(conn, project)
    for name in ("numbers", "scaled"):
        materialize(conn, project, project.models[name], scope=None)
    return project, conn


def test_incremental_rerun_replaces_its_weeks_without_duplicates(tmp_path: Path) -> None:
    project, conn = _upstream_built(tmp_path)
    weekly = project.models["weekly"]
    w1 = RunScope("acme/rocket", date(2026, 7, 13), date(2026, 7, 13))
    w2 = RunScope("acme/rocket", date(2026, 7, 20), date(2026, 7, 20))
    assert materialize(conn, project, weekly, scope=w1.partitions()) == "full"
    assert materialize(conn, project, weekly, scope=w1.partitions()) == "incremental"
    assert materialize(conn, project, weekly, scope=w2.partitions()) == "incremental"
    assert materialize(conn, project, weekly, scope=w2.partitions()) == "incremental"
    rows = conn.execute(
        "select week_start, count(*), sum(scaled) from marts.weekly group by 1 order by 1"
    ).fetchall()
    assert rows == [(date(2026, 7, 13), 3, 50), (date(2026, 7, 20), 3, 50)]


def test_what_a_write_records_commits_with_its_rows_and_fails_with_them(tmp_path: Path) -> None:
    """`with_write` runs in the transaction replacing an incremental run's weeks: a record
    that fails takes the week's new rows with it, and one that succeeds commits with them."""
    project, conn = _upstream_built(tmp_path)
    weekly = project.models["weekly"]
    scope = RunScope("acme/rocket", date(2026, 7, 13), date(2026, 7, 13)).partitions()
    conn.execute("create table seen (model varchar)")

    def note() -> None:
        conn.execute("insert into seen values ('weekly')")

    assert materialize(conn, project, weekly, scope=scope, with_write=note) == "full"
    conn.execute("update marts.weekly set scaled = 0")  # what a rerun must replace

    def fail() -> None:
        note()
        raise RuntimeError("the record failed")

    with pytest.raises(RuntimeError, match="the record failed"):
        materialize(conn, project, weekly, scope=scope, with_write=fail)
    assert conn.execute("select sum(scaled) from marts.weekly").fetchone() == (0,)
    assert conn.execute("select count(*) from seen").fetchone() == (1,)
    assert materialize(conn, project, weekly, scope=scope, with_write=note) == "incremental"
    assert conn.execute("select sum(scaled) from marts.weekly").fetchone() == (50,)
    assert conn.execute("select count(*) from seen").fetchone() == (2,)


def test_a_declared_python_function_is_callable_from_a_model(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "sql",
        {
            "functions.yml": "functions:\n  - name: shout\n"
            "    python: tests.unit.test_model_runner:shout\n"
            "    args: [VARCHAR]\n    returns: VARCHAR\n",
            "marts/loud.sql": "{{ config(materialized='table') }}\n"
            "select shout(name) as loud, shout(null) as nothing "
            "from (values ('a'), ('b')) t(name)",
        },
    )
    project = load_project(root)
    with duckdb.connect() as conn:
        for _ in range(2):  # registered once per connection, however many builds call it
            materialize(conn, project, project.models["loud"], scope=None)
        rows = conn.execute("select * from marts.loud order by 1").fetchall()
    assert rows == [("A!", None), ("B!", None)]


def test_a_function_the_connection_already_has_is_kept(tmp_path: Path) -> None:
    """Other code may have given the connection the function: the model calls that one."""
    root = write_project(
        tmp_path / "sql",
        {
            "functions.yml": "functions:\n  - name: shout\n"
            "    python: tests.unit.test_model_runner:shout\n"
            "    args: [VARCHAR]\n    returns: VARCHAR\n",
            "marts/loud.sql": "{{ config(materialized='table') }}\nselect shout('a') as loud",
        },
    )
    project = load_project(root)
    with duckdb.connect() as conn:
        conn.create_function("shout", lambda text: text + "?", ["VARCHAR"], "VARCHAR")
        materialize(conn, project, project.models["loud"], scope=None)
        assert conn.execute("select * from marts.loud").fetchall() == [("a?",)]


def test_a_relationships_target_is_built_before_the_model_it_tests(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "sql",
        {
            "marts/a_child.sql": "select 1 as id",
            "marts/z_parent.sql": "select 1 as id",
            "marts/schema.yml": "models:\n  - name: a_child\n    columns:\n      - name: id\n"
            "        data_tests:\n          - relationships:\n              to: ref('z_parent')\n"
            "              field: id\n",
        },
    )
    order = load_project(root).order
    assert order.index("z_parent") < order.index("a_child")


def shout(text: str | None) -> str | None:
    """A Python function the first test's project declares."""
    return None if text is None else text.upper() + "!"


MANY = {
    "project.yml": PARTITIONS,
    "staging/events.sql": "{{ config(materialized='table') }}\n"
    "select * from (values ('a/x', 1), ('b/y', 2), ('c/z', 3)) t(repo, n)",
    "marts/counted.sql": "{{ config(materialized='incremental') }}\n"
    "select e.repo, n * (select count(*) from {{ ref('events') }}) as n\n"
    "from {{ ref('events') }} e\n"
    "{% if is_incremental() %}where {{ scoped('repo', 'e.repo') }}{% endif %}",
    "marts/one_repo.sql": "{{ config(materialized='incremental') }}\n"
    "select repo from {{ ref('events') }}\n"
    "{% if is_incremental() %}where repo = {{ var('repo') }}{% endif %}",
}


def test_a_scope_of_several_repositories_replaces_each_of_them_once(tmp_path: Path) -> None:
    from orchestration.models.render import render
    from orchestration.models.scope import Scope

    project = load_project(write_project(tmp_path / "sql", MANY))
    conn = duckdb.connect()
    materialize(conn, project, project.models["events"], scope=None)
    counted = project.models["counted"]
    assert materialize(conn, project, counted, scope=None) == "full"
    conn.execute("update marts.counted set n = -n")  # stale rows: a run must replace its own
    both = Scope({"repo": ("a/x", "c/z")})
    assert materialize(conn, project, counted, scope=both) == "incremental"
    rows = conn.execute("select repo, n from marts.counted order by repo").fetchall()
    assert rows == [("a/x", 3), ("b/y", -6), ("c/z", 9)]
    # one repository renders the filter a model would write by hand, so its SQL is unchanged
    one = Scope({"repo": ("b/y",)})
    sql, params = render(project, counted, scope=one, variables={"repo": "b/y"})
    assert "where e.repo = $repo" in sql and params == {"repo": "b/y"}
    assert materialize(conn, project, counted, scope=one) == "incremental"
    assert conn.execute("select n from marts.counted where repo = 'b/y'").fetchall() == [(6,)]


def test_a_model_reading_var_repo_refuses_several_and_names_scoped(tmp_path: Path) -> None:
    from orchestration.models.scope import Scope

    project = load_project(write_project(tmp_path / "sql", MANY))
    conn = duckdb.connect()
    materialize(conn, project, project.models["events"], scope=None)
    one_repo = project.models["one_repo"]
    materialize(conn, project, one_repo, scope=None)
    with pytest.raises(ProjectError, match=r"var\('repo'\) holds one repo, the scope names 2.*"
                       r"scoped\('repo'\)"):  # fmt: skip
        materialize(conn, project, one_repo, scope=Scope({"repo": ("a/x", "b/y")}))


def test_a_full_build_in_parts_gives_the_rows_of_one_build(tmp_path: Path) -> None:
    """Each part of the repositories through the incremental SQL, into one table; the parts
    are asked for once, after the models before them are built."""
    from collections.abc import Callable

    from orchestration.database import transaction
    from orchestration.models.build import build
    from orchestration.models.render import render
    from orchestration.models.scope import Scope
    from orchestration.models.sources import BuildContext, SourceRequest

    how = "select repo, {% if is_incremental() %}'part'{% else %}'whole'{% endif %} as sql\n"
    marked = {  # each says which SQL built its rows; `lake` is read whole, as the lake is
        "marts/marked.sql": "{{ config(materialized='incremental') }}\n" + how
        + "from {{ ref('events') }}{% if is_incremental() %} where {{ scoped('repo') }}{% endif %}",
        "staging/copied.sql": "{{ config(materialized='incremental') }}\n" + how
        + "from {{ source('lake', 'events') }}",
        # a source whose hook loads its table in a transaction of its own (as the settings do)
        "marts/configured.sql": "{{ config(materialized='incremental') }}\n"
        "select e.repo, c.factor from {{ ref('events') }} e\n"
        "cross join {{ source('conf', 'factor') }} c"
        "{% if is_incremental() %} where {{ scoped('repo', 'e.repo') }}{% endif %}",
        "staging/sources.yml": "sources:\n  - name: lake\n    tables:\n"
        "      - name: events\n        read_whole: true\n"
        "  - name: conf\n    tables:\n      - name: factor\n",
    }  # fmt: skip
    project = load_project(write_project(tmp_path / "sql", {**MANY, **marked}))
    whole = duckdb.connect()
    build(whole, project, None, select=["events", "counted"])

    def load_factor(context: BuildContext) -> Callable[[SourceRequest], str]:
        def resolve(request: SourceRequest) -> str:
            with transaction(context.conn):
                context.conn.execute("create schema if not exists conf")
                context.conn.execute("create or replace table conf.factor as select 2 as factor")
            return "conf.factor"

        return resolve

    hooks = {"lake": lambda context: lambda request: "staging.events", "conf": load_factor}
    expected = whole.execute("select * from marts.counted order by all").fetchall()
    week = (date(2026, 7, 20), date(2026, 7, 20))
    asked = []

    def parts(conn: duckdb.DuckDBPyConnection) -> list[Scope]:
        asked.append(conn.execute("select count(*) from staging.events").fetchone()[0])
        return [Scope({}, {"repo": ("a/x", "b/y"), "week_start": week}),
                Scope({}, {"repo": ("c/z", "c/z"), "week_start": week})]  # fmt: skip

    conn = duckdb.connect()
    models = ["events", "copied", "counted", "marked", "configured"]
    built = build(conn, project, None, select=models, parts=parts, sources=hooks)
    assert built.modes == {
        "events": "table", "copied": "full", "counted": "full", "marked": "full",
        "configured": "full",
    }  # fmt: skip
    assert conn.execute("select count(*) from marts.configured").fetchone() == (3,)
    assert asked == [3]
    assert conn.execute("select distinct sql from staging.copied").fetchall() == [("whole",)]
    assert conn.execute("select * from marts.counted order by all").fetchall() == expected
    assert conn.execute("select * from marts.marked order by all").fetchall() == [
        ("a/x", "part"), ("b/y", "part"), ("c/z", "part")
    ]  # fmt: skip
    sql, params = render(project, project.models["counted"], scope=parts(conn)[0], variables={})
    assert "e.repo between $scope_repo_first::varchar and $scope_repo_last::varchar" in sql
    assert (params["scope_repo_first"], params["scope_repo_last"]) == ("a/x", "b/y")


def test_run_query_spells_a_seed_into_the_sql_as_dbt_does(tmp_path: Path) -> None:
    """`run_query` under `if execute`: nothing runs while the project is parsed, and a
    rendered model spells the seed's rows where DuckDB takes no parameter."""
    from orchestration.models.render import render
    from orchestration.models.scope import Scope

    files = {
        "project.yml": PARTITIONS,
        "seeds/colours.csv": "colour,position\nred,2\nblue,1\n",
        "marts/picked.sql": "{{ config(materialized='incremental') }}\n"
        "{% set seed = ref('colours') %}{% if execute %}{% set names = run_query("
        "'select colour from ' ~ seed ~ ' order by position').columns[0].values() %}"
        "{% else %}{% set names = [] %}{% endif %}"
        "select {{ var('repo') }} as repo, [{% for n in names %}'{{ n }}'"
        "{{ ', ' if not loop.last }}{% endfor %}] as names",
    }
    project = load_project(write_project(tmp_path / "sql", files))
    assert project.models["picked"].refs == ("colours",)
    conn = duckdb.connect()
    from orchestration.models.seeds import load_seeds

    load_seeds(conn, project)
    sql, params = render(
        project, project.models["picked"], scope=Scope({"repo": ("a/x",)}),
        variables={"repo": "a/x"}, conn=conn,
    )  # fmt: skip
    assert "['blue', 'red'] as names" in sql and params == {"repo": "a/x"}
    one = Scope({"repo": ("a/x",)})
    assert materialize(conn, project, project.models["picked"], scope=one) == "full"
    assert conn.execute("select * from marts.picked").fetchall() == [("a/x", ["blue", "red"])]
