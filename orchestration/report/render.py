"""Render a week's view as Markdown and HTML in each language, from one template set.

The templates only lay text out: the sentences come from `ReportText` (prose.py), the words,
escaping and number forms from `Translator` (translator.py).
"""

from __future__ import annotations

from datetime import date
from functools import cache

import jinja2
from markupsafe import Markup

from orchestration.config import LANGUAGES, TEMPLATES_DIR
from orchestration.escaping.jinja import install
from orchestration.report.charts import ChartText, area_chart_svg
from orchestration.report.evidence import forget_plained
from orchestration.report.nav import appendix_nav, week_nav
from orchestration.report.notes import WeekNotes, notes_block, stamp_block
from orchestration.report.prose import ReportText, body_text, forget_factors, theme
from orchestration.report.queries import HISTORY_WEEKS, WeekFacts
from orchestration.report.template_cache import environment
from orchestration.report.text import clean_text, forget_cleaned, short_title
from orchestration.report.translator import Translator, breakable, md_cell, md_inline
from orchestration.report.view import MAX_AREA_PRS, MAX_TREND_ROWS, ReportView, build_view
from orchestration.storage import Location, write_bytes

FORMATS = ("md", "html")
# where the appendix page holds the appendix (the report folds the same HTML)
APPENDIX_START, APPENDIX_END = "<!-- prweekly:appendix -->", "<!-- /prweekly:appendix -->"


def _environment(fmt: str) -> jinja2.Environment:
    env = environment(
        jinja2.FileSystemLoader(TEMPLATES_DIR),
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


def appendix_name(week_start: date, lang: str) -> str:
    """The site's page of a week's appendix alone."""
    return f"{week_start}.{lang}.appendix.html"


def render(
    facts: WeekFacts,
    lang: str,
    fmt: str,
    view: ReportView | None = None,
    notes: WeekNotes | None = None,
    page: str = "report",
    chart_svg: str | None = None,
    appendix: str | None = None,
) -> str:
    """One file of the week: the report (`page` "report") in Markdown or HTML, or the site's
    page of its appendix alone (`page` "appendix", HTML). `chart_svg` and `appendix` (the
    appendix's HTML) are the ones `render_week` made once for the language's files."""
    view = view or build_view(facts)
    env = environments()[fmt]
    t = ReportText(lang, fmt)
    nav = ""
    if notes is not None and fmt == "html":
        previous, following = notes.previous_week, notes.next_week
        if page == "appendix":
            nav = appendix_nav(facts.repo, facts.week_start, lang)
        else:
            nav = week_nav(facts.repo, facts.week_start, lang, previous, following)
    if chart_svg is None:
        chart_svg = render_chart(facts, lang) if facts.history and not view.is_empty else ""
    context = {
        "t": t,
        "v": view,
        "f": facts,
        "s": facts.summary,
        "history_weeks": HISTORY_WEEKS,
        "chart_file": chart_name(facts.week_start, lang),
        "chart_svg": Markup(chart_svg),
        "max_area_prs": MAX_AREA_PRS,
        "max_trend_rows": MAX_TREND_ROWS,
        "stamp": stamp_block(t, notes),
        "nav": Markup(nav),
    }
    if fmt == "html" and appendix is None:
        appendix = env.get_template("_appendix.html.j2").render(**context)
    body = body_text(t, view) if page == "report" else None
    context |= {
        "appendix": Markup(appendix or ""),
        "b": body,
        "notes": notes_block(t, notes),
        "footer": t.footer(view, notes),
        "theme": theme(t, facts, body),
        # an empty week has no appendix page (render_week writes none)
        "appendix_page": appendix_name(facts.week_start, lang)
        if notes is not None and not view.is_empty
        else None,
    }
    return env.get_template(f"{page}.{fmt}.j2").render(**context)


def render_week(facts: WeekFacts, notes: WeekNotes | None = None) -> dict[str, str]:
    """Every file of a week's report, by file name: Markdown and HTML per language, the chart;
    with `notes` (the site's), the completeness stamp, corrections, the links to the weeks
    beside it and a page of the appendix alone per language."""
    # each text is cleaned once for the week's files (not kept from week to week)
    forget_cleaned()
    forget_plained()
    forget_factors()
    view = build_view(facts)
    files: dict[str, str] = {}
    week = facts.week_start
    for lang in LANGUAGES:
        chart = render_chart(facts, lang) if facts.history and not view.is_empty else ""
        files[f"{week}.{lang}.md"] = render(facts, lang, "md", view, notes, chart_svg=chart)
        appendix = None
        if notes is not None and not view.is_empty:
            # the site's appendix page and the report's folded appendix are the same HTML
            page = render(facts, lang, "html", view, notes, "appendix", chart)
            files[appendix_name(week, lang)] = page
            appendix = page.split(APPENDIX_START, 1)[1].split(APPENDIX_END, 1)[0]
        files[f"{week}.{lang}.html"] = render(facts, lang, "html", view, notes, "report", chart,
                                              appendix)  # fmt: skip
        if chart:
            files[chart_name(week, lang)] = chart
    return files


def write_atomic(path: Location, text: str) -> int:
    """Replace `path` with `text` so a reader never sees half a report. Not waited onto the
    disk: a file lost in a crash no longer holds what the render record says was written, so
    the next run renders its week again (render_record.py)."""
    return write_bytes(path, text.encode("utf-8"), durable=False)
