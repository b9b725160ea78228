"""The facts a prompt carries, each with an id that the model's sentences cite.

Ids are short and say what they name: `p7095` (the PR: title, type, areas, size, paths),
`p7095.d3` (the third fact of its description), `p7095.i1` (an impact claim, the headline
first), `p7095.c1` (a caveat), `p7095.r1` (the first comment of a review thread), `p7095.f1` (a
risk flag with its reason), `p7095.s` (its accepted summary, in the week's prompt), `week`,
`story1`, `risk1`, `area1`. Each fact says which PR it is about (`pr`, or `prs`), which is how
the evidence check knows whose figures a sentence may state.
"""

from __future__ import annotations

import json
import re
from typing import Any

from orchestration.narrative.description import description_facts
from orchestration.narrative.figures import refs
from orchestration.narrative.sanitize import plain
from orchestration.text import strip_unsafe

MAX_PATHS = 20
MAX_CLAIMS = 12
MAX_THREADS = 8
MAX_COMMENT_CHARS = 500
_SEVERITY = re.compile(
    r"!\[(critical|high|medium|low|p[0-3])\b[^\]]*\]|\b(critical|high|medium|low)[- ](?:severity|"
    r"priority)\b|\[(p[0-3])\]|\b(potential issue|security)\b",
    re.IGNORECASE,
)
_SEVERITY_NAMES = {
    "p0": "critical",
    "p1": "high",
    "p2": "medium",
    "p3": "low",
    "potential issue": "medium",
    "security": "high",
}


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return strip_unsafe(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


_OWNED = re.compile(r"p(\d+)(?:\.|$)")


def owner_of(fact_id: str) -> int | None:
    """The PR a fact id is about (`p7095.d3`: 7095), or None for the week's facts."""
    match = _OWNED.match(fact_id)
    return int(match.group(1)) if match else None


def compact(fact: dict) -> dict:
    """The fact as the prompt shows it: `kind` and `pr` left out where the id says them."""
    if owner_of(fact["id"]) is None:
        return fact
    return {k: v for k, v in fact.items() if k not in ("kind", "pr")}


def severity_marker(body: str) -> str | None:
    """A review bot's or reviewer's severity mark (`![high](…)`, `[P1]`, `critical severity`)."""
    match = _SEVERITY.search(body or "")
    if not match:
        return None
    word = next(g for g in match.groups() if g).lower()
    return _SEVERITY_NAMES.get(word, word)


def pr_fact(pr: dict, paths: list[str]) -> dict:
    """`p<number>`: what the PR is, from the marts."""
    fact = {
        "id": f"p{pr['number']}",
        "kind": "pr",
        "pr": pr["number"],
        "title": pr["title"],
        "change_type": pr["change_type"],
        "primary_area": pr["primary_area"],
        "areas": pr.get("areas") or [],
        "topics": pr.get("topics") or [],
        "summary": pr.get("summary"),
        "breaking": bool(pr.get("is_breaking")) or None,
        "release": pr.get("release_version"),
        "additions": pr.get("additions"),
        "deletions": pr.get("deletions"),
        "changed_files": pr.get("changed_files"),
        "files_complete": pr.get("files_complete"),
        "paths": paths[:MAX_PATHS],
        "severity_word": pr.get("severity_word"),
    }
    return _clean(fact)


def _claim(claim: dict, fact_id: str, number: int, headline: bool) -> dict:
    fact = {"id": fact_id, "kind": "impact", "pr": number}
    if headline:
        fact["headline"] = True
    for key in ("metric", "figure", "value", "unit", "direction", "condition", "header"):
        if claim.get(key) is not None:
            fact[key] = claim[key]
    fact["sentence"] = claim.get("sentence")
    return _clean(fact)


def claim_facts(number: int, claims: list[dict] | None, headline: dict | None) -> list[dict]:
    """`p<n>.i<k>`: the measured claims as rows (metric, figure, unit, condition, header), the
    headline claim first."""
    rows = [dict(c) for c in claims or []]
    if headline:
        headline = dict(headline)
        rows = [headline] + [c for c in rows if c != headline]
    return [
        _claim(c, f"p{number}.i{i}", number, headline is not None and i == 1)
        for i, c in enumerate(rows[:MAX_CLAIMS], 1)
    ]


def caveat_facts(number: int, caveats: list[dict] | None) -> list[dict]:
    """`p<n>.c<k>`: trade-offs, defaults, omissions, what was not verified, breaking notes."""
    return [
        _clean(
            {
                "id": f"p{number}.c{i}",
                "kind": "caveat",
                "pr": number,
                "caveat": c.get("kind"),
                "text": c.get("sentence"),
            }
        )
        for i, c in enumerate(caveats or [], 1)
    ]


def description_fact_list(number: int, body: str | None) -> list[dict]:
    """`p<n>.d<k>`: the description's facts, template text removed (`description.py`)."""
    return [
        {"id": f"p{number}.d{i}", "kind": "description", "pr": number, "text": text}
        for i, text in enumerate(description_facts(body), 1)
    ]


def review_facts(number: int, threads: list[dict] | None) -> list[dict]:
    """`p<n>.r<k>`: the first comment of each review thread (the `github` source reads them),
    with its author, path, whether it was resolved, and a severity mark; marked ones first."""
    marked = []
    for thread in threads or []:
        body = thread.get("body") or ""
        text = plain(body)[:MAX_COMMENT_CHARS]
        if not text:
            continue
        marked.append((severity_marker(body), thread, text))
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3, None: 4}
    marked.sort(key=lambda m: order.get(m[0], 4))
    facts = []
    for i, (severity, thread, text) in enumerate(marked[:MAX_THREADS], 1):
        fact = {
            "id": f"p{number}.r{i}",
            "kind": "review",
            "pr": number,
            "author": thread.get("author"),
            "path": thread.get("path"),
            "resolved": thread.get("is_resolved"),
            "outdated": thread.get("is_outdated"),
            "severity": severity,
            "text": text,
        }
        facts.append(_clean(fact))
    return facts


