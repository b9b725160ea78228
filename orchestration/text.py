"""Text as readers get it: characters that must not reach them as they are (controls and
invisible format marks), and a count with its noun (`1 week`, `2 weeks`).
"""

from __future__ import annotations

import re
from functools import lru_cache

# C0 controls other than tab, newline and carriage return; DEL; C1 controls
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
# every Cf character (Unicode 15.1) that hides or reorders text
_HIDDEN = (
    "\u00ad"  # soft hyphen
    "\u061c"  # Arabic letter mark
    "\u180e"  # Mongolian vowel separator
    "\u200b\u200e\u200f"  # zero-width space, left-to-right and right-to-left marks
    "\u202a-\u202e"  # bidi embeddings and overrides
    "\u2060-\u2064"  # word joiner, invisible operators
    "\u2066-\u206f"  # bidi isolates, deprecated format characters
    "\ufeff"  # zero-width no-break space (byte order mark)
    "\ufff9-\ufffb"  # interlinear annotation
    "\U000e0001"  # language tag
)
_TAGS = "\U000e0020-\U000e007f"
# lone surrogates and the 66 noncharacters
_NOT_TEXT = "\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff" + "".join(
    f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17)
)
# the format characters deliberately kept (see the module's docstring)
KEPT_FORMAT_CHARACTERS = re.compile(
    "[\u200c\u200d\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a]"
)
_EMOJI_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"
_UNSAFE = re.compile(f"({_EMOJI_FLAG})|[{_CONTROLS}{_HIDDEN}{_TAGS}{_NOT_TEXT}]")
_UNSAFE_OR_LAYOUT = re.compile(f"({_EMOJI_FLAG})|[\t\n\r{_CONTROLS}{_HIDDEN}{_TAGS}{_NOT_TEXT}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


# a report cleans each title, path and name several times (per language and format)
@lru_cache(maxsize=65536)
def strip_unsafe(text: str) -> str:
    """`text` without controls (but tab, newline and carriage return) and hidden marks."""
    return _UNSAFE.sub(lambda m: m.group(1) or "", text)


def escape_unsafe(text: str, *, keep: str = "") -> str:
    """`text` with each unsafe character written out (`\\x1b`, `\\u202e`), visible and inert.

    Tab, newline and carriage return are written out too (`\\n`, so that a table cell stays
    on one line and no line is overwritten), unless they are in `keep`."""

    def written_out(match: re.Match) -> str:
        char = match.group()
        if match.group(1) or char in keep:
            return char
        return _NAMED.get(char) or _python_escape(ord(char))

    return _UNSAFE_OR_LAYOUT.sub(written_out, text)


def escape_unsafe_json(text: str) -> str:
    """JSON text with each unsafe character that `json.dumps` leaves as it is as a `\\uXXXX`
    escape (a UTF-16 pair beyond U+FFFF): the same JSON value, inert on a terminal."""

    def written_out(match: re.Match) -> str:
        if match.group(1):
            return match.group()
        units = match.group().encode("utf-16-be", "surrogatepass")
        return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))

    return _UNSAFE.sub(written_out, text)


def _python_escape(code: int) -> str:
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_IRREGULAR = {"repository": "repositories", "entry": "entries", "copy": "copies"}


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`count` and `noun`, or its plural (`nouns`, else the usual English form) unless 1."""
    if count == 1:
        return f"{count:,} {noun}"
    return f"{count:,} {nouns or _IRREGULAR.get(noun) or noun + 's'}"
