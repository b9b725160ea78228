"""A data test that fails names what fails it and stops only the partitions whose rows fail.

A PR number that appears in two weeks of one repository (one week extracted when the PR's
merge time said so, the other after it changed) breaks `unique_repo_number` on
`stg_pull_requests`. That build fails naming the repository, the PR and both weeks, and keeps
the previous report of its week and of the later week it would have re-rendered; every other
repository's builds and reports go on.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import duckdb
import pytest
import yaml
from delivery_receivers import SlackReceiver

from orchestration.config import SQL_DIR
from orchestration.models.project import load_project
from orchestration.run_scope import RunScope
from orchestration.service.cli import main
from orchestration.warehouse.checks import run_checks
from tests.conftest import SAMPLE_DATASET

W29, W30 = "2026-07-13", "2026-07-20"


def dataset(tmp_path: Path, name: str, repo: str = "acme/rocket", moved: dict | None = None):
    """The sample as `repo`'s PRs, with the merge times in `moved` ({number: mergedAt})."""
    target = tmp_path / name
    with target.open("w") as out:
        for line in SAMPLE_DATASET.read_text().splitlines():
            node = json.loads(line)
            node["url"] = node["url"].replace("acme/rocket", repo)
            node["mergedAt"] = (moved or {}).get(node["number"], node["mergedAt"])
            out.write(json.dumps(node) + "\n")
    return target


def test_a_failing_data_test_names_its_keys_and_blocks_only_its_partition(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run of two repositories: the week whose facts fail a data test is neither reported
    nor delivered, and the run fails naming it; the other repository's week goes out."""
    assert main(["build", "--repo", "acme/rocket", "--week", W29, "--to", W30, "--source",
                 f"file:{dataset(tmp_path, 'now.jsonl')}"]) == 0  # fmt: skip
    reports = home / "reports" / "acme__rocket"
    before = {p.name: p.read_bytes() for p in reports.glob("*.md")}

    # a second extract of W29 sees PR #129 merged on Sunday, though W30 holds it (Monday)
    moved = dataset(tmp_path, "before.jsonl", moved={129: "2026-07-19T23:00:00Z"})
    other = dataset(tmp_path, "other.jsonl", repo="acme/other")
    with SlackReceiver("/services/T0ACME/B0OTHER/secret0123456789") as slack:
        monkeypatch.setenv("TEST_SLACK_WEBHOOK", slack.url)
        entries = [
            {"name": "acme/rocket", "source": f"file:{moved}"},
            {
                "name": "acme/other",
                "source": f"file:{other}",
                "deliver": {"slack": {"webhook_url": "${TEST_SLACK_WEBHOOK}"}},
            },
        ]
        (home / "repositories.yml").write_text(yaml.safe_dump({"repositories": entries}))
        capsys.readouterr()
        assert main(["build", "--all", "--week", W29]) == 1
        err = capsys.readouterr().err
        (line,) = [e for e in err.splitlines() if e.startswith("prweekly: error:")]
        assert "unique_repo_number" in line and "stg_pull_requests" in line, line
        assert "acme/rocket week 2026-07-13 PR #129" in line, line
        assert "acme/rocket week 2026-07-20 PR #129" in line, line
        assert "acme/other" not in line, line
        assert [m["text"].splitlines()[0] for m in slack.messages] == [
            "*acme/other weekly report 2026-W29*"
        ]
    assert (home / "reports" / "acme__other" / f"{W29}.en.md").exists()
    # W29's report, and W30's, which the build would re-render as its facts changed, stay
    assert {p.name: p.read_bytes() for p in reports.glob("*.md")} == before
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        failures = conn.execute(
            "select model, test, repo, week_start::varchar from checks.data_test_failures "
            "where model = 'stg_pull_requests' order by all"
        ).fetchall()
    # the W29 build rewrote W30 too (the later weeks that compare with it): both weeks fail
    assert failures == [
        ("stg_pull_requests", "unique_repo_number", "acme/rocket", week) for week in (W29, W30)
    ]


def test_checks_count_only_the_rows_a_run_wrote_and_name_their_partitions(tmp_path: Path):
    project = load_project(SQL_DIR)
    model = project.models["stg_pull_requests"]
    conn = duckdb.connect()
    conn.execute("create schema staging")
    conn.execute(
        "create table staging.stg_pull_requests as select * from (values "
        "('acme/rocket', date '2026-07-13', 129, true), "
        "('acme/rocket', date '2026-07-20', 129, true), "
        "('acme/rocket', date '2026-07-20', 130, true), "
        "('acme/other', date '2026-07-20', 129, true), "
        "('acme/other', date '2026-07-20', null, true)) t(repo, week_start, number, files_complete)"
    )
    by_name = {o.test.name: o for o in run_checks(conn, project, model)}
    assert by_name["unique_repo_number"].partitions == [
        ("acme/rocket", date(2026, 7, 13)),
        ("acme/rocket", date(2026, 7, 20)),
    ]
    assert by_name["not_null_number"].examples == ["acme/other week 2026-07-20"]
    other = [RunScope("acme/other", date(2026, 7, 20), date(2026, 7, 20)).partitions()]
    scoped = {o.test.name: o for o in run_checks(conn, project, model, other)}
    assert scoped["unique_repo_number"].passed
    assert scoped["not_null_number"].failing_rows == 1
