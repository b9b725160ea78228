"""A caveat's detail: what it is about (`subject`) and what it says of it (`effect`), so that a
report can word it in any language instead of quoting the description's English.

The words are in seeds/caveat_details.csv (`kind, field, value, phrase, better`), which the SQL
model passes to `read_description` with the other seeds as `caveat_detail/<kind>/<field>/
<value>/<better>` signals. Per kind:
- `trade_off`: `subject` the key of what is traded (`peak_memory`, `latency`, `throughput`,
  `compatibility`, ...), `effect` what the sentence says of it within a few words: `increase`,
  `decrease`, `traded` (given up: "trades X for", "at the cost of X"), or `improves` when that is
  the subject's better way ("reduces memory overhead": no cost at all);
- `default`: `effect` `off_by_default`, `on_by_default`, `opt_in`, `now_default` (the earliest
  phrase of the sentence), else `changed_default`; `subject` the setting as written when the
  sentence names one as code (`use_no_sync_for_gradient_accumulation`);
- `omission`: `effect` `ignored`, `unsupported`, `deferred`, `omitted`, or `unchanged` (a
  reassurance: no caveat for a report's body); `subject` what is left out, as written (the short
  phrase before the words that say so: `algorithm.filter_groups.max_num_gen_batches`);
- `unverified`: `effect` `not_verified`, `not_measured` or `no_ci`; `subject` the platform not
  verified, as written (`CUDA`, `GPU/NPU`);
- `breaking`: none (NULL, NULL).
Either is NULL when the sentence does not say it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from orchestration.descriptions.markdown import tokens, word_set
from orchestration.descriptions.vocabulary import Vocabulary

SIGNAL = "caveat_detail"
EFFECT_REACH = 4  # words between a trade-off's subject and what the sentence says of it
MAX_SUBJECT_WORDS = 5
MAX_PIECE_WORDS = 3  # a list of names before an omission: each piece at most this long
# a default or an omission's setting or subject is first the one written as code
_CODE_LIKE = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z]\.[a-z_]|[a-z0-9]=")
_PATHLIKE = re.compile(r"[A-Za-z0-9][_/.][A-Za-z0-9]")  # a phrase's words inside a name are none
_TAGS = re.compile(r"\[[^\]]*\]")  # a title's `[area, area]`
_PARENTHESES = re.compile(r"\([^()]*\)")
SETTING_REACH = 6  # tokens between a default's words and the setting it names
# `disable X by default`, `enable X by default`: the verb says which
_BY_DEFAULT = (
    (
        re.compile(r"\b(?:disabl\w*|turn(?:s|ed)? off)\b[^.;]{0,60}\bby default\b", re.I),
        "off_by_default",
    ),
    (
        re.compile(r"\b(?:enabl\w*|turn(?:s|ed)? on)\b[^.;]{0,60}\b(?:by|as) default\b", re.I),
        "on_by_default",
    ),
)
_TOKEN = re.compile(r"#\d+|[^\s,;:()\[\]\"'“”‘’]+")
_CLAUSE_END = re.compile(r"[;:()—–]|\.\s")
_LEADING = word_set(
    "the a an this that these those its our their note also following and or but so "
    "then here now only both all any"
)
_NOT_A_NAME = word_set("i we you it they he she will would can could should must may might to")
# a one-word effect used as an adjective (`unsupported combinations`) names no subject before it
_AFTER_EFFECT = word_set(
    "for on in with by yet here and or when unless so since because as if until at"
)
_TRAILING = word_set(
    "is are was were be been being will would can may might still yet intentionally "
    "deliberately currently therefore also here now so"
)
_MAKES_DEFAULT = re.compile(r"\bmak(?:e|es|ing)\b.{1,60}\bdefault\b", re.I)
_FALLBACK = {"default": "changed_default"}
_NO_EFFECT = {"breaking"}


@dataclass(frozen=True)
class _Phrase:
    words: tuple[str, ...]
    field: str
    value: str
    better: str


@dataclass(frozen=True)
class _Match:
    start: int  # token index
    end: int  # token index after the last
    word_start: int
    word_end: int
    phrase: _Phrase


@lru_cache(maxsize=8)
def _phrases(vocab: Vocabulary) -> dict[str, tuple[_Phrase, ...]]:
    """kind -> its detail phrases, the longest first."""
    found: dict[str, list[_Phrase]] = {}
    for signal, listed in vocab.phrases.items():
        if not signal.startswith(SIGNAL + "/"):
            continue
        _, kind, field, value, better = ([*signal.split("/"), "", "", "", ""])[:5]
        for phrase in listed:
            found.setdefault(kind, []).append(_Phrase(tuple(phrase.split()), field, value, better))
    return {k: tuple(sorted(v, key=lambda p: -len(p.words))) for k, v in found.items()}


def seed_signal(kind: str, field: str, value: str, better: str) -> str:
    """The signal a seed row of caveat_details.csv is passed to the reader as."""
    return "/".join((SIGNAL, kind, field, value or "", better or ""))


class _Sentence:
    """A sentence's tokens as written and its words as the vocabulary matches them."""

    def __init__(self, text: str) -> None:
        self.text = text
        tags = [m.span() for m in _TAGS.finditer(text)] if "[" in text else []
        self.tokens = [
            m for m in _TOKEN.finditer(text) if not any(a <= m.start() < b for a, b in tags)
        ]
        self.words: list[str] = []
        self.owner: list[int] = []  # word index -> token index
        self.starts: dict[str, list[int]] | None = None  # word -> its indexes (find)
        for i, token in enumerate(self.tokens):
            for w in tokens(token.group()):
                self.words.append(w)
                self.owner.append(i)

    def find(self, phrases: tuple[_Phrase, ...], field: str) -> list[_Match]:
        """Each phrase of `field` where it occurs, the longest first where they overlap."""
        taken: set[int] = set()
        out: list[_Match] = []
        n = len(self.words)
        starts = self.starts
        if starts is None:  # each word's positions, in order
            starts = self.starts = {}
            for at, w in enumerate(self.words):
                starts.setdefault(w, []).append(at)
        for p in (p for p in phrases if p.field == field):
            size = len(p.words)
            # only where the phrase's first word stands (every position for an empty phrase)
            for at in starts.get(p.words[0], ()) if size else range(n + 1):
                if (
                    at + size <= n
                    and tuple(self.words[at : at + size]) == p.words
                    and taken.isdisjoint(range(at, at + size))
                    and (field != "effect" or not self.in_name(at, at + size))
                ):
                    taken.update(range(at, at + size))
                    first, last = self.owner[at], self.owner[at + size - 1]
                    out.append(_Match(first, last + 1, at, at + size, p))
        return sorted(out, key=lambda m: m.word_start)

    def in_name(self, first: int, end: int) -> bool:
        """Are words first..end part of a name written as code (a path, `a_b`, `a.b`)?"""
        token = self.tokens[self.owner[first]].group()
        return self.owner[first] == self.owner[end - 1] and bool(_PATHLIKE.search(token))

    def written(self, start: int, end: int) -> str:
        """Tokens start..end as written (the text between them kept)."""
        if start >= end:
            return ""
        text = self.text[self.tokens[start].start() : self.tokens[end - 1].end()]
        return text.strip(" .,;:!?")


