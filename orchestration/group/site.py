"""The groups on the site: a page per group and language listing its weeks, an Atom feed per
group and language, the groups' index, and current week links on every group report page.

```
reports/groups/index.html, index.zh.html          every group
reports/groups/<name>/index.html, index.zh.html    the group's weeks, newest first, with editions
reports/groups/<name>/feed.en.xml, feed.zh.xml     one entry per week
reports/groups/<name>/<week>.<lang>.html           the week's report
```

Each page links pages of its own language only, but for the language switch; like the rest of
the site, files are written only when their bytes change.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from functools import cache

import duckdb
import jinja2
from markupsafe import Markup

from orchestration.config import LANGUAGES, TEMPLATES_DIR
from orchestration.escaping.jinja import install
from orchestration.escaping.markup import xml_text
from orchestration.group.text import GroupText
from orchestration.report.editions import Edition, read_editions
from orchestration.report.files import file_names
from orchestration.report.nav import END, START, index_name, replace_nav
from orchestration.repositories.groups import Group
from orchestration.storage import Location, join, read_bytes, write_bytes

GROUPS_DIR = "groups"
OTHER = {"en": "zh", "zh": "en"}
ATOM = "http://www.w3.org/2005/Atom"
_PAGE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.en\.html$")


def group_dir(reports_dir: Location, name: str) -> Location:
    return join(reports_dir, GROUPS_DIR, name)


def reported_group_weeks(reports_dir: Location, name: str) -> list[date]:
    names = file_names(group_dir(reports_dir, name))
    return [date.fromisoformat(m.group(1)) for n in names if (m := _PAGE.match(n))]


def group_nav(
    group: str, week: date, lang: str, previous: date | None, following: date | None
) -> Markup:
    """The links at the top of a group's week page, between the site's nav markers."""
    t = GroupText(lang, "html")
    links = []
    if previous is not None:
        label = t("nav_previous", week=t.week_short(previous))
        links.append(f'<a rel="prev" href="{previous}.{lang}.html">{label}</a>')
    links.append(f'<a href="{index_name(lang)}">{t("g_nav_all", group=group)}</a>')
    if following is not None:
        label = t("nav_next", week=t.week_short(following))
        links.append(f'<a rel="next" href="{following}.{lang}.html">{label}</a>')
    other = OTHER[lang]
    links.append(
        f'<a rel="alternate" hreflang="{other}" href="{week}.{other}.html">{t("nav_other")}</a>'
    )
    links.append(f'<a href="../{index_name(lang)}">{t("g_nav_groups")}</a>')
    links.append(f'<a href="../../{index_name(lang)}">{t("nav_home")}</a>')
    items = "".join(f"<li>{link}</li>" for link in links)
    return Markup(
        f'{START}<nav class="weeks" aria-label="{t("nav_weeks")}"><ul>{items}</ul></nav>{END}'
    )


@dataclass
class SiteGroupWeek:
    week_start: date
    merged_prs: int
    active_repositories: int
    repositories: int
    editions: dict[str, list[Edition]] = field(default_factory=dict)


@dataclass
class SiteGroup:
    group: Group
    names: list[str]  # its repositories' display names
    weeks: list[SiteGroupWeek]  # reported weeks, newest first


def load_site_groups(
    conn: duckdb.DuckDBPyConnection, reports_dir: Location, groups: list[Group]
) -> list[SiteGroup]:
    """Every group with a reported week, by name."""
    try:
        summary = conn.execute(
            "select group_name, week_start, merged_prs, active_repositories, repositories "
            "from marts.fct_weekly_group_summary order by group_name, week_start desc"
        ).fetchall()
        members = conn.execute(  # the spellings of each group's latest week
            """
            select group_name, list(display_name order by position)
            from (
                select * from marts.fct_weekly_group_repositories
                qualify week_start = max(week_start) over (partition by group_name)
            ) latest
            group by all
            """
        ).fetchall()
    except duckdb.CatalogException:  # a warehouse built before groups existed
        return []
    by_group: dict[str, list[tuple]] = {}
    for name, *row in summary:
        by_group.setdefault(name, []).append(tuple(row))
    names = dict(members)
    out = []
    for group in sorted(groups, key=lambda g: g.name):
        reported = set(reported_group_weeks(reports_dir, group.name))
        weeks = [SiteGroupWeek(*row) for row in by_group.get(group.name, []) if row[0] in reported]
        if not weeks:
            continue
        by_week = {w.week_start: w for w in weeks}
        for edition in read_editions(conn, group.key):
            if edition.week_start in by_week:
                by_week[edition.week_start].editions.setdefault(edition.lang, []).append(edition)
        out.append(SiteGroup(group, names.get(group.name, list(group.repositories)), weeks))
    return out


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return install(env)


def _write(path: Location, data: bytes) -> int:
    if read_bytes(path) == data:
        return 0
    write_bytes(path, data)
    return 1


def _page(template: str, lang: str, **values) -> bytes:
    t = GroupText(lang, "html")
    other = OTHER[lang]
    text = (
        _environment()
        .get_template(template)
        .render(
            t=t,
            lang=lang,
            other=other,
            index=index_name(lang),
            other_index=index_name(other),
            home=index_name(lang),
            other_tag=GroupText(other, "html").s["lang_tag"],
            **values,
        )
    )
    return text.encode("utf-8")


def summary_of(markdown: str | None, lang: str) -> str:
    """The "what happened" section of a group report's Markdown, as plain text."""
    heading = f"## {GroupText(lang, 'md').s['g_h_summary']}\n"
    if not markdown or heading not in markdown:
        return ""
    section = markdown.split(heading, 1)[1].split("\n## ", 1)[0]
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", section)
    return re.sub(r"\*\*([^*]*)\*\*", r"\1", text).replace("\\", "").strip()


