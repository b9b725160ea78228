"""What the model is asked: a week's facts from the warehouse, as chat messages per PR and week.

Only warehouse facts go out, each with an id (`facts.py`): never code or diffs. Every key PR
of the week is narrated; the week's request comes after them and carries each key PR's
accepted summary, headline figure and caveats, the week's stories, risks and moving areas.
The same warehouse (and the same accepted answers) always gives the same messages, so their
hash keys the cache and the report finds the answers that match its facts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date

import duckdb

from orchestration.narrative import facts as F
from orchestration.narrative.schema import PR_SCHEMA_NAME, SCHEMAS, WEEK_SCHEMA_NAME
from orchestration.text import strip_unsafe

PROMPT_VERSION = "3"  # raise with any change to the wording below or to the facts sent
FACTS_MARK = "FACTS (JSON):\n"
MAX_STORIES, MAX_AREAS = 8, 8

SYSTEM = (
    "You write one part of a weekly engineering report about a GitHub repository's merged pull "
    "requests, for maintainers who read Chinese or English. Each sentence is a claim that must "
    "rest on the facts given: every fact has an id, and each sentence lists in `facts` the ids "
    "it rests on. A sentence is kept only when its cited facts support it: every figure is one "
    "they state, with its unit (a rounded figure is marked: 约 40% / about 40% for 40.45%); "
    "every PR or issue number is one they name, written #123; every code name (backticked, "
    "dotted, a path, a flag) is spelt as they spell it; a removal, crash, hang, leak, security "
    "problem, revert, default or missing test only when they say so. Do not guess: leave out "
    "what the facts do not say. Plain text only: no links, no Markdown except `code spans`, no "
    "HTML, no @mentions. Chinese fields are Simplified Chinese: names of code, models, hardware "
    "and libraries stay as written and go in `code spans` (`Qwen2.5-32B`, `FSDP2`, `NCCL`, "
    "`use_no_sync`), and common terms are said in Chinese (微批次 for micro-batch, 检查点 for "
    "checkpoint, 卸载 for offload, 提示词 for prompt, 权重同步 for weight sync); English fields "
    "are English; `zh` and `en` of one claim say the "
    "same thing with the same figures and PRs. Answer with one JSON object that follows the "
    "schema, nothing else."
)
PR_TASK = (
    "Summarise pull request #{number} for the report's key changes. summary: one to three "
    "sentences (the Chinese ones together at most about 220 characters): what it changes and "
    "why it matters, the figure that matters most with its condition (the impact claims, "
    "headline first), and its caveat if it has one. title_zh: a short Chinese title (technical "
    "names stay as written). value_zh / value_en: its core value as a short name, e.g. "
    "稳定性修复 / stability fix. `number` is {number}."
)
WEEK_TASK = (
    "Write the week's part of the report. summary: three to five sentences on what happened "
    "(the week's count and how it changed, releases, the two or three stories that matter with "
    "their figure, the main open risk). theme: the week's theme in one sentence. stories: for "
    "each story of the facts that matters, and for groups of related PRs you see (with an empty "
    "`story`), a short title and one or two sentences, its PRs in `prs`. recommendations: at "
    "most five actions a maintainer can take this week, each naming the concrete problem (a "
    "risk, caveat or review comment) and its PRs, which go in `prs` too."
)
IDS = (
    " Fact ids: p<N> is PR #N; p<N>.d<k> a sentence of its description, .i<k> an impact claim "
    "(the headline first), .c<k> a caveat, .r<k> a review comment, .f<k> a risk flag, .s its "
    "summary as the report shows it; week, story<k>, risk<k>, area<k> are the week's. "
    "`mentions` says what each other number the facts name is."
)


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
    def fact_list(self) -> list[dict]:
        return self.facts.get("facts") or []


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _columns(conn: duckdb.DuckDBPyConnection, schema: str, table: str) -> set[str]:
    rows = conn.execute(
        "select column_name from information_schema.columns "
        "where table_schema = ? and table_name = ?",
        [schema, table],
    ).fetchall()
    return {name for (name,) in rows}


def _optional(present: set[str], names: tuple[str, ...], prefix: str = "p.") -> str:
    return "".join(f", {prefix}{n}" if n in present else f", null as {n}" for n in names)


def _messages(task: str, facts: dict) -> tuple[dict, ...]:
    facts = {**facts, "facts": [F.compact(f) for f in facts["facts"]]}
    body = json.dumps(facts, ensure_ascii=False, default=str, separators=(",", ":"))
    return (
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{task}\n\n{FACTS_MARK}{body}"},
    )


@dataclass
class WeekRows:
    """What the marts hold about one week, read once for all its requests."""

    prs: list[dict]
    risks: list[dict]
    paths: dict[int, list[str]]
    threads: dict[int, list[dict]]
    known: dict[int, str]  # every PR of the repository in the warehouse: number -> week


def read_week(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> WeekRows:
    present = _columns(conn, "marts", "fct_pull_requests")
    extra = _optional(
        present,
        ("is_key", "summary", "headline_claim", "caveats", "release_version", "files_complete"),
    )
    staged = _columns(conn, "staging", "stg_pull_requests")
    threads = ", s.review_threads" if "review_threads" in staged else ", null as review_threads"
    prs = _rows(
        conn,
        "select p.number, p.title, p.change_type, p.primary_area, p.areas, p.importance, "
        "p.additions, p.deletions, p.changed_files, p.impact_claims, p.severity_word, "
        f"p.topics, p.is_breaking{extra}, s.body{threads} "
        "from marts.fct_pull_requests p "
        "left join staging.stg_pull_requests s using (repo, week_start, number) "
        "where p.repo = ? and p.week_start = ? order by p.importance desc, p.number",
        [repo, week],
    )
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
        paths.setdefault(number, []).append(strip_unsafe(path))
    known = dict(
        conn.execute(
            "select number, strftime(week_start, '%G-W%V') from marts.fct_pull_requests "
            "where repo = ?",
            [repo],
        ).fetchall()
    )
    threads_by = {p["number"]: list(p.get("review_threads") or []) for p in prs}
    return WeekRows(prs, risks, paths, threads_by, known)


def _key_prs(rows: WeekRows, conn: duckdb.DuckDBPyConnection) -> list[dict]:
    if any(p.get("is_key") is not None for p in rows.prs):
        return [p for p in rows.prs if p.get("is_key")]
    (threshold,) = conn.execute(
        "select coalesce(max(weight), 5.0) from seeds.importance_weights "
        "where factor = 'key_threshold'"
    ).fetchone()
    return [p for p in rows.prs if p["importance"] >= threshold]


def _flags(rows: WeekRows) -> dict[int, list[dict]]:
    flags: dict[int, list[dict]] = {}
    for risk in rows.risks:
        evidence = json.loads(risk["evidence"]) if risk["evidence"] else {}
        flags.setdefault(risk["number"], []).append(
            {"flag": risk["risk_flag"], "reason": risk["reason"], "evidence": evidence}
        )
    return flags


def pr_asks(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> list[Ask]:
    """One request per key PR of the week, most important first."""
    rows = read_week(conn, repo, week)
    flags = _flags(rows)
    this_week = {p["number"] for p in rows.prs}
    asks = []
    for pr in _key_prs(rows, conn):
        number = pr["number"]
        fact_list = [
            F.pr_fact(pr, rows.paths.get(number, [])),
            *F.description_fact_list(number, pr.get("body")),
            *F.claim_facts(number, pr.get("impact_claims"), pr.get("headline_claim")),
            *F.caveat_facts(number, pr.get("caveats")),
            *F.review_facts(number, rows.threads.get(number)),
            *F.flag_facts(number, flags.get(number, [])),
        ]
        facts = {
            "repository": repo,
            "number": number,
            "facts": fact_list,
            "mentions": F.mentions(fact_list, rows.known, this_week, number),
        }
        asks.append(ask_of_facts(repo, week, number, facts))
    return asks


def week_ask(
    conn: duckdb.DuckDBPyConnection, repo: str, week: date, told: dict[int, dict | None]
) -> Ask | None:
    """The week's request, given the accepted PR answers (`told`, by number; None where a
    PR's answer was not used); None for a week without PRs."""
    rows = read_week(conn, repo, week)
    if not rows.prs:
        return None
    present = _columns(conn, "marts", "fct_weekly_summary")
    extra = _optional(present, ("releases", "volume_trend"), "")
    summary = _rows(
        conn,
        f"select merged_prs, key_prs, authors, first_time_authors, additions, deletions, theme, "
        f"theme_zh{extra} from marts.fct_weekly_summary where repo = ? and week_start = ?",
        [repo, week],
    )
    previous = conn.execute(
        "select merged_prs from marts.fct_weekly_summary where repo = ? and week_start = ?",
        [repo, week.fromordinal(week.toordinal() - 7)],
    ).fetchone()
    flags = _flags(rows)
    fact_list = [
        F.week_fact(
            summary[0] if summary else {"merged_prs": len(rows.prs)},
            previous[0] if previous else None,
        )
    ]
    fact_list += [
        F.week_pr_fact(p, [f["flag"] for f in flags.get(p["number"], [])]) for p in rows.prs
    ]
    for pr in _key_prs(rows, conn):
        number = pr["number"]
        told_fact = F.summary_fact(number, told.get(number), pr.get("summary"))
        fact_list += [told_fact] if told_fact else []
        fact_list += F.claim_facts(number, pr.get("impact_claims"), pr.get("headline_claim"))[:1]
        fact_list += F.caveat_facts(number, pr.get("caveats"))
    fact_list += F.story_facts(_stories(conn, repo, week))
    fact_list += F.risk_facts(rows.risks)
    fact_list += F.area_facts(_moving_areas(conn, repo, week))
    facts = {"repository": repo, "week_start": week.isoformat(), "facts": fact_list}
    facts["mentions"] = F.mentions(fact_list, rows.known, {p["number"] for p in rows.prs}, None)
    return ask_of_facts(repo, week, None, facts)


