"""sql/ is a dbt project too: dbt-duckdb builds the bundled sample with the same rows as the
runner (`make dbt-check`, bench/dbt_check.py), and the comparison itself catches a difference."""

from __future__ import annotations

from pathlib import Path

import duckdb
import yaml

from bench.dbt_check import ROOT, check, compare, relations, table


def test_dbt_project_repeats_the_runner_variables() -> None:
    """dbt reads its `vars:` from dbt_project.yml, the runner from sql/project.yml: one value."""
    dbt_project = yaml.safe_load((ROOT / "dbt_project.yml").read_text(encoding="utf-8"))
    runner = yaml.safe_load((ROOT / "sql" / "project.yml").read_text(encoding="utf-8"))
    assert dbt_project["vars"] == runner["vars"], "copy sql/project.yml's vars to dbt_project.yml"


def _warehouse(path: Path, statements: list[str]) -> Path:
    with duckdb.connect(str(path)) as conn:
        conn.execute("create schema marts")
        for sql in statements:
            conn.execute(sql)
    return path


def test_the_comparison_counts_every_row_on_one_side_only(tmp_path: Path) -> None:
    runner = _warehouse(
        tmp_path / "runner.duckdb",
        [
            "create table marts.a as select * from (values (1, 'x'), (2, 'y'), (2, 'y')) t(n, s)",
            "create table marts.b as select 1::bigint as n",
            "create table marts.c as select 1 as n",
        ],
    )
    dbt = _warehouse(
        tmp_path / "dbt.duckdb",
        [
            # one row changed, one duplicate lost
            "create table marts.a as select * from (values (1, 'x'), (2, 'z')) t(n, s)",
            "create table marts.b as select 1::integer as n",
        ],
    )
    a, b, c = compare(runner, dbt, ["marts.a", "marts.b", "marts.c"])
    assert (a.rows, a.differing, a.same) == ((3, 2), 3, False)  # (2,y) twice, (2,z) once
    assert (b.rows, b.differing, b.same) == ((1, 1), 0, False)
    assert "BIGINT" in b.columns and "INTEGER" in b.columns
    assert (c.rows, c.differing, c.same) == ((1, None), 1, False)
    assert "missing" in table([a, b, c])


def test_dbt_builds_the_sample_with_the_runners_rows(sample_home: Path, tmp_path: Path) -> None:
    """Every model and seed of sql/, built by `dbt build` from the sample's lake (its data
    tests passing), holds exactly the rows of the runner's build of that lake."""
    comparisons = check(sample_home, tmp_path, log=print)
    print(table(comparisons))
    assert [c.relation for c in comparisons] == relations()
    assert any(c.relation == "marts.fct_pull_requests" and c.runner_rows for c in comparisons)
    assert [c.relation for c in comparisons if not c.same] == []
