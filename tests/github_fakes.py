"""Helpers for the GitHub source and emulator tests: fake time, crafted PR nodes, a lake writer."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from orchestration.extract.sources.github import GitHubSource
from orchestration.extract.sources.nodes import to_row
from orchestration.lake.layout import write_partition

REPO = "octo-org/demo"
TOKEN = "ghp_FAKEtoken_never_print_me_0123456789"
REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
VERL = SHARED / "datasets" / "verl-project__verl" / "pull_requests.jsonl.gz"


class FakeClock:
    """Epoch time that only moves when someone sleeps; shared by client and emulator."""

    def __init__(self, start: float = 1_780_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_pr(
    number: int,
    merged_at: datetime,
    *,
    repo: str = REPO,
    files: int = 2,
    labels: int = 1,
    reviews: int = 1,
    threads: int = 1,
) -> dict:
    """A complete `PullRequest` node in the dataset's shape."""
    return {
        "number": number,
        "title": f"[trainer] feat: change {number}",
        "body": f"Body of {number}",
        "url": f"https://github.com/{repo}/pull/{number}",
        "state": "MERGED",
        "isDraft": False,
        "baseRefName": "main",
        "createdAt": iso(merged_at - timedelta(days=2)),
        "mergedAt": iso(merged_at),
        "author": {"login": f"dev{number % 7}"},
        "mergedBy": {"login": "maintainer"},
        "additions": 10 * files,
        "deletions": files,
        "changedFiles": files,
        "mergeCommit": {"oid": f"{number:040x}"},
        "comments": {"totalCount": number % 5},
        "files": {
            "totalCount": files,
            "nodes": [
                {"path": f"pkg/m{i}.py", "additions": 10, "deletions": 1, "changeType": "MODIFIED"}
                for i in range(files)
            ],
        },
        "labels": {"totalCount": labels, "nodes": [{"name": f"label-{i}"} for i in range(labels)]},
        "reviews": {
            "totalCount": reviews,
            "nodes": [
                {
                    "state": "APPROVED",
                    "author": {"login": f"reviewer{i}"},
                    "submittedAt": iso(merged_at - timedelta(hours=1)),
                }
                for i in range(reviews)
            ],
        },
        "reviewThreads": {
            "totalCount": threads,
            "nodes": [
                {
                    "isResolved": i % 2 == 0,
                    "isOutdated": False,
                    "path": "pkg/m0.py",
                    "comments": {"nodes": [{"author": {"login": "reviewer0"}, "body": f"nit {i}"}]},
                }
                for i in range(threads)
            ],
        },
    }


def week_of_prs(monday: datetime, count: int, first_number: int = 1, **shape) -> list[dict]:
    """`count` PRs spread evenly over the week starting at `monday`."""
    step = timedelta(days=7) / (count + 1)
    return [make_pr(first_number + i, monday + step * (i + 1), **shape) for i in range(count)]


def source_for(emulator, clock: FakeClock, token: str | None = TOKEN, **options) -> GitHubSource:
    options.setdefault("log", lambda _line: None)
    options.setdefault("seed", 1)
    return GitHubSource(emulator.url, token, sleep=clock.sleep, clock=clock.time, **options)


def extract(source, lake: Path, repo: str, start: datetime, end: datetime) -> list[Path]:
    """What the extract asset does: fetch the whole range, then write one partition per week."""
    by_week: dict = defaultdict(list)
    for node in source.fetch(repo, start, end):
        row = to_row(node, repo)
        by_week[row["week_start"]].append(row)
    return [write_partition(lake, repo, week, rows) for week, rows in sorted(by_week.items())]
