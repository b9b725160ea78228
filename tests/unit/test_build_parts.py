"""The parts a build of every model over a big history is made in
(orchestration/warehouse/parts)."""

from __future__ import annotations

from datetime import date

import duckdb

from orchestration.config import SQL_DIR
from orchestration.models.project import load_project
from orchestration.models.scope import Scope
from orchestration.warehouse.parts import full_build_parts


def test_repositories_in_name_order_make_parts_of_at_most_part_prs() -> None:
    conn = duckdb.connect()
    conn.execute("create schema staging")
    prs = [("c/c", n, date(2026, 7, 6 if n <= 3 else 13)) for n in range(1, 6)]
    prs += [("a/a", n, date(2026, 7, 13 if n <= 2 else 20)) for n in range(1, 4)]
    prs += [("d/d", n, date(2026, 7, 20)) for n in range(1, 3)]
    conn.execute(
        "create table staging.stg_pull_requests (repo varchar, number int, week_start date)"
    )
    conn.executemany("insert into staging.stg_pull_requests values (?, ?, ?)", prs)
    # b/b has weeks and no PR; the weeks reach before and after every PR
    conn.execute(
        "create table staging.stg_weekly_partitions as select * from (values "
        "('b/b', date '2026-06-29'), ('a/a', date '2026-07-13'), ('d/d', date '2026-07-27')) "
        "t(repo, week_start)"
    )
    parts = full_build_parts(load_project(SQL_DIR), part_prs=5)(conn)
    weeks = (date(2026, 6, 29), date(2026, 7, 27))
    assert parts == [
        Scope({}, {"repo": ("a/a", "b/b"), "week_start": weeks}),  # 3 + 0 PRs
        Scope({}, {"repo": ("c/c", "c/c"), "week_start": weeks}),  # 5 PRs: a part alone
        Scope({}, {"repo": ("d/d", "d/d"), "week_start": weeks}),
    ]
    # a history that fits in one part is built whole, as before (build.build needs two)
    assert len(full_build_parts(load_project(SQL_DIR))(conn)) == 1
