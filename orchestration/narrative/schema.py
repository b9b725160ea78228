"""The JSON the model must answer with, per PR and per week, and a validator for it.

Every sentence is a claim: the same statement in Chinese and English with the ids of the facts
it rests on (`{"zh", "en", "facts"}`), so that each can be checked and dropped on its own. The
same schemas go out in `response_format` (Ollama, vLLM and llama.cpp enforce them) and check
every answer that comes back, since not every server enforces them. A hosted server that
refuses some keywords in strict mode gets `relaxed` schemas without them, once per build; the
answers are still checked against the full ones here.
"""

from __future__ import annotations

import copy
from typing import Any

PR_SCHEMA_NAME = "pr_narrative"
WEEK_SCHEMA_NAME = "week_narrative"
VERIFY_SCHEMA_NAME = "claim_verdicts"
LENGTH_KEYWORDS = ("minLength", "maxLength", "minItems", "maxItems")
SUMMARY_ZH_CHARS = 220  # a PR's Chinese summary, all its sentences together


def _text(low: int, high: int) -> dict:
    return {"type": "string", "minLength": low, "maxLength": high}


def _array(items: dict, low: int, high: int) -> dict:
    return {"type": "array", "items": items, "minItems": low, "maxItems": high}


def _object(**properties: dict) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


def claim(zh: int, en: int) -> dict:
    """One sentence in both languages and the ids of the facts it rests on."""
    return _object(zh=_text(4, zh), en=_text(8, en), facts=_array(_text(1, 24), 1, 8))


PR_SCHEMA = _object(
    number={"type": "integer"},
    title_zh=_text(2, 40),
    summary=_array(claim(180, 400), 1, 3),
    value_zh=_text(2, 24),
    value_en=_text(2, 60),
)

WEEK_SCHEMA = _object(
    summary=_array(claim(180, 400), 1, 5),
    theme=claim(120, 300),
    stories=_array(
        _object(
            story=_text(0, 24),
            title_zh=_text(2, 40),
            title_en=_text(3, 100),
            prs=_array({"type": "integer"}, 1, 12),
            sentences=_array(claim(180, 400), 1, 2),
        ),
        0,
        6,
    ),
    recommendations=_array(
        _object(
            zh=_text(6, 160),
            en=_text(12, 360),
            facts=_array(_text(1, 24), 1, 8),
            prs=_array({"type": "integer"}, 1, 8),
        ),
        0,
        5,
    ),
)

VERIFY_SCHEMA = _object(
    verdicts=_array(
        _object(index={"type": "integer"}, supported={"type": "boolean"}, reason=_text(0, 200)),
        0,
        40,
    )
)

SCHEMAS = {
    PR_SCHEMA_NAME: PR_SCHEMA,
    WEEK_SCHEMA_NAME: WEEK_SCHEMA,
    VERIFY_SCHEMA_NAME: VERIFY_SCHEMA,
}


def relaxed(schema: dict, refused: tuple[str, ...] = LENGTH_KEYWORDS) -> dict:
    """`schema` without the keywords a strict-mode server refuses (the lengths and counts)."""
    schema = copy.deepcopy(schema)

    def strip(node: Any) -> None:
        if isinstance(node, dict):
            for keyword in refused:
                node.pop(keyword, None)
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(schema)
    return schema


MIN_MAX_TOKENS, MAX_MAX_TOKENS = 1024, 4096


def answer_tokens(schema: dict) -> int:
    """About the most tokens an answer following `schema` can take: each string at its longest
    (half a token per character: Chinese about one, English a quarter), arrays at their most
    items, and the JSON around them."""
    kind = schema.get("type")
    if kind == "string":
        return schema.get("maxLength", 200) // 2 + 4
    if kind == "array":
        return 2 + schema.get("maxItems", 10) * (answer_tokens(schema["items"]) + 1)
    if kind == "object":
        return 2 + sum(6 + answer_tokens(sub) for sub in schema["properties"].values())
    return 4


def max_tokens(schema: dict) -> int:
    """`max_tokens` for an answer following `schema`: room for its longest answer, within
    1,024..4,096 (a week's summary gets 4,096, a PR's about 1,500)."""
    return max(MIN_MAX_TOKENS, min(MAX_MAX_TOKENS, answer_tokens(schema)))


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def schema_errors(value: Any, schema: dict, where: str = "answer") -> list[str]:
    """What in `value` breaks `schema` (the subset of JSON Schema the schemas above use)."""
    kind = schema.get("type")
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            return [f"{where} is not an integer"]
        return []
    if not isinstance(value, _TYPES[kind]):
        return [f"{where} is not a{'n' if kind[0] in 'aeiou' else ''} {kind}"]
    errors: list[str] = []
    if kind == "string":
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{where} is shorter than {schema['minLength']} characters")
        if len(value) > schema.get("maxLength", len(value)):
            errors.append(f"{where} is longer than {schema['maxLength']} characters")
    elif kind == "array":
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{where} has fewer than {schema['minItems']} items")
        if len(value) > schema.get("maxItems", len(value)):
            errors.append(f"{where} has more than {schema['maxItems']} items")
        for index, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{index}]")
    elif kind == "object":
        properties = schema["properties"]
        errors += [f"{where} lacks {name!r}" for name in schema["required"] if name not in value]
        errors += [f"{where} has unexpected {name!r}" for name in value if name not in properties]
        for name, sub in properties.items():
            if name in value:
                errors += schema_errors(value[name], sub, f"{where}.{name}")
    return errors
