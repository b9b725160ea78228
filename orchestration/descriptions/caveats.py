"""Caveats: what a description says a reader must weigh, each with its sentence.

Kinds (seeds `caveat_<kind>`): `trade_off` ("may increase peak memory", "at the cost of"),
`default` ("off by default", "opt-in", "now the default", "make X the default"), `omission`
("intentionally ignored", "not supported"), `unverified` ("not verified on CUDA") and
`breaking` (the breaking-change phrases, a removed or renamed config field, flag, class or
trainer, "changes loss values"; else the title's `[BREAKING]` or `type!:`). A sentence that
negates, is the template asking (seeds `caveat_negation`) or tells how things were before
(`state_before`) is none. Read from prose, list items and checkboxes (a test plan's unticked
"not verified on CUDA" is one), never from code, quotes or tables.
"""

from __future__ import annotations

import re

from orchestration.descriptions.change_sentence import words_of_title
from orchestration.descriptions.finish import complete_lead_in
from orchestration.descriptions.markdown import Doc, plain, tokens
from orchestration.descriptions.sentences import sentences
from orchestration.descriptions.vocabulary import CAVEAT_KINDS, CAVEAT_SIGNALS, Vocabulary

MAX_PER_KIND = 2
MAX_CAVEATS = 6
MAX_CHARS = 240
REMOVAL_REACH = 4  # a removal's object stands within this many words after its verb

_MAKE_DEFAULT = re.compile(r"\bmak(?:e|es|ing) (?:\w+ ){1,4}(?:the )?default\b")
_IDENTIFIERS = re.compile(r"[a-z0-9_]+(?:[.\-/][a-z0-9_]+)*")
_CLASS_ENDS = ("trainer", "config", "backend", "engine", "worker")  # GFPOTrainer, a class
_PASSIVE = frozenset(
    ["is", "are", "been", "be", "now", "gets", "get"]
)  # not `was`: "removed a while back"
_ELSEWHERE = frozenset(["in", "by", "from", "since", "upstream", "earlier", "previously", "before"])
# `[BREAKING]`, `[BREAKING config]`; `feat!:`, `fix(api)!:`, `depr(rust!,python):` (two
# patterns, each looked for only where its first mark is: one led by a literal `[` is scanned
# for it at C speed, an alternation of both is tried at every character)
_BREAKING_TAG = re.compile(r"\[\s*breaking\b", re.IGNORECASE)
_BREAKING_TYPE = re.compile(r"^\s*\w+(?:\([^)]*\))?!:|^\s*\w+\([^)]*!\s*[,)]")


def _removal(sentence: str, vocab: Vocabulary) -> bool:
    """This PR removes or renames a config field, flag, class, trainer, ... (not an unused
    helper, a CI job or something another project removed): a removal verb opening the
    sentence (after "This PR", "We", ...) with its object after it, or the object before a
    present or past passive that no "in #12", "by", "since" follows."""
    toks = _IDENTIFIERS.findall(sentence.lower())
    verbs = vocab.index.get("caveat_removal_verb", {})
    if not toks or verbs.keys().isdisjoint(toks):
        return False
    # what a removal must be of (below): one of the phrases' words, or a class's name
    objects = vocab.key_words.get("caveat_removal", frozenset())
    if objects.isdisjoint(toks) and not any(t.endswith(_CLASS_ENDS) for t in toks):
        return False
    subject = vocab.starts("change_subject", " ".join(toks))
    first = len(subject.split()) if subject else 0
    for i, tok in enumerate(toks):
        if tok not in verbs:
            continue
        if i == first:
            reach = toks[i + 1 : i + 1 + REMOVAL_REACH]
        elif i > 0 and (toks[i - 1] in _PASSIVE or sentence.lower().find(tok + ":") >= 0):
            if i + 1 < len(toks) and toks[i + 1] in _ELSEWHERE:
                continue
            reach = toks[max(0, i - 1 - REMOVAL_REACH) : i]
        else:
            continue
        plain_reach = " ".join(w for w in reach if "_" not in w and "." not in w)
        if vocab.found("caveat_removal", plain_reach) or any(
            w.endswith(_CLASS_ENDS) for w in reach
        ):
            # housekeeping anywhere in the sentence (a CI job's config, an unused helper)
            return not vocab.found("caveat_removal_exempt", " ".join(toks))
    return False


_KIND_SIGNALS = {kind: (f"caveat_{kind}",) for kind in CAVEAT_KINDS} | {
    "breaking": ("breaking", "caveat_breaking", "caveat_removal_verb")
}


