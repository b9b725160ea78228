"""GitHub GraphQL `PullRequest` nodes, checked field by field and flattened into lake rows.

Records arrive as nodes from the API or a JSONL file. A field the source does not hold (for
example `reviews` in a dataset made from git history) becomes NULL, never an empty list, so
the models can tell "unknown" from "none". Every field is checked: a record that cannot be
trusted fails its partition instead of storing a guess.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from orchestration.config import SourceDataError
from orchestration.weeks import monday_of


def parse_timestamp(value: Any, field: str, number: Any = None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise SourceDataError(f"PR #{number}: {field} {value!r} is not an ISO timestamp") from None
    if parsed.tzinfo is None:
        raise SourceDataError(f"PR #{number}: {field} {value!r} has no time zone")
    return parsed.astimezone(UTC)


INT64_MAX = 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: Any, field: str, number: Any) -> str | None:
    """Text as stored: None stays unknown; lone surrogates (invalid Unicode, e.g. a JSON
    `"\\ud800"`) become U+FFFD so the PR is kept and Parquet's UTF-8 accepts it."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise SourceDataError(f"PR #{number}: {field} should be text, got {_kind(value)}")
    return _SURROGATE.sub("\ufffd", value)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", str: "text"}.get(
        type(value), type(value).__name__
    ) + f" ({_preview(value)})"


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _login(actor: Any, field: str, number: Any) -> str | None:
    if actor is None:
        return None
    if not isinstance(actor, dict):
        raise SourceDataError(
            f"PR #{number}: {field} should be an object with a login, got {_kind(actor)}"
        )
    return _text(actor.get("login"), f"{field}.login", number)


def _object(value: Any, field: str, number: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SourceDataError(f"PR #{number}: {field} should be an object, got {_kind(value)}")
    return value


def _nodes(connection: Any, field: str = "connection", number: Any = None) -> list[dict] | None:
    """Nodes of a GraphQL connection, or None when the source did not provide it."""
    if connection is None:
        return None
    if not isinstance(connection, dict):
        raise SourceDataError(
            f'PR #{number}: {field} should be a connection object ({{"nodes": [...]}}), '
            f"got {_kind(connection)}"
        )
    nodes = connection.get("nodes") or []
    if not isinstance(nodes, list):
        raise SourceDataError(f"PR #{number}: {field}.nodes should be a list, got {_kind(nodes)}")
    for node in nodes:
        if node is not None and not isinstance(node, dict):
            raise SourceDataError(
                f"PR #{number}: {field}.nodes should hold objects, got {_kind(node)}"
            )
    return [n for n in nodes if n is not None]


def _count(value: Any, field: str, number: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SourceDataError(f"PR #{number}: {field} {_preview(value)} is not an integer")
    if value < 0:
        raise SourceDataError(f"PR #{number}: {field} {value} is negative")
    if value > INT64_MAX:
        raise SourceDataError(f"PR #{number}: {field} {value} is too large")
    return value


def _flag(value: Any, field: str, number: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise SourceDataError(f"PR #{number}: {field} should be true or false, got {_kind(value)}")


def _file(node: dict, number: Any) -> dict:
    return {
        "path": _text(node.get("path"), "files.path", number),
        "additions": _count(node.get("additions"), "files.additions", number),
        "deletions": _count(node.get("deletions"), "files.deletions", number),
        "change_type": _text(node.get("changeType"), "files.changeType", number),
    }


def _from_files(files: list[dict] | None, total: Any, key: str) -> int | None:
    """A PR-level count the source left out, summed from its files when they are all there;
    the number of changed files is the list's `totalCount` when it has one (GitHub lists at
    most 3,000 files), so that a cut list is known to be cut."""
    if key == "changed_files" and isinstance(total, int) and not isinstance(total, bool):
        return total
    if files is None or (isinstance(total, int) and total != len(files)):
        return None
    if key == "changed_files":
        return len(files)
    values = [f[key] for f in files]
    return None if any(v is None for v in values) else sum(values)


def to_row(node: dict, repo: str) -> dict:
    """Flatten one `PullRequest` node into a lake row, in the week of its `mergedAt` (UTC).

    Every field is checked: a wrong type or a negative count raises `SourceDataError` naming
    the PR and the field; unknown extra fields are ignored; an absent optional field is NULL;
    absent PR-level counts are summed from the files when every file is present.
    """
    number = node.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise SourceDataError(f"a pull request has no valid number: {number!r}")
    merged_at = parse_timestamp(node.get("mergedAt"), "mergedAt", number)
    if merged_at is None:
        raise SourceDataError(f"PR #{number} has no mergedAt")
    files_connection = node.get("files")
    files = _nodes(files_connection, "files", number)
    reviews = _nodes(node.get("reviews"), "reviews", number)
    threads = _nodes(node.get("reviewThreads"), "reviewThreads", number)
    labels = _nodes(node.get("labels"), "labels", number)
    comments = _object(node.get("comments"), "comments", number)
    file_rows = None if files is None else [_file(f, number) for f in files]
    total = files_connection.get("totalCount") if isinstance(files_connection, dict) else None
    counts = {}
    for key, field in (
        ("additions", "additions"),
        ("deletions", "deletions"),
        ("changed_files", "changedFiles"),
    ):
        counts[key] = _count(node.get(field), field, number)
        if counts[key] is None:
            counts[key] = _from_files(file_rows, total, key)
    return {
        "repo": repo,
        "week_start": monday_of(merged_at.date()),
        "number": number,
        "title": _text(node.get("title"), "title", number),
        "body": _text(node.get("body"), "body", number),
        "url": _text(node.get("url"), "url", number),
        "author": _login(node.get("author"), "author", number),
        "created_at": parse_timestamp(node.get("createdAt"), "createdAt", number),
        "merged_at": merged_at,
        "merged_by": _login(node.get("mergedBy"), "mergedBy", number),
        **counts,
        "base_ref": _text(node.get("baseRefName"), "baseRefName", number),
        "is_draft": _flag(node.get("isDraft"), "isDraft", number),
        "merge_commit": _text(
            _object(node.get("mergeCommit"), "mergeCommit", number).get("oid"),
            "mergeCommit.oid",
            number,
        ),
        "comments_count": _count(comments.get("totalCount"), "comments.totalCount", number),
        "files": file_rows,
        "labels": None
        if labels is None
        else [_text(label.get("name"), "labels.name", number) for label in labels],
        "reviews": None
        if reviews is None
        else [
            {
                "state": _text(r.get("state"), "reviews.state", number),
                "author": _login(r.get("author"), "reviews.author", number),
                "submitted_at": parse_timestamp(
                    r.get("submittedAt"), "reviews.submittedAt", number
                ),
            }
            for r in reviews
        ],
        "review_threads": None if threads is None else [_thread(t, number) for t in threads],
    }


def _thread(thread: dict, number: Any = None) -> dict:
    first = (_nodes(thread.get("comments"), "reviewThreads.comments", number) or [{}])[0]
    return {
        "is_resolved": _flag(thread.get("isResolved"), "reviewThreads.isResolved", number),
        "is_outdated": _flag(thread.get("isOutdated"), "reviewThreads.isOutdated", number),
        "path": _text(thread.get("path"), "reviewThreads.path", number),
        "author": _login(first.get("author"), "reviewThreads.author", number),
        "body": _text(first.get("body"), "reviewThreads.body", number),
    }
