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

from orchestration.assets import weekly_partitions
from orchestration.config import load_settings
from orchestration.repositories.registry import Repository, save_repositories
from orchestration.service.cli import main
from orchestration.service.definitions import defs
from orchestration.service.instance import get_instance
from orchestration.testing.github_emulator import Emulator
from tests.conftest import SAMPLE_DATASET

FILED, LOCKED, ROCKET = "acme/filed", "acme/locked", "acme/rocket"  # FILED reads a file
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
    files = [
        *(home / "lake" / "raw" / "pull_requests" / f"repo={slug(repo)}").rglob("*.parquet"),
        *(home / "reports" / slug(repo)).iterdir(),
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
        keys = [f"{repo}|{week}" for repo in (FILED, LOCKED, ROCKET)]
        by_key = instance.get_status_by_partition(dg.AssetKey(asset), keys, weekly_partitions)
        for key in keys:
            status = (by_key or {}).get(key)
            found[(asset, key.split("|")[0])] = status.value if status else "MISSING"
    return found


def slug(repo: str) -> str:
    return repo.replace("/", "__")


def tick(instance: dg.DagsterInstance, when: datetime) -> list[dg.RunRequest]:
    """The run requests of the Monday schedule's tick at `when`."""
    context = dg.build_schedule_context(
        instance=instance, scheduled_execution_time=when, repository_def=defs.get_repository_def()
    )
    schedule = defs.resolve_schedule_def("weekly_report_schedule")
    return list(schedule.evaluate_tick(context).run_requests)


def follow_ups(instance: dg.DagsterInstance, failed_run_id: str) -> list[dg.RunRequest]:
    """What `build_the_rest_sensor` asks for once the run has failed."""
    sensor = defs.resolve_sensor_def("build_the_rest_sensor")
    (failure,) = instance.all_logs(failed_run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
    context = dg.build_run_status_sensor_context(
        sensor_name=sensor.name,
        dagster_instance=instance,
        dagster_run=instance.get_run_by_id(failed_run_id),
        dagster_event=failure.dagster_event,
    )
    return list(sensor(context))


def range_of(request: dg.RunRequest) -> tuple[str, str]:
    tags = request.tags
    return tags["dagster/asset_partition_range_start"], tags["dagster/asset_partition_range_end"]


@pytest.fixture
def github(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Three registered repositories, two on the GitHub emulator and one in a file."""
    filed = tmp_path / "acme__filed.jsonl"
    filed.write_text("".join(json.dumps(n) + "\n" for n in nodes_of(FILED)), encoding="utf-8")
    home.mkdir()
    save_repositories(
        home, [Repository(FILED, source=f"file:{filed}"), Repository(LOCKED), Repository(ROCKET)]
    )
    with Emulator([*nodes_of(ROCKET), *nodes_of(LOCKED)]) as emulator:
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
        yield emulator, filed


def test_the_monday_run_is_one_run_and_one_repository_failing_leaves_the_others_built(
    home: Path, github
) -> None:
    emulator, filed = github
    instance = get_instance(load_settings())
    job = defs.resolve_job_def("weekly_report_job")

    # The schedule's tick: one run for the three, each from its own source.
    monday = datetime(2026, 7, 27, 6, tzinfo=UTC)
    (request,) = tick(instance, monday)
    assert range_of(request) == (f"{FILED}|2026-07-13", f"{ROCKET}|2026-07-20")
    assert [r.run_key for r in tick(instance, monday)] == [request.run_key]  # launched once
    assert job.execute_in_process(instance=instance, tags=request.tags).success
    for repo in (FILED, LOCKED, ROCKET):
        for week in ("2026-07-13", "2026-07-20"):
            assert (home / "reports" / slug(repo) / f"{week}.en.html").exists(), (repo, week)

    # A tick that reads 2026-W28 and W29 meets a repository GitHub no longer has: its run
    # fails naming it, and the sensor builds the others, past the failed partitions.
    emulator.faults.fail_repository(ROCKET, "not-found")
    before = state_of(home, ROCKET)
    rewritten = [home / "reports" / slug(r) / "2026-07-13.en.md" for r in (FILED, LOCKED)]
    for path in rewritten:
        path.unlink()
    (request,) = tick(instance, datetime(2026, 7, 20, 6, tzinfo=UTC))
    failed = job.execute_in_process(instance=instance, tags=request.tags, raise_on_error=False)
    assert not failed.success
    (rest,) = follow_ups(instance, failed.run_id)
    assert range_of(rest) == (f"{FILED}|2026-07-06", f"{LOCKED}|2026-07-13")
    assert job.execute_in_process(instance=instance, tags=rest.tags).success
    assert follow_ups(instance, failed.run_id) == [rest]  # the same run key: launched once
    assert state_of(home, ROCKET) == before  # no half week: lake, facts, reports as they were
    assert all(path.exists() for path in rewritten)
    shown = statuses(instance, "2026-07-13")
    for asset in ASSETS:
        assert shown[(asset, FILED)] == shown[(asset, LOCKED)] == "MATERIALIZED", (asset, shown)
        assert shown[(asset, ROCKET)] == "FAILED", (asset, shown)
    # a range launched from the UI (neither the schedule nor the CLI) is followed up as well
    ui_range = {
        "dagster/asset_partition_range_start": f"{FILED}|2026-07-06",
        "dagster/asset_partition_range_end": f"{ROCKET}|2026-07-06",
    }
    from_ui = job.execute_in_process(instance=instance, tags=ui_range, raise_on_error=False)
    assert not from_ui.success
    (rest,) = follow_ups(instance, from_ui.run_id)
    assert range_of(rest) == (f"{FILED}|2026-07-06", f"{LOCKED}|2026-07-06")
    emulator.faults.fail_repository(ROCKET, None)

    # `build --all`: the token loses its scope for one repository, another's file breaks.
    before = {repo: state_of(home, repo) for repo in (FILED, LOCKED)}
    rocket_reports = sorted((home / "reports" / slug(ROCKET)).glob("2026-07-20.*"))
    for path in rocket_reports:
        path.unlink()
    emulator.faults.fail_repository(LOCKED, "insufficient-scopes")
    with filed.open("a", encoding="utf-8") as file:
        file.write("{not json\n")
    code, said = run("build", "--all", "--week", "2026-W30")

    assert code == 1, said
    assert "2 of 3 repositories failed" in said, said
    assert f"{LOCKED}: " in said and "INSUFFICIENT_SCOPES" in said, said
    assert f"{FILED}: " in said and "malformed JSON" in said, said
    assert f"the other 1 were built: {ROCKET}" in said, said
    for repo in (FILED, LOCKED):
        assert state_of(home, repo) == before[repo], repo
    assert len(rocket_reports) >= 4 and all(path.exists() for path in rocket_reports)
    shown = statuses(instance, "2026-07-20")
    for asset in ASSETS:
        assert shown[(asset, ROCKET)] == "MATERIALIZED", (asset, shown)
        assert shown[(asset, LOCKED)] == shown[(asset, FILED)] == "FAILED", (asset, shown)
    red = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE]), limit=1)
    (failure,) = instance.all_logs(red[0].run_id, of_type=dg.DagsterEventType.STEP_FAILURE)
    error = failure.dagster_event.step_failure_data.error.message
    assert LOCKED in error and FILED in error  # the failed run names them
    assert follow_ups(instance, red[0].run_id) == []  # the CLI followed it up itself

    # fixed, the next run builds them
    emulator.faults.fail_repository(LOCKED, None)
    filed.write_text("".join(json.dumps(n) + "\n" for n in nodes_of(FILED)), encoding="utf-8")
    code, said = run("build", "--all", "--week", "2026-W30")
    assert code == 0, said
    assert set(statuses(instance, "2026-07-20").values()) == {"MATERIALIZED"}
