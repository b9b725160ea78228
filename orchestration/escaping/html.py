"""Outside text in HTML (the report pages, the site, the email's HTML part): escaped, one line.

Jinja's autoescape covers `{{ value }}`; this is for text assembled in Python, which must come
out as Markup the templates do not escape twice.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from orchestration.escaping.text import one_line


def html_text(value: Any) -> Markup:
    """`value` as HTML text on one line; Markup passes through as it is."""
    if isinstance(value, Markup):
        return value
    return escape(one_line(value))
