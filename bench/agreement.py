"""Agreement of the facts with the labelled PRs of `tests/fixtures/labelled/`, per repository.

`python -m bench.facts_labelled` builds the models over the labelled weeks of every dataset at
hand and prints, by the rules of this module, one table per repository. The rules, figure by figure
(names compare case-insensitively with `-` and `_` equal, as the labels' README says):

- type: the fact's change type equals the label's; area: the fact's primary area is one of the
  label's `|` alternatives; topics: the mean Jaccard index of the two sets (1 when both are
  empty), and the share of equal sets.
- change sentence, over every labelled PR: with an empty label, acceptable when the fact is
  NULL (or empty); else acceptable when, after normalising both (Markdown links to their text,
  a link to an issue or PR and `owner/name#N` read as `#N`, as the fact shows them, other URLs,
  `*`/`` ` `` and a trailing `…` dropped, whitespace collapsed, lower case, trailing `.:;,`
  stripped), the fact equals one alternative; or holds it whole and is at most twice as long,
  or 200 characters longer (a lead-in or the next items of its list); or is part of it at
  least half as long (a sentence cut short still reads).
- headline claim, over the PRs labelled with one: right when the fact's value and unit agree
  with one alternative (absolute values within 1%, `×` read as `x`). Claims the fact makes
  where no claim is labelled are counted apart.
- caveats: the share of PRs whose set of kinds equals the label's.
- stories, over the pairs of PRs of each labelled whole week: a pair is together in the labels
  when both carry the same story key, in the facts when both are in one `fct_weekly_stories`
  row; precision and recall of the facts' pairs.
- release: the fact's `is_release` equals the label (NULL counts as false).

A fact the warehouse does not have yet (a column or mart another change adds) prints as "not
built". The headline claim falls back on the first of `impact_claims` while `headline_claim`
does not exist.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
from itertools import combinations
from pathlib import Path

import duckdb

from bench.facts_match import claim_ok, fact_claim, sentence_ok

LABELLED = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "labelled"
LABELS = LABELLED / "prs.csv"
_spec = importlib.util.spec_from_file_location("labelled_sample", LABELLED / "sample.py")
sample = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sample)

CLAIM_LABEL = re.compile(r"(?P<value>[-+]?\d+(?:\.\d+)?)(?P<unit>[^\s\d]+) ")


def _name(text: str) -> str:
    return text.strip().lower().replace("_", "-")


def read_labels(path: Path = LABELS) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["number"] = int(row["number"])
        row["areas"] = {_name(a) for a in row["primary_area"].split("|") if a.strip()}
        row["topic_set"] = {t.strip() for t in row["topics"].split(";") if t.strip()}
        row["change_type"] = row["change_type"].strip().lower()
        row["caveat_set"] = {c for c in row.get("caveats", "").split(";") if c}
        row["claims"] = [_label_claim(c) for c in row.get("headline_claim", "").split("|") if c]
    return rows


def _label_claim(text: str) -> tuple[float, str]:
    found = CLAIM_LABEL.match(text)
    return abs(float(found["value"])), found["unit"].replace("×", "x")


def _jaccard(a: set, b: set) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def _columns(conn: duckdb.DuckDBPyConnection, schema: str, table: str) -> set[str]:
    return {
        name
        for (name,) in conn.execute(
            "select column_name from information_schema.columns "
            "where table_schema = ? and table_name = ?",
            [schema, table],
        ).fetchall()
    }


def _facts(conn: duckdb.DuckDBPyConnection, labels: list[dict]) -> tuple[dict, set[str]]:
    """The facts of the labelled PRs by (repo, number), and which optional facts exist."""
    have = _columns(conn, "marts", "fct_pull_requests")
    optional = {
        "summary": "p.summary",
        "headline_claim": "to_json(p.headline_claim)",
        "caveats": "to_json(p.caveats)",
        "is_release": "p.is_release",
    }
    if "headline_claim" not in have and "impact_claims" in have:
        optional["headline_claim"] = "to_json(p.impact_claims[1])"
        have.add("headline_claim")
    built = {name for name in optional if name in have}
    picks = ", ".join(optional[name] if name in built else "null" for name in optional)
    conn.execute("create or replace temp table _labelled (repo varchar, number bigint)")
    conn.executemany(
        "insert into _labelled values (?, ?)", [(r["repo"], r["number"]) for r in labels]
    )
    rows = conn.execute(
        "select p.repo, p.number, p.week_start, p.change_type, p.primary_area, p.topics, "
        f"p.change_type_signal || '/' || p.area_signal, p.title, {picks} "
        "from marts.fct_pull_requests p join _labelled using (repo, number)"
    ).fetchall()
    keys = ("week", "type", "area", "topics", "signals", "title", *optional)
    facts = {(r[0], r[1]): dict(zip(keys, r[2:], strict=True)) for r in rows}
    if _columns(conn, "marts", "fct_weekly_stories"):
        built.add("stories")
    return facts, built


def _stories(conn: duckdb.DuckDBPyConnection) -> dict[tuple[str, int], set[str]]:
    """The stories each PR is in, by (repo, number)."""
    together: dict[tuple[str, int], set[str]] = {}
    for repo, week, story, numbers in conn.execute(
        "select repo, week_start, story_id, numbers from marts.fct_weekly_stories"
    ).fetchall():
        for number in numbers or []:
            together.setdefault((repo, number), set()).add(f"{week}:{story}")
    return together


def compare(
    conn: duckdb.DuckDBPyConnection, labels: list[dict], bodies: dict | None = None
) -> tuple[list[dict], set[str]]:
    """One row per labelled PR found in the warehouse (the label, the fact, what agrees), and
    the optional facts the warehouse has. `bodies` by (repo, number) resolve located sentences;
    a row whose sentence cannot be read has `sentence_ok` None."""
    facts, built = _facts(conn, labels)
    stories = _stories(conn) if "stories" in built else {}
    rows = []
    for label in labels:
        key = (label["repo"], label["number"])
        fact = facts.get(key)
        if fact is None:
            continue
        topics = set(fact["topics"] or [])
        try:
            wanted = sample.sentences(label["change_sentence"], (bodies or {}).get(key))
        except ValueError:
            wanted = None
        claim = fact_claim(json.loads(fact["headline_claim"] or "null"))
        caveats = {c["kind"] for c in json.loads(fact["caveats"] or "[]")}
        rows.append(
            {
                "repo": label["repo"],
                "number": label["number"],
                "sample": label["sample"],
                "week": fact["week"],
                "title": fact["title"],
                "signals": fact["signals"],
                "type": (label["change_type"], fact["type"]),
                "area": ("|".join(sorted(label["areas"])), fact["area"]),
                "topics": (sorted(label["topic_set"]), sorted(topics)),
                "type_ok": label["change_type"] == fact["type"],
                "area_ok": _name(fact["area"]) in label["areas"],
                "topics_jaccard": _jaccard(label["topic_set"], topics),
                "sentence": (wanted, fact["summary"]),
                "sentence_ok": None if wanted is None else sentence_ok(wanted, fact["summary"]),
                "claim": (label["claims"], claim),
                "claim_ok": claim_ok(label["claims"], claim) if label["claims"] else None,
                "caveats": (sorted(label["caveat_set"]), sorted(caveats)),
                "caveats_ok": label["caveat_set"] == caveats,
                "release": (label["is_release"] == "true", bool(fact["is_release"])),
                "story": (label["story"], stories.get(key, set())),
            }
        )
    return rows, built


def story_pairs(rows: list[dict]) -> dict:
    """Pairwise story agreement over the PRs of each labelled whole week."""
    weeks: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["sample"] != "random":
            weeks.setdefault((r["repo"], r["week"]), []).append(r)
    labelled = found = both = pairs = 0
    for prs in weeks.values():
        for a, b in combinations(prs, 2):
            pairs += 1
            in_label = bool(a["story"][0]) and a["story"][0] == b["story"][0]
            in_fact = bool(a["story"][1] & b["story"][1])
            labelled += in_label
            found += in_fact
            both += in_label and in_fact
    return {"pairs": pairs, "labelled": labelled, "found": found, "both": both}


def _share(ok: list[bool]) -> float | None:
    return round(sum(ok) / len(ok), 3) if ok else None


def summarise(rows: list[dict], built: set[str] | None = None) -> dict:
    """The figures of the module's docstring over `rows`; a fact not built is None."""
    built = built if built is not None else set()
    n = len(rows)
    if not n:
        return {"prs": 0}
    said = [r for r in rows if r["sentence_ok"] is not None]
    labelled = [r for r in said if r["sentence"][0]]
    claimed = [r for r in rows if r["claim_ok"] is not None]
    result = {
        "prs": n,
        "type": _share([r["type_ok"] for r in rows]),
        "area": _share([r["area_ok"] for r in rows]),
        "topics_jaccard": round(sum(r["topics_jaccard"] for r in rows) / n, 3),
        "topics_exact": _share([r["topics_jaccard"] == 1 for r in rows]),
        "sentence": None,
        "claim": None,
        "caveats": None,
        "stories": None,
        "release": None,
    }
    if "summary" in built:
        result["sentence"] = {
            "acceptable": _share([r["sentence_ok"] for r in said]),
            "prs": len(said),
            "labelled": len(labelled),
            "labelled_ok": sum(r["sentence_ok"] for r in labelled),
            "none_labelled_null": sum(r["sentence_ok"] for r in said if not r["sentence"][0]),
        }
    if "headline_claim" in built:
        result["claim"] = {
            "right": _share([r["claim_ok"] for r in claimed]),
            "labelled": len(claimed),
            "ok": sum(r["claim_ok"] for r in claimed),
            "unlabelled_claims": sum(1 for r in rows if r["claim_ok"] is None and r["claim"][1]),
        }
    if "caveats" in built:
        result["caveats"] = _share([r["caveats_ok"] for r in rows])
    if "stories" in built:
        result["stories"] = story_pairs(rows)
    if "is_release" in built:
        result["release"] = {
            "equal": _share([r["release"][0] == r["release"][1] for r in rows]),
            "labelled": sum(r["release"][0] for r in rows),
            "found": sum(r["release"][0] and r["release"][1] for r in rows),
        }
    return result


