"""The emulated schema: GitHub's SDL subset with resolvers over the dataset.

What the emulator answers where a dataset node lacks a field (the verl dataset, made from git
history, has no `createdAt`, `mergedBy`, `labels`, `reviews`, `reviewThreads` or `comments`):

- nullable in GitHub's schema (`mergedBy`, `labels`, `reviews`, `files`, `author`,
  `mergeCommit`): `null`, which the lake keeps as unknown;
- non-null connections (`reviewThreads`, `comments`): an empty connection, `totalCount: 0`.
  GitHub's schema leaves no way to say "unknown" there, so through the emulator these read as
  "none" where the `file` source says "unknown";
- `createdAt` (`DateTime!`): the node's `mergedAt`, the latest moment it can have been created;
- `state` (`PullRequestState!`): `MERGED`; `body` and `baseRefName` (`String!`): `""`.

Cursors are opaque base64 strings, as on GitHub; search stops after 1,000 results while
`issueCount` keeps the full count.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphql import GraphQLError, GraphQLSchema, build_schema

from orchestration.testing.github_emulator.dataset import Dataset
from orchestration.testing.github_emulator.posts import Posts, node_id
from orchestration.testing.github_emulator.search_query import SearchSyntaxError, parse_search

SCHEMA_PATH = Path(__file__).with_name("schema.graphql")
SEARCH_CAP = 1000


class TypedError(Exception):
    """An error GitHub reports with a top-level `type` (NOT_FOUND, INVALID, ...)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Context:
    dataset: Dataset
    hide_newest: bool = False  # answer search as if the newest PR were not indexed yet
    posts: Posts = field(default_factory=Posts)  # discussions, issues and comments made
    unindexed: frozenset = frozenset()  # (repo lower case, number) search does not find yet


def encode_cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        prefix, _, index = text.rpartition(":")
        if prefix != "cursor:v2":
            raise ValueError
        return int(index)
    except ValueError:
        raise TypedError(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        ) from None


def page(items: list, first=None, after=None, last=None, before=None, cap=None) -> dict:
    """One page of a connection, with GitHub's `pageInfo` and opaque cursors."""
    total = len(items)
    reachable = min(total, cap) if cap is not None else total
    low = decode_cursor(after) + 1 if after else 0
    high = min(decode_cursor(before), reachable) if before else reachable
    low = max(0, min(low, high))
    if first is not None:
        high = min(high, low + first)
    if last is not None:
        low = max(low, high - last)
    chosen = items[low:high]
    return {
        "totalCount": total,
        "nodes": chosen,
        "edges": [{"cursor": encode_cursor(low + i), "node": n} for i, n in enumerate(chosen)],
        "pageInfo": {
            "startCursor": encode_cursor(low) if chosen else None,
            "endCursor": encode_cursor(high - 1) if chosen else None,
            "hasNextPage": high < reachable,
            "hasPreviousPage": low > 0,
        },
    }


def _search(_root, info, query: str, type: str, **paging) -> dict:
    if type != "ISSUE":
        raise TypedError("INVALID", f"the emulator only serves pull requests, not type {type}")
    try:
        search = parse_search(query)
    except SearchSyntaxError as exc:
        raise TypedError("INVALID", str(exc)) from None
    dataset = info.context.dataset
    pulls = dataset.repo(search.repo, follow=dataset.search_follows_moves)
    if pulls is None:
        raise TypedError(
            "INVALID",
            "The listed users and repositories cannot be searched either because the "
            "resources do not exist or you do not have permission to view them.",
        )
    found = pulls.merged_between(search.merged_from, search.merged_to)
    if info.context.unindexed:  # merged, but not in the search index yet: neither found nor counted
        key = pulls.name_with_owner.lower()
        found = [n for n in found if (key, n["number"]) not in info.context.unindexed]
    ordered = sorted(found, key=lambda n: n["number"], reverse=True)  # newest first
    if info.context.hide_newest:
        ordered = ordered[1:]  # shown on the next page asked for: results shift by one
    result = page(ordered, cap=SEARCH_CAP, **paging)
    result["issueCount"] = result.pop("totalCount")
    for count in ("codeCount", "discussionCount", "repositoryCount", "userCount", "wikiCount"):
        result[count] = 0
    return result