def _kinds(
    sentence: str,
    w: str,
    vocab: Vocabulary,
    present: frozenset[str],
    toks: list[str] | None = None,
) -> list[str]:
    """The caveat kinds a sentence states (`toks`: its words split, when the caller has them)."""
    if "state_before" in present and vocab.found("state_before", w, toks=toks):
        return []
    found = []
    for kind in CAVEAT_KINDS:
        if present.isdisjoint(_KIND_SIGNALS[kind]):
            continue
        if kind == "breaking":
            hit = (
                vocab.found("breaking", w, present, toks)
                or vocab.found("caveat_breaking", w, present, toks)
                or ("caveat_removal_verb" in present and _removal(sentence, vocab))
            )
        else:
            hit = vocab.found(f"caveat_{kind}", w, toks=toks) or (
                kind == "default" and _MAKE_DEFAULT.search(w)
            )
        if hit:
            found.append(kind)
    return found


def _cut(sentence: str) -> str:
    if len(sentence) <= MAX_CHARS:
        return sentence
    return sentence[:MAX_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def caveats(doc: Doc, title: str, vocab: Vocabulary, repo: str) -> list[dict]:
    """The description's caveats in the order it gives them, at most MAX_PER_KIND a kind."""
    out: list[dict] = []
    counts = dict.fromkeys(CAVEAT_KINDS, 0)
    skipped = (
        _skipped_sections(doc, vocab) if len(doc.sections) > 1 else [False] * len(doc.sections)
    )
    for index, block in enumerate(doc.blocks):
        if (
            block.kind not in ("prose", "item", "box")
            or len(out) >= MAX_CAVEATS
            or skipped[block.section]
        ):
            continue
        if block.cache is None and _silent(block.text, vocab):
            continue  # not split into sentences: none of them could hold a caveat
        found = sentences(block, repo, vocab)
        for j, s in enumerate(found):
            if len(s.toks) < 3 or s.present.isdisjoint(CAVEAT_SIGNALS):
                continue
            if vocab.found("caveat_negation", s.words, s.present, s.toks):
                continue
            kinds = _kinds(s.text, s.words, vocab, s.present, s.toks)
            if not kinds:
                continue
            sentence = s.text
            if sentence.endswith(":") and j == len(found) - 1:
                following = doc.blocks[index + 1] if index + 1 < len(doc.blocks) else None
                sentence = complete_lead_in(sentence, following)
            for kind in kinds:
                if counts[kind] < MAX_PER_KIND and len(out) < MAX_CAVEATS:
                    out.append({"kind": kind, "sentence": _cut(sentence)})
                    counts[kind] += 1
    return (_title_caveats(title, vocab, repo, counts) + out)[:MAX_CAVEATS]


# the marks `markdown.plain` removes (emphasis, code, escapes, tags, links) or rewrites (URLs):
# only across them can a sentence's words join into one its block's words lack
_JOINERS = ("`", "*", "_", "~", "\\", "<", "[", "://")


def _silent(text: str, vocab: Vocabulary) -> bool:
    """Can no sentence of the block's text hold a caveat (none of the words a caveat's sentence
    must have, and no mark that could join two words into one)?"""
    return vocab.caveat_words.isdisjoint(tokens(text)) and not any(j in text for j in _JOINERS)


def breaking_tag(title: str) -> bool:
    """Does the title mark the change breaking (`[BREAKING]`, `type!:`)?"""
    return ("[" in title and _BREAKING_TAG.search(title) is not None) or (
        "!" in title and _BREAKING_TYPE.search(title) is not None
    )


def _title_caveats(title: str, vocab: Vocabulary, repo: str, counts: dict[str, int]) -> list[dict]:
    """What the title says that the description did not: a breaking change (`[BREAKING]`,
    `type!:`, a removed or renamed trainer, option, ...) or a new default."""
    if not title:
        return []
    rest = words_of_title(title)
    found = []
    if not counts["breaking"] and (
        breaking_tag(title)
        or vocab.found("breaking", rest)
        or vocab.found("caveat_breaking", rest)
        or _removal(rest, vocab)
    ):
        found.append({"kind": "breaking", "sentence": _cut(plain(title, repo)), "title": True})
    if not counts["default"] and (
        "default" in rest.split()
        or "defaults" in rest.split()
        or vocab.found("caveat_default", rest)
    ):
        found.append({"kind": "default", "sentence": _cut(plain(title, repo))})
    return found


def _skipped_sections(doc: Doc, vocab: Vocabulary) -> list[bool]:
    """Sections that tell the motivation or are a checklist (and those under them)."""
    skipped: list[bool] = []
    for section in doc.sections:
        own = section.versioned or (
            bool(section.title) and vocab.found("caveat_skip_heading", section.title) is not None
        )
        skipped.append(own or (section.parent > 0 and skipped[section.parent]))
    return skipped


def may_have_caveats(tokens: set[str], vocab: Vocabulary) -> bool:
    """Could a text with these lower-case words hold a caveat?"""
    return not tokens.isdisjoint(vocab.caveat_words)
