"""One repository's failure inside a run of several (`build --all`, the Monday schedule) fails
its own partitions and leaves its lake, facts and reports as they were; the others are built
exactly, and Dagster shows which partitions failed and which were materialised."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from orchestration.cli import main
from orchestration.config import load_settings
from orchestration.definitions import defs
from orchestration.emulator import Emulator
from orchestration.instance import get_instance
from orchestration.partitions import weekly_partitions
from orchestration.repositories import Repository, save_repositories
from tests.conftest import SAMPLE_DATASET

GOOD, LOCKED, BAD = "acme/rocket", "acme/locked", "acme/bad"  # BAD reads from a file
ASSETS = ["raw_pull_requests", "fct_pull_requests", "weekly_report", "delivered_reports"]


def nodes_of(repo: str) -> list[dict]:
    text = SAMPLE_DATASET.read_text(encoding="utf-8").replace("acme/rocket", repo)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def state_of(home: Path, repo: str) -> dict:
    """Everything a build may write for `repo`: lake files, facts and reports, with times."""
    slug = repo.replace("/", "__")
    files = [
        *(home / "lake" / "raw" / "pull_requests" / f"repo={slug}").rglob("*.parquet"),
        *(home / "reports" / slug).iterdir(),
    ]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        facts = [
            conn.execute(
                f"select * from marts.{table} where repo = ? order by all", [repo]
            ).fetchall()
            for table in ("fct_pull_requests", "fct_weekly_summary")
        ]
    return {
        "files": {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(files)},
        "facts": facts,
    }


def statuses(instance: dg.DagsterInstance, week: str) -> dict[tuple[str, str], str]:
    found = {}
    for asset in ASSETS:
        keys = [f"{repo}|{week}" for repo in (BAD, LOCKED, GOOD)]
        by_key = instance.get_status_by_partition(dg.AssetKey(asset), keys, weekly_partitions)
        for key in keys:
            status = (by_key or {}).get(key)
            found[(asset, key.split("|")[0])] = status.value if status else "MISSING"
    return found


@pytest.fixture
def github(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Three registered repositories, two on the GitHub emulator and one in a file."""
    bad = tmp_path / "acme__bad.jsonl"
    bad.write_text("".join(json.dumps(n) + "\n" for n in nodes_of(BAD)), encoding="utf-8")
    home.mkdir()
    save_repositories(
        home, [Repository(BAD, source=f"file:{bad}"), Repository(LOCKED), Repository(GOOD)]
    )
    with Emulator([*nodes_of(GOOD), *nodes_of(LOCKED)]) as emulator:
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
        yield emulator, bad


def test_one_repository_failing_in_build_all_leaves_the_others_built(home: Path, github):
    emulator, bad = github
    code, said = run("build", "--all", "--week", "2026-W30")
    assert code == 0, said
    before = {repo: state_of(home, repo) for repo in (BAD, LOCKED)}
    good_reports = sorted((home / "reports" / "acme__rocket").glob("2026-07-20.*"))
    assert len(good_reports) >= 4
    for path in good_reports:
        path.unlink()

    # the token loses its scope for one repository, the other's file gets a broken line
    emulator.faults.fail_repository(LOCKED, "insufficient-scopes")
    with bad.open("a", encoding="utf-8") as file:
        file.write("{not json\n")
    code, said = run("build", "--all", "--week", "2026-W30")

    assert code == 1, said
    assert "2 of 3 repositories failed" in said, said
    assert f"{LOCKED}: " in said and "INSUFFICIENT_SCOPES" in said, said
    assert f"{BAD}: " in said and "malformed JSON" in said, said
    assert f"the other 1 were built: {GOOD}" in said, said
    for repo in (BAD, LOCKED):  # no half week: lake, facts and reports exactly as they were
        assert state_of(home, repo) == before[repo], repo
    assert all(path.exists() for path in good_reports)  # the others' reports were written
    instance = get_instance(load_settings())
    shown = statuses(instance, "2026-07-20")
    for asset in ASSETS:
        assert shown[(asset, GOOD)] == "MATERIALIZED", (asset, shown)
        assert shown[(asset, LOCKED)] == "FAILED", (asset, shown)
        assert shown[(asset, BAD)] == "FAILED", (asset, shown)
    (red,) = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE]))
    (failure,) = instance.all_logs(red.run_id, of_type=dg.DagsterEventType.STEP_FAILURE)
    error = failure.dagster_event.step_failure_data.error.message
    assert LOCKED in error and BAD in error  # the failed run names them

    # fixed, the next run builds them
    emulator.faults.fail_repository(LOCKED, None)
    bad.write_text("".join(json.dumps(n) + "\n" for n in nodes_of(BAD)), encoding="utf-8")
    code, said = run("build", "--all", "--week", "2026-W30")
    assert code == 0, said
    assert set(statuses(instance, "2026-07-20").values()) == {"MATERIALIZED"}


