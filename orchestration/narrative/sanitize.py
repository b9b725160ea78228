"""A model's text made plain text at the point it is accepted: never markup, never a ping.

What the model writes is prose for a report, so nothing in it may act on a target: links and
images (and bare URLs), HTML tags and entities, Markdown emphasis, headings, quotes and lists,
mentions (`@user`, `@org/team`, `@here`), Slack's `<!channel>`, and control or bidirectional
characters are removed (the link's words stay, its target goes). Code spans stay, as names:
each target's escaping (the reliability layer) renders them, and a backtick left unpaired is
dropped. `clean` says what it removed, so the narrative table can record it.
"""

from __future__ import annotations

import html
import re

from orchestration.control_chars import strip_unsafe

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
