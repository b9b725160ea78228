"""The `github` source: merged pull requests from GitHub's GraphQL search, complete or not at all.

A window is searched as `repo:O/N is:pr is:merged merged:START..END` with explicit UTC
timestamps. GitHub's search returns at most 1,000 results, so a window whose `issueCount`
passes that is split: at whole weeks while it spans several (halving, so a long quiet history
stays a few requests), then into days, hours and minutes. Nested lists with more pages are
completed by follow-up queries for that pull request only. Everything is gathered before the
first node is yielded, so a failure never leaves a caller with part of a window.

GitHub's count of a window (`issueCount`) is checked against the PRs its pages gave: results
that shift between pages would otherwise lose a PR without a word. A window that disagrees is
read again, then fails; the counts that agreed are kept for the lake (`week_counts`).

Token rules: the public endpoint (or any non-loopback host) needs GITHUB_TOKEN; an emulator on
loopback accepts requests without one. A token is never sent over plain HTTP to another host.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from urllib.parse import urlsplit

import httpx

from orchestration.config import validate_repo
from orchestration.extract.sources.base import WeekCount
from orchestration.extract.sources.github_counts import Counted, week_counts
from orchestration.extract.sources.github_errors import (
    GitHubAuthError,
    GitHubDeadlineError,
    GitHubError,
    GitHubIncompleteError,
    GitHubMovedError,
    GitHubNotFoundError,
    GitHubPermissionError,
    GitHubResponseError,
    check_not_moved,
    secs,
)
from orchestration.extract.sources.github_http import GraphQLClient
from orchestration.extract.sources.github_queries import (
    COUNT_QUERY,
    FOLLOW_UP_QUERIES,
    NAME_QUERY,
    SEARCH_PAGE,
    SEARCH_QUERY,
)
from orchestration.weeks import iso_label, monday_of

SEARCH_CAP = 1000
MAX_WALKS = 3  # reads of one window whose pages disagree with GitHub's count, before failing
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


def _weeks_label(start: datetime, end: datetime) -> str:
    """`week 2026-W30`, or `weeks 2026-W30..2026-W32`, for the weeks a window touches."""
    first = iso_label(monday_of(start.astimezone(UTC).date()))
    last = iso_label(monday_of((end - timedelta(seconds=1)).astimezone(UTC).date()))
    return f"week {first}" if first == last else f"weeks {first}..{last}"


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
        request_deadline: float = 120.0,
        week_deadline: float = 1800.0,
        page_size: int = SEARCH_PAGE,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        timer: Callable[[], float] = time.monotonic,
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
        self._clock = clock
        self._log = log or (lambda _line: None)
        self._counted: list[Counted] = []
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
            request_deadline=request_deadline,
            week_deadline=week_deadline,
            timer=timer,
            seed=seed,
        )

    def fetch(self, repo: str, start: datetime, end: datetime) -> Iterator[dict]:
        owner, name = validate_repo(repo).split("/")
        if start.tzinfo is None or end.tzinfo is None or not start < end:
            raise ValueError(f"window {start}..{end} must be timezone-aware with start < end")
        self._client.begin_partition(partitions=-(-(end - start).days // 7))
        self._counted = []
        found: dict[int, dict] = {}
        try:
            self._collect(owner, name, start, end, found)
        except GitHubMovedError:
            raise
        except GitHubNotFoundError as exc:
            self._check_moved(owner, name)  # a search by the old name finds no repository
            raise GitHubNotFoundError(
                f"repository {repo} was not found at {self.description.removeprefix('github:')} "
                f"or GITHUB_TOKEN cannot read it ({exc})"
            ) from None
        except GitHubPermissionError as exc:
            raise GitHubPermissionError(f"{repo}: {exc}") from None
        except GitHubDeadlineError as exc:
            raise GitHubDeadlineError(
                f"{repo} {_weeks_label(start, end)}: reading from GitHub passed its deadline of "
                f"{secs(self._client.week_deadline)} s per week (PRWEEKLY_WEEK_DEADLINE_SECONDS): "
                f"{exc}; nothing was written, run again later"
            ) from None
        for number in sorted(found):
            yield found[number]

    def _check_moved(self, owner: str, name: str) -> None:
        try:
            data = self._client.query(NAME_QUERY, {"owner": owner, "name": name})
        except GitHubError:
            return  # not found under any name: the caller says so
        check_not_moved(owner, name, data)

    def week_counts(self) -> dict[date, WeekCount]:
        """GitHub's count of merged PRs for each week of the last fetch, and when it counted."""
        return week_counts(self._counted)

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
        check_not_moved(owner, name, data)
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
        """Every PR of the window into `found`, checked against GitHub's count of them.

        A cursor walk can miss a PR when the results shift between pages (a PR merged or
        re-indexed meanwhile). So a walk counts as whole only when every page reported the
        same `issueCount` and that many PRs arrived; otherwise the window is read again, a
        few times, and then the extract fails rather than lose a PR.
        """
        window = f"{_iso(start)}..{_iso(end - timedelta(seconds=1))}"
        found_counts: list[int] = []
        for _attempt in range(MAX_WALKS):
            walk = self._walk(owner, name, start, end, window)
            if walk is None:  # over the search cap: read it in smaller windows
                parts = split_window(start, end)
                if not parts:
                    raise GitHubResponseError(
                        f"{owner}/{name}: more than {SEARCH_CAP} PRs merged within "
                        f"{_iso(start)}..{_iso(end)}; the window cannot be split further"
                    )
                for part_start, part_end in parts:
                    self._collect(owner, name, part_start, part_end, found)
                return
            counts, nodes, counted_at = walk
            if len(set(counts)) == 1 and len(nodes) == counts[0]:
                for number, node in nodes.items():
                    found[number] = self._complete(owner, name, node)
                self._counted.append(Counted.of(start, end, counted_at, nodes.values()))
                return
            found_counts.append(len(nodes))
            self._log(
                f"{owner}/{name}: GitHub counted {' then '.join(map(str, dict.fromkeys(counts)))} "
                f"PRs merged in {window} but its pages gave {len(nodes)}; the results shifted "
                "while they were read, reading the window again"
            )
        raise GitHubIncompleteError(
            f"{owner}/{name}: GitHub counted {counts[-1]} PRs merged in {window} but "
            f"{MAX_WALKS} reads of its pages found {', '.join(map(str, found_counts))}; the "
            "search results kept shifting while they were read (PRs being merged or "
            "re-indexed); nothing was written, run again later"
        )

    def _walk(
        self, owner: str, name: str, start: datetime, end: datetime, window: str
    ) -> tuple[list[int], dict[int, dict], datetime] | None:
        """One cursor walk: each page's `issueCount`, the PRs by number, when it began.

        None when the first page says the window passes GitHub's 1,000-result cap.
        """
        counted_at = datetime.fromtimestamp(self._clock(), UTC)
        query = f"repo:{owner}/{name} is:pr is:merged merged:{window}"
        counts: list[int] = []
        nodes: dict[int, dict] = {}
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
            check_not_moved(owner, name, data)
            self.page_size = variables["first"]  # smaller after a timeout
            search = data.get("search") or {}
            count = search.get("issueCount")
            if not isinstance(count, int):
                raise GitHubResponseError(f"search for {owner}/{name} came back without issueCount")
            if after is None and count > SEARCH_CAP:
                return None
            counts.append(count)
            for node in search.get("nodes") or []:
                if not isinstance(node, dict) or not isinstance(node.get("number"), int):
                    raise GitHubResponseError(f"search returned an unreadable item: {node!r}")
                nodes[node["number"]] = self._check_merged(owner, name, node, start, end, window)
            info = search.get("pageInfo") or {}
            if not info.get("hasNextPage"):
                return counts, nodes, counted_at
            after = info.get("endCursor")

    def _check_merged(
        self, owner: str, name: str, node: dict, start: datetime, end: datetime, window: str
    ) -> dict:
        """A search node whose `mergedAt` lies in the window; anything else names the PR."""
        merged = node.get("mergedAt")
        pr = f"{owner}/{name}#{node['number']}"
        if not merged:
            raise GitHubResponseError(
                f"{pr} came back from the search for PRs merged in {window} with no mergedAt; "
                "its week is unknown, so nothing was written"
            )
        try:
            moment = _parse(str(merged))
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise GitHubResponseError(f"{pr} has an unreadable mergedAt {merged!r}")
        if not start <= moment < end:
            raise GitHubResponseError(
                f"{pr} came back from the search for PRs merged in {window} but was merged "
                f"at {merged}"
            )
        return node

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