def details(kind: str, sentence: str | None, vocab: Vocabulary) -> dict:
    """`{"subject", "effect"}` of one caveat (see the module's docstring)."""
    subject, effect = _details(kind, sentence, vocab)
    return {"subject": subject, "effect": effect}


@lru_cache(maxsize=4096)  # a title's caveat and a template's sentence repeat from PR to PR
def _details(kind: str, sentence: str | None, vocab: Vocabulary) -> tuple[str | None, str | None]:
    phrases = _phrases(vocab).get(kind)
    if not sentence or kind in _NO_EFFECT or not phrases:
        return None, None
    s = _Sentence(sentence)
    reader = {"trade_off": _trade_off, "default": _default, "omission": _omission}
    found = reader.get(kind, _unverified)(s, phrases)
    return found["subject"], found["effect"]


def _trade_off(s: _Sentence, phrases: tuple[_Phrase, ...]) -> dict:
    subjects = s.find(phrases, "subject")
    effects = s.find(phrases, "effect")
    best: tuple[_Match, str | None] | None = None
    for subject in subjects:
        near = [
            e
            for e in effects
            if e is not subject
            and (
                subject.word_start - EFFECT_REACH <= e.word_end <= subject.word_start
                or subject.word_end <= e.word_start <= subject.word_end + EFFECT_REACH - 1
                or (e.word_start <= subject.word_start and e.word_end >= subject.word_end)
            )
        ]
        # what is traded away is named after the verb; else the nearest word says it
        traded = [
            e for e in near if e.phrase.value == "traded" and e.word_end <= subject.word_start
        ]
        nearest = min(
            near, key=lambda e: (_gap(e, subject), e.phrase.value != "improves"), default=None
        )
        # "at the cost of higher latency": the word beside the subject says more
        beside = nearest is not None and nearest.phrase.value != "traded"
        beside = beside and _gap(nearest, subject) == 0
        chosen = traded[0] if traded and not beside else nearest
        effect = chosen.phrase.value if chosen else None
        if effect in ("increase", "decrease") and _better(effect) == subject.phrase.better:
            effect = "improves"
        if best is None or (best[1] is None and effect is not None):
            best = (subject, effect)
    if best is None:
        return {"subject": None, "effect": None}
    return {"subject": best[0].phrase.value, "effect": best[1]}


