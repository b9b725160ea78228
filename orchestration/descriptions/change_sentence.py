"""The change sentence: the one sentence of a description that says what the PR changes.

Sections are read in order of trust: those whose heading says they hold the change ("What does
this PR do", "Summary", "Changes", ...), then the text before any heading, then headings that
say nothing either way (there only "This PR adds ..."); never a test plan, checklist,
motivation or usage section. The first sentence that states a change wins: a subject and a
change verb ("This PR adds", "We now cache", "I've unified"), a change verb first ("Add",
"Adds", "Refactoring"); failing that "X now does"; failing that a change to the tests; failing
that the first sentence of a paragraph that is no motivation; last, a quoted answer. Never a
checkbox, table row, template prompt or placeholder, pointer ("Follow-up to #12", "As
title"), bare reference, vague or short fragment, cut sentence, the title again, or a squash
message's later commit subjects: without such a sentence there is none (NULL).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise

from orchestration.descriptions.finish import finish
from orchestration.descriptions.markdown import Block, Doc, word_set, words
from orchestration.descriptions.reading_order import (
    candidates,
    list_lead,
    section_roles,
    squash_end,
)
from orchestration.descriptions.sentences import Sentence, sentences
from orchestration.descriptions.vocabulary import Vocabulary

MIN_WORDS = {"prose": 4, "item": 5, "quote": 4}  # fewer words than this say too little
MIN_OBJECT = 2  # words of substance after the change verb
MIN_NEW = 2  # words that the title does not have
STOPWORDS = word_set(
    "a an the of to in on at by for from with into onto via as and or but so if when than "
    "then this that these those it its is are was were be been being we i you our my pr "
    "also now just only some all any each more less not no new them they their there here "
    "ve ll re d s t m"
)
_NO_WORDS: frozenset[str] = frozenset()
_MODALS = word_set("may might can could would should will must")
_ADVERBS = word_set("also now just further then additionally simply")
_VAGUE = word_set("things thing following changes change stuff below above few several bunch items")
_FILLER = STOPWORDS | _VAGUE  # no word of substance
# between a subject and its verb: "We (now) add", "I've (also) unified", "We'll add"
_BETWEEN = _ADVERBS | word_set("ve have has had ll will can d re m am are is hereby no longer")
_NEGATION = word_set("don do doesn didn not never")
_AUXILIARY = word_set("does has was is this thus also always")
MAX_SQUASH_FIRST = 3  # a squash of more commits than this: its first subject is a first step
# after a bare "This": a verb that tells what something does or brings about, not a change
_DESCRIBING = word_set(
    "return returns mean means allow allows let lets help helps cause causes "
    "lead leads result results require requires"
)
CONCLUSION = 10  # ", so ...": a change verb this many words after it concludes a problem
TEST_REACH = 8  # a change to the tests names them within this many words after its verb
# a trailing "(introduced by #12)": what it points at is no part of what the sentence says
_POINTED = re.compile(
    r"[\s,(]*\b(?:introduced|caused|added|reported|found|seen|mentioned|broken)\s+(?:by|in)\s+"
    r"(?:[\w.-]+/[\w.-]+)?#\d+\)?[.!]?$",
    re.IGNORECASE,
)
_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")
_TYPE_PREFIX = re.compile(r"^[a-z]+(?:\([^)]*\))?!?:\s*", re.IGNORECASE)
_REFERENCE = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+|@[\w-]+")
_PLACEHOLDER = re.compile(r"\[[^\]]*\s[^\]]*\s[^\]]*\s[^\]]*\]")  # `[Note which backend ...]`
_SUFFIXES = (
    "ization",
    "isation",
    "ation",
    "izes",
    "ized",
    "ize",
    "ises",
    "ised",
    "ise",
    "ying",
    "ing",
    "ies",
    "ied",
    "ed",
    "es",
    "s",
    "e",
    "y",
)


@lru_cache(maxsize=65536)  # words repeat from one description to the next
def stem(word: str) -> str:
    """A word without its inflection (`visualization`, `visualize` -> `visualiz`; `specifying`,
    `specify` -> `specif`)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words_of_title(title: str) -> str:
    """The title's words without its `[tags]` and `type(scope):` (as the SQL model gives them)."""
    return words(_TYPE_PREFIX.sub("", _TAGS.sub("", title)))


@lru_cache(maxsize=4096)  # a title is read again for each sentence, and titles repeat
def _title_stems(title_words: str) -> tuple[frozenset[str], str]:
    """The stems of the title's words, and the title without spaces: a sentence's word found
    in it is a part of one of the title's (`agent` of `ReactAgentLoop`) or two of them written
    as one (`replaybuffer`)."""
    return frozenset(map(stem, title_words.split())), title_words.replace(" ", "")


# the title's stems and its words as one, the repository's words, the module its `module:`
# prefix names (lower case), and the title's words
Title = tuple[frozenset[str], str, frozenset[str], str, str]


def _verbless(title_words: str, vocab: Vocabulary) -> bool:
    """Does the title name no change (no verb first)? Then it leaves the change's verb to the
    sentence: one word of its own is enough."""
    first = title_words.partition(" ")[0]
    return bool(first) and not vocab.is_verb(first)


