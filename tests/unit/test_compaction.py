"""Compacted copies of finished weeks: same rows as the week files, never stale, never lost."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import defaultdict
from datetime import date
from pathlib import Path

import duckdb
import pytest

from orchestration.config import SQL_DIR
from orchestration.extract.sources.nodes import to_row
from orchestration.lake.compaction import compact_repository, copies_dir
from orchestration.lake.compaction import plan_full_read as plan_with
from orchestration.lake.files import list_week_files
from orchestration.lake.layout import write_partition
from orchestration.lake.model_sources import lake_sources
from orchestration.models.build import build
from orchestration.models.project import load_project
from tests.conftest import SAMPLE_DATASET

WEEKS = [date(2026, 6, 29), date(2026, 7, 6), date(2026, 7, 13), date(2026, 7, 20)]
AFTER_ALL = date(2026, 8, 3)  # every sample week has ended


def write_sample(lake: Path, repo: str, title_suffix: str = "", weeks=WEEKS) -> int:
    """The bundled sample's PRs as `repo`'s week files; returns how many were written."""
    buckets = defaultdict(list)
    for line in SAMPLE_DATASET.read_text().splitlines():
        row = to_row(json.loads(line), repo)
        row["title"] += title_suffix
        buckets[row["week_start"]].append(row)
    for week in weeks:
        write_partition(lake, repo, week, buckets.get(week, []))
    return sum(len(buckets.get(w, [])) for w in weeks)


def plan_full_read(lake: Path):
    """What a full build of the lake reads (copies that check out, week files they leave out)."""
    return plan_with(lake, list_week_files(lake))


def copy_of(lake: Path, slug: str = "acme__rocket") -> str:
    """The repository's one compacted copy."""
    (copy,) = copies_dir(lake, slug).glob("*.parquet")
    return str(copy)


def build_staging(lake: Path, warehouse: Path) -> list[tuple]:
    """A full build of the lake's staging copy; its rows in a stable order."""
    project = load_project(SQL_DIR)
    with duckdb.connect(str(warehouse)) as conn:
        sources = lake_sources(lake, lake.parent)
        build(conn, project, None, select=["stg_pull_requests"], sources=sources)
        return conn.execute(
            "select * from staging.stg_pull_requests order by repo, number"
        ).fetchall()


def test_a_full_build_reads_copies_and_uncovered_weeks_and_gets_the_same_rows(
    tmp_path: Path,
) -> None:
    lake = tmp_path / "lake"
    prs = write_sample(lake, "acme/rocket") + write_sample(lake, "acme/other")
    # W30 (07-20) is the current week: it stays a week file beside the copy
    assert compact_repository(lake, "acme/rocket", today=date(2026, 7, 22), min_new_weeks=1) == 3

    plan = plan_full_read(lake)
    assert plan.compacted == [copy_of(lake)]
    assert [Path(p).parent.name for p in plan.weekly] == [
        *(f"week={w}" for w in WEEKS),  # acme/other has no copy: all its weeks
        "week=2026-07-20",  # acme/rocket's week the copy leaves out
    ]
    with_copy = build_staging(lake, tmp_path / "a.duckdb")
    shutil.rmtree(lake / "raw" / "pull_requests_compacted")
    assert plan_full_read(lake).compacted == []
    assert build_staging(lake, tmp_path / "b.duckdb") == with_copy
    assert len(with_copy) == prs == 2 * 34


