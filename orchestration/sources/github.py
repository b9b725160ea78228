"""The `github` source: merged pull requests from GitHub's GraphQL search, complete or not at all.

A window is searched as `repo:O/N is:pr is:merged merged:START..END` with explicit UTC
timestamps. GitHub's search returns at most 1,000 results, so a window whose `issueCount`
passes that is split: at whole weeks while it spans several (halving, so a long quiet history
stays a few requests), then into days, hours and minutes. Nested lists with more pages are
completed by follow-up queries for that pull request only. Everything is gathered before the
first node is yielded, so a failure never leaves a caller with part of a window.

Token rules: the public endpoint (or any non-loopback host) needs GITHUB_TOKEN; an emulator on
loopback accepts requests without one. A token is never sent over plain HTTP to another host.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from urllib.parse import urlsplit

import httpx

from orchestration.config import validate_repo
from orchestration.sources.github_errors import (
    GitHubAuthError,
    GitHubError,
    GitHubNotFoundError,
    GitHubResponseError,
)
from orchestration.sources.github_http import GraphQLClient
from orchestration.sources.github_queries import (
    COUNT_QUERY,
    FOLLOW_UP_QUERIES,
    SEARCH_PAGE,
    SEARCH_QUERY,
)

SEARCH_CAP = 1000
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
SPLITS = (timedelta(weeks=1), timedelta(days=1), timedelta(hours=1), timedelta(minutes=1))
SCALARS = [
    *("number", "title", "body", "url", "createdAt", "mergedAt", "additions", "deletions"),
    *("changedFiles", "baseRefName", "isDraft", "author", "mergedBy", "mergeCommit", "comments"),
]


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def split_window(start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    """Smaller windows covering [start, end): halves at a week boundary, then days, hours, ..."""
    span = end - start
    if span > SPLITS[0]:
        weeks = span // SPLITS[0]
        middle = start + SPLITS[0] * max(1, weeks // 2)
        return [(start, middle), (middle, end)] if middle < end else [(start, end)]
    for unit in SPLITS[1:]:
        if span > unit:
            edges = [start + unit * i for i in range(-(-span // unit))] + [end]
            return [(a, min(b, end)) for a, b in pairwise(edges)]
    return []


class GitHubSource:
    """Merged pull requests of one repository through GitHub's GraphQL API (or the emulator)."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        max_wait_seconds: float = 900,
        page_size: int = SEARCH_PAGE,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        transport: httpx.BaseTransport | None = None,
        log: Callable[[str], None] | None = None,
        seed: int | None = None,
    ) -> None:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https") or not host:
            raise GitHubError(f"GITHUB_GRAPHQL_URL {url!r} is not an http(s) URL")
        loopback = host in LOOPBACK
        if not token and not loopback:
            raise GitHubAuthError(
                f"GITHUB_TOKEN is not set: {host} needs a token that can read pull requests "
                "(or point GITHUB_GRAPHQL_URL at the emulator on 127.0.0.1)"
            )
        if token and parts.scheme == "http" and not loopback:
            raise GitHubAuthError(
                f"refusing to send GITHUB_TOKEN over plain http to {host}; use https"
            )
        self.url = url
        self.description = f"github:{parts.scheme}://{parts.netloc}{parts.path}"
        self.page_size = max(1, min(page_size, SEARCH_PAGE))
        self._client = GraphQLClient(
            url,
            token,
            sleep=sleep,
            clock=clock,
            transport=transport,
            log=log,
            timeout=timeout,
            max_wait_seconds=max_wait_seconds,
            seed=seed,
        )

    def fetch(self, repo: str, start: datetime, end: datetime) -> Iterator[dict]:
        owner, name = validate_repo(repo).split("/")
        if start.tzinfo is None or end.tzinfo is None or not start < end:
            raise ValueError(f"window {start}..{end} must be timezone-aware with start < end")
        self._client.begin_partition(partitions=-(-(end - start).days // 7))
        found: dict[int, dict] = {}
        try:
            self._collect(owner, name, start, end, found)
        except GitHubNotFoundError as exc:
            raise GitHubNotFoundError(
                f"repository {repo} was not found at {self.description.removeprefix('github:')} "
                f"or GITHUB_TOKEN cannot read it ({exc})"
            ) from None
        for number in sorted(found):
            yield found[number]

    def coverage(self) -> tuple[datetime, datetime] | None:
        """GitHub holds every week: no bounds."""
        return None

    def merged_before(self, repo: str, moment: datetime) -> bool:
        """Whether any PR of `repo` merged before `moment`: one search that counts."""
        owner, name = validate_repo(repo).split("/")
        query = f"repo:{owner}/{name} is:pr is:merged merged:<{_iso(moment)}"
        try:
            data = self._client.query(COUNT_QUERY, {"owner": owner, "name": name, "query": query})
        except GitHubNotFoundError as exc:
            raise GitHubNotFoundError(f"repository {repo} was not found ({exc})") from None
        return (data.get("search") or {}).get("issueCount", 0) > 0

    def stats(self) -> dict[str, float | int | str]:
        """Counters for asset metadata; `rate_limit_remaining` is -1 until GitHub says."""
        client = self._client
        return {
            "source": self.description,
            "requests": client.requests,
            "rate_limit_points": client.points,
            "rate_limit_remaining": -1 if client.remaining is None else client.remaining,
            "waited_seconds": round(client.waited, 3),
            "retries": client.retries,
        }

    def close(self) -> None:
        self._client.close()

    def _collect(self, owner: str, name: str, start: datetime, end: datetime, found: dict) -> None:
        last = end - timedelta(seconds=1)  # GitHub's range is inclusive, mergedAt has seconds
        query = f"repo:{owner}/{name} is:pr is:merged merged:{_iso(start)}..{_iso(last)}"
        after = None
        while True:
            variables = {
                "owner": owner,
                "name": name,
                "query": query,
                "first": self.page_size,
                "after": after,
            }
            data = self._client.query(SEARCH_QUERY, variables)
            self.page_size = variables["first"]  # smaller after a timeout
            search = data.get("search") or {}
            if after is None and search.get("issueCount", 0) > SEARCH_CAP:
                parts = split_window(start, end)
                if not parts:
                    raise GitHubResponseError(
                        f"{owner}/{name}: more than {SEARCH_CAP} PRs merged within "
                        f"{_iso(start)}..{_iso(end)}; the window cannot be split further"
                    )
                for part_start, part_end in parts:
                    self._collect(owner, name, part_start, part_end, found)
                return
            for node in search.get("nodes") or []:
                if not isinstance(node, dict) or not isinstance(node.get("number"), int):
                    raise GitHubResponseError(f"search returned an unreadable item: {node!r}")
                merged = node.get("mergedAt")
                if merged and start <= _parse(merged) < end:
                    found[node["number"]] = self._complete(owner, name, node)
            info = search.get("pageInfo") or {}
            if not info.get("hasNextPage"):
                return
            after = info.get("endCursor")

    def _complete(self, owner: str, name: str, node: dict) -> dict:
        """The node in the dataset's shape, every nested list fetched to its end."""
        shaped = {key: node.get(key) for key in SCALARS}
        for connection, document in FOLLOW_UP_QUERIES.items():
            value = node.get(connection)
            if value is None:
                shaped[connection] = None
                continue
            items = list(value.get("nodes") or [])
            info = value.get("pageInfo") or {}
            while info.get("hasNextPage"):
                variables = {
                    "owner": owner,
                    "name": name,
                    "number": node["number"],
                    "after": info.get("endCursor"),
                }
                data = self._client.query(document, variables)
                pull = (data.get("repository") or {}).get("pullRequest") or {}
                more = pull.get(connection)
                if not isinstance(more, dict):
                    raise GitHubResponseError(
                        f"PR #{node['number']}: the next page of {connection} came back empty"
                    )
                items.extend(more.get("nodes") or [])
                info = more.get("pageInfo") or {}
            if any(item is None for item in items):
                raise GitHubResponseError(f"PR #{node['number']}: {connection} has null entries")
            shaped[connection] = {"totalCount": value.get("totalCount"), "nodes": items}
        return shaped
