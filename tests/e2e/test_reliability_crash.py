"""A build killed (SIGKILL) while writing Parquet, inside a model's transaction or while writing
the report leaves every reader the old complete data, and a rerun gives exactly the result of a
clean build.

- killed while the very first build creates Dagster's storage: the next build notices the
  unfinished storage, sets it aside and makes a new one (it used to fail for ever with
  "requires the dynamic partitions table"); it also removes the temporary files kills left
  once they are an hour old (younger ones may belong to a build still writing);
- held for good right after writing `fct_pull_requests`: `prweekly sql` answers at once, from
  the previous build, with `fct_pull_requests` and `fct_weekly_summary` agreeing.

The kills are real: `fixtures/reliability/crash_driver.py` runs `prweekly build` in a child
process and kills that process at the chosen point.
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import pyarrow.parquet as pq
import pytest

from orchestration.config import load_settings
from orchestration.lake.layout import lake_glob
from orchestration.service.cli import main
from orchestration.service.instance import get_instance
from tests.conftest import SAMPLE_DATASET

DRIVER = Path(__file__).parents[1] / "fixtures" / "reliability" / "crash_driver.py"
WEEK = "2026-07-20"
MARTS = ("fct_pull_requests", "fct_weekly_summary", "fct_weekly_area_trends", "fct_weekly_risks")


def datasets(tmp_path: Path) -> tuple[Path, Path]:
    """Week 30 of the sample (v1), and the same week changed: titles edited, one PR gone (v2)."""
    nodes = [json.loads(line) for line in SAMPLE_DATASET.read_text().splitlines() if line]
    week = [n for n in nodes if n["mergedAt"] >= "2026-07-20" and n["mergedAt"] < "2026-07-27"]
    v1, v2 = tmp_path / "v1.jsonl", tmp_path / "v2.jsonl"
    v1.write_text("".join(json.dumps(n) + "\n" for n in week))
    changed = [{**n, "title": n["title"] + " (v2)"} for n in week[1:]]
    v2.write_text("".join(json.dumps(n) + "\n" for n in changed))
    return v1, v2


def build_args(dataset: Path) -> list[str]:
    return ["build", "--repo", "acme/rocket", "--week", WEEK, "--source", f"file:{dataset}"]


def killed_build(home: Path, point: str, dataset: Path) -> None:
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    child = subprocess.run(
        [sys.executable, str(DRIVER), point, *build_args(dataset)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -9, child.stderr[-3000:]


def lake_titles(home: Path) -> list[str]:
    """What DuckDB's reader of the lake sees (the models' source)."""
    with duckdb.connect() as conn:
        rows = conn.execute(
            "select title from read_parquet(?) order by number", [lake_glob(home / "lake")]
        ).fetchall()
    return [r[0] for r in rows]


def marts(home: Path) -> dict[str, list[tuple]]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return {
            table: conn.execute(f"select * from marts.{table} order by all").fetchall()
            for table in MARTS
        }


def reports(home: Path) -> dict[str, bytes]:
    """The week's report files (not the site's pages and feeds, which date its editions)."""
    folder = home / "reports" / "acme__rocket"
    return {p.name: p.read_bytes() for p in sorted(folder.glob(f"{WEEK}.*"))}


CORRECTION = re.compile(rb'(?s:<aside class="correction">.*?</aside>\n)|^>[^\n]*\n\n?', re.M)


def without_correction(files: dict[str, bytes]) -> dict[str, bytes]:
    """The reports without the box saying what changed since the edition a reader saw."""
    return {name: CORRECTION.sub(b"", text) for name, text in files.items()}


HOUR = 3600
AGREE = (
    "select (select count(*) from marts.fct_pull_requests where week_start = '2026-07-20'), "
    "(select merged_prs from marts.fct_weekly_summary where week_start = '2026-07-20')"
)


def stray(path: Path, age: float) -> Path:
    """A temporary file (or compaction folder) as a kill leaves it, `age` seconds old."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.startswith("prweekly-compact-"):
        path.mkdir()
        (path / "compacted.parquet").write_bytes(b"half")
    else:
        path.write_bytes(b"half")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def strays(home: Path) -> tuple[list[Path], list[Path]]:
    """What kills leave: (older than an hour, younger)."""
    copies = home / "lake" / "raw" / "pull_requests_compacted" / "acme__rocket"
    reports = home / "reports" / "acme__rocket"
    system = Path(tempfile.gettempdir())
    old = [
        stray(home / ".repositories.yml.k1lled", 2 * HOUR),
        stray(home / ".warehouse.duckdb.0f1e2d.tmp", 2 * HOUR),
        stray(home / "build" / "work.copying", 2 * HOUR),
        stray(copies / ".20260720T000000000000Z-ab.parquet.x1.tmp", 2 * HOUR),
        stray(copies / ".clock-0a1b.tmp", 2 * HOUR),
        stray(reports / ".2026-07-20.en.md.x1.tmp", 2 * HOUR),
        stray(system / f"prweekly-compact-{os.getpid()}old", 2 * HOUR),
    ]
    young = [
        stray(home / ".repositories.yml.writing", 60),
        stray(reports / ".2026-07-20.zh.md.x2.tmp", 60),
        stray(system / f"prweekly-compact-{os.getpid()}new", 60),
    ]
    return old, young


