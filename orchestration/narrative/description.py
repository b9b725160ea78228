"""A PR description as the model sees it: template boilerplate out, then cut into facts.

A description is mostly what its author wrote plus what the repository's PR template put
there. Template text is recognised by its form, on any repository: checklist sections and
checkbox lines, quoted guidance (`> For changes that ...`, `> [!IMPORTANT]`), placeholder code
blocks, commit trailers (`Co-authored-by:`), rules, tool footers, and headings left empty.
What remains is split into short facts, each quoted as written: a heading, a sentence, a list
item, a table row (its cells paired with the header's names: `Accumulation: 8; Latency
reduction: 40.45%`), a short code block. A long description keeps its opening, then the
facts with figures and caveats, then the rest in order, up to about 3,000 characters.
"""

from __future__ import annotations

import re

from orchestration.narrative.figures import figures
from orchestration.text import strip_unsafe

MAX_DESCRIPTION_CHARS = 3000
OPENING_CHARS = 1200  # kept whatever it holds: what the PR does, as its author put it first
MAX_FACT_CHARS = 400
MAX_CODE_LINES = 6

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|<img\b[^>]*>?", re.IGNORECASE | re.DOTALL)
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
_GITHUB_REF = re.compile(r"https?://github\.com/[\w.-]+/[\w.-]+/(pull|issues)/(\d+)\S*")
_URL = re.compile(r"<?https?://[^\s<>)]+>?")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_CHECKBOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]?\]\s*")
_UNCHECKED = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ ?\]")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TRAILER = re.compile(
    r"^\s*(?:(?:co-authored-by|signed-off-by|reviewed-by|acked-by|tested-by|change-id|"
    r"cc|approved-by):|[-=*_]{3,}\s*$|\W*generated (?:with|by)\b)",
    re.IGNORECASE,
)
_TEMPLATE_HEADING = re.compile(r"check\s*-?list|before (?:starting|submitting)", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=[A-Z`#(\[\"'“]|[^\x00-\x7f])|(?<=[。！？；])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|vs|etc|approx|cf|fig|no)\.$", re.IGNORECASE)
_CAVEAT = re.compile(
    r"\b(?:default|opt-?in|optional|not (?:yet )?(?:verified|tested|supported)|only|may|might|"
    r"can increase|trade-?off|breaking|deprecat\w*|requires?|caveat|limitation|known issue|"
    r"regress\w*|not presented|should be measured)\b|默认|可选|未验证|仅|可能|破坏",
    re.IGNORECASE,
)


def _inline(text: str) -> str:
    """One line of Markdown as the words it shows: links by their words, GitHub references
    as `#N`, other addresses and tags dropped."""
    text = _IMAGE.sub("", text)
    text = _LINK.sub(lambda m: _link_words(m.group(1), m.group(2)), text)
    text = _GITHUB_REF.sub(lambda m: _reference(m), text)
    text = _URL.sub("", _TAG.sub("", text))
    text = text.replace("**", "")
    return " ".join(text.split())


def _reference(match: re.Match) -> str:
    return f"{'issue' if match.group(1) == 'issues' else 'PR'} #{match.group(2)}"


def _link_words(words: str, target: str) -> str:
    """A link as its words; a link to a GitHub PR or issue as the reference it is."""
    reference = _GITHUB_REF.fullmatch(target)
    if reference and reference.group(2) not in words:
        return f"{words} ({_reference(reference)})"
    if reference and not re.search(r"#\d", words):
        return _reference(reference)
    return words


def _blocks(body: str) -> list[tuple[str, str]]:
    """The description as (kind, text) blocks: `heading`, `para`, `item`, `row`, `code`;
    wrapped lines joined, template parts left out (a checkbox outside them is kept, marked
    when unchecked)."""
    lines = strip_unsafe(_COMMENT.sub("", body.replace("\r\n", "\n").replace("\r", "\n")))
    blocks: list[tuple[str, str]] = []
    in_code: list[str] | None = None
    skip_level = 0  # inside a template section (a checklist) of this heading level
    current: list[str] = []
    kind = ""

    def flush() -> None:
        nonlocal current, kind
        if current and not skip_level:
            blocks.append((kind, " ".join(current)))
        current, kind = [], ""

    for raw in lines.split("\n"):
        line = raw.rstrip()
        if in_code is not None:
            if _FENCE.match(line):
                code = [c.strip() for c in in_code if c.strip()]
                placeholder = all(c.startswith(("#", "//", "...", "<")) for c in code)
                if code and not placeholder and len(code) <= MAX_CODE_LINES and not skip_level:
                    blocks.append(("code", "; ".join(code)))
                in_code = None
            else:
                in_code.append(line)
            continue
        if _FENCE.match(line):
            flush()
            in_code = []
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            if skip_level and level > skip_level:
                continue
            skip_level = level if _TEMPLATE_HEADING.search(heading.group(2)) else 0
            if not skip_level and not heading.group(2).endswith("?"):
                blocks.append(("heading", heading.group(2)))  # a question is the template's
            continue
        stripped = line.strip()
        if not stripped:
            if kind != "row" or current[-1].endswith("|"):
                flush()
            continue
        if stripped.startswith(">") or _TRAILER.match(stripped):
            flush()
            kind = "skip"  # its wrapped lines go with it
            continue
        if _CHECKBOX.match(stripped):
            flush()
            mark = "(unchecked) " if _UNCHECKED.match(stripped) else ""
            current, kind = [mark + _CHECKBOX.sub("", stripped)], "item"
            continue
        if stripped.startswith("|") and (kind != "row" or current[-1].endswith("|")):
            flush()
            current, kind = [stripped], "row"
            continue
        if _ITEM.match(stripped):
            flush()
            current, kind = [_ITEM.sub("", stripped)], "item"
            continue
        if kind == "row" and current[-1].endswith("|") and not stripped.endswith("|"):
            flush()  # a row ends with `|`; a line ending with one continues a wrapped row
        if kind in ("", "heading"):
            flush()
            kind = "para"
        current.append(stripped)
    flush()
    return [(k, t) for k, t in blocks if k != "skip"]


def _table_facts(rows: list[str]) -> list[str]:
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    cells = [c for c in cells if not all(re.fullmatch(r":?-{2,}:?|", x) for x in c)]
    if not cells:
        return []
    header, body = cells[0], cells[1:]
    facts = []
    for row in body:
        if len(row) == len(header) and any(header):
            pairs = [f"{_inline(h)}: {_inline(v)}" for h, v in zip(header, row, strict=True) if v]
            facts.append("; ".join(pairs))
        else:
            facts.append(" | ".join(_inline(v) for v in row if v))
    return facts if body else [" | ".join(_inline(h) for h in header)]


def _sentences(text: str) -> list[str]:
    parts, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start : match.start()].strip()
        if _ABBREVIATION.search(piece) or len(piece) < 12:
            continue
        parts.append(piece)
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _cut(text: str) -> str:
    if len(text) <= MAX_FACT_CHARS:
        return text
    return text[:MAX_FACT_CHARS].rsplit(" ", 1)[0] + " …"


def description_facts(body: str | None, limit: int = MAX_DESCRIPTION_CHARS) -> list[str]:
    """The description's facts in order (see the module's docstring), about `limit` chars."""
    texts: list[str] = []
    blocks = _blocks(body or "")
    index = 0
    while index < len(blocks):
        kind, text = blocks[index]
        if kind == "row":
            rows = []
            while index < len(blocks) and blocks[index][0] == "row":
                rows.append(blocks[index][1])
                index += 1
            texts += _table_facts(rows)
            continue
        index += 1
        if kind == "code":
            texts.append(_cut(f"code: {text}"))
        elif kind == "para":
            texts += [_cut(s) for s in _sentences(_inline(text))]
        else:
            texts.append(_cut(_inline(text)))
    texts = [t for t in texts if t and t != "code:"]
    while texts and (texts[-1].endswith(":") or len(texts[-1]) < 4):
        texts.pop()  # a heading left with nothing under it
    return _within(_drop_empty_headings(texts, blocks), limit)


def _drop_empty_headings(texts: list[str], blocks: list[tuple[str, str]]) -> list[str]:
    headings = {_inline(t) for k, t in blocks if k == "heading"}
    kept = []
    for i, text in enumerate(texts):
        following = texts[i + 1] if i + 1 < len(texts) else None
        if text in headings and (following is None or following in headings):
            continue
        kept.append(text)
    return kept


def _within(texts: list[str], limit: int) -> list[str]:
    """The opening, then caveats, then table rows, then facts with measured figures, then the
    rest, each tier in the description's order, and all of them shown in that order."""
    if sum(len(t) for t in texts) <= limit:
        return texts
    chosen, used = set(), 0
    for i, text in enumerate(texts):
        if used + len(text) > OPENING_CHARS:
            break
        chosen.add(i)
        used += len(text)
    tiers = (
        lambda t: bool(_CAVEAT.search(t)),
        lambda t: ": " in t and "; " in t and bool(figures(t)),
        lambda t: any(f.unit for f in figures(t)),
        lambda t: True,
    )  # table rows and caveats, then measured figures, then the rest
    for wanted in tiers:
        for i, text in enumerate(texts):
            if i not in chosen and wanted(text) and used + len(text) <= limit:
                chosen.add(i)
                used += len(text)
    return [t for i, t in enumerate(texts) if i in chosen]