@lru_cache(maxsize=1024)
def _repository_words(repo: str) -> frozenset[str]:
    return frozenset(words(repo).split())


def classify(
    s: Sentence,
    kind: str,
    vocab: Vocabulary,
    title: Callable[[], Title],
    weak: bool = True,
    announced: bool = False,
) -> str | None:
    """`subject_verb`, `imperative`, `now`, `tests` (a change verb, but about the tests) or
    `first_sentence` (only when `weak`: a paragraph's first) for a sentence that may say what
    the PR changes; None for one that cannot. `title` gives the title's stems (and the
    repository's words); an item of a list `announced` as the changes may open with any verb in
    the past tense or the third person."""
    text, w, toks, present = s.text, s.words, s.toks, s.present
    if not toks or text.count(" ") + 1 < MIN_WORDS[kind] or text.endswith(("…", "...")):
        return None
    if text[0] == "[" or (":" in text[:24] and _TYPE_PREFIX.match(text)):
        toks = words_of_title(text).split() or toks  # a commit subject's tags and type
    opening = vocab.openings(w)
    subject = opening.get("change_subject")
    k = len(subject.split()) if subject else 0
    # `This PR (also) adds`, `We (now) add`; a bare `This` only right before its verb
    reach = 1 if not subject or subject == "this" else 3
    verb = None
    if not k:  # a verb first: "Add ...", "Fixes ..."
        verb = 0 if vocab.is_verb(toks[0]) else None
    else:
        for i in range(k, min(k + reach, len(toks))):
            if toks[i] in _NEGATION:
                break  # "We don't show", "I don't think": how things are, not a change
            if vocab.is_verb(toks[i]):
                verb = i
                break
            if toks[i] not in _BETWEEN:
                break  # "I think this makes": the verb is another subject's
    if verb is None and k > 1:  # `This PR combines`: the word after the subject (and an adverb)
        at = k + 1 if k + 1 < len(toks) and toks[k] in _ADVERBS else k
        verb = at if at < len(toks) and _third_person(toks[at]) else None
    if verb is None and announced and k == 0 and len(toks[0]) > 3 and toks[0].endswith(("ed", "s")):
        verb = 0  # "Copied the config to ...", in a list of the changes
    if verb is not None and subject == "this" and toks[verb] in _DESCRIBING:
        return None  # "This returns the count of ...", "This allows us to ...": not the change
    if verb is None and not weak and "now" not in toks:
        return None  # it could only be a paragraph's first sentence, and it is not
    if (
        "template_prompt_start" in opening
        or "summary_pointer" in opening
        or ("template_prompt" in present and vocab.found("template_prompt", w, toks=s.toks))
    ):
        return None
    if "[" in text and _PLACEHOLDER.search(text):
        return None
    if "#" in text or "@" in text or "summary_reference" in opening:
        bare = words(_REFERENCE.sub(" ", text)).split()
        if len(set(bare).difference(STOPWORDS)) < 3:
            return None  # a reference and little else ("Fixes #12", "Pull in a/b#170")
        core = _POINTED.sub("", text)
        if core != text and core.count(" ") + 1 < MIN_WORDS[kind]:
            return None  # "Fix ci error introduced by #7061": the bug and a pointer
    if "follow" in w:
        head = words(text.split(",", 1)[0]).split()
        if head[-2:] == ["follow", "up"] or head[-1:] == ["followup"]:
            return None  # "Rust 1.75 update follow-up, ...": a pointer
    rest = toks[verb + 1 :] if verb is not None else toks[k:]
    content = {t for t in set(rest).difference(_FILLER) if not t.isdigit()}
    if len(content) < MIN_OBJECT:
        return None  # too little said ("This PR fixes those paths")
    if (
        verb is None
        and "summary_motivation" in present
        and vocab.found("summary_motivation", w, toks=s.toks)
        and not _concludes(text, vocab)
    ):
        return None
    known, squashed, repository, module, title_words = title()
    generic = vocab.first_words.get("summary_generic", _NO_WORDS)
    # "by implementing", "by adding": how, not what
    by_verbs = (
        {b for a, b in pairwise(rest) if a == "by" and b.endswith("ing")} if "by" in rest else ()
    )
    new = 0
    for t in content:
        if stem(t) not in known and (len(t) < 4 or t not in squashed):
            if t in generic or t in repository or t in by_verbs or (module and t in module):
                continue  # "enhances the class by implementing": no word of its own
            new += 1
            if new == MIN_NEW:
                break
    # beside a title that names no change (no verb first), one word of its own and the verb
    if new < MIN_NEW and not (
        new == MIN_NEW - 1 and verb is not None and _verbless(title_words, vocab)
    ):
        return None  # the title again (with at most a word more)
    if "state_before" in present and vocab.found("state_before", w, toks=s.toks):
        return None  # how things were ("We already support ...")
    if verb is not None and not (toks[verb].endswith("ing") and _MODALS.intersection(toks)):
        # a change to the tests is what the PR does only when nothing else is said
        if ("test_words" in present and vocab.found("test_words", w, toks=s.toks)) and vocab.found(
            "test_words", " ".join(toks[verb + 1 : verb + 2 + TEST_REACH])
        ):
            return "tests"
        return "subject_verb" if subject else "imperative"
    if verb is not None and (
        "summary_motivation" in present and vocab.found("summary_motivation", w, toks=s.toks)
    ):
        return None
    if "now" in toks[1:-1]:
        at = toks.index("now", 1)
        after = toks[at + 1]
        if after.endswith("ly") and at + 2 < len(toks):
            after = toks[at + 2]  # "now dynamically configure"
        if (
            vocab.is_verb(after)
            or (after.endswith("s") and len(after) > 3)
            or toks[at - 1] == "can"  # "Users can now configure"
        ):
            return "now"
    return "first_sentence" if weak else None