def read(home: Path) -> tuple[list[int], float]:
    """`prweekly sql` in its own process: both marts' count of the week, and how long it took."""
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "orchestration.service.cli", "sql", "--format", "json", AGREE],
        env={**os.environ, "PRWEEKLY_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    )
    return list(json.loads(out.stdout)[0].values()), time.monotonic() - started


def held_build(home: Path, point: str, dataset: Path, marker: Path) -> subprocess.Popen:
    """A build that holds at `point` for good; returns once it holds."""
    child = subprocess.Popen(
        [sys.executable, str(DRIVER), point, *build_args(dataset)],
        env={**os.environ, "PRWEEKLY_HOME": str(home), "PRWEEKLY_HOLD_MARKER": str(marker)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while not marker.exists():
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            raise AssertionError(f"the build never held at {point}")
        time.sleep(0.2)
    return child


def test_builds_killed_at_each_write_leave_old_data_and_a_rerun_is_exact(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    v1, v2 = datasets(tmp_path)

    # 0. killed in the very first build, while Dagster creates its storage
    killed_build(home, "dagster_setup", v1)
    assert not (home / "dagster" / ".initialised").exists()
    old, young = strays(home)
    capsys.readouterr()
    try:
        assert main(build_args(v1)) == 0
        said = capsys.readouterr()
        assert "unfinished" in said.out + said.err  # set aside and made again
        assert [p for p in old if p.exists()] == [] and all(p.exists() for p in young)
    finally:
        for path in young:
            if path.is_dir():
                (path / "compacted.parquet").unlink()
                path.rmdir()
    old_titles, old_marts, old_reports = lake_titles(home), marts(home), reports(home)
    assert len(old_titles) == 10
    partition = home / "lake" / "raw" / "pull_requests" / "repo=acme__rocket" / f"week={WEEK}"

    # 1. killed half-way through the Parquet file: the torn temporary file is invisible
    killed_build(home, "parquet_write", v2)
    (torn,) = partition.glob(".data.*.tmp")
    with pytest.raises(Exception):  # noqa: B017 - torn indeed, whatever pyarrow calls it
        pq.read_table(torn)
    assert glob.glob(lake_glob(home / "lake")) == [str(partition / "data.parquet")]
    assert lake_titles(home) == old_titles
    assert marts(home) == old_marts and reports(home) == old_reports
    os.utime(torn, (0, 0))  # as if killed long ago: the next extract of the week sweeps it

    # 2. held for good after writing fct_pull_requests: readers see the previous build, whole,
    # at once; then killed
    child = held_build(home, "hold:fct_pull_requests", v2, tmp_path / "held")
    try:
        counts, during = read(home)  # v2 has 9 PRs, fct_pull_requests has them already
        assert counts == [10, 10]
    finally:
        child.kill()
        child.wait()
    counts, idle = read(home)
    assert counts == [10, 10] and marts(home) == old_marts
    assert during < idle + 5  # the reader did not wait for the build (start-up time varies)
    assert not torn.exists()

    # 3. killed inside fct_pull_requests' transaction, after its delete and insert ran
    killed_build(home, "model:fct_pull_requests", v2)
    assert len(lake_titles(home)) == 9  # the extract itself had finished
    after = marts(home)
    assert after["fct_pull_requests"] == old_marts["fct_pull_requests"]  # not one row half-done
    assert reports(home) == old_reports

    # 4. killed while replacing the report's files: each file is whole, old or new
    killed_build(home, "report_write:2", v2)
    half = reports(home)
    changed = {name for name in half if half[name] != old_reports[name]}
    assert len(changed) == 2 and set(half) == set(old_reports)

    # the rerun: exactly what a clean build of v2 gives
    assert main(build_args(v2)) == 0
    final = (lake_titles(home), marts(home), reports(home))
    assert all(half[name] == final[2][name] for name in changed)  # the new files were whole
    # ...which correct the edition of v1, as a clean build (with no edition before) does not
    assert b"> **Corrected since the edition of " in final[2][f"{WEEK}.en.md"]
    clean_home = tmp_path / "clean"
    monkeypatch.setenv("PRWEEKLY_HOME", str(clean_home))
    assert main(build_args(v2)) == 0
    assert final[:2] == (lake_titles(clean_home), marts(clean_home))
    assert without_correction(final[2]) == without_correction(reports(clean_home))
    assert len(final[0]) == 9 and all(t.endswith("(v2)") for t in final[0])

    # the killed runs do not stay "in progress": the next build marked them failed
    monkeypatch.setenv("PRWEEKLY_HOME", str(home))
    instance = get_instance(load_settings())
    statuses = sorted(r.status.value for r in instance.get_runs())
    assert statuses == ["FAILURE"] * 4 + ["SUCCESS"] * 2  # the set-up kill made no run
    assert not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))


def test_the_sweep_removes_every_kind_of_stray_temporary_but_never_a_lock(home: Path) -> None:
    """Temporary names as `storage.open_temporary` makes them (`.<name>.<random>.tmp`), in
    the home and in the lake's history records; lock files are never strays, however old."""
    from orchestration.lake.sweep import sweep_stray_files

    history = home / "lake" / "raw" / "history" / "repo=acme__rocket"
    locks = [
        stray(home / "repositories.yml.lock", 2 * HOUR),
        stray(home / "build" / "work.duckdb.lock", 2 * HOUR),
        stray(home / "warehouse.duckdb.lock", 2 * HOUR),
    ]
    old = [
        stray(home / ".repositories.yml.0a1b2c3d4e5f.tmp", 2 * HOUR),
        stray(history / ".data.parquet.0a1b2c3d4e5f.tmp", 2 * HOUR),
    ]
    young = [stray(history / ".data.parquet.5f4e3d2c1b0a.tmp", 60)]
    removed = sweep_stray_files(load_settings(), lambda _: None)
    assert sorted(removed) == sorted(str(p) for p in old)
    assert all(p.exists() for p in locks + young)


class _FailingInsert:
    """A connection whose insert into the model fails, as a full disk or a bug would."""

    def __init__(self, conn: duckdb.DuckDBPyConnection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args):
        if sql.startswith("insert into marts.weekly"):
            raise duckdb.IOException("no space left on device")
        return self._conn.execute(sql, *args)


def test_an_incremental_models_delete_and_insert_commit_together(tmp_path: Path) -> None:
    from orchestration.models.project import load_project
    from orchestration.models.run import materialize
    from orchestration.run_scope import RunScope

    root = tmp_path / "sql"
    (root / "marts").mkdir(parents=True)
    (root / "project.yml").write_text(
        "partitions:\n  repo: {type: varchar, var: repo}\n"
        "  week_start: {type: date, first: start_week, last: end_week}\n"
    )
    (root / "marts" / "weekly.sql").write_text(
        "{{ config(materialized='incremental') }}\n"
        "select repo, week_start, n from raw.events\n"
        "{% if is_incremental() %}where repo = {{ var('repo') }}\n"
        "  and week_start between {{ var('start_week') }} and {{ var('end_week') }}{% endif %}"
    )
    project = load_project(root)
    model = project.models["weekly"]
    week = RunScope("acme/rocket", date(2026, 7, 20), date(2026, 7, 20)).partitions()
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    conn.execute("create schema raw")
    conn.execute(
        "create table raw.events as select * from (values "
        "('acme/rocket', date '2026-07-13', 1), ('acme/rocket', date '2026-07-20', 2), "
        "('acme/rocket', date '2026-07-20', 3)) t(repo, week_start, n)"
    )
    assert materialize(conn, project, model, scope=None) == "full"
    before = conn.execute("select * from marts.weekly order by all").fetchall()
    conn.execute("delete from raw.events where n = 3")
    conn.execute("insert into raw.events values ('acme/rocket', date '2026-07-20', 4)")
    with pytest.raises(duckdb.IOException):
        materialize(_FailingInsert(conn), project, model, scope=week)
    assert conn.execute("select * from marts.weekly order by all").fetchall() == before
    assert materialize(conn, project, model, scope=week) == "incremental"
    assert [r[2] for r in conn.execute("select * from marts.weekly order by all").fetchall()] == [
        1,
        2,
        4,
    ]
    conn.close()
