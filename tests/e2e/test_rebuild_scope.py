"""A weekly build that adds a week leaves every mart as one build of all the weeks would.

The added week's extract also reads the weeks between (history the models have not seen);
the week reverts and follows up PRs several weeks older (by number, by quoted title, by
merge commit), names an old PR too long ago to be a follow-up, and holds a PR that links to
nothing: whatever the models rebuild before the new week, the earlier PRs' rows must change
exactly as in a build from scratch.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from orchestration.assets import partition_key
from orchestration.config import load_settings
from orchestration.service.dagster_run import register_repo
from tests.unit.test_facts_support import build, pr, query, write_dataset

M = "MODIFIED"


def nodes() -> list[dict]:
    return [
        # history, 2026-W02 .. W08
        pr(1, "[engine] feat: thrust model", "2026-01-07T10:00:00Z",
           [("crafted/engine/t.py", 40, M)]),
        pr(2, "[sim] feat: wind presets", "2026-01-14T10:00:00Z", [("crafted/sim/w.py", 30, M)]),
        pr(3, "[engine] refactor: split solver", "2026-01-21T10:00:00Z",
           [("crafted/engine/s.py", 60, M)], author="bob"),
        pr(4, "[sim] feat: gust model", "2026-01-28T10:00:00Z", [("crafted/sim/g.py", 35, M)]),
        pr(5, "[engine] perf: cache the solver", "2026-02-04T10:00:00Z",
           [("crafted/engine/s.py", 20, M)], author="carol"),
        pr(6, "[ui] feat: control panel", "2026-02-11T10:00:00Z", [("crafted/ui/p.py", 25, M)]),
        pr(7, "[sim] feat: terrain", "2026-02-20T10:00:00Z", [("crafted/sim/t.py", 45, M)]),
        # the added week, 2026-W09
        pr(8, 'Revert "[engine] feat: thrust model"', "2026-02-23T09:00:00Z",
           [("crafted/engine/t.py", 40, M)], body="Reverts #1"),
        pr(9, 'Revert "[sim] feat: gust model"', "2026-02-24T09:00:00Z",
           [("crafted/sim/g.py", 35, M)]),
        pr(10, "[sim] fix: terrain seams", "2026-02-25T10:00:00Z",
           [("crafted/sim/t.py", 3, M)], body="Follow-up to #7."),
        pr(11, "[engine] fix: solver edge case", "2026-02-26T10:00:00Z",
           [("crafted/engine/s.py", 4, M)], body="A bug from #3.", author="dave"),
        pr(12, "Revert solver cache", "2026-02-27T10:00:00Z", [("crafted/engine/s.py", 20, M)],
           body="This reverts commit " + f"{5:04d}" + "0" * 12 + "."),
        pr(13, "[ui] feat: dark theme", "2026-02-28T10:00:00Z", [("crafted/ui/d.py", 30, M)],
           author="erin"),
    ]  # fmt: skip


def marts(home: Path) -> dict[str, list[tuple]]:
    tables = query(
        home,
        "select table_name from information_schema.tables "
        "where table_schema = 'marts' order by table_name",
    )
    return {name: query(home, f"select * from marts.{name} order by all") for (name,) in tables}


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple]]:
    """Every mart of one build of all the weeks of `nodes()`."""
    root = tmp_path_factory.mktemp("whole")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("PRWEEKLY_HOME", str(root / "home"))
        build("acme/crafted", "2026-W02", "2026-W09", write_dataset(root / "l.jsonl", nodes()))
    return marts(root / "home")


def test_adding_a_week_leaves_every_mart_as_a_build_of_all_weeks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: dict[str, list[tuple]]
) -> None:
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    dataset = write_dataset(tmp_path / "links.jsonl", nodes())

    monkeypatch.setenv("PRWEEKLY_HOME", str(tmp_path / "weekly"))
    build("acme/crafted", "2026-W02", "2026-W05", dataset)
    # W06..W08 are history this build's extract adds; W02..W05 the models already hold
    build("acme/crafted", "2026-W09", "2026-W09", dataset)
    weekly = marts(tmp_path / "weekly")

    # the links the added week makes reach the earlier PRs' rows
    reverted = dict(
        query(
            tmp_path / "weekly",
            "select number, reverted_by from marts.fct_pull_requests where number in (1, 4, 5)",
        )
    )
    assert reverted == {1: [8], 4: [9], 5: [12]}
    assert {"fct_pull_requests", "fct_weekly_risks", "fct_weekly_summary"} <= set(weekly)
    for table, rows in whole.items():
        assert weekly[table] == rows, table


def test_a_rewritten_week_drops_the_links_it_no_longer_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    before = write_dataset(tmp_path / "before.jsonl", nodes())
    # #8 was retitled and no longer reverts #1 when the week is read again
    edited = [
        {**node, "title": "[engine] feat: thrust model v2", "body": ""}
        if node["number"] == 8
        else node
        for node in nodes()
    ]
    after = write_dataset(tmp_path / "after.jsonl", edited)

    monkeypatch.setenv("PRWEEKLY_HOME", str(tmp_path / "weekly"))
    build("acme/crafted", "2026-W02", "2026-W09", before)
    build("acme/crafted", "2026-W09", "2026-W09", after)
    weekly = marts(tmp_path / "weekly")

    monkeypatch.setenv("PRWEEKLY_HOME", str(tmp_path / "whole"))
    build("acme/crafted", "2026-W02", "2026-W09", after)
    whole = marts(tmp_path / "whole")

    assert query(
        tmp_path / "weekly", "select reverted_by from marts.fct_pull_requests where number = 1"
    ) == [([],)]
    for table, rows in whole.items():
        assert weekly[table] == rows, table


def materialize_only(repo: str, week: str, dataset: Path, assets: list[str]) -> None:
    """A run of some assets only, as a selection launched from the Dagster UI."""
    import dagster as dg

    from orchestration.service.definitions import defs
    from orchestration.weeks import parse_week

    settings = load_settings()
    instance = register_repo(settings, repo)
    key = str(partition_key(repo, parse_week(week)))
    result = defs.resolve_job_def("weekly_report_job").execute_in_process(
        instance=instance,
        asset_selection=[dg.AssetKey(name) for name in assets],
        partition_key=key,
        run_config={
            "resources": {
                "prweekly": {"config": {"home": str(settings.home), "source": f"file:{dataset}"}}
            }
        },
    )
    assert result.success


def test_weeks_one_model_saw_alone_are_still_rebuilt_for_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: dict[str, list[tuple]]
) -> None:
    """Selections in the UI that build the extract and `stg_weekly_partitions` alone, or the
    extract alone (reading a modelled week again, changed), must not make the next build take
    those weeks as modelled by every model."""
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    dataset = write_dataset(tmp_path / "links.jsonl", nodes())
    retitled = [  # W04 as first read: #3 had another title
        {**n, "title": "[engine] refactor: solver split"} if n["number"] == 3 else n
        for n in nodes()
    ]
    first_read = write_dataset(tmp_path / "first.jsonl", retitled)

    monkeypatch.setenv("PRWEEKLY_HOME", str(tmp_path / "weekly"))
    build("acme/crafted", "2026-W02", "2026-W05", first_read)
    materialize_only(
        "acme/crafted", "2026-W09", dataset, ["raw_pull_requests", "stg_weekly_partitions"]
    )
    materialize_only("acme/crafted", "2026-W04", dataset, ["raw_pull_requests"])
    seen = "select model, count(*) from runs.modelled_weeks group by model"
    with duckdb.connect(str(tmp_path / "weekly" / "build" / "work.duckdb")) as conn:
        seen_by = dict(conn.execute(seen).fetchall())
    # W02..W05 by every model; the history before W09 and W09 itself by the selection only
    assert seen_by["stg_weekly_partitions"] == 8
    assert seen_by["fct_pull_requests"] == seen_by["int_weekly_history"] == 4
    build("acme/crafted", "2026-W09", "2026-W09", dataset)
    weekly = marts(tmp_path / "weekly")

    for table, rows in whole.items():
        assert weekly[table] == rows, table
