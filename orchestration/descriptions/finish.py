"""How a chosen sentence is kept: a lead-in completed by the code it introduces, a dangling end
cut back to its last clause, a long one cut at a clause, its first word capitalised."""

from __future__ import annotations

import re

from orchestration.descriptions.markdown import Block, word_set

MAX_CHARS = 300  # a longer sentence is cut at its last clause boundary before this, with "…"
MIN_PROSE_WORDS = 4  # fewer words than this say too little
_DANGLING = word_set(
    "in at to of from by for with see following the a an and or via like here mentioned into"
)
_CLAUSE = re.compile(r"[,;]\s|\s[—–-]\s|\s\(")


def complete_lead_in(sentence: str, following: Block | None) -> str:
    """A sentence ending in ":" completed by the short code line it introduces (the setting it
    adds), else ending in a full stop."""
    if following is not None and following.kind == "code":
        lines = [ln.strip() for ln in following.text.split("\n") if ln.strip()]
        # a short snippet's last line (a setting, a flag), not a document or a listing
        if (
            0 < len(lines) <= 6
            and len(lines[-1]) <= 80
            and not lines[-1].startswith(("-", "#", ">"))
        ):
            return f"{sentence} {lines[-1]}."
    return sentence[:-1].rstrip() + "."


def finish(sentence: str, following: Block | None) -> str | None:
    """The sentence as the fact keeps it: a lead-in completed by the code it introduces (or
    ended), a dangling end cut back to its last clause, a long one cut at a clause; None if
    that leaves too little."""
    if sentence.endswith(":"):
        sentence = complete_lead_in(sentence, following)
    bare = sentence.rstrip(".!?;,: ")
    if bare.rsplit(" ", 1)[-1].lower() in _DANGLING or sentence.endswith((",", "(", "-")):
        cut = [m.start() for m in _CLAUSE.finditer(bare)]
        if not cut or len(bare[: cut[-1]].split()) < MIN_PROSE_WORDS:
            return None
        sentence = bare[: cut[-1]] + "."
    if len(sentence) > MAX_CHARS:
        cut = [m.start() for m in _CLAUSE.finditer(sentence[:MAX_CHARS])]
        if not cut or len(sentence[: cut[-1]].split()) < MIN_PROSE_WORDS:
            return None
        sentence = sentence[: cut[-1]] + " …"
    first = sentence.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        sentence = sentence[:1].upper() + sentence[1:]
    return sentence
