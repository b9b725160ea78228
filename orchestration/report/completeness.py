"""GitHub's own count of a week's merged PRs, as the extract stored it in the week's Parquet file.

The `github` source checks every window it searched against GitHub's `issueCount` and writes the
week's count and the time GitHub gave it into the file's key-value metadata. A week read from a
file (or by a prweekly before the count was kept) has none: its completeness is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import pyarrow.parquet as pq

from orchestration.lake.layout import partition_dir
from orchestration.storage import Location, filesystem_of, join

COUNT_KEY = b"prweekly.github_issue_count"
COUNTED_AT_KEY = b"prweekly.github_counted_at"


@dataclass(frozen=True)
class GitHubCount:
    merged: int
    counted_at: datetime  # UTC


def github_count(lake_dir: Location, repo: str, week: date) -> GitHubCount | None:
    """The count stored with the week's rows; None when the week has none (or no file)."""
    filesystem, path, _ = filesystem_of(join(partition_dir(lake_dir, repo, week), "data.parquet"))
    try:
        metadata = pq.read_metadata(path, filesystem=filesystem).metadata or {}
    except (FileNotFoundError, OSError):
        return None
    if COUNT_KEY not in metadata or COUNTED_AT_KEY not in metadata:
        return None
    counted_at = datetime.fromisoformat(metadata[COUNTED_AT_KEY].decode().replace("Z", "+00:00"))
    return GitHubCount(int(metadata[COUNT_KEY]), counted_at.replace(tzinfo=None))
