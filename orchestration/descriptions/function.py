"""`read_description(repo, title, body, vocabulary)`, the SQL function behind the description's
change sentence, impact claims, headline claim and caveats (sql/functions.yml).

Called by int_pull_request_descriptions with Arrow batches of rows: the vocabulary is loaded
once (`description_vocabulary`, which returns a key to it), a description is parsed once, and
claims and caveats are looked for only where a cheap test finds a figure or a caveat's word; a
description of commit trailers alone (`Co-authored-by:`) is no description.
"""

from __future__ import annotations

import re

import pyarrow as pa

from orchestration.descriptions.caveat_details import details
from orchestration.descriptions.caveats import breaking_tag, caveats
from orchestration.descriptions.change_sentence import change_sentence, words_of_title
from orchestration.descriptions.claims import impact_claims
from orchestration.descriptions.markdown import MAX_BODY_CHARS, Doc, parse, tokens
from orchestration.descriptions.vocabulary import Vocabulary, loaded, vocabulary
from orchestration.text import strip_unsafe

CLAIM = pa.struct(
    [
        ("metric", pa.string()),
        ("value", pa.float64()),
        ("unit", pa.string()),
        ("direction", pa.string()),
        ("condition", pa.string()),
        ("header", pa.string()),
        ("figure", pa.string()),
        ("sentence", pa.string()),
    ]
)
CAVEAT = pa.struct(
    [
        ("kind", pa.string()),
        ("sentence", pa.string()),
        ("subject", pa.string()),  # caveat_details.py
        ("effect", pa.string()),
    ]
)
RESULT = pa.struct(
    [
        ("summary", pa.string()),
        ("summary_source", pa.string()),
        ("impact_claims", pa.list_(CLAIM)),
        ("headline_claim", CLAIM),
        ("caveats", pa.list_(CAVEAT)),
        ("breaking_sentence", pa.string()),
    ]
)
_EMPTY = {
    "summary": None,
    "summary_source": None,
    "impact_claims": [],
    "headline_claim": None,
    "caveats": [],
    "breaking_sentence": None,
}
_NO_DOC = Doc([], [])
# a line that is a commit trailer: a squash message of these alone says nothing
_TRAILERS = re.compile(r"(?:\s|(?:Co-authored-by|Signed-off-by):[^\n]*+)*+", re.IGNORECASE)
_FIGURE = re.compile(r"\d\s?(?:%|×|[xX]\b)|\d\s?(?:ms|s|min|h|[KMG]i?B)\s*(?:→|->|to\b)")


def _safe(text: str | None) -> str | None:
    """The text without control or invisible characters (most text has none)."""
    return strip_unsafe(text) if text and not text.isprintable() else text


def describe(
    repo: str, title: str, body: str | None, vocab: Vocabulary, title_words: str | None = None
) -> dict:
    """What one description says (a dict shaped as RESULT); `title_words` is the title's words
    without its tags and type, as the SQL model passes them (else computed here)."""
    title = title or ""
    text = (body or "")[:MAX_BODY_CHARS]
    doc = parse(text)
    known = title_words if title_words is not None else words_of_title(title)
    summary, source = (
        change_sentence(doc, known, vocab, repo, title) if doc.blocks else (None, None)
    )
    claims, headline = impact_claims(doc, vocab, repo) if _FIGURE.search(text) else ([], None)
    # a caveat's sentence holds one of the caveat phrases' longest words (or the title's tag)
    in_body = bool(doc.blocks) and not vocab.caveat_words.isdisjoint(tokens(text))
    in_title = title_may_say(title, vocab)
    found = (
        caveats(doc if in_body else _NO_DOC, title if in_title else "", vocab, repo)
        if in_body or in_title
        else []
    )
    breaking = None
    for caveat in found:
        from_title = caveat.pop("title", False)
        caveat["sentence"] = _safe(caveat["sentence"])
        caveat.update(details(caveat["kind"], caveat["sentence"], vocab))
        if breaking is None and caveat["kind"] == "breaking" and not from_title:
            breaking = caveat["sentence"]
    for claim in claims:
        claim["sentence"], claim["header"] = _safe(claim["sentence"]), _safe(claim["header"])
    return {
        "summary": _safe(summary),
        "summary_source": source,
        "impact_claims": claims,
        "headline_claim": claims[0] if headline is not None else None,
        "caveats": found,
        # the description's own breaking sentence (not the title's tag): the breaking flag's note
        "breaking_sentence": breaking,
    }


def trailers_only(body: str) -> bool:
    """Is the description commit trailers and blank lines alone (a squash of co-authors)?"""
    return _TRAILERS.fullmatch(body) is not None


def read_one(repo: str, title: str, title_words: str | None, body: str | None, vocab) -> dict:
    """Everything RESULT holds for one PR."""
    if body and ("-by:" in body or "-By:" in body or "-BY:" in body) and trailers_only(body):
        body = None
    if body or (title and title_may_say(title, vocab)):
        return describe(repo, title, body, vocab, title_words)
    return _EMPTY  # no description, and a title with no caveat in it


def title_may_say(title: str, vocab: Vocabulary) -> bool:
    """Could the title state a caveat (one of the caveat phrases' words, a breaking tag)?"""
    return not vocab.caveat_words.isdisjoint(tokens(title)) or breaking_tag(title)


def read_description(
    repo: pa.Array, title: pa.Array, title_words: pa.Array, body: pa.Array, seeds: pa.Array
) -> pa.Array:
    """The SQL function: one RESULT struct per row (Arrow in, Arrow out: the dicts converted
    at once); `seeds` is the key `description_vocabulary` returned."""
    vocab = loaded(seeds[0].as_py()) if len(seeds) else vocabulary("")
    found = [
        read_one(r or "", t or "", w, b, vocab)
        for r, t, w, b in zip(
            repo.to_pylist(),
            title.to_pylist(),
            title_words.to_pylist(),
            body.to_pylist(),
            strict=True,
        )
    ]
    return pa.array(found, type=RESULT)
