"""End-to-end builds through the CLI, Dagster and a real DuckDB file."""

from __future__ import annotations

import gzip
import io
from contextlib import redirect_stderr, redirect_stdout
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from orchestration.service.cli import main
from tests.conftest import SAMPLE_DATASET, build_sample

SAMPLE_WEEKS = ["2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20"]


def query(home: Path, sql: str, params: list | None = None) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return conn.execute(sql, params or []).fetchall()


def report_bytes(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((home / "reports").rglob("*.md"))}


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The sample's four weeks (`--to` given as a date), built once for the tests that only
    read them, with what the build printed."""
    home = tmp_path_factory.mktemp("sample-build") / "home"
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        with redirect_stdout(out), redirect_stderr(err):
            code = build_sample("2026-W27", "2026-07-22")
    assert code == 0, err.getvalue()
    return home, out.getvalue() + err.getvalue()


def test_sample_build_fills_every_mart(sample_build: tuple[Path, str]) -> None:
    home, _ = sample_build
    weeks = query(
        home,
        "select week_start, merged_prs, authors, first_time_authors, theme "
        "from marts.fct_weekly_summary order by week_start",
    )
    assert [(str(w), n) for w, n, *_ in weeks] == list(
        zip(SAMPLE_WEEKS, [7, 9, 8, 10], strict=True)
    )
    assert weeks[0][3] == 7 and weeks[1][3] == 1  # everyone is new in the first week
    facts = {
        row[0]: row[1:]
        for row in query(
            home,
            "select number, change_type, primary_area, areas, is_breaking, risk_flags "
            "from marts.fct_pull_requests",
        )
    }
    assert len(facts) == 34
    assert facts[105] == (
        "refactor",
        "engine",
        ["config", "engine"],
        True,
        ["breaking_change", "core_path", "missing_tests"],
    )
    assert facts[110][:2] == ("fix", "sensors")  # [Bugfix] tag; area from non-test paths
    assert facts[109][:2] == ("fix", "sim")  # conventional commit scope
    assert facts[112][0] == "revert"
    assert facts[103][0] == "docs"
    assert facts[126][0] == "docs"  # "Update CONTRIBUTING guide": docs-only paths
    assert facts[122][4] == ["large_change", "missing_tests"]
    risks = query(
        home,
        "select risk_flag, reason from marts.fct_weekly_risks where number = 122 order by 1",
    )
    assert risks[0] == ("large_change", "2520 lines across 3 files")
    trends = {
        (str(week), area): (count, trend)
        for week, area, count, trend in query(
            home, "select week_start, area, pr_count, trend from marts.fct_weekly_area_trends"
        )
    }
    assert trends[("2026-07-06", "sim")] == (3, "new")
    assert trends[("2026-07-13", "engine")] == (1, "falling")  # 1 against a trailing 2.0
    # 2 against a trailing average under 1.33: a rise of 1.5 times and more than one PR
    assert trends[("2026-07-20", "telemetry")] == (2, "rising")


def test_reports_exist_in_both_languages_with_every_section(sample_build) -> None:
    home, output = sample_build
    reports = home / "reports" / "acme__rocket"
    for week in SAMPLE_WEEKS:
        for lang in ("zh", "en"):
            assert str(reports / f"{week}.{lang}.md") in output
    en = (reports / "2026-07-20.en.md").read_text()
    zh = (reports / "2026-07-20.zh.md").read_text()
    assert en.startswith("# `acme/rocket` weekly report · Week 30 of 2026")
    assert zh.startswith("# `acme/rocket` 技术周报 · 2026 年第 30 周")
    for heading in ("What happened", "Key stories", "Risks", "What to do", "Key PRs", "Appendix"):
        assert f"## {heading}" in en
    for heading in ("本周概要", "重点故事", "风险", "后续建议", "重点 PR 一览", "附录"):
        assert f"## {heading}" in zh
    assert "10 pull requests merged this week" in en
    assert "本周合并 10 个 PR" in zh
    assert "[#132](https://github.com/acme/rocket/pull/132)" in en


def test_rebuilding_gives_the_same_rows_and_byte_identical_reports(home: Path) -> None:
    assert build_sample("2026-W27", "2026-07-22") == 0
    sql = "select * from marts.fct_pull_requests order by number"
    rows, reports = query(home, sql), report_bytes(home)
    assert build_sample("2026-W27", "2026-W30") == 0
    assert query(home, sql) == rows
    assert report_bytes(home) == reports
    # run history lives under PRWEEKLY_HOME, so it survives between commands
    instance = dg.DagsterInstance.from_config(str(home / "dagster"))
    assert len(instance.get_runs()) == 2


def test_verl_week_30_has_its_23_prs(home: Path, verl_dataset: Path, capsys) -> None:
    assert (
        main(
            [
                "build",
                "--repo",
                "verl-project/verl",
                "--week",
                "2026-W30",
                "--source",
                f"file:{verl_dataset}",
            ]
        )
        == 0
    )
    capsys.readouterr()
    main(
        [
            "sql",
            "select count(*) from marts.fct_pull_requests where repo = 'verl-project/verl' "
            "and week_start = date '2026-07-20'",
        ]
    )
    assert capsys.readouterr().out.strip() == "23"
    (missing,) = query(
        home,
        "select count(*) from marts.fct_pull_requests "
        "where change_type is null or primary_area is null",
    )[0]
    assert missing == 0


def _fails_cleanly(capsys, args: list[str], message: str, code: int) -> str:
    assert main(args) == code
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("prweekly: error:")]
    assert len(errors) == 1 and message in errors[0], err
    assert "Traceback" not in err
    return errors[0]


def _parquet_files(home: Path) -> list[Path]:
    """The lake's week files (not the compacted copies beside them)."""
    weeks = home / "lake" / "raw" / "pull_requests"
    return sorted(weeks.rglob("*.parquet")) if weeks.exists() else []


