"""The optional second pass (`PRWEEKLY_LLM_VERIFY=1`): the model judges each kept claim.

The evidence rule checks what can be checked mechanically (figures, PRs, names, claim words,
the words used). A claim can pass it and still say more than its facts: "defers the sync at
M=8" cites the right row, "fixes the Ascend report" cites a sentence that says it does not.
With the pass on, each part's kept claims go back to the model with the text of the facts
each cites, one request per part, and every claim it does not call supported is dropped with
its reason. A failed or unreadable verdict drops nothing: the claims already passed the rule.
"""

from __future__ import annotations

import json
from typing import Any

from orchestration.narrative.checks import parse
from orchestration.narrative.client import ChatClient, Completion
from orchestration.narrative.prompt import Ask
from orchestration.narrative.schema import SCHEMAS, VERIFY_SCHEMA_NAME, schema_errors

VERIFY_SYSTEM = (
    "You check the claims of an engineering report against the facts they cite. A claim is "
    "supported only when its cited facts say everything it says: each figure with its "
    "condition, each cause and effect, each PR it names. Paraphrase and translation are fine; "
    "anything more is not. Answer with one JSON object that follows the schema."
)
VERIFY_TASK = (
    "For each claim below (Chinese and English say the same), give its index, whether its "
    "cited facts support it, and if not, why in a few words.\n\nCLAIMS (JSON):\n"
)


def claims_of(answer: dict) -> list[tuple[str, dict]]:
    """Every claim of a kept answer with its place (`summary[0]`, `stories[1].sentences[0]`)."""
    found = [(f"summary[{i}]", c) for i, c in enumerate(answer.get("summary") or [])]
    if answer.get("theme"):
        found.append(("theme", answer["theme"]))
    for i, story in enumerate(answer.get("stories") or []):
        found += [(f"stories[{i}].sentences[{j}]", c) for j, c in enumerate(story["sentences"])]
    found += [
        (f"recommendations[{i}]", c) for i, c in enumerate(answer.get("recommendations") or [])
    ]
    return found


def without(answer: dict, places: set[str]) -> dict:
    """`answer` without the claims at `places` (a story left without sentences goes too)."""
    kept = dict(answer)
    kept["summary"] = [
        c for i, c in enumerate(answer.get("summary") or []) if f"summary[{i}]" not in places
    ]
    if "theme" in places:
        kept["theme"] = None
    if "stories" in answer:
        stories = []
        for i, story in enumerate(answer["stories"]):
            sentences = [
                c
                for j, c in enumerate(story["sentences"])
                if f"stories[{i}].sentences[{j}]" not in places
            ]
            if sentences:
                stories.append({**story, "sentences": sentences})
        kept["stories"] = stories
    if "recommendations" in answer:
        kept["recommendations"] = [
            c
            for i, c in enumerate(answer["recommendations"])
            if f"recommendations[{i}]" not in places
        ]
    return kept


def _fact_text(fact: dict) -> dict:
    return {k: v for k, v in fact.items() if k not in ("kind", "pr")}


def verify_messages(ask: Ask, claims: list[tuple[str, dict]]) -> list[dict]:
    facts = {f["id"]: f for f in ask.fact_list}
    items = [
        {
            "index": i,
            "zh": c["zh"],
            "en": c["en"],
            "facts": [_fact_text(facts[f]) for f in c["facts"] if f in facts],
        }
        for i, (_, c) in enumerate(claims)
    ]
    body = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    return [
        {"role": "system", "content": VERIFY_SYSTEM},
        {"role": "user", "content": VERIFY_TASK + body},
    ]


def verify(client: ChatClient, ask: Ask, answer: dict) -> tuple[dict, list[str], Completion | None]:
    """The answer without the claims the model does not find supported, the reasons, and the
    completion (for its tokens); an unreadable verdict keeps every claim."""
    claims = claims_of(answer)
    if not claims:
        return answer, [], None
    completion = client.complete(
        verify_messages(ask, claims), VERIFY_SCHEMA_NAME, SCHEMAS[VERIFY_SCHEMA_NAME]
    )
    verdicts, errors = parse(completion.content)
    if errors or schema_errors(verdicts, SCHEMAS[VERIFY_SCHEMA_NAME]):
        return answer, ["verification: the verdict could not be read; every claim kept"], completion
    refuted: dict[str, str] = {}
    for verdict in verdicts["verdicts"]:
        index: Any = verdict["index"]
        if not verdict["supported"] and 0 <= index < len(claims):
            place, claim = claims[index]
            why = " ".join(str(verdict.get("reason") or "not supported").split())[:200]
            refuted[place] = f"{place} dropped ({claim['en'][:80]}): verification: {why}"
    kept = without(answer, set(refuted))
    return kept, list(refuted.values()), completion
