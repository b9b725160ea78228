"""The Dagster UI for real: `dagster dev` on a free loopback port, driven through GraphQL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from orchestration.config import load_settings
from orchestration.service.cli import main
from orchestration.service.definitions import project
from orchestration.service.instance import prepare_dagster_home
from tests.conftest import ROOT, SAMPLE_DATASET

LOCATION = {
    "repositoryLocationName": "orchestration.service.definitions",
    "repositoryName": "__repository__",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class DagsterDev:
    def __init__(self, home: Path) -> None:
        prepare_dagster_home(load_settings())
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/graphql"
        self.log = (home / "dagster-dev.log").open("w")
        prweekly = Path(sys.executable).with_name("prweekly")  # `prweekly ui` runs `dagster dev`
        self.process = subprocess.Popen(
            [str(prweekly), "ui", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=ROOT,
            # no default source: runs launched from the UI must use the repository's own
            env={k: v for k, v in os.environ.items() if k != "PRWEEKLY_SOURCE"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_until_up(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "dagster dev exited early"
            try:
                if httpx.get(self.url.replace("/graphql", "/server_info"), timeout=2).is_success:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        pytest.fail("dagster dev did not answer in time")

    def query(self, document: str, **variables) -> dict:
        response = httpx.post(
            self.url, json={"query": document, "variables": variables}, timeout=60
        )
        response.raise_for_status()
        body = response.json()
        assert "errors" not in body, body["errors"]
        return body["data"]

    def stop(self) -> list[str]:
        """Ctrl-C in its terminal (SIGINT to the process group), as a user would stop it.

        Returns the processes still alive 60 s later, which are then killed."""
        os.killpg(self.process.pid, signal.SIGINT)
        deadline = time.monotonic() + 60
        alive = self.session_processes()
        while alive and time.monotonic() < deadline:
            time.sleep(0.5)
            alive = self.session_processes()
        if alive:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.log.close()
        return alive

    def session_processes(self) -> list[str]:
        self.process.poll()  # reap dagster dev itself once it exits, so it is not counted
        found = subprocess.run(
            ["pgrep", "-s", str(self.process.pid)], capture_output=True, text=True
        )
        return found.stdout.split()


@pytest.fixture
def dagster_dev(home: Path):
    # as a user would: the repository and its source first, then the UI (no GITHUB_TOKEN set)
    assert main(["repo", "add", "acme/rocket", "--source", f"file:{SAMPLE_DATASET}"]) == 0
    server = DagsterDev(home)
    try:
        server.wait_until_up()
        yield server
    finally:
        leftovers = server.stop()
    assert leftovers == [], f"dagster dev left processes running after Ctrl-C: {leftovers}"


def test_the_ui_shows_the_graph_and_materialises_a_partition(dagster_dev: DagsterDev, home):
    graph = dagster_dev.query(
        """
        query($s: RepositorySelector!) {
          assetNodes { assetKey { path } isPartitioned
            assetChecksOrError { ... on AssetChecks { checks { name } } } }
          schedulesOrError(repositorySelector: $s) {
            ... on Schedules { results { name cronSchedule scheduleState { status } } } }
          partitionSetsOrError(repositorySelector: $s, pipelineName: "weekly_report_job") {
            ... on PartitionSets { results { name } } }
        }
        """,
        s=LOCATION,
    )
    nodes = {"/".join(n["assetKey"]["path"]): n for n in graph["assetNodes"]}
    assert {"raw_pull_requests", "weekly_report", *project.models} <= set(nodes)
    assert nodes["raw_pull_requests"]["isPartitioned"]
    checks = {c["name"] for c in nodes["fct_pull_requests"]["assetChecksOrError"]["checks"]}
    assert {"unique_repo_number", "accepted_values_change_type"} <= checks
    report_checks = {c["name"] for c in nodes["weekly_report"]["assetChecksOrError"]["checks"]}
    assert "last_week_reported" in report_checks
    schedules = {s["name"]: s for s in graph["schedulesOrError"]["results"]}
    assert schedules["weekly_report_schedule"]["cronSchedule"] == "0 6 * * 1"
    assert schedules["weekly_report_schedule"]["scheduleState"]["status"] == "RUNNING"
    assert "report_freshness_schedule" in schedules
    assert graph["partitionSetsOrError"]["results"] == [{"name": "weekly_report_job_partition_set"}]

    added = dagster_dev.query(
        """mutation($s: RepositorySelector!) {
          addDynamicPartition(repositorySelector: $s, partitionsDefName: "repo",
                              partitionKey: "acme/rocket") { __typename } }""",
        s=LOCATION,
    )  # `repo add` made the partition already
    assert added["addDynamicPartition"]["__typename"] == "DuplicateDynamicPartitionError"
    # materialised as the UI's button does it: no run config, so the source is the repository's
    partition = {"repo": "acme/rocket", "week": "2026-07-20"}
    launched = dagster_dev.query(
        """mutation($p: ExecutionParams!) { launchPipelineExecution(executionParams: $p) {
             __typename ... on LaunchRunSuccess { run { runId } }
             ... on PythonError { message } } }""",
        p={
            "selector": {**LOCATION, "pipelineName": "weekly_report_job"},
            "executionMetadata": {
                "tags": [
                    {"key": "dagster/partition", "value": "acme/rocket|2026-07-20"},
                    *({"key": f"dagster/partition/{k}", "value": v} for k, v in partition.items()),
                ]
            },
        },
    )["launchPipelineExecution"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]

    deadline, status = time.monotonic() + 180, None
    while time.monotonic() < deadline:
        status = dagster_dev.query(
            "query($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }", id=run_id
        )["runOrError"]["status"]
        if status in ("SUCCESS", "FAILURE", "CANCELED"):
            break
        time.sleep(1)
    assert status == "SUCCESS"
    report = home / "reports" / "acme__rocket" / "2026-07-20.en.md"
    assert report.exists() and "acme/rocket" in report.read_text()

    # a backfill of three weeks from the UI is one run (single-run backfill policy), and reads
    # the repository's source too
    weeks = ["2026-06-29", "2026-07-06", "2026-07-13"]
    backfill = dagster_dev.query(
        """mutation($b: LaunchBackfillParams!) { launchPartitionBackfill(backfillParams: $b) {
             __typename ... on LaunchBackfillSuccess { backfillId }
             ... on PythonError { message } } }""",
        b={
            "assetSelection": [
                {"path": path.split("/")} for path, node in nodes.items() if node["isPartitioned"]
            ],
            "partitionNames": [f"acme/rocket|{week}" for week in weeks],
        },
    )["launchPartitionBackfill"]
    assert backfill["__typename"] == "LaunchBackfillSuccess", backfill
    progress_query = """query($id: String!) {
        partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } }
        runsOrError(filter: {tags: [{key: "dagster/backfill", value: $id}]}) {
          ... on Runs { results { status tags { key value } } } } }"""
    deadline, state = time.monotonic() + 240, "REQUESTED"
    while state == "REQUESTED" and time.monotonic() < deadline:
        time.sleep(2)
        progress = dagster_dev.query(progress_query, id=backfill["backfillId"])
        state = progress["partitionBackfillOrError"]["status"]
    runs = progress["runsOrError"]["results"]
    assert state == "COMPLETED_SUCCESS", (state, runs)
    assert [r["status"] for r in runs] == ["SUCCESS"]
    tags = {t["key"]: t["value"] for t in runs[0]["tags"]}
    assert tags["dagster/asset_partition_range_start"] == "acme/rocket|2026-06-29"
    assert tags["dagster/asset_partition_range_end"] == "acme/rocket|2026-07-13"
    for week in weeks:
        assert (home / "reports" / "acme__rocket" / f"{week}.zh.html").exists()
