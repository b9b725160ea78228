"""`prweekly build --source github` through the emulator fills the marts exactly as the file does.

The sample dataset has every field, so nothing may differ, down to the reports; only the lake
adds GitHub's count of each week, which the reports state. A build whose search results keep
shifting fails, exit 1.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from github_fakes import REPO_ROOT, week_of_prs

from orchestration.lake.layout import partition_dir
from orchestration.service.cli import main
from orchestration.testing.github_emulator import Emulator, Fault

SAMPLE = REPO_ROOT / "orchestration" / "sample" / "acme__rocket.jsonl"
MONDAY = datetime(2026, 7, 20, tzinfo=UTC)
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


def stored_counts(home: Path) -> dict[str, tuple[int, dict]]:
    """Each week file's rows and its `prweekly.github_*` key-value metadata."""
    found = {}
    for path in sorted((home / "lake").rglob("week=*/data.parquet")):
        metadata = pq.read_metadata(path).metadata or {}
        github = {
            k.decode(): v.decode() for k, v in metadata.items() if k.startswith(b"prweekly.github")
        }
        found[path.parent.name] = (pq.read_metadata(path).num_rows, github)
    return found


def test_github_source_through_the_emulator_equals_the_file_source(tmp_path, monkeypatch, capsys):
    if not SAMPLE.is_file():
        pytest.skip("the sample dataset is not in this checkout")
    for name in ("GITHUB_TOKEN", "PRWEEKLY_SOURCE", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)
    from_file = build(tmp_path / "file", f"file:{SAMPLE}", monkeypatch, capsys)
    with Emulator(SAMPLE) as emulator:
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        began = datetime.now(UTC).replace(microsecond=0)
        from_github = build(tmp_path / "github", "github", monkeypatch, capsys)
        # four weeks, 34 PRs: one search page (from 26 weeks earlier, for the history), and
        # one count that finds nothing merged before it: the history is complete in both
        assert emulator.requests_served == 2
    assert len(from_file["tables"]["fct_pull_requests"]) == 34
    assert from_github["tables"] == from_file["tables"]
    # the reports are the same but for their completeness stamps (the footer line and the
    # appendix's): GitHub counted its weeks
    stamp = re.compile(r"^(Completeness[: ]|完整性[：未]).*$", re.M)

    def unstamped(reports: dict[str, bytes]) -> dict[str, str]:
        return {name: stamp.sub("", text.decode()) for name, text in reports.items()}

    assert unstamped(from_github["reports"]) == unstamped(from_file["reports"])
    for name, text in from_github["reports"].items():
        counted = stamp.search(text.decode())[0]
        assert re.search(r"(\d+) (of|/) \1 .*GitHub", counted), counted
        assert re.search("unknown|未知", stamp.search(from_file["reports"][name].decode())[0])
    # GitHub's own count of each week is stored with its rows; a file has none to store
    file_counts, github_counts = (
        stored_counts(tmp_path / "file"),
        stored_counts(tmp_path / "github"),
    )
    assert list(github_counts) == list(file_counts) and len(file_counts) == 4
    assert all(counts == {} for _rows, counts in file_counts.values())
    for rows, counts in github_counts.values():
        assert counts["prweekly.github_issue_count"] == str(rows)
        counted_at = datetime.fromisoformat(counts["prweekly.github_counted_at"])
        assert began <= counted_at <= datetime.now(UTC)
    assert sum(rows for rows, _counts in github_counts.values()) == 34


def test_a_build_whose_search_results_keep_shifting_fails_instead_of_losing_a_pr(
    home, monkeypatch, capsys
):
    with Emulator(week_of_prs(MONDAY, 150)) as emulator:
        for _ in range(3):  # each read of the week: page 1 early, page 2 with one more PR
            emulator.faults.fail_next(Fault.SHIFT_PAGES)
            emulator.faults.fail_next(Fault.SHIFT_PAGES, times=0, after=1)
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        code = main(
            ["build", "--repo", "octo-org/demo", "--week", "2026-W30", "--source", "github"]
        )
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    partition = partition_dir(home / "lake", "octo-org/demo", MONDAY.date()) / "data.parquet"
    written = pq.read_table(partition).num_rows if partition.exists() else None
    assert (code, written) == (1, None)  # before: exit 0 and 149 of the 150 PRs
    assert len(errors) == 1 and errors[0].startswith("prweekly: error:"), errors
    assert "octo-org/demo" in errors[0] and "GitHub counted 150" in errors[0]
    # the window reaches back over the 26 weeks of history the build extracts with its week
    assert "found 149" in errors[0] and "2026-01-19T00:00:00Z..2026-07-26T23:59:59Z" in errors[0]
