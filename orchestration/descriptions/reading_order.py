"""Which blocks of a description the change sentence is looked for in, and in which order:
each section's role from its heading, a squash message's first commit, the lists whose lead-in
says they hold the changes or the problem."""

from __future__ import annotations

from functools import lru_cache

from orchestration.descriptions.markdown import Doc, word_set
from orchestration.descriptions.sentences import sentences
from orchestration.descriptions.vocabulary import Vocabulary

# a lead-in ending in one of these is cut mid-sentence: the items after it each end it
_CUT = word_set("by to of for with in at from via into onto and or the a an")


def section_roles(doc: Doc, vocab: Vocabulary) -> list[str]:
    """Each section's role: `change`, `skip`, `lead` (before any heading) or `neutral`; a
    heading that says neither takes its parent's role."""
    roles: list[str] = []
    for index, section in enumerate(doc.sections):
        if index == 0:
            roles.append("lead")
            continue
        role = "skip" if section.versioned else heading_role(vocab, section.title)
        if role is None:
            role = roles[section.parent] if section.parent > 0 else "neutral"
        roles.append(role)
    return roles


@lru_cache(maxsize=4096)  # templates repeat their headings in every PR
def heading_role(vocab: Vocabulary, title: str) -> str | None:
    """`change` or `skip` for a heading that says so (the earlier phrase wins), else None."""
    change = vocab.found("change_heading", title)
    skip = vocab.found("skip_heading", title)
    padded = f" {title} "
    if change and (not skip or padded.find(f" {change} ") < padded.find(f" {skip} ")):
        return "change"
    return "skip" if skip else None


def squash_end(doc: Doc, roles: list[str]) -> int | None:
    """Where a squash message's first commit ends (its next `* subject` item), when the
    description is one: the later commits are review iterations, not what the PR does."""
    blocks = doc.blocks
    if not blocks or blocks[0].kind != "item" or roles[blocks[0].section] != "lead":
        return None
    return next((i for i, b in enumerate(blocks[1:], 1) if b.kind == "item" and b.loose), None)


def list_lead(doc: Doc, index: int, repo: str, vocab: Vocabulary, seen: dict[int, str]) -> str:
    """What the lead-in sentence of the list item `index` is in says of its items: `changes`
    ("the following changes were made", "Key changes:"), `motivation` ("... that led to
    regressions:", whose items tell the problem), `fragment` (a lead-in cut mid-sentence, "...
    scenarios by", whose items each end it) or "" (nothing); `seen` keeps each list's answer."""
    blocks = doc.blocks
    first = index
    while first > 0 and blocks[first - 1].kind == "item":
        first -= 1
    if first in seen:
        return seen[first]
    kind = ""
    said = (
        sentences(blocks[first - 1], repo, vocab)
        if first and blocks[first - 1].kind == "prose"
        else []
    )
    if said:
        last = said[-1]
        if vocab.found("change_lead", last.words, last.present, last.toks):
            kind = "changes"
        elif last.text.endswith(":") and (
            vocab.found("summary_motivation", last.words, last.present, last.toks)
            or vocab.found("state_before", last.words, last.present, last.toks)
        ):
            kind = "motivation"
        elif last.toks and last.toks[-1] in _CUT and last.text[-1:].isalnum():
            kind = "fragment"
    seen[first] = kind
    return kind


def candidates(doc: Doc, roles: list[str], squash: int | None) -> list[tuple[int, int]]:
    """(pass, block index) of the blocks to read, in the order they are read: change sections,
    the lead (of a squash message, its first commit), other sections; then quotes."""
    order = {"change": 0, "lead": 1, "neutral": 2}
    found = []
    for i, b in enumerate(doc.blocks):
        role = roles[b.section]
        if role not in order or b.kind not in ("prose", "item", "quote"):
            continue
        if squash is not None and role == "lead" and i >= squash:
            continue
        found.append((3 if b.kind == "quote" else order[role], i))
    return sorted(found)
