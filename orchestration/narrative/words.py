"""The words the evidence check reads: names of code, claim words, and English content words.

- `code_names`: what a sentence names as code (backticked spans, dotted names, file paths,
  `--flags`, snake_case and CamelCase words, words with digits such as `FSDP2`): each must
  appear in the facts the sentence cites.
- `concepts`: the claims that change what a reader does (removal, data loss, crash, hang,
  leak, security, breaking, revert, default, untested, speed, ...), in Chinese and English,
  from `claim_words.csv`: a sentence may make one only when a cited fact makes it too.
- `content_stems`: an English sentence's own words (not grammar, not the words every report
  uses), stemmed, for the share of them that the cited facts contain.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

from orchestration.narrative.figures import names

CLAIM_WORDS = Path(__file__).with_name("claim_words.csv")

_CODE_SPAN = re.compile(r"`([^`]+)`")
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?")
_PATH = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]*\.[A-Za-z]\w*|(?<![\w/])(?:[\w.-]+/){2,}[\w.-]*")
_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*(?:=\S+)?")
_SNAKE = re.compile(r"(?<![\w.])_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_*(?![\w.])")
_CAMEL = re.compile(r"(?<![\w.])(?=[A-Za-z]*[a-z])[A-Z]+[a-z]+[A-Z]\w*|[a-z]+[A-Z]\w*")
_NOT_CODE = {"e.g", "i.e", "a.k.a", "vs.", "etc."}
_LATIN = re.compile(r"[A-Za-z][A-Za-z'\-]*")

# grammar and the words every report uses, whatever happened
STOP = frozenset(
    """a an the and or but nor so yet of to in on at by for from with without into onto over
    under up down out off about after before between during through across against via per as
    than then also too very more most less least much many few several some any all each every
    both either neither other another such same only just still already even ever never now
    here there this that these those it its it's itself they them their we our you your he she
    his her who whom whose which what when where why how whether if while because since until
    unless though although is are was were be been being am do does did done doing has have had
    having can could may might must shall should will would not no yes one two once twice
    pr prs pull request requests change changes changed changing merge merged merges week weeks
    key number numbers part parts area areas module modules code feature features repo
    repository project add adds added adding fix fixes fixed fixing support supports supported
    supporting make makes made making allow allows allowed use uses used using new now
    improve improves improved improvement update updates updated work works worked way ways
    case cases issue issues problem problems thing things lot lots well better best good
    large small big high low higher lower instead rather like within whole main first last next
    previous existing current default behaviour behavior keep keeps kept let lets get gets got
    give gives gave take takes took show shows shown reduce reduces reduced reducing
    reduction increase increases increased increasing cut cuts cutting help helps ensure
    ensures mean means meaning related around overall across together separate separately
    being able author authors measured measures reported reports says said states stated
    review reviewed reviewing risk risks verify verified check checked follow follows
    theme themes story stories summary
    list lists note notes release releases user users migrate migration measure confirm
    ask run consider decide document mention before fall falls fell falling drop drops dropped
    rise rises rose go goes went nearly roughly almost approximately faster slower times""".split()  # noqa: SIM905
)


@cache
def _concept_patterns() -> dict[str, re.Pattern]:
    patterns: dict[str, list[str]] = {}
    with CLAIM_WORDS.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            patterns.setdefault(row["concept"], []).append(row["pattern"])
    return {name: re.compile("|".join(p), re.IGNORECASE) for name, p in patterns.items()}


# a size is not a claim: `删除 289 行`, `deleting 289 lines`, `289 lines deleted`
_SIZE = re.compile(
    r"(?:删除|删去|移除|新增|增加|deleting|deleted|deletes|removing|removed|removes|adding|added)"
    r"\s*了?\s*\d[\d,]*\s*(?:行|lines?)?|\d[\d,]*\s*(?:行|lines?)\s*(?:被)?(?:deleted|removed|删除)",
    re.IGNORECASE,
)


def concepts(text: str) -> set[str]:
    """The claim words (`claim_words.csv`) `text` uses, by concept (sizes left out)."""
    without_code = _SIZE.sub(" ", _CODE_SPAN.sub(" ", text))
    return {name for name, pattern in _concept_patterns().items() if pattern.search(without_code)}


def code_names(text: str) -> list[str]:
    """What `text` names as code; each must be found in the cited facts."""
    found = [m.group(1).strip() for m in _CODE_SPAN.finditer(text)]
    rest = _CODE_SPAN.sub(" ", text)
    for pattern in (_PATH, _FLAG, _DOTTED, _SNAKE, _CAMEL):
        for match in pattern.finditer(rest):
            found.append(match.group())
        rest = pattern.sub(" ", rest)
    found += names(rest)
    return [n for n in dict.fromkeys(found) if n.lower() not in _NOT_CODE and len(n) > 1]


def normal(text: str) -> str:
    """Text as names are compared: lower case, without backticks, call parentheses, `@`."""
    text = text.lower().replace("`", "").replace("()", "").replace("@", "")
    return " ".join(text.split())


def stem(word: str) -> str:
    """A crude English stem, the same for a word's forms (`files` and `file`, `deleting` and
    `deleted`, `implements` and `implementation`)."""
    word = word.lower().strip("'-")
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "zes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("izations", "ization", "ations", "ation", "ness", "ing", "ed", "er", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def latin_words(text: str) -> list[str]:
    """The Latin-letter words of `text` outside code spans."""
    return _LATIN.findall(_CODE_SPAN.sub(" ", text))


def content_stems(text: str) -> list[str]:
    """The stems of an English sentence's own words: not code, numbers or `STOP` words."""
    rest = _CODE_SPAN.sub(" ", text)
    for pattern in (_PATH, _FLAG, _DOTTED, _SNAKE):
        rest = pattern.sub(" ", rest)
    words = [w.removesuffix("'s") for w in latin_words(rest)]
    words = [w for w in words if len(w) > 2 and w.lower() not in STOP]
    return [stem(w) for w in words if not any(ch.isdigit() for ch in w)]


def stems_of(text: str) -> set[str]:
    """Every stem in a fact's text, for `supported` (compound words and paths split too)."""
    words = _LATIN.findall(text.replace("_", " "))
    words += [part for w in words for part in w.split("-")]
    words += _LATIN.findall(re.sub(r"[_/\-.]", " ", text))
    return {stem(w) for w in words if len(w) > 1}


def supported(word_stem: str, fact_stems: set[str]) -> bool:
    """Whether the facts hold the word: the same stem, or one a prefix of the other (5+)."""
    if word_stem in fact_stems:
        return True
    if len(word_stem) < 5:
        return False
    return any(
        len(s) >= 5 and (s.startswith(word_stem) or word_stem.startswith(s)) for s in fact_stems
    )
