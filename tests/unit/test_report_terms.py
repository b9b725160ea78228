"""One term list for both editions (reports/i18n/terms.yml): every string of the report and the
site says each concept with the list's word, never with a spelling the list forbids."""

from __future__ import annotations

import re

import yaml

from orchestration.config import I18N_DIR
from orchestration.report.translator import strings


def terms() -> dict[str, dict]:
    return yaml.safe_load((I18N_DIR / "terms.yml").read_text(encoding="utf-8"))


def forbidden(lang: str) -> list[str]:
    return [word for term in terms().values() for word in term.get(f"not_{lang}") or []]


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


def misspelt(text: str, lang: str) -> list[str]:
    """The forbidden spellings `text` holds."""
    return [word for word in forbidden(lang) if word in text]


def test_every_string_uses_the_term_list() -> None:
    zh = _strings(strings("zh"))
    assert [s for s in zh if misspelt(s, "zh")] == []
    joined = "\n".join(zh)
    for name, term in terms().items():
        assert term["zh"] in joined, name  # each term is in use
    en = "\n".join(_strings(strings("en")))
    assert re.search(r"\bmerged\b", en) and re.search(r"\bkey PRs?\b", en)


def test_the_other_chinese_words_of_prweekly_say_merged_too() -> None:
    """Slack's message and the narrative's words for a report (other modules' strings)."""
    from orchestration.delivery.slack import _WORDS
    from orchestration.narrative.report import WORDS

    for text in _strings(_WORDS["zh"]) + _strings(WORDS["zh"]):
        assert misspelt(text, "zh") == [], text
