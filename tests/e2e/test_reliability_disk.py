"""A full disk: one line saying where, exit 1, and every earlier result intact.

The home sits on a real small filesystem (a tmpfs, which needs root to mount: CI runs as
root; elsewhere the test is skipped, saying so). A first build fits; then the filesystem is
filled, leaving nothing, or a few megabytes (enough to start, not to finish), and a build of
another week fails with `no space left on <home>` instead of SQLite's "disk I/O error" or
DuckDB's "cannot rollback - no transaction is active". Everything the first build left
stays whole: its week's marts and reports are unchanged, and the marts readers see are one
whole build (a build that got as far as publishing may have added its week). Once space is
freed the same build succeeds.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from orchestration.service.cli import main
from tests.conftest import SAMPLE_DATASET

MARTS = ("fct_pull_requests", "fct_weekly_summary", "fct_weekly_area_trends", "fct_weekly_risks")


@pytest.fixture
def small_disk(tmp_path: Path):
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root (CI runs the tests as root)")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount)])
    if done.returncode != 0:
        pytest.skip("this machine does not let root mount a tmpfs (a container without it)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def build(week: str) -> int:
    args = ["build", "--repo", "acme/rocket", "--week", week]
    return main([*args, "--source", f"file:{SAMPLE_DATASET}"])


def state(home: Path, week: str = "2026-07-20") -> tuple:
    """One week's rows of every mart and its reports; whether the marts agree with each other."""
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        marts = [
            conn.execute(
                f"select * from marts.{t} where week_start = ? order by all", [week]
            ).fetchall()
            for t in MARTS
        ]
        (disagree,) = conn.execute(
            "select count(*) from marts.fct_weekly_summary s where merged_prs <> "
            "(select count(*) from marts.fct_pull_requests p where p.week_start = s.week_start)"
        ).fetchone()
    reports = {p.name: p.read_bytes() for p in sorted((home / "reports").rglob(f"{week}.*"))}
    return marts, reports, disagree


NAV = re.compile(rb"<!-- prweekly:nav -->.*?<!-- /prweekly:nav -->", re.S)


def without_links(found: tuple) -> tuple:
    """`state` without the links a week page has to the weeks reported beside it."""
    marts, reports, disagree = found
    return marts, {name: NAV.sub(b"", text) for name, text in reports.items()}, disagree


def fill(mount: Path, leave_kib: int) -> Path:
    filler = mount / "filler"
    free = shutil.disk_usage(mount).free // 1024
    with filler.open("wb") as out:
        for _ in range(max(0, free - leave_kib) // 1024):
            out.write(b"\0" * (1 << 20))
        out.write(b"\0" * (max(0, free - leave_kib) % 1024 * 1024))
    return filler


def test_a_full_disk_says_where_exits_1_and_keeps_every_result(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    home = small_disk / "home"
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    assert build("2026-W30") == 0
    before = state(home)
    for leave_kib in (0, 3000):
        filler = fill(small_disk, leave_kib)
        capsys.readouterr()
        try:
            assert build("2026-W29") == 1
        finally:
            filler.unlink()
        err = capsys.readouterr().err
        (line,) = [e for e in err.splitlines() if e.startswith("prweekly: error:")]
        assert line.startswith(f"prweekly: error: no space left on {home}"), line
        assert state(home) == before
    assert build("2026-W29") == 0
    after = state(home)
    # the same, but that W30's page now links the week before it
    assert without_links(after) == without_links(before)
    assert b'<a rel="prev" href="2026-07-13.en.html">' in after[1]["2026-07-20.en.html"]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        weeks = conn.execute(
            "select week_start::varchar, merged_prs from marts.fct_weekly_summary order by 1"
        ).fetchall()
    # W30's build extracted the sample's earlier weeks as its history
    assert weeks == [("2026-06-29", 7), ("2026-07-06", 9), ("2026-07-13", 8), ("2026-07-20", 10)]
