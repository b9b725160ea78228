"""The lake and the reports behind a URI, as on object storage: configuration only."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from orchestration.storage import join, location, write_bytes
from tests.conftest import build_sample


def test_locations_keep_uris_and_resolve_paths(tmp_path: Path) -> None:
    assert location("s3://bucket/prefix/") == "s3://bucket/prefix"
    assert join("s3://bucket/prefix", "raw", "week=2026-07-20") == (
        "s3://bucket/prefix/raw/week=2026-07-20"
    )
    assert location(tmp_path / "x" / ".." / "y") == tmp_path / "y"
    assert join(tmp_path, "a", "b") == tmp_path / "a" / "b"


def test_writes_replace_whole_files_and_leave_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "file.txt"
    write_bytes(target, b"old")
    write_bytes(target, b"new")
    uri_target = f"file://{tmp_path}/other/file.txt"
    write_bytes(uri_target, b"via uri")
    assert target.read_bytes() == b"new"
    assert (tmp_path / "other" / "file.txt").read_bytes() == b"via uri"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["file.txt", "file.txt"]


def test_reports_and_site_pages_are_renamed_into_place_without_an_fsync(
    tmp_path: Path, monkeypatch
) -> None:
    """The lake's files wait for the disk; a report's or a site page's do not (the next run
    writes again any that a crash lost), but still appear whole."""
    from orchestration.report.render import write_atomic
    from orchestration.site.build import _write

    synced: list[int] = []
    monkeypatch.setattr("orchestration.storage.os.fsync", synced.append)
    write_bytes(tmp_path / "lake.parquet", b"rows")
    assert len(synced) == 1
    assert write_atomic(tmp_path / "r" / "2026-07-20.en.md", "# week") == 6
    assert _write(tmp_path / "index.html", b"<html>") == 1
    assert _write(tmp_path / "index.html", b"<html>") == 0  # already holds it
    assert len(synced) == 1
    assert (tmp_path / "r" / "2026-07-20.en.md").read_text() == "# week"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "2026-07-20.en.md",
        "index.html",
        "lake.parquet",
    ]


def test_a_build_with_the_lake_and_reports_behind_uris(home: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PRWEEKLY_LAKE_URI", f"file://{tmp_path}/bucket/lake")
    monkeypatch.setenv("PRWEEKLY_REPORTS_URI", f"file://{tmp_path}/bucket/reports/")
    assert build_sample("2026-W29", "2026-W30") == 0
    bucket = tmp_path / "bucket"
    lake = sorted(p.relative_to(bucket).as_posix() for p in (bucket / "lake").rglob("*.parquet"))
    weeks = ["2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20"]  # and its earlier weeks
    assert lake[:5] == [
        "lake/raw/history/repo=acme__rocket/data.parquet",
        *(f"lake/raw/pull_requests/repo=acme__rocket/week={week}/data.parquet" for week in weeks),
    ]
    assert len(lake) == 6 and re.fullmatch(  # every week has ended: one copy, named by content
        r"lake/raw/pull_requests_compacted/acme__rocket/\d{8}T\d{12}Z-[0-9a-f]{64}\.parquet",
        lake[5],
    )
    assert (bucket / "reports" / "acme__rocket" / "2026-07-20.zh.html").exists()
    assert not (home / "lake").exists() and not (home / "reports").exists()
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        weeks = conn.execute(
            "select week_start::varchar, merged_prs from marts.fct_weekly_summary order by 1"
        ).fetchall()
    assert weeks == [("2026-06-29", 7), ("2026-07-06", 9), ("2026-07-13", 8), ("2026-07-20", 10)]
