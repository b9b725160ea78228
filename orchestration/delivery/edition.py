"""A week's edition as delivery sends it: its rendered files, its identity and its headline.

An edition is identified by the sha256 of its rendered Markdown in one language, so the same
text is the same edition wherever it is computed: `editions.content_sha256`, as the
editions table keys it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.config import repo_slug
from orchestration.report.editions import content_sha256
from orchestration.storage import Location, join, read_bytes
from orchestration.weeks import iso_label

KEY_PRS_SHOWN = 5  # a chat message names a few; the report has them all


@dataclass(frozen=True)
class Edition:
    repo: str
    week: date
    language: str
    markdown: str
    html: str
    id: str
    link: str  # the week's page: on the site if `site_url` is set, else its location
    merged_prs: int | None = None
    theme: str | None = None
    key_prs: list[dict] = field(default_factory=list)

    @property
    def title(self) -> str:
        word = "周报" if self.language == "zh" else "weekly report"
        return f"{self.repo} {word} {iso_label(self.week)}"


def page_link(
    reports_dir: Location, repo: str, week: date, language: str, site_url: str | None
) -> str:
    name = f"{week}.{language}.html"
    base = (site_url or "").rstrip("/")
    if base:
        return f"{base}/{repo_slug(repo)}/{name}"
    return str(join(reports_dir, repo_slug(repo), name))


def load_edition(
    reports_dir: Location,
    conn: duckdb.DuckDBPyConnection | None,
    repo: str,
    week: date,
    language: str,
    site_url: str | None = None,
) -> Edition | None:
    """The week's current edition in `language`, or None when the week has no report."""
    folder = join(reports_dir, repo_slug(repo))
    markdown = read_bytes(join(folder, f"{week}.{language}.md"))
    html = read_bytes(join(folder, f"{week}.{language}.html"))
    if markdown is None or html is None:
        return None
    headline = _headline(conn, repo, week, language) if conn is not None else {}
    return Edition(
        repo=repo,
        week=week,
        language=language,
        markdown=markdown.decode("utf-8"),
        html=html.decode("utf-8"),
        id=content_sha256(markdown.decode("utf-8")),
        link=page_link(reports_dir, repo, week, language, site_url),
        **headline,
    )


def _headline(conn: duckdb.DuckDBPyConnection, repo: str, week: date, language: str) -> dict:
    """The figures a short message gives: PR count, theme and the most important key PRs."""
    summary = conn.execute(
        "select merged_prs, theme, theme_zh from marts.fct_weekly_summary "
        "where repo = ? and week_start = ?",
        [repo, week],
    ).fetchone()
    if summary is None:
        return {}
    merged, theme_en, theme_zh = summary
    key = conn.execute(
        """
        select number, title, url, importance
        from marts.fct_pull_requests
        where repo = ? and week_start = ? and is_key
        order by importance desc, number
        limit ?
        """,
        [repo, week, KEY_PRS_SHOWN],
    ).fetchall()
    return {
        "merged_prs": merged,
        "theme": theme_zh if language == "zh" else theme_en,
        "key_prs": [
            {"number": n, "title": t, "url": u, "importance": float(i)} for n, t, u, i in key
        ],
    }
