"""Render a week's facts as Markdown in each language, from one template set."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

from orchestration.config import PROJECT_DIR, TEMPLATES_DIR
from orchestration.report.queries import HISTORY_WEEKS, TRAILING_WEEKS, WeekFacts

LANGUAGES = ("zh", "en")
I18N_DIR = PROJECT_DIR / "reports" / "i18n"


@cache
def strings(lang: str) -> dict[str, Any]:
    return yaml.safe_load((I18N_DIR / f"{lang}.yml").read_text(encoding="utf-8"))


def md_cell(text: Any) -> str:
    """Text safe inside a Markdown table cell: one line, pipes escaped."""
    value = " ".join(str(text if text is not None else "").split())
    return value.replace("\\", "\\\\").replace("|", "\\|")


def md_inline(text: Any) -> str:
    """Text safe in a Markdown paragraph: one line, no accidental HTML or emphasis."""
    value = " ".join(str(text if text is not None else "").split())
    for char in "\\`*_[]<>":
        value = value.replace(char, "\\" + char)
    return value


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = md_cell
    env.filters["inline"] = md_inline
    env.filters["pr_link"] = lambda pr: f"[#{pr['number']}]({pr['url']})"
    env.filters["pr_headline"] = lambda pr: (
        f"[#{pr['number']}]({pr['url']}) {md_inline(pr['title'])}"
    )
    return env


class Translator:
    """Per-language strings and the number and date forms each language reads naturally."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.s = strings(lang)

    def __call__(self, key: str, **values: Any) -> str:
        return self.s[key].format(**values)

    def date(self, day) -> str:
        return self(
            "date",
            year=day.year,
            month=day.month,
            month_name=self.s["months"][day.month - 1],
            day=day.day,
        )

    def week_label(self, day) -> str:
        year, week, _ = day.isocalendar()
        return self("week_label", year=year, week=week)

    def join(self, items: list[str]) -> str:
        return "、".join(items) if self.lang == "zh" else ", ".join(items)


def _history_table(facts: WeekFacts, top: int = 6) -> tuple[list[str], list[dict]]:
    """Rows of PRs per area over the last weeks, for the most active areas."""
    totals = Counter()
    for row in facts.history:
        totals[row["area"]] += row["pr_count"]
    areas = [a for a, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
    weeks = sorted({row["week_start"] for row in facts.history})
    counts = {(r["week_start"], r["area"]): r["pr_count"] for r in facts.history}
    return areas, [{"week": w, "counts": [counts.get((w, a), 0) for a in areas]} for w in weeks]


def render_markdown(facts: WeekFacts, lang: str, key_threshold: float) -> str:
    t = Translator(lang)
    risk_groups: dict[str, list[dict]] = {}
    for risk in facts.risks:
        risk_groups.setdefault(risk["risk_flag"], []).append(risk)
    main_risk = {}
    for risk in facts.risks:
        main_risk.setdefault(risk["number"], risk["risk_flag"])
    top_flag = min(risk_groups, key=lambda flag: (-len(risk_groups[flag]), flag), default=None)
    history_areas, history_rows = _history_table(facts)
    return (
        _environment()
        .get_template("report.md.j2")
        .render(
            t=t,
            f=facts,
            s=facts.summary,
            key_threshold=key_threshold,
            risk_groups=risk_groups,
            main_risk=main_risk,
            top_flag=top_flag,
            history_areas=history_areas,
            history_rows=history_rows,
            history_weeks=HISTORY_WEEKS,
            trailing_weeks=TRAILING_WEEKS,
        )
    )


def write_atomic(path: Path, text: str) -> int:
    """Replace `path` with `text` so a reader never sees half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(data)
