"""`prweekly build --all`: every registered repository in one Dagster run, each model once for
all of them, with the same warehouse rows and reports as one build per repository."""

from __future__ import annotations

import io
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import duckdb

from orchestration.service.cli import main
from orchestration.service.dagster_run import blocks_of
from tests.conftest import SAMPLE_DATASET

FACTS = "select * from marts.fct_pull_requests order by repo, number"
SUMMARY = "select * from marts.fct_weekly_summary order by repo, week_start"


def run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def rows(home: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return conn.execute(sql).fetchall()


def test_build_all_gives_what_one_build_per_repository_gives(
    home: Path, sample_home: Path, tmp_path: Path
) -> None:
    shutil.copytree(sample_home, home)  # acme/rocket's weeks 27 to 30, built alone
    second = tmp_path / "acme__second.jsonl"
    second.write_text(
        SAMPLE_DATASET.read_text(encoding="utf-8").replace("acme/rocket", "acme/second"),
        encoding="utf-8",
    )
    code, said = run("build", "--repo", "acme/second", "--week", "2026-W27", "--to", "2026-W30",
                     "--source", f"file:{second}")  # fmt: skip
    assert code == 0, said
    last = sorted((home / "reports").rglob("2026-07-20.*"))
    assert {p.parent.name for p in last} == {"acme__rocket", "acme__second"}
    assert len(last) >= 8  # Markdown and HTML, Chinese and English, for each
    one_by_one = {p: p.read_bytes() for p in last}
    facts, summary = rows(home, FACTS), rows(home, SUMMARY)
    for path in last:
        path.unlink()

    code, said = run("build", "--all", "--week", "2026-W30")
    assert code == 0, said
    assert "building 2 repositories 2026-W30 in one run" in said
    assert {p: p.read_bytes() for p in last} == one_by_one
    assert rows(home, FACTS) == facts
    assert rows(home, SUMMARY) == summary


def test_build_all_refuses_a_source_and_an_empty_list(home: Path) -> None:
    code, said = run("build", "--all", "--week", "2026-W30", "--source", "github")
    assert code == 2 and "each repository from its own source" in said
    code, said = run("build", "--all", "--week", "2026-W30")
    assert code == 2 and "no repository in" in said


def test_a_partition_left_out_of_repositories_yml_splits_the_run() -> None:
    ordered = ["a/1", "b/2", "gone/3", "c/4"]
    assert blocks_of(ordered, {"a/1", "b/2", "c/4"}) == [("a/1", "b/2"), ("c/4", "c/4")]
    assert blocks_of(ordered, set(ordered)) == [("a/1", "c/4")]
