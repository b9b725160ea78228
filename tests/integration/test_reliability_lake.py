"""What a build reads from the lake is what the lake holds, or the build says why not.

- a compacted copy with a flipped bit is never read: the build reads the week files instead
  and says so in the run log;
- a week file rewritten with the same size and time stamp (two writes in one second, as an
  object store's one-second LastModified shows them) is noticed: the copy is not read;
- a week the warehouse knows was extracted but whose file is gone is an error naming it;
- junk in the lake (a `week=latest` folder, stray files) is skipped and named, not fatal.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from orchestration.config import SQL_DIR
from orchestration.lake.compaction import compact_repository
from orchestration.lake.layout import partition_dir, write_partition
from orchestration.lake.model_sources import lake_sources
from orchestration.models.project import load_project
from orchestration.models.run import materialize
from orchestration.run_scope import RunScope
from tests.unit.test_compaction import AFTER_ALL, WEEKS, write_sample

PROJECT = load_project(SQL_DIR)
STAGING = ("stg_weekly_partitions", "stg_pull_requests")


def build(
    conn: duckdb.DuckDBPyConnection,
    lake: Path,
    scope: RunScope | None = None,
    log: Callable[[str], None] | None = None,
) -> list[tuple]:
    """Both staging models from the lake (in full without a scope); their rows."""
    said = {"log": log} if log else {}
    for name in STAGING:
        model = PROJECT.models[name]
        partitions = scope.partitions() if scope else None
        sources = lake_sources(lake, lake.parent)
        materialize(conn, PROJECT, model, scope=partitions, sources=sources, **said)
    return conn.execute(
        "select p.repo, p.week_start, number, title, additions, files "
        "from staging.stg_weekly_partitions p left join staging.stg_pull_requests using "
        "(repo, week_start) order by all"
    ).fetchall()


def the_copy(lake: Path) -> Path:
    (copy,) = (lake / "raw" / "pull_requests_compacted").rglob("*.parquet")
    return copy


def test_no_flipped_bit_in_a_compacted_copy_gives_wrong_values(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    conn = duckdb.connect()
    truth = build(conn, lake)
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 4
    copy = the_copy(lake)
    intact = copy.read_bytes()
    rng = random.Random(90)
    wrong = []
    for _ in range(90):
        flipped = bytearray(intact)
        position = rng.randrange(len(flipped))
        flipped[position] ^= 1 << rng.randrange(8)
        copy.write_bytes(bytes(flipped))
        try:
            rows = build(conn, lake)
        except duckdb.Error:
            continue  # an error is acceptable; a wrong value is not
        if rows != truth:
            wrong.append(position)
    assert wrong == [], f"{len(wrong)} of 90 flips gave wrong values"
    said: list[str] = []
    assert build(conn, lake, log=said.append) == truth  # the last flip: read from week files
    assert any("damaged" in line and str(copy) in line for line in said), said
    copy.write_bytes(intact)
    said = []
    assert build(conn, lake, log=said.append) == truth and not said


def same_size_rewrite(lake: Path, week: date) -> str:
    """Rewrite `week` with one title changed and the file's size kept; the new title."""
    path = partition_dir(lake, "acme/rocket", week) / "data.parquet"
    size = path.stat().st_size
    rows = pq.read_table(path).to_pylist()
    for letter in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
        changed = [dict(r) for r in rows]
        changed[0]["title"] = letter + changed[0]["title"][1:]
        if changed[0]["title"] == rows[0]["title"]:
            continue
        write_partition(lake, "acme/rocket", week, changed)
        if path.stat().st_size == size:
            return changed[0]["title"]
    raise AssertionError("no one-letter change kept the size")


def test_a_week_rewritten_with_the_same_size_and_time_stamp_is_noticed(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    path = partition_dir(lake, "acme/rocket", WEEKS[1]) / "data.parquet"
    stamp = path.stat().st_mtime_ns + 10**9  # a second ahead of the copy's own writing
    os.utime(path, ns=(stamp, stamp))
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 4
    title = same_size_rewrite(lake, WEEKS[1])
    os.utime(path, ns=(stamp, stamp))  # same size, same time stamp: only the content differs
    said: list[str] = []
    rows = build(duckdb.connect(), lake, log=said.append)
    assert title in [r[3] for r in rows]
    assert any("changed" in line for line in said), said


def test_a_known_week_whose_file_is_gone_is_an_error_naming_it(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    write_sample(lake, "acme/other")
    conn = duckdb.connect()
    before = build(conn, lake)
    gone = partition_dir(lake, "acme/rocket", WEEKS[1])
    shutil.rmtree(gone)
    for scope in (None, RunScope("acme/rocket", WEEKS[0], WEEKS[2])):
        with pytest.raises(Exception, match="acme/rocket week 2026-07-06") as error:
            build(conn, lake, scope)
        assert "prweekly build --repo acme/rocket --week 2026-07-06" in str(error.value)
    assert build(conn, lake, RunScope("acme/other", WEEKS[0], WEEKS[3])) == before
    write_sample(lake, "acme/rocket", weeks=WEEKS[1:2])  # extracted again
    assert build(conn, lake) == before


def test_junk_in_the_lake_is_skipped_and_named(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    write_sample(lake, "acme/other")
    truth = build(duckdb.connect(), lake)
    weeks = lake / "raw" / "pull_requests"
    real = weeks / "repo=acme__rocket" / "week=2026-07-20" / "data.parquet"
    junk = {
        "repo=acme__rocket/week=latest/data.parquet": real.read_bytes(),
        "repo=acme__rocket/week=2026-07-22/data.parquet": real.read_bytes(),  # not a Monday
        "repo=acme__other/notes.txt": b"remember to rebuild",
        "repo=acme__other/week=2026-07-20/notes.txt": b"looked fine",
        "repo=acme__other/week=/data.parquet": real.read_bytes(),
        "repo=not_a_repo/week=2026-07-20/data.parquet": real.read_bytes(),
        "README": b"the lake",
    }
    for name, content in junk.items():
        (weeks / name).parent.mkdir(parents=True, exist_ok=True)
        (weeks / name).write_bytes(content)
    (weeks / "repo=acme__rocket" / "week=2026-07-13" / ".data.x1.tmp").write_bytes(b"in flight")
    assert build(duckdb.connect(), lake) == truth
    said: list[str] = []
    build(duckdb.connect(), lake, log=said.append)
    named = " ".join(said)
    assert all(str(weeks / name) in named for name in junk), said
    assert ".data.x1.tmp" not in named  # a write in progress is not junk
    said = []
    scope = RunScope("acme/rocket", WEEKS[3], WEEKS[3])
    conn = duckdb.connect()
    build(conn, lake)
    build(conn, lake, scope, log=said.append)
    assert "week=latest" in " ".join(said) and "notes.txt" not in " ".join(said)
