"""Plain text out of PR titles and descriptions: "what it does" in one short paragraph.

PR descriptions are mostly templates: headings, quoted instructions, checklists, tables, code.
`what_it_does` keeps the first paragraph a person wrote, joined into one line and cut at a
sentence boundary. Everything here is a pure function of its input, so reports stay
reproducible.
"""

from __future__ import annotations

import re
from functools import lru_cache

from orchestration.text import strip_unsafe

MAX_BODY_CHARS = 20_000  # a description longer than this is not read past this point
SUMMARY_SOFT_LIMIT = 240  # stop adding sentences after this many characters
SUMMARY_HARD_LIMIT = 360  # never longer than this

_COMMENT = re.compile(r"<!--.*?(-->|$)", re.DOTALL)
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6}\s|#{1,6}$)|^\s*(\*\*[^*]+\*\*|__[^_]+__)\s*:?\s*$")
_SETEXT = re.compile(r"^\s*(=+|-{3,})\s*$")
_CHECKBOX = re.compile(r"^\s*([-*+]|\d+[.)])\s*\[[ xX]?\]")
_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
_REFERENCE = r"(#\d+|https?://\S+|[\w.-]+/[\w.-]+#\d+|@[\w-]+)"
_BOILERPLATE = re.compile(
    r"^\s*((close[sd]?|fix(e[sd])?|resolve[sd]?|related( to)?|refs?|see( also)?|part of|"
    r"follow[- ]up (to|of)|depends on|cc|/cc)\b[\s:]*"
    rf"{_REFERENCE}([\s,]+(and\s+)?{_REFERENCE})*[\s.]*$"
    r"|(signed-off-by|co-authored-by):.*$|thanks?( you)?\b.{0,60}$"
    r"|(n/?a|none|tbd|todo|wip|same as (the )?title|as (the )?title( says)?)\s*[.!]*$)",
    re.IGNORECASE,
)
_ONLY_LINKS = re.compile(r"^[\s,;:]*((https?://\S+|#\d+|@[\w-]+)[\s,;:]*)+$")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|~~)")
_CODE_SPAN = re.compile(r"`+([^`]*)`+")
_TYPE_PREFIX = re.compile(r"^[a-z]+(\([^)]*\))?!?:\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
_TITLE_PREFIX = re.compile(r"^\s*((\[[^\]]*\]\s*)+)?([A-Za-z]+(\([^)]*\))?!?:\s+)?", re.IGNORECASE)


CACHED_TEXT = 500  # texts up to this long are cleaned once per week's render (`render_week`
# cleans each title, area and sentence for every language and format it writes)


def clean_text(value: object) -> str:
    """One line of text: control and bidi characters dropped, whitespace collapsed."""
    text = value if type(value) is str else str(value if value is not None else "")
    return _cleaned(text) if len(text) <= CACHED_TEXT else _clean(text)


def _clean(text: str) -> str:
    return " ".join(strip_unsafe(text).split())


_cleaned = lru_cache(maxsize=8192)(_clean)
forget_cleaned = _cleaned.cache_clear


def short_title(title: str) -> str:
    """The title without its `[module, …]` tags and `type(scope):` prefix."""
    text = clean_text(title)
    rest = _TITLE_PREFIX.sub("", text, count=1).strip()
    return rest or text


def _inline(text: str) -> str:
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    text = _CODE_SPAN.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    return clean_text(text)


def _blocks(body: str) -> list[list[str]]:
    """Runs of lines separated by blank lines, headings, rules and code blocks."""
    blocks: list[list[str]] = []
    current: list[str] = []
    in_fence = False

    def close() -> None:
        nonlocal current
        if current:
            blocks.append(current)
        current = []

    for line in body.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            close()
            continue
        if in_fence:
            continue
        if not line.strip() or _HEADING.match(line) or _SETEXT.match(line):
            close()
            continue
        current.append(line)
    close()
    return blocks


def _useful(line: str) -> bool:
    stripped = line.strip()
    content = _LIST_ITEM.sub("", stripped)
    return not (
        stripped.startswith(("|", "<!--", "…", "..."))
        or _BOILERPLATE.match(content)
        or _ONLY_LINKS.match(content)
        or content.startswith(("http://", "https://"))
        or not _inline(stripped)
    )


def _unquoted(block: list[str]) -> list[str]:
    """The block without quotes (and their lazily continued lines); [] for a checklist."""
    if any(_CHECKBOX.match(line) for line in block):
        return []  # a template checklist and whatever hangs under it
    kept: list[str] = []
    in_quote = False
    for line in block:
        if line.lstrip().startswith(">"):
            in_quote = True
        elif in_quote and not _LIST_ITEM.match(line):
            continue
        else:
            in_quote = False
            kept.append(line)
    return kept


def _paragraphs(body: str) -> list[tuple[str, list[str]]]:
    """("prose", [one joined paragraph]) or ("list", [items]) in the order they appear."""
    out: list[tuple[str, list[str]]] = []
    for block in _blocks(body):
        raw = _unquoted(block)
        had_list = any(_LIST_ITEM.match(line) for line in raw)
        lines = [line for line in raw if _useful(line)]
        lead: list[str] = []
        while lines and not _LIST_ITEM.match(lines[0]):
            lead.append(lines.pop(0).strip())
        items: list[str] = []
        for line in lines:
            if _LIST_ITEM.match(line):
                items.append(_LIST_ITEM.sub("", line, count=1))
            elif items:  # a hard-wrapped item continues on the next line
                items[-1] += " " + line.strip()
        items = [t for t in (_inline(i) for i in items) if len(t.split()) >= 2]
        if lead:
            prose = _TYPE_PREFIX.sub("", _inline(" ".join(lead)), count=1)
            # a lead-in ("Needs these PRs:") whose own list was only links says nothing
            orphan = prose.endswith(":") and had_list and not items
            lead_in = prose.endswith(":") and bool(items)
            if (len(prose.split()) >= 3 or lead_in) and not orphan:
                out.append(("prose", [prose]))
        if items:
            out.append(("list", items))
    return out


def _shorten(text: str) -> str:
    if len(text) <= SUMMARY_SOFT_LIMIT:
        return text
    kept = ""
    for sentence in _SENTENCE_END.split(text):
        candidate = f"{kept} {sentence}".strip()
        if kept and len(candidate) > SUMMARY_SOFT_LIMIT:
            break
        kept = candidate
    if len(kept) <= SUMMARY_HARD_LIMIT:
        return kept
    cut = kept[:SUMMARY_HARD_LIMIT].rsplit(" ", 1)[0] if " " in kept[:SUMMARY_HARD_LIMIT] else ""
    return (cut or kept[:SUMMARY_HARD_LIMIT]).rstrip(",;:-—") + "…"


def _join_items(items: list[str], limit: int = 4) -> str:
    parts = [item.rstrip(".;,") for item in items[:limit]]
    return "; ".join(parts) + ("; …" if len(items) > limit else ".")


def _capitalised(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() and first.islower() else text


@lru_cache(maxsize=4096)  # a report asks it of each PR in every language and format
def what_it_does(body: str | None) -> str:
    """The first meaningful paragraph of a PR description, as one line ('' when none)."""
    return _capitalised(_first_paragraph(body))


def _first_paragraph(body: str | None) -> str:
    if not body:
        return ""
    text = strip_unsafe(body[:MAX_BODY_CHARS].replace("\r\n", "\n").replace("\r", "\n"))
    text = _COMMENT.sub("\n", text)
    paragraphs = _paragraphs(text)
    for index, (kind, parts) in enumerate(paragraphs):
        if kind == "list":
            return _shorten(_join_items(parts))
        prose = parts[0]
        if prose.endswith(":"):
            # a lead-in ("This PR:") reads well only with the list that follows it
            following = paragraphs[index + 1] if index + 1 < len(paragraphs) else None
            if following and following[0] == "list":
                return _shorten(f"{prose} {_join_items(following[1])}")
            continue
        return _shorten(prose)
    return ""


def pr_summary(body: str | None, first_paragraph: str | None) -> str | None:
    """A PR's "what it does" as fct_pull_requests keeps it and reports print it: from the
    description, else from its first blank-line paragraph (`first_paragraph`, which finds
    prose that a fence left open hides); None when neither says anything."""
    return what_it_does(body) or what_it_does(first_paragraph) or None
