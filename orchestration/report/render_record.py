"""The record of what each week's report was rendered from, so a run renders only the weeks
whose inputs changed.

A week's report is a function of its inputs: the marts' rows `load_week` reads, the accepted
narrative, the notes the report carries about itself (GitHub's count, its corrections, the
earlier weeks' corrections) and the renderer (templates, vocabulary, the code). Their SHA-256
(`inputs_digest`) is recorded per week in `publish.report_inputs`, beside the editions, with
the SHA-256 of every file the render wrote. A run that finds the same digest, and every file
still holding what was written, keeps the week as it is: its files byte for byte and its
edition. Anything else (a fact, the narrative, a template, a word, the code, a file deleted or
edited) renders the week again, as a run did before the record existed.

Left out of the digest: the weeks beside a week, which only the HTML pages' navigation block
names; the site rewrites that block on every page whose neighbours changed (`site/nav.py`).
So a file is recorded with that block blanked.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, is_dataclass, replace
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import duckdb

from orchestration.config import PROJECT_DIR
from orchestration.report.nav import END as NAV_END
from orchestration.report.nav import START as NAV_START
from orchestration.storage import Location, join, read_bytes

TABLE = "publish.report_inputs"
CREATE = (
    "create schema if not exists publish;"
    f"create table if not exists {TABLE} (repo varchar not null, week_start date not null, "
    "inputs_sha256 varchar not null, files varchar not null, rendered_at timestamp not null, "
    "primary key (repo, week_start))"
)
# what renders a report besides its inputs: the templates and vocabulary, the code, and the
# libraries that turn templates into text
RENDERER_FILES = (("reports", "*"), ("orchestration", "*.py"))
RENDERER_LIBRARIES = ("jinja2", "markupsafe")


@cache
def renderer_version(root: Path = PROJECT_DIR) -> str:
    """The SHA-256 of every file that renders a report (by its path under `root`) and of the
    template libraries' versions: any change renders every week again."""
    digest = hashlib.sha256()
    for folder, pattern in RENDERER_FILES:
        for path in sorted((root / folder).rglob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    for library in RENDERER_LIBRARIES:
        digest.update(f"{library}=={version(library)}\0".encode())
    return digest.hexdigest()


def _plain(value: Any) -> Any:
    """`value` as JSON can hold it, each type tagged where JSON would confuse two."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    if isinstance(value, datetime):
        return ["datetime", value.isoformat()]
    if isinstance(value, date):
        return ["date", value.isoformat()]
    if isinstance(value, Decimal):
        return ["decimal", str(value)]
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"a report input of type {type(value).__name__} has no digest")


def inputs_digest(facts: Any, notes: Any, renderer: str | None = None) -> str:
    """The SHA-256 of a week's report inputs: its facts (narrative included), its notes but
    the weeks beside it, and the renderer's version."""
    if notes is not None:
        notes = replace(notes, previous_week=None, next_week=None)
    payload = {"facts": facts, "notes": notes, "renderer": renderer or renderer_version()}
    text = json.dumps(payload, default=_plain, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_digest(name: str, data: bytes) -> str:
    """The SHA-256 of a report file as its render wrote it: an HTML page's navigation block
    blanked, since the site rewrites it."""
    if name.endswith(".html"):
        text = data.decode("utf-8", errors="replace")
        start, end = text.find(NAV_START), text.find(NAV_END)
        if 0 <= start < end:
            data = (text[:start] + text[end + len(NAV_END) :]).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class RecordRow:
    repo: str
    week_start: date
    inputs_sha256: str
    files: dict[str, str]  # file name -> file_digest
    rendered_at: datetime

    def row(self) -> list:
        files = json.dumps(self.files, sort_keys=True)
        return [self.repo, self.week_start, self.inputs_sha256, files, self.rendered_at]


class RenderRecord:
    """One report run's use of the record: the digests stored, and the weeks it rendered."""

    def __init__(self) -> None:
        self.stored: dict[str, dict[date, tuple[str, dict[str, str]]]] = {}
        self.new: list[RecordRow] = []
        self.kept: list[tuple[str, date]] = []
        self._pending: dict[tuple[str, date], str] = {}

    def _of(self, conn: duckdb.DuckDBPyConnection, repo: str) -> dict:
        if repo not in self.stored:
            self.stored[repo] = read_record(conn, repo)
        return self.stored[repo]

    def unchanged(
        self,
        conn: duckdb.DuckDBPyConnection,
        folder: Location,
        repo: str,
        facts: Any,
        notes: Any,
    ) -> bool:
        """Whether the week's report may be kept: rendered from these very inputs, and each of
        its files still as written. Either way, the digest waits for `rendered`."""
        week = facts.week_start
        digest = inputs_digest(facts, notes)
        self._pending[(repo, week)] = digest
        stored = self._of(conn, repo).get(week)
        if stored is None or stored[0] != digest or not stored[1]:
            return False
        for name, sha in stored[1].items():
            data = read_bytes(join(folder, name))
            if data is None or file_digest(name, data) != sha:
                return False
        self.kept.append((repo, week))
        return True

    def rendered(self, repo: str, week: date, files: dict[str, str]) -> None:
        """The week was rendered into `files` (name -> text) from the inputs `unchanged` saw."""
        digest = self._pending.pop((repo, week))
        shas = {name: file_digest(name, text.encode("utf-8")) for name, text in files.items()}
        now = datetime.now(UTC).replace(tzinfo=None)
        self.new.append(RecordRow(repo, week, digest, shas, now))


def read_record(conn: duckdb.DuckDBPyConnection, repo: str) -> dict:
    """{week: (inputs digest, {file name: digest})} of `repo`; empty before the table exists."""
    try:
        rows = conn.execute(
            f"select week_start, inputs_sha256, files from {TABLE} where repo = ?", [repo]
        ).fetchall()
    except duckdb.CatalogException:
        return {}
    return {week: (sha, json.loads(files)) for week, sha, files in rows}


def save_record(conn: duckdb.DuckDBPyConnection, rows: list[RecordRow]) -> None:
    """Store the weeks a run rendered, each replacing its earlier row (idempotent)."""
    conn.execute(CREATE)
    values = [r.row() for r in rows]
    for start in range(0, len(values), 500):
        chunk = values[start : start + 500]
        marks = ", ".join(["(?, ?, ?, ?, ?)"] * len(chunk))
        conn.execute(
            f"insert or replace into {TABLE} "
            f"(repo, week_start, inputs_sha256, files, rendered_at) values {marks}",
            [value for row in chunk for value in row],
        )
