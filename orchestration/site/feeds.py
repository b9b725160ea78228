"""An Atom feed (RFC 4287) per repository and language: one entry per reported week.

Each entry's id is a tag URI of the repository, week and language, so it never changes when
the report is corrected; `updated` is the time of its latest edition, so a feed reader shows the
correction. The content is the report's executive summary, taken from its Markdown.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime, time, timedelta

from orchestration.escaping.markup import xml_text
from orchestration.report.translator import strings
from orchestration.site.data import SiteRepo

ATOM = "http://www.w3.org/2005/Atom"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
ET.register_namespace("", ATOM)


def entry_id(repo: str, week: date, lang: str) -> str:
    return f"tag:prweekly,2026:{repo}/{week.isoformat()}/{lang}"


def summary_of(markdown: str | None, lang: str) -> str:
    """The "what happened" section of a report's Markdown, as plain paragraphs."""
    if not markdown:
        return ""
    heading = f"## {strings(lang)['h_summary']}\n"
    if heading not in markdown:
        return ""
    section = markdown.split(heading, 1)[1].split("\n## ", 1)[0]
    section = re.sub(r"^!\[[^\]]*\]\([^)]*\)\s*$", "", section, flags=re.M)  # the chart
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", section)  # links: their text
    text = re.sub(r"\*\*([^*]*)\*\*", r"\1", text).replace("\\", "")
    return text.strip()


def _stamp(moment: datetime) -> str:
    return moment.replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def atom_feed(r: SiteRepo, lang: str, markdown: dict[date, str | None]) -> bytes:
    """The feed of `r` in `lang`, newest week first; `markdown` holds each week's report."""
    words = strings(lang)
    feed = ET.Element(f"{{{ATOM}}}feed", {XML_LANG: lang})

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        # ElementTree writes any character; XML 1.0 forbids some (a feed with one is unread)
        clean = {name: xml_text(value) for name, value in attrs.items()}
        element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", clean)
        element.text = None if text is None else xml_text(text)
        return element

    sub(feed, "id", f"tag:prweekly,2026:{r.repo}/{lang}")
    sub(feed, "title", words["title"].format(repo=r.name, week_label="").rstrip(" ·"))
    sub(feed, "link", rel="self", href=f"feed.{lang}.xml", type="application/atom+xml")
    sub(feed, "link", rel="alternate", href="index.html", type="text/html")
    sub(sub(feed, "author"), "name", "prweekly")
    entries, newest = [], datetime.min
    for w in r.weeks:
        # a report from before editions were kept: dated by the end of its week
        end = datetime.combine(w.week_start + timedelta(weeks=1), time())
        editions = w.editions.get(lang) or []
        updated = editions[-1].rendered_at if editions else end
        newest = max(newest, updated)
        entry = ET.Element(f"{{{ATOM}}}entry")
        week_label = words["week_label"].format(
            year=w.week_start.isocalendar()[0], week=w.week_start.isocalendar()[1]
        )
        sub(entry, "id", entry_id(r.repo, w.week_start, lang))
        sub(entry, "title", words["title"].format(repo=r.name, week_label=week_label))
        sub(entry, "link", rel="alternate", type="text/html", href=f"{w.week_start}.{lang}.html")
        sub(entry, "updated", _stamp(updated))
        summary = summary_of(markdown.get(w.week_start), lang)
        sub(entry, "content", summary or week_label, type="text")
        entries.append(entry)
    sub(feed, "updated", _stamp(newest if entries else datetime(2026, 1, 1)))
    feed.extend(entries)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True) + b"\n"
