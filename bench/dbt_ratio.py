"""The runner against dbt-duckdb on the same lakes, one after the other in one run.

`python -m bench.dbt_ratio [--case verl|million] [--runs N] [--verl-runs N] [--no-compare]`
builds every model of `sql/` from an empty warehouse twice per run, each in a fresh child
process: with the model runner (`orchestration.models.build.build`, as the Dagster assets call
it) and with `dbt build` of the same seeds and models (no data tests; the project's shims,
docs/runner.md). Both read what a full build reads, through the runner's own source hooks.
Then:

- **one week**: the runner's one-week run on the warehouse it built (every incremental model
  for one repository's last week, planned as a Dagster run plans it, the ledger of modelled
  weeks recorded beforehand); dbt has no partitions, so its run of one week is a full build,
  and the least a dbt invocation costs is shown as `dbt_floor` (parse the project, connect,
  list the lake, one small model);
- **same rows**: every model and seed of the two warehouses compared row for row
  (`bench/dbt_check.py`), unless `--no-compare`.

Cases: `verl` is the shared verl history (`../shared/datasets/`), its lake written once by
`prweekly build` under `bench/.work/dbt-verl/`; `million` is the scale bench's generated lake
of 1,000 repositories x 100 weeks x 10 PRs (`bench/scale.py`; about 6 minutes to generate the
first time). Figures go to `bench/results.json` under `dbt_ratio`, with the date.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

from bench import dbt_check, scale, scale_steps
from bench.backfill import FIRST_WEEK, LAST_WEEK
from bench.backfill import REPO as VERL_REPO
from bench.extract import DEFAULT_DATASET

RESULTS = Path(__file__).resolve().parent / "results.json"
VERL_HOME = scale.WORK_DIR / "dbt-verl"


def verl_home(dataset: Path = DEFAULT_DATASET, log=print) -> Path:
    """A home whose lake holds the whole verl history (written once, then reused)."""
    home = VERL_HOME / "home"
    marker = VERL_HOME / "built.json"
    if not marker.exists():
        log(f"writing the verl lake: prweekly build {FIRST_WEEK}..{LAST_WEEK} ...")
        env = {**os.environ, "PRWEEKLY_HOME": str(home)}
        for name in ("DAGSTER_HOME", "PRWEEKLY_SOURCE", "PRWEEKLY_LAKE_URI", "GITHUB_TOKEN"):
            env.pop(name, None)
        command = [sys.executable, "-m", "orchestration.service.cli", "build", "--repo", VERL_REPO]
        command += ["--week", FIRST_WEEK, "--to", LAST_WEEK, "--source", f"file:{dataset}"]
        subprocess.run(command, env=env, check=True, capture_output=True)
        marker.write_text(json.dumps({"when": datetime.now(UTC).isoformat()}))
    return home


# --- steps, each in a child process (`python -m bench.dbt_ratio _step ...`) -------------------


def step_dbt(home: Path, database: Path, work: Path, select: str = "") -> dict:
    """`dbt build` of the seeds and models (or only `select`); its peak memory too."""
    figures = dbt_check.dbt_build(home, database, work, tests=False, select=select or None)
    figures["peak_mib"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return figures


def step_week(home: Path, warehouse: Path, repo: str, week: date) -> dict:
    """The runner's one-week run of every incremental model on the warehouse it built."""
    from orchestration.config import SQL_DIR
    from orchestration.database import connect, relation_exists
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.project import load_project
    from orchestration.run_scope import RunScope
    from orchestration.warehouse.modelled_weeks import record_every_week

    project = load_project(SQL_DIR)
    lake = home / "lake"
    incremental = [n for n in project.order if project.models[n].materialized == "incremental"]
    with connect(warehouse) as conn:
        if not relation_exists(conn, "runs.modelled_weeks"):  # what a Dagster build leaves
            record_every_week(conn, project, lake)
        began = time.perf_counter()
        models = scale_steps.build_planned(
            conn, project, lake, [RunScope(repo, week, week)], incremental, lake_sources(lake, home)
        )
        seconds = time.perf_counter() - began
    return {"seconds": round(seconds, 3), "models": models}


