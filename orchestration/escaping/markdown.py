"""Outside text in Markdown (the `.md` reports, GitHub posts, the email's text part).

`md_text` keeps a value one line of literal text wherever it lands (a paragraph, a list item,
a heading, a table cell): CommonMark's and GitHub's markup characters are backslash-escaped,
an entity's `&` too, a line-start marker that would open a heading, list or rule is escaped,
and mentions, e-mail addresses and bare URLs are neutralised (see `text.neutralise`).
`md_code` makes a code span that holds any character: its fence is longer than the longest
run of backticks inside, so a backtick in a file path cannot close it early.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from orchestration.escaping.text import neutralise, one_line


class MdText(str):
    """Markdown that is already escaped (the Markdown counterpart of markupsafe.Markup)."""


# CommonMark's inline markup, GitHub's table pipes, strikethrough and math
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$])")
_ENTITY = re.compile(r"&(?=#?\w+;)")
# at a line's start: a heading, a list item, a setext underline or a rule (`#`, `+`, `-` or
# `=` before a space, the end or another marker; `-40%` stays as it is), or an ordered list
# item (`1.`, `2)` and a space)
_MARKER = re.compile(r"^[#+=-](?=[\s#+=-]|$)")
_NUMBERED = re.compile(r"^(\d+)([.)])(?=\s|$)")
_BACKTICKS = re.compile(r"`+")


def md_text(value: Any) -> MdText:
    """`value` as literal Markdown text on one line; MdText passes through as it is."""
    if isinstance(value, MdText):
        return value
    if type(value) is str:  # a report escapes each title and name in several places
        return _md_text_of(value)
    return _md_text_of.__wrapped__(value)


@lru_cache(maxsize=65536)
def _md_text_of(value: Any) -> MdText:
    text = _ENTITY.sub("&amp;", _SPECIAL.sub(r"\\\1", neutralise(one_line(value))))
    text = _NUMBERED.sub(r"\1\\\2", _MARKER.sub(lambda m: "\\" + m.group(), text))
    return MdText(text)


def md_code(value: Any, cell: bool = False) -> MdText:
    """`value` as an inline code span; `cell` for one inside a table row, where GitHub and
    CommonMark's table extension take an unescaped `|` as the cell's end even in code."""
    text = one_line(value)
    if not text:
        return MdText("")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    # a space inside each fence keeps a backtick at either end from joining it; CommonMark
    # strips exactly one on each side
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if cell:
        text = text.replace("|", "\\|")
    return MdText(f"{fence}{pad}{text}{pad}{fence}")
