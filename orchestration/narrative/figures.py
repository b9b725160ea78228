"""Figures in a sentence: numbers with their unit, in digits or in Chinese or English words.

The evidence check compares every figure of a model's sentence with the figures of the facts it
cites, so both sides are read by this one module: `40.45%`, `-40.45 %`, `1.679x`, `1.68 倍`,
`6.546 h`, `5.4 小时`, `三成` (30%), `翻倍` (2×), `three times` (3×), `约 40%` (a marked
rounding). Numbers that are names are not figures: `FSDP2`, `Qwen3.5-35B-A3B`, `H20`, `v0.5.0`,
dates, PR and issue numbers (`#6010`); `names` returns them so that the check can look them up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from orchestration.narrative.number_words import UNITS, en_words, unit_of, zh_words

# the units a figure may follow, longest first (one ASCII letter only right after a digit)
_UNIT_ALTERNATION = "|".join(
    re.escape(u) for u in sorted(UNITS, key=len, reverse=True) if not re.fullmatch("[a-z]", u)
)
# a unit right after the number (`1.679x`, `8GB`, `5.4h`) or after one space (`6.546 h`)
_UNIT_AFTER = re.compile(
    rf"[\s-]?(?P<unit>{_UNIT_ALTERNATION}|[xXkKmMbBhsd])(?![A-Za-z0-9_])", re.IGNORECASE
)
_MARK_BEFORE = re.compile(
    r"(?:约为|约|大约|大概|近|将近|接近|~|～|≈|\babout|\baround|\bapproximately|\broughly|"
    r"\bnearly|\balmost|\bclose to)\s*(?:[\u4e00-\u9fff]{1,3}\s*)?[-−+]?\s*$",
    re.IGNORECASE,
)
# bounds: `more than ten` holds for 42, `up to 3×` for 2.3×
_AT_LEAST = re.compile(
    r"(?:逾|超过|超|多于|不少于|\bover|\bmore than|\bat least|\babove)\s*[-−+]?\s*$", re.IGNORECASE
)
_AT_MOST = re.compile(r"(?:不到|不足|少于|最多|\bup to|\bat most|\bunder|\bless than)\s*$", re.I)
_AT_LEAST_AFTER = re.compile(r"^\s*[个位项名条件种类次轮]?\s*(?:多|余|以上)")
_RANGE = re.compile(r"\s?(?:[–—~～]|-|至|到|to)\s?\d+(?:\.\d+)?")
_MARK_AFTER = re.compile(r"^\s*(左右|上下)")
_NUMBER = re.compile(r"(?<![\w.])[-−+]?(\d+(?:\.\d+)?)")
# names that hold digits: letters and digits in one word (`FSDP2`, `H20`, `Qwen3.5-35B-A3B`,
# `bf16`, `x86_64`), versions (`v0.5.0`, `3.12.13`), dates (`2026-07-20`)
_NAME_WITH_DIGITS = re.compile(
    r"(?<![\w.\-/])(?:[A-Za-z][\w.\-]*\d[\w.\-]*|\d[\w.\-]*[A-Za-z][\w.\-]*|v?\d+\.\d+\.\d+[\w.\-]*|"
    r"\d{4}-\d{2}-\d{2}(?:[T ][\d:]+Z?)?)(?<![.\-])"
)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
REF = re.compile(
    r"(?:#|\b(?:PR|pull request|pull|issue|issues)\s*#?\s*|/(?:pull|issues)/)(\d+)\b"
    r"(?!\s*[个项次条名位件])",
    re.IGNORECASE,
)

NEUTRAL_COUNT = 2  # bare counts up to this (`one`, `两个`, `2 PRs`) are wording, not figures


@dataclass(frozen=True)
class Figure:
    """One figure as written: its value (the sign left out), unit (`''` for a bare count),
    how many decimals it was written with, and whether it is marked as approximate."""

    value: float
    unit: str
    text: str
    decimals: int = 0
    marked: bool = False  # 约 / about / ~ / 左右, or a number word (三成, three times)
    word: bool = False
    start: int = 0
    noun: str = ""  # what a bare count counts, as written after it (`APIs`, `个重点 PR`)
    bound: str = ""  # `min` (more than, 超过, 十余) or `max` (up to, 不到): a bound, not a value
    nouns: tuple[str, ...] = ()  # for a warehouse count: the words that name what it counts

    @property
    def neutral(self) -> bool:
        return not self.unit and self.value <= NEUTRAL_COUNT and self.value == int(self.value)


def refs(text: str) -> list[int]:
    """The PR and issue numbers `text` names (`#123`, `PR 123`, `/pull/123`, `issue 12`)."""
    return [int(n) for n in REF.findall(text)]


def _plain(text: str) -> str:
    return _THOUSANDS.sub("", text)


def names(text: str) -> list[str]:
    """The words with digits that are names, not figures (`FSDP2`, `v0.5.0`, `2026-07-20`)."""
    masked = REF.sub(" ", _plain(text))
    found = []
    for match in _NAME_WITH_DIGITS.finditer(masked):
        word = match.group()
        if _is_number_with_unit(word) or re.fullmatch(r"\d+(?:\.\d+)?[eE]-?\d+", word):
            continue
        found.append(word)
    return found


_COMPOUND = re.compile(r"\d+(?:\.\d+)?(?:-[A-Za-z]+)+")  # `200-step`, `8-hour`: a figure


def _is_number_with_unit(word: str) -> bool:
    if _COMPOUND.fullmatch(word):
        return True
    match = re.fullmatch(r"[-−+]?(\d+(?:\.\d+)?)([A-Za-z/%]+)", word)
    return bool(match) and unit_of(match.group(2)) != ""


def _masked(text: str) -> str:
    """`text` with names, references and code spans blanked out (same length)."""
    blank = lambda m: " " * len(m.group())  # noqa: E731
    text = re.sub(r"`[^`]*`", blank, text)
    text = re.sub(r"https?://\S+", blank, text)
    text = REF.sub(blank, text)
    masked = list(text)
    for match in _NAME_WITH_DIGITS.finditer(text):
        if not _is_number_with_unit(match.group()):
            masked[match.start() : match.end()] = " " * (match.end() - match.start())
    return "".join(masked)


_MEASURES = "个位项名条件种类次轮"
_NOUN = re.compile(
    r"\s*[个位项名条件种类次轮]?\s*((?:[\u4e00-\u9fff]{1,4}\s*)?[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*)?"
    r"|[\u4e00-\u9fff]{1,4})"
)
_NOT_NOUNS = {
    "",
    "of",
    "the",
    "a",
    "an",
    "in",
    "to",
    "and",
    "or",
    "for",
    "on",
    "at",
    "by",
    "with",
    "from",
    "than",
    "is",
    "are",
    "was",
    "were",
    "as",
    "per",
    "each",
    "more",
    "less",
}


def _noun(text: str, end: int) -> str:
    match = _NOUN.match(text, end)
    noun = match.group(1).lstrip(_MEASURES).strip().lower() if match else ""
    if not re.search("[a-z]", noun):
        return ""  # a Chinese word after a count is too often not its noun (29 个略少)
    return "" if noun.split(" ", 1)[0] in _NOT_NOUNS else noun


def _context(figure: Figure, text: str) -> Figure:
    """The figure with what its words around say: the noun a bare count counts, a bound."""
    before, end = text[max(0, figure.start - 16) : figure.start], figure.start + len(figure.text)
    bound = "min" if _AT_LEAST.search(before) or _AT_LEAST_AFTER.match(text[end:]) else ""
    bound = "max" if _AT_MOST.search(before) else bound
    noun = _noun(text, end) if not figure.unit else ""
    return replace(figure, noun=noun, bound=bound)


def figures(text: str) -> list[Figure]:
    """Every figure of `text`, in order: digits, Chinese and English number words; a bare
    count carries the noun written after it."""
    plain = _plain(text)
    masked = _masked(plain)
    words = [
        Figure(v, u, t, 0, True, True, at) for v, u, t, at in zh_words(masked) + en_words(masked)
    ]
    found = [*_digit_figures(masked), *words]
    found = [_context(f, plain) for f in found]
    return sorted(found, key=lambda f: f.start)


def _digit_figures(text: str) -> list[Figure]:
    found = []
    for match in _NUMBER.finditer(text):
        digits = match.group(1)
        after = text[match.end() :]
        if re.match(r"[.\-:/]\d", after):  # a version, date or time written loosely
            continue
        unit, end = "", match.end()
        unit_match = _UNIT_AFTER.match(after)
        ranged = _RANGE.match(after)
        if unit_match:
            unit, end = unit_of(unit_match.group("unit")), match.end() + unit_match.end()
        elif ranged and _UNIT_AFTER.match(after[ranged.end() :]):  # `3.9–4.9 s`: both in s
            unit = unit_of(_UNIT_AFTER.match(after[ranged.end() :]).group("unit"))
        elif re.match(r"\s?[A-Za-z]", after) and not re.match(r"\s", after):
            continue  # `35B`-like words are names, handled by `names`
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        marked = bool(_MARK_BEFORE.search(text[max(0, match.start() - 16) : match.start()]))
        marked = marked or bool(_MARK_AFTER.match(text[end:]))
        found.append(
            Figure(
                float(digits),
                unit,
                text[match.start() : end],
                decimals,
                marked,
                start=match.start(),
            )
        )
    return found


def _precision(figure: Figure) -> float:
    """Half a unit of the last place written: `40` about 5 when marked (tens), `40.45` 0.005."""
    if figure.decimals:
        return 0.5 * 10**-figure.decimals
    if figure.marked and figure.value >= 10:
        digits = str(int(figure.value))
        zeros = len(digits) - len(digits.rstrip("0"))
        return 0.5 * 10**zeros
    return 0.5


MAX_ROUNDING_ERROR = 0.10  # a marked rounding is within 10% of the figure
MAX_DISPLAY_ERROR = 0.005  # an unmarked one keeps three significant digits (1.68 for 1.679)


def matches(said: Figure, fact: Figure) -> bool:
    """Whether `said` states `fact`: the same unit (a bare number may name a figure of any
    unit: `adding 58` for 58 lines), and equal, or rounded as written."""
    if said.unit and said.unit != fact.unit:
        return False
    if said.noun and fact.nouns:
        if not any(re.search(rf"(?<![a-z]){re.escape(n)}", said.noun) for n in fact.nouns):
            return False  # a warehouse count names what it counts: `42 APIs` is not 42 key PRs
    elif not said.unit and said.noun and fact.unit:
        return False  # a count of things is not a measure: `1024 layers` for 1024 MB
    a, f = said.value, fact.value
    if said.bound == "min":  # a bound near its figure: `more than 40%` for 42.3%, not for 90%
        return a <= f <= 2 * a
    if said.bound == "max":
        return a / 2 <= f <= a
    if abs(a - f) < 1e-9:
        return True
    error = abs(a - f) / abs(f) if f else float("inf")
    if abs(round(f, said.decimals) - a) < 1e-9 and error <= MAX_DISPLAY_ERROR:
        return True
    if said.marked:
        return abs(a - f) <= _precision(said) + 1e-9 and error <= MAX_ROUNDING_ERROR
    return False
