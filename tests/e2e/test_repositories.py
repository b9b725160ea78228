"""repositories.yml as the truth: concurrent writers, the schedule, and removal during a build."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
import duckdb

from orchestration.config import load_settings
from orchestration.repositories.registry import (
    Repository,
    load_repositories,
    merge_spellings,
    registry_lock,
    remove,
    save_repositories,
    upsert,
)
from orchestration.service.cli import main, register_built
from orchestration.service.dagster_run import register_repo
from orchestration.service.definitions import defs
from orchestration.service.freshness import unreported_repositories
from orchestration.service.instance import get_instance
from tests.conftest import ROOT, SAMPLE_DATASET

PRWEEKLY = str(Path(sys.executable).with_name("prweekly"))

WRITER = """\
import sys
from pathlib import Path
from orchestration.repositories.registry import Repository, remove, upsert
home, owner, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    upsert(home, Repository(f"{owner}/repo-{i}", core_paths=[f"src/{i}/"]))
    if i % 5 == 0:
        remove(home, f"old/repo-{owner}-{i}")
"""


def test_concurrent_writers_of_the_repositories_file_lose_nothing(home: Path) -> None:
    owners = [f"owner{n}" for n in range(4)]
    for owner in owners:  # entries the writers remove while the others add
        for i in range(0, 25, 5):
            upsert(home, Repository(f"old/repo-{owner}-{i}"))
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(home), owner, "25"], cwd=ROOT)
        for owner in owners
    ]
    assert [w.wait(timeout=120) for w in writers] == [0] * len(writers)
    repos = {r.name: r for r in load_repositories(home)}
    assert sorted(repos) == sorted(f"{o}/repo-{i}" for o in owners for i in range(25))
    assert repos["owner3/repo-24"].core_paths == ["src/24/"]
    assert not list(home.glob(".repositories.yml.*"))  # no temporary file left behind


def test_remove_and_upsert_keep_each_others_entries(home: Path) -> None:
    upsert(home, Repository("acme/rocket", source="github"))
    upsert(home, Repository("acme/lander"))
    assert remove(home, "ACME/Rocket") and not remove(home, "acme/rocket")
    assert [r.name for r in load_repositories(home)] == ["acme/lander"]


def test_the_schedule_and_the_freshness_check_follow_the_file(home: Path) -> None:
    """A repository removed from repositories.yml by hand is neither built nor awaited."""
    assert main(["repo", "add", "acme/rocket", "--source", f"file:{SAMPLE_DATASET}"]) == 0
    assert main(["repo", "add", "verl-project/verl"]) == 0
    save_repositories(home, [r for r in load_repositories(home) if r.name != "verl-project/verl"])
    instance = get_instance(load_settings())
    assert "verl-project/verl" in instance.get_dynamic_partitions("repo")  # still in the UI
    schedule = defs.resolve_schedule_def("weekly_report_schedule")
    context = dg.build_schedule_context(
        instance=instance,
        scheduled_execution_time=datetime(2026, 7, 27, 6, tzinfo=UTC),
        repository_def=defs.get_repository_def(),
    )
    requests = list(schedule.evaluate_tick(context).run_requests)
    built = [r.tags["dagster/asset_partition_range_end"] for r in requests]
    assert built == ["acme/rocket|2026-07-20"]
    assert unreported_repositories(instance, date(2026, 7, 20)) == (["acme/rocket"], [])


def test_the_freshness_check_finds_a_report_whatever_the_registered_spelling(home: Path):
    """The file keeps the spelling typed; the report's partition is the lower-case identity."""
    save_repositories(home, [Repository("Acme/Rocket")])
    instance = get_instance(load_settings())
    assert unreported_repositories(instance, date(2026, 7, 20)) == (["Acme/Rocket"], [])
    instance.report_runless_asset_event(
        dg.AssetMaterialization("weekly_report", partition="acme/rocket|2026-07-20")
    )
    assert unreported_repositories(instance, date(2026, 7, 20)) == ([], [])


