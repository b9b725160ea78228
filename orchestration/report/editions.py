"""Editions of a week's report: what each rendered version said, and what later ones corrected.

A report is an edition, named by the SHA-256 of its rendered Markdown in one language (the same
hash the delivery ledger keys on). Each edition keeps a snapshot of the facts it reported (its
PRs with their importance, risk flags and reverts), so a later edition can say what changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime

import duckdb

TABLE = "publish.editions"
COLUMNS = (
    "repo, week_start, lang, edition, content_sha256, rendered_at, facts, corrected_since, changes"
)
CREATE = (
    "create schema if not exists publish;"
    f"create table if not exists {TABLE} (repo varchar not null, week_start date not null, "
    "lang varchar not null, edition integer not null, content_sha256 varchar not null, "
    "rendered_at timestamp not null, facts varchar not null, corrected_since timestamp, "
    "changes varchar, primary key (repo, week_start, lang, edition))"
)


def content_sha256(markdown: str) -> str:
    """The edition's identity: the SHA-256 (hex) of its rendered Markdown, as UTF-8."""
    return hashlib.sha256(markdown.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Edition:
    repo: str
    week_start: date
    lang: str
    edition: int
    content_sha256: str
    rendered_at: datetime  # UTC, without a zone (DuckDB's timestamp)
    facts: dict[str, dict]  # PR number (as text) -> what the edition said of it
    corrected_since: datetime | None = None  # the edition whose facts this one corrects
    changes: list[dict] = field(default_factory=list)

    def row(self) -> list:
        return [
            self.repo,
            self.week_start,
            self.lang,
            self.edition,
            self.content_sha256,
            self.rendered_at,
            json.dumps(self.facts, sort_keys=True),
            self.corrected_since,
            json.dumps(self.changes) if self.changes else None,
        ]


def week_facts(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> dict[str, dict]:
    """The facts an edition answers for: each PR's title, importance, flags and reverts."""
    rows = conn.execute(
        """
        select number, title, importance, coalesce(risk_flags, []), coalesce(reverted_by, [])
        from marts.fct_pull_requests where repo = ? and week_start = ? order by number
        """,
        [repo, week],
    ).fetchall()
    return _answered(rows)


def week_facts_of(prs: list[dict]) -> dict[str, dict]:
    """`week_facts` from the week's rows of fct_pull_requests as the report read them."""
    rows = sorted(
        (p["number"], p["title"], p["importance"], p["risk_flags"] or [], p["reverted_by"] or [])
        for p in prs
    )
    return _answered(rows)


def _answered(rows: list[tuple]) -> dict[str, dict]:
    return {
        str(number): {
            "title": title,
            "importance": None if importance is None else round(float(importance), 1),
            "flags": sorted(flags),
            "reverted_by": sorted(reverted_by),
        }
        for number, title, importance, flags, reverted_by in rows
    }


def changes_between(old: dict[str, dict], new: dict[str, dict]) -> list[dict]:
    """What a reader of the old edition should learn, PR by PR, in number order."""
    changes = []
    for key in sorted(set(old) | set(new), key=int):
        before, after = old.get(key), new.get(key)
        if before is None:
            changes.append({"number": int(key), "kind": "added", "title": after["title"]})
        elif after is None:
            changes.append({"number": int(key), "kind": "removed", "title": before["title"]})
        else:
            change = {"number": int(key), "kind": "changed", "title": after["title"]}
            if before["importance"] != after["importance"]:
                change["importance"] = [before["importance"], after["importance"]]
            if before["title"] != after["title"]:
                change["retitled"] = before["title"]
            gained = sorted(set(after["flags"]) - set(before["flags"]))
            lost = sorted(set(before["flags"]) - set(after["flags"]))
            if gained or lost:
                change["flags_added"], change["flags_removed"] = gained, lost
            if before["reverted_by"] != after["reverted_by"]:
                change["reverted_by"] = after["reverted_by"]
            if len(change) > 3:
                changes.append(change)
    return changes


def read_editions(conn: duckdb.DuckDBPyConnection, repo: str) -> list[Edition]:
    """Every edition of `repo`'s reports, oldest first; none before the table exists."""
    return read_editions_of(conn, [repo]).get(repo, [])


def read_editions_of(conn: duckdb.DuckDBPyConnection, repos: list[str]) -> dict[str, list[Edition]]:
    """`read_editions` of each of `repos` (those with editions), in one query."""
    if not repos:
        return {}
    marks = ", ".join("?" * len(repos))
    try:
        rows = conn.execute(
            f"select {COLUMNS} from {TABLE} where repo in ({marks}) "
            "order by repo, rendered_at, week_start, lang, edition",
            list(repos),
        ).fetchall()
    except duckdb.CatalogException:
        return {}
    found: dict[str, list[Edition]] = {}
    for row in rows:
        edition = Edition(
            *row[:6], json.loads(row[6]), row[7], json.loads(row[8]) if row[8] else []
        )
        found.setdefault(edition.repo, []).append(edition)
    return found


def save_editions(conn: duckdb.DuckDBPyConnection, editions: list[Edition]) -> None:
    """Add editions; one already stored (same repository, week, language, number) is kept,
    so saving again after an interrupted save changes nothing."""
    conn.execute(CREATE)
    rows = [e.row() for e in editions]
    for start in range(0, len(rows), 500):  # many rows a statement: DuckDB's executemany
        chunk = rows[start : start + 500]  # takes milliseconds a row
        marks = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk))
        conn.execute(
            f"insert or ignore into {TABLE} ({COLUMNS}) values {marks}",
            [value for row in chunk for value in row],
        )