def _stories(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> list[dict]:
    present = _columns(conn, "marts", "fct_weekly_stories")
    if not present:
        return []
    extra = _optional(present, ("evidence", "earlier_numbers"), "")
    return _rows(
        conn,
        f"select story_id, kind, title_en, title_zh, numbers, lead_number{extra} "
        "from marts.fct_weekly_stories where repo = ? and week_start = ? "
        f"order by importance desc, story_id limit {MAX_STORIES}",
        [repo, week],
    )


def _moving_areas(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> list[dict]:
    present = _columns(conn, "marts", "fct_weekly_area_trends")
    extra = _optional(present, ("weeks_since_last",), "")
    return _rows(
        conn,
        f"select area, trend, pr_count{extra} from marts.fct_weekly_area_trends "
        "where repo = ? and week_start = ? and pr_count > 0 and trend in "
        "('new', 'back', 'rising', 'falling') "
        f"order by importance_sum desc, area limit {MAX_AREAS}",
        [repo, week],
    )


def ask_of_facts(repo: str, week: date, number: int | None, facts: dict) -> Ask:
    """The request for facts as a prompt holds them (a PR's when `number` is set)."""
    if number is None:
        return Ask(repo, week, None, WEEK_SCHEMA_NAME, _messages(WEEK_TASK + IDS, facts), facts)
    task = PR_TASK.format(number=number) + IDS
    return Ask(repo, week, number, PR_SCHEMA_NAME, _messages(task, facts), facts)


def week_asks(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> list[Ask]:
    """Every request of a week as it is asked before any answer: the key PRs, then the week
    (with the warehouse's summaries); for tests and the emulator."""
    asks = pr_asks(conn, repo, week)
    last = week_ask(conn, repo, week, {})
    return asks + ([last] if last else [])