def table(name: str, s: dict, out=print) -> None:
    """One repository's figures."""
    out(f"\n{name}: {s['prs']} labelled PRs in the warehouse")
    if not s["prs"]:
        return
    pct = "{:.1%}".format
    lines = [
        ("change type", pct(s["type"]), ""),
        ("primary area", pct(s["area"]), ""),
        ("topics, mean Jaccard", pct(s["topics_jaccard"]), f"exact set {pct(s['topics_exact'])}"),
    ]
    st = s["sentence"]
    lines.append(
        ("change sentence acceptable", pct(st["acceptable"]) if st["acceptable"] is not None
         else "-", f"{st['labelled_ok']}/{st['labelled']} labelled, "
         f"{st['none_labelled_null']}/{st['prs'] - st['labelled']} NULL where none")
        if st else ("change sentence acceptable", "not built", "")
    )  # fmt: skip
    cl = s["claim"]
    lines.append(
        ("headline claim right", f"{cl['ok']}/{cl['labelled']}",
         f"{cl['unlabelled_claims']} claims where none labelled")
        if cl else ("headline claim right", "not built", "")
    )  # fmt: skip
    cav = s["caveats"]
    lines.append(("caveat kinds, equal sets", pct(cav) if cav is not None else "not built", ""))
    sp = s["stories"]
    lines.append(
        ("story pairs (precision, recall)",
         f"{sp['both']}/{sp['found']}, {sp['both']}/{sp['labelled']}",
         f"of {sp['pairs']} pairs in whole weeks")
        if sp else ("story pairs (precision, recall)", "not built", "")
    )  # fmt: skip
    rel = s["release"]
    lines.append(
        ("release", pct(rel["equal"]), f"{rel['found']}/{rel['labelled']} releases found")
        if rel else ("release", "not built", "")
    )  # fmt: skip
    for figure, value, detail in lines:
        out(f"  {figure:<32} {value:>10}  {detail}")


