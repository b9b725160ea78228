"""The Monday run's models: many repositories in one pass against one run per repository.

`python -m bench.monday [--repos 100] [--weeks 1] [--history 52] [--prs 30] [--sample 10]`
generates a lake of `--repos` repositories holding `--history` weeks of `--prs` PRs each, builds
every model over it (the warehouse a deployment holds), then writes `--weeks` new weeks for
every repository and materialises every incremental model for them, as the weekly job does
(the weeks, the history before them, through the last extracted week):

- **one pass**: one scope naming every repository (`prweekly build --all`);
- **per repository**: one scope per repository, as one run per repository does, timed on the
  first `--sample` repositories of a copy of the same warehouse and scaled to all of them.

Only the models are timed (no Dagster, no extract, no report): the part of the run whose cost
grew with the number of repositories. Both end with the same rows (checked on the sample).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time

from bench.scale import WORK_DIR, ensure_lake
from bench.scale_steps import build_planned, step_build


def _incremental(project) -> list[str]:
    return [n for n in project.order if project.models[n].materialized == "incremental"]


def _rows(conn, repos: list[str]) -> list[tuple]:
    return conn.execute(
        "select * from marts.fct_weekly_summary where repo in (select unnest(?)) order by all",
        [repos],
    ).fetchall()


def run(repos: int, weeks: int, history: int, prs: int, sample: int, log=print) -> dict:
    from bench.generate import generate_repo, repo_names, week_of
    from orchestration.config import SQL_DIR
    from orchestration.database import connect
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.project import load_project
    from orchestration.run_scope import RunScope

    home, generated, _ = ensure_lake(repos, history, prs, log)
    base = WORK_DIR / f"monday-{repos}x{history}x{prs}.duckdb"
    if not base.exists():
        log(f"building every model over {generated['prs']:,} PRs ...")
        step_build(home, base)
    work = home / "monday"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    lake = work / "lake"
    shutil.copytree(home / "lake", lake)
    names = repo_names(repos)
    began = time.perf_counter()
    for name in names:
        generate_repo(lake, name, weeks, prs, 8, first_week=history)
    log(f"wrote {weeks} new week(s) of {repos} repositories: {time.perf_counter() - began:.1f} s")
    first, last = week_of(history), week_of(history + weeks - 1)
    run_scopes = [RunScope(n, first, last) for n in names]
    project = load_project(SQL_DIR)
    select = _incremental(project)
    sources = lake_sources(lake, work)

    one_pass, per_repo = work / "one.duckdb", work / "per.duckdb"
    shutil.copy(base, one_pass)
    shutil.copy(base, per_repo)
    with connect(one_pass) as conn:
        began = time.perf_counter()
        slowest = build_planned(conn, project, lake, run_scopes, select, sources)
        one_seconds = time.perf_counter() - began
        together_rows = _rows(conn, names[:sample])
    with connect(per_repo) as conn:
        began = time.perf_counter()
        for scope in run_scopes[:sample]:
            build_planned(conn, project, lake, [scope], select, sources)
        sample_seconds = time.perf_counter() - began
        alone_rows = _rows(conn, names[:sample])
    assert together_rows == alone_rows, "one pass and per-repository runs disagree"
    shutil.rmtree(work, ignore_errors=True)
    return {
        "repos": repos,
        "weeks": weeks,
        "history_weeks": history,
        "prs_per_week": prs,
        "new_prs": repos * weeks * prs,
        "one_pass_seconds": round(one_seconds, 1),
        "per_repository_seconds_sampled": round(sample_seconds, 1),
        "sample": sample,
        "per_repository_seconds_scaled": round(sample_seconds * repos / sample, 1),
        "one_pass_slowest_models": dict(
            sorted(((k, round(v, 1)) for k, v in slowest.items()), key=lambda kv: -kv[1])[:5]
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.monday", description=__doc__)
    parser.add_argument("--repos", type=int, default=100)
    parser.add_argument("--weeks", type=int, default=1)
    parser.add_argument("--history", type=int, default=52)
    parser.add_argument("--prs", type=int, default=30)
    parser.add_argument("--sample", type=int, default=10)
    args = parser.parse_args(argv)
    figures = run(args.repos, args.weeks, args.history, args.prs, args.sample)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
