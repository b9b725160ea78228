"""Repositories, the schedule, the freshness check and concurrent use of the warehouse."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from orchestration.assets import PrweeklyResource
from orchestration.config import load_settings
from orchestration.database import connect
from orchestration.repositories.registry import load_repositories
from orchestration.service.cli import main
from orchestration.service.definitions import defs
from orchestration.service.freshness import unreported_repositories
from orchestration.service.instance import get_instance
from tests.conftest import SAMPLE_DATASET, build_sample

PRWEEKLY = str(Path(sys.executable).with_name("prweekly"))


@pytest.fixture(scope="module")
def week30_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's week 30 built once (with the weeks before it that it compares with); the
    tests that start from it work on a copy."""
    home = tmp_path_factory.mktemp("week30") / "home"
    with pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME", "GITHUB_GRAPHQL_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        assert build_sample("2026-W30") == 0
    return home


def dataset_for(repo: str, target: Path) -> Path:
    """The sample repository's PRs, as if they belonged to `repo`."""
    text = SAMPLE_DATASET.read_text().replace("github.com/acme/rocket/", f"github.com/{repo}/")
    target.write_text(text)
    return target


def test_repositories_are_added_listed_and_removed(home: Path, capsys) -> None:
    assert (
        main(
            [
                "repo",
                "add",
                "acme/rocket",
                "--core-path",
                "rocket/engine/",
                "--area",
                "rocket/ground/=ground",
                "--source",
                f"file:{SAMPLE_DATASET}",
            ]
        )
        == 0
    )
    assert main(["repo", "add", "verl-project/verl"]) == 0
    assert main(["repo", "add", "acme/rocket", "--core-path", "rocket/sim/"]) == 0
    repos = {r.name: r for r in load_repositories(home)}
    assert set(repos) == {"acme/rocket", "verl-project/verl"}
    assert repos["acme/rocket"].core_paths == ["rocket/engine/", "rocket/sim/"]
    assert repos["acme/rocket"].area_rules == {"rocket/ground/": "ground"}
    assert repos["acme/rocket"].source == f"file:{SAMPLE_DATASET}"
    instance = get_instance(load_settings())
    assert sorted(instance.get_dynamic_partitions("repo")) == ["acme/rocket", "verl-project/verl"]

    capsys.readouterr()
    assert main(["repo", "list"]) == 0
    listing = capsys.readouterr().out
    assert "acme/rocket" in listing and "rocket/ground/=ground" in listing

    assert main(["repo", "remove", "verl-project/verl"]) == 0
    assert [r.name for r in load_repositories(home)] == ["acme/rocket"]
    assert instance.get_dynamic_partitions("repo") == ["acme/rocket"]
    assert main(["repo", "add", "bad/../name"]) == 2
    assert main(["repo", "add", "acme/x", "--area", "nonsense"]) == 2
    assert main(["repo", "remove", "never/added"]) == 2


def test_the_schedule_builds_last_week_for_every_repository_with_its_source(home: Path):
    assert main(["repo", "add", "acme/rocket", "--source", f"file:{SAMPLE_DATASET}"]) == 0
    assert main(["repo", "add", "verl-project/verl"]) == 0
    schedule = defs.resolve_schedule_def("weekly_report_schedule")
    assert schedule.cron_schedule == "0 6 * * 1"
    instance = get_instance(load_settings())
    context = dg.build_schedule_context(
        instance=instance,
        scheduled_execution_time=datetime(2026, 7, 27, 6, tzinfo=UTC),
        repository_def=defs.get_repository_def(),
    )
    (request,) = schedule.evaluate_tick(context).run_requests  # one run for all of them
    ranges = (
        request.tags["dagster/asset_partition_range_start"],
        request.tags["dagster/asset_partition_range_end"],
    )  # last week, and the week before read again for PRs GitHub's search indexed late
    assert ranges == ("acme/rocket|2026-07-13", "verl-project/verl|2026-07-20")
    assert request.run_config == {}  # each repository's source comes from repositories.yml
    sources = PrweeklyResource()
    assert sources.source_for("acme/rocket") == f"file:{SAMPLE_DATASET}"
    assert sources.source_for("verl-project/verl") == "github"


def test_the_freshness_check_names_missing_and_stale_reports(
    home: Path, week30_built: Path
) -> None:
    shutil.copytree(week30_built, home)
    assert main(["repo", "add", "verl-project/verl"]) == 0
    instance = get_instance(load_settings())
    assert unreported_repositories(instance, date(2026, 7, 20)) == (["verl-project/verl"], [])
    assert unreported_repositories(instance, date(2026, 7, 13)) == (
        ["acme/rocket", "verl-project/verl"],
        [],
    )
    # facts rebuilt after the report: the report is stale
    instance.report_runless_asset_event(
        dg.AssetMaterialization("fct_pull_requests", partition="acme/rocket|2026-07-20")
    )
    assert unreported_repositories(instance, date(2026, 7, 20)) == (
        ["verl-project/verl"],
        ["acme/rocket"],
    )
    result = defs.resolve_job_def("report_freshness_job").execute_in_process(instance=instance)
    (evaluation,) = result.get_asset_check_evaluations()
    assert evaluation.check_name == "last_week_reported" and not evaluation.passed