def _concludes(text: str, vocab: Vocabulary) -> bool:
    """Does the problem the sentence tells end in the change, ", so ... add them back"?"""
    at = text.rfind(", so ")
    if at < 0:
        return False
    toks = words(text[at + 5 :]).split()[:CONCLUSION]
    if toks and toks[0] in ("we", "i"):  # "so I added", "so we now error"
        rest = [t for t in toks[1:4] if t not in _BETWEEN]
        return bool(rest) and rest[0] not in _NEGATION and vocab.is_verb(rest[0])
    # "so it would be a good idea to add them back"
    return any(a == "to" and vocab.is_verb(b) for a, b in pairwise(toks))


def _third_person(word: str) -> bool:
    """A verb after "This PR": `combines`, `enhances` (not `is`, `has`, `does`)."""
    return (
        len(word) > 3 and word.endswith("s") and not word.endswith("ss") and word not in _AUXILIARY
    )


def change_sentence(
    doc: Doc, title_words: str, vocab: Vocabulary, repo: str, title: str = ""
) -> tuple[str | None, str | None]:
    """(sentence, rule) for the description's change sentence, `title_words` being the
    title's (`words_of_title`) and `title` the whole (the module of its `module:` prefix is no
    word of a sentence's own); (None, None) when there is none."""
    known: list[Title] = []

    def title_stems() -> Title:
        if not known:
            # the module of a `fastcgi:` or `feat(parser):` title (not its `[tags]`)
            at = title.find(":", 0, 60)
            module = title[title.rfind("]", 0, at) + 1 : at].lower() if at > 0 else ""
            known.append((*_title_stems(title_words), _repository_words(repo), module, title_words))
        return known[0]

    fallback: dict[str, tuple[str, Block | None]] = {}
    roles = section_roles(doc, vocab)
    squash = squash_end(doc, roles)
    lists: dict[int, str] = {}  # what each list's lead-in says of its items (reading_order)
    for rank, index in candidates(doc, roles, squash):
        block = doc.blocks[index]
        lead = (
            list_lead(doc, index, repo, vocab, lists)
            if block.kind == "item" and squash is None
            else ""
        )
        if lead in ("motivation", "fragment"):
            continue  # its items tell the problem, or each ends a cut sentence
        following = doc.blocks[index + 1] if index + 1 < len(doc.blocks) else None
        found = sentences(block, repo, vocab)
        plain = True  # may its first sentence be chosen without a change verb?
        if squash is not None and index == 0 and found:
            # a squash's first commit subject about something else than the title, or one of
            # many commits, is a first step; a commit of a word or two ("lint", "update
            # version") is no step, but then only a subject that states its change is told
            subjects = [
                b.text
                for b in doc.blocks
                if b.kind == "item" and b.loose and roles[b.section] == "lead"
            ]
            steps = sum(1 for text in subjects if text.count(" ", 0, 80) >= 2)
            plain = len(subjects) <= MAX_SQUASH_FIRST
            shared = {stem(t) for t in found[0].toks}.intersection(title_stems()[0])
            shared.difference_update(STOPWORDS)
            if not plain:  # of many commits, one about what the title names, not its verb
                shared.discard(stem(title_words.split(" ", 1)[0]))
            if steps > MAX_SQUASH_FIRST or not shared:
                continue
        for j, s in enumerate(found):
            weak = (
                rank < 2
                and j == 0
                and (block.kind == "prose" or index == 0)
                and "first_sentence" not in fallback
                and plain
            )
            rule = classify(s, block.kind, vocab, title_stems, weak, lead == "changes")
            if rule is None:
                continue
            nxt = following if j == len(found) - 1 else None
            if rule == "subject_verb" or (rule == "imperative" and rank < 2):
                text = finish(s.text, nxt)
                if text is not None:
                    return text, rule
            elif rank < 2 and (
                rule in ("now", "tests", "imperative")
                or (j == 0 and (block.kind == "prose" or index == 0))
            ):
                fallback.setdefault(rule, (s.text, nxt))
            elif rank == 3 and rule == "imperative":
                fallback.setdefault("quote", (s.text, nxt))
    for rule in ("now", "tests", "first_sentence", "imperative", "quote"):
        if rule in fallback:
            text = finish(*fallback[rule])
            if text is not None:
                return text, rule
    return None, None
