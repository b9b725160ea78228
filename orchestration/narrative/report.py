"""The narrative a report uses: the checked answers that match the week's facts as they are.

The report builds the same requests the narrative asset built, from the same marts (the week's
request from the PR answers found), and takes only the answers stored under their hashes:
text written for other facts, another model or another prompt version is never shown.
Without `PRWEEKLY_LLM_URL` nothing is read and every report is exactly what it is without a
model. What the report helper renders (each returns text for the target, or None):
`what` / `value` / `title_zh` per key PR, `happened` (the week's summary sentences),
`theme`, `stories` (title, PRs and sentences, `story_text`), `recommendation`, `note`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.narrative.narrate import told, week_numbers
from orchestration.narrative.prompt import pr_asks, week_ask
from orchestration.narrative.settings import load_llm_settings
from orchestration.narrative.store import find

WORDS = {
    "zh": {
        "value": "核心价值",
        "groups": "相关改动",
        "note": "本报告的{parts}由语言模型 {model} 撰写，每句都已与数据仓库中它引用的事实核对；"
        "其余内容由数据直接生成。",
        "note_dropped": "{n} 句无法由所引事实证实的表述已删去。",
        "note_fallback": "未通过核对、改用确定性文本的部分：{parts}。",
        "note_none": "语言模型 {model} 的回答未通过核对（{parts}），本报告全部由数据直接生成。",
        "sep": "、",
        "pr_parts": "重点变化中 {n} 个 PR 的说明",
        "week": "本周概述、故事与后续建议",
        "pr_fallback": "重点变化中 {n} 个 PR 的说明",
        "week_fallback": "本周概述、故事与建议",
    },
    "en": {
        "value": "Core value",
        "groups": "Related changes",
        "note": "Written by the language model {model}, each sentence checked against the "
        "warehouse facts it cites: {parts}; everything else is derived from the data.",
        "note_dropped": " {n} of its sentences were left out: the facts they cite do not "
        "support them.",
        "note_fallback": " Fell back to the deterministic text: {parts}.",
        "note_none": "The answers of the language model {model} failed their checks ({parts}); "
        "this report is derived from the data alone.",
        "sep": ", ",
        "pr_parts": "what {n} key changes do",
        "week": "the week's summary, stories and recommendations",
        "pr_fallback": "what {n} key changes do",
        "week_fallback": "the week's summary, stories and recommendations",
    },
}
_CODE = re.compile(r"`([^`]+)`")


def rich(t, text: str) -> str:
    """Plain model text for the target: its code spans as code, the rest escaped."""
    parts, last = [], 0
    for match in _CODE.finditer(text):
        parts += [str(t.esc(text[last : match.start()])), str(t.code(match.group(1)))]
        last = match.end()
    parts.append(str(t.esc(text[last:])))
    return t.safe("".join(parts))


def _joined(t, claims: list[dict]) -> str | None:
    if not claims:
        return None
    return rich(t, ("" if t.lang == "zh" else " ").join(c[t.lang] for c in claims))


@dataclass
class WeekNarrative:
    """The model's checked text for one week, by part; a part it did not write is absent."""

    model: str
    prs: dict[int, dict] = field(default_factory=dict)
    week: dict | None = None
    pr_fallbacks: int = 0
    week_fallback: bool = False
    dropped: int = 0  # sentences left out because their cited facts did not support them

    @property
    def stories(self) -> list[dict]:
        return (self.week or {}).get("stories") or []

    @property
    def groups(self) -> list[dict]:
        """The stories as the report's related-change groups (a title and PRs)."""
        return self.stories

    @property
    def recommendations(self) -> list[dict]:
        return (self.week or {}).get("recommendations") or []

    def label(self, t, key: str) -> str:
        return t.esc(WORDS[t.lang][key])

    def what(self, t, pr: dict) -> str | None:
        told_pr = self.prs.get(pr["number"])
        return _joined(t, told_pr["summary"]) if told_pr else None

    def value(self, t, pr: dict) -> str | None:
        told_pr = self.prs.get(pr["number"]) or {}
        value = told_pr.get(f"value_{t.lang}")
        return t.esc(value) if value else t.esc(t.type_short(pr["change_type"]))

    def title_zh(self, t, pr: dict) -> str | None:
        """The key PR's short Chinese title, beside the original (None if none was kept)."""
        value = (self.prs.get(pr["number"]) or {}).get("title_zh")
        return rich(t, value) if value else None

    def happened(self, t) -> str | None:
        """The week's summary sentences (what happened)."""
        return _joined(t, (self.week or {}).get("summary") or [])

    def theme(self, t) -> str | None:
        """The week's theme sentence and its summary, as one paragraph."""
        week = self.week or {}
        claims = ([week["theme"]] if week.get("theme") else []) + (week.get("summary") or [])
        return _joined(t, claims) or ""

    def story_text(self, t, story: dict) -> str | None:
        return _joined(t, story.get("sentences") or [])

    def _links(self, t, numbers: list[int], prs: list[dict]) -> str:
        by_number = {pr["number"]: pr for pr in prs}
        return t.join([t.link(by_number[n]) for n in numbers if n in by_number])

    def group(self, t, group: dict, prs: list[dict]) -> str:
        title = t.strong(group[f"title_{t.lang}"])
        text = self.story_text(t, group)
        links = self._links(t, group["prs"], prs)
        tail = f" {text}" if text else ""
        return t.safe(f"{title}{t.s['colon']}{links}{tail}")

    def recommendation(self, t, item: dict, prs: list[dict]) -> str:
        text, links = rich(t, item[t.lang]), self._links(t, item["prs"], prs)
        return t.safe(f"{text}（{links}）" if t.lang == "zh" else f"{text} ({links})")

    def note(self, t) -> str:
        """The line under the title: which parts the model wrote, which model, what was left
        out and what fell back."""
        words = WORDS[t.lang]
        parts = []
        if self.prs:
            parts.append(words["pr_parts"].format(n=len(self.prs)))
        if self.week:
            parts.append(words["week"])
        failed = []
        if self.pr_fallbacks:
            failed.append(words["pr_fallback"].format(n=self.pr_fallbacks))
        if self.week_fallback:
            failed.append(words["week_fallback"])
        model = t.code(self.model)
        if not parts:
            return t.fill(words["note_none"], model=model, parts=words["sep"].join(failed))
        text = t.fill(words["note"], parts=words["sep"].join(parts), model=model)
        if self.dropped:
            text = t.safe(text + t.fill(words["note_dropped"], n=self.dropped))
        if failed:
            text = t.safe(text + t.fill(words["note_fallback"], parts=words["sep"].join(failed)))
        return text


