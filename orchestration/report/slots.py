"""The body's slots a language model may write, and the rule-built text that fills them otherwise.

Four slots (issue 25): the week's summary ("what happened"), each story's sentences, the Chinese
short title of each key PR, and the actions. With a model configured, the narrative step
(orchestration/narrative) stores the answers its checks accepted; `fill` takes their plain text
(code spans as code, the rest escaped for the output, each `#N` of a PR of the week a link) and
falls back slot by slot to the rule-built sentences. Everything else in the body is
deterministic text.

What is read from the narrative (`WeekNarrative`; every sentence a claim `{"zh", "en", ...}`):
- `week["summary"]`: the summary's claims;
- `week["stories"]`: `{"story", "prs", "sentences", ...}`, `story` the mart's story_id (or
  empty): the sentences of the story it names, or of a story of exactly its PRs;
- `week["recommendations"]`: `{"zh", "en", "prs"}`, the actions;
- `prs[number]["title_zh"]`: a key PR's Chinese short title; `prs[number]["summary"]` the
  sentences of a story that PR leads when the week answer has none for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from orchestration.report.view import MAX_ACTIONS, ReportView, Story

_PR_NUMBER = re.compile(r"(?<![\w#/])#(\d+)\b")
_CODE = re.compile(r"`([^`]+)`")


@dataclass
class BodyText:
    """The body's composed text in one language and format, slot by slot, with its source."""

    summary: list[str]
    stories: dict[str, list[str]]
    titles: dict[int, str]  # PR number -> the model's Chinese short title
    actions: list[str]
    source: dict[str, str] = field(default_factory=dict)  # slot -> "model" or "rules"

    def story(self, story_id: str) -> list[str]:
        return self.stories.get(story_id, [])


def _piece(t: Any, text: str) -> str:
    """A stretch of text between links and code, escaped, keeping one space where it had."""
    inner = str(t.esc(text)) if text.strip() else ""
    before = " " if text[:1].isspace() and inner else ""
    after = " " if text[-1:].isspace() else ""
    return f"{before}{inner}{after}"


def _linked(t: Any, text: str, by_number: dict[int, dict]) -> str:
    parts, last = [], 0
    for match in _PR_NUMBER.finditer(text):
        pr = by_number.get(int(match.group(1)))
        if pr is None:
            continue
        parts += [_piece(t, text[last : match.start()]), str(t.link(pr))]
        last = match.end()
    parts.append(_piece(t, text[last:]))
    return "".join(parts)


def linked(t: Any, text: str, prs: list[dict]) -> str:
    """Model text for the output: code spans as code, the rest escaped, each `#N` of a PR of
    the week a link."""
    by_number = {pr["number"]: pr for pr in prs}
    parts, last = [], 0
    for match in _CODE.finditer(text):
        parts += [_linked(t, text[last : match.start()], by_number), str(t.code(match.group(1)))]
        last = match.end()
    parts.append(_linked(t, text[last:], by_number))
    return t.safe("".join(parts).strip())


def _claims(t: Any, claims: Any) -> str | None:
    """The text of a list of claims in the report's language, joined as one paragraph."""
    if not isinstance(claims, list):
        return None
    texts = [c[t.lang].strip() for c in claims if isinstance(c, dict) and c.get(t.lang)]
    return t.s["space"].join(texts) or None


def model_titles(t: Any, v: ReportView) -> dict[int, str]:
    """The Chinese short titles the model wrote for the week's PRs (a Chinese edition only)."""
    narrative = v.facts.narrative
    if narrative is None or t.lang != "zh":
        return {}
    told = getattr(narrative, "prs", None) or {}
    return {
        number: linked(t, answer["title_zh"], v.facts.prs)
        for number, answer in told.items()
        if isinstance(answer, dict) and isinstance(answer.get("title_zh"), str)
        and answer["title_zh"].strip()
    }  # fmt: skip


def _with_refs(t: Any, item: dict, text: str, prs: list[dict]) -> str:
    """An action as the model wrote it; the PRs it concerns linked after it only when the text
    does not name them itself (a PR is never named twice)."""
    named = {int(n) for n in _PR_NUMBER.findall(text)}
    by_number = {pr["number"]: pr for pr in prs}
    rest = [by_number[n] for n in item.get("prs") or [] if n in by_number and n not in named]
    body = linked(t, text, prs)
    if not rest:
        return body
    refs = t.join([t.link(pr) for pr in rest])
    return t.safe(f"{body}（{refs}）" if t.lang == "zh" else f"{body} ({refs})")


def _story_answer(story: Story, answers: list[dict]) -> dict | None:
    """The model's story for a story of the body of several PRs: the one naming its story_id,
    else one of its own whose PRs are the story's (never text about other PRs)."""
    if story.is_single:
        return None
    numbers = {pr["number"] for pr in story.prs}
    for answer in answers:
        if answer.get("story") and answer["story"] == story.story_id:
            return answer
    return next((a for a in answers if set(a.get("prs") or []) == numbers), None)


def fill(t: Any, v: ReportView, rules: BodyText) -> BodyText:
    """`rules` with every slot the model wrote (and the checks accepted) put in its place; the
    titles are the model's already (`model_titles`), as the rule-built summary names them."""
    source = dict.fromkeys(("summary", "stories", "titles", "actions"), "rules")
    if rules.titles:
        source["titles"] = "model"
    narrative = v.facts.narrative
    out = BodyText(rules.summary, dict(rules.stories), rules.titles, rules.actions, source)
    if narrative is None:
        return out
    prs = v.facts.prs
    week = getattr(narrative, "week", None) or {}
    told = getattr(narrative, "prs", None) or {}

    if summary := _claims(t, week.get("summary")):
        out.summary = [linked(t, summary, prs)]
        source["summary"] = "model"

    answers = [s for s in week.get("stories") or [] if isinstance(s, dict)]
    for story in v.stories:
        answer = _story_answer(story, answers)
        # a story's own sentences, else (a PR told alone) what the model said of its lead
        text = _claims(t, (answer or {}).get("sentences"))
        text = text or _claims(t, (told.get(story.lead["number"]) or {}).get("summary"))
        if text:
            out.stories[story.story_id] = [linked(t, text, prs)]
            source["stories"] = "model"

    written = [
        _with_refs(t, item, item[t.lang], prs)
        for item in week.get("recommendations") or []
        if isinstance(item, dict) and isinstance(item.get(t.lang), str) and item[t.lang].strip()
    ][:MAX_ACTIONS]
    if written:
        out.actions = written
        source["actions"] = "model"
    return out
