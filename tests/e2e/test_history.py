"""Facts that compare with earlier weeks see the history they need, or say they cannot.

A crafted repository, `acme/ledger`, merges a few PRs every week from 2025-11-03 (its first PR)
to 2026-06-08, with one quiet week: regulars every week, a newcomer every third week, and an
`audit` area every fourth. Builds go through the CLI and Dagster from the `file` source.
"""

from __future__ import annotations

import os
import re
import stat
from datetime import date, timedelta
from pathlib import Path

import pytest

from orchestration.repositories.registry import load_repositories
from orchestration.service.cli import main
from tests.e2e.test_report_language import Quoted, composed_english, markdown_text
from tests.unit.test_facts_support import pr, query, write_dataset

REPO = "acme/ledger"
SLUG = "acme__ledger"
ORIGIN = date(2025, 11, 3)  # the week of the repository's first merged PR
QUIET = ORIGIN + timedelta(weeks=15)  # 2026-02-16: nothing merged
LAST = ORIGIN + timedelta(weeks=31)  # 2026-06-08: the week of the last PR in the file
HISTORY = 26  # the longest lookback the project declares (lookback_weeks, sql/project.yml)
M = "MODIFIED"


def ledger_nodes(version: int = 1) -> list[dict]:
    """The repository's PRs; version 2 adds three `audit` PRs by a newcomer in 2026-04-27."""
    nodes: list[dict] = []

    def add(week: date, hours: int, title: str, author: str, path: str, number: int = 0) -> None:
        merged = f"{week + timedelta(days=1)}T{hours:02d}:00:00Z"
        number = number or 1 + sum(1 for n in nodes if n["number"] < 900)
        nodes.append(pr(number, title, merged, [(path, 20, M)], repo=REPO, author=author))

    for i in range(32):
        week = ORIGIN + timedelta(weeks=i)
        if week == QUIET:
            continue
        add(week, 9, f"[core] feat: ledger step {i}", "alice", "ledger/core/engine.py")
        add(week, 10, f"[api] fix: endpoint {i}", "bob", "ledger/api/routes.py")
        if i % 3 == 0:
            add(week, 11, f"[core] fix: rounding {i}", f"newcomer{i}", "ledger/core/engine.py")
        if i % 4 == 1:
            add(week, 12, f"[audit] feat: audit trail {i}", "carol", "ledger/audit/log.py")
        if week == date(2026, 5, 11):
            add(week, 13, "[audit] feat: signed entries", "zoe", "ledger/audit/log.py")
        if week == date(2026, 4, 27) and version == 2:
            for hours in (14, 15, 16):  # numbered after the others, as if found later
                title = f"[audit] feat: export {hours}"
                add(week, hours, title, "zoe", "ledger/audit/log.py", number=900 + hours)
    return nodes


def first_time_authors(nodes: list[dict]) -> dict[date, int]:
    """Per week, the authors whose first PR in the whole history merged then."""
    first: dict[str, date] = {}
    for node in sorted(nodes, key=lambda n: n["mergedAt"]):
        day = date.fromisoformat(node["mergedAt"][:10])
        first.setdefault(node["author"]["login"], day - timedelta(days=day.weekday()))
    counts: dict[date, int] = {}
    for week in first.values():
        counts[week] = counts.get(week, 0) + 1
    return counts


def build(home: Path, dataset: Path | str, week: date, to: date | None = None) -> int:
    os.environ["PRWEEKLY_HOME"] = str(home)
    args = ["build", "--repo", REPO, "--week", str(week), "--source", f"file:{dataset}"]
    return main([*args, *(["--to", str(to)] if to else [])])


def lake_weeks(home: Path) -> list[date]:
    folder = home / "lake" / "raw" / "pull_requests" / f"repo={SLUG}"
    return sorted(date.fromisoformat(p.parent.name.removeprefix("week=")) for p in
                  folder.glob("week=*/data.parquet"))  # fmt: skip


def unknown_said_in_english(zh: str) -> list[str]:
    """English words the Chinese report composes where it says what it cannot know (the
    lines saying 未知; PR titles are taken out, the repository's name is a path)."""
    lines = [line for line in zh.splitlines() if "未知" in line]
    text = re.sub(r"\[#\d+\]\([^)]*\)[^；。\n]*", " ", "\n".join(lines))  # a PR and its title
    return composed_english(markdown_text(text), Quoted({"core", "api", "audit"}))


def reported_weeks(home: Path) -> list[date]:
    return sorted({date.fromisoformat(p.name[:10]) for p in (home / "reports" / SLUG).glob("*.md")})


