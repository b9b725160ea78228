"""The evidence rule: a model's sentence is kept only when the facts it cites support it.

Every fact in a prompt has an id; every sentence of an answer names the ids it rests on. A
sentence (one claim, written in Chinese and in English) is kept only when, in each language:
- every figure it states equals, or is a marked rounding of, a figure with the same unit in a
  cited fact of the PR it is about (the PR named nearest before it, else after it);
- every PR or issue number it names is one its cited facts name (the PR a fact is about, or
  a reference in its text; the prompt marks which are PRs of other weeks or issues);
- every code name it uses (backticked, dotted, a path, a flag, `snake_case`, `CamelCase`,
  `FSDP2`) appears in its cited facts, and every claim word (`claim_words.csv`: removal,
  crash, leak, security, revert, default, untested, ...) is one they use too;
- in English, at least half of its own words are words of its cited facts; in Chinese, its
  Latin words are the facts' or the English sentence's;
and both languages state the same figures and the same PRs. `check_claim` returns the clean
text and every reason it fails, worded so that the model can be told them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from orchestration.narrative.facts import owner_of
from orchestration.narrative.figures import REF, Figure, figures, matches, refs, unit_of
from orchestration.narrative.sanitize import clean
from orchestration.narrative.words import (
    code_names,
    concepts,
    content_stems,
    latin_words,
    normal,
    stems_of,
    supported,
)

MIN_SUPPORT = 0.5  # of an English sentence's own words found in its cited facts
MIN_WORDS = 3  # fewer own words than this say too little to measure
MIN_CHINESE_SHARE = 0.5  # CJK characters against CJK plus Latin words, names left out
MAX_CHINESE_SHARE_IN_ENGLISH = 0.2
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# numeric fields of a fact and the unit their values have; others are not figures
NUMERIC_UNITS = {
    "additions": "lines",
    "deletions": "lines",
    "changed_files": "files",
    "merged_prs": "",
    "key_prs": "",
    "authors": "",
    "first_time_authors": "",
    "pr_count": "",
    "weeks_since_last": "",
    "trailing_weeks": "",
    "previous_merged_prs": "",
}
_NOT_TEXT = {"id", "kind"}
_PRS = ("pr", "pull request", "合并")
FIELD_NOUNS = {  # what the warehouse's counts count, as a sentence names it
    "merged_prs": _PRS,
    "previous_merged_prs": _PRS,
    "key_prs": ("key", "重点", *_PRS),
    "pr_count": _PRS,
    "authors": ("author", "contributor", "people", "作者", "贡献者", "人"),
    "first_time_authors": ("author", "contributor", "newcomer", "作者", "贡献者", "新"),
    "additions": ("line", "loc", "行", "add", "new", "新增"),
    "deletions": ("line", "loc", "行", "delet", "remov", "删"),
    "changed_files": ("file", "文件"),
    "weeks_since_last": ("week", "周"),
}
SIZE_WORDS = {
    "additions": "lines added",
    "deletions": "lines deleted",
    "changed_files": "files changed",
    "merged_prs": "pull requests merged",
    "authors": "authors",
    "pr_count": "pull requests",
}
# acronyms a Chinese sentence may keep as they are without a fact spelling them
NEUTRAL_LATIN = {"pr", "prs", "ci", "api", "bug", "id"}


@dataclass
class Fact:
    """One fact of a prompt, read once: what it is about, its text, figures and references."""

    id: str
    owners: frozenset[int]  # the PRs it is about; empty for the week as a whole
    text: str
    figures: list[Figure]
    refs: set[int]
    concepts: set[str]
    stems: set[str]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in _NOT_TEXT for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _numbers(value: Any, unit: str = "") -> list[Figure]:
    found = []
    if isinstance(value, dict):
        claim_unit = unit_of(str(value.get("unit") or ""))
        for key, sub in value.items():
            if key in NUMERIC_UNITS and isinstance(sub, int | float) and not isinstance(sub, bool):
                nouns = FIELD_NOUNS.get(key, ())
                found.append(Figure(abs(float(sub)), NUMERIC_UNITS[key], str(sub), nouns=nouns))
            elif key == "value" and isinstance(sub, int | float) and claim_unit:
                found.append(Figure(abs(float(sub)), claim_unit, str(sub), 3))
            elif isinstance(sub, dict | list):
                found += _numbers(sub)
    elif isinstance(value, list):
        found = [f for v in value for f in _numbers(v)]
    return found


def read_fact(fact: dict) -> Fact:
    owner = fact.get("pr") if isinstance(fact.get("pr"), int) else owner_of(fact["id"])
    owners = {owner} if owner is not None else set(fact.get("prs") or [])
    text = " | ".join(_strings(fact))
    found = [f for s in _strings(fact) for f in figures(s)] + _numbers(fact)
    mentioned = set(refs(text)) | owners | {int(n) for n in (fact.get("mentions") or {})}
    sized = " ".join(SIZE_WORDS[k] for k in SIZE_WORDS if k in fact)  # what the numbers count
    return Fact(
        fact["id"],
        frozenset(owners),
        normal(text),
        found,
        mentioned,
        concepts(text),
        stems_of(f"{text} {sized}"),
    )


@dataclass
class FactIndex:
    """A prompt's facts by id, and the PRs of the week they may name."""

    facts: dict[str, Fact]
    week_numbers: set[int]
    all: list[Fact] = field(default_factory=list)

    @classmethod
    def of(cls, facts: list[dict], week_numbers: set[int]) -> FactIndex:
        read = {f["id"]: read_fact(f) for f in facts}
        return cls(read, set(week_numbers), list(read.values()))


