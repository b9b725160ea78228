"""The whole verl history end to end: `prweekly build` from the `file` source to the reports.

`python -m bench.backfill [--runs N] [--record]` runs the CLI in a child process on a fresh
`PRWEEKLY_HOME` each time (Dagster run included) and reports the wall time, the child's CPU
time (user + system: what the run costs when others' load stretches its wall time), the load
average before it and the child's peak resident memory, with the date; `--record` writes them
into `bench/results.json` under `backfill` (the other benches' figures are left as they are).
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
from datetime import UTC, datetime
from pathlib import Path

from bench.extract import DEFAULT_DATASET

REPO = "verl-project/verl"
FIRST_WEEK = "2024-10-28"
LAST_WEEK = "2026-08-17"
RESULTS = Path(__file__).resolve().parent / "results.json"
REPORT_WEEK = "2026-07-20"  # a busy week (23 PRs)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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
        load = round(os.getloadavg()[0], 1)
        began, cpu = time.perf_counter(), _children_cpu()
        subprocess.run(command, env=env, check=True, capture_output=True)
        seconds, cpu = time.perf_counter() - began, _children_cpu() - cpu
        reports = len(list((home / "reports").rglob("*.html")))
        figures = {
            "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu, 1),
            "load_before": load,
            "reports_html": reports,
        }
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
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu_count": os.cpu_count(),
        "repo": REPO,
        "weeks": f"{FIRST_WEEK}..{LAST_WEEK}",
        "runs": runs,
        "seconds": statistics.median(r["seconds"] for r in results),
        "all_seconds": [r["seconds"] for r in results],
        "cpu_seconds": statistics.median(r["cpu_seconds"] for r in results),
        "load_before": [r["load_before"] for r in results],
        "peak_mib": round(peak_mib, 1),
        "reports_html": results[0]["reports_html"],
        "report_week": REPORT_WEEK,
        "report_ms": results[0]["report"]["median_ms"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.backfill", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--record", action="store_true", help="write the figures into bench/results.json"
    )
    args = parser.parse_args(argv)
    if not args.dataset.is_file():
        parser.error(f"dataset {args.dataset} not found")
    figures = run(args.dataset, args.runs)
    if args.record:
        saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        saved["backfill"] = figures
        RESULTS.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
