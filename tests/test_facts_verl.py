"""The whole verl history in one range build: every PR typed and placed, few `other`."""

from __future__ import annotations

import time
from pathlib import Path

from tests.test_facts_support import FLAGS, build, query


def test_verl_full_history_is_typed_and_placed(
    home: Path, verl_dataset: Path, monkeypatch, capsys
) -> None:
    started = time.monotonic()
    build("verl-project/verl", "2024-10-28", "2026-08-17", verl_dataset)
    seconds = time.monotonic() - started
    capsys.readouterr()
    ((total, untyped, unplaced, other),) = query(
        home,
        "select count(*), count(*) filter (where change_type is null), "
        "count(*) filter (where primary_area is null), "
        "count(*) filter (where change_type = 'other') from marts.fct_pull_requests",
    )
    assert total == 2883
    assert untyped == 0 and unplaced == 0
    assert other / total < 0.05
    # git history holds no reviews: those flags are unknown for every PR, never raised
    ((no_approval, unresolved),) = query(
        home,
        "select count(no_approval), count(unresolved_threads) from marts.fct_pull_requests",
    )
    assert no_approval == 0 and unresolved == 0
    flags = {r[0] for r in query(home, "select distinct risk_flag from marts.fct_weekly_risks")}
    assert flags <= set(FLAGS) - {"no_approval", "unresolved_threads"}
    ((weeks, key_median),) = query(
        home, "select count(*), median(key_prs) from marts.fct_weekly_summary"
    )
    assert weeks == 95 and 2 <= key_median <= 8  # a handful of key PRs in a typical week
    print(f"verl: {total} PRs, other {other / total:.1%}, built in {seconds:.1f}s")
