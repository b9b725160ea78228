"""Helpers for the weekly-facts tests: crafted PullRequest nodes, builds and read-only queries."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

import duckdb

from orchestration.config import SQL_DIR
from orchestration.extract.history import write_origin
from orchestration.extract.sources.nodes import to_row
from orchestration.lake.layout import write_partition
from orchestration.lake.model_sources import lake_sources
from orchestration.models.project import load_project
from orchestration.models.run import materialize
from orchestration.models.seeds import load_seeds
from orchestration.service.cli import main
from orchestration.warehouse.checks import run_checks
from orchestration.weeks import weeks_between

# the risk flags, in their listing order (seeds/risk_flags.csv)
with (SQL_DIR / "seeds" / "risk_flags.csv").open(encoding="utf-8") as seed:
    FLAGS = [
        row["risk_flag"] for row in sorted(csv.DictReader(seed), key=lambda r: int(r["position"]))
    ]

UNKNOWN = object()  # a field the source does not hold: the key is left out of the node


def pr(
    number: int,
    title: str,
    merged_at: str,
    files: Any = (),
    *,
    repo: str = "acme/crafted",
    author: str = "alice",
    body: str = "",
    labels: Any = (),
    reviews: Any = ("APPROVED",),
    threads: Any = (),
) -> dict:
    """A PullRequest node; `files` are (path, changed lines, changeType) tuples."""
    node: dict[str, Any] = {
        "number": number,
        "title": title,
        "body": body,
        "url": f"https://github.com/{repo}/pull/{number}",
        "state": "MERGED",
        "mergedAt": merged_at,
        "author": {"login": author},
        "mergeCommit": {"oid": f"{number:04d}" + "0" * 36},
    }
    if files is not UNKNOWN:
        nodes = [{"path": p, "additions": n, "deletions": 0, "changeType": c} for p, n, c in files]
        node["files"] = {"totalCount": len(nodes), "nodes": nodes}
        node["additions"] = sum(n for _, n, _ in files)
        node["deletions"] = 0
        node["changedFiles"] = len(nodes)
    else:
        node["additions"], node["deletions"], node["changedFiles"] = 50, 0, 2
    if labels is not UNKNOWN:
        node["labels"] = {"nodes": [{"name": name} for name in labels]}
    if reviews is not UNKNOWN:
        node["reviews"] = {
            "nodes": [
                {"state": s, "author": {"login": f"rev{i}"}, "submittedAt": merged_at}
                for i, s in enumerate(reviews)
            ]
        }
    if threads is not UNKNOWN:
        node["reviewThreads"] = {
            "nodes": [{"isResolved": r, "isOutdated": False, "path": "x"} for r in threads]
        }
    return node


def write_dataset(path: Path, nodes: list[dict]) -> Path:
    path.write_text("".join(json.dumps(n) + "\n" for n in nodes), encoding="utf-8")
    return path


def build(repo: str, week: str, to: str, dataset: Path) -> None:
    code = main(
        ["build", "--repo", repo, "--week", week, "--to", to, "--source", f"file:{dataset}"]
    )
    assert code == 0


def query(home: Path, sql: str, params: list | None = None) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return conn.execute(sql, params or []).fetchall()


def rows_by_number(home: Path, columns: str, table: str = "marts.fct_pull_requests") -> dict:
    return {r[0]: r[1:] for r in query(home, f"select number, {columns} from {table}")}


def build_models(
    home: Path,
    nodes: dict[str, list[dict]],
    repositories_yml: str = "",
    weeks: tuple[date, date] | None = None,
) -> Path:
    """Every SQL model over crafted PRs, through the model runner the Dagster assets call.

    For tests about the facts alone: the lake is written as the extract writes it from a file
    (one file a week, and the week of the first PR, since the nodes are the whole history),
    then seeds, settings and every model are built from an empty warehouse. With `weeks`
    (first, last Monday), a week of that range with no PR gets its empty file, as it does
    when the extract reads that range.
    """
    home.mkdir(parents=True, exist_ok=True)
    if repositories_yml:
        (home / "repositories.yml").write_text(repositories_yml, encoding="utf-8")
    for repo, repo_nodes in nodes.items():
        by_week: dict = defaultdict(list)
        for week in weeks_between(*weeks) if weeks else ():
            by_week[week] = []
        for node in repo_nodes:
            row = to_row(node, repo)
            by_week[row["week_start"]].append(row)
        for week, rows in by_week.items():
            write_partition(home / "lake", repo, week, rows)
        if repo_nodes:
            first = min(week for week, rows in by_week.items() if rows)
            write_origin(home / "lake", repo, first, "crafted nodes")
    project = load_project(SQL_DIR)
    with duckdb.connect(str(home / "warehouse.duckdb")) as conn:
        load_seeds(conn, project)
        sources = lake_sources(home / "lake", home)
        for name in project.order:
            model = project.models[name]
            materialize(conn, project, model, scope=None, sources=sources)
            failed = [o.sql for o in run_checks(conn, project, model) if not o.passed]
            assert not failed, f"{name}: data tests failed: {failed}"
    return home


def english_in_risk_reasons(zh_markdown: str) -> list[str]:
    """The risk lines of a Chinese report whose composed part has English words: quotes, code
    spans (paths), PR numbers and names ([BREAKING], PR) are the PR's own and may."""
    if "### 风险标记明细" not in zh_markdown:
        return []
    section = zh_markdown.split("### 风险标记明细")[1].split("\n### ")[0]
    found = []
    for line in section.splitlines():
        if not line.startswith("- [#") or "：" not in line:
            continue
        # quotes and code spans out first: the reason follows the last colon outside them (a
        # title may hold a colon of its own)
        unquoted = re.sub(r"“[^”]*”|`[^`]*`", "“”", line.split(")", 1)[1])
        composed = re.sub(r"#\d+|\[BREAKING\]|\bPR\b", "", unquoted.rsplit("：", 1)[1])
        if re.search(r"[A-Za-z]{2,}", composed):
            found.append(line)
    return found
