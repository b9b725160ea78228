"""The words the description rules look for, from the seeds the SQL model passes in.

The SQL model builds one text of `signal<TAB>phrase` lines from seeds/description_signals.csv
(and the verbs of seeds/title_verbs.csv as `change_verb`); `description_vocabulary` parses it
once and gives `read_description` a key to it. Phrases are matched as whole lower-case words
(`words()`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from orchestration.descriptions.markdown import words

_NONE: frozenset[str] = frozenset()
_NO_OPENING: dict[str, str] = {}
# signals whose phrases count only where a sentence starts with them
OPENING_SIGNALS = (
    "change_subject",
    "template_prompt_start",
    "summary_pointer",
    "summary_reference",
)
# signals read only as a set of words (`first_words`), never as phrases in a sentence's words
WORD_SIGNALS = frozenset(("summary_generic",))
CAVEAT_KINDS = ("trade_off", "default", "omission", "unverified", "breaking")
# a caveat's sentence holds the first word of one of these signals' phrases
CAVEAT_SIGNALS = frozenset(
    (
        "breaking",
        "caveat_breaking",
        "caveat_removal_verb",
        "caveat_trade_off",
        "caveat_default",
        "caveat_omission",
        "caveat_unverified",
    )
)


@dataclass(frozen=True, slots=True, eq=False)  # hashed by identity: a cache key
class Vocabulary:
    phrases: dict[str, tuple[str, ...]]  # signal -> phrases, each as " word word "
    verbs: frozenset[str]  # base and inflected forms of the verbs that say what a PR changes
    first_words: dict[str, frozenset[str]]  # signal -> the first word of each of its phrases
    by_first: dict[str, dict[str, tuple[str, ...]]]  # signal -> first word -> its phrases
    key_words: dict[str, frozenset[str]]  # signal -> each phrase's longest word
    index: dict[str, dict[str, tuple[str, ...]]]  # signal -> a longest word -> its phrases
    key_signals: dict[str, frozenset[str]]  # a longest word -> the signals it is one of
    key_set: frozenset[str]  # the words of key_signals
    # a metric's words (" word word ") -> (its name, its group, `higher` or `lower` is better)
    metrics: dict[str, tuple[str, str, str]]
    caveat_words: frozenset[str]  # see CAVEAT_SIGNALS
    openers: dict[str, tuple[tuple[str, str], ...]]  # first word -> (signal, phrase), longest first
    # is_verb's and signals' answers: words and their sets repeat from one description to the next
    verb_cache: dict[str, bool]
    union_cache: dict[frozenset[str], frozenset[str]]
    sentence_cache: dict  # a block's text -> its sentences (sentences.sentences)

    def get(self, signal: str) -> tuple[str, ...]:
        return self.phrases.get(signal, ())

    def signals(self, tokens: list[str]) -> frozenset[str]:
        """The signals one of whose phrases' longest word is among the words (a text's words
        split): the only ones `found` can find in them."""
        hits = self.key_set.intersection(tokens)
        if not hits:
            return _NONE
        by_key = self.key_signals
        if len(hits) == 1:
            return by_key[next(iter(hits))]
        union = self.union_cache.get(hits)
        if union is None:
            union = frozenset().union(*(by_key[w] for w in hits))
            if len(self.union_cache) > 100_000:
                self.union_cache.clear()
            self.union_cache[hits] = union
        return union

    def found(
        self,
        signal: str,
        text_words: str,
        present: frozenset[str] | None = None,
        toks: list[str] | None = None,
    ) -> str | None:
        """The earliest of the signal's phrases in ` text_words ` (longest first at a tie);
        `present` (from `signals`) skips a signal that cannot be there, and `toks` are the
        words split, when the caller has them."""
        if present is not None and signal not in present:
            return None
        first = self.key_words.get(signal)
        if not first:
            return None
        hits = first.intersection(text_words.split() if toks is None else toks)
        if not hits:
            return None
        index = self.index[signal]
        padded = f" {text_words} "
        best = None
        best_at = 0
        for word in hits:
            for phrase in index[word]:
                at = padded.find(phrase)
                if at >= 0 and (
                    best is None or at < best_at or (at == best_at and len(phrase) > len(best))
                ):
                    best, best_at = phrase, at
        return best.strip() if best is not None else None

    def starts(self, signal: str, text_words: str) -> str | None:
        """The longest of the signal's phrases that ` text_words ` starts with."""
        first = text_words.split(" ", 1)[0]
        phrases = self.by_first.get(signal, {}).get(first)
        if not phrases:
            return None
        padded = f" {text_words} "
        found = [p for p in phrases if padded.startswith(p)]
        return max(found, key=len).strip() if found else None

    def openings(self, text_words: str) -> dict[str, str]:
        """Signal -> the longest of its phrases that ` text_words ` starts with, for the signals
        matched at a sentence's start (OPENING_SIGNALS), in one look-up of its first word."""
        candidates = self.openers.get(text_words.split(" ", 1)[0])
        if not candidates:
            return _NO_OPENING
        padded = f" {text_words} "
        found: dict[str, str] = {}
        for signal, phrase in candidates:  # longest first
            if signal not in found and padded.startswith(phrase):
                found[signal] = phrase.strip()
        return found

    def is_verb(self, word: str) -> bool:
        """A change verb in any form: `add`, `adds`, `added`, `adding`, `re-add` (`readd`)."""
        known = self.verb_cache.get(word)
        if known is None:
            known = self.verb_cache[word] = self._is_verb(word)
            if len(self.verb_cache) > 100_000:
                self.verb_cache.clear()
        return known

    def _is_verb(self, word: str) -> bool:
        v = self.verbs
        if word in v:
            return True
        for suffix, stems in (
            ("ing", ("", "e")),
            ("ied", ("y",)),
            ("ies", ("y",)),
            ("ed", ("", "e")),
            ("es", ("",)),
            ("s", ("",)),
        ):
            if word.endswith(suffix) and len(word) > len(suffix) + 2:
                stem = word[: -len(suffix)]
                if any(stem + s in v for s in stems) or (
                    stem[-1:] == stem[-2:-1] and stem[:-1] in v
                ):
                    return True
        return word.startswith("re") and len(word) > 4 and word[2:] in v


