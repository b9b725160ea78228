"""The JSON the model must answer with, per PR and per week, and a validator for it.

The same schemas go out in `response_format` (Ollama, vLLM and llama.cpp enforce them) and
check every answer that comes back, since not every server enforces them.
"""

from __future__ import annotations

from typing import Any

PR_SCHEMA_NAME = "pr_narrative"
WEEK_SCHEMA_NAME = "week_narrative"


def _text(low: int, high: int) -> dict:
    return {"type": "string", "minLength": low, "maxLength": high}


def _numbers(low: int, high: int) -> dict:
    return {"type": "array", "items": {"type": "integer"}, "minItems": low, "maxItems": high}


def _object(**properties: dict) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


PR_SCHEMA = _object(
    number={"type": "integer"},
    summary_zh=_text(6, 160),
    summary_en=_text(12, 400),
    value_zh=_text(2, 24),
    value_en=_text(2, 60),
)

WEEK_SCHEMA = _object(
    theme_zh=_text(6, 200),
    theme_en=_text(12, 400),
    groups={
        "type": "array",
        "maxItems": 6,
        "items": _object(title_zh=_text(2, 40), title_en=_text(3, 100), prs=_numbers(2, 12)),
    },
    recommendations={
        "type": "array",
        "maxItems": 5,
        "items": _object(text_zh=_text(6, 200), text_en=_text(12, 400), prs=_numbers(1, 8)),
    },
)

SCHEMAS = {PR_SCHEMA_NAME: PR_SCHEMA, WEEK_SCHEMA_NAME: WEEK_SCHEMA}

_TYPES = {"object": dict, "array": list, "string": str}


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
    else:
        properties = schema["properties"]
        errors += [f"{where} lacks {name!r}" for name in schema["required"] if name not in value]
        errors += [f"{where} has unexpected {name!r}" for name in value if name not in properties]
        for name, sub in properties.items():
            if name in value:
                errors += schema_errors(value[name], sub, f"{where}.{name}")
    return errors
