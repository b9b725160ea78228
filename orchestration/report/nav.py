"""The links at the top of a week's HTML report: the weeks beside it, the other language, the
repository's page and the site's home, each page of the site in the report's language (only
the language switch leads to the other one).

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


def index_name(lang: str) -> str:
    """The name of the site's home and repository pages in `lang`: `index.html` in English,
    `index.<lang>.html` in the others."""
    return "index.html" if lang == "en" else f"index.{lang}.html"


def week_nav(
    repo: str, week: date, lang: str, previous: date | None, following: date | None
) -> Markup:
    """The block, with its markers; relative links, so the site can move as a whole."""
    t = Translator(lang, "html")
    links = []
    if previous is not None:
        label = t("nav_previous", week=t.week_short(previous))
        links.append(f'<a rel="prev" href="{previous}.{lang}.html">{label}</a>')
    index = index_name(lang)
    links.append(f'<a href="{index}">{t("nav_all", repo=repo)}</a>')
    if following is not None:
        label = t("nav_next", week=t.week_short(following))
        links.append(f'<a rel="next" href="{following}.{lang}.html">{label}</a>')
    other = OTHER_LANGUAGE[lang]
    links.append(
        f'<a rel="alternate" hreflang="{other}" href="{week}.{other}.html">{t("nav_other")}</a>'
    )
    links.append(f'<a href="../{index}">{t("nav_home")}</a>')
    return _block(t, links)


def appendix_nav(repo: str, week: date, lang: str) -> Markup:
    """The links of a week's appendix page: back to its report, the other language's appendix,
    the repository's page and the site's home."""
    t = Translator(lang, "html")
    other, index = OTHER_LANGUAGE[lang], index_name(lang)
    links = [
        f'<a href="{week}.{lang}.html">{t("appendix_back")}</a>',
        f'<a href="{index}">{t("nav_all", repo=repo)}</a>',
        f'<a rel="alternate" hreflang="{other}" href="{week}.{other}.appendix.html">'
        f"{t('nav_other')}</a>",
        f'<a href="../{index}">{t("nav_home")}</a>',
    ]
    return _block(t, links)


def _block(t: Translator, links: list[str]) -> Markup:
    items = "".join(f"<li>{link}</li>" for link in links)
    label = t("nav_weeks")
    return Markup(f'{START}<nav class="weeks" aria-label="{label}"><ul>{items}</ul></nav>{END}')


def replace_nav(page: str, nav: str) -> str | None:
    """`page` with its block replaced by `nav`; None when the page has no block."""
    if not _BLOCK.search(page):
        return None
    return _BLOCK.sub(lambda _: nav, page, count=1)
