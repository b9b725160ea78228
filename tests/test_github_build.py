"""`prweekly build --source github` through the emulator fills the marts exactly as the file does.

The sample dataset has every field, so nothing may differ, down to the reports.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from github_fakes import REPO_ROOT

from orchestration.cli import main
from orchestration.emulator import Emulator

SAMPLE = REPO_ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"
MARTS = ["fct_pull_requests", "fct_weekly_summary", "fct_weekly_area_trends", "fct_weekly_risks"]


def build(home: Path, source: str, monkeypatch, capsys) -> dict:
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    args = ["build", "--repo", "acme/rocket", "--week", "2026-W27", "--to", "2026-W30"]
    assert main([*args, "--source", source]) == 0, capsys.readouterr().err
    capsys.readouterr()
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        tables = {
            t: conn.execute(f"select * from marts.{t} order by all").fetchall() for t in MARTS
        }
    reports = {p.name: p.read_bytes() for p in sorted((home / "reports").rglob("*.md"))}
    return {"tables": tables, "reports": reports}


def test_github_source_through_the_emulator_equals_the_file_source(tmp_path, monkeypatch, capsys):
    if not SAMPLE.is_file():
        pytest.skip("the sample dataset is not in this checkout")
    for name in ("GITHUB_TOKEN", "PRWEEKLY_SOURCE", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    from_file = build(tmp_path / "file", f"file:{SAMPLE}", monkeypatch, capsys)
    with Emulator(SAMPLE) as emulator:
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        from_github = build(tmp_path / "github", "github", monkeypatch, capsys)
        # four weeks, 34 PRs: one search page (from 26 weeks earlier, for the history), and
        # one count that finds nothing merged before it: the history is complete in both
        assert emulator.requests_served == 2
    assert len(from_file["tables"]["fct_pull_requests"]) == 34
    assert from_github == from_file
