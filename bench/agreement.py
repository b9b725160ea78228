"""Agreement of the facts with the labelled PRs in `tests/fixtures/labelled/prs.csv`.

The labels were written by reading each PR: `repo,number,sample,title,change_type,primary_area,
topics,severity,notes`, where `primary_area` lists the acceptable areas separated by `|` and
`topics` the topics separated by `;`. A PR agrees on type when the types are equal, on area when
the fact's primary area is one of the acceptable ones, and on topics by the Jaccard index of the
two sets (1 when both are empty); "exact" counts topic sets that are equal. As the labels'
README says, names compare case-insensitively with `-` and `_` equal.
"""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb

LABELS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "labelled" / "prs.csv"


def _name(text: str) -> str:
    return text.strip().lower().replace("_", "-")


def read_labels(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["number"] = int(row["number"])
        row["areas"] = {_name(a) for a in row["primary_area"].split("|") if a.strip()}
        row["topic_set"] = {t.strip() for t in row["topics"].split(";") if t.strip()}
        row["change_type"] = row["change_type"].strip().lower()
    return rows


def _jaccard(a: set, b: set) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def compare(conn: duckdb.DuckDBPyConnection, labels: list[dict]) -> list[dict]:
    """One row per labelled PR found in the warehouse: the label, the fact, what agrees."""
    conn.execute("create or replace temp table _labelled (repo varchar, number bigint)")
    conn.executemany(
        "insert into _labelled values (?, ?)", [(r["repo"], r["number"]) for r in labels]
    )
    facts = {
        (repo, number): (change_type, area, set(topics or []), signal, title)
        for repo, number, change_type, area, topics, signal, title in conn.execute(
            "select p.repo, p.number, p.change_type, p.primary_area, p.topics, "
            "p.change_type_signal || '/' || p.area_signal, p.title "
            "from marts.fct_pull_requests p join _labelled using (repo, number)"
        ).fetchall()
    }
    rows = []
    for label in labels:
        fact = facts.get((label["repo"], label["number"]))
        if fact is None:
            continue
        change_type, area, topics, signals, title = fact
        rows.append(
            {
                "repo": label["repo"],
                "number": label["number"],
                "title": title,
                "type": (label["change_type"], change_type),
                "area": ("|".join(sorted(label["areas"])), area),
                "topics": (sorted(label["topic_set"]), sorted(topics)),
                "signals": signals,
                "type_ok": label["change_type"] == change_type,
                "area_ok": _name(area) in label["areas"],
                "topics_jaccard": _jaccard(label["topic_set"], topics),
            }
        )
    return rows


def summarise(rows: list[dict]) -> dict:
    n = len(rows)
    if not n:
        return {"prs": 0}
    return {
        "prs": n,
        "type": round(sum(r["type_ok"] for r in rows) / n, 3),
        "area": round(sum(r["area_ok"] for r in rows) / n, 3),
        "topics_jaccard": round(sum(r["topics_jaccard"] for r in rows) / n, 3),
        "topics_exact": round(sum(r["topics_jaccard"] == 1 for r in rows) / n, 3),
    }


def worst(rows: list[dict], count: int = 10) -> list[dict]:
    """The PRs that disagree most: wrong type and area first, then the least topic overlap."""

    def badness(r: dict) -> tuple:
        return (-(2 - r["type_ok"] - r["area_ok"] + (1 - r["topics_jaccard"])), r["number"])

    return sorted((r for r in rows if badness(r)[0] < 0), key=badness)[:count]


def report(conn: duckdb.DuckDBPyConnection, path: Path, repos: list[str], out=print) -> dict:
    """Print and return agreement per repository and in all, with the worst disagreements."""
    labels = [r for r in read_labels(path) if r["repo"] in repos]
    rows = compare(conn, labels)
    result = {"all": summarise(rows)}
    out(f"\nagreement with {len(labels)} labelled PRs ({len(rows)} found in the warehouse)")
    for repo in repos:
        result[repo] = summarise([r for r in rows if r["repo"] == repo])
    for name, s in result.items():
        if s.get("prs"):
            out(
                f"  {name}: {s['prs']} PRs, type {s['type']:.1%}, area {s['area']:.1%}, "
                f"topics {s['topics_jaccard']:.1%} (Jaccard; {s['topics_exact']:.1%} exact)"
            )
    result["worst"] = worst(rows)
    out("  the ten worst disagreements (label -> fact):")
    for r in result["worst"]:
        out(
            f"    {r['repo']}#{r['number']} {r['title'][:70]!r}: type {r['type'][0]}->"
            f"{r['type'][1]}, area {r['area'][0]}->{r['area'][1]}, topics "
            f"{';'.join(r['topics'][0])}->{';'.join(r['topics'][1])} [{r['signals']}]"
        )
    return result
