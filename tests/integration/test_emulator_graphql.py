"""The emulator answers like GitHub: schema validation, limits, cursors, search cap, rate limit."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from github_fakes import REPO, FakeClock, make_pr, week_of_prs

from orchestration.testing.github_emulator import Emulator, main
from orchestration.testing.github_emulator.faults import Fault, Faults, parse_fault_spec

MONDAY = datetime(2026, 7, 20, tzinfo=UTC)
SEARCH = f"repo:{REPO} is:pr is:merged merged:2026-07-20T00:00:00Z..2026-07-26T23:59:59Z"
PAGE = """query($q: String!, $first: Int, $after: String) {
  rateLimit { cost remaining resetAt used limit }
  search(query: $q, type: ISSUE, first: $first, after: $after) {
    issueCount pageInfo { hasNextPage endCursor }
    nodes { ... on PullRequest { number mergedAt } }
  }
}"""


@pytest.fixture(scope="module")
def emulator():
    nodes = [*week_of_prs(MONDAY, 1200), make_pr(5000, MONDAY + timedelta(days=8))]
    with Emulator(nodes) as emu:
        yield emu


def post(emu, query: str, path: str = "/graphql", **variables) -> httpx.Response:
    url = emu.url.replace("/graphql", path)
    return httpx.post(url, json={"query": query, "variables": variables}, timeout=10)


def test_misspelt_field_is_rejected_like_github(emulator):
    body = post(
        emulator, '{ search(query: "repo:octo-org/demo", type: ISSUE, first: 1) { isueCount } }'
    ).json()
    assert "data" not in body
    assert "isueCount" in body["errors"][0]["message"]


def test_wrong_argument_and_enum_are_rejected(emulator):
    bad_arg = post(emulator, '{ search(q: "x", type: ISSUE, first: 1) { issueCount } }').json()
    bad_enum = post(emulator, '{ search(query: "x", type: PULL, first: 1) { issueCount } }').json()
    assert bad_arg["errors"] and bad_enum["errors"]


def test_first_over_100_is_rejected(emulator):
    body = post(emulator, PAGE, q=SEARCH, first=101).json()
    assert body["errors"][0]["type"] == "EXCESSIVE_PAGINATION"
    assert "101" in body["errors"][0]["message"]


def test_nested_first_over_100_and_missing_first_are_rejected(emulator):
    nested = """query($q: String!) { search(query: $q, type: ISSUE, first: 10) {
      nodes { ... on PullRequest { files(first: 250) { nodes { path } } } } } }"""
    missing = """query($q: String!) { search(query: $q, type: ISSUE, first: 10) {
      nodes { ... on PullRequest { files { nodes { path } } } } } }"""
    assert post(emulator, nested, q=SEARCH).json()["errors"][0]["type"] == "EXCESSIVE_PAGINATION"
    assert (
        post(emulator, missing, q=SEARCH).json()["errors"][0]["type"]
        == "MISSING_PAGINATION_BOUNDARIES"
    )


def test_node_limit_is_enforced(emulator):
    heavy = """query($q: String!) { search(query: $q, type: ISSUE, first: 100) {
      nodes { ... on PullRequest { reviewThreads(first: 100) {
        nodes { comments(first: 100) { nodes { body } } } } } } } }"""
    assert post(emulator, heavy, q=SEARCH).json()["errors"][0]["type"] == "MAX_NODE_LIMIT_EXCEEDED"


def test_search_pages_stop_at_1000_but_issue_count_is_exact(emulator):
    seen, after = [], None
    while True:
        body = post(emulator, PAGE, q=SEARCH, first=100, after=after).json()
        search = body["data"]["search"]
        assert search["issueCount"] == 1200
        seen += [n["number"] for n in search["nodes"]]
        if not search["pageInfo"]["hasNextPage"]:
            break
        after = search["pageInfo"]["endCursor"]
    assert len(seen) == 1000 == len(set(seen))


def test_cursors_are_opaque_and_bad_ones_fail(emulator):
    body = post(emulator, PAGE, q=SEARCH, first=5).json()
    cursor = body["data"]["search"]["pageInfo"]["endCursor"]
    assert not cursor.isdigit() and base64.b64decode(cursor)
    bad = post(emulator, PAGE, q=SEARCH, first=5, after="not-a-cursor").json()
    assert bad["errors"]


def test_merged_range_is_inclusive_and_exact(emulator):
    body = post(emulator, PAGE, q=SEARCH, first=1).json()
    assert body["data"]["search"]["issueCount"] == 1200  # the PR merged on day 8 is outside


def test_rate_limit_matches_headers_and_costs_like_github(emulator):
    response = post(emulator, PAGE, q=SEARCH, first=100)
    rate = response.json()["data"]["rateLimit"]
    assert rate["cost"] == 1  # one connection fetched once: 1/100 rounds up to the minimum
    assert response.headers["x-ratelimit-remaining"] == str(rate["remaining"])
    assert response.headers["x-ratelimit-used"] == str(rate["used"])
    assert response.headers["x-ratelimit-limit"] == "5000"
    reset = datetime.fromtimestamp(int(response.headers["x-ratelimit-reset"]), UTC)
    assert reset.strftime("%Y-%m-%dT%H:%M:%SZ") == rate["resetAt"]
    nested = """query($q: String!) { rateLimit { cost } search(query: $q, type: ISSUE, first: 100) {
      nodes { ... on PullRequest { files(first: 100) { nodes { path } }
        reviewThreads(first: 20) { nodes { comments(first: 1) { nodes { body } } } } } } } }"""
    assert (
        post(emulator, nested, q=SEARCH).json()["data"]["rateLimit"]["cost"] == 22
    )  # (1 + 100 + 100 + 2000) / 100


def test_budget_runs_out_and_resets_on_the_injected_clock():
    clock = FakeClock()
    with Emulator([make_pr(1, MONDAY)], clock=clock.time, rate_limit=2) as emu:
        answers = [post(emu, PAGE, q=SEARCH, first=1).json() for _ in range(3)]
        assert answers[1]["data"]["rateLimit"]["remaining"] == 0
        assert answers[2]["errors"][0]["type"] == "RATE_LIMITED"
        clock.sleep(3601)
        assert post(emu, PAGE, q=SEARCH, first=1).json()["data"]["rateLimit"]["remaining"] == 1


def test_missing_dataset_fields_are_answered_as_the_schema_requires():
    node = make_pr(7, MONDAY + timedelta(hours=5))
    for absent in ("createdAt", "mergedBy", "labels", "reviews", "reviewThreads", "comments"):
        del node[absent]
    query = """{ repository(owner: "octo-org", name: "demo") { pullRequest(number: 7) {
      createdAt mergedAt mergedBy { login } labels(first: 5) { nodes { name } }
      reviews(first: 5) { nodes { state } } comments { totalCount }
      reviewThreads(first: 5) { totalCount nodes { path } } } } }"""
    with Emulator([node]) as emu:
        pull = post(emu, query, path="/api/graphql").json()["data"]["repository"]["pullRequest"]
    assert pull["createdAt"] == pull["mergedAt"]
    assert pull["mergedBy"] is None and pull["labels"] is None and pull["reviews"] is None
    assert pull["comments"] == {"totalCount": 0}
    assert pull["reviewThreads"] == {"totalCount": 0, "nodes": []}


def test_unknown_repository_is_not_found(emulator):
    body = post(emulator, '{ repository(owner: "nobody", name: "nothing") { id } }').json()
    assert body["data"]["repository"] is None
    assert body["errors"][0]["type"] == "NOT_FOUND"
    assert "nobody/nothing" in body["errors"][0]["message"]


def test_unsupported_search_terms_are_refused_not_ignored(emulator):
    body = post(emulator, PAGE, q=SEARCH + " label:bug", first=1).json()
    assert "label:bug" in body["errors"][0]["message"]


def test_several_repositories_are_served_by_url():
    nodes = [make_pr(1, MONDAY), make_pr(1, MONDAY, repo="other/repo")]
    with Emulator(nodes) as emu:
        assert sorted(p.name_with_owner for p in emu.dataset.repos.values()) == [
            "octo-org/demo",
            "other/repo",
        ]


def test_random_faults_are_seeded_and_queued_faults_come_first():
    first, second = Faults(seed=3), Faults(seed=3)
    for faults in (first, second):
        faults.fail_randomly(Fault.BAD_GATEWAY_JSON, 0.1)
    assert [first.next_fault() for _ in range(200)] == [second.next_fault() for _ in range(200)]
    assert 5 < first.injected[Fault.BAD_GATEWAY_JSON] < 40
    first.fail_next("401")
    assert first.next_fault() is Fault.UNAUTHORIZED
    assert parse_fault_spec("504=0.25") == (Fault.GATEWAY_TIMEOUT, 0.25)
    with pytest.raises(ValueError, match="bad fault"):
        parse_fault_spec("boom=1")


def test_command_line_refuses_a_missing_dataset(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--dataset", str(tmp_path / "absent.jsonl")])
    assert exit_info.value.code == 2
    assert "does not exist" in capsys.readouterr().err