def test_bad_input_fails_with_one_line_and_writes_nothing(home: Path, tmp_path: Path, capsys):
    build = ["build", "--repo", "acme/rocket", "--week", "2026-W30", "--source"]
    _fails_cleanly(capsys, [*build, f"file:{tmp_path / 'nope.jsonl'}"], "does not exist", 2)

    corrupt = tmp_path / "corrupt.jsonl.gz"
    corrupt.write_bytes(gzip.compress(SAMPLE_DATASET.read_bytes())[:300])
    _fails_cleanly(capsys, [*build, f"file:{corrupt}"], "cannot read dataset file", 1)

    malformed = tmp_path / "malformed.jsonl"
    lines = SAMPLE_DATASET.read_text().splitlines()
    malformed.write_text("\n".join([*lines[:5], "{not json", *lines[5:]]) + "\n")
    _fails_cleanly(capsys, [*build, f"file:{malformed}"], "malformed.jsonl:6: malformed JSON", 1)

    _fails_cleanly(capsys, ["build", "--repo", "acme", "--week", "2026-W30"], "owner/name", 2)
    _fails_cleanly(capsys, ["build", "--repo", "../../etc", "--week", "2026-W30"], "owner/name", 2)
    _fails_cleanly(
        capsys, ["build", "--repo", "acme/rocket", "--week", "2999-W01"], "has not ended yet", 2
    )
    assert _parquet_files(home) == []


def test_a_failed_rebuild_keeps_the_previous_partition(home: Path, tmp_path: Path, capsys):
    build = ["build", "--repo", "acme/rocket", "--week", "2026-W30", "--source"]
    assert main([*build, f"file:{SAMPLE_DATASET}"]) == 0
    files = _parquet_files(home)  # the week, and the earlier weeks its trends compare with
    before = {path: path.read_bytes() for path in files}
    assert [p.parent.name for p in files][-1] == "week=2026-07-20"
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text(SAMPLE_DATASET.read_text() + "{oops\n")
    _fails_cleanly(capsys, [*build, f"file:{malformed}"], "malformed JSON", 1)
    assert {path: path.read_bytes() for path in _parquet_files(home)} == before
    assert date(2026, 7, 20) in {
        r[0] for r in query(home, "select week_start from marts.fct_weekly_summary")
    }
