"""GITHUB_TOKEN appears nowhere: not in output, Dagster's event log, any file under
PRWEEKLY_HOME (Parquet, DuckDB, reports, run storage) or the error of a failing build."""

from __future__ import annotations

import traceback
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from dagster._serdes import serialize_value

from orchestration.config import load_settings
from orchestration.service.cli import main
from orchestration.service.dagster_run import BuildFailed, run_weekly_job
from orchestration.service.instance import get_instance
from orchestration.testing.github_emulator import Emulator, Fault
from tests.conftest import SAMPLE_DATASET

TOKEN = "ghp_FAKEreliabilityTOKEN_0123456789abcdef"
FIRST, LAST = "2026-W29", "2026-W30"


def everything_under(home: Path) -> list[str]:
    """Every file's bytes as text, plus the decoded rows of every Parquet file and table."""
    texts = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        texts.append(path.read_bytes().decode("utf-8", "replace"))
        if path.suffix == ".parquet":
            texts.append(repr(pq.read_table(path).to_pylist()))
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        tables = conn.execute(
            "select table_schema, table_name from information_schema.tables"
        ).fetchall()
        assert len(tables) > 10
        for schema, table in tables:
            texts.append(repr(conn.execute(f'select * from "{schema}"."{table}"').fetchall()))
    return texts


def event_log(home: Path) -> list[str]:
    instance = get_instance(load_settings())
    runs = instance.get_runs()
    assert runs
    texts = [serialize_value(run) for run in runs]
    for run in runs:
        texts += [serialize_value(entry) for entry in instance.all_logs(run.run_id)]
    return texts


def test_the_token_never_leaks(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    with Emulator(SAMPLE_DATASET, token=TOKEN) as emulator:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        emulator.faults.retry_after_seconds = 0
        for fault in (Fault.BAD_GATEWAY_HTML, Fault.SECONDARY_429, Fault.RESET):
            emulator.faults.fail_next(fault)
        args = ["build", "--repo", "acme/rocket", "--week", FIRST, "--to", LAST]
        assert main([*args, "--source", "github"]) == 0
        assert sum(emulator.faults.injected.values()) == 3  # retries were logged

        emulator.faults.fail_next(Fault.UNAUTHORIZED)  # a failing build: the 401 path
        assert main([*args, "--source", "github"]) == 1
        emulator.faults.fail_next(Fault.FORBIDDEN)  # and an error quoting GitHub's answer
        settings = load_settings()
        with pytest.raises(BuildFailed) as failed:
            run_weekly_job(settings, "acme/rocket", *_weeks(), "github")
    out, err = capsys.readouterr()
    assert "retrying" in err and "GITHUB_TOKEN" in err  # the logs did say what happened
    exception = "".join(traceback.format_exception(failed.value))
    assert "Resource not accessible by integration" in exception
    events = event_log(home)
    assert any("retrying" in e for e in events)  # the scan reads the retry messages too
    texts = [out, err, exception, *events, *everything_under(home)]
    leaks = [text[max(0, text.find(TOKEN) - 80) :][:200] for text in texts if TOKEN in text]
    assert leaks == []
    assert TOKEN[4:] not in "".join(texts)  # not even without its prefix


def _weeks():
    from orchestration.weeks import parse_week

    return parse_week(FIRST), parse_week(LAST)
