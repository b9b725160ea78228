"""Render a week's view as Markdown and HTML in each language, from one template set.

The templates only lay text out; sentences come from the per-language strings in
`reports/i18n/`, filled by `Translator`, which escapes every value for the output format
(Markdown or HTML) unless the value was produced as safe markup by the translator itself.
"""

from __future__ import annotations

import re
from datetime import date
from functools import cache
from typing import Any
from urllib.parse import quote

import jinja2
import yaml
from markupsafe import Markup, escape

from orchestration.config import PROJECT_DIR, TEMPLATES_DIR
from orchestration.report.charts import area_chart_svg
from orchestration.report.queries import HISTORY_WEEKS, WeekFacts
from orchestration.report.text import clean_text, short_title
from orchestration.report.view import (
    MAX_AREA_PRS,
    MAX_REC_PRS,
    MAX_RISK_PRS,
    MAX_TREND_ROWS,
    ReportView,
    build_view,
)
from orchestration.storage import Location, write_bytes

LANGUAGES = ("zh", "en")
FORMATS = ("md", "html")
I18N_DIR = PROJECT_DIR / "reports" / "i18n"


@cache
def strings(lang: str) -> dict[str, Any]:
    return yaml.safe_load((I18N_DIR / f"{lang}.yml").read_text(encoding="utf-8"))


