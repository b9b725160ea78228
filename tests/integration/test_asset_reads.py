"""The report and narrative assets depend on every model their queries read: the SQL a report
run and a narrative week execute is recorded, its relations read by DuckDB's own parser, and
each must be a model the asset depends on (derived from the code, `warehouse/reads.py`)."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from orchestration import database
from orchestration.config import load_settings
from orchestration.run_scope import RunScope

REPO = "acme/rocket"
FIRST, LAST = date(2026, 6, 29), date(2026, 7, 20)  # the sample's four weeks


class Recording:
    """A connection that keeps the text of every statement it runs."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, seen: list[str]) -> None:
        self._conn, self._seen = conn, seen

    def execute(self, sql: str, *args, **kwargs):
        self._seen.append(sql)
        return self._conn.execute(sql, *args, **kwargs)

    def executemany(self, sql: str, *args, **kwargs):
        self._seen.append(sql)
        return self._conn.executemany(sql, *args, **kwargs)

    def sql(self, sql: str, *args, **kwargs):
        self._seen.append(sql)
        return self._conn.sql(sql, *args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, *exc) -> None:
        self._conn.close()


def relations(statements: list[str]) -> set[str]:
    """`schema.table` of every table the statements read, by DuckDB's parser."""
    parser, found = duckdb.connect(), set()

    def walk(node) -> None:
        if isinstance(node, dict):
            if node.get("type") == "BASE_TABLE" and node.get("schema_name"):
                found.add(f"{node['schema_name']}.{node['table_name']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for sql in statements:
        (tree,) = parser.execute("select json_serialize_sql(?)", [sql]).fetchone()
        tree = json.loads(tree)
        assert not tree.get("error"), f"DuckDB cannot parse {sql[:200]!r}: {tree}"
        walk(tree)
    return found


def models_of(names: set[str]) -> set[str]:
    from orchestration.service.definitions import project

    by_relation = {m.relation: name for name, m in project.models.items()}
    return {by_relation[n] for n in names if n in by_relation}


def deps_of(asset) -> set[str]:
    return {key.to_user_string() for key in asset.asset_deps[asset.key]}


@pytest.fixture
def copied_home(sample_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    shutil.copytree(sample_home, home, ignore=shutil.ignore_patterns("dagster", "build"))
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    # with a model set, the report also reads what the narrative's requests are built from
    monkeypatch.setenv("PRWEEKLY_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PRWEEKLY_LLM_MODEL", "recorded")
    return home


def test_the_report_depends_on_every_model_a_report_run_reads(
    copied_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestration.report.write import write_reports
    from orchestration.service.definitions import weekly_report
    from orchestration.site.build import build_site

    seen: list[str] = []
    real = database.duckdb.connect
    monkeypatch.setattr(
        database, "duckdb", SimpleNamespace(connect=lambda *a, **k: Recording(real(*a, **k), seen))
    )
    settings = load_settings()
    done = write_reports(settings, [RunScope(REPO, FIRST, LAST)])
    build_site(settings, print)
    assert not done.blocked
    read = models_of(relations(seen))
    assert {"fct_weekly_topics", "stg_pull_requests", "fct_pull_requests"} <= read
    assert read - deps_of(weekly_report) == set(), "weekly_report does not depend on these"


def test_the_narrative_depends_on_every_model_a_week_s_requests_read(
    copied_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestration.narrative import narrate
    from orchestration.service.definitions import pr_narratives

    monkeypatch.setattr(narrate, "narrate", lambda client, asks, numbers, cache: [])
    client = SimpleNamespace(settings=SimpleNamespace(model="recorded"))
    seen: list[str] = []
    with duckdb.connect(str(copied_home / "warehouse.duckdb"), read_only=True) as conn:
        for week in (FIRST, LAST):
            narrate.narrate_week(client, Recording(conn, seen), REPO, week)
    read = models_of(relations(seen))
    assert {"fct_pull_requests", "stg_pull_requests", "fct_weekly_summary"} <= read
    assert read - deps_of(pr_narratives) == set(), "pr_narratives does not depend on these"
