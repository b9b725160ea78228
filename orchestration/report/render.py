"""Render a week's view as Markdown and HTML in each language, from one template set.

The templates only lay text out: the sentences come from `ReportText` (prose.py), the words,
escaping and number forms from `Translator` (translator.py).
"""

from __future__ import annotations

from datetime import date
from functools import cache

import jinja2
from markupsafe import Markup

from orchestration.config import TEMPLATES_DIR
from orchestration.escaping.jinja import install
from orchestration.report.charts import ChartText, area_chart_svg
from orchestration.report.notes import WeekNotes, notes_block
from orchestration.report.prose import ReportText
from orchestration.report.queries import HISTORY_WEEKS, WeekFacts
from orchestration.report.text import clean_text, short_title
from orchestration.report.translator import Translator, breakable, md_cell, md_inline
from orchestration.report.view import (
    MAX_AREA_PRS,
    MAX_RISK_PRS,
    MAX_TREND_ROWS,
    ReportView,
    build_view,
)
from orchestration.site.nav import week_nav
from orchestration.storage import Location, write_bytes

LANGUAGES = ("zh", "en")
FORMATS = ("md", "html")


def _environment(fmt: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=fmt == "html",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["inline"] = md_inline
    env.filters["cell"] = md_cell
    env.filters["clean"] = clean_text
    env.filters["short_title"] = short_title
    env.filters["breakable"] = breakable
    return install(env)


@cache
def environments() -> dict[str, jinja2.Environment]:
    return {fmt: _environment(fmt) for fmt in FORMATS}


def chart_name(week_start: date, lang: str) -> str:
    return f"{week_start}.areas.{lang}.svg"


def render_chart(facts: WeekFacts, lang: str) -> str:
    """The area chart as a standalone SVG file, worded in `lang`."""
    t = Translator(lang, "md")
    first = facts.history[0][0] if facts.history else facts.week_start
    title = t.s["chart_title"].format(first=first.isoformat(), last=facts.week_start.isoformat())
    words = ChartText(
        title=clean_text(f"{facts.repo} · {title}"),
        other=lambda n: str(t.n("chart_other", n)),
    )
    # areas heating up with more than one PR this week earn a colour before the busiest; the
    # chart counts primary areas, so those PRs are its count (primary_pr_count)
    rising = [
        row["area"]
        for row in facts.trends
        if row["trend"] in ("new", "rising") and row.get("primary_pr_count", row["pr_count"]) > 1
    ]
    return area_chart_svg(facts.history, facts.week_start, words, rising)


def render(
    facts: WeekFacts,
    lang: str,
    fmt: str,
    view: ReportView | None = None,
    notes: WeekNotes | None = None,
) -> str:
    view = view or build_view(facts)
    template = environments()[fmt].get_template(f"report.{fmt}.j2")
    t = ReportText(lang, fmt)
    nav = ""
    if notes is not None and fmt == "html":
        nav = week_nav(facts.repo, facts.week_start, lang, notes.previous_week, notes.next_week)
    chart_svg = render_chart(facts, lang) if facts.history and not view.is_empty else ""
    return template.render(
        t=t,
        v=view,
        f=facts,
        s=facts.summary,
        history_weeks=HISTORY_WEEKS,
        chart_file=chart_name(facts.week_start, lang),
        chart_svg=Markup(chart_svg),
        max_area_prs=MAX_AREA_PRS,
        max_risk_prs=MAX_RISK_PRS,
        max_trend_rows=MAX_TREND_ROWS,
        notes=notes_block(t, notes),
        nav=Markup(nav),
    )


def render_week(facts: WeekFacts, notes: WeekNotes | None = None) -> dict[str, str]:
    """Every file of a week's report, by file name: Markdown and HTML per language, the chart;
    with `notes`, the completeness stamp, corrections and the links to the weeks beside it."""
    view = build_view(facts)
    files: dict[str, str] = {}
    for lang in LANGUAGES:
        for fmt in FORMATS:
            files[f"{facts.week_start}.{lang}.{fmt}"] = render(facts, lang, fmt, view, notes)
        if facts.history and not view.is_empty:
            files[chart_name(facts.week_start, lang)] = render_chart(facts, lang)
    return files


def write_atomic(path: Location, text: str) -> int:
    """Replace `path` with `text` so a reader never sees half a report."""
    return write_bytes(path, text.encode("utf-8"))
