"""Sending a group's weekly report to the group's `deliver:` targets, once per edition.

The targets, the ledger, retries and corrections are the repositories' (orchestration.delivery):
a group's rows in `delivery.sent_editions` carry its key (`group:<name>`) where a repository's
carry its name. Its GitHub target posts a discussion or an issue in the `repository` it names,
by default the owner's `.github` repository; links to the repositories' own reports point at
the site when `site_url` says where it is. `prweekly publish --group NAME` sends a week by hand
(`publish_group`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import duckdb

from orchestration.config import Settings, UsageError, load_settings
from orchestration.database import connect
from orchestration.delivery import ledger
from orchestration.delivery.edition import KEY_PRS_SHOWN, Edition
from orchestration.delivery.send import Outcome, deliver_editions, publish_by_hand
from orchestration.group.site import GROUPS_DIR, group_dir
from orchestration.group.text import GroupText
from orchestration.report.editions import content_sha256
from orchestration.repositories.groups import Group
from orchestration.repositories.registry import load_groups
from orchestration.storage import join, read_bytes
from orchestration.weeks import iso_label

# a link from a group's report to a repository's own, relative to the group's folder
_REPO_LINK = re.compile(r"\]\(\.\./\.\./([^)/\s]+)/([0-9-]+)\.(en|zh)\.md\)")


@dataclass(frozen=True)
class GroupEdition(Edition):
    """A group's edition: its title names the group, not a repository."""

    group: str = ""

    @property
    def title(self) -> str:
        return (
            GroupText(self.language, "md")
            .s["g_edition_title"]
            .format(group=self.group, week=iso_label(self.week))
        )


def group_page_link(settings: Settings, name: str, week: date, lang: str, site: str | None) -> str:
    page = f"{week}.{lang}.html"
    if site:
        return f"{site.rstrip('/')}/{GROUPS_DIR}/{name}/{page}"
    return str(join(group_dir(settings.reports_dir, name), page))


def delivered_markdown(markdown: str, site: str | None) -> str:
    """The Markdown as sent: its links to the repositories' reports made absolute on the site
    (relative links go nowhere in a GitHub post or an email); unchanged without a site."""
    if not site:
        return markdown
    base = site.rstrip("/")
    return _REPO_LINK.sub(lambda m: f"]({base}/{m[1]}/{m[2]}.{m[3]}.html)", markdown)


def _headline(conn: duckdb.DuckDBPyConnection, group: str, week: date, lang: str) -> dict:
    row = conn.execute(
        "select merged_prs, active_repositories, repositories from marts.fct_weekly_group_summary "
        "where group_name = ? and week_start = ?",
        [group, week],
    ).fetchone()
    if row is None:
        return {}
    merged, active, repos = row
    stories = conn.execute(
        """
        select display_name, lead_number, lead_title, lead_url, worth
        from marts.fct_weekly_group_stories
        where group_name = ? and week_start = ? order by group_rank limit ?
        """,
        [group, week, KEY_PRS_SHOWN],
    ).fetchall()
    theme = GroupText(lang, "md").s["g_slack_theme"].format(active=active, n=repos)
    return {
        "merged_prs": merged,
        "theme": theme,
        "key_prs": [
            {"number": n, "title": f"{name}: {title}", "url": url, "importance": float(worth)}
            for name, n, title, url, worth in stories
        ],
    }


def load_group_edition(
    settings: Settings, group: Group, week: date, lang: str, site: str | None
) -> GroupEdition | None:
    """The week's current edition in `lang`, or None when the group has no report of it."""
    folder = group_dir(settings.reports_dir, group.name)
    markdown = read_bytes(join(folder, f"{week}.{lang}.md"))
    html = read_bytes(join(folder, f"{week}.{lang}.html"))
    if markdown is None or html is None:
        return None
    text = markdown.decode("utf-8")
    headline = {}
    if settings.warehouse_path.exists():
        with connect(settings.warehouse_path, read_only=True) as conn:
            headline = _headline(conn, group.name, week, lang)
    return GroupEdition(
        repo=group.key,
        week=week,
        language=lang,
        markdown=delivered_markdown(text, site),
        html=html.decode("utf-8"),
        id=content_sha256(text),  # the edition as rendered, as publish.editions names it
        link=group_page_link(settings, group.name, week, lang, site),
        group=group.name,
        **headline,
    )


def deliver_group_week(
    settings: Settings,
    group: Group,
    week: date,
    *,
    only: str | None = None,
    dry_run: bool = False,
    by_hand: bool = False,
    say: Callable[[str], None] = print,
    known: ledger.Ledger | None = None,
) -> list[Outcome]:
    """Send the group's edition of `week` to each of its targets (or the one named `only`)."""
    delivery = group.delivery()
    return deliver_editions(
        settings,
        delivery,
        known or ledger.Ledger(settings, group.key, say),
        week,
        lambda lang: load_group_edition(settings, group, week, lang, delivery.site_url),
        owner=f"group {group.name}",
        only=only,
        dry_run=dry_run,
        by_hand=by_hand,
        say=say,
    )


def publish_group(name: str, week: date, target: str | None, dry_run: bool) -> int:
    """Print one line per target; 1 if any target failed or the week has no group report. As
    for a repository, a held correction is sent by hand even with send_corrections: false."""
    settings = load_settings()
    groups = load_groups(settings.home)
    group = next((g for g in groups if g.name == name.lower()), None)
    if group is None:
        known = ", ".join(g.name for g in groups) or "none"
        raise UsageError(f"no group {name} in repositories.yml (groups: {known})")
    if not group.delivery().targets:
        raise UsageError(f"group {group.name} has no deliver: targets in repositories.yml")

    return publish_by_hand(
        f"group {group.name}",
        week,
        dry_run,
        lambda say: deliver_group_week(
            settings, group, week, only=target, dry_run=dry_run, by_hand=True, say=say
        ),
    )
