"""The area chart's bars are drawn once for a week's two languages: each chart still names the
areas drawn together in its own language, and another week's history is drawn anew."""

from __future__ import annotations

import re
from datetime import date, timedelta

from orchestration.report import charts
from orchestration.report.charts import ChartText, area_chart_svg

WEEK = date(2026, 7, 20)


def _history(extra: int = 0) -> list:
    areas = ["core", "io", "docs", "ci", "a", "b", "c", "d", "e", "f", "g<h>"]
    return [
        (WEEK - timedelta(weeks=k), 12 + extra, {area: 1 for area in areas} | {"core": 1 + extra})
        for k in range(3, -1, -1)
    ]


def _words(other: str) -> ChartText:
    return ChartText(title="t", other=lambda n: f"{n} {other}")


def test_each_language_names_the_rest_in_its_words_from_the_same_bars(monkeypatch) -> None:
    drawn = []
    original = charts._draw_bars
    monkeypatch.setattr(
        charts, "_draw_bars", lambda *args: drawn.append(args[1]) or original(*args)
    )
    en = area_chart_svg(_history(), WEEK, _words("others & more"))
    zh = area_chart_svg(_history(), WEEK, _words("其他"))
    assert len(drawn) == 1
    titles = re.findall(r"<title>([^<]*)</title></rect>", en)
    assert "2026-07-20 2 others &amp; more: 3" in titles
    assert re.findall(r"<title>([^<]*)</title></rect>", zh) == [
        title.replace("2 others &amp; more", "2 其他") for title in titles
    ]
    assert "2026-07-20 core: 1" in titles
    later = area_chart_svg(_history(extra=1), WEEK, _words("others"))
    assert len(drawn) == 2 and "2026-07-20 core: 2" in later
