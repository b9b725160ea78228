"""The whole verl history in one range build, from the file and through the GitHub emulator."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from orchestration.cli import main
from orchestration.emulator import Emulator
from tests.conftest import VERL_DATASET
from tests.test_facts_support import FLAGS, query

REPO = "verl-project/verl"
RANGE = ["--week", "2024-10-28", "--to", "2026-08-17"]
# The dataset has no review threads; GitHub's schema makes that connection non-null, so the
# emulator answers "none" where the file says "unknown" (see orchestration/emulator/resolvers.py):
# (value from the file, value through github) for the only columns that may differ.
DIFFERS_THROUGH_GITHUB = {"unresolved_threads": {(None, False)}, "importance_review": {(None, 0)}}


@pytest.fixture(scope="module")
def verl_builds(tmp_path_factory) -> dict[str, Path]:
    """The verl history built twice: from the file, and through the emulator and github source."""
    if not VERL_DATASET.exists():
        pytest.skip("the shared verl dataset is not beside the clone (../shared/datasets/)")
    root = tmp_path_factory.mktemp("verl")
    homes = {"file": root / "file", "github": root / "github"}
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(homes["file"]))
        started = time.monotonic()
        assert main(["build", "--repo", REPO, *RANGE, "--source", f"file:{VERL_DATASET}"]) == 0
        print(f"verl from the file: {time.monotonic() - started:.1f}s")
        with Emulator(VERL_DATASET) as emulator:
            mp.setenv("PRWEEKLY_HOME", str(homes["github"]))
            mp.setenv("GITHUB_GRAPHQL_URL", emulator.url)
            assert main(["build", "--repo", REPO, *RANGE, "--source", "github"]) == 0
    return homes


def test_every_pr_is_typed_and_placed_with_few_other(verl_builds) -> None:
    home = verl_builds["file"]
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


def test_the_github_source_gives_the_same_marts_as_the_file(verl_builds) -> None:
    file, github = verl_builds["file"], verl_builds["github"]
    columns = [
        name
        for (name,) in query(
            file,
            "select column_name from information_schema.columns "
            "where table_schema = 'marts' and table_name = 'fct_pull_requests' "
            "order by ordinal_position",
        )
    ]
    select = f"select {', '.join(columns)} from marts.fct_pull_requests order by number"
    from_file, from_github = query(file, select), query(github, select)
    assert [r[1] for r in from_github] == [r[1] for r in from_file]  # the same 2,883 PRs
    differing: dict[str, set] = {}
    for a, b in zip(from_file, from_github, strict=True):
        for column, x, y in zip(columns, a, b, strict=True):
            if x != y:
                differing.setdefault(column, set()).add((x, y))
    assert differing == DIFFERS_THROUGH_GITHUB
    for table in ("fct_weekly_summary", "fct_weekly_area_trends", "fct_weekly_risks"):
        select = f"select * from marts.{table} order by all"
        assert query(github, select) == query(file, select), table


def test_one_week_alone_compares_with_the_history_it_extracted(verl_builds, tmp_path) -> None:
    """The README's example, week 30 on an empty home: its comparisons equal the full
    history's; first-time authors, which need the history from verl's first PR, are unknown."""
    home = tmp_path / "alone"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        assert main(["build", "--repo", REPO, "--week", "2026-W30", "--source",
                     f"file:{VERL_DATASET}"]) == 0  # fmt: skip
    full = verl_builds["file"]
    week = "date '2026-07-20'"
    trends = f"select * from marts.fct_weekly_area_trends where week_start = {week} order by all"
    assert query(home, trends) == query(full, trends)
    assert {t for (t,) in query(home, f"select trend from ({trends})")} != {"new"}
    prs = (
        "select number, change_type, areas, core_path, importance from marts.fct_pull_requests "
        f"where week_start = {week} order by number"
    )
    assert query(home, prs) == query(full, prs)
    summary = (
        "select authors, first_time_authors, trailing_avg_prs, volume_trend, history_complete "
        f"from marts.fct_weekly_summary where week_start = {week}"
    )
    ((authors, newcomers, *rest, complete),) = query(full, summary)
    assert (authors, complete) == (19, True) and newcomers < authors
    assert query(home, summary) == [(authors, None, *rest, False)]
    report = (home / "reports" / "verl-project__verl" / "2026-07-20.en.md").read_text()
    assert "19 authors." in report and "of them new" not in report