_LOADED: dict[str, Vocabulary] = {}


def load(text: str | None) -> str:
    """The SQL function `description_vocabulary`: parses the seed text once and returns the key
    `read_description` takes instead of the text (a 30 KB constant passed with every row would
    be copied into every batch of rows)."""
    key = hashlib.sha256((text or "").encode()).hexdigest()[:16]
    if key not in _LOADED:
        _LOADED[key] = vocabulary(text)
    return key


def loaded(key: str) -> Vocabulary:
    """The vocabulary `load` returned `key` for, in this process."""
    try:
        return _LOADED[key]
    except KeyError:
        raise LookupError(
            f"no description vocabulary {key!r} in this process: load it first"
        ) from None


@lru_cache(maxsize=8)
def vocabulary(text: str | None) -> Vocabulary:
    """The vocabulary of one seed text (`signal<TAB>phrase` lines)."""
    phrases: dict[str, list[str]] = {}
    verbs: set[str] = set()
    not_verbs: set[str] = set()
    metrics: dict[str, tuple[str, str, str]] = {}
    for line in (text or "").split("\n"):
        signal, _, phrase = line.partition("\t")
        if signal in ("metric_higher", "metric_lower"):
            phrase, _, named = phrase.partition("=")
            name, _, group = named.partition("/")
            key = f" {words(phrase)} "
            metrics[key] = (name or phrase, group or name or phrase, signal.removeprefix("metric_"))
            signal = "metric"
        normal = words(phrase)
        if not normal:
            continue
        if signal in ("change_verb", "not_change_verb"):
            (verbs if signal == "change_verb" else not_verbs).add(normal.replace(" ", ""))
        else:
            phrases.setdefault(signal, []).append(f" {normal} ")
    key_signals = _key_signals(phrases)
    return Vocabulary(
        {s: tuple(sorted(set(p), key=lambda x: (-len(x), x))) for s, p in phrases.items()},
        frozenset(verbs - not_verbs),
        {s: frozenset(x.split()[0] for x in p) for s, p in phrases.items()},
        {s: _by(p, lambda x: x.split()[0]) for s, p in phrases.items()},
        {s: frozenset(_key(x) for x in p) for s, p in phrases.items()},
        {s: _by(p, _key) for s, p in phrases.items()},
        key_signals,
        frozenset(key_signals),
        metrics,
        frozenset(_key(p) for s in CAVEAT_SIGNALS for p in phrases.get(s, ())) | {"default"},
        _openers(phrases),
        {},
        {},
        {},
    )


def _openers(phrases: dict[str, list[str]]) -> dict[str, tuple[tuple[str, str], ...]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for signal in OPENING_SIGNALS:
        for phrase in set(phrases.get(signal, ())):
            found.setdefault(phrase.split()[0], []).append((signal, phrase))
    return {w: tuple(sorted(p, key=lambda sp: -len(sp[1]))) for w, p in found.items()}


def _key(phrase: str) -> str:
    """A phrase's longest word: a text without it cannot hold the phrase, and it is rarer than
    the phrase's other words (`default`, not `by`)."""
    return max(phrase.split(), key=len)


def _key_signals(phrases: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for signal, listed in phrases.items():
        if signal in WORD_SIGNALS:
            continue  # read as a set of words, never looked for in a sentence
        for phrase in listed:
            found.setdefault(_key(phrase), set()).add(signal)
    return {word: frozenset(signals) for word, signals in found.items()}


def _by(phrases: list[str], key: Callable[[str], str]) -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for phrase in set(phrases):
        index.setdefault(key(phrase), []).append(phrase)
    return {word: tuple(found) for word, found in index.items()}
