"""The whole verl history end to end: `prweekly build` from the `file` source to the reports.

`python -m bench.backfill [--runs N]` runs the CLI in a child process on a fresh
`PRWEEKLY_HOME` each time (Dagster run included) and reports the wall time and the child's
peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.extract import DEFAULT_DATASET

REPO = "verl-project/verl"
FIRST_WEEK = "2024-10-28"
LAST_WEEK = "2026-08-17"
REPORT_WEEK = "2026-07-20"  # a busy week (23 PRs)


def _one_run(dataset: Path, report_runs: int = 0) -> dict:
    """One backfill; with `report_runs`, also time one week's report on the result."""
    home = Path(tempfile.mkdtemp(prefix="prweekly-backfill-"))
    try:
        env = {**os.environ, "PRWEEKLY_HOME": str(home)}
        env.pop("DAGSTER_HOME", None)
        command = [
            *(sys.executable, "-m", "orchestration.service.cli", "build"),
            *("--repo", REPO, "--week", FIRST_WEEK, "--to", LAST_WEEK),
            *("--source", f"file:{dataset}"),
        ]
        began = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        seconds = time.perf_counter() - began
        reports = len(list((home / "reports").rglob("*.html")))
        figures = {"seconds": round(seconds, 2), "reports_html": reports}
        if report_runs:
            from bench.scale import _child

            warehouse = str(home / "warehouse.duckdb")
            figures["report"] = _child("report", warehouse, REPO, REPORT_WEEK, str(report_runs))
        return figures
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run(dataset: Path = DEFAULT_DATASET, runs: int = 3) -> dict:
    """Median wall time of `runs` backfills and the largest peak memory among them."""
    results = [_one_run(dataset, report_runs=runs if i == 0 else 0) for i in range(runs)]
    # ru_maxrss of the children is the largest of any child waited for: the CLI's peak
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "repo": REPO,
        "weeks": f"{FIRST_WEEK}..{LAST_WEEK}",
        "runs": runs,
        "seconds": statistics.median(r["seconds"] for r in results),
        "all_seconds": [r["seconds"] for r in results],
        "peak_mib": round(peak_mib, 1),
        "reports_html": results[0]["reports_html"],
        "report_week": REPORT_WEEK,
        "report_ms": results[0]["report"]["median_ms"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.backfill", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    if not args.dataset.is_file():
        parser.error(f"dataset {args.dataset} not found")
    print(json.dumps(run(args.dataset, args.runs), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
