"""Each way GitHub fails has an asserted outcome: retried and complete, or one clear error.

Time is fake (the client's sleep advances the emulator's clock), so waits of an hour take
microseconds. A failed extraction never leaves a partition behind.
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from github_fakes import REPO, TOKEN, FakeClock, extract, source_for, week_of_prs

from orchestration.config import UsageError, load_settings
from orchestration.extract.sources import open_source
from orchestration.extract.sources.github import GitHubSource
from orchestration.extract.sources.github_errors import (
    GitHubAuthError,
    GitHubError,
    GitHubNotFoundError,
    GitHubUnavailableError,
    GitHubWaitCeilingError,
)
from orchestration.testing.github_emulator import Emulator, Fault

MONDAY = datetime(2026, 7, 20, tzinfo=UTC)
END = MONDAY + timedelta(weeks=2)
NODES = week_of_prs(MONDAY, 150) + week_of_prs(MONDAY + timedelta(weeks=1), 40, first_number=500)


class Run:
    """An emulator, a source on fake time, a log and a lake, for one scenario."""

    def __init__(self, tmp_path: Path, **options) -> None:
        self.clock = FakeClock()
        self.logs: list[str] = []
        self.lake = tmp_path / "lake"
        self.emulator = Emulator(
            NODES, clock=self.clock.time, token=options.pop("server_token", None)
        )
        self.emulator.start()
        options.setdefault("log", self.logs.append)
        self.source = source_for(self.emulator, self.clock, **options)

    def extract(self) -> list[Path]:
        return extract(self.source, self.lake, REPO, MONDAY, END)

    def partitions(self) -> list[Path]:
        return sorted(self.lake.rglob("*.parquet"))

    def bodies(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.emulator.requests]


@pytest.fixture
def run(tmp_path):
    runs: list[Run] = []

    def make(**options) -> Run:
        runs.append(Run(tmp_path, **options))
        return runs[-1]

    yield make
    for each in runs:
        each.emulator.stop()
        assert all(TOKEN not in line for line in each.logs)
        assert TOKEN not in str(each.source.stats())


def assert_complete(run: Run) -> None:
    assert sum(pq.read_table(p).num_rows for p in run.partitions()) == len(NODES)
    assert len(run.partitions()) == 2


@pytest.mark.parametrize(
    "fault", [Fault.BAD_GATEWAY_JSON, Fault.BAD_GATEWAY_HTML, Fault.GATEWAY_TIMEOUT, Fault.RESET]
)
def test_server_errors_and_resets_are_retried_with_growing_backoff(run, fault):
    scenario = run()
    scenario.emulator.faults.fail_next(fault, times=3)
    scenario.extract()
    assert_complete(scenario)
    assert scenario.source.stats()["retries"] == 3
    first, second, third = scenario.clock.sleeps
    assert 0.5 <= first <= 1 and 1 <= second <= 2 and 2 <= third <= 4
    assert any("retrying" in line for line in scenario.logs)


def test_a_timeout_is_retried_with_a_smaller_page(run):
    scenario = run(timeout=1.0)  # a page served under load must still fit in it
    scenario.emulator.faults.delay_seconds = 2.0
    scenario.emulator.faults.fail_next(Fault.TIMEOUT)
    scenario.extract()
    assert_complete(scenario)
    sizes = [b["variables"]["first"] for b in scenario.bodies() if "first" in b["variables"]]
    assert sizes[0] == 100 and set(sizes[1:]) == {50}
    assert any("50 per page" in line for line in scenario.logs)


def test_endless_server_errors_fail_clearly_without_a_partition(run):
    scenario = run()
    scenario.emulator.faults.fail_randomly(Fault.BAD_GATEWAY_HTML, 1.0)
    with pytest.raises(GitHubUnavailableError, match="kept failing: 8 attempts"):
        scenario.extract()
    assert scenario.partitions() == []


@pytest.mark.parametrize("fault", [Fault.RATE_LIMITED, Fault.RATE_LIMIT])
def test_primary_rate_limit_waits_until_the_reset(run, fault):
    scenario = run(max_wait_seconds=4000, week_deadline=8000)
    scenario.emulator.faults.fail_next(fault)
    scenario.extract()
    assert_complete(scenario)
    (waited,) = scenario.clock.sleeps
    assert 3590 <= waited <= 3602  # the hour's window opened with this first request
    assert any("rate limit" in line and "until" in line for line in scenario.logs)


def test_a_spent_budget_is_waited_out_before_the_next_request(run):
    scenario = run(max_wait_seconds=4000, week_deadline=8000)
    scenario.emulator.faults.fail_next(Fault.REMAINING_ZERO)
    scenario.extract()
    assert_complete(scenario)
    assert len(scenario.clock.sleeps) == 1 and scenario.clock.sleeps[0] > 3500
    assert all(r["status"] == 200 for r in scenario.emulator.requests)
    assert scenario.source.stats()["retries"] == 0  # waited ahead, never refused


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault.SECONDARY_403_RETRY_AFTER, 7),
        (Fault.SECONDARY_429, 7),
    ],
)
def test_secondary_limit_honours_retry_after(run, fault, expected):
    scenario = run()
    scenario.emulator.faults.retry_after_seconds = 7
    scenario.emulator.faults.fail_next(fault)
    scenario.extract()
    assert_complete(scenario)
    assert scenario.clock.sleeps == [expected]


@pytest.mark.parametrize("fault", [Fault.SECONDARY_403, Fault.SECONDARY_MESSAGE])
def test_secondary_limit_without_retry_after_waits_a_minute_then_backs_off(run, fault):
    scenario = run()
    scenario.emulator.faults.fail_next(fault, times=2)
    scenario.extract()
    assert_complete(scenario)
    first, second = scenario.clock.sleeps
    assert 60 <= first <= 75 and 120 <= second <= 150


def test_bad_credentials_fail_at_once_naming_the_variable(run):
    scenario = run(server_token="the-right-one")
    with pytest.raises(GitHubAuthError, match="GITHUB_TOKEN") as error:
        scenario.extract()
    assert TOKEN not in str(error.value) and error.value.__cause__ is None
    assert scenario.emulator.requests_served == 1 and scenario.clock.sleeps == []
    assert scenario.partitions() == []


def test_injected_401_is_not_retried(run):
    scenario = run()
    scenario.emulator.faults.fail_next(Fault.UNAUTHORIZED)
    with pytest.raises(GitHubAuthError, match="GITHUB_TOKEN"):
        scenario.extract()
    assert scenario.emulator.requests_served == 1


def test_missing_token_for_the_public_api_fails_before_any_request():
    with pytest.raises(GitHubAuthError, match="GITHUB_TOKEN is not set"):
        GitHubSource("https://api.github.com/graphql", None)
    with pytest.raises(GitHubAuthError, match="plain http"):
        GitHubSource("http://ghe.example.com/api/graphql", TOKEN)


def test_the_emulator_on_loopback_needs_no_token(run):
    scenario = run(token=None)
    scenario.extract()
    assert_complete(scenario)


def test_unknown_repository_names_the_repository(run):
    scenario = run()
    with pytest.raises(GitHubNotFoundError, match="repository nobody/nothing was not found"):
        list(scenario.source.fetch("nobody/nothing", MONDAY, END))
    assert scenario.emulator.requests_served == 2  # the search, and what it is called now


def test_injected_not_found_fails_without_retry(run):
    scenario = run()
    scenario.emulator.faults.fail_next(Fault.NOT_FOUND)
    with pytest.raises(GitHubNotFoundError, match=REPO):
        scenario.extract()
    # the search, then one question (not a retry): is it a repository renamed or moved?
    assert scenario.emulator.requests_served == 2 and scenario.partitions() == []


@pytest.mark.parametrize("fault", [Fault.WENT_WRONG, Fault.WENT_WRONG_502, Fault.PARTIAL])
def test_something_went_wrong_is_retried_with_backoff(run, fault):
    scenario = run()
    scenario.emulator.faults.fail_next(fault, times=2)
    scenario.extract()
    assert_complete(scenario)
    first, second = scenario.clock.sleeps
    assert 0.5 <= first <= 1 and 1 <= second <= 2
    assert any("Something went wrong" in line and "retrying" in line for line in scenario.logs)


def test_partial_data_that_keeps_coming_fails_and_keeps_the_previous_partition(run):
    scenario = run()
    scenario.extract()
    before = {p: p.read_bytes() for p in scenario.partitions()}
    scenario.emulator.faults.fail_randomly(Fault.PARTIAL, 1.0)
    with pytest.raises(GitHubUnavailableError, match="Something went wrong"):
        scenario.extract()
    assert {p: p.read_bytes() for p in scenario.partitions()} == before


def test_partial_data_on_a_later_page_yields_nothing(run):
    scenario = run()
    scenario.emulator.faults.fail_next(Fault.PARTIAL, times=8, after=1)  # page 1 is fine
    got: list[dict] = []
    with pytest.raises(GitHubUnavailableError, match="8 attempts"):
        got.extend(scenario.source.fetch(REPO, MONDAY, END))
    assert got == [] and scenario.emulator.requests_served == 9
    assert scenario.partitions() == []


@pytest.mark.parametrize(
    ("fault", "advice"),
    [
        (Fault.FORBIDDEN_403, "fine-grained token.*Pull requests"),
        (Fault.SAML_403, r"single sign-on.*https://github.com/orgs/octo-org/sso\?"),
        (Fault.FORBIDDEN, "GitHub App.*Pull requests"),
    ],
)
def test_a_token_without_access_fails_at_once_saying_what_to_fix(run, fault, advice):
    scenario = run()
    scenario.emulator.faults.fail_randomly(fault, 1.0)  # a refusal lasts: waiting cannot help
    with pytest.raises(GitHubAuthError, match=advice) as error:
        scenario.extract()
    assert "GITHUB_TOKEN" in str(error.value) and REPO in str(error.value)
    assert scenario.clock.sleeps == [] and scenario.emulator.requests_served == 1
    assert scenario.partitions() == []


def test_a_403_for_a_spent_budget_still_waits_for_the_reset(run):
    scenario = run(max_wait_seconds=4000, week_deadline=8000)
    scenario.emulator.faults.fail_next(Fault.RATE_LIMIT_403)
    scenario.extract()
    assert_complete(scenario)
    (waited,) = scenario.clock.sleeps
    assert 3590 <= waited <= 3602


@pytest.mark.parametrize("chunk", [512, 16])  # the body slowly; the status line and headers too
def test_a_trickling_answer_is_abandoned_at_the_request_deadline(home, monkeypatch, chunk):
    # a chunk every 0.05 s, the deadline 0.6 s: a read waits 0.05 s, so httpx's own read timeout
    # (also 0.6 s) fires only if a loaded machine stalls the emulator for over half a second
    monkeypatch.setenv("PRWEEKLY_REQUEST_DEADLINE_SECONDS", "0.6")
    logs: list[str] = []
    with Emulator(week_of_prs(MONDAY, 20)) as emulator:
        emulator.faults.trickle_bytes, emulator.faults.trickle_seconds = chunk, 0.05  # 27 kB
        emulator.faults.fail_next(Fault.TRICKLE)
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        source = open_source("github", load_settings(), log=logs.append)
        began = time.monotonic()
        got = list(source.fetch(REPO, MONDAY, MONDAY + timedelta(weeks=1)))
        took = time.monotonic() - began
    assert len(got) == 20
    assert took < 2.8, took  # 0.6 s, a backoff of at most 1 s, a good answer; not 5 s or more
    assert any("0.6 s deadline" in line and "retrying" in line for line in logs), logs


def test_a_github_that_keeps_trickling_stops_at_the_weeks_deadline(home, monkeypatch):
    monkeypatch.setenv("PRWEEKLY_REQUEST_DEADLINE_SECONDS", "0.3")
    monkeypatch.setenv("PRWEEKLY_WEEK_DEADLINE_SECONDS", "0.75")  # two weeks: 1.5 s
    with Emulator(week_of_prs(MONDAY, 20)) as emulator:
        emulator.faults.trickle_bytes, emulator.faults.trickle_seconds = 512, 0.1  # 5 s each
        emulator.faults.fail_randomly(Fault.TRICKLE, 1.0)
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", emulator.url)
        source = open_source("github", load_settings(), log=lambda _line: None)
        began = time.monotonic()
        with pytest.raises(GitHubError) as error:
            list(source.fetch(REPO, MONDAY, MONDAY + timedelta(weeks=2)))
        took = time.monotonic() - began
    assert took < 2.5, took  # before: the first answer, complete after 5 s, was kept
    message = str(error.value)
    assert f"{REPO} weeks 2026-W30..2026-W31" in message, message
    assert "0.75 s per week (PRWEEKLY_WEEK_DEADLINE_SECONDS)" in message
    # the last request is allowed 0.3 s, or what is left of the 1.5 s when that is less
    assert re.search(r"within its 0\.[0-3]\d* s deadline", message), message
    assert "nothing was written" in message


def test_a_deadline_passed_during_a_failing_request_still_names_that_request(home) -> None:
    """On a loaded machine a week's deadline can pass while a request is still failing: the
    error must still say what that request did, not only that no time was left."""
    from orchestration.extract.sources.github_http import GraphQLClient
    from orchestration.extract.sources.github_queries import COUNT_QUERY

    readings = iter(0.3 * i for i in range(100))  # every reading of the timer is 0.3 s later
    search = f"repo:{REPO} is:pr is:merged"
    with Emulator(week_of_prs(MONDAY, 20)) as emulator:
        emulator.faults.trickle_bytes, emulator.faults.trickle_seconds = 16, 0.1
        emulator.faults.fail_randomly(Fault.TRICKLE, 1.0)
        client = GraphQLClient(
            emulator.url, None, sleep=lambda _s: None, clock=time.time,
            request_deadline=0.3, week_deadline=0.5, timer=lambda: next(readings),
        )  # fmt: skip
        with pytest.raises(GitHubError) as error:
            client.query(COUNT_QUERY, {"owner": "octo-org", "name": "demo", "query": search})
        client.close()
    assert "no time was left" in str(error.value)
    assert "0.2 s deadline" in str(error.value), error.value


@pytest.mark.parametrize("value", ["0", "-5", "soon"])
def test_a_deadline_that_is_not_a_positive_number_is_refused(home, monkeypatch, value):
    monkeypatch.setenv("PRWEEKLY_WEEK_DEADLINE_SECONDS", value)
    with pytest.raises(UsageError, match="PRWEEKLY_WEEK_DEADLINE_SECONDS"):
        load_settings()


def test_waiting_past_the_ceiling_fails_at_once(run):
    scenario = run(max_wait_seconds=600)
    scenario.emulator.faults.fail_next(Fault.RATE_LIMITED)
    with pytest.raises(GitHubWaitCeilingError, match="PRWEEKLY_MAX_WAIT_SECONDS") as error:
        scenario.extract()
    assert "600 s" in str(error.value)
    assert scenario.clock.sleeps == [] and scenario.partitions() == []


def test_the_ceiling_counts_every_wait_of_the_partitions(run):
    scenario = run(max_wait_seconds=150)  # per week: this scenario fetches two weeks
    scenario.emulator.faults.fail_next(Fault.SECONDARY_403, times=4)
    with pytest.raises(GitHubWaitCeilingError):
        scenario.extract()
    assert 150 < sum(scenario.clock.sleeps) <= 2 * 150


def test_chaos_still_gives_the_clean_answer(run):
    clean = run()
    expected = [n["number"] for n in clean.source.fetch(REPO, MONDAY, END)]
    noisy = run(page_size=20)
    noisy.emulator.faults.seed(42)
    noisy.emulator.faults.fail_randomly(Fault.BAD_GATEWAY_JSON, 0.1)
    noisy.emulator.faults.fail_randomly(Fault.SECONDARY_403_RETRY_AFTER, 0.05)
    assert [n["number"] for n in noisy.source.fetch(REPO, MONDAY, END)] == expected
    assert noisy.source.stats()["retries"] >= 1


def test_a_server_echoing_the_token_cannot_leak_it():
    def echo(request: httpx.Request) -> httpx.Response:
        leaked = request.headers["authorization"]
        return httpx.Response(200, json={"errors": [{"message": f"bad header {leaked}"}]})

    logs: list[str] = []
    source = GitHubSource(
        "https://api.github.com/graphql",
        TOKEN,
        transport=httpx.MockTransport(echo),
        log=logs.append,
    )
    with pytest.raises(GitHubError) as error:
        list(source.fetch(REPO, MONDAY, END))
    assert TOKEN not in str(error.value) and "***" in str(error.value)
    assert error.value.__cause__ is None
    assert TOKEN not in repr(source.stats()) + "".join(logs)


def test_user_agent_names_prweekly():
    seen: list[httpx.Request] = []

    def capture(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200,
            json={
                "data": {
                    "rateLimit": {"cost": 1, "remaining": 4999, "resetAt": "2026-07-20T01:00:00Z"},
                    "repository": {"id": "R"},
                    "search": {"issueCount": 0, "pageInfo": {"hasNextPage": False}, "nodes": []},
                }
            },
        )

    source = GitHubSource(
        "https://ghe.example.com/api/graphql", TOKEN, transport=httpx.MockTransport(capture)
    )
    assert list(source.fetch(REPO, MONDAY, END)) == []
    assert seen[0].headers["user-agent"].startswith("prweekly")
    assert str(seen[0].url) == "https://ghe.example.com/api/graphql"
    assert source.stats()["rate_limit_remaining"] == 4999
