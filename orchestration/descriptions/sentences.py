"""A block's sentences, split once per description and kept with their words and the signals
their words can hold (`Vocabulary.signals`), for every rule that reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from orchestration.descriptions.markdown import Block, plain, words
from orchestration.descriptions.vocabulary import Vocabulary

# a full stop (and the emphasis it closes, `itself.**`) before the next sentence's start:
# `[.!?][*_]{0,3}\s|[。！？]` written to open with one set of characters, which the regex
# engine scans for at C speed (an alternation is tried at every character)
_MAYBE_END = re.compile(r"[.!?。！？](?:(?<=[。！？])|[*_]{0,3}\s)")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[*_]{0,3}\s+(?=[^a-z\s]|`)")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|no|fig|eq)\.|\b[A-Z]\.)$", re.I
)


# blocks whose texts repeat from one description to the next (a template's checklist and its
# quoted instructions): their sentences are kept by text; prose and items mostly do not repeat
_REPEATED = frozenset(("box", "quote"))


@dataclass(slots=True)
class Sentence:
    text: str  # as a reader sees it (markdown.plain)
    words: str  # its lower-case words (markdown.words)
    toks: list[str]
    present: frozenset[str]  # the signals whose phrases it may hold


def split(text: str, repo: str) -> list[str]:
    """A block's text as plain sentences (a meant line break ends one, as a full stop does)."""
    out: list[str] = []
    for piece in text.split("\n"):
        if not _MAYBE_END.search(piece):
            clean = plain(piece, repo)
            if clean:
                out.append(clean)
            continue
        merged: list[str] = []
        for part in _SENTENCE_END.split(piece):
            if (
                merged
                and len(merged[-1].rsplit(" ", 1)[-1]) <= 8
                and _ABBREVIATION.search(merged[-1])
            ):
                merged[-1] += " " + part
            else:
                merged.append(part)
        out += [c for c in (plain(m, repo) for m in merged) if c]
    return out


def sentences(block: Block, repo: str, vocab: Vocabulary) -> tuple[Sentence, ...]:
    """The block's sentences (split on first use, then kept on the block). A text seen before
    (a template's line, a checklist's box) is split once per process: its sentences depend on
    the repository only through a link (`markdown.plain`)."""
    if block.cache is None:
        text = block.text
        kept = block.kind in _REPEATED
        key = (text, repo) if "://" in text else text
        seen = vocab.sentence_cache
        found = seen.get(key) if kept else None
        if found is None:
            found = []
            for piece in split(text, repo):
                w = words(piece)
                toks = w.split()
                found.append(Sentence(piece, w, toks, vocab.signals(toks)))
            found = tuple(found)
            if kept:
                if len(seen) > 20_000:
                    seen.clear()
                seen[key] = found
        block.cache = found
    return block.cache
