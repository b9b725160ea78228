"""Cost at scale: every model over a generated lake, one more week, one report.

`python -m bench.scale [--scale full|medium|small] [--runs N] [--record]` generates (once,
then reuses) a lake of repositories × weeks × PRs under `bench/.work/` and measures, each in a
fresh child process so that peak memory (`ru_maxrss`) belongs to the step alone:

- **compact**: each repository's weeks into one file, as the extract keeps them over time
  (`orchestration/lake/compaction.py`), timed once after generating;
- **build**: every SQL model in dependency order over the whole lake, from an empty warehouse
  (seeds loaded, incremental models built from scratch), through the model runner that the
  Dagster assets call (`orchestration.models.build.build`); then once more from the week
  files alone, as for a lake an older prweekly wrote;
- **add week**: one more week for one repository written to the lake, then every incremental
  model materialised for that repository and week, as a one-week build does. The first after
  a build also records every week file in the modelled-weeks ledger and is reported apart;
  the figure is the median of the `--runs` after it;
- **report**: `load_week` and rendering both languages in Markdown and HTML (and the chart)
  for one week.

Each step gives its wall time, its CPU time (user + system of every thread: what it costs
when other work on the machine stretches the wall time) and the load average before it.
`--record` writes the scale's figures into `bench/results.json` in place of its earlier ones.

Sizes: `full` is 1,000 repositories × 100 weeks × 10 PRs (one million PRs); `small` is
10 × 100 × 10 (ten thousand), which also serves as the history-size comparison for add week.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

WORK_DIR = Path(__file__).resolve().parent / ".work"
RESULTS = Path(__file__).resolve().parent / "results.json"
SCALES = {"full": (1000, 100, 10), "medium": (100, 100, 10), "small": (10, 100, 10)}


def lake_home(repos: int, weeks: int, prs: int) -> Path:
    return WORK_DIR / f"lake-{repos}x{weeks}x{prs}"


def ensure_lake(repos: int, weeks: int, prs: int, log=print) -> tuple[Path, dict, dict]:
    """The generated lake, written and then compacted on first use; `generated.json` and
    `compacted.json` say how long each took."""
    from bench.generate import compact, generate

    home = lake_home(repos, weeks, prs)
    marker = home / "generated.json"
    if not marker.exists():
        log(f"generating {repos} repos x {weeks} weeks x {prs} PRs under {home.name} ...")
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        marker.write_text(json.dumps(generate(home, repos, weeks, prs)))
    compacted = home / "compacted.json"
    if not compacted.exists():
        log(f"compacting {repos} repos ({repos * weeks:,} week files) ...")
        compacted.write_text(json.dumps(compact(home, repos)))
    else:
        # A copy is read only while its week files keep the size and time stamp it recorded:
        # a lake whose files were touched or copied since (new time stamps) would be built
        # from its 100,000 week files (42 s for stg_pull_requests at a million PRs instead of
        # 4 s), so remake the stale copies as the extract would (3 s when none is stale).
        again = compact(home, repos)
        if again["weeks"]:
            log(f"remade stale compacted copies ({again['weeks']:,} weeks, {again['seconds']} s)")
    return home, json.loads(marker.read_text()), json.loads(compacted.read_text())


def _child(step: str, *args: str) -> dict:
    """Run a step in a fresh interpreter and return its figures, with the machine's load
    average just before it (`load_before`)."""
    load = round(os.getloadavg()[0], 1)
    out = subprocess.run(
        [sys.executable, "-m", "bench.scale_steps", step, *args],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    if out.returncode != 0:  # show why: the child's traceback, not only its exit status
        raise RuntimeError(f"bench step {step} failed:\n{out.stderr[-4000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "load_before": load}


# --- the bench -------------------------------------------------------------------------------


def _median_of(runs: list[dict], key: str) -> dict:
    return sorted(runs, key=lambda r: r[key])[len(runs) // 2]


def run(
    scale: str = "full",
    runs: int = 3,
    build_runs: int | None = None,
    week_files: bool = True,
    log=print,
) -> dict:
    """Every figure of one scale; medians of `runs` (of `build_runs` for the full build).

    The first add-week after a build also records every week file of the lake in the
    modelled-weeks ledger (a Dagster build records its weeks as it goes): it is reported apart
    (`add_week_first_*`, `add_week_ledger_seconds`); `add_week_seconds` is the median of the
    `runs` add-weeks after it, each replacing the same week: one Monday's models."""
    repos, weeks, prs = SCALES[scale]
    home, generated, compacted = ensure_lake(repos, weeks, prs, log=log)
    warehouse = home / "warehouse.duckdb"
    build_runs = build_runs or runs
    builds = []
    for i in range(build_runs):
        log(f"  build {i + 1}/{build_runs} ({repos * weeks * prs:,} PRs) ...")
        builds.append(_child("build", str(home), str(warehouse)))
        log(f"    {builds[-1]['seconds']:.1f} s, {builds[-1]['cpu_seconds']:.1f} s CPU, "
            f"{builds[-1]['peak_mib']:.0f} MiB, load {builds[-1]['load_before']}")  # fmt: skip
    uncompacted = None
    if week_files:
        log(f"  build from week files only, as before compaction ({repos * weeks:,} files) ...")
        uncompacted = _child("build", str(home), str(warehouse), "week_files")
    from bench.generate import repo_names, week_of

    repo = repo_names(repos)[0]
    adds = []
    for i in range(runs + 1):  # the first adds the week, the others replace it: the same work
        log(f"  add week {i + 1}/{runs + 1} ...")
        adds.append(_child("add_week", str(home), str(warehouse), repo, str(weeks)))
    first, later = adds[0], adds[1:]
    report = _child("report", str(warehouse), repo, week_of(weeks - 1).isoformat(), str(runs))
    median_build = _median_of(builds, "seconds")
    median_add = _median_of(later, "seconds")
    figures = {
        "scale": scale,
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu_count": os.cpu_count(),
        "repos": repos,
        "weeks": weeks,
        "prs_per_week": prs,
        "prs": median_build["prs"],
        "lake_files": repos * weeks,
        "generate_seconds": generated["seconds"],
        "compact_seconds": compacted["seconds"],
        "build_runs": build_runs,
        "build_seconds": statistics.median(b["seconds"] for b in builds),
        "build_cpu_seconds": statistics.median(b["cpu_seconds"] for b in builds),
        "build_workers_cpu_seconds": statistics.median(b["workers_cpu_seconds"] for b in builds),
        "build_peak_mib": max(b["peak_mib"] for b in builds),
        "build_workers_peak_mib": max(b["workers_peak_mib"] for b in builds),
        "build_each": [
            {k: b[k] for k in ("seconds", "cpu_seconds", "peak_mib", "load_before")} for b in builds
        ],
        "build_models": median_build["models"],
        # the peak resident memory while each model built, of the build that peaked highest
        "build_models_peak_mib": max(builds, key=lambda b: b["peak_mib"]).get("models_peak_mib"),
        "add_week_runs": runs,
        "add_week_seconds": median_add["seconds"],
        "add_week_models_seconds": median_add["models_seconds"],
        "add_week_cpu_seconds": median_add["cpu_seconds"],
        "add_week_load_before": [a["load_before"] for a in later],
        "add_week_models": median_add["models"],
        "add_week_first_seconds": first["seconds"],
        "add_week_ledger_seconds": first["ledger_seconds"],
        "report_ms": report["median_ms"],
        "report_first_ms": report["first_ms"],
        "report_files": report["files"],
    }
    if uncompacted:
        figures["build_week_files_seconds"] = uncompacted["seconds"]
        figures["build_week_files_cpu_seconds"] = uncompacted["cpu_seconds"]
        figures["build_week_files_models"] = uncompacted["models"]
    return figures


def record(figures: dict, results: Path = RESULTS) -> None:
    """Put one scale's figures into bench/results.json in place of that scale's earlier ones
    (the other benches' figures are left as they are, with their own dates)."""
    found = json.loads(results.read_text()) if results.exists() else {}
    others = [s for s in found.get("scale", []) if s.get("scale") != figures["scale"]]
    order = list(SCALES)[::-1]  # small, medium, full
    found["scale"] = sorted([*others, figures], key=lambda s: order.index(s["scale"]))
    results.write_text(json.dumps(found, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    parser.add_argument("--scale", choices=sorted(SCALES), default="full")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--build-runs", type=int, default=None)
    parser.add_argument(
        "--no-week-files", action="store_true", help="skip the build from the week files alone"
    )
    parser.add_argument(
        "--record", action="store_true", help="write the figures into bench/results.json"
    )
    args = parser.parse_args(argv)
    figures = run(args.scale, args.runs, args.build_runs, not args.no_week_files)
    if args.record:
        record(figures)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
