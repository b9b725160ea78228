"""Outside text in the markup prweekly writes: HTML (the report pages, the site, the email's HTML
part), escaped on one line, and XML (the Atom feeds, the charts' SVG), only characters XML 1.0
allows.

Jinja's autoescape covers `{{ value }}` in HTML; `html_text` is for text assembled in Python,
which must come out as Markup the templates do not escape twice.

XML 1.0's `Char` is tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD and U+10000..U+10FFFF: a C0
control, a lone surrogate, U+FFFE or U+FFFF anywhere makes the whole document invalid
(`invalid token`), so a feed reader shows nothing. ElementTree does not check; this does.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

from orchestration.escaping.text import one_line
from orchestration.text import strip_unsafe

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def html_text(value: Any) -> Markup:
    """`value` as HTML text on one line; Markup passes through as it is."""
    if isinstance(value, Markup):
        return value
    return escape(one_line(value))


def xml_text(value: Any) -> str:
    """`value` with every character XML 1.0 forbids (and every unsafe one) dropped; line
    breaks are kept. Escaping `<` and `&` is the serialiser's job."""
    return _NOT_XML.sub("", strip_unsafe("" if value is None else str(value)))


def xml_forbidden(text: str) -> list[str]:
    """The characters of `text` XML 1.0 forbids, written out (`U+FFFF`); [] when none."""
    return [f"U+{ord(c):04X}" for c in _NOT_XML.findall(text)]
