"""Figures in a description's text: relative changes (`40.45%`, `1.679×`), changes between two
measurements (`from 1.98 s to 1.12 s`), their units, and the clause or window around them."""

from __future__ import annotations

import re

MAX_SENTENCE = 240  # a claim's sentence, cut around its figure

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
RELATIVE = re.compile(
    rf"(?<![\w.])(?P<pre>[~≈<>]\s?)?(?P<sign>[+\-−])?(?P<a>{_NUM})"
    rf"(?:\s?(?:%|×|[xX])?\s?[–~-]\s?(?P<b>{_NUM}))?\s?(?P<unit>%|×|[xX](?![A-Za-z0-9]))"
)
_UNITS = r"ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|[KMGT]i?B"
PAIR = re.compile(
    rf"(?:\bfrom\s+)(?P<a>{_NUM})\s?(?P<ua>{_UNITS})\b\s*(?:to|→|->)\s*(?P<b>{_NUM})\s?(?P<ub>{_UNITS})\b"
    rf"|(?P<a2>{_NUM})\s?(?P<ua2>{_UNITS})\b\s*(?:→|->)\s*(?P<b2>{_NUM})\s?(?P<ub2>{_UNITS})\b"
)
AMOUNT = re.compile(rf"(?<![\w.])(?P<a>{_NUM})\s?(?P<u>{_UNITS})\b")
_WHOLE_MULTIPLE_NEXT = re.compile(
    r"\s*(?:$|[|),;:]|(?:faster|slower|speed|quicker|more|less|fewer|higher|lower|better|"
    r"improvement|reduction|throughput|smaller|larger|bigger|cheaper)\b)",
    re.IGNORECASE,
)
# a level, not a change: `95% CI`, `95% confidence interval`, `80% coverage`, `95% interval`
EXCLUDED = re.compile(
    r"\d+(?:\.\d+)?\s?%\s*(?:CI|confidence|coverage|interval|bootstrap)\b", re.IGNORECASE
)
# a column measured in the unit its header names: `Median fwd+bwd (ms)`, `Peak mem (GB)`
UNIT_HEADER = re.compile(
    r"\((?:ms|µs|us|ns|s|sec|min|h|%|x|×|[KMGT]i?B|[KMGT]?B/s|tok/s|tokens/s)\)"
)
_SHARE = re.compile(r"\s+of\b")
_CLAUSE = re.compile(r"[,;()]|\b(?:and|while|but|whereas)\b")
SCALE = {  # a unit in its base unit
    "ns": 1e-9,
    "µs": 1e-6,
    "us": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "min": 60,
    "h": 3600,
    "KB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "TB": 1e12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}
_UNIT_NAMES = {
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "us": "µs",
    "×": "x",
    "X": "x",
}
_UNIT_METRIC = {"memory": ("KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")}


def to_number(text: str) -> float:
    return float(text.replace(",", ""))


def unit_name(unit: str) -> str:
    return _UNIT_NAMES.get(unit, unit)


def accepted(m: re.Match, text: str) -> bool:
    if m["unit"] in "xX×" and "." not in m["a"] and not m["b"]:
        return bool(_WHOLE_MULTIPLE_NEXT.match(text, m.end()))
    # a share ("50% of the runtime") is not a change
    return not (m["unit"] == "%" and _SHARE.match(text, m.end()))


def measured(cell: str) -> bool:
    return bool(RELATIVE.search(cell) or AMOUNT.search(cell))


def unit_metric(unit: str) -> tuple[str, str, str] | None:
    if unit in _UNIT_METRIC["memory"]:
        return ("memory", "memory", "lower")
    return ("time", "speed", "lower") if unit in SCALE else None


def clause_around(text: str, start: int, end: int) -> str:
    before = [m.end() for m in _CLAUSE.finditer(text, 0, start)]
    after = _CLAUSE.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


def window(text: str, at: int) -> str:
    """The sentence, or MAX_SENTENCE characters of it around the figure, cut at words."""
    if len(text) <= MAX_SENTENCE:
        return text
    start = max(0, min(at - MAX_SENTENCE // 3, len(text) - MAX_SENTENCE))
    piece = text[start : start + MAX_SENTENCE]
    if start > 0:
        piece = "…" + piece.split(" ", 1)[-1]
    if start + MAX_SENTENCE < len(text):
        piece = piece.rsplit(" ", 1)[0] + "…"
    return piece