def chinese_share(text: str) -> float:
    """CJK characters against CJK characters plus Latin words, code and names left out."""
    rest = text
    for name in sorted(code_names(text), key=len, reverse=True):
        rest = rest.replace(name, " ")
    words = [
        w for w in latin_words(rest) if not (w.isupper() or (w[0].isupper() and w[1:2].isupper()))
    ]
    cjk = len(_CJK.findall(text))
    return cjk / (cjk + len(words)) if cjk + len(words) else 0.0


def _owner(text: str, position: int, week_numbers: set[int]) -> int | None:
    """The PR a figure at `position` is about: the one named nearest before it, else after."""
    named = [(m.start(), int(m.group(1))) for m in REF.finditer(text)]
    named = [(at, n) for at, n in named if n in week_numbers]
    before = [n for at, n in named if at < position]
    after = [n for at, n in named if at > position]
    return before[-1] if before else (after[0] if after else None)


def text_problems(text: str, cited: list[Fact], index: FactIndex, field_name: str) -> list[str]:
    """Why `text` is not supported by `cited` ([] when it is)."""
    problems = []
    for number in dict.fromkeys(refs(text)):
        if not any(number in f.refs for f in cited):
            where = "a PR of this week" if number in index.week_numbers else "not a PR of this week"
            problems.append(f"{field_name} names #{number} ({where}), which its cited facts do not")
    for said in figures(text):
        if said.neutral:
            continue
        owner = _owner(text, said.start, index.week_numbers)
        pool = [f for f in cited if owner is None or owner in f.owners or not f.owners]
        if not any(matches(said, g) for f in pool for g in f.figures):
            about = f" of #{owner}" if owner else ""
            unit = f" in {said.unit}" if said.unit else ""
            problems.append(
                f"{field_name} states {said.text.strip()}, which no cited fact{about} gives{unit}"
            )
    for name in code_names(text):
        if not any(normal(name) in f.text for f in cited):
            problems.append(f"{field_name} names `{name}`, which its cited facts do not")
    cited_concepts = set().union(*(f.concepts for f in cited))
    for concept in sorted(concepts(text) - cited_concepts):
        problems.append(
            f"{field_name} claims {concept.replace('_', ' ')}, which its cited facts do not"
        )
    return problems


def _support(en: str, cited: list[Fact]) -> tuple[float, int]:
    """The share of the sentence's own words its cited facts hold, and how many it has."""
    words = content_stems(en)
    if not words:
        return 1.0, 0
    stems = set().union(*(f.stems for f in cited))
    return sum(supported(w, stems) for w in words) / len(words), len(words)