def _child(step: str, *args: str) -> dict:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bench.dbt_ratio", "_step", step, *args],
        capture_output=True,
        text=True,
        cwd=dbt_check.ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench step {step} failed:\n{done.stderr[-4000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["process_seconds"] = round(time.perf_counter() - began, 3)
    return figures


def _runner_build(home: Path, warehouse: Path) -> dict:
    began = time.perf_counter()
    figures = scale._child("build", str(home), str(warehouse))
    figures["process_seconds"] = round(time.perf_counter() - began, 3)
    return figures


# --- the bench -------------------------------------------------------------------------------


def _median(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["process_seconds"])[len(runs) // 2]


def run_case(home: Path, repo: str, week: date, runs: int, compare: bool, log=print) -> dict:
    """Both engines over `home`'s lake, `runs` times each, alternating; then one week."""
    work = home.parent / "dbt-ratio"
    work.mkdir(exist_ok=True)
    runner_db, dbt_db = work / "runner.duckdb", work / "dbt.duckdb"
    runner_runs, dbt_runs = [], []
    for i in range(runs):
        log(f"  full build {i + 1}/{runs}: runner ...")
        for path in (runner_db, runner_db.with_name(runner_db.name + ".wal")):
            path.unlink(missing_ok=True)
        runner_runs.append(_runner_build(home, runner_db))
        log(f"  full build {i + 1}/{runs}: dbt ...")
        dbt_runs.append(_child("dbt", str(home), str(dbt_db), str(work)))
    runner, dbt = _median(runner_runs), _median(dbt_runs)
    log("  dbt floor: one small model ...")
    floor = _child("dbt", str(home), str(dbt_db), str(work), "stg_weekly_partitions")
    log(f"  one week ({repo} {week}): runner ...")
    week_figures = _child("week", str(home), str(runner_db), repo, week.isoformat())
    figures = {
        "prs": runner["prs"],
        "runs": runs,
        "runner_seconds": runner["process_seconds"],
        "runner_models_seconds": runner["seconds"],
        "runner_peak_mib": max(r["peak_mib"] for r in runner_runs),
        "runner_all_seconds": [r["process_seconds"] for r in runner_runs],
        "dbt_seconds": dbt["process_seconds"],
        "dbt_models_seconds": round(sum(dbt["models"].values()), 3),
        "dbt_peak_mib": max(r["peak_mib"] for r in dbt_runs),
        "dbt_all_seconds": [r["process_seconds"] for r in dbt_runs],
        "ratio": round(dbt["process_seconds"] / runner["process_seconds"], 2),
        "models_ratio": round(sum(dbt["models"].values()) / runner["seconds"], 2),
        "dbt_floor_seconds": floor["process_seconds"],
        # of dbt's time, the plugin's: the runner's hooks listing and checking the lake
        "dbt_sources_seconds": dbt["sources_seconds"],
        "week": {"repo": repo, "week": week.isoformat(), **week_figures},
        "week_ratio": round(dbt["process_seconds"] / week_figures["seconds"], 1),
        "models": {
            name: {"runner": seconds, "dbt": dbt["models"].get(name)}
            for name, seconds in runner["models"].items()
        },
    }
    if compare:
        log("  comparing every model's rows ...")
        found = dbt_check.compare(runner_db, dbt_db, dbt_check.relations())
        figures["rows_compared"] = sum(c.runner_rows or 0 for c in found)
        figures["relations_differing"] = [c.relation for c in found if not c.same]
    return figures


def run(cases: list[str], runs: int, compare: bool = True, log=print, verl_runs: int = 3) -> dict:
    """Each case's figures; the million `runs` times, verl (a few seconds) `verl_runs`."""
    results: dict = {"when": datetime.now(UTC).strftime("%Y-%m-%d"), "cpu_count": os.cpu_count()}
    for case in cases:
        if case == "verl":
            if not DEFAULT_DATASET.is_file():
                log("verl: not available (the shared verl dataset is not beside the clone)")
                continue
            log("verl: the whole shared history")
            home = verl_home(log=log)
            week = date.fromisoformat(LAST_WEEK)
            results["verl"] = run_case(home, VERL_REPO, week, verl_runs, compare, log)
        else:
            repos, weeks, prs = scale.SCALES["full"]
            home, _, _ = scale.ensure_lake(repos, weeks, prs, log=log)
            from bench.generate import repo_names, week_of

            log(f"million: {repos} x {weeks} x {prs} generated")
            week = week_of(weeks - 1)
            results["million"] = run_case(home, repo_names(repos)[0], week, runs, compare, log)
    return results


def rows(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """(figure, value, target, met) for bench's table."""
    found: list[tuple[str, str, str, bool | None]] = []
    for case in ("verl", "million"):
        r = results.get(case)
        if not r:
            continue
        label = f"{case} ({r['prs']:,} PRs)"
        found.append(
            (f"dbt / runner, all models, {label}", f"{r['ratio']:.2f}x", "", None),
        )
        found.append(("  runner, process", f"{r['runner_seconds']:.1f} s", "", None))
        found.append(("  dbt build, process", f"{r['dbt_seconds']:.1f} s", "", None))
        floor = f"{r['dbt_floor_seconds']:.1f} s"
        found.append(("  dbt, least one invocation costs", floor, "", None))
        found.append(("  runner, one week's models", f"{r['week']['seconds']:.2f} s", "", None))
        if "relations_differing" in r:
            differing = len(r["relations_differing"])
            found.append(("  relations whose rows differ", str(differing), "0", differing == 0))
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_step":
        step, *args = argv[1:]
        if step == "dbt":
            figures = step_dbt(Path(args[0]), Path(args[1]), Path(args[2]), *args[3:])
        else:
            figures = step_week(Path(args[0]), Path(args[1]), args[2], date.fromisoformat(args[3]))
        print(json.dumps(figures))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.dbt_ratio", description=__doc__)
    parser.add_argument("--case", choices=["verl", "million"], action="append")
    parser.add_argument("--runs", type=int, default=1, help="full builds of the million")
    parser.add_argument("--verl-runs", type=int, default=3, help="full builds of verl")
    parser.add_argument("--no-compare", action="store_true")
    args = parser.parse_args(argv)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    cases = args.case or ["verl", "million"]
    figures = run(cases, args.runs, not args.no_compare, log, args.verl_runs)
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    saved["dbt_ratio"] = {**saved.get("dbt_ratio", {}), **figures}
    RESULTS.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    for name, value, target, met in rows(figures):
        mark = "" if met is None else ("yes" if met else "NO")
        print(f"{name:<60} {value:>10} {target:>6} {mark}")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
