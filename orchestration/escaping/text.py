"""What every target's escaping starts from: one clean line, and text that pings no one.

GitHub turns `@login` and `@org/team` into mentions (a notification to each), and bare
`https://…`, `www.…` and `a@b.c` into links, after the Markdown is rendered, in any text that
is not code or a link. Slack does the same with `@here`-style words when asked to. A zero-width
joiner (U+200D) after the `@`, the `:` of `scheme://` and the `www` breaks every one of those
patterns and shows nothing; the words read as they were written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from orchestration.text import strip_unsafe

ZWJ = "\u200d"
_AT = re.compile(f"@(?!{ZWJ})")
_SCHEME = re.compile(rf"(?i)(\b[a-z][a-z0-9+.-]*:)(?!{ZWJ})(?=//)")
_WWW = re.compile(rf"(?i)\b(www)(?!{ZWJ})(?=\.)")


def one_line(value: Any) -> str:
    """`value` as text on one line: unsafe characters dropped, whitespace runs one space."""
    text = strip_unsafe("" if value is None else str(value))
    return " ".join(text.split())


def neutralise(text: str) -> str:
    """`text` with no mention, e-mail address or bare URL a renderer would make live."""
    text = _AT.sub("@" + ZWJ, text)
    text = _SCHEME.sub(lambda m: m.group(1) + ZWJ, text)
    return _WWW.sub(lambda m: m.group(1) + ZWJ, text)


def http_url(value: Any) -> str | None:
    """`value` when it is an http(s) URL, percent-quoted so that it cannot end the markup it
    sits in (`)`, `>`, `|`, `"`, spaces); None for anything else (`javascript:`, a path)."""
    if type(value) is str:  # a report links each PR in every language and format
        return _http_url_of(value)
    return _http_url_of.__wrapped__(value)


@lru_cache(maxsize=16384)
def _http_url_of(value: Any) -> str | None:
    text = one_line(value)
    if not re.match(r"^https?://", text, re.IGNORECASE):
        return None
    return quote(text, safe=":/?#=&%.-_~+@!,;")
