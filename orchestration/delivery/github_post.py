"""GitHub: the report's Markdown posted in the repository, as a discussion or a labelled issue.

A week's first edition opens a discussion (`createDiscussion`) or an issue (`createIssue`);
a corrected edition is added to that thread as a comment (`addComment`), so the thread holds
the week's history. The token is `GITHUB_TOKEN`, the endpoint `GITHUB_GRAPHQL_URL`.
The report links its chart beside it; on GitHub that link points at the site (`site_url`),
or, without a site, the chart is left out rather than shown broken.
"""

from __future__ import annotations

import re

import httpx

from orchestration.config import Settings
from orchestration.delivery.edition import Edition
from orchestration.delivery.targets import GitHubTarget, MissingSecret
from orchestration.delivery.transport import DeliveryError, http

CATEGORIES = """
query DiscussionCategories($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    id
    discussionCategories(first: 100) { nodes { id name slug } }
  }
}
"""
LABEL = """
query IssueLabel($owner: String!, $name: String!, $label: String!) {
  repository(owner: $owner, name: $name) {
    id
    label(name: $label) { id }
  }
}
"""
CREATE_DISCUSSION = """
mutation CreateDiscussion($input: CreateDiscussionInput!) {
  createDiscussion(input: $input) { discussion { id url } }
}
"""
CREATE_ISSUE = """
mutation CreateIssue($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id url } }
}
"""
ADD_COMMENT = """
mutation AddComment($input: AddCommentInput!) {
  addComment(input: $input) { commentEdge { node { id url } } }
}
"""
DOCUMENTS = {
    "DiscussionCategories": CATEGORIES,
    "IssueLabel": LABEL,
    "CreateDiscussion": CREATE_DISCUSSION,
    "CreateIssue": CREATE_ISSUE,
    "AddComment": ADD_COMMENT,
}


class _Client:
    def __init__(self, settings: Settings) -> None:
        if not settings.github_token:
            raise MissingSecret("GITHUB_TOKEN is not set (the github target posts with it)")
        self.url = settings.graphql_url
        self.headers = {"authorization": f"bearer {settings.github_token}"}

    def ask(self, document: str, variables: dict) -> dict:
        try:
            answer = http().post(
                self.url, json={"query": document, "variables": variables}, headers=self.headers
            )
        except httpx.HTTPError as exc:
            raise DeliveryError(f"github: could not reach GitHub ({type(exc).__name__})") from None
        if answer.status_code != 200:
            raise DeliveryError(f"github: HTTP {answer.status_code}: {answer.text[:200]}")
        body = answer.json()
        if body.get("errors"):
            messages = "; ".join(str(e.get("message")) for e in body["errors"])
            raise DeliveryError(f"github: {messages[:300]}")
        return body["data"]


def _repository(client: _Client, repo: str, document: str, **more) -> dict:
    owner, name = repo.split("/", 1)
    found = client.ask(document, {"owner": owner, "name": name, **more})["repository"]
    if found is None:
        raise DeliveryError(f"github: repository {repo} not found")
    return found


# an image whose target has no scheme: a file beside the report (its chart)
_RELATIVE_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^():\s]+)\)")


def github_markdown(markdown: str, link: str) -> str:
    """The report's Markdown as GitHub shows it, given the week's page `link`: a relative
    image link made absolute when that page is on a site, else its paragraph left out."""
    if link.startswith(("https://", "http://")):
        base = link.rsplit("/", 1)[0]
        return _RELATIVE_IMAGE.sub(lambda m: f"![{m[1]}]({base}/{m[2]})", markdown)
    return re.sub(r"\n\n" + _RELATIVE_IMAGE.pattern + r"(?=\n)", "", markdown)


def send(
    settings: Settings,
    target: GitHubTarget,
    edition: Edition,
    thread_id: str | None,
    correction: bool,
) -> tuple[str, str]:
    """Post the edition; returns (the new node's id, the thread's id)."""
    client = _Client(settings)
    body = github_markdown(edition.markdown, edition.link)
    if thread_id:  # a later edition of a week already posted: a comment in its thread
        heading = "更正版" if edition.language == "zh" else "Corrected edition"
        data = client.ask(
            ADD_COMMENT, {"input": {"subjectId": thread_id, "body": f"## {heading}\n\n{body}"}}
        )
        edge = (data.get("addComment") or {}).get("commentEdge") or {}
        return (edge.get("node") or {}).get("id") or "", thread_id
    if target.discussion_category:
        found = _repository(client, edition.repo, CATEGORIES)
        wanted = target.discussion_category.lower()
        category = next(
            (
                c
                for c in found["discussionCategories"]["nodes"]
                if wanted in (c["name"].lower(), c["slug"].lower())
            ),
            None,
        )
        if category is None:
            names = ", ".join(c["name"] for c in found["discussionCategories"]["nodes"])
            raise DeliveryError(
                f"github: {edition.repo} has no discussion category "
                f"{target.discussion_category!r} (it has: {names or 'none'})"
            )
        data = client.ask(
            CREATE_DISCUSSION,
            {"input": {"repositoryId": found["id"], "categoryId": category["id"],
                       "title": edition.title, "body": body}},
        )  # fmt: skip
        node = (data.get("createDiscussion") or {}).get("discussion") or {}
    else:
        found = _repository(client, edition.repo, LABEL, label=target.issue_label)
        if found.get("label") is None:
            raise DeliveryError(f"github: {edition.repo} has no label {target.issue_label!r}")
        data = client.ask(
            CREATE_ISSUE,
            {"input": {"repositoryId": found["id"], "title": edition.title, "body": body,
                       "labelIds": [found["label"]["id"]]}},
        )  # fmt: skip
        node = (data.get("createIssue") or {}).get("issue") or {}
    if not node.get("id"):
        raise DeliveryError("github: the mutation answered without the new node's id")
    return node["id"], node["id"]
