"""The narrative a report uses: the checked answers that match the week's facts as they are.

The report builds the same requests the narrative asset built, from the same marts, and takes
only the answers stored under their hashes: text written for other facts, another model or
another prompt version is never shown. Without `PRWEEKLY_LLM_URL` nothing is read and every
report is exactly what it is without a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb

from orchestration.narrative.prompt import week_asks
from orchestration.narrative.settings import load_llm_settings
from orchestration.narrative.store import find

WORDS = {
    "zh": {
        "value": "核心价值",
        "groups": "相关改动",
        "note": "本报告的{parts}由语言模型 {model} 撰写，并已与数据仓库逐条核对；"
        "其余内容由数据直接生成。",
        "note_fallback": "未通过核对、改用确定性文本的部分：{parts}。",
        "note_none": "语言模型 {model} 的回答未通过核对（{parts}），本报告全部由数据直接生成。",
        "sep": "、",
        "pr_parts": "重点变化中 {n} 个 PR 的说明",
        "week": "本周主题、相关改动分组与后续建议",
        "pr_fallback": "重点变化中 {n} 个 PR 的说明",
        "week_fallback": "本周主题、分组与建议",
    },
    "en": {
        "value": "Core value",
        "groups": "Related changes",
        "note": "Written by the language model {model} and checked against the warehouse: "
        "{parts}; everything else is derived from the data.",
        "note_fallback": " Fell back to the deterministic text: {parts}.",
        "note_none": "The answers of the language model {model} failed their checks ({parts}); "
        "this report is derived from the data alone.",
        "sep": ", ",
        "pr_parts": "what {n} key changes do",
        "week": "the week's theme, groups and recommendations",
        "pr_fallback": "what {n} key changes do",
        "week_fallback": "the week's theme, groups and recommendations",
    },
}


@dataclass
class WeekNarrative:
    """The model's checked text for one week, by part; a part it did not write is absent."""

    model: str
    prs: dict[int, dict] = field(default_factory=dict)
    week: dict | None = None
    pr_fallbacks: int = 0
    week_fallback: bool = False

    @property
    def groups(self) -> list[dict]:
        return (self.week or {}).get("groups") or []

    @property
    def recommendations(self) -> list[dict]:
        return (self.week or {}).get("recommendations") or []

    def label(self, t, key: str) -> str:
        return t.esc(WORDS[t.lang][key])

    def what(self, t, pr: dict) -> str | None:
        told = self.prs.get(pr["number"])
        return t.esc(told[f"summary_{t.lang}"]) if told else None

    def value(self, t, pr: dict) -> str | None:
        told = self.prs.get(pr["number"])
        return t.esc(told[f"value_{t.lang}"]) if told else None

    def theme(self, t) -> str | None:
        return t.esc(self.week[f"theme_{t.lang}"]) if self.week else None

    def _links(self, t, numbers: list[int], prs: list[dict]) -> str:
        by_number = {pr["number"]: pr for pr in prs}
        return t.join([t.link(by_number[n]) for n in numbers if n in by_number])

    def group(self, t, group: dict, prs: list[dict]) -> str:
        title = t.strong(group[f"title_{t.lang}"])
        return t.safe(f"{title}{t.s['colon']}{self._links(t, group['prs'], prs)}")

    def recommendation(self, t, item: dict, prs: list[dict]) -> str:
        text, links = t.esc(item[f"text_{t.lang}"]), self._links(t, item["prs"], prs)
        return t.safe(f"{text}（{links}）" if t.lang == "zh" else f"{text} ({links})")

    def note(self, t) -> str:
        """The line under the title: which parts the model wrote, which model, what fell back."""
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
        if failed:
            text = t.safe(text + t.fill(words["note_fallback"], parts=words["sep"].join(failed)))
        return text


def load_narrative(conn: duckdb.DuckDBPyConnection, repo: str, week: date) -> WeekNarrative | None:
    """The model's text for the week's report, or None (no model set, or none was asked)."""
    llm = load_llm_settings()
    if llm is None:
        return None
    asks = week_asks(conn, repo, week)
    keys = [a.key(llm.model) for a in asks]
    found = find(conn, keys)
    if not found:
        return None
    narrative = WeekNarrative(llm.model)
    for ask, key in zip(asks, keys, strict=True):
        outcome = found.get(key)
        if outcome is None:
            continue
        used = outcome.source == "model"
        if ask.number is not None:
            if used:
                narrative.prs[ask.number] = outcome.narrative
            else:
                narrative.pr_fallbacks += 1
        elif used:
            narrative.week = outcome.narrative
        else:
            narrative.week_fallback = True
    if not narrative.prs and narrative.week is None and not narrative.pr_fallbacks:
        return None if not narrative.week_fallback else narrative
    return narrative
