"""The emulator's posting mutations and its lagging search index answer as GitHub's would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from github_fakes import REPO, FakeClock, make_pr
from graphql import parse, validate

from orchestration.delivery.github_post import DOCUMENTS
from orchestration.testing.github_emulator import Emulator
from orchestration.testing.github_emulator.mutations import build
from tests.unit.test_github_schema import github_schema

MONDAY = datetime(2026, 7, 20, tzinfo=UTC)
OWNER, NAME = REPO.split("/")
COUNT = """query($q: String!) { search(query: $q, type: ISSUE, first: 10) {
  issueCount nodes { ... on PullRequest { number } } } }"""


def ask(emu: Emulator, document: str, **variables) -> dict:
    answer = httpx.post(emu.url, json={"query": document, "variables": variables}, timeout=10)
    assert answer.status_code == 200
    return answer.json()


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_delivery_documents_are_valid_against_github_and_the_emulator(name):
    assert validate(github_schema(), parse(DOCUMENTS[name])) == []
    assert validate(build(), parse(DOCUMENTS[name])) == []


def test_a_discussion_an_issue_and_a_comment_are_created_and_kept():
    with Emulator([make_pr(7, MONDAY)]) as emu:
        found = ask(emu, DOCUMENTS["DiscussionCategories"], owner=OWNER, name=NAME)["data"]
        repo = found["repository"]
        category = next(
            c for c in repo["discussionCategories"]["nodes"] if c["name"] == "Announcements"
        )
        made = ask(
            emu,
            DOCUMENTS["CreateDiscussion"],
            input={"repositoryId": repo["id"], "categoryId": category["id"], "title": "W30",
                   "body": "# report"},
        )["data"]["createDiscussion"]["discussion"]  # fmt: skip
        assert made["url"] == f"https://github.com/{REPO}/discussions/8"  # after PR #7
        refused = ask(
            emu, DOCUMENTS["AddComment"], input={"subjectId": made["id"], "body": "corrected"}
        )  # GitHub's addComment is for issues and pull requests
        assert refused["errors"][0]["type"] == "NOT_FOUND" and not refused["data"]["addComment"]
        comment = ask(
            emu,
            DOCUMENTS["AddDiscussionComment"],
            input={"discussionId": made["id"], "body": "corrected"},
        )["data"]["addDiscussionComment"]["comment"]
        assert comment["id"] and comment["id"] != made["id"]

        emu.posts.labels[REPO] = ["weekly-report"]
        labelled = ask(emu, DOCUMENTS["IssueLabel"], owner=OWNER, name=NAME, label="Weekly-Report")
        label = labelled["data"]["repository"]["label"]
        issue = ask(
            emu,
            DOCUMENTS["CreateIssue"],
            input={"repositoryId": repo["id"], "title": "W30", "body": "# report",
                   "labelIds": [label["id"]]},
        )["data"]["createIssue"]["issue"]  # fmt: skip
        assert issue["url"] == f"https://github.com/{REPO}/issues/9"
        missing = ask(emu, DOCUMENTS["IssueLabel"], owner=OWNER, name=NAME, label="bug")
        assert missing["data"]["repository"]["label"] is None  # this repository's labels only

        assert [p.title for p in emu.posts.of_kind("Discussion", REPO)] == ["W30"]
        assert emu.posts.of_kind("Issue")[0].labels == ["weekly-report"]
        (kept,) = emu.posts.of_kind("DiscussionComment")
        assert (kept.subject_id, kept.body) == (made["id"], "corrected")
        thread = ask(emu, DOCUMENTS["Thread"], id=made["id"])["data"]["node"]
        assert thread == {
            "__typename": "Discussion",
            "comments": {"nodes": [{"id": comment["id"], "body": "corrected"}]},
        }
        latest = ask(emu, DOCUMENTS["DiscussionCategories"], owner=OWNER, name=NAME)["data"]
        assert latest["repository"]["discussions"]["nodes"] == [
            {"id": made["id"], "body": "# report"}
        ]


def test_posts_over_githubs_limits_are_refused_and_nothing_is_made():
    """GitHub refuses a body over 65,536 characters and a title over 256."""
    with Emulator([make_pr(7, MONDAY)]) as emu:
        repo = ask(emu, DOCUMENTS["DiscussionCategories"], owner=OWNER, name=NAME)["data"]
        repo = repo["repository"]
        category = repo["discussionCategories"]["nodes"][0]["id"]
        for title, body, said in [
            ("W23", "x" * 65_537, "Body is too long (maximum is 65536 characters)"),
            ("t" * 257, "ok", "Title is too long (maximum is 256 characters)"),
        ]:
            answer = ask(
                emu,
                DOCUMENTS["CreateDiscussion"],
                input={"repositoryId": repo["id"], "categoryId": category, "title": title,
                       "body": body},
            )  # fmt: skip
            assert answer["errors"][0] | {"path": None, "locations": None} == {
                "message": said, "type": "UNPROCESSABLE", "path": None, "locations": None
            }  # fmt: skip
        assert emu.posts.items == []
        made = ask(
            emu,
            DOCUMENTS["CreateDiscussion"],
            input={"repositoryId": repo["id"], "categoryId": category, "title": "t" * 256,
                   "body": "x" * 65_536},
        )["data"]["createDiscussion"]["discussion"]  # fmt: skip
        assert made["id"]  # exactly at the limits is fine


def test_an_id_that_names_nothing_is_not_found():
    with Emulator([make_pr(7, MONDAY)]) as emu:
        answer = ask(
            emu,
            DOCUMENTS["CreateDiscussion"],
            input={"repositoryId": "UmVwb3NpdG9yeTpuby9zdWNo", "categoryId": "x",
                   "title": "t", "body": "b"},
        )  # fmt: skip
        assert answer["errors"][0]["type"] == "NOT_FOUND"
        answer = ask(emu, DOCUMENTS["AddComment"], input={"subjectId": "nonsense", "body": "b"})
        assert answer["errors"][0]["type"] == "NOT_FOUND"
        assert emu.posts.items == []


def test_a_pr_hidden_from_search_is_neither_found_nor_counted_until_indexed():
    clock = FakeClock(MONDAY.timestamp() + 10 * 86400)
    prs = [make_pr(1, MONDAY + timedelta(hours=1)), make_pr(2, MONDAY + timedelta(hours=2))]
    query = f"repo:{REPO} is:pr is:merged merged:2026-07-20..2026-07-26"
    with Emulator(prs, clock=clock.time) as emu:
        emu.hide_from_search(REPO, 2, until=clock.now + 3600)
        early = ask(emu, COUNT, q=query)["data"]["search"]
        assert (early["issueCount"], [n["number"] for n in early["nodes"]]) == (1, [1])
        clock.now += 3600
        late = ask(emu, COUNT, q=query)["data"]["search"]
        assert (late["issueCount"], [n["number"] for n in late["nodes"]]) == (2, [2, 1])
