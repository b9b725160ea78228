"""Build the static site under the reports location: a home page per language (`index.html` in
English, `index.zh.html` in Chinese), a page per repository and language, two Atom feeds per
repository, the groups' pages and feeds (orchestration/group/site.py), and current week links
on every report page. Each page links pages of its own language only, but for the language
switch. Files are written only when their bytes change, each one atomically, so a reader (or
`prweekly serve`) never sees half a page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache

import jinja2

from orchestration.config import LANGUAGES, TEMPLATES_DIR, Settings
from orchestration.database import connect
from orchestration.escaping.jinja import install
from orchestration.group.site import build_group_site
from orchestration.group.text import group_strings
from orchestration.report.nav import OTHER_LANGUAGE, index_name, replace_nav, week_nav
from orchestration.report.template_cache import environment
from orchestration.report.text import clean_text
from orchestration.report.translator import Translator, safe_url, strings
from orchestration.repositories.registry import load_groups
from orchestration.site.data import SiteRepo, load_site
from orchestration.site.feeds import atom_feed
from orchestration.site.sparkline import sparkline_svg
from orchestration.storage import Location, join, read_bytes, write_bytes


@dataclass(frozen=True)
class SiteResult:
    home: Location
    pages: int  # the site's own pages (home, one per repository), in every language
    feeds: int
    written: int  # files whose bytes changed, report pages' links included


@cache
def _environment() -> jinja2.Environment:
    env = environment(
        jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["clean"] = clean_text
    install(env)  # the escaping layer's filters (md, xml, html, ...)
    return env


def _words(lang: str) -> dict:
    """What a site page of `lang` needs beside its data: its strings, the translator (week
    labels, plurals), the names of the pages and the other language."""
    t = Translator(lang, "html")
    site = strings(lang)["site"]
    other = OTHER_LANGUAGE[lang]
    return {
        "t": t,
        "w": site,
        "lang": lang,
        "lang_tag": strings(lang)["lang_tag"],
        "index": index_name(lang),
        "other": other,
        "other_tag": strings(other)["lang_tag"],
        "other_index": index_name(other),
        "spark": lambda r: sparkline_svg(r.spark, site["spark"]),
        "plural": lambda forms, n: (forms["one"] if n == 1 else forms["other"]).format(n=n),
        "flag_name": lambda flag: strings(lang)["flag_names"].get(flag, flag),
        "theme": lambda w: w.theme_zh if lang == "zh" else w.theme,
    }


def _write(path: Location, data: bytes) -> int:
    """Write `data` unless the file already holds it; 1 if written. Not waited onto the disk:
    a page lost in a crash differs from what the next run makes, which writes it again."""
    if read_bytes(path) == data:
        return 0
    write_bytes(path, data, durable=False)
    return 1


def _links_of(r: SiteRepo) -> None:
    for week in r.weeks:
        for pr in week.key:
            pr["url"] = safe_url(pr["url"])


def _refresh_nav(folder: Location, r: SiteRepo, lang: str, weeks: list[date]) -> int:
    """Bring the week links of each report page in `lang` up to date; pages written."""
    written = 0
    for i, week in enumerate(weeks):
        path = join(folder, f"{week}.{lang}.html")
        page = read_bytes(path)
        if page is None:
            continue
        previous = weeks[i - 1] if i > 0 else None
        following = weeks[i + 1] if i + 1 < len(weeks) else None
        nav = week_nav(r.name, week, lang, previous, following)
        updated = replace_nav(page.decode("utf-8"), str(nav))
        if updated is not None:
            written += _write(path, updated.encode("utf-8"))
    return written


def build_site(settings: Settings, say: Callable[[str], None] = print) -> SiteResult:
    """Rebuild the whole site from the warehouse and the report files."""
    reports = settings.reports_dir
    home = join(reports, "index.html")
    if not settings.warehouse_path.exists():
        return SiteResult(home, 0, 0, 0)
    with connect(settings.warehouse_path, read_only=True, on_wait=say) as conn:
        repos = load_site(conn, reports)
        group_pages, group_feeds, group_written = build_group_site(
            conn, reports, load_groups(settings.home)
        )
    env = _environment()
    written, feeds = group_written, group_feeds
    for r in repos:
        _links_of(r)
        folder = join(reports, r.slug)
        weeks = sorted(w.week_start for w in r.weeks)
        for lang in LANGUAGES:
            page = env.get_template("site/repo.html.j2").render(r=r, **_words(lang))
            written += _write(join(folder, index_name(lang)), page.encode("utf-8"))
            markdown = {}
            for week in weeks:
                text = read_bytes(join(folder, f"{week}.{lang}.md"))
                markdown[week] = text.decode("utf-8") if text is not None else None
            written += _write(join(folder, f"feed.{lang}.xml"), atom_feed(r, lang, markdown))
            written += _refresh_nav(folder, r, lang, weeks)
            feeds += 1
    for lang in LANGUAGES:
        # the groups' index, once orchestration/group/site.py has written it
        groups = f"groups/{index_name(lang)}"
        groups_page = groups if read_bytes(join(reports, groups)) is not None else None
        label = group_strings(lang)["g_site_home_link"]
        page = env.get_template("site/home.html.j2").render(
            repos=repos, groups_page=groups_page, groups_label=label, **_words(lang)
        )
        written += _write(join(reports, index_name(lang)), page.encode("utf-8"))
    return SiteResult(home, len(LANGUAGES) * (1 + len(repos)) + group_pages, feeds, written)