def _alike(a: Figure, b: Figure) -> bool:
    same_unit = a.unit == b.unit or not a.unit or not b.unit
    return same_unit and abs(a.value - b.value) <= 0.1 * max(a.value, b.value)


def _figure_parity(zh: str, en: str) -> list[str]:
    said_zh = [f for f in figures(zh) if not f.neutral]
    said_en = [f for f in figures(en) if not f.neutral]
    missing = [f.text for f in said_zh if not any(_alike(f, g) for g in said_en)]
    missing += [f.text for f in said_en if not any(_alike(f, g) for g in said_zh)]
    return (
        [f"the Chinese and English sentences state different figures ({', '.join(missing)})"]
        if missing
        else []
    )


def related_facts(cited: list[Fact], index: FactIndex) -> list[Fact]:
    """The cited facts and every other fact about the same PRs."""
    owners = set().union(*(f.owners for f in cited))
    return cited + [f for f in index.all if f.owners & owners and f not in cited]


def check_claim(claim: dict, index: FactIndex, where: str) -> tuple[str, str, list[str], list[str]]:
    """The claim's Chinese and English text made plain, why it fails, and what was removed."""
    zh, removed_zh = clean(str(claim.get("zh") or ""))
    en, removed_en = clean(str(claim.get("en") or ""))
    ids = [str(i) for i in claim.get("facts") or []]
    unknown = [i for i in ids if i not in index.facts]
    cited = [index.facts[i] for i in ids if i in index.facts]
    problems = []
    if unknown:
        problems.append(
            f"{where} cites {', '.join(unknown[:5])}, which are not fact ids of the prompt"
        )
    if not cited:
        problems.append(f"{where} cites no fact of the prompt")
        return zh, en, problems, removed_zh + removed_en
    problems += text_problems(zh, cited, index, f"{where}.zh")
    problems += text_problems(en, cited, index, f"{where}.en")
    if set(refs(zh)) != set(refs(en)):
        problems.append(f"{where}: the Chinese and English sentences name different PRs")
    problems += [f"{where}: {p}" for p in _figure_parity(zh, en)]
    # the words: those of any fact about the same PRs (the citations carry the figures)
    share, counted = _support(en, related_facts(cited, index))
    if counted >= MIN_WORDS and share < MIN_SUPPORT:
        problems.append(f"{where}.en: only {share:.0%} of its words are in its cited facts")
    # a Chinese sentence may keep the PR's technical words as they are: any fact of its PRs
    related = related_facts(cited, index)
    facts_text = " ".join(f.text for f in related) + " " + normal(en)
    foreign = [
        w for w in latin_words(zh) if w.lower() not in NEUTRAL_LATIN and w.lower() not in facts_text
    ]
    if foreign:
        problems.append(f"{where}.zh uses {', '.join(foreign[:5])}, which its facts do not")
    problems += language_problems(zh, en, where)
    return zh, en, problems, sorted(set(removed_zh + removed_en))


def language_problems(zh: str | None, en: str | None, where: str) -> list[str]:
    problems = []
    if zh is not None and chinese_share(zh) < MIN_CHINESE_SHARE:
        problems.append(f"{where}.zh is not written in Chinese")
    if en is not None and len(_CJK.findall(en)) / max(1, len(en)) > MAX_CHINESE_SHARE_IN_ENGLISH:
        problems.append(f"{where}.en is not written in English")
    return problems


def check_label(
    text: str, pool: list[Fact], index: FactIndex, where: str, lang: str
) -> tuple[str, list[str]]:
    """A short label (a Chinese title, a core value): its figures, PRs, names and claim words
    must be in `pool` (the facts of the PRs it labels), and it must be in its language."""
    plain, _ = clean(text)
    problems = text_problems(plain, pool, index, where)
    if lang == "zh":
        problems += language_problems(plain, None, where)
        facts_text = " ".join(f.text for f in pool)
        foreign = [
            w
            for w in latin_words(plain)
            if w.lower() not in NEUTRAL_LATIN and w.lower() not in facts_text
        ]
        if foreign:
            problems.append(f"{where} uses {', '.join(foreign[:5])}, which its facts do not")
    else:
        problems += language_problems(None, plain, where)
    return plain, problems
