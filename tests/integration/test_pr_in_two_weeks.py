"""A PR the lake holds in two weeks (merged_at corrected after its first week was extracted,
or merged, reverted and merged again) fails the staging `unique` test, so its weeks are held
back; the models must still keep it once per week, not multiply it through joins on
(repo, number) alone."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import duckdb

from orchestration.config import SQL_DIR
from orchestration.extract.history import write_origin
from orchestration.extract.sources.nodes import to_row
from orchestration.lake.layout import write_partition
from orchestration.lake.model_sources import lake_sources
from orchestration.models.project import load_project
from orchestration.models.run import materialize
from orchestration.models.seeds import load_seeds
from tests.unit.test_facts_support import pr

REPO = "acme/crafted"


def _build_twice_held(home: Path) -> dict[str, int]:
    """Every model over a lake holding PR #1 in two weeks; its rows per model that has it."""
    first = pr(1, "feat: add the loader", "2026-07-07T10:00:00Z", [("src/a.py", 10, "MODIFIED")])
    other = pr(2, "fix: the parser", "2026-07-14T10:00:00Z", [("src/b.py", 10, "MODIFIED")])
    moved = pr(1, "feat: add the loader", "2026-07-15T10:00:00Z", [("src/a.py", 10, "MODIFIED")])
    by_week: dict = defaultdict(list)
    for node in (first, other, moved):
        row = to_row(node, REPO)
        by_week[row["week_start"]].append(row)
    for week, rows in by_week.items():
        write_partition(home / "lake", REPO, week, rows)
    write_origin(home / "lake", REPO, min(by_week), "crafted nodes")
    project = load_project(SQL_DIR)
    counts = {}
    with duckdb.connect(str(home / "warehouse.duckdb")) as conn:
        load_seeds(conn, project)
        sources = lake_sources(home / "lake", home)
        for name in project.order:
            model = project.models[name]
            materialize(conn, project, model, scope=None, sources=sources)
            columns = {r[0] for r in conn.execute(f"describe {model.relation}").fetchall()}
            if {"repo", "week_start", "number"} <= columns:
                (n,) = conn.execute(
                    f"select count(*) from {model.relation} where number = 1"
                ).fetchone()
                counts[name] = n
    return counts


def test_a_pr_in_two_weeks_is_one_row_a_week_in_every_model(tmp_path: Path) -> None:
    counts = _build_twice_held(tmp_path)
    assert counts["stg_pull_requests"] == 2
    assert {name: n for name, n in counts.items() if n > 2} == {}
