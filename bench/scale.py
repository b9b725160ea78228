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
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
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
    return home, json.loads(marker.read_text()), json.loads(compacted.read_text())


@contextmanager
def week_files_only(home: Path) -> Iterator[None]:
    """The lake as an older prweekly left it: its compacted copies moved aside for a while."""
    from orchestration.lake.layout import COMPACTED_DIR

    copies = home.joinpath("lake", *COMPACTED_DIR)
    aside = home / "compacted-aside"
    copies.rename(aside)
    try:
        yield
    finally:
        aside.rename(copies)


# --- steps, each run in a child process (`python -m bench.scale _step ...`) -------------------


def _peak_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _cpu() -> float:
    """This process's CPU time, every thread's, user and system: on a machine others share,
    what a step costs when its wall time is stretched by their load."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_cpu() -> float:
    """The CPU time of the children waited for (the description reader's workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _workers_peak_mib() -> float:
    """The largest peak resident memory of the description reader's workers still running
    (Linux's VmHWM: a child's ru_maxrss counts the parent's pages it was forked with)."""
    from orchestration.descriptions import parallel

    peaks = [0.0]
    for worker in parallel._workers:
        status = Path(f"/proc/{worker.process.pid}/status")
        if status.exists():
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]) / 1024)
    return round(max(peaks), 1)


def step_build(home: Path, warehouse: Path, week_files: bool = False) -> dict:
    """Every model, from an empty warehouse (with `week_files`, reading no compacted copy)."""
    if week_files:
        with week_files_only(home):
            return step_build(home, warehouse)
    from orchestration.config import SQL_DIR
    from orchestration.database import connect
    from orchestration.descriptions.parallel import stop_workers
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.build import build
    from orchestration.models.project import load_project
    from orchestration.warehouse.parts import full_build_parts

    project = load_project(SQL_DIR)
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        path.unlink(missing_ok=True)
    began, cpu, workers = time.perf_counter(), _cpu(), _children_cpu()
    with connect(warehouse) as conn:
        sources = lake_sources(home / "lake", home)
        built = build(conn, project, None, sources=sources, parts=full_build_parts(project))
        models = built.seconds
        (prs,) = conn.execute("select count(*) from marts.fct_pull_requests").fetchone()
    seconds = time.perf_counter() - began
    workers_peak = _workers_peak_mib()
    stop_workers()  # their CPU counts once they are waited for
    workers = _children_cpu() - workers
    return {
        "seconds": round(seconds, 3),
        # this process's and the description reader's workers' (parallel.py)
        "cpu_seconds": round(_cpu() - cpu + workers, 2),
        "workers_cpu_seconds": round(workers, 2),
        "peak_mib": _peak_mib(),
        "workers_peak_mib": workers_peak,
        "prs": prs,
        "models": models,
    }


def build_planned(conn, project, lake: Path, run_scopes: list, select: list[str], sources) -> dict:
    """The `select`ed models for `run_scopes` as a Dagster run builds them (rebuild_plan);
    each model's seconds."""
    from orchestration.database import relation_exists
    from orchestration.models.build import build
    from orchestration.warehouse.modelled_weeks import record_every_week
    from orchestration.warehouse.rebuild_plan import RebuildPlan

    if not relation_exists(conn, "runs.modelled_weeks"):  # a warehouse made by step_build
        record_every_week(conn, project, lake)
    plan = RebuildPlan(conn, project, lake, run_scopes)
    seconds: dict[str, float] = {}
    for name in select:
        model = project.models[name]
        for scope in plan.scopes(conn, model):
            built = build(conn, project, scope, select=[name], sources=sources, lookback=False)
            seconds[name] = seconds.get(name, 0.0) + built.seconds[name]
        plan.record(conn, model)
    return seconds


def step_add_week(home: Path, warehouse: Path, repo: str, week_index: int) -> dict:
    """Write one more week of `repo` and materialise every incremental model for it, as a
    Dagster run does (the week, the history no model has built, any later week extracted)."""
    from bench.generate import generate_repo, week_of
    from orchestration.config import SQL_DIR
    from orchestration.database import connect, relation_exists
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.project import load_project
    from orchestration.run_scope import RunScope
    from orchestration.warehouse.modelled_weeks import record_every_week

    project = load_project(SQL_DIR)
    week = week_of(week_index)
    began = time.perf_counter()
    generate_repo(home / "lake", repo, 1, 10, 8, first_week=week_index)
    lake_seconds = time.perf_counter() - began
    incremental = [n for n in project.order if project.models[n].materialized == "incremental"]
    with connect(warehouse) as conn:
        # a warehouse step_build made has no ledger yet: recording every week file of the lake
        # in it is this step's first time only (a Dagster build records its weeks as it goes)
        ledger = time.perf_counter()
        if not relation_exists(conn, "runs.modelled_weeks"):
            record_every_week(conn, project, home / "lake")
        ledger = time.perf_counter() - ledger
        models_began, cpu = time.perf_counter(), _cpu()
        models = build_planned(
            conn,
            project,
            home / "lake",
            [RunScope(repo, week, week)],
            incremental,
            lake_sources(home / "lake", home),
        )
        (prs,) = conn.execute(
            "select count(*) from marts.fct_pull_requests where repo = ? and week_start = ?",
            [repo, week],
        ).fetchone()
        cpu = _cpu() - cpu
        models_seconds = time.perf_counter() - models_began
    return {
        "seconds": round(time.perf_counter() - began - lake_seconds, 3),
        "models_seconds": round(models_seconds, 3),  # the plan, the models and the ledger
        "cpu_seconds": round(cpu, 2),
        "ledger_seconds": round(ledger, 3),
        "lake_write_seconds": round(lake_seconds, 3),
        "prs": prs,
        "models": models,
        "peak_mib": _peak_mib(),
    }


def step_report(warehouse: Path, repo: str, week: date, runs: int) -> dict:
    """`load_week` plus every file of the week's report, rendered in memory."""
    from orchestration.database import connect
    from orchestration.report.queries import load_week
    from orchestration.report.render import render_week

    times = []
    with connect(warehouse, read_only=True) as conn:
        for _ in range(runs + 1):  # the first run also compiles the templates
            start = time.perf_counter()
            files = render_week(load_week(conn, repo, week))
            times.append(time.perf_counter() - start)
    return {
        "first_ms": round(times[0] * 1000, 1),
        "median_ms": round(statistics.median(times[1:]) * 1000, 1),
        "files": len(files),
        "bytes": sum(len(t.encode()) for t in files.values()),
    }


def _child(step: str, *args: str) -> dict:
    """Run a step in a fresh interpreter and return its figures, with the machine's load
    average just before it (`load_before`)."""
    load = round(os.getloadavg()[0], 1)
    out = subprocess.run(
        [sys.executable, "-m", "bench.scale", "_step", step, *args],
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
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_step":
        step, *args = argv[1:]
        if step == "build":
            figures = step_build(Path(args[0]), Path(args[1]), args[2:] == ["week_files"])
        elif step == "add_week":
            figures = step_add_week(Path(args[0]), Path(args[1]), args[2], int(args[3]))
        else:
            figures = step_report(Path(args[0]), args[1], date.fromisoformat(args[2]), int(args[3]))
        print(json.dumps(figures))
        return 0
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
