"""GitHub: the report's Markdown posted in the repository, as a discussion or a labelled issue.

A week's first edition opens a discussion (`createDiscussion`) or an issue (`createIssue`);
a corrected edition is added to that thread as a comment (`addDiscussionComment`, or
`addComment` on an issue), so the thread holds the week's history. The token is
`GITHUB_TOKEN`, the endpoint `GITHUB_GRAPHQL_URL`. The report links its chart beside it; on
GitHub that link points at the site (`site_url`), or, without a site, the chart is left out
rather than shown broken.

Each post ends with a hidden line naming its edition (`<!-- prweekly edition <sha256> -->`),
and before posting, the latest posts of the category, label or thread are read: an edition
already there (a 502 after GitHub created it, a process killed before the ledger was written)
is taken as sent instead of being posted twice. A body over GitHub's 65,536 characters goes
out shortened to whole sections, with a link to the full report (`limits.py`).
"""

from __future__ import annotations

import re

import httpx

from orchestration.config import Settings
from orchestration.delivery.edition import Edition
from orchestration.delivery.limits import (
    GITHUB_BODY_CHARS,
    GITHUB_TITLE_CHARS,
    fit_markdown,
    shortened_note,
)
from orchestration.delivery.transport import DeliveryError, http
from orchestration.escaping import md_code
from orchestration.repositories.targets import GitHubTarget, MissingSecret

RECENT = 20  # posts looked through for an edition already there
CATEGORIES = f"""
query DiscussionCategories($owner: String!, $name: String!) {{
  repository(owner: $owner, name: $name) {{
    id
    discussionCategories(first: 100) {{ nodes {{ id name slug }} }}
    discussions(first: {RECENT}, orderBy: {{field: CREATED_AT, direction: DESC}}) {{
      nodes {{ id body }}
    }}
  }}
}}
"""
LABEL = f"""
query IssueLabel($owner: String!, $name: String!, $label: String!) {{
  repository(owner: $owner, name: $name) {{
    id
    label(name: $label) {{ id }}
    issues(first: {RECENT}, labels: [$label], orderBy: {{field: CREATED_AT, direction: DESC}}) {{
      nodes {{ id body }}
    }}
  }}
}}
"""
THREAD = f"""
query Thread($id: ID!) {{
  node(id: $id) {{
    __typename
    ... on Discussion {{ comments(last: {RECENT}) {{ nodes {{ id body }} }} }}
    ... on Issue {{ comments(last: {RECENT}) {{ nodes {{ id body }} }} }}
  }}
}}
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
ADD_DISCUSSION_COMMENT = """
mutation AddDiscussionComment($input: AddDiscussionCommentInput!) {
  addDiscussionComment(input: $input) { comment { id url } }
}
"""
DOCUMENTS = {
    "DiscussionCategories": CATEGORIES,
    "IssueLabel": LABEL,
    "Thread": THREAD,
    "CreateDiscussion": CREATE_DISCUSSION,
    "CreateIssue": CREATE_ISSUE,
    "AddComment": ADD_COMMENT,
    "AddDiscussionComment": ADD_DISCUSSION_COMMENT,
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


def marker(edition: Edition) -> str:
    """The hidden line that names the edition a post carries (GitHub shows no HTML comment)."""
    return f"<!-- prweekly edition {edition.id} -->"


def post_body(edition: Edition, correction: bool) -> str:
    """What is posted: the report (shortened to GitHub's limit if need be), then its marker."""
    body = github_markdown(edition.markdown, edition.link)
    if correction:
        heading = "更正版" if edition.language == "zh" else "Corrected edition"
        body = f"## {heading}\n\n{body}"
    end = f"\n\n{marker(edition)}\n"
    note = shortened_note(edition.language, "github", _where(edition))
    fitted, _shortened = fit_markdown(body.rstrip("\n"), GITHUB_BODY_CHARS - len(end), note)
    return fitted.rstrip("\n") + end


def _where(edition: Edition) -> str:
    """The full report's address as a GitHub reader can follow it, or its file's name."""
    if edition.link.startswith(("https://", "http://")):
        return f"<{edition.link}>"
    name = "/".join(edition.link.replace("\\", "/").rsplit("/", 2)[-2:])
    return md_code(name) + (" in prweekly's reports" if edition.language == "en" else "")


def _already(nodes: list[dict], edition: Edition) -> str | None:
    """The id of the post among `nodes` that carries this edition, if any."""
    sign = marker(edition)
    return next((n["id"] for n in nodes or [] if n and sign in (n.get("body") or "")), None)


def send(
    settings: Settings,
    target: GitHubTarget,
    edition: Edition,
    thread_id: str | None,
    correction: bool,
) -> tuple[str, str]:
    """Post the edition, unless it is there already; returns (its node's id, the thread's)."""
    client = _Client(settings)
    body = post_body(edition, correction)
    if thread_id:  # a later edition of a week already posted: a comment in its thread
        thread = client.ask(THREAD, {"id": thread_id}).get("node")
        if thread is None:
            raise DeliveryError(f"github: the week's thread {thread_id} is gone")
        if found := _already((thread.get("comments") or {}).get("nodes"), edition):
            return found, thread_id
        if thread["__typename"] == "Discussion":
            data = client.ask(
                ADD_DISCUSSION_COMMENT, {"input": {"discussionId": thread_id, "body": body}}
            )
            node = (data.get("addDiscussionComment") or {}).get("comment") or {}
        else:
            data = client.ask(ADD_COMMENT, {"input": {"subjectId": thread_id, "body": body}})
            node = ((data.get("addComment") or {}).get("commentEdge") or {}).get("node") or {}
        return node.get("id") or "", thread_id
    title = edition.title[:GITHUB_TITLE_CHARS]
    where = target.repository or edition.repo  # a group's report goes to the repository named
    if target.discussion_category:
        found = _repository(client, where, CATEGORIES)
        if done := _already(found["discussions"]["nodes"], edition):
            return done, done
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
                f"github: {where} has no discussion category "
                f"{target.discussion_category!r} (it has: {names or 'none'})"
            )
        data = client.ask(
            CREATE_DISCUSSION,
            {"input": {"repositoryId": found["id"], "categoryId": category["id"],
                       "title": title, "body": body}},
        )  # fmt: skip
        node = (data.get("createDiscussion") or {}).get("discussion") or {}
    else:
        found = _repository(client, where, LABEL, label=target.issue_label)
        if found.get("label") is None:
            raise DeliveryError(f"github: {where} has no label {target.issue_label!r}")
        if done := _already(found["issues"]["nodes"], edition):
            return done, done
        data = client.ask(
            CREATE_ISSUE,
            {"input": {"repositoryId": found["id"], "title": title, "body": body,
                       "labelIds": [found["label"]["id"]]}},
        )  # fmt: skip
        node = (data.get("createIssue") or {}).get("issue") or {}
    if not node.get("id"):
        raise DeliveryError("github: the mutation answered without the new node's id")
    return node["id"], node["id"]
