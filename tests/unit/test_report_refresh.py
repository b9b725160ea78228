"""Which reported weeks outside a run its facts may change (report/write.py: weeks_to_refresh):
the later weeks the models rebuilt, and the earlier weeks holding a PR that a PR of the run
reverts or follows up; only weeks that have a report."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import duckdb

from orchestration.report.write import refresh_candidates, weeks_to_refresh
from orchestration.run_scope import RunScope

REPO = "acme/rocket"
WEEK = [date(2026, 6, 1) + timedelta(weeks=i) for i in range(8)]


def test_the_earlier_weeks_a_run_reverts_or_follows_up_and_the_later_weeks(
    tmp_path: Path,
) -> None:
    conn = duckdb.connect()
    conn.execute(
        "create schema marts; create table marts.fct_pull_requests (repo varchar, "
        "week_start date, number bigint, reverted_by bigint[], followed_up_by bigint[])"
    )
    rows = [
        (WEEK[0], 1, [60], None),  # reverted by the run's #60
        (WEEK[1], 2, None, [61]),  # followed up by the run's #61
        (WEEK[2], 3, [99], [98]),  # by PRs outside the run
        (WEEK[3], 4, None, None),
        (WEEK[4], 5, [61], None),  # its report is missing: not written again
        (WEEK[5], 60, None, None),
        (WEEK[5], 61, None, None),
    ]
    for week, number, reverted_by, followed_up_by in rows:
        conn.execute(
            "insert into marts.fct_pull_requests values (?, ?, ?, ?, ?)",
            [REPO, week, number, reverted_by, followed_up_by],
        )
    conn.execute(
        "insert into marts.fct_pull_requests values ('other/repo', ?, 7, [60], null)", [WEEK[0]]
    )
    conn.execute(
        "create table marts.fct_weekly_summary as select ? as repo, unnest(?::date[]) as "
        "week_start",
        [REPO, WEEK],
    )
    folder = tmp_path / "acme__rocket"
    folder.mkdir()
    for week in WEEK[:4] + WEEK[5:]:
        (folder / f"{week}.en.md").write_text("# a week\n", encoding="utf-8")
    scope = RunScope(REPO, WEEK[5], WEEK[5])
    rebuilt = RunScope(REPO, WEEK[5], WEEK[6])
    assert weeks_to_refresh(conn, tmp_path, scope, rebuilt) == [WEEK[0], WEEK[1], WEEK[6]]
    # several runs in one query each: every run's weeks as alone, none of another repository's
    other = RunScope("other/repo", WEEK[5], WEEK[5])
    alone_4 = RunScope(REPO, WEEK[4], WEEK[4])
    runs = [(scope, rebuilt), (other, other), (alone_4, RunScope(REPO, WEEK[4], WEEK[7]))]
    assert refresh_candidates(conn, runs) == [
        [WEEK[0], WEEK[1], WEEK[4], WEEK[6]],  # before the look for their reports
        [],
        [WEEK[5], WEEK[6], WEEK[7]],
    ]
    assert refresh_candidates(conn, runs[2:]) == [[WEEK[5], WEEK[6], WEEK[7]]]