class MdText(str):
    """Markdown that is already escaped (the Markdown counterpart of markupsafe.Markup)."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_ENTITY = re.compile(r"&(?=#?\w+;)")


def md_inline(text: Any) -> str:
    """Text safe in a Markdown paragraph or table cell: one line, no markup, no HTML."""
    if isinstance(text, MdText):
        return text
    text = _ENTITY.sub("&amp;", _MD_SPECIAL.sub(r"\\\1", clean_text(text)))
    # a leading "#", "-", "+" or "1." would start a heading or a list where a line begins
    return re.sub(r"^([#+-]|\d+\.)", r"\\\1", text)


def md_cell(text: Any) -> str:
    return md_inline(text)


def safe_url(url: Any) -> str | None:
    """A PR link only when it is an http(s) URL; quoted so it cannot break the markup."""
    value = clean_text(url)
    if not re.match(r"^https?://", value):
        return None
    return quote(value, safe=":/?#=&%.-_~+@!,;")


class Translator:
    """Per-language strings, number and date forms, and escaping for one output format."""

    def __init__(self, lang: str, fmt: str) -> None:
        self.lang = lang
        self.fmt = fmt
        self.s = strings(lang)

    # --- escaping -------------------------------------------------------------------------
    def safe(self, text: str) -> str:
        return Markup(text) if self.fmt == "html" else MdText(text)

    def is_safe(self, value: Any) -> bool:
        return isinstance(value, Markup if self.fmt == "html" else MdText)

    def esc(self, value: Any) -> str:
        if self.is_safe(value):
            return value
        if self.fmt == "html":
            return escape(clean_text(value))
        return MdText(md_inline(value))

    def strong(self, value: Any) -> str:
        inner = self.esc(value)
        return self.safe(f"<strong>{inner}</strong>" if self.fmt == "html" else f"**{inner}**")

    def code(self, value: Any) -> str:
        inner = self.esc(value)
        return self.safe(
            f"<code>{inner}</code>" if self.fmt == "html" else f"`{clean_text(value)}`"
        )

    def _value(self, value: Any) -> str:
        if self.is_safe(value):
            return value
        if isinstance(value, bool):
            return self.esc(str(value))
        if isinstance(value, int):
            return self.num(value)
        if isinstance(value, float):
            return self.num(value, 1)
        return self.esc(value)

    def fill(self, template: str, **values: Any) -> str:
        base = str(escape(template)) if self.fmt == "html" else template
        return self.safe(base.format(**{k: self._value(v) for k, v in values.items()}))

    def __call__(self, _key: str, /, **values: Any) -> str:
        return self.fill(self.s[_key], **values)

    def pick(self, key: str, sub: str, **values: Any) -> str:
        return self.fill(self.s[key][sub], **values)

    def n(self, key: str, count: int, **values: Any) -> str:
        forms = self.s[key]
        form = forms["one"] if count == 1 else forms["other"]
        return self.fill(form, n=count, **values)

    # --- numbers and dates --------------------------------------------------------------
    def num(self, value: Any, decimals: int | None = None) -> str:
        if value is None:
            return self.safe(self.s["none"])
        if decimals is None and float(value).is_integer():
            number = int(value)
            return self.safe(f"{number:,}" if self.lang == "en" else str(number))
        places = decimals or 1
        return self.safe(
            f"{float(value):,.{places}f}" if self.lang == "en" else f"{float(value):.{places}f}"
        )

    def week_label(self, day: date) -> str:
        year, week, _ = day.isocalendar()
        return self("week_label", year=str(year), week=str(week))

    def week_short(self, day: date) -> str:
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}"

    def date_range(self, start: date, end: date) -> str:
        months = self.s["months"]
        values = {
            "year": str(start.year),
            "year2": str(end.year),
            "month_name": months[start.month - 1],
            "month_name2": months[end.month - 1],
            "d1": str(start.day),
            "d2": str(end.day),
        }
        if start.year != end.year:
            return self("range_years", **values)
        if start.month != end.month:
            return self("range_year", **values)
        return self("range_month", **values)

    # --- lists and links ----------------------------------------------------------------
    def join(self, items: list[Any], sep: str | None = None) -> str:
        """`a, b and c` / `a、b 和 c`; with `sep`, every item joined by it alone."""
        parts = [self._value(i) for i in items]
        if len(parts) <= 1 or sep is not None:
            return self.safe((sep or "").join(parts))
        head = self.s["list_sep"].join(parts[:-1])
        return self.safe(self.spaced(head, self.s["list_and"], parts[-1]))

    def spaced(self, left: str, word: str, right: str) -> str:
        """Join around a CJK word, with the space Chinese typesetting puts next to Latin text."""
        if self.lang != "zh":
            return f"{left}{word}{right}"
        latin = re.compile(r"[A-Za-z0-9)\]>*`_.%]")
        before = " " if left and latin.match(left[-1]) else ""
        after = " " if right and re.match(r"[A-Za-z0-9(\[<*`#+-]", right[0]) else ""
        return f"{left}{before}{word}{after}{right}"

    def link(self, pr: dict, text: Any = None) -> str:
        label = self.esc(text) if text is not None else self.safe(f"#{int(pr['number'])}")
        url = safe_url(pr.get("url"))
        if url is None:
            return label
        if self.fmt == "html":
            return self.safe(f'<a href="{escape(url)}">{label}</a>')
        return self.safe(f"[{label}]({url})")

    def links(self, prs: list[dict], limit: int = MAX_REC_PRS) -> str:
        shown = [self.link(pr) for pr in prs[:limit]]
        if len(prs) > limit:
            more = len(prs) - limit
            return self.n("rec_more", more, prs=self.safe(self.s["list_sep"].join(shown)))
        return self.join(shown)

    def pr_ref(self, pr: dict) -> str:
        """`#123 short title`, the number linked."""
        return self.safe(f"{self.link(pr)} {self.esc(short_title(pr['title']))}")

    # --- vocabulary -----------------------------------------------------------------------
    def flag(self, flag: str) -> str:
        return self.s["flag_names"].get(flag, flag)

    def flag_inline(self, flag: str) -> str:
        """The flag's name inside a sentence (lower case in English unless an acronym)."""
        name = self.flag(flag)
        if self.lang == "en" and len(name) > 1 and not name[1].isupper():
            return name[0].lower() + name[1:]
        return name

    def flag_description(self, flag: str) -> str:
        return self.s["flag_descriptions"].get(flag, "")

    def trend(self, trend: str) -> str:
        return self.s["trend_names"].get(trend, trend)

    def type_short(self, change_type: str) -> str:
        return self.s["type_short"].get(change_type, change_type)

    def type_count(self, change_type: str, count: int) -> str:
        names = self.s["type_names"].get(change_type, {"one": change_type, "other": change_type})
        name = names["one"] if count == 1 else names["other"]
        return self("summary_mix_item", n=count, type=name)

    def type_label(self, change_type: str) -> str:
        return self.s["type_names"].get(change_type, {}).get("label", change_type)

    def size(self, pr: dict) -> str:
        return self(
            "pr_size",
            additions=pr["additions"],
            deletions=pr["deletions"],
            files=self.n("n_files", pr["changed_files"]),
        )

    def reason(self, flag: str, item: dict) -> str:
        """A risk's reason in this language, from the PR's own figures when the flag is known."""
        pr = item["pr"]
        template = self.s["flag_reasons"].get(flag)
        if template is None:
            return self.esc(item["reason"])
        return self.fill(
            template,
            type=self.type_label(pr["change_type"]),
            lines=self.n("n_lines", pr["additions"] + pr["deletions"]),
            files=self.n("n_files", pr["changed_files"]),
        )

    def factors(self, pr: dict) -> str:
        """The importance factors that scored, largest first, each worded with its figures."""
        names = self.s["factor_names"]
        parts = []
        scored = sorted(
            ((name, points) for name, points in pr["factors"].items() if points > 0),
            key=lambda kv: (-kv[1], kv[0]),
        )
        for name, points in scored:
            label = self.fill(
                names.get(name, name),
                lines=self.n("n_lines", pr["additions"] + pr["deletions"]),
                areas=self.n("n_areas", len(pr.get("areas") or [])),
                files=self.n("n_files", pr["changed_files"]),
                type_label=self.type_label(pr["change_type"]),
            )
            parts.append(self("factor", label=label, points=self.num(points, 1)))
        return self.join(parts)

    def recommendation(self, flag: str, prs: list[dict]) -> str:
        template = self.s["recommendations"].get(flag)
        if template is None:
            return self("recommendation_unknown", prs=self.links(prs), flag=flag)
        return self.fill(template, prs=self.links(prs))

    def method_factor(self, name: str, weights: dict[str, float]) -> str:
        template = self.s["factor_methods"].get(name)
        if template is None:
            return self.safe("")
        types = [v for k, v in weights.items() if k.startswith("type_")] or [0.0]
        values = {k: self.num(v, 1) for k, v in weights.items()}
        values |= {"type_min": self.num(min(types), 1), "type_max": self.num(max(types), 1)}
        try:
            return self.fill(template, **values)
        except KeyError:  # a weight the seed no longer has
            return self.safe("")

    # --- sentences shared by both formats ------------------------------------------------
    def summary_paragraphs(self, v: ReportView) -> list[str]:
        """The executive summary's prose: volume, then theme, areas and the main risk."""
        f, s = v.facts, v.facts.summary
        first_timers = s.get("first_time_authors")  # None: the history is not complete
        volume = [
            self(
                "summary_volume" if first_timers is not None else "summary_volume_no_history",
                merged=self.n("n_prs", s["merged_prs"]),
                authors=self.n("n_authors", s.get("authors") or 0),
                first_timers=first_timers or 0,
            )
        ]
        if v.volume_direction:
            volume.append(
                self.pick(
                    "summary_vs_avg",
                    v.volume_direction,
                    pct=v.volume_change_pct or 0,
                    weeks=f.trailing_weeks,
                    avg=self.num(f.trailing_avg_prs, 1),
                )
            )
        threshold = self.num(f.key_threshold, 1)
        if f.key_prs:
            volume.append(self("summary_key", key=len(f.key_prs), threshold=threshold))
        theme = s.get("theme_zh") if self.lang == "zh" else s.get("theme")
        context = []
        if theme:
            mix = self.join([self.type_count(k, n) for k, n in v.type_counts[:4]])
            context.append(self("summary_theme", theme=self.strong(theme), mix=mix))
        if v.areas:
            items = [
                self(
                    "summary_area_item",
                    area=a.area,
                    n=a.pr_count,
                    trend=self("summary_area_trend", trend=self.trend(a.trend))
                    if a.trend in ("new", "rising", "falling")
                    else self.safe(""),
                )
                for a in v.areas[:3]
            ]
            context.append(self("summary_areas", areas=self.join(items)))
        if v.main_risk:
            g = v.main_risk
            key_part = (
                self("summary_main_risk_key", key=g.key_count) if g.key_count else self.safe("")
            )
            context.append(
                self(
                    "summary_main_risk",
                    flag=self.strong(self.flag_inline(g.flag)),
                    prs=self.n("n_prs_short", len(g.items)),
                    key_part=key_part,
                )
            )
        else:
            context.append(self("summary_no_risk"))
        space = "" if self.lang == "zh" else " "
        paragraphs = [self.safe(space.join(volume)), self.safe(space.join(context))]
        return paragraphs + ([note] if (note := self.history_note(v)) else [])

    def history_note(self, v: ReportView) -> str | None:
        """From which week on the warehouse holds the repository's PRs, when that is not from
        its first PR: first-time authors (and, with too few weeks, trends) are unknown."""
        s = v.facts.summary
        if s.get("history_complete", True) or not s.get("history_since"):
            return None
        key = "history_note_short" if s.get("volume_trend") == "unknown" else "history_note"
        since = self.week_label(s["history_since"])
        return self(key, repo=v.facts.repo, since=since, weeks=v.facts.trailing_weeks)

    def headlines_intro(self, v: ReportView) -> str:
        if v.facts.key_prs:
            return self("summary_headlines")
        return self("summary_no_key", threshold=self.num(v.facts.key_threshold, 1))

    def area_sentence(self, a) -> str:
        line = self(
            "area_line" if a.trailing_avg is not None else "area_line_unknown",
            area=self.strong(a.area),
            prs=self.n("n_prs_short", a.pr_count),
            avg=self.num(a.trailing_avg, 1),
            trend=self.trend(a.trend),
        )
        refs = [self.pr_ref(pr) for pr in a.prs[:MAX_AREA_PRS]]
        if len(a.prs) > MAX_AREA_PRS:
            refs.append(self.n("area_more", len(a.prs) - MAX_AREA_PRS))
        sep = "；" if self.lang == "zh" else "; "
        end = "。" if self.lang == "zh" else "."
        space = "" if self.lang == "zh" else " "
        return self.safe(f"{line}{space}{self('area_prs')}{space}{sep.join(refs)}{end}")

    def trends_rest(self, v: ReportView) -> str:
        parts = [
            self("trends_kind", kind=self.s["trend_kinds"][kind], areas=self.join(areas))
            for kind in ("new", "rising", "steady", "falling", "unknown")
            if (areas := v.trends_by_kind.get(kind))
        ]
        if not parts:
            return self.safe("")
        return self(
            "trends_rest", items=self.safe(("；" if self.lang == "zh" else "; ").join(parts))
        )

    def watch(self, v: ReportView, pr: dict) -> str:
        flags = v.pr_flags.get(pr["number"], [])
        return self.join([self.flag(flag) for flag in flags], sep=self.s["watch_sep"])


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
    return env