def _gap(effect: _Match, subject: _Match) -> int:
    if effect.word_end <= subject.word_start:
        return subject.word_start - effect.word_end
    return max(0, effect.word_start - subject.word_end)


def _better(effect: str) -> str:
    return "higher" if effect == "increase" else "lower"


def _default(s: _Sentence, phrases: tuple[_Phrase, ...]) -> dict:
    found = [m for m in s.find(phrases, "effect") if m.phrase.value != _FALLBACK["default"]]
    verb = next((value for pattern, value in _BY_DEFAULT if pattern.search(s.text)), None)
    near = found[0] if found else None
    if verb is not None and (near is None or near.phrase.value == "now_default"):
        effect = verb
    elif near is not None:
        effect = near.phrase.value
    elif _MAKES_DEFAULT.search(s.text):
        effect = "now_default"
    else:
        effect = _FALLBACK["default"]
    return {"subject": _setting(s, near), "effect": effect}


def _setting(s: _Sentence, near: _Match | None) -> str | None:
    """The setting a default sentence names as code, the nearest to what it says of it."""
    at = near.start if near else 0
    named = [
        (abs(i - at), i)
        for i, token in enumerate(s.tokens)
        if _CODE_LIKE.search(token.group())
        and not token.group().startswith("#")
        and (near is None or abs(i - at) <= SETTING_REACH)
    ]
    if not named:
        return None
    i = min(named)[1]
    return s.tokens[i].group().strip(" .,;:!?`'\"").split("=")[0] or None


def _omission(s: _Sentence, phrases: tuple[_Phrase, ...]) -> dict:
    found = s.find(phrases, "effect")
    if not found:
        return {"subject": None, "effect": None}
    first = found[0]
    after = s.tokens[first.end].group().lower() if first.end < len(s.tokens) else ""
    adjective = len(first.phrase.words) == 1 and after.isalpha() and after not in _AFTER_EFFECT
    subject = None if adjective else _before(s, first.start)
    return {"subject": subject, "effect": first.phrase.value}


def _before(s: _Sentence, end: int) -> str | None:
    """What a clause names before token `end`: from the clause's start (a list of short names
    kept whole), without leading determiners and trailing auxiliaries; None when it is not a
    short phrase."""
    if end == 0:
        return None
    head = _PARENTHESES.sub(" ", s.text[: s.tokens[end].start()])
    cut = [m.end() for m in _CLAUSE_END.finditer(head)]
    clause = head[cut[-1] :] if cut else head
    pieces = [p.strip() for p in clause.split(",")]
    kept: list[str] = []
    for piece in reversed(pieces):
        tokens = piece.split()
        if kept and (not tokens or len(tokens) > MAX_PIECE_WORDS):
            break
        kept.insert(0, piece)
    if len(kept) > 1 and not re.match(r"(?:and|or)\s", kept[-1]):
        kept = kept[-1:]  # earlier pieces join only a list of names (`A, B, and C`)
    tokens = ", ".join(kept).split()
    if tokens and tokens[0].islower() and tokens[0].endswith("ing"):
        return None  # a clause (`ensuring the old path ...`), not a name
    while tokens and tokens[0].lower().strip(",") in _LEADING:
        tokens.pop(0)
    while tokens and tokens[-1].lower().strip(",") in _TRAILING:
        tokens.pop()
    subject = " ".join(tokens).strip(" .,;:!?")
    if (
        not subject
        or len(tokens) > MAX_SUBJECT_WORDS
        or not re.search(r"[A-Za-z]", subject)
        or any(t.lower() in _NOT_A_NAME for t in tokens)
    ):
        return None
    return subject


def _unverified(s: _Sentence, phrases: tuple[_Phrase, ...]) -> dict:
    found = s.find(phrases, "effect")
    effect = found[0].phrase.value if found else None
    platforms = s.find(phrases, "platform")
    if not platforms:
        return {"subject": None, "effect": effect}
    first = platforms[0]
    end = first.end
    for other in platforms[1:]:  # `AMD GPUs`, `NVIDIA H100`: one platform
        if other.start != end:
            break
        end = other.end
    return {"subject": s.written(first.start, end), "effect": effect}