@pytest.fixture(scope="module")
def last_week(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The last week of the file, 31 weeks after its first PR, built alone on an empty home
    under umask 027, with the dataset named by a relative path."""
    root = tmp_path_factory.mktemp("ledger")
    dataset = write_dataset(root / "ledger.jsonl", ledger_nodes())
    home = root / "home"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        previous = os.umask(0o027)
        try:
            code = build(home, os.path.relpath(dataset), LAST)
        finally:
            os.umask(previous)
    return {"home": home, "dataset": dataset, "code": code}


def test_a_week_built_alone_brings_its_history_and_says_what_it_cannot_know(
    last_week: dict,
) -> None:
    home = last_week["home"]
    assert last_week["code"] == 0
    since = LAST - timedelta(weeks=HISTORY)  # 2025-12-08, five weeks after the first PR
    assert lake_weeks(home) == [since + timedelta(weeks=i) for i in range(HISTORY + 1)]
    assert reported_weeks(home) == [LAST]
    summary = query(
        home,
        "select week_start, authors, first_time_authors, history_since, history_complete, "
        "volume_trend from marts.fct_weekly_summary order by week_start",
    )
    assert [r[0] for r in summary] == lake_weeks(home)  # the earlier weeks are modelled too
    assert summary[-1][1:] == (2, None, since, False, "steady")
    assert {r[2:5] for r in summary} == {(None, since, False)}  # newcomers: unknown, never all
    # core and api merge every week: steady with 26 weeks before, not "new"; audit, one PR every
    # fourth week, is quiet this week: 0 against 0.25 is steady, not falling
    trends = dict(
        query(
            home,
            "select area, trend from marts.fct_weekly_area_trends where week_start = ?",
            [LAST],
        )
    )
    assert trends == {"core": "steady", "api": "steady", "audit": "steady"}
    en = (home / "reports" / SLUG / f"{LAST}.en.md").read_text()
    zh = (home / "reports" / SLUG / f"{LAST}.zh.md").read_text()
    assert "2 pull requests merged this week, by 2 authors," in en and "of them new" not in en
    assert "First-time authors are unknown" in en and "from Week 50 of 2025 on" in en
    assert "首次贡献）" not in zh
    assert "首次贡献者未知" in zh and "从 2025 年第 50 周开始" in zh
    assert unknown_said_in_english(zh) == []


def test_output_files_follow_the_umask(last_week: dict) -> None:
    home = last_week["home"]
    checked = [
        home / "repositories.yml",
        *(home / "reports").rglob("*.*"),
        *(home / "lake").rglob("*.parquet"),
    ]
    assert len(checked) > 30
    modes = {str(p.relative_to(home)): oct(stat.S_IMODE(p.stat().st_mode)) for p in checked}
    assert set(modes.values()) == {"0o640"}, modes


def test_a_build_records_its_source_as_an_absolute_path(last_week: dict) -> None:
    (repo,) = load_repositories(last_week["home"])
    assert (repo.name, repo.source) == (REPO, f"file:{last_week['dataset']}")


def test_weeks_the_file_does_not_cover_are_refused(home: Path, tmp_path: Path, capsys) -> None:
    dataset = write_dataset(tmp_path / "ledger.jsonl", ledger_nodes())
    assert build(home, dataset, date(2026, 11, 23)) == 1  # 2026-W48, months after the file ends
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("prweekly: error:")]
    assert len(errors) == 1, err
    assert "2026-W48" in errors[0] and "2025-W45" in errors[0] and "2026-W24" in errors[0]
    assert lake_weeks(home) == [] and not (home / "reports").exists()
    assert load_repositories(home) == []


def test_a_failed_build_does_not_register_the_repository(home: Path, monkeypatch, capsys) -> None:
    from orchestration.config import load_settings
    from orchestration.service.instance import get_instance
    from orchestration.testing.github_emulator import Emulator
    from tests.conftest import SAMPLE_DATASET

    with Emulator(SAMPLE_DATASET) as emulator:
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        code = main(["build", "--repo", "acme/rockett", "--week", "2026-W30", "--source", "github"])
    assert code == 1
    assert "acme/rockett" in capsys.readouterr().err
    assert load_repositories(home) == []
    assert get_instance(load_settings()).get_dynamic_partitions("repo") == []


def test_building_an_earlier_week_refreshes_the_later_weeks_and_their_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2026-05-04..06-01 from the first version of the file, then 2026-04-27 from the second
    (three more PRs by a newcomer, as a search index that lagged would give): the warehouse and
    the reports equal one build of 2026-04-27..06-01 from the second version."""
    for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    v1 = write_dataset(tmp_path / "v1.jsonl", ledger_nodes(1))
    v2 = write_dataset(tmp_path / "v2.jsonl", ledger_nodes(2))
    first, last, earlier = date(2026, 5, 4), date(2026, 6, 1), date(2026, 4, 27)
    stepwise, at_once = tmp_path / "stepwise", tmp_path / "at_once"
    monkeypatch.setenv("PRWEEKLY_HOME", str(stepwise))
    assert build(stepwise, v1, first, last) == 0
    before = (stepwise / "reports" / SLUG / "2026-05-11.en.md").read_text()
    v1.write_bytes(v2.read_bytes())  # the source changed: the lagging PRs have appeared
    assert build(stepwise, v1, earlier) == 0
    assert build(at_once, v2, earlier, last) == 0

    # the history reaches the file's first PR and no further: first-time authors are known,
    # in every week, and the quiet week inside the file is a real empty week
    assert lake_weeks(at_once) == [ORIGIN + timedelta(weeks=i) for i in range(31)]
    newcomers = query(
        stepwise,
        "select week_start, merged_prs, first_time_authors, history_since, history_complete "
        "from marts.fct_weekly_summary order by 1",
    )
    expected = first_time_authors(ledger_nodes(2))
    assert [r[0] for r in newcomers] == lake_weeks(at_once)
    assert [r[2:] for r in newcomers] == [(expected.get(r[0], 0), ORIGIN, True) for r in newcomers]
    assert [r[:2] for r in newcomers if r[1] == 0] == [(QUIET, 0)]
    for table in ("fct_pull_requests", "fct_weekly_summary", "fct_weekly_area_trends",
                  "fct_weekly_risks", "int_hotspots"):  # fmt: skip
        schema = "intermediate" if table.startswith("int_") else "marts"
        sql = f"select * from {schema}.{table} order by all"
        assert query(stepwise, sql) == query(at_once, sql), table
    assert (
        reported_weeks(stepwise)
        == reported_weeks(at_once)
        == [earlier + timedelta(weeks=i) for i in range(6)]
    )
    # the reports (not the site's pages and feeds, which date each week's editions)
    for path in sorted((at_once / "reports" / SLUG).glob("2026-*")):
        assert (stepwise / "reports" / SLUG / path.name).read_bytes() == path.read_bytes(), path
    assert (stepwise / "reports" / SLUG / "2026-05-11.en.md").read_text() != before


def test_with_too_few_weeks_before_trends_and_core_paths_are_unknown(tmp_path: Path) -> None:
    """A lake holding four weeks and no record of the repository's beginning (as a lake written
    before prweekly learnt history, or a model rebuilt without its extract): every model built
    through the runner, the comparisons that need earlier weeks are unknown, never "new"."""
    import duckdb

    from orchestration.config import SQL_DIR
    from orchestration.extract.sources.nodes import to_row
    from orchestration.lake.layout import write_partition
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.build import build
    from orchestration.models.project import load_project
    from orchestration.report.queries import load_week
    from orchestration.report.render import render_week

    weeks = [ORIGIN + timedelta(weeks=i) for i in range(20, 24)]
    nodes = [n for n in ledger_nodes() if weeks[0].isoformat() <= n["mergedAt"][:10]]
    lake = tmp_path / "lake"
    for week in weeks:
        rows = [to_row(n, REPO) for n in nodes]
        write_partition(lake, REPO, week, [r for r in rows if r["week_start"] == week])
    project = load_project(SQL_DIR)
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        build(conn, project, None, sources=lake_sources(lake, tmp_path))
        summary = conn.execute(
            "select week_start, first_time_authors, trailing_avg_prs, volume_trend, "
            "history_since, history_complete from marts.fct_weekly_summary order by 1"
        ).fetchall()
        trends = conn.execute(
            "select distinct week_start, trend, trailing_avg is null "
            "from marts.fct_weekly_area_trends order by 1"
        ).fetchall()
        topics = conn.execute(
            "select distinct trend, trailing_avg is null, trailing_importance_avg is null "
            "from marts.fct_weekly_topics"
        ).fetchall()
        core = conn.execute(
            "select distinct week_start, core_path from marts.fct_pull_requests "
            "where primary_area = 'core' order by 1"
        ).fetchall()
        report = render_week(load_week(conn, REPO, weeks[-1]))
    assert [row[1:] for row in summary] == [(None, None, "unknown", weeks[0], False)] * 4
    assert {row[1:] for row in trends} == {("unknown", True)}
    assert topics == [("unknown", True, True)]  # topics compare with the same weeks as areas
    # the engine file (four PRs by the third week) is a hotspot whatever came before; until
    # then, with fewer than twelve weeks known, whether it is one is unknown, not false
    assert core == [(weeks[0], None), (weeks[1], None), (weeks[2], True), (weeks[3], True)]
    en, zh = report[f"{weeks[-1]}.en.md"], report[f"{weeks[-1]}.zh.md"]
    assert "First-time authors and trends are unknown" in en and "of them new" not in en
    assert "**core**: 1 PR this week (trend unknown" in en and "| unknown |" in en
    assert "首次贡献者和趋势未知" in zh and "趋势未知）" in zh and "| 未知 |" in zh
    assert unknown_said_in_english(zh) == []


def test_history_weeks_reads_the_project_the_definitions_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A build's process parses the SQL project once (a seventh of a second), not again here."""
    import orchestration.service.definitions  # noqa: F401  (what a build has loaded)
    from orchestration.extract import history

    expected = history.history_weeks.__wrapped__(history.SQL_DIR)
    monkeypatch.setattr(history, "load_project", lambda root: pytest.fail("parsed again"))
    assert history.history_weeks.__wrapped__(history.SQL_DIR) == expected > 0
