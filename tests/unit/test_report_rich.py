"""An author's Markdown sentence (`evidence.rich`) as each format prints it: made once per
format for both languages, and never handed from one format to the other."""

from __future__ import annotations

from orchestration.report import evidence
from orchestration.report.prose import ReportText


def test_a_sentence_is_made_once_per_format_and_escaped_by_each() -> None:
    evidence.forget_plained()
    sentence = "cuts `a<b` by **2x** & more"
    md_en, md_zh = (evidence.rich(ReportText(lang, "md"), sentence) for lang in ("en", "zh"))
    html = evidence.rich(ReportText("en", "html"), sentence)
    assert str(md_en) == str(md_zh) == "cuts`a<b`by 2x & more"
    assert str(html) == "cuts<code>a&lt;b</code>by 2x &amp; more"
    assert type(md_zh).__name__ == "MdText" and type(html).__name__ == "Markup"
    assert len(evidence._riched) == 2
    evidence.forget_plained()
    assert not evidence._riched