def _claims_dropped(outcome) -> int:
    return sum(1 for line in outcome.dropped_claims if " dropped (" in line)


def load_narrative(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> WeekNarrative | None:
    """The model's text for the week's report, or None (no model set, or none was asked)."""
    llm = load_llm_settings()
    if llm is None:
        return None
    asks = pr_asks(conn, repo, week)
    found = find(conn, [a.key(llm.model) for a in asks])
    outcomes = [found.get(a.key(llm.model)) for a in asks]
    last = week_ask(conn, repo, week, told([o for o in outcomes if o is not None]))
    week_outcome = find(conn, [last.key(llm.model)]).get(last.key(llm.model)) if last else None
    if not any(outcomes) and week_outcome is None:
        return None
    narrative = WeekNarrative(llm.model)
    for ask, outcome in zip(asks, outcomes, strict=True):
        if outcome is None:
            continue
        if outcome.source == "model":
            narrative.prs[ask.number] = outcome.narrative
            narrative.dropped += _claims_dropped(outcome)
        else:
            narrative.pr_fallbacks += 1
    if week_outcome is not None and week_outcome.source == "model":
        narrative.week = week_outcome.narrative
        narrative.dropped += _claims_dropped(week_outcome)
    elif week_outcome is not None:
        narrative.week_fallback = True
    if not narrative.prs and narrative.week is None and not narrative.pr_fallbacks:
        return None if not narrative.week_fallback else narrative
    return narrative


__all__ = ["WeekNarrative", "load_narrative", "rich", "week_numbers"]
