"""The area chart: worded in each report's language, showing the areas that matter."""

from __future__ import annotations

import re
import statistics
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from orchestration.report.write import write_week
from tests.unit.test_report_render import WEEK, build_warehouse, pr_row, render

BUSY = [f"area{i}" for i in range(10)]


def _weeks() -> dict:
    """Eleven weeks of ten busy areas, then a week where a small area rises."""
    weeks, number = {}, 0
    for k in range(11, 0, -1):
        week = WEEK - timedelta(weeks=k)
        weeks[week] = []
        for area in BUSY:
            number += 1
            weeks[week].append(pr_row(number, week, primary_area=area, areas=[area]))
    weeks[WEEK] = [
        pr_row(1000 + i, WEEK, primary_area=area, areas=[area])
        for i, area in enumerate([*BUSY, "newcomer", "newcomer", "newcomer"])
    ]
    return weeks


def _legend(svg: str) -> list[str]:
    """The legend's labels: the text after each legend swatch."""
    swatch = r'<rect [^>]*width="14" height="14"[^>]*/>\n'
    return re.findall(swatch + r"<text [^>]*>(?:<title>.*?</title>)?([^<]*)</text>", svg)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_warehouse(tmp_path_factory.mktemp("chart") / "w.duckdb", _weeks())


def test_each_language_has_its_own_chart_and_the_rising_area_is_in_colour(
    warehouse: Path,
) -> None:
    files = render(warehouse)
    en, zh = files[f"{WEEK}.areas.en.svg"], files[f"{WEEK}.areas.zh.svg"]
    # the rising area first, then the eight busiest; the last two busy areas together in grey
    assert _legend(en) == ["newcomer ↑", *BUSY[:8], "other (2 areas)"]
    assert _legend(zh) == ["newcomer ↑", *BUSY[:8], "其他（2 个模块）"]
    assert (
        "<title>acme/rocket · Merged PRs per week by primary area, 2026-05-04 to 2026-07-20" in en
    )
    assert "<title>acme/rocket · 每周合并 PR 数（按主模块），2026-05-04 至 2026-07-20" in zh
    assert not re.search(r"[\u4e00-\u9fff]", en)
    assert "other" not in zh
    assert f"]({WEEK}.areas.zh.svg)" in files[f"{WEEK}.zh.md"]
    assert files[f"{WEEK}.zh.html"].count("其他（2 个模块）") >= 1


def test_on_verl_the_grey_rest_stays_the_smaller_part_of_the_chart(
    verl_history_home: Path,
) -> None:
    """verl has about a hundred areas, most with a PR or two: the chart names the ones that
    carry the weeks, so the grey rest holds under half of the chart's PRs in every week."""
    folder = verl_history_home / "reports" / "verl-project__verl"
    shares = []
    for svg in sorted(folder.glob("*.areas.en.svg")):
        counts = re.findall(r"<title>\d{4}-\d\d-\d\d (.+?): (\d+)</title>", svg.read_text())
        total = sum(int(n) for _, n in counts)
        rest = sum(int(n) for name, n in counts if name.startswith("other ("))
        shares.append(rest / total)
    assert len(shares) == 94  # every week with PRs has its chart
    # (areas that name code, since the areas' rules read the files, are more and finer)
    assert max(shares) < 0.5 and statistics.median(shares) < 0.35, (
        max(shares),
        statistics.median(shares),
    )


def test_a_rebuild_replaces_the_one_chart_older_reports_shared(
    tmp_path: Path, warehouse: Path
) -> None:
    folder = tmp_path / "reports" / "acme__rocket"
    folder.mkdir(parents=True)
    (folder / f"{WEEK}.areas.svg").write_text("<svg/>")  # left by a build before this change
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        written = write_week(conn, tmp_path / "reports", "acme/rocket", WEEK)
    assert {f"{WEEK}.areas.en.svg", f"{WEEK}.areas.zh.svg"} <= set(written)
    assert not (folder / f"{WEEK}.areas.svg").exists()
