"""The GraphQL documents the `github` source sends, and the page sizes they are built with.

One search page asks for 100 pull requests with every nested list we need, so a typical week is
one request. Nested page sizes keep a page far below GitHub's 500,000-node limit (about 34,000
nodes) and its cost near 25 points: GitHub charges for each connection as many requests as its
parents could return, so only `comments` under `reviewThreads` multiplies, and threads are
asked 20 at a time. A nested list with more pages is completed by follow-up queries for that
pull request only.
"""

from __future__ import annotations

SEARCH_PAGE = 100
NESTED_PAGE = {"files": 100, "labels": 100, "reviews": 100, "reviewThreads": 20}

PAGE_INFO = "totalCount pageInfo { hasNextPage endCursor }"
NESTED_FIELDS = {
    "files": "nodes { path additions deletions changeType }",
    "labels": "nodes { name }",
    "reviews": "nodes { state author { login } submittedAt }",
    "reviewThreads": (
        "nodes { isResolved isOutdated path"
        " comments(first: 1) { nodes { author { login } body } } }"
    ),
}
RATE_LIMIT = "rateLimit { cost remaining resetAt }"


def _nested(name: str, after: str = "") -> str:
    return f"{name}(first: {NESTED_PAGE[name]}{after}) {{ {PAGE_INFO} {NESTED_FIELDS[name]} }}"


PULL_REQUEST_FIELDS = f"""
fragment PullRequestFields on PullRequest {{
  number title body url createdAt mergedAt
  additions deletions changedFiles baseRefName isDraft
  author {{ login }}
  mergedBy {{ login }}
  mergeCommit {{ oid }}
  comments {{ totalCount }}
  {_nested("labels")}
  {_nested("files")}
  {_nested("reviews")}
  {_nested("reviewThreads")}
}}
"""

SEARCH_QUERY = (
    f"""
query MergedPullRequests(
  $owner: String!, $name: String!, $query: String!, $first: Int!, $after: String
) {{
  {RATE_LIMIT}
  repository(owner: $owner, name: $name) {{ id nameWithOwner }}
  search(query: $query, type: ISSUE, first: $first, after: $after) {{
    issueCount
    pageInfo {{ hasNextPage endCursor }}
    nodes {{ ...PullRequestFields }}
  }}
}}
"""
    + PULL_REQUEST_FIELDS
)


# Whether anything merged before a moment: how a build learns that its history reaches the
# repository's first PR. One small request; no nodes are asked for.
COUNT_QUERY = f"""
query MergedCount($owner: String!, $name: String!, $query: String!) {{
  {RATE_LIMIT}
  repository(owner: $owner, name: $name) {{ id nameWithOwner }}
  search(query: $query, type: ISSUE, first: 1) {{ issueCount }}
}}
"""


# What GitHub calls a repository now (it follows an old name to a renamed or moved one).
NAME_QUERY = """
query RepositoryName($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { nameWithOwner }
}
"""


def follow_up_query(connection: str) -> str:
    """The next page of one nested list of one pull request."""
    return f"""
query PullRequest{connection[0].upper()}{connection[1:]}Page(
  $owner: String!, $name: String!, $number: Int!, $after: String
) {{
  {RATE_LIMIT}
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{ {_nested(connection, ", after: $after")} }}
  }}
}}
"""


FOLLOW_UP_QUERIES = {name: follow_up_query(name) for name in NESTED_PAGE}
ALL_QUERIES = {"search": SEARCH_QUERY, "count": COUNT_QUERY, "name": NAME_QUERY} | {
    f"more {k}": q for k, q in FOLLOW_UP_QUERIES.items()
}
