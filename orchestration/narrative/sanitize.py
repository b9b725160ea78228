"""A model's text made plain text at the point it is accepted: never markup, never a ping.

What the model writes is prose for a report, so nothing in it may act on a target: links and
images (and bare URLs), HTML tags and entities, Markdown emphasis, headings, quotes and lists,
mentions (`@user`, `@org/team`, `@here`), Slack's `<!channel>`, and control or bidirectional
characters are removed (the link's words stay, its target goes). Code spans stay, as names:
each target's escaping (the reliability layer) renders them, and a backtick left unpaired is
dropped. `clean` says what it removed, so the narrative table can record it.

A Chinese sentence keeps names as names: `names_as_code` puts each bare identifier-like word
(mixed case `VeOmni`, a digit beside a letter `Qwen2.5-32B`, `H20`, a `.`, `-`, `_`, `/` or
`+` inside `fully-async`, `GPU/NPU`, an acronym `NCCL`, a capitalised name `Ulysses`) in a
code span, and says a time's unit in Chinese (`14.2 s` as 14.2 秒), so that the Chinese edition
shows names as the names they are and its prose stays Chinese.
"""

from __future__ import annotations

import html
import re

from orchestration.text import strip_unsafe

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)|\[([^\]]*)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto|file|javascript|data):[^>]*>", re.IGNORECASE)
_SLACK = re.compile(r"<[!@#][^>]*>")
_TAG = re.compile(r"</?[A-Za-z][^>]*>|<!--.*?-->|<![^>]*>", re.DOTALL)
_URL = re.compile(
    r"\b(?:(?:https?|ftp|file|javascript|data|vbscript):|www\.)[^\s<>()\[\]（）]*", re.IGNORECASE
)
_MENTION = re.compile(r"(?<![\w.+\-`])@(?=[A-Za-z0-9_])")
_EMPHASIS = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<![\w_])__(?=\S)(.+?)(?<=\S)__(?![\w_])"),
    re.compile(r"(?<![*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?![*\w])"),
    re.compile(r"(?<![\w_])_(?=[^\s_])([^_]+?)(?<=[^\s_])_(?![\w_])"),
    re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"),
)
_LINE_MARKUP = re.compile(r"(?m)^\s*(?:#{1,6}\s+|>+\s?|[-*+]\s+|\d+[.)]\s+|\|)")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_CODE = re.compile(r"`([^`\n]+)`")
_STRAY = re.compile(r"[*_~|<>]{2,}|(?<!\w)[<>](?!\w)")


def _outside_code(text: str, fix) -> str:
    """`fix` applied to the parts of `text` outside its code spans."""
    parts, last = [], 0
    for match in _CODE.finditer(text):
        parts.append(fix(text[last : match.start()]))
        parts.append(f"`{match.group(1).replace('`', '')}`")
        last = match.end()
    parts.append(fix(text[last:]))
    return "".join(parts)


def clean(text: str) -> tuple[str, list[str]]:
    """`text` as plain text, and what was removed from it (`link`, `mention`, ...)."""
    removed: list[str] = []

    def note(kind: str, pattern: re.Pattern, replacement, value: str) -> str:
        new = pattern.sub(replacement, value)
        if new != value and kind not in removed:
            removed.append(kind)
        return new

    original = text
    text = strip_unsafe(text)
    if text != original:
        removed.append("control characters")
    text = " ".join(text.split())  # one line: no Markdown block can start

    def fix(part: str) -> str:
        part = note("image", _IMAGE, "", part)
        part = note("link", _LINK, lambda m: m.group(1) or m.group(2) or "", part)
        part = note("link", _AUTOLINK, "", part)
        part = note("mention", _SLACK, "", part)
        part = note("HTML", _TAG, "", part)
        part = note("HTML", _TAG, "", html.unescape(part))
        part = note("link", _URL, "", part)
        part = note("mention", _MENTION, "", part)
        for pattern in _EMPHASIS:
            part = note("emphasis", pattern, r"\1", part)
        part = note("markup", _LINE_MARKUP, "", part)
        part = note("markup", _ESCAPE, r"\1", part)
        return note("markup", _STRAY, " ", part)

    if text.count("`") % 2:  # an unpaired backtick would open a code span to the line's end
        text = text.replace("`", "")
        removed.append("backtick")
    text = _outside_code(text, fix)
    text = re.sub(r"\s+([，。；：！？、])", r"\1", " ".join(text.split()))
    text = re.sub(r"\s+([,.;:!?])(?=\s|$)", r"\1", text)
    text = _outside_code(text, lambda part: re.sub(r"[（(]\s*[)）]", "", part)).strip()
    return text, removed


def plain(text: str) -> str:
    """`text` as plain text (see `clean`)."""
    return clean(text)[0]


_WORD = re.compile(
    r"(?<![A-Za-z0-9._\-+/#`@])[A-Za-z0-9](?:[A-Za-z0-9._\-+/]*[A-Za-z0-9+])?(?![A-Za-z0-9`])"
)
_MIXED = re.compile(r"[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]|[A-Za-z0-9][._\-/+][A-Za-z0-9]")
_SIZE_UNIT = re.compile(r"[KMGTP]i?B|[KMGT]")
_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}")
# 14.2, 2.3x, 6s, 8GB: figures, not names (but 7B, 910B, H20 are names)
_FIGURE = re.compile(r"[\d.,]+(?:[xX%]|ms|s|min|h|k|[KMGT]i?B)?")
# words a Chinese sentence keeps as plain text (the report's own loan words)
PLAIN_LATIN = frozenset({"pr", "prs", "ci", "api", "bug", "id"})


def _name_like(word: str) -> bool:
    if word.lower() in PLAIN_LATIN or _FIGURE.fullmatch(word) or not re.search("[A-Za-z]", word):
        return False
    if _SIZE_UNIT.fullmatch(word):  # `8 GB`: a figure's unit
        return False
    if _MIXED.search(word) or (len(word) >= 2 and word.isupper()):
        return True
    return bool(_CAPITALISED.fullmatch(word))  # inside Chinese, a capitalised word is a name


_UNIT = re.compile(r"(?<=\d) ?(ms|min|s|h)(?![A-Za-z0-9])(?: (?=[\u4e00-\u9fff]))?")
CHINESE_UNITS = {"ms": "毫秒", "min": "分钟", "s": "秒", "h": "小时"}


def names_as_code(text: str) -> str:
    """A Chinese sentence with each bare identifier-like word in a code span (see the module's
    docstring) and a time's unit in Chinese (`14.2 s` 14.2 秒); code spans, other figures and
    the report's loan words (PR, CI) stay as they are."""

    def fix(part: str) -> str:
        part = _UNIT.sub(lambda m: f" {CHINESE_UNITS[m.group(1)]}", part)
        return _WORD.sub(lambda m: f"`{m.group()}`" if _name_like(m.group()) else m.group(), part)

    return _outside_code(text, fix)
