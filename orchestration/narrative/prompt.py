"""What the model is asked: a week's facts from the warehouse, as chat messages per PR and week.

Only warehouse facts go out: titles, the cleaned description, paths, areas, factors, flags with
their evidence and impact claims; never code or diffs. The same warehouse always gives the same
messages, so their hash keys the cache and the report finds the answers that match its facts.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import date

import duckdb

from orchestration.control_chars import strip_unsafe
from orchestration.narrative.schema import PR_SCHEMA_NAME, SCHEMAS, WEEK_SCHEMA_NAME

PROMPT_VERSION = "1"  # raise with any change to the wording below or to the facts sent
NARRATED_PRS = 8  # the key changes a report shows, most important first
MAX_DESCRIPTION_CHARS = 1500
MAX_PATHS = 20
FACTS_MARK = "FACTS (JSON):\n"

SYSTEM = (
    "You write one part of a weekly engineering report about a GitHub repository's merged pull "
    "requests, for maintainers who read Chinese or English. Use only the facts given: do not "
    "guess. Name a pull request only as #number and only one listed in the facts. State a "
    "figure only if it appears in the facts. Chinese fields are written in Simplified Chinese "
    "(technical names may stay as they are); English fields in English. Answer with one JSON "
    "object that follows the schema, nothing else."
)
PR_TASK = (
    "Summarise this pull request in one or two sentences in Chinese (summary_zh) and in "
    "English (summary_en): what it changes and why it matters. Give its core value as a short "
    "name (value_zh, value_en), e.g. 稳定性修复 / stability fix. `number` is the PR's number."
)
WEEK_TASK = (
    "Describe this week: its theme in words (theme_zh, theme_en, one or two sentences); groups "
    "of related pull requests (at least two each) with a title; and recommendations that name "
    "the concrete problem and the pull requests concerned (from the flags and their reasons)."
)
_COMMENT = re.compile(r"<!--.*?(-->|$)", re.DOTALL)
_FENCE = re.compile(r"^(```|~~~).*?^(```|~~~)[^\n]*$", re.DOTALL | re.MULTILINE)
_BLANKS = re.compile(r"\n\s*\n+")


@dataclass(frozen=True)
class Ask:
    """One request for the model: a PR's summary (`number` set) or the week's."""

    repo: str
    week_start: date
    number: int | None
    schema_name: str
    messages: tuple[dict, ...]
    facts: dict

    @property
    def kind(self) -> str:
        return "pr" if self.number is not None else "week"

    def key(self, model: str) -> str:
        """The cache key: the hash of the exact input, the model and the prompt version."""
        payload = {
            "model": model,
            "prompt_version": PROMPT_VERSION,
            "messages": list(self.messages),
            "schema": SCHEMAS[self.schema_name],
        }
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def facts_text(self) -> str:
        """The facts as sent: what every figure in the answer must come from."""
        return self.messages[-1]["content"]


def clean_description(body: str | None) -> str:
    """The description without comments, code blocks or control characters, shortened."""
    text = strip_unsafe((body or "").replace("\r\n", "\n").replace("\r", "\n"))
    text = _FENCE.sub("", _COMMENT.sub("", text))
    text = _BLANKS.sub("\n\n", text).strip()
    return text[:MAX_DESCRIPTION_CHARS]


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _messages(task: str, facts: dict) -> tuple[dict, ...]:
    body = json.dumps(facts, ensure_ascii=False, sort_keys=True, default=str)
    return (
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{task}\n\n{FACTS_MARK}{body}"},
    )


def week_asks(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> list[Ask]:
    """Every request a week needs: one per narrated PR, then the week's (none for an empty
    week)."""
    prs = _rows(
        conn,
        "select p.number, p.title, p.change_type, p.primary_area, p.areas, p.importance, "
        "p.additions, p.deletions, p.changed_files, p.impact_claims, p.severity_word, "
        "p.topics, s.body "
        "from marts.fct_pull_requests p "
        "left join staging.stg_pull_requests s using (repo, week_start, number) "
        "where p.repo = ? and p.week_start = ? order by p.importance desc, p.number",
        [repo, week],
    )
    if not prs:
        return []
    risks = _rows(
        conn,
        "select risk_flag, number, reason, evidence from marts.fct_weekly_risks "
        "where repo = ? and week_start = ? order by risk_flag, number",
        [repo, week],
    )
    paths: dict[int, list[str]] = {}
    for number, path in conn.execute(
        "select number, path from staging.stg_pull_request_files "
        "where repo = ? and week_start = ? order by number, path",
        [repo, week],
    ).fetchall():
        paths.setdefault(number, []).append(path)
    (threshold,) = conn.execute(
        "select coalesce(max(weight), 5.0) from seeds.importance_weights "
        "where factor = 'key_threshold'"
    ).fetchone()
    flags: dict[int, list[dict]] = {}
    for risk in risks:
        evidence = json.loads(risk["evidence"]) if risk["evidence"] else {}
        flags.setdefault(risk["number"], []).append(
            {"flag": risk["risk_flag"], "reason": risk["reason"], "evidence": evidence}
        )
    asks = []
    for pr in [p for p in prs if p["importance"] >= threshold][:NARRATED_PRS]:
        facts = {
            "repository": repo,
            "number": pr["number"],
            "title": strip_unsafe(pr["title"] or ""),
            "description": clean_description(pr["body"]),
            "change_type": pr["change_type"],
            "primary_area": pr["primary_area"],
            "areas": pr["areas"] or [],
            "topics": pr["topics"] or [],
            "importance": float(pr["importance"]),
            "size": {
                "additions": pr["additions"],
                "deletions": pr["deletions"],
                "changed_files": pr["changed_files"],
            },
            "paths": paths.get(pr["number"], [])[:MAX_PATHS],
            "flags": flags.get(pr["number"], []),
            "impact_claims": pr["impact_claims"] or [],
            "severity_word": pr["severity_word"],
        }
        asks.append(Ask(repo, week, pr["number"], PR_SCHEMA_NAME, _messages(PR_TASK, facts), facts))
    summary = _rows(
        conn,
        "select merged_prs, key_prs, authors, theme, theme_zh from marts.fct_weekly_summary "
        "where repo = ? and week_start = ?",
        [repo, week],
    )
    facts = {
        "repository": repo,
        "week_start": week.isoformat(),
        **(summary[0] if summary else {"merged_prs": len(prs)}),
        "pull_requests": [
            {
                "number": p["number"],
                "title": strip_unsafe(p["title"] or ""),
                "change_type": p["change_type"],
                "primary_area": p["primary_area"],
                "importance": float(p["importance"]),
                "flags": [f["flag"] for f in flags.get(p["number"], [])],
            }
            for p in prs
        ],
        "risks": [
            {"flag": r["risk_flag"], "number": r["number"], "reason": r["reason"]} for r in risks
        ],
    }
    asks.append(Ask(repo, week, None, WEEK_SCHEMA_NAME, _messages(WEEK_TASK, facts), facts))
    return asks
