"""Render a group's week as Markdown and HTML in each language, from its own template pair."""

from __future__ import annotations

from functools import cache

import jinja2
from markupsafe import Markup

from orchestration.config import LANGUAGES, TEMPLATES_DIR
from orchestration.escaping.jinja import install
from orchestration.group.editions import GroupNotes, notes_block
from orchestration.group.queries import GroupWeek
from orchestration.group.text import GroupText

FORMATS = ("md", "html")


@cache
def _environment(fmt: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=fmt == "html",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return install(env)


def render_group(g: GroupWeek, lang: str, fmt: str, notes: GroupNotes | None = None) -> str:
    t = GroupText(lang, fmt)
    nav = ""
    if notes is not None and fmt == "html":
        from orchestration.group.site import group_nav  # the site's links, in the page's language

        nav = group_nav(g.group, g.week_start, lang, notes.previous_week, notes.next_week)
    template = _environment(fmt).get_template(f"group.{fmt}.j2")
    return template.render(t=t, g=g, s=g.summary, notes=notes_block(t, notes), nav=Markup(nav))


def render_group_week(g: GroupWeek, notes: GroupNotes | None = None) -> dict[str, str]:
    """Every file of the group's week, by name: Markdown and HTML per language."""
    return {
        f"{g.week_start}.{lang}.{fmt}": render_group(g, lang, fmt, notes)
        for lang in LANGUAGES
        for fmt in FORMATS
    }
