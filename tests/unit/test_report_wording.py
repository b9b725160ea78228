"""Counts read naturally in English, and the prose uses the same trend words as the table."""

from __future__ import annotations

from datetime import timedelta

import duckdb
import pytest

from tests.unit.test_report_render import WEEK, build_warehouse, history, pr_row, render

NEXT = WEEK + timedelta(weeks=1)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """WEEK: one key PR by a newcomer; NEXT: seven PRs by regulars in seven areas (two new,
    one falling), two of them key and flagged."""
    areas = ["engine", "io", "docs", "ci", "sim", "infra", "cli"]
    weeks = {
        **history(),
        WEEK: [pr_row(7, WEEK, importance=7.5, touches_tests=False)],
        NEXT: [
            pr_row(40 + i, NEXT, importance=8.0 - i, author=f"regular{i}", areas=[a])
            for i, a in enumerate(areas)
        ],
    }
    risks = [
        ("missing_tests", 7, "x", WEEK),
        ("missing_tests", 40, "x", NEXT),
        ("missing_tests", 41, "x", NEXT),
    ]
    path = build_warehouse(tmp_path_factory.mktemp("wording") / "w.duckdb", weeks, risks)
    with duckdb.connect(str(path)) as conn:
        conn.execute(
            "update marts.fct_weekly_summary set first_time_authors = 0 where week_start = ?",
            [NEXT],
        )
        conn.execute(
            "update marts.fct_weekly_area_trends set trend = case area "
            "when 'sim' then 'new' when 'infra' then 'new' when 'cli' then 'falling' "
            "else trend end where week_start = ?",
            [NEXT],
        )
    return {"week": render(path, WEEK), "next": render(path, NEXT)}


def test_one_author_one_key_pr_one_flag_read_as_one(reports) -> None:
    en = reports["week"][f"{WEEK}.en.md"]
    assert (
        "1 pull request merged this week, by 1 author, a first-time contributor, 50% fewer "
        "than the previous 4 weeks' average of 2.0; it is a key PR." in en
    )
    zh = reports["week"][f"{WEEK}.zh.md"]
    assert (
        "本周合并 1 个 PR，来自 1 位作者（首次贡献），比此前 4 周的平均（每周 2.0 个）少 50%；"
        "它是重点 PR。" in zh
    )


def test_no_newcomers_says_nothing_about_them_and_all_reads_as_all(reports) -> None:
    en = reports["next"][f"{NEXT}.en.md"]
    assert "7 pull requests merged this week, by 7 authors, " in en
    assert "of them new" not in en
    zh = reports["next"][f"{NEXT}.zh.md"]
    assert "来自 7 位作者，" in zh and "首次贡献" not in zh
    summary = zh.split("## 本周概要")[1].split("##")[0]
    assert "；其中 4 个是重点 PR。" in summary


def test_a_week_of_one_pr_without_flags_reads_as_one() -> None:
    from orchestration.report.translator import Translator

    assert Translator("zh", "md").n("sum_no_risk", 1) == "这个 PR 没有风险标记。"
    assert Translator("en", "md").n("sum_no_risk", 2) == "None of the 2 PRs carries a risk flag."


def test_prose_and_table_use_the_same_trend_words(reports) -> None:
    en = reports["next"][f"{NEXT}.en.md"]
    assert "Other areas: new: infra; falling: cli." in en
    assert "| cli | 1 | 2.0 | 2.0 | falling |" in en
    assert "cooling" not in en
    assert "**sim**: 1 PR this week, none in the weeks before (new)." in en
    zh = reports["next"][f"{NEXT}.zh.md"]
    assert "其他模块：新出现：infra；降温：cli。" in zh
    assert "**sim**：本周 1 个 PR，此前没有（新出现）。" in zh


def test_the_trend_words_are_spelt_once_per_language() -> None:
    from orchestration.report.translator import strings

    for lang in ("en", "zh"):
        assert "trend_kinds" not in strings(lang)  # the prose takes trend_names, as the table


def test_a_chart_of_one_week_says_so(tmp_path) -> None:
    files = render(build_warehouse(tmp_path / "w.duckdb", {WEEK: [pr_row(1, WEEK)]}))
    assert "Merged PRs this week by primary area:" in files[f"{WEEK}.en.md"]
    assert "last 1 weeks" not in files[f"{WEEK}.en.md"]
    assert "本周合并的 PR，按主模块分色" in files[f"{WEEK}.zh.md"]
