"""The steps of `bench.scale`, each run in a fresh child process
(`python -m bench.scale_steps build|add_week|report ARGS...`) so that its peak memory
(`ru_maxrss`) and CPU time belong to the step alone; each prints its figures as one JSON line.
`bench.monday`, `bench.monday_home` and `bench.dbt_ratio` call `step_build` and `build_planned`
in their own processes."""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path


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


class _ModelPeaks:
    """The highest resident memory of this process while each model builds (sampled every
    20 ms; a model is the one whose relation the build last said it writes)."""

    def __init__(self) -> None:
        self.current = "(seeds)"
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def before_write(self, relation: str, *_: object) -> None:
        self.current = relation.rpartition(".")[2]

    def _run(self) -> None:
        page = os.sysconf("SC_PAGE_SIZE") / 2**20
        while not self._stop.wait(0.02):
            with open("/proc/self/statm") as statm:
                rss = int(statm.read().split()[1]) * page
            self.peaks[self.current] = round(max(self.peaks.get(self.current, 0.0), rss))

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return self.peaks


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
    peaks = _ModelPeaks()
    began, cpu, workers = time.perf_counter(), _cpu(), _children_cpu()
    with connect(warehouse) as conn:
        sources = lake_sources(home / "lake", home)
        parts = full_build_parts(project)
        built = build(
            conn, project, None, sources=sources, parts=parts, before_write=peaks.before_write
        )
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
        "models_peak_mib": peaks.stop(),
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
        scopes = plan.scopes(conn, model)
        # recorded with its rows when it builds one scope, as the asset does
        with_write = (lambda _, m=model: plan.record_within(conn, m)) if len(scopes) == 1 else None
        for scope in scopes:
            built = build(
                conn,
                project,
                scope,
                select=[name],
                sources=sources,
                lookback=False,
                with_write=with_write,
            )
            seconds[name] = seconds.get(name, 0.0) + built.seconds[name]
        if with_write is None:
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


def main(argv: list[str] | None = None) -> int:
    step, *args = sys.argv[1:] if argv is None else argv
    if step == "build":
        figures = step_build(Path(args[0]), Path(args[1]), args[2:] == ["week_files"])
    elif step == "add_week":
        figures = step_add_week(Path(args[0]), Path(args[1]), args[2], int(args[3]))
    else:
        figures = step_report(Path(args[0]), args[1], date.fromisoformat(args[2]), int(args[3]))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
