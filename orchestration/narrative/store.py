"""`narrative.pr_narratives`: every question put to the model and what came of it.

One row per request a week needs (each narrated PR, and the week), keyed by the hash of the
exact input, the model and the prompt version: a rebuild whose facts did not change finds its
rows and asks nothing. `source` says what the report uses: `model` (the checked answer),
`fallback` (the answer failed its checks twice: the deterministic text, with the reasons in
`failed_checks`) or `unavailable` (no answer this time: asked again by the next build).
`dropped_claims` lists the claims of a used answer that its evidence did not support, each
with its reasons; `usage_estimated` says the token counts are the client's estimate (the
server reported none that could be read).
A week's rows are replaced in one transaction, so a week never holds half a narrative.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import duckdb

TABLE = "narrative.pr_narratives"
REUSABLE = ("model", "fallback")  # `unavailable` is asked again
COLUMNS = (
    "repo varchar, week_start date, kind varchar, number integer, input_hash varchar, "
    "model varchar, prompt_version varchar, request varchar, response varchar, narrative varchar, "
    "source varchar, failed_checks varchar[], attempts integer, prompt_tokens integer, "
    "completion_tokens integer, latency_ms integer, asked_at timestamp, "
    "dropped_claims varchar[], usage_estimated boolean"
)
ADDED = (  # columns added after the first version, for a warehouse made by an earlier one
    "alter table narrative.pr_narratives add column if not exists dropped_claims varchar[]",
    "alter table narrative.pr_narratives add column if not exists usage_estimated boolean",
)


@dataclass
class Outcome:
    """What came of one request, as the table stores it."""

    repo: str
    week_start: date
    kind: str
    number: int | None
    input_hash: str
    model: str
    prompt_version: str
    request: dict
    response: str | None = None
    narrative: dict | None = None
    source: str = "unavailable"
    failed_checks: list[str] = field(default_factory=list)
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: int = 0
    asked_at: datetime = field(default_factory=lambda: datetime.now(UTC).replace(tzinfo=None))
    dropped_claims: list[str] = field(default_factory=list)
    usage_estimated: bool | None = None
    cached: bool = False  # found in the table, not asked this run

    def row(self) -> list:
        return [
            self.repo,
            self.week_start,
            self.kind,
            self.number,
            self.input_hash,
            self.model,
            self.prompt_version,
            json.dumps(self.request, ensure_ascii=False, sort_keys=True),
            self.response,
            None if self.narrative is None else json.dumps(self.narrative, ensure_ascii=False),
            self.source,
            self.failed_checks,
            self.attempts,
            self.prompt_tokens,
            self.completion_tokens,
            self.latency_ms,
            self.asked_at,
            self.dropped_claims,
            self.usage_estimated,
        ]


def ensure_table(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("create schema if not exists narrative")
    conn.execute(f"create table if not exists {TABLE} ({COLUMNS})")
    for statement in ADDED:
        conn.execute(statement)


def has_table(conn: duckdb.DuckDBPyConnection) -> bool:
    (found,) = conn.execute(
        "select count(*) from information_schema.tables "
        "where table_schema = 'narrative' and table_name = 'pr_narratives'"
    ).fetchone()
    return bool(found)


def find(conn: duckdb.DuckDBPyConnection, hashes: list[str]) -> dict[str, Outcome]:
    """The stored outcomes of these inputs that need not be asked again, by hash."""
    if not hashes or not has_table(conn):
        return {}
    cursor = conn.execute(
        f"select * from {TABLE} where list_contains(?, input_hash) "
        "and list_contains(?, source) order by asked_at",
        [hashes, list(REUSABLE)],
    )
    names = [d[0] for d in cursor.description]
    found = {}
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        row["request"] = json.loads(row["request"]) if row["request"] else {}
        row["narrative"] = json.loads(row["narrative"]) if row["narrative"] else None
        row["failed_checks"] = list(row["failed_checks"] or [])
        row["dropped_claims"] = list(row.get("dropped_claims") or [])
        found[row["input_hash"]] = Outcome(**row, cached=True)
    return found


def replace_week(
    conn: duckdb.DuckDBPyConnection, repo: str, week: date, outcomes: list[Outcome]
) -> None:
    """The week's rows become `outcomes`, in one transaction (the caller's)."""
    conn.execute(f"delete from {TABLE} where repo = ? and week_start = ?", [repo, week])
    if outcomes:
        marks = ", ".join(["?"] * 19)
        conn.executemany(f"insert into {TABLE} values ({marks})", [o.row() for o in outcomes])
