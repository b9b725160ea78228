"""Readers see the marts of one whole build, the previous or the new, and do not wait for one.

A build holds on, for good, right after writing `fct_pull_requests` (the kill driver's `hold`
point): `prweekly sql` answers at once, from the previous build, with `fct_pull_requests` and
`fct_weekly_summary` agreeing. The build is then killed; readers still see the previous build,
and the next build gives the new one whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from orchestration.cli import main
from tests.test_reliability_crash import DRIVER, build_args, datasets, marts

AGREE = (
    "select (select count(*) from marts.fct_pull_requests where week_start = '2026-07-20'), "
    "(select merged_prs from marts.fct_weekly_summary where week_start = '2026-07-20')"
)


def read(home: Path) -> tuple[list[int], float]:
    """`prweekly sql` in its own process: both marts' count of the week, and how long it took."""
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "orchestration.cli", "sql", "--format", "json", AGREE],
        env={**os.environ, "PRWEEKLY_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    )
    return list(json.loads(out.stdout)[0].values()), time.monotonic() - started


def test_readers_see_one_whole_build_and_never_wait_for_it(home: Path, tmp_path: Path) -> None:
    v1, v2 = datasets(tmp_path)  # v2 drops one of the week's ten PRs
    assert main(build_args(v1)) == 0
    before = marts(home)
    held = tmp_path / "held"
    child = subprocess.Popen(
        [sys.executable, str(DRIVER), "hold:fct_pull_requests", *build_args(v2)],
        env={**os.environ, "PRWEEKLY_HOME": str(home), "PRWEEKLY_HOLD_MARKER": str(held)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while not held.exists():
            assert child.poll() is None and time.monotonic() < deadline, "the build never held"
            time.sleep(0.2)
        counts, during = read(home)  # fct_pull_requests is written: the build is half done
        assert counts == [10, 10]  # the previous build, whole
    finally:
        child.kill()
        child.wait()
    counts, idle = read(home)
    assert counts == [10, 10] and marts(home) == before
    assert during < idle + 5  # the reader did not wait for the build (start-up time varies)
    assert main(build_args(v2)) == 0
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        assert list(conn.execute(AGREE).fetchone()) == [9, 9]
