"""The render's caches of cleaned and escaped text keep text that is already markup apart from
plain text that reads the same (a Markup string is equal to its text, and hashes alike)."""

from __future__ import annotations

from markupsafe import Markup

from orchestration.escaping import MdText, md_text
from orchestration.escaping.text import http_url
from orchestration.report.translator import Translator


def test_a_template_that_is_markup_is_not_escaped_after_the_same_plain_text() -> None:
    t = Translator("en", "html")
    assert t.fill("<b>{x}</b>", x=1) == "&lt;b&gt;1&lt;/b&gt;"
    assert t.fill(Markup("<b>{x}</b>"), x=1) == "<b>1</b>"
    assert t.fill("<b>{x}</b>", x=1) == "&lt;b&gt;1&lt;/b&gt;"


def test_markdown_text_and_links_are_the_same_from_the_cache() -> None:
    assert md_text("a *b*") == md_text("a *b*") == "a \\*b\\*"
    assert md_text(MdText("a *b*")) == "a *b*"
    assert isinstance(md_text("x"), MdText)
    assert md_text(12) == "12"
    url = "https://github.com/o/r/pull/1"
    assert http_url(url) == http_url(url) == url
    assert http_url("javascript:alert(1)") is None