def flag_facts(number: int, flags: list[dict]) -> list[dict]:
    """`p<n>.f<k>`: the PR's risk flags with their reasons and evidence."""
    return [
        _clean({"id": f"p{number}.f{i}", "kind": "flag", "pr": number, **flag})
        for i, flag in enumerate(flags, 1)
    ]


def mentions(
    facts: list[dict], known: dict[int, str], this_week: set[int], own: int | None
) -> dict:
    """The numbers the facts name that are not the PR itself, marked as what they are: a PR
    of this week, a PR of another week (with its week), or an issue or unknown PR."""
    texts = " ".join(json.dumps(f, ensure_ascii=False) for f in facts)
    marked = {}
    for number in sorted(set(refs(texts)) - {own}):
        if number in this_week:
            marked[str(number)] = "a PR of this week"
        elif number in known:
            marked[str(number)] = f"a PR of another week ({known[number]})"
        else:
            marked[str(number)] = "an issue, or a PR not in the warehouse"
    return marked


def week_fact(summary: dict, previous: int | None) -> dict:
    """`week`: the week's counts, theme and releases."""
    fact = {"id": "week", "kind": "week"}
    for key in (
        "merged_prs",
        "key_prs",
        "authors",
        "first_time_authors",
        "additions",
        "deletions",
        "theme",
        "theme_zh",
        "volume_trend",
        "releases",
    ):
        if summary.get(key) is not None:
            fact[key] = summary[key]
    if previous is not None:
        fact["previous_merged_prs"] = previous
    return _clean(fact)


def week_pr_fact(pr: dict, flags: list[str]) -> dict:
    """`p<n>` in the week's prompt: one line per PR of the week."""
    return _clean(
        {
            "id": f"p{pr['number']}",
            "kind": "pr",
            "pr": pr["number"],
            "title": pr["title"],
            "change_type": pr["change_type"],
            "primary_area": pr["primary_area"],
            "key": bool(pr.get("is_key")),
            "flags": flags or None,
        }
    )


def summary_fact(number: int, told: dict | None, data_summary: str | None) -> dict | None:
    """`p<n>.s`: the key PR's summary as the report shows it: the model's checked sentences,
    else the warehouse's change sentence."""
    if told and told.get("summary"):
        return {
            "id": f"p{number}.s",
            "kind": "summary",
            "pr": number,
            "source": "model",
            "en": " ".join(s["en"] for s in told["summary"]),
            "zh": "".join(s["zh"] for s in told["summary"]),
        }
    if data_summary:
        return {
            "id": f"p{number}.s",
            "kind": "summary",
            "pr": number,
            "source": "data",
            "en": strip_unsafe(data_summary),
        }
    return None


def story_facts(stories: list[dict]) -> list[dict]:
    """`story<k>`: the week's stories (a release, a series, a revert and re-land, ...)."""
    return [
        _clean(
            {
                "id": f"story{i}",
                "kind": "story",
                "story": s.get("story_id"),
                "story_kind": s.get("kind"),
                "title_en": s.get("title_en"),
                "title_zh": s.get("title_zh"),
                "prs": list(s.get("numbers") or []),
                "earlier_prs": list(s.get("earlier_numbers") or []) or None,
                "lead": s.get("lead_number"),
                "evidence": s.get("evidence"),
            }
        )
        for i, s in enumerate(stories, 1)
    ]


def risk_facts(risks: list[dict]) -> list[dict]:
    """`risk<k>`: every flag raised this week with its reason, the PRs sharing one reason
    together."""
    grouped: dict[tuple[str, str], list[int]] = {}
    for risk in risks:
        grouped.setdefault((risk["risk_flag"], risk["reason"]), []).append(risk["number"])
    return [
        _clean({"id": f"risk{i}", "kind": "risk", "prs": numbers, "flag": flag, "reason": reason})
        for i, ((flag, reason), numbers) in enumerate(grouped.items(), 1)
    ]


def area_facts(trends: list[dict]) -> list[dict]:
    """`area<k>`: the areas whose activity moved (new, back, rising, falling)."""
    return [
        _clean(
            {
                "id": f"area{i}",
                "kind": "area",
                "area": t["area"],
                "trend": t["trend"],
                "pr_count": t.get("pr_count"),
                "weeks_since_last": t.get("weeks_since_last"),
            }
        )
        for i, t in enumerate(trends, 1)
    ]
