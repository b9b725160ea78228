"""Every answer is checked against the warehouse before it is kept.

An answer must parse as JSON and follow its schema; every PR it names must belong to the week;
every figure it states must appear in the facts it was given (the PR's description or facts);
Chinese fields must be Chinese and English ones English. Each check returns the reasons it
failed, worded so that the model can be told them on its one retry.
"""

from __future__ import annotations

import json
import re
from typing import Any

from orchestration.narrative.prompt import Ask
from orchestration.narrative.schema import SCHEMAS, schema_errors

_PR_REF = re.compile(r"(?:#|\bPR\s*#?\s*|\bpull request\s*#?\s*)(\d+)", re.IGNORECASE)
_FIGURE = re.compile(r"(?<![A-Za-z0-9_.#])\d+(?:[.,]\d+)*")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
MIN_CHINESE_SHARE = 0.5  # CJK characters against CJK characters plus Latin words
MAX_CHINESE_SHARE_IN_ENGLISH = 0.2


def parse(content: str) -> tuple[Any, list[str]]:
    """The answer's JSON, or the reason it is not JSON."""
    try:
        return json.loads(content), []
    except (ValueError, TypeError) as error:
        return None, [f"the answer is not valid JSON ({error})"]


def _texts(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string of the answer with the name of its field."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _texts(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [t for i, v in enumerate(value) for t in _texts(v, f"{path}[{i}]")]
    return []


def _figures(text: str) -> set[str]:
    return {f.replace(",", "") for f in _FIGURE.findall(_PR_REF.sub(" ", text))}


def chinese_share(text: str) -> float:
    cjk = len(_CJK.findall(text))
    words = len(_LATIN_WORD.findall(text))
    return cjk / (cjk + words) if cjk + words else 0.0


def _numbers_named(answer: dict) -> list[int]:
    named = [int(n) for _, text in _texts(answer) for n in _PR_REF.findall(text)]
    for key in ("groups", "recommendations"):
        for item in answer.get(key) or []:
            named += [n for n in item.get("prs") or [] if isinstance(n, int)]
    if isinstance(answer.get("number"), int):
        named.append(answer["number"])
    return named


def problems(ask: Ask, content: str, week_numbers: set[int]) -> tuple[Any, list[str]]:
    """The parsed answer and every reason it cannot be used ([] when it can)."""
    answer, errors = parse(content)
    if errors:
        return None, errors
    errors = schema_errors(answer, SCHEMAS[ask.schema_name])
    if errors:
        return answer, [f"the answer breaks the schema: {e}" for e in errors[:5]]
    if ask.number is not None and answer["number"] != ask.number:
        errors.append(f"`number` is {answer['number']}, but this is PR #{ask.number}")
    foreign = sorted({n for n in _numbers_named(answer) if n not in week_numbers})
    if foreign:
        names = ", ".join(f"#{n}" for n in foreign)
        errors.append(f"it names {names}, which did not merge this week")
    known = _figures(ask.facts_text)
    for field, text in _texts(answer):
        unknown = sorted(_figures(text) - known)
        if unknown:
            errors.append(f"{field} states {', '.join(unknown)}, which the facts do not contain")
        share = chinese_share(text)
        if field.endswith("_zh") and share < MIN_CHINESE_SHARE:
            errors.append(f"{field} is not written in Chinese")
        if field.endswith("_en") and share > MAX_CHINESE_SHARE_IN_ENGLISH:
            errors.append(f"{field} is not written in English")
    return answer, errors
