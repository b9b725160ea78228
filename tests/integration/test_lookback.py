"""A revert or follow-up in one week updates the earlier week's PR, also in one-week builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_facts_support import build, pr, query, write_dataset

M = "MODIFIED"
MARTS = ["fct_pull_requests", "fct_weekly_risks", "fct_weekly_summary", "fct_weekly_area_trends"]


def nodes() -> list[dict]:
    return [
        # W10 (2026-03-02 .. 03-08)
        pr(1, "[engine] feat: thrust model", "2026-03-05T10:00:00Z",
           [("crafted/engine/t.py", 40, M)]),
        pr(2, "[sim] feat: wind presets", "2026-03-07T10:00:00Z", [("crafted/sim/w.py", 30, M)]),
        # W11 (03-09 .. 03-15): #1 reverted by number, #2 followed up within 7 days
        pr(3, 'Revert "[engine] feat: thrust model"', "2026-03-09T09:00:00Z",
           [("crafted/engine/t.py", 40, M)], body="Reverts #1"),
        pr(4, "[sim] fix: presets off by one", "2026-03-10T10:00:00Z",
           [("crafted/sim/w.py", 2, M)], body="Follow-up to #2."),
    ]  # fmt: skip


def build_home(home: Path, monkeypatch: pytest.MonkeyPatch, dataset: Path, *ranges) -> Path:
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    for week, to in ranges:
        build("acme/crafted", week, to, dataset)
    return home


def test_one_week_builds_update_the_earlier_prs_a_later_week_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    dataset = write_dataset(tmp_path / "links.jsonl", nodes())
    weekly = build_home(
        tmp_path / "weekly",
        monkeypatch,
        dataset,
        ("2026-W10", "2026-W10"),
        ("2026-W11", "2026-W11"),
    )
    risks = {
        (number, flag): reason
        for number, flag, reason in query(
            weekly, "select number, risk_flag, reason from marts.fct_weekly_risks"
        )
    }
    assert risks[(1, "revert")] == "reverted by #3"
    assert risks[(2, "quick_follow_up")] == "followed up by #4 within 3 days"
    assert query(weekly, "select reverted_by from marts.fct_pull_requests where number = 1") == [
        ([3],)
    ]

    # the same warehouse as one build of both weeks
    ranged = build_home(tmp_path / "ranged", monkeypatch, dataset, ("2026-W10", "2026-W11"))
    for table in MARTS:
        sql = f"select * from marts.{table} order by all"
        assert query(weekly, sql) == query(ranged, sql), table