def _repository(_root, info, owner: str, name: str, followRenames: bool = True) -> Any:
    pulls = info.context.dataset.repo(f"{owner}/{name}", follow=followRenames)
    if pulls is None:
        raise TypedError(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
        )
    return pulls


def _pull_request(pulls, _info, number: int) -> dict:
    node = pulls.by_number.get(number)
    if node is None:
        raise TypedError(
            "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
        )
    return node


def _connection(key: str, required: bool):
    """Resolver for a nested connection stored in the node as `{totalCount?, nodes}`."""

    def resolve(node, _info, **paging):
        stored = node.get(key)
        if stored is None:
            return page([], **only_paging(paging)) if required else None
        result = page([n for n in stored.get("nodes") or []], **only_paging(paging))
        if isinstance(stored.get("totalCount"), int):
            result["totalCount"] = stored["totalCount"]
        return result

    return resolve


def only_paging(args: dict) -> dict:
    return {k: v for k, v in args.items() if k in ("first", "after", "last", "before")}


def _default(key: str, fallback):
    def resolve(node, _info):
        value = node.get(key)
        return fallback(node) if value is None else value

    return resolve


def query_schema() -> GraphQLSchema:
    """The schema with the queries' resolvers; `mutations.build` adds the mutations'."""
    schema = build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))
    query = schema.query_type
    query.fields["search"].resolve = _search
    query.fields["repository"].resolve = _repository
    repository = schema.type_map["Repository"]
    repository.fields["pullRequest"].resolve = _pull_request
    repository.fields["nameWithOwner"].resolve = lambda pulls, _i: pulls.name_with_owner
    repository.fields["name"].resolve = lambda pulls, _i: pulls.name_with_owner.split("/")[1]
    repository.fields["id"].resolve = lambda pulls, _i: base64.b64encode(
        f"Repository:{pulls.name_with_owner}".encode()
    ).decode()
    pull = schema.type_map["PullRequest"]
    for key, required in (
        ("files", False),
        ("labels", False),
        ("reviews", False),
        ("reviewThreads", True),
        ("comments", True),
    ):
        pull.fields[key].resolve = _connection(key, required)
    pull.fields["createdAt"].resolve = _default("createdAt", lambda n: n["mergedAt"])
    pull.fields["state"].resolve = _default("state", lambda _n: "MERGED")
    pull.fields["body"].resolve = _default("body", lambda _n: "")
    pull.fields["baseRefName"].resolve = _default("baseRefName", lambda _n: "")
    pull.fields["isDraft"].resolve = _default("isDraft", lambda _n: False)
    schema.type_map["PullRequestReviewThread"].fields["comments"].resolve = _connection(
        "comments", True
    )
    schema.type_map["Label"].fields["id"].resolve = _default(
        "id", lambda n: node_id("Label", n["name"])
    )
    comment = schema.type_map["IssueComment"]
    comment.fields["id"].resolve = _default("id", lambda n: node_id("IssueComment", n["body"]))
    comment.fields["url"].resolve = _default("url", lambda _n: "https://github.com/")
    schema.type_map["Actor"].resolve_type = lambda *_: "User"
    schema.type_map["SearchResultItem"].resolve_type = lambda *_: "PullRequest"
    return schema


def format_error(error: GraphQLError) -> dict:
    """graphql-core's error, plus GitHub's top-level `type` where we know it."""
    formatted = dict(error.formatted)
    original = error.original_error
    if isinstance(original, TypedError):
        formatted["type"] = original.kind
    return formatted


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
