"""The pull requests the emulator serves, indexed by repository and `mergedAt`.

Each node's repository comes from its `url` (`https://github.com/OWNER/NAME/pull/N`), so one
emulator can serve several repositories. Nodes are kept sorted by merge time, which makes a
`merged:` range a pair of binary searches however large the dataset is.
"""

from __future__ import annotations

import bisect
import gzip
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

_PR_URL = re.compile(r"/([^/]+)/([^/]+)/pull/(\d+)/?$")


def to_epoch(value: str) -> float:
    """GitHub timestamps (`2026-07-20T10:00:00Z`) as seconds since the epoch."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


@dataclass
class RepoPulls:
    """One repository's merged pull requests, sorted by merge time."""

    name_with_owner: str
    merged_at: list[float] = field(default_factory=list)
    nodes: list[dict] = field(default_factory=list)
    by_number: dict[int, dict] = field(default_factory=dict)

    def merged_between(self, low: float, high: float) -> list[dict]:
        """Nodes with `low <= mergedAt <= high` (GitHub's `merged:A..B` is inclusive)."""
        first = bisect.bisect_left(self.merged_at, low)
        last = bisect.bisect_right(self.merged_at, high)
        return self.nodes[first:last]


class Dataset:
    """Pull request nodes grouped by repository (case-insensitive, as on GitHub)."""

    def __init__(self, nodes: Iterable[dict]) -> None:
        grouped: dict[str, list[tuple[float, dict]]] = {}
        names: dict[str, str] = {}
        for node in nodes:
            match = _PR_URL.search(node.get("url") or "")
            if not match or not node.get("mergedAt"):
                raise ValueError(f"PR #{node.get('number')}: needs a GitHub PR url and mergedAt")
            repo = f"{match.group(1)}/{match.group(2)}"
            names.setdefault(repo.lower(), repo)
            grouped.setdefault(repo.lower(), []).append((to_epoch(node["mergedAt"]), node))
        self.repos: dict[str, RepoPulls] = {}
        for key, items in grouped.items():
            items.sort(key=lambda item: (item[0], item[1]["number"]))
            pulls = RepoPulls(names[key])
            pulls.merged_at = [t for t, _ in items]
            pulls.nodes = [n for _, n in items]
            pulls.by_number = {n["number"]: n for n in pulls.nodes}
            self.repos[key] = pulls
        self.moved: dict[str, str] = {}  # an old name (lower case) -> the repository's now
        self.search_follows_moves = False

    def move(self, old: str, new: str, search_follows: bool = False) -> None:
        """`new` was called `old` (renamed, or transferred to another owner): GitHub's
        `repository(owner, name)` follows the old name to it (`followRenames`); its search
        finds it by the old name only when `search_follows` says so."""
        self.moved[old.lower()] = new.lower()
        self.search_follows_moves = search_follows

    def repo(self, name_with_owner: str, follow: bool = False) -> RepoPulls | None:
        key = name_with_owner.lower()
        if key not in self.repos and follow:
            key = self.moved.get(key, key)
        return self.repos.get(key)

    def __len__(self) -> int:
        return sum(len(p.nodes) for p in self.repos.values())

    @classmethod
    def from_files(cls, paths: Iterable[Path]) -> Dataset:
        return cls(node for path in paths for node in read_nodes(path))


def read_nodes(path: Path) -> list[dict]:
    """JSON lines of `PullRequest` nodes, plain or gzip-compressed."""
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