def disagreements(rows: list[dict], fact: str) -> list[dict]:
    """The rows that disagree on `fact` (type, area, topics, sentence, claim, caveats)."""
    ok = {"topics": lambda r: r["topics_jaccard"] == 1, "claim": lambda r: r["claim_ok"]}
    test = ok.get(fact, lambda r: r[f"{fact}_ok"])
    return [r for r in rows if test(r) is False or (fact == "topics" and not test(r))]


def report(
    conn: duckdb.DuckDBPyConnection,
    path: Path,
    repos: list[str],
    out=print,
    bodies: dict | None = None,
    show: list[str] = (),
) -> dict:
    """Print and return agreement per repository and in all; `show` lists, per repository,
    the PRs that disagree on those facts."""
    labels = [r for r in read_labels(path) if r["repo"] in repos]
    rows, built = compare(conn, labels, bodies)
    out(f"\nagreement with {len(labels)} labelled PRs ({len(rows)} found in the warehouse)")
    result = {"all": summarise(rows, built)}
    for repo in repos:
        mine = [r for r in rows if r["repo"] == repo]
        result[repo] = summarise(mine, built)
        table(repo, result[repo], out)
        for fact in show:
            for r in disagreements(mine, fact):
                out(f"    {fact} #{r['number']} {(r['title'] or '')[:60]!r}: label "
                    f"{r[fact][0]!r} fact {r[fact][1]!r} [{r['signals']}]")  # fmt: skip
    table("all repositories", result["all"], out)
    return result


if __name__ == "__main__":  # the rules live here; the command that prints them is another
    raise SystemExit("the agreement is printed by `python -m bench.facts_labelled`")
