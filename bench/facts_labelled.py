"""The models over the labelled weeks of every dataset at hand, and their agreement with the labels
(`bench/agreement.py`): `python -m bench.facts_labelled`.

For each repository of `tests/fixtures/labelled/prs.csv` whose dataset is here (the shared ones
beside the clone, `../shared/datasets/<owner>__<name>/pull_requests.jsonl.gz`; the fetched ones
as `<owner>__<name>.jsonl.gz` in the folder `PRWEEKLY_EXTRA_DATASETS` names), the lake gets the
weeks of its labelled PRs, and before each labelled whole week the weeks the models may look
back on (`history_weeks()`, the project's longest lookback); every model is then built over it
through the model runner, as `bench/facts.py` does for whole histories. A repository without
its dataset is reported "not available"; a fetched repository's rows are first held against its
dataset (`bench/labelled_rows.py`), and the bench stops on a row that does not resolve.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb

from bench import agreement
from bench.labelled_rows import check_fetched

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def dataset_for(repo: str) -> Path | None:
    """The dataset file of `repo`, or None when it is not here."""
    name = repo.replace("/", "__")
    candidates = [SHARED / name / "pull_requests.jsonl.gz"]
    extra = os.environ.get("PRWEEKLY_EXTRA_DATASETS")
    if extra:
        candidates.append(Path(extra) / f"{name}.jsonl.gz")
    return next((path for path in candidates if path.is_file()), None)


def _monday(merged_at: str) -> date:
    day = date.fromisoformat(merged_at[:10])
    return day - timedelta(days=day.weekday())


def read_dataset(path: Path) -> dict[int, dict]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return {node["number"]: node for node in map(json.loads, lines)}


def labelled_weeks(labels: list[dict], prs: dict[int, dict], history: int) -> set[date]:
    """The weeks of the labelled PRs, and `history` weeks before each labelled whole week."""
    weeks: set[date] = set()
    for label in labels:
        week = _monday(prs[label["number"]]["mergedAt"])
        weeks.add(week)
        if label["sample"] != "random":
            weeks |= {week - timedelta(weeks=k) for k in range(1, history + 1)}
    return weeks


def write_weeks(lake: Path, repo: str, dataset: Path, weeks: set[date]) -> int:
    """The dataset's PRs of `weeks` into the lake, one file per week (empty for a quiet one)."""
    from orchestration.extract.sources.file import FileSource
    from orchestration.extract.sources.nodes import to_row
    from orchestration.lake.layout import write_partition

    rows: dict[date, list[dict]] = defaultdict(list)
    far = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
    for node in FileSource(dataset).fetch(repo, *far):
        row = to_row(node, repo)
        if row["week_start"] in weeks:
            rows[row["week_start"]].append(row)
    for week in sorted(weeks):
        write_partition(lake, repo, week, rows.get(week, []))
    return sum(len(r) for r in rows.values())


def build(home: Path, labels: list[dict], log=print) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """The warehouse over the labelled weeks of every repository at hand, and the PR bodies of
    the labelled PRs by (repo, number)."""
    from orchestration.config import SQL_DIR
    from orchestration.extract.history import history_weeks
    from orchestration.lake.model_sources import lake_sources
    from orchestration.models.build import build as build_models
    from orchestration.models.project import load_project

    history = history_weeks()
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for label in labels:
        by_repo[label["repo"]].append(label)
    bodies: dict[tuple[str, int], str] = {}
    for repo, mine in by_repo.items():
        dataset = dataset_for(repo)
        if dataset is None:
            log(f"{repo}: not available (no dataset here)")
            continue
        began = time.perf_counter()
        prs = read_dataset(dataset)
        if repo in agreement.sample.EXTRA_REPOS:  # not committed: checked where it is read
            check_fetched(repo, mine, prs)
        weeks = labelled_weeks(mine, prs, history)
        count = write_weeks(home / "lake", repo, dataset, weeks)
        bodies |= {(repo, r["number"]): prs[r["number"]].get("body") or "" for r in mine}
        log(f"{repo}: {count:,} PRs of {len(weeks)} weeks into the lake "
            f"in {time.perf_counter() - began:.1f} s")  # fmt: skip
    conn = duckdb.connect(str(home / "warehouse.duckdb"))
    if bodies:
        began = time.perf_counter()
        build_models(conn, load_project(SQL_DIR), None, sources=lake_sources(home / "lake", home))
        log(f"every model built in {time.perf_counter() - began:.1f} s")
    return conn, bodies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.facts_labelled", description=__doc__)
    parser.add_argument("--labels", type=Path, default=agreement.LABELS)
    parser.add_argument("--repo", action="append", help="default: every labelled repository")
    parser.add_argument(
        "--show",
        action="append",
        default=[],
        choices=["type", "area", "topics", "sentence", "claim", "caveats"],
        help="also list the PRs that disagree on this fact",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", type=Path, help="build here and keep it (an empty folder)")
    args = parser.parse_args(argv)
    labels = agreement.read_labels(args.labels)
    repos = list(dict.fromkeys(r["repo"] for r in labels))
    repos = [r for r in repos if r in (args.repo or repos)]
    labels = [r for r in labels if r["repo"] in repos]

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="prweekly-agreement-") as tmp:
        home = args.keep or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        conn, bodies = build(home, labels, log)
        try:
            present = [r for r in repos if any(k[0] == r for k in bodies)]
            result = agreement.report(conn, args.labels, present, bodies=bodies, show=args.show)
        finally:
            conn.close()
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
