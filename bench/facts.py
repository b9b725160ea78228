"""How well the weekly facts read a repository: `python -m bench.facts [--dataset FILE ...]`.

Builds each dataset's whole history into a throw-away warehouse (the lake written from the
`file` source, then every model through the model runner, as `bench/scale.py` does) and prints,
per repository, for the whole history and for the window the facts are judged on:

- the share of `other` change types, the largest primary area's share and its name, and any
  primary area named after a language, the repository or a container folder;
- PRs per topic, and the largest share of weeks one theme takes;
- with `tests/fixtures/labelled/prs.csv`, agreement with the labels on change type, primary
  area and topics, per repository (`bench/agreement.py`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from bench import agreement

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATASETS = {
    "verl-project/verl": SHARED / "verl-project__verl" / "pull_requests.jsonl.gz",
    "pola-rs/polars": SHARED / "pola-rs__polars" / "pull_requests.jsonl.gz",
}
# the weeks issue 12 judges the facts on (first and last Monday)
WINDOWS = {
    "verl-project/verl": (date(2026, 5, 4), date(2026, 8, 17)),
    "pola-rs/polars": (date(2026, 4, 6), date(2026, 7, 20)),
}
FOCUS_WEEK = date(2026, 7, 20)  # 2026-W30, checked by name for verl


def write_lake(dataset: Path, repo: str, lake: Path) -> int:
    """The dataset's whole history as the extract writes it: one Parquet file a week (empty
    for a quiet one), and the week of the first PR, so the history is known to be complete."""
    from orchestration.extract.history import write_origin
    from orchestration.extract.sources.file import FileSource
    from orchestration.extract.sources.nodes import to_row
    from orchestration.lake.layout import write_partition
    from orchestration.weeks import weeks_between

    weeks: dict[date, list[dict]] = defaultdict(list)
    start, end = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
    for node in FileSource(dataset).fetch(repo, start, end):
        row = to_row(node, repo)
        weeks[row["week_start"]].append(row)
    for week in weeks_between(min(weeks), max(weeks)):  # a quiet week is an empty file
        write_partition(lake, repo, week, weeks.get(week, []))
    write_origin(lake, repo, min(weeks), f"file:{dataset.name}")
    return sum(len(rows) for rows in weeks.values())


def build(home: Path, datasets: dict[str, Path]) -> duckdb.DuckDBPyConnection:
    """Every model over the datasets' lake, from an empty warehouse; returns its connection."""
    from orchestration.config import SQL_DIR
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.build import build as build_models
    from orchestration.models.project import load_project

    lake = home / "lake"
    for repo, dataset in datasets.items():
        began = time.perf_counter()
        prs = write_lake(dataset, repo, lake)
        log(f"{repo}: {prs:,} PRs into the lake in {time.perf_counter() - began:.1f} s")
    project = load_project(SQL_DIR)
    conn = duckdb.connect(str(home / "warehouse.duckdb"))
    began = time.perf_counter()
    seconds = build_models(conn, project, None, sources=lake_sources(lake, home)).seconds
    ranked = sorted(seconds.items(), key=lambda item: -item[1])[:4]
    slowest = ", ".join(f"{name} {s:.1f} s" for name, s in ranked)
    log(f"every model built in {time.perf_counter() - began:.1f} s (slowest: {slowest})")
    return conn


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _one(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> tuple:
    return conn.execute(sql, params).fetchone()


def figures(conn: duckdb.DuckDBPyConnection, repo: str, first: date, last: date) -> dict:
    """The facts' figures for `repo` over the weeks `first`..`last`."""
    where = "repo = ? and week_start between ? and ?"
    params = [repo, first, last]
    (prs, other) = _one(
        conn,
        f"select count(*), count(*) filter (where change_type = 'other') "
        f"from marts.fct_pull_requests where {where}",
        params,
    )
    areas = conn.execute(
        f"select primary_area, count(*) as n from marts.fct_pull_requests where {where} "
        "group by all order by n desc, primary_area",
        params,
    ).fetchall()
    forbidden = forbidden_areas(conn, repo)
    bad_areas = [(a, n) for a, n in areas if a.lower() in forbidden]
    themes = conn.execute(
        f"select theme, count(*) as n from marts.fct_weekly_summary where {where} "
        "and theme is not null group by all order by n desc, theme",
        params,
    ).fetchall()
    weeks = sum(n for _, n in themes)
    topics = _topics(conn, where, params)
    return {
        "prs": prs,
        "other_share": round(other / prs, 4) if prs else None,
        "top_areas": [(a, n, round(n / prs, 3)) for a, n in areas[:5]],
        "max_area_share": round(areas[0][1] / prs, 3) if areas else None,
        "forbidden_areas": bad_areas,
        "topics": topics,
        "theme_weeks": weeks,
        "top_themes": [(t, n, round(n / weeks, 3)) for t, n in themes[:3]],
        "max_theme_share": round(themes[0][1] / weeks, 3) if themes else None,
    }


def forbidden_areas(conn: duckdb.DuckDBPyConnection, repo: str) -> set[str]:
    """Names an area must not have: languages, container folders but those of tests, the
    repository's name alone or with a language (from the seeds the models read)."""
    languages = {
        t
        for (t,) in conn.execute(
            "select tag from seeds.scope_tags where kind = 'language'"
        ).fetchall()
    }
    # test folders excepted: `tests` is the area of a change to tests alone (the labels agree)
    containers = {
        f
        for (f,) in conn.execute(
            "select folder from seeds.container_folders where holds not like '%tests%'"
        ).fetchall()
    }
    name = repo.split("/")[1].lower()
    forms = {name, name.replace("-", "_")}
    forms |= {f"{lang}{sep}{name}" for lang in languages for sep in ("", "-", "_")}
    forms |= {f"{name}{sep}{lang}" for lang in languages for sep in ("", "-", "_")}
    return languages | containers | forms


def _topics(conn: duckdb.DuckDBPyConnection, where: str, params: list) -> dict[str, int]:
    rows = conn.execute(
        f"select topic, sum(pr_count) from marts.fct_weekly_topics where {where} "
        "group by all order by 2 desc, 1",
        params,
    ).fetchall()
    return {topic: int(n) for topic, n in rows}


def focus_week(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> dict:
    """The week issue 12 checks by name: its performance PRs and its theme."""
    ((theme, topics),) = conn.execute(
        "select theme, theme_topics from marts.fct_weekly_summary "
        "where repo = ? and week_start = ?",
        [repo, week],
    ).fetchall() or [(None, None)]
    performance = conn.execute(
        "select numbers from marts.fct_weekly_topics "
        "where repo = ? and week_start = ? and topic = 'performance'",
        [repo, week],
    ).fetchall()
    return {
        "week": week.isoformat(),
        "theme": theme,
        "theme_topics": topics,
        "performance_prs": performance[0][0] if performance else [],
    }


def print_figures(repo: str, label: str, f: dict, out=print) -> None:
    out(f"\n{repo}, {label}: {f['prs']:,} PRs")
    out(f"  other: {f['other_share']:.1%}")
    top = ", ".join(f"{a} {s:.1%}" for a, _, s in f["top_areas"])
    out(f"  primary areas: largest {f['max_area_share']:.1%} ({top})")
    bad = ", ".join(f"{a} ({n})" for a, n in f["forbidden_areas"]) or "none"
    out(f"  areas named after a language, the repository or a container: {bad}")
    out("  topics: " + ", ".join(f"{t} {n}" for t, n in f["topics"].items()))
    themes = ", ".join(f"{t} {s:.0%}" for t, _, s in f["top_themes"])
    out(f"  themes over {f['theme_weeks']} weeks: largest {f['max_theme_share']:.1%} ({themes})")


def run(
    datasets: dict[str, Path], labels: Path = agreement.LABELS, keep: Path | None = None, out=print
) -> dict:
    """Build the datasets' histories, print their figures with `out` and return them."""
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="prweekly-facts-") as tmp:
        home = keep or Path(tmp)
        if keep:
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(parents=True)
        conn = build(home, datasets)
        try:
            for repo in datasets:
                first, last = WINDOWS[repo]
                whole = figures(conn, repo, date(2000, 1, 3), date(2100, 1, 4))
                window = figures(conn, repo, first, last)
                print_figures(repo, "whole history", whole, out)
                print_figures(repo, f"weeks {first}..{last}", window, out)
                focus = focus_week(conn, repo, FOCUS_WEEK)
                out(
                    f"  {FOCUS_WEEK}: performance PRs {focus['performance_prs']}, "
                    f"theme {focus['theme']!r}"
                )
                results[repo] = {"whole": whole, "window": window, "focus_week": focus}
            if labels.is_file():
                results["agreement"] = agreement.report(conn, labels, list(datasets), out)
        finally:
            conn.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.facts", description=__doc__)
    parser.add_argument(
        "--repo", action="append", choices=sorted(DATASETS), help="default: every shared one"
    )
    parser.add_argument("--labels", type=Path, default=agreement.LABELS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", type=Path, help="build here and keep it, instead of a temp dir")
    args = parser.parse_args(argv)
    datasets = {r: DATASETS[r] for r in (args.repo or DATASETS)}
    missing = [str(p) for p in datasets.values() if not p.is_file()]
    if missing:
        parser.error(f"dataset not found: {', '.join(missing)}")
    results = run(datasets, args.labels, args.keep)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
