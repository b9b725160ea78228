"""Requests and rate-limit points per 100 PRs for a whole history through the emulator.

`python -m bench.extract [--dataset FILE]` serves the dataset (default: the shared verl one,
`../shared/datasets/verl-project__verl/pull_requests.jsonl.gz` next to the clone) on loopback
and fetches every week of its history with `GitHubSource` in two ways: the whole range in one
`fetch` (a single-run backfill) and one `fetch` per week (one run per partition).
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

from orchestration.extract.sources.github import GitHubSource
from orchestration.testing.github_emulator import Emulator
from orchestration.weeks import monday_of

DEFAULT_DATASET = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "datasets"
    / "verl-project__verl"
    / "pull_requests.jsonl.gz"
)


def _weeks(emulator: Emulator) -> tuple[str, list[datetime]]:
    (pulls,) = emulator.dataset.repos.values()
    first = monday_of(datetime.fromtimestamp(pulls.merged_at[0], UTC).date())
    last = monday_of(datetime.fromtimestamp(pulls.merged_at[-1], UTC).date())
    start = datetime(first.year, first.month, first.day, tzinfo=UTC)
    count = (last - first).days // 7 + 2  # Mondays up to the one after the last week
    return pulls.name_with_owner, [start + timedelta(weeks=i) for i in range(count)]


def _figures(source: GitHubSource, prs: int, seconds: float) -> dict:
    stats = source.stats()
    return {
        "prs": prs,
        "requests": stats["requests"],
        "rate_limit_points": stats["rate_limit_points"],
        "requests_per_100_prs": round(100 * stats["requests"] / prs, 2),
        "points_per_100_prs": round(100 * stats["rate_limit_points"] / prs, 2),
        "wall_seconds": round(seconds, 2),
    }


def _fetch(dataset: Path, whole_range: bool) -> tuple[str, int, dict]:
    """Fetch every week, on a fresh emulator with GitHub's hourly budget of 5,000 points."""
    with Emulator(dataset) as emulator:
        repo, mondays = _weeks(emulator)
        source = GitHubSource(emulator.url, None)
        windows = [(mondays[0], mondays[-1])] if whole_range else list(pairwise(mondays))
        began = time.perf_counter()
        prs = sum(1 for start, end in windows for _ in source.fetch(repo, start, end))
        return repo, len(mondays) - 1, _figures(source, prs, time.perf_counter() - began)


def run(dataset: Path = DEFAULT_DATASET) -> dict:
    """The figures of both ways of fetching the whole history."""
    repo, weeks, whole = _fetch(dataset, whole_range=True)
    _, _, weekly = _fetch(dataset, whole_range=False)
    return {"repo": repo, "weeks": weeks, "whole_range": whole, "week_by_week": weekly}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.extract", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    args = parser.parse_args(argv)
    if not args.dataset.is_file():
        parser.error(f"dataset {args.dataset} not found")
    results = run(args.dataset)
    print(f"{results['repo']}: {results['weeks']} weeks through the emulator")
    for mode in ("whole_range", "week_by_week"):
        f = results[mode]
        print(
            f"  {mode:<13} {f['prs']} PRs, {f['requests']} requests, "
            f"{f['rate_limit_points']} points; per 100 PRs: {f['requests_per_100_prs']} "
            f"requests, {f['points_per_100_prs']} points; {f['wall_seconds']} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
