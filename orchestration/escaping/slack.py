"""Outside text in Slack's mrkdwn: escaped, one line, with no live mention or broadcast.

Slack takes `&`, `<` and `>` as markup (`<!channel>`, `<@U123>`, `<url|text>`), so they are
written as entities; a control or bidi character never reaches it (a right-to-left override
would reorder the message); and an `@word` gets a zero-width joiner, so no setting of the
webhook (`link_names`) can make it a mention.
"""

from __future__ import annotations

from typing import Any

from orchestration.escaping.text import http_url, neutralise, one_line


def _entities(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_text(value: Any, limit: int | None = None) -> str:
    """`value` as mrkdwn text on one line, cut to `limit` characters (with `…`) if given."""
    text = neutralise(one_line(value))
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return _entities(text)


def slack_link(url: Any, label: str) -> str:
    """`<url|label>` for an http(s) `url` (the label is mrkdwn already), else the label."""
    safe = http_url(url)
    if safe is None:
        return label
    return f"<{_entities(safe)}|{label.replace('|', '&#124;')}>"