def test_merging_two_spellings_waits_for_the_registry_lock(home: Path) -> None:
    """The merge an older home needs is a read-modify-write like any other: it takes its turn,
    so it cannot write back a file that misses what the lock's holder is adding."""
    home.mkdir()
    (home / "repositories.yml").write_text(
        "repositories:\n- name: acme/rocket\n- name: ACME/Rocket\n  core_paths: [engine/]\n"
    )
    holding, release = threading.Event(), threading.Event()

    def holder() -> None:
        with registry_lock(home):
            holding.set()
            release.wait(30)
            upsert(home, Repository("acme/lander"))

    merged: list = []
    threads = [threading.Thread(target=holder)]
    threads[0].start()
    assert holding.wait(30)
    threads.append(threading.Thread(target=lambda: merged.append(merge_spellings(home))))
    threads[1].start()
    threads[1].join(0.5)
    assert threads[1].is_alive() and merged == []  # it waits for the lock
    release.set()
    for thread in threads:
        thread.join(30)
    assert len(merged) == 1  # the holder's write already held one entry per repository
    entries = {r.name: r.core_paths for r in load_repositories(home)}
    assert entries == {"acme/lander": [], "acme/rocket": ["engine/"]}  # nothing lost
    assert "ACME/Rocket" not in (home / "repositories.yml").read_text()


def test_removing_a_repository_waits_for_its_running_build(home: Path, capsys) -> None:
    source = f"file:{SAMPLE_DATASET}"
    build = subprocess.Popen(
        [PRWEEKLY, "build", "--repo", "acme/rocket", "--week", "2026-W30", "--source", source],
        env={**os.environ, "PRWEEKLY_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (home / "dagster" / ".initialised").exists():
            assert build.poll() is None, build.stderr.read()
            assert time.monotonic() < deadline, "the build did not start"
            time.sleep(0.1)
        instance = get_instance(load_settings())
        while not _running(instance):
            assert build.poll() is None, build.stderr.read()
            assert time.monotonic() < deadline, "the build did not start"
            time.sleep(0.1)
        assert main(["repo", "remove", "acme/rocket"]) == 0
        assert not _running(instance)  # the removal returned only once the build's run ended
    finally:
        _, err = build.communicate(timeout=300)
    assert build.returncode == 0, err[-3000:]
    assert "waiting for the running build of acme/rocket" in capsys.readouterr().err
    assert load_repositories(home) == []
    assert instance.get_dynamic_partitions("repo") == []
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        prs, week = conn.execute(
            "select count(*), count(*) filter (where week_start = '2026-07-20') "
            "from marts.fct_pull_requests"
        ).fetchone()
        summary = conn.execute("select sum(merged_prs) from marts.fct_weekly_summary").fetchone()
    # the week and the three before it in the file, which the build extracts as its history
    assert (prs, week, summary[0]) == (34, 10, 34)


def test_a_repository_removed_while_its_first_build_runs_stays_removed(home: Path) -> None:
    """A build registers its repository once the run is over (its extract worked); a removal
    that waited for that run must not see the repository come back a moment later."""
    settings = load_settings()
    register_repo(settings, "acme/rocket")  # the partition a build's run makes first
    assert main(["repo", "remove", "acme/rocket"]) == 0  # it returns once the run ended...
    register_built(settings, "acme/rocket", f"file:{SAMPLE_DATASET}")  # ...then the build
    assert load_repositories(home) == []
    assert get_instance(settings).get_dynamic_partitions("repo") == []


def _running(instance: dg.DagsterInstance) -> bool:
    statuses = [dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTED]
    return bool(instance.get_runs(filters=dg.RunsFilter(statuses=statuses)))


def test_a_run_builds_the_repositories_its_partition_tags_name() -> None:
    from orchestration.service.build_runs import builds_repo

    start, end = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
    one_repo = {start: "acme/rocket|2026-06-29", end: "acme/rocket|2026-07-20"}
    assert builds_repo(one_repo, "acme/rocket") and builds_repo(one_repo, "ACME/Rocket")
    assert not builds_repo(one_repo, "acme/lander")
    across = {start: "acme/lander|2026-07-20", end: "acme/zeta|2026-07-20"}
    assert builds_repo(across, "acme/rocket") and not builds_repo(across, "verl-project/verl")
    assert builds_repo({"dagster/partition": "acme/rocket|2026-07-20"}, "acme/rocket")
    assert builds_repo({"dagster/partition/repo": "acme/rocket"}, "acme/rocket")
    assert not builds_repo({"dagster/partition": "acme/rocketry|2026-07-20"}, "acme/rocket")
    assert not builds_repo({}, "acme/rocket")
