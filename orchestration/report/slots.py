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
  empty): the sentences of the story it names, or of a story of exactly its PRs (at most
  MAX_STORY_SENTENCES: a story is told in one or two sentences, the figure's first);
- `week["recommendations"]`: `{"zh", "en", "prs"}`, the actions;
- `prs[number]["title_zh"]`: a key PR's Chinese short title; `prs[number]["summary"]` the
  sentences of a story that PR leads when the week answer has none for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from orchestration.report.body import story_parts
from orchestration.report.caveats import caveat_phrase
from orchestration.report.view import MAX_ACTIONS, ReportView, Story

MAX_STORY_SENTENCES = 2  # of the model's, a story tells; the appendix has them all
MAX_STORY_CHARS = 160  # and in at most this many characters of Chinese (a two-minute read)
_MEASURED = re.compile(r"\d\s*(?:%|倍|×|[xX](?![A-Za-z])|ms\b|s\b|h\b|秒|小时|[KMG]i?B\b)")
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


def _cites(claim: dict, mark: str) -> bool:
    """Does the claim rest on a fact of that kind (`.i1` the headline claim, `.c` a caveat)?"""
    return any(mark in str(fact_id) for fact_id in claim.get("facts") or [])


def _measured(claim: dict) -> bool:
    """Does the claim state a measured figure (`降低约 40%`, `1.68 倍`, `14.2 s`)?"""
    return bool(_MEASURED.search(str(claim.get("zh") or "")))


def _chosen(claims: Any, most: int) -> list[dict]:
    """At most `most` of the claims, in their order, within MAX_STORY_CHARS of Chinese: the
    first and the first with a measured figure (if the first has none), then the next ones;
    when two are too long, the one with the figure alone."""
    items = [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
    measured = [c for c in items if _measured(c)]
    picked = [items[0]] if items and (most > 1 or not measured) else []
    if measured and measured[0] not in picked:
        picked.append(measured[0])
    picked += [c for c in items if c not in picked][: max(0, most - len(picked))]
    picked = [c for c in items if c in picked][:most]
    if len(picked) > 1 and sum(len(str(c.get("zh") or "")) for c in picked) > MAX_STORY_CHARS:
        picked = [(measured or picked)[0]]
    return picked


def _story_text(
    t: Any, v: ReportView, story: Story, answer: dict | None, told: dict, prs: list[dict]
) -> list[str]:
    """A story in one or two of the model's sentences: its own story's, else its lead's (one of
    them for a story of several PRs), after the rule-built sentence that says who leads a story
    of several PRs; the lead's caveat worded by rule when none of them states it; then what
    the rules say of its other PRs (one reverted since)."""
    alone = story.is_single or story.headed_by_lead
    by_story = _chosen((answer or {}).get("sentences"), MAX_STORY_SENTENCES)
    of_lead = (told.get(story.lead["number"]) or {}).get("summary")
    claims = by_story or _chosen(of_lead, MAX_STORY_SENTENCES if alone else 1)
    text = _claims(t, claims)
    if not text:
        return []
    before, _, after = story_parts(t, v, story)  # the rule-built sentences around them
    out = [*before, linked(t, text, prs)]
    if not any(_cites(c, ".c") for c in claims) and (caveat := caveat_phrase(t, story.lead)):
        out.append(t.sentence([caveat]))
    return out + after


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
        sentences = _story_text(t, v, story, _story_answer(story, answers), told, prs)
        if sentences:
            out.stories[story.story_id] = sentences
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
