"""The links at the top of a week's HTML report: the weeks beside it, the other language, the
repository's page and the site's home.

The report asset writes them with the weeks reported so far; when a later week is reported, the
site build rewrites only this block of the earlier pages (between its two markers), so the page
stays the report as rendered, with current links.
"""

from __future__ import annotations

import re
from datetime import date

from markupsafe import Markup

from orchestration.report.translator import Translator

START = "<!-- prweekly:nav -->"
END = "<!-- /prweekly:nav -->"
OTHER_LANGUAGE = {"en": "zh", "zh": "en"}
_BLOCK = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)


def week_nav(
    repo: str, week: date, lang: str, previous: date | None, following: date | None
) -> Markup:
    """The block, with its markers; relative links, so the site can move as a whole."""
    t = Translator(lang, "html")
    links = []
    if previous is not None:
        label = t("nav_previous", week=t.week_short(previous))
        links.append(f'<a rel="prev" href="{previous}.{lang}.html">{label}</a>')
    links.append(f'<a href="index.html">{t("nav_all", repo=repo)}</a>')
    if following is not None:
        label = t("nav_next", week=t.week_short(following))
        links.append(f'<a rel="next" href="{following}.{lang}.html">{label}</a>')
    other = OTHER_LANGUAGE[lang]
    links.append(
        f'<a rel="alternate" hreflang="{other}" href="{week}.{other}.html">{t("nav_other")}</a>'
    )
    links.append(f'<a href="../index.html">{t("nav_home")}</a>')
    items = "".join(f"<li>{link}</li>" for link in links)
    label = t("nav_weeks")
    return Markup(f'{START}<nav class="weeks" aria-label="{label}"><ul>{items}</ul></nav>{END}')


def replace_nav(page: str, nav: str) -> str | None:
    """`page` with its block replaced by `nav`; None when the page has no block."""
    if not _BLOCK.search(page):
        return None
    return _BLOCK.sub(lambda _: nav, page, count=1)