@cache
def environments() -> dict[str, jinja2.Environment]:
    return {fmt: _environment(fmt) for fmt in FORMATS}


def chart_name(week_start: date) -> str:
    return f"{week_start}.areas.svg"


def render_chart(facts: WeekFacts) -> str:
    """The area chart as a standalone SVG file (language-neutral)."""
    first = facts.history[0][0] if facts.history else facts.week_start
    title = (
        f"Merged PRs per week by primary area · 每周合入 PR（按主模块） · "
        f"{first.isoformat()} – {facts.week_start.isoformat()}"
    )
    return area_chart_svg(facts.history, facts.week_start, clean_text(f"{facts.repo} · {title}"))


def render(facts: WeekFacts, lang: str, fmt: str, view: ReportView | None = None) -> str:
    view = view or build_view(facts)
    template = environments()[fmt].get_template(f"report.{fmt}.j2")
    chart_svg = render_chart(facts) if facts.history and not view.is_empty else ""
    return template.render(
        t=Translator(lang, fmt),
        v=view,
        f=facts,
        s=facts.summary,
        history_weeks=HISTORY_WEEKS,
        chart_file=chart_name(facts.week_start),
        chart_svg=Markup(chart_svg),
        max_area_prs=MAX_AREA_PRS,
        max_risk_prs=MAX_RISK_PRS,
        max_trend_rows=MAX_TREND_ROWS,
    )


def render_week(facts: WeekFacts) -> dict[str, str]:
    """Every file of a week's report, by file name: Markdown and HTML per language, the chart."""
    view = build_view(facts)
    files: dict[str, str] = {}
    for lang in LANGUAGES:
        for fmt in FORMATS:
            files[f"{facts.week_start}.{lang}.{fmt}"] = render(facts, lang, fmt, view)
    if facts.history and not view.is_empty:
        files[chart_name(facts.week_start)] = render_chart(facts)
    return files


def write_atomic(path: Location, text: str) -> int:
    """Replace `path` with `text` so a reader never sees half a report."""
    return write_bytes(path, text.encode("utf-8"))
