"""A deployment's home on a Monday morning, for `bench/monday_run.py`: a year in the lake and
the warehouse, the repositories registered, last week reported, and GitHub's nodes of the
weeks still to read.

The lake and the warehouse come from `bench/scale.py`'s generator and are kept under
`bench/.work/` (the same files `python -m bench.monday` uses); each run gets a fresh home
whose lake files are hard links (the extract replaces a week file by renaming a new one over
it, so the kept lake is never written through a link).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from bench.scale import WORK_DIR, ensure_lake
from bench.scale_steps import step_build


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _login(name: str | None) -> dict | None:
    return None if name is None else {"login": name}


def row_to_node(row: dict) -> dict:
    """A lake row as the GitHub GraphQL `PullRequest` node it would be read from."""
    files, labels = row["files"], row["labels"]
    reviews, threads = row["reviews"], row["review_threads"]
    return {
        "number": row["number"],
        "title": row["title"],
        "body": row["body"],
        "url": row["url"],
        "state": "MERGED",
        "isDraft": row["is_draft"],
        "baseRefName": row["base_ref"],
        "createdAt": _iso(row["created_at"]),
        "mergedAt": _iso(row["merged_at"]),
        "author": _login(row["author"]),
        "mergedBy": _login(row["merged_by"]),
        "additions": row["additions"],
        "deletions": row["deletions"],
        "changedFiles": row["changed_files"],
        "mergeCommit": {"oid": row["merge_commit"]},
        "comments": {"totalCount": row["comments_count"]},
        "files": {
            "totalCount": len(files),
            "nodes": [
                {
                    "path": f["path"],
                    "additions": f["additions"],
                    "deletions": f["deletions"],
                    "changeType": f["change_type"],
                }
                for f in files
            ],
        },
        "labels": {"totalCount": len(labels), "nodes": [{"name": n} for n in labels]},
        "reviews": {
            "totalCount": len(reviews),
            "nodes": [
                {
                    "state": r["state"],
                    "author": _login(r["author"]),
                    "submittedAt": _iso(r["submitted_at"]),
                }
                for r in reviews
            ],
        },
        "reviewThreads": {
            "totalCount": len(threads),
            "nodes": [
                {
                    "isResolved": t["is_resolved"],
                    "isOutdated": t["is_outdated"],
                    "path": t["path"],
                    "comments": {"nodes": [{"author": _login(t["author"]), "body": t["body"]}]},
                }
                for t in threads
            ],
        },
    }


def github_nodes(repos: list[str], first: int, weeks: int, prs: int, seed: int = 8) -> list[dict]:
    """The nodes of weeks `first`..`first + weeks - 1` of every repository: the same PRs the
    generator writes to the lake for those weeks (it is seeded per repository)."""
    from bench.generate import _Repo, week_of

    nodes = []
    for name in repos:
        state = _Repo(name, seed)
        for index in range(first + weeks):
            rows = [state.pull_request(week_of(index)) for _ in range(prs)]
            if index >= first:
                nodes += [row_to_node(row) for row in rows]
    return nodes


# what the kept warehouse's rows depend on besides the lake: a change to any of them makes it
# again, so last week's report (set up before each case) is of the models the case runs
MODEL_CODE = ("sql", "orchestration/models", "orchestration/descriptions", "orchestration/lake")


def models_version() -> str:
    """The SHA-256 (12 digits) of the files under `MODEL_CODE`."""
    from orchestration.config import PROJECT_DIR

    digest = hashlib.sha256()
    for folder in MODEL_CODE:
        for path in sorted((PROJECT_DIR / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(PROJECT_DIR).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]


def base_home(repos: int, history: int, prs: int, log=print) -> tuple[Path, Path]:
    """The kept lake (`repos` × `history` weeks × `prs` PRs, compacted) and a warehouse of
    every model over it, made on first use and again whenever the models' code changed (a
    warehouse of older models would make the case's rebuilt weeks differ from last week's
    report, and render it again)."""
    home, generated, _ = ensure_lake(repos, history, prs, log)
    stem = f"monday-{repos}x{history}x{prs}"
    warehouse = WORK_DIR / f"{stem}-{models_version()}.duckdb"
    if not warehouse.exists():
        for old in WORK_DIR.glob(f"{stem}-*.duckdb*"):  # an older models' warehouse
            old.unlink()
        log(f"building every model over {generated['prs']:,} PRs ...")
        # built beside it and renamed: a build stopped halfway leaves no warehouse to reuse
        partial = warehouse.with_name(f"{warehouse.stem}.partial.duckdb")
        step_build(home, partial)
        partial.rename(warehouse)
    return home / "lake", warehouse


def _record_modelled(warehouse: Path, lake: Path) -> None:
    """The weeks every model holds, as a year of weekly runs would have recorded them (the
    kept warehouse was built in one pass, outside Dagster)."""
    from orchestration.config import SQL_DIR
    from orchestration.database import connect
    from orchestration.models.project import load_project
    from orchestration.warehouse.modelled_weeks import record_every_week

    with connect(warehouse) as conn:
        record_every_week(conn, load_project(SQL_DIR), lake)


def fresh_home(
    name: str, repos: list[str], lake: Path, warehouse: Path, group: str | None = None
) -> Path:
    """A new `PRWEEKLY_HOME`: the kept lake (linked), a copy of the warehouse, the repositories
    registered with the default source (GitHub), and no Dagster history yet. With `group`, the
    repositories are one group of that name; with "" there is no group (`groups: []`); with
    None, one group per owner (the file has no `groups:`)."""
    from orchestration.repositories.registry import Repository, save_repositories

    home = WORK_DIR / f"monday-run-{name}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    shutil.copytree(lake, home / "lake", copy_function=os.link)
    shutil.copyfile(warehouse, home / "warehouse.duckdb")
    _record_modelled(home / "warehouse.duckdb", home / "lake")
    path = save_repositories(home, [Repository(r) for r in repos])
    if group is not None:
        groups = [{"name": group, "repositories": repos}] if group else []
        head = yaml.safe_dump({"groups": groups}, sort_keys=False)
        path.write_text(head + path.read_text(encoding="utf-8"), encoding="utf-8")
    return home


def report_last_week(settings, repos: list[str], week) -> None:
    """What last Monday's run left: `week`'s file holding GitHub's count of its PRs (as the
    extract stores it, so reading the week again finds the same file), the repository's
    compacted copy made again, and the week's reports, editions and record, and the site."""
    from datetime import time as clock

    import pyarrow.parquet as pq

    from orchestration.extract.sources import WeekCount
    from orchestration.lake.compaction import compact_repository
    from orchestration.lake.layout import partition_dir, write_partition
    from orchestration.report.publisher import save_new_editions
    from orchestration.report.write import write_reports_shared
    from orchestration.run_scope import RunScope
    from orchestration.site.build import build_site

    counted_at = datetime.combine(week + timedelta(days=7), clock(6), tzinfo=UTC)
    for repo in repos:
        path = Path(partition_dir(settings.lake_dir, repo, week)) / "data.parquet"
        rows = pq.read_table(path).to_pylist()
        count = WeekCount(len(rows), counted_at)
        write_partition(settings.lake_dir, repo, week, rows, metadata=count.metadata())
        compact_repository(settings.lake_dir, repo)
    quiet = lambda line: None  # noqa: E731
    done = write_reports_shared(settings, [RunScope(r, week, week) for r in repos], quiet)
    save_new_editions(settings, done.editions, quiet, done.records)
    build_site(settings, quiet)