def test_the_schedule_builds_every_repository_in_one_run_and_the_rest_past_a_failure(
    home: Path, github
):
    emulator, _ = github
    instance = get_instance(load_settings())
    job = defs.resolve_job_def("weekly_report_job")

    def tick(when: datetime) -> list[dg.RunRequest]:
        context = dg.build_schedule_context(
            instance=instance,
            scheduled_execution_time=when,
            repository_def=defs.get_repository_def(),
        )
        return list(
            defs.resolve_schedule_def("weekly_report_schedule").evaluate_tick(context).run_requests
        )

    monday = datetime(2026, 7, 27, 6, tzinfo=UTC)
    (request,) = tick(monday)  # one run for the three, each from its own source
    assert request.tags["dagster/asset_partition_range_start"] == f"{BAD}|2026-07-13"
    assert request.tags["dagster/asset_partition_range_end"] == f"{GOOD}|2026-07-20"
    assert [r.run_key for r in tick(monday)] == [request.run_key]  # the same key: launched once
    assert job.execute_in_process(instance=instance, tags=request.tags).success
    for repo in (BAD, LOCKED, GOOD):
        slug = repo.replace("/", "__")
        for week in ("2026-07-13", "2026-07-20"):
            assert (home / "reports" / slug / f"{week}.en.html").exists(), (repo, week)

    # a later tick (here: reading 2026-W28 and W29 again) meets a repository GitHub no longer has
    emulator.faults.fail_repository(LOCKED, "not-found")
    before = state_of(home, LOCKED)
    rewritten = [
        home / "reports" / slug / "2026-07-13.en.md" for slug in ("acme__bad", "acme__rocket")
    ]
    for path in rewritten:
        path.unlink()
    (request,) = tick(datetime(2026, 7, 20, 6, tzinfo=UTC))
    failed = job.execute_in_process(instance=instance, tags=request.tags, raise_on_error=False)
    assert not failed.success
    sensor = defs.resolve_sensor_def("build_the_rest_sensor")
    context = dg.build_run_status_sensor_context(
        sensor_name=sensor.name,
        dagster_instance=instance,
        dagster_run=instance.get_run_by_id(failed.run_id),
        dagster_event=instance.all_logs(failed.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)[
            0
        ].dagster_event,
    )
    rest = list(sensor(context))  # the others, past the failed partition, in their own runs
    assert [
        (r.tags["dagster/asset_partition_range_start"], r.tags["dagster/asset_partition_range_end"])
        for r in rest
    ] == [(f"{BAD}|2026-07-06", f"{BAD}|2026-07-13"), (f"{GOOD}|2026-07-06", f"{GOOD}|2026-07-13")]
    for request in rest:
        assert job.execute_in_process(instance=instance, tags=request.tags).success
    assert state_of(home, LOCKED) == before
    assert all(path.exists() for path in rewritten)
    shown = statuses(instance, "2026-07-13")
    for asset in ASSETS:
        assert shown[(asset, GOOD)] == shown[(asset, BAD)] == "MATERIALIZED", (asset, shown)
        assert shown[(asset, LOCKED)] == "FAILED", (asset, shown)