def test_two_builds_for_different_repositories_at_once(home: Path, tmp_path: Path) -> None:
    lander = dataset_for("acme/lander", tmp_path / "lander.jsonl")
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    builds = [
        subprocess.Popen(
            [
                PRWEEKLY,
                "build",
                "--repo",
                repo,
                "--week",
                "2026-W27",
                "--to",
                "2026-W30",
                "--source",
                f"file:{path}",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for repo, path in (("acme/rocket", SAMPLE_DATASET), ("acme/lander", lander))
    ]
    outputs = [b.communicate(timeout=300) for b in builds]
    for build, (_, err) in zip(builds, outputs, strict=True):
        assert build.returncode == 0, err[-3000:]
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        counts = conn.execute(
            "select repo, count(*) from marts.fct_pull_requests group by repo order by repo"
        ).fetchall()
    assert counts == [("acme/lander", 34), ("acme/rocket", 34)]
    for repo in ("acme__lander", "acme__rocket"):
        assert len(list((home / "reports" / repo).glob("*.md"))) == 8


def test_sql_waits_for_a_writer_then_answers(home: Path, week30_built: Path) -> None:
    shutil.copytree(week30_built, home)
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    with connect(home / "warehouse.duckdb"):  # what every model asset holds while it writes
        query = subprocess.Popen(
            [
                PRWEEKLY,
                "sql",
                "--format",
                "json",
                "select count(*) as prs from marts.fct_pull_requests "
                "where week_start = '2026-07-20'",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        waiting = ""
        while "busy" not in waiting and time.monotonic() < deadline:
            time.sleep(0.2)
            assert query.poll() is None, query.communicate()
            waiting += _peek(query.stderr)
        assert "the warehouse is busy" in waiting
        assert query.poll() is None
    os.set_blocking(query.stderr.fileno(), True)
    out, err = query.communicate(timeout=60)
    assert query.returncode == 0, err
    assert json.loads(out) == [{"prs": 10}]


def _peek(stream) -> str:
    """What a child process has written so far, without waiting for more."""
    os.set_blocking(stream.fileno(), False)
    try:
        return os.read(stream.fileno(), 65536).decode()
    except BlockingIOError:
        return ""


def test_sql_formats_files_and_plain_duckdb_readers(
    home: Path, week30_built: Path, tmp_path: Path, capsys
):
    shutil.copytree(week30_built, home)
    query = tmp_path / "q.sql"
    query.write_text(
        "select change_type, count(*) as n from marts.fct_pull_requests\n"
        "where week_start = '2026-07-20' group by 1 order by 2 desc, 1 limit 2"
    )
    assert main(["sql", "--file", str(query), "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["change_type,n", "feat,3", "fix,3"]
    assert main(["sql", "--file", str(query)]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["change_type", "n"] and "(2 rows)" in table
    assert main(["sql", "select * from nowhere"]) == 1
    assert "nowhere" in capsys.readouterr().err
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        # week 30 and the three weeks before it, back to the sample's first PR
        assert conn.execute("select count(*) from marts.fct_weekly_summary").fetchone() == (4,)
    with pytest.raises(duckdb.Error):
        duckdb.connect(str(home / "warehouse.duckdb"), read_only=True).execute(
            "create table marts.x as select 1"
        )


def test_repository_settings_reach_the_models(home: Path, sample_home: Path) -> None:
    shutil.copytree(sample_home, home)  # the sample's weeks 27 to 30, built without settings
    sql = (
        "select number, primary_area, core_path from marts.fct_pull_requests "
        "where number in (109, 110, 112) order by number"
    )
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        before = conn.execute(sql).fetchall()
    assert before == [(109, "sim", False), (110, "sensors", False), (112, "sim", False)]
    assert (
        main(
            [
                "repo",
                "add",
                "acme/rocket",
                "--area",
                "rocket/sensors/=avionics",
                "--core-path",
                "rocket/sim/",
            ]
        )
        == 0
    )
    assert build_sample("2026-W27", "2026-W30") == 0
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        after = conn.execute(sql).fetchall()
        reason = conn.execute(
            "select reason from marts.fct_weekly_risks "
            "where number = 112 and risk_flag = 'core_path'"
        ).fetchone()
    assert after == [(109, "sim", True), (110, "avionics", False), (112, "sim", True)]
    assert "rocket/sim/" in reason[0]


def test_queries_during_a_real_build_all_answer(home: Path) -> None:
    assert build_sample("2026-W27") == 0
    env = {**os.environ, "PRWEEKLY_HOME": str(home)}
    build = subprocess.Popen(
        [
            PRWEEKLY,
            "build",
            "--repo",
            "acme/rocket",
            "--week",
            "2026-W28",
            "--to",
            "2026-W30",
            "--source",
            f"file:{SAMPLE_DATASET}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    answers = []
    while build.poll() is None:
        query = subprocess.run(
            [PRWEEKLY, "sql", "select count(*) from marts.fct_weekly_summary"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert query.returncode == 0, query.stderr
        answers.append(int(query.stdout))
    assert build.returncode == 0, build.stderr.read()[-2000:]
    assert len(answers) >= 2 and set(answers) <= {1, 2, 3, 4}
    assert answers == sorted(answers)  # weeks appear, never vanish or half-appear