def group_feed(site: SiteGroup, lang: str, markdown: dict[date, str | None]) -> bytes:
    """The group's Atom feed in `lang`: one entry per week, its id fixed, `updated` from its
    latest edition, so a corrected week shows as updated."""
    t = GroupText(lang, "md")
    feed = ET.Element(f"{{{ATOM}}}feed", {"{http://www.w3.org/XML/1998/namespace}lang": lang})

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(
            parent, f"{{{ATOM}}}{tag}", {k: xml_text(v) for k, v in attrs.items()}
        )
        element.text = None if text is None else xml_text(text)
        return element

    name = site.group.name
    sub(feed, "id", f"tag:prweekly,2026:group/{name}/{lang}")
    sub(feed, "title", t.s["g_feed_title"].format(group=name))
    sub(feed, "link", rel="self", href=f"feed.{lang}.xml", type="application/atom+xml")
    sub(feed, "link", rel="alternate", href=index_name(lang), type="text/html")
    sub(sub(feed, "author"), "name", "prweekly")
    entries, newest = [], datetime(2026, 1, 1)
    for w in site.weeks:
        editions = w.editions.get(lang) or []
        end = datetime.combine(w.week_start + timedelta(weeks=1), time())
        updated = editions[-1].rendered_at if editions else end
        newest = max(newest, updated)
        entry = ET.Element(f"{{{ATOM}}}entry")
        label = t.s["week_label"].format(
            year=w.week_start.isocalendar()[0], week=w.week_start.isocalendar()[1]
        )
        sub(entry, "id", f"tag:prweekly,2026:group/{name}/{w.week_start}/{lang}")
        sub(entry, "title", t.s["g_title"].format(group=name, week_label=label))
        sub(entry, "link", rel="alternate", type="text/html", href=f"{w.week_start}.{lang}.html")
        sub(entry, "updated", updated.replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        sub(entry, "content", summary_of(markdown.get(w.week_start), lang) or label, type="text")
        entries.append(entry)
    sub(feed, "updated", newest.replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    feed.extend(entries)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True) + b"\n"


def _refresh_nav(folder: Location, name: str, lang: str, weeks: list[date]) -> int:
    written = 0
    for i, week in enumerate(weeks):
        path = join(folder, f"{week}.{lang}.html")
        page = read_bytes(path)
        if page is None:
            continue
        previous = weeks[i - 1] if i > 0 else None
        following = weeks[i + 1] if i + 1 < len(weeks) else None
        nav = group_nav(name, week, lang, previous, following)
        updated = replace_nav(page.decode("utf-8"), str(nav))
        if updated is not None:
            written += _write(path, updated.encode("utf-8"))
    return written


def build_group_site(
    conn: duckdb.DuckDBPyConnection, reports_dir: Location, groups: list[Group]
) -> tuple[int, int, int]:
    """Bring the groups' pages, feeds and week links up to date; (pages, feeds, written). The
    groups' index is written whenever there is a group, reported or not yet, so the home page
    can link it from the first build on."""
    if not groups:
        return 0, 0, 0
    sites = load_site_groups(conn, reports_dir, groups)
    written = pages = feeds = 0
    for site in sites:
        folder = group_dir(reports_dir, site.group.name)
        weeks = sorted(w.week_start for w in site.weeks)
        for lang in LANGUAGES:
            page = _page("site/group.html.j2", lang, site=site)
            written += _write(join(folder, index_name(lang)), page)
            markdown = {}
            for week in weeks:
                text = read_bytes(join(folder, f"{week}.{lang}.md"))
                markdown[week] = text.decode("utf-8") if text is not None else None
            written += _write(join(folder, f"feed.{lang}.xml"), group_feed(site, lang, markdown))
            written += _refresh_nav(folder, site.group.name, lang, weeks)
            pages += 1
            feeds += 1
    for lang in LANGUAGES:
        page = _page("site/groups.html.j2", lang, sites=sites)
        written += _write(join(reports_dir, GROUPS_DIR, index_name(lang)), page)
        pages += 1
    return pages, feeds, written
