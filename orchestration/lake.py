"""The raw lake: one Parquet file per repository and week, with an explicit schema.

Records arrive as GitHub GraphQL `PullRequest` nodes (from the API or a JSONL file). A field the
source does not hold (for example `reviews` in a dataset made from git history) is stored as NULL,
never as an empty list, so the models can tell "unknown" from "none".
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from orchestration.config import repo_slug
from orchestration.storage import Location, join, write_bytes
from orchestration.weeks import monday_of

FILE_CHANGE = pa.struct(
    [
        ("path", pa.string()),
        ("additions", pa.int64()),
        ("deletions", pa.int64()),
        ("change_type", pa.string()),
    ]
)
REVIEW = pa.struct(
    [("state", pa.string()), ("author", pa.string()), ("submitted_at", pa.timestamp("us", "UTC"))]
)
REVIEW_THREAD = pa.struct(
    [
        ("is_resolved", pa.bool_()),
        ("is_outdated", pa.bool_()),
        ("path", pa.string()),
        ("author", pa.string()),
        ("body", pa.string()),
    ]
)

PULL_REQUEST_SCHEMA = pa.schema(
    [
        ("repo", pa.string(), False),
        ("week_start", pa.date32(), False),
        ("number", pa.int64(), False),
        ("title", pa.string()),
        ("body", pa.string()),
        ("url", pa.string()),
        ("author", pa.string()),
        ("created_at", pa.timestamp("us", "UTC")),
        ("merged_at", pa.timestamp("us", "UTC"), False),
        ("merged_by", pa.string()),
        ("additions", pa.int64()),
        ("deletions", pa.int64()),
        ("changed_files", pa.int64()),
        ("base_ref", pa.string()),
        ("is_draft", pa.bool_()),
        ("merge_commit", pa.string()),
        ("comments_count", pa.int64()),
        ("files", pa.list_(FILE_CHANGE)),
        ("labels", pa.list_(pa.string())),
        ("reviews", pa.list_(REVIEW)),
        ("review_threads", pa.list_(REVIEW_THREAD)),
    ]
)


class SourceDataError(ValueError):
    """A record that cannot be trusted; the partition fails instead of storing a guess."""


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


def _login(actor: Any) -> str | None:
    return actor.get("login") if isinstance(actor, dict) else None


def _nodes(connection: Any) -> list[dict] | None:
    """Nodes of a GraphQL connection, or None when the source did not provide it."""
    if connection is None:
        return None
    if isinstance(connection, dict):
        return [n for n in connection.get("nodes") or [] if n is not None]
    raise SourceDataError(f"expected a connection object, got {type(connection).__name__}")


def _count(value: Any, field: str, number: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SourceDataError(f"PR #{number}: {field} {value!r} is not an integer")
    return value


def to_row(node: dict, repo: str) -> dict:
    """Flatten one `PullRequest` node into a lake row, in the week of its `mergedAt` (UTC)."""
    number = node.get("number")
    if isinstance(number, bool) or not isinstance(number, int):
        raise SourceDataError(f"a pull request has no valid number: {number!r}")
    merged_at = parse_timestamp(node.get("mergedAt"), "mergedAt", number)
    if merged_at is None:
        raise SourceDataError(f"PR #{number} has no mergedAt")
    files = _nodes(node.get("files"))
    reviews = _nodes(node.get("reviews"))
    threads = _nodes(node.get("reviewThreads"))
    labels = _nodes(node.get("labels"))
    comments = node.get("comments")
    return {
        "repo": repo,
        "week_start": monday_of(merged_at.date()),
        "number": number,
        "title": node.get("title"),
        "body": node.get("body"),
        "url": node.get("url"),
        "author": _login(node.get("author")),
        "created_at": parse_timestamp(node.get("createdAt"), "createdAt", number),
        "merged_at": merged_at,
        "merged_by": _login(node.get("mergedBy")),
        "additions": _count(node.get("additions"), "additions", number),
        "deletions": _count(node.get("deletions"), "deletions", number),
        "changed_files": _count(node.get("changedFiles"), "changedFiles", number),
        "base_ref": node.get("baseRefName"),
        "is_draft": node.get("isDraft"),
        "merge_commit": (node.get("mergeCommit") or {}).get("oid"),
        "comments_count": (
            _count(comments.get("totalCount"), "comments", number)
            if isinstance(comments, dict)
            else None
        ),
        "files": None
        if files is None
        else [
            {
                "path": f.get("path"),
                "additions": _count(f.get("additions"), "files.additions", number),
                "deletions": _count(f.get("deletions"), "files.deletions", number),
                "change_type": f.get("changeType"),
            }
            for f in files
        ],
        "labels": None if labels is None else [label.get("name") for label in labels],
        "reviews": None
        if reviews is None
        else [
            {
                "state": r.get("state"),
                "author": _login(r.get("author")),
                "submitted_at": parse_timestamp(r.get("submittedAt"), "submittedAt", number),
            }
            for r in reviews
        ],
        "review_threads": None if threads is None else [_thread(t) for t in threads],
    }


def _thread(thread: dict) -> dict:
    first = (_nodes(thread.get("comments")) or [{}])[0]
    return {
        "is_resolved": thread.get("isResolved"),
        "is_outdated": thread.get("isOutdated"),
        "path": thread.get("path"),
        "author": _login(first.get("author")),
        "body": first.get("body"),
    }


def partition_dir(lake_dir: Location, repo: str, week_start: date) -> Location:
    return join(
        lake_dir,
        "raw",
        "pull_requests",
        f"repo={repo_slug(repo)}",
        f"week={week_start.isoformat()}",
    )


def write_partition(
    lake_dir: Location, repo: str, week_start: date, rows: Iterable[dict]
) -> Location:
    """Write one week's rows atomically: a temporary file renamed over `data.parquet`.

    Readers see either the previous file or the new one. An empty week still gets a file (with
    zero rows), so "extracted, nothing merged" differs from "never extracted".
    """
    ordered = sorted(rows, key=lambda r: r["number"])
    numbers = [r["number"] for r in ordered]
    if len(numbers) != len(set(numbers)):
        dupes = sorted({n for n in numbers if numbers.count(n) > 1})
        raise SourceDataError(f"{repo} week {week_start}: duplicate PR numbers {dupes[:10]}")
    table = pa.Table.from_pylist(ordered, schema=PULL_REQUEST_SCHEMA)
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, compression="zstd")
    target = join(partition_dir(lake_dir, repo, week_start), "data.parquet")
    write_bytes(target, buffer.getvalue().to_pybytes())
    return target


def lake_glob(lake_dir: Location) -> str:
    """The glob DuckDB reads for the raw pull requests source."""
    return str(join(lake_dir, "raw", "pull_requests", "*", "*", "data.parquet"))