def test_a_rewritten_week_makes_the_copy_unused_until_it_is_remade(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 4

    write_sample(lake, "acme/rocket", title_suffix=" (v2)", weeks=WEEKS[1:2])
    assert plan_full_read(lake).compacted == []  # a copy with a changed week is not read
    titles = [r[3] for r in build_staging(lake, tmp_path / "a.duckdb")]
    assert sum(t.endswith(" (v2)") for t in titles) == 9  # W28's PRs, from the new week file

    # the next extract remakes the copy at once, whatever the threshold: it holds the new rows
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 4
    (newest,) = plan_full_read(lake).compacted
    assert Path(newest).parent == copies_dir(lake, "acme__rocket")
    assert [r[3] for r in build_staging(lake, tmp_path / "b.duckdb")] == titles


def test_a_remade_copy_keeps_the_unchanged_weeks_and_drops_what_changed(tmp_path: Path) -> None:
    """Remade from its own rows, a copy must lose the old rows of a week read again and of a
    week no longer in the lake, and equal the week files."""
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 4
    write_sample(lake, "acme/rocket", title_suffix=" (v2)", weeks=WEEKS[2:3])
    shutil.rmtree(lake / "raw" / "pull_requests" / "repo=acme__rocket" / f"week={WEEKS[0]}")

    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 3
    (newest,) = plan_full_read(lake).compacted
    rows = duckdb.sql(
        f"select week, count(*), count(*) filter (title like '% (v2)') from '{newest}' "
        "group by all order by week"
    ).fetchall()
    assert rows == [(WEEKS[1], 9, 0), (WEEKS[2], 8, 8), (WEEKS[3], 10, 0)]
    # a copy that lost a week and gained none is remade too
    shutil.rmtree(lake / "raw" / "pull_requests" / "repo=acme__rocket" / f"week={WEEKS[3]}")
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 2
    assert plan_full_read(lake).weekly == []


def test_a_copy_is_remade_only_once_enough_weeks_have_ended(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket", weeks=WEEKS[:1])
    # 06-29 is still the current week on 07-01: nothing to compact
    assert compact_repository(lake, "acme/rocket", today=date(2026, 7, 1), min_new_weeks=1) == 0
    assert not list(copies_dir(lake, "acme__rocket").glob("*.parquet"))
    # by 07-08 it has ended; with no copy yet, one week is enough to start one
    assert compact_repository(lake, "acme/rocket", today=date(2026, 7, 8)) == 1
    write_sample(lake, "acme/rocket", weeks=WEEKS[1:])
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 0  # 3 new weeks < 4
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL, min_new_weeks=3) == 4
    (_, newest) = sorted(copies_dir(lake, "acme__rocket").glob("*.parquet"))
    rows = duckdb.sql(
        f"select week, count(*) from '{newest}' group by all order by week"
    ).fetchall()
    assert rows == [(date(2026, 6, 29), 7), (date(2026, 7, 6), 9), (date(2026, 7, 13), 8),
                    (date(2026, 7, 20), 10)]  # fmt: skip


@pytest.mark.parametrize("content", [b"", b"not parquet at all", None])
def test_a_damaged_or_foreign_copy_is_ignored_and_replaced(tmp_path: Path, content) -> None:
    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    folder = copies_dir(lake, "acme__rocket")
    folder.mkdir(parents=True)
    if content is None:  # a valid Parquet file, but not one prweekly wrote
        scratch = tmp_path / "foreign.parquet"
        duckdb.sql(f"copy (select 1 as x) to '{scratch}' (format parquet)")
        content = scratch.read_bytes()
    digest = hashlib.sha256(content).hexdigest()  # named as a copy, so only its content tells
    foreign = folder / f"29990101T000000000000Z-{digest}.parquet"  # and it sorts newest
    foreign.write_bytes(content)
    assert plan_full_read(lake).compacted == []
    assert compact_repository(lake, "acme/rocket", today=AFTER_ALL) == 4
    assert not foreign.exists()
    assert plan_full_read(lake).compacted == [copy_of(lake)]


def test_the_cli_compacts_every_repository_of_the_lake(
    home: Path, capsys: pytest.CaptureFixture
) -> None:
    from orchestration.service.cli import main

    assert main(["compact"]) == 0
    assert "holds no week files yet" in capsys.readouterr().out
    write_sample(home / "lake", "acme/rocket")
    write_sample(home / "lake", "acme/other__x")  # a name may hold `__`, an owner may not
    assert main(["compact"]) == 0
    out = capsys.readouterr().out
    assert "acme/other__x: 4 weeks in one file" in out
    assert "compacted 2 repositories; 0 already up to date" in out
    assert main(["compact", "--repo", "acme/rocket"]) == 0
    assert "compacted 0 repositories; 1 already up to date" in capsys.readouterr().out
    assert main(["compact", "--repo", "not a repo"]) == 2


def test_a_full_build_lists_the_lake_and_checks_its_copies_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both staging models read the lake's listing: at a million PRs each listing is 100,000
    week files, so one build lists it once, and checks each copy once."""
    from orchestration.lake import reader as lake_reader

    lake = tmp_path / "lake"
    write_sample(lake, "acme/rocket")
    compact_repository(lake, "acme/rocket", today=AFTER_ALL)
    listed, planned = [], []
    for name, calls in (("list_week_files", listed), ("plan_full_read", planned)):
        real = getattr(lake_reader, name)
        monkeypatch.setattr(
            lake_reader, name, lambda *a, real=real, calls=calls: calls.append(a) or real(*a)
        )
    with duckdb.connect(str(tmp_path / "w.duckdb")) as conn:
        built = build(
            conn,
            load_project(SQL_DIR),
            None,
            select=["stg_weekly_partitions", "stg_pull_requests", "stg_pull_request_files"],
            sources=lake_sources(lake, lake.parent),
        )
        (weeks,) = conn.execute("select count(*) from staging.stg_weekly_partitions").fetchone()
    assert set(built.modes) == {
        "stg_weekly_partitions",
        "stg_pull_requests",
        "stg_pull_request_files",
    }
    assert (len(listed), len(planned), weeks) == (1, 1, len(WEEKS))
