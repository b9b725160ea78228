"""Risk reasons and impact claims worded in the report's language from the marts' evidence.

`marts.fct_weekly_risks` stores each reason as data: `reason_key` names the sentence's form and
`evidence` holds its values (a word, a file, the text of an unchecked box, counts, PR numbers).
The sentence itself comes from `flag_reasons` in `reports/i18n/<lang>.yml`; text quoted from a
PR (a box, a sentence, a note) stays as its author wrote it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from orchestration.report.text import CACHED_TEXT, clean_text, short_title
from orchestration.report.translator import fields_of

if TYPE_CHECKING:
    from orchestration.report.translator import Translator

MAX_CLAIMS = 3  # impact claims quoted in one key change


_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_CODE = re.compile(r"`+([^`]*)`+")
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*{1,2}|_{1,2})(?=\S)(.+?)(?<=[^\s\\])\1(?![\w*])")


def plain(text: Any) -> str:
    """Text an author wrote in Markdown (a description's sentence, a table row) as the plain
    text a reader sees: code marks, backslash escapes and emphasis marks gone, one line."""
    value = clean_text(text)
    return _plained(value) if len(value) <= CACHED_TEXT else _plain(value)


def _plain(value: str) -> str:
    value = _CODE.sub(r"\1", value)
    value = _EMPHASIS.sub(r"\2", value)  # before the escapes go: `\*` is no emphasis
    return _MD_ESCAPE.sub(r"\1", value)


_plained = lru_cache(maxsize=8192)(_plain)
# `rich`'s text by (translator class, format, sentence): the same in both languages, and a
# week's files quote the same sentences several times
_riched: dict[tuple, str] = {}
MAX_RICHED = 8192


def forget_plained() -> None:
    """Forget the texts made plain and rich (render_week does, once per week)."""
    _plained.cache_clear()
    _riched.clear()


def rich(t: Translator, text: Any) -> str:
    """An author's Markdown sentence for the output: its code spans as code, the rest as the
    plain text a reader sees (escaped for the format)."""
    value = clean_text(text)
    key = (type(t), t.fmt, value)
    done = _riched.get(key)
    if done is None:
        parts, last = [], 0
        for match in _CODE.finditer(value):
            parts += [t.esc(plain(value[last : match.start()])), t.code(match.group(1))]
            last = match.end()
        parts.append(t.esc(plain(value[last:])))
        if len(_riched) >= MAX_RICHED:
            _riched.clear()
        done = _riched[key] = "".join(str(p) for p in parts)
    return t.safe(done)


def short(title: Any) -> str:
    """A PR's title without its tags and type prefix."""
    return short_title(title)


def quote(t: Translator, text: Any) -> str:
    """Text from the PR, in the language's quotation marks."""
    return t("quote", text=text)


def _prs(t: Translator, numbers: list[int] | None) -> str:
    return t.join([t.safe(f"#{int(n)}") for n in numbers or []])


# counts in the evidence, each worded with its plural forms (`lines` of a missing_tests reason
# are lines of code)
COUNT_FORMS = {
    "lines": "n_lines",
    "files": "n_files",
    "prs": "n_prs_short",
    "weeks": "n_weeks",
    "threads": "n_threads",
    "reviews": "n_reviews",
}


def _count(t: Translator, flag: str, e: dict, key: str) -> str:
    form = "n_code_lines" if key == "lines" and flag == "missing_tests" else COUNT_FORMS[key]
    value = e.get(key)
    if isinstance(value, list):  # files by name
        return t.join([t.code(v) for v in value])
    return t.n(form, int(value or 0))


def _more(t: Translator, flag: str, e: dict) -> str:
    more = int(e.get("more") or 0)
    return t.n(f"{flag}_more", more) if more and f"{flag}_more" in t.s else t.safe("")


def _follow_ups(t: Translator, flag: str, e: dict, pr: dict) -> str:
    items = e.get("follow_ups") or []
    return t.join(
        [t.n("follow_up_item", i["days"], pr=t.safe(f"#{int(i['number'])}")) for i in items]
    )


def _quoted(key: str) -> Any:
    return lambda t, flag, e, pr: quote(t, rich(t, e.get(key) or ""))


def _counted(key: str) -> Any:
    return lambda t, flag, e, pr: _count(t, flag, e, key)


# each placeholder a reason's form may use, made from (translator, flag, evidence, PR)
_MAKERS: dict[str, Any] = {
    "type": lambda t, flag, e, pr: t.type_label(e.get("type") or pr["change_type"]),
    "path": lambda t, flag, e, pr: t.code(e.get("path") or ""),
    "prefix": lambda t, flag, e, pr: t.code(e.get("prefix") or ""),
    "reverts": lambda t, flag, e, pr: _prs(
        t, [e["reverts"]] if e.get("reverts") is not None else []
    ),
    "reverted_by": lambda t, flag, e, pr: _prs(t, e.get("reverted_by")),
    "unresolved": lambda t, flag, e, pr: int(e.get("unresolved") or 0),
    "follow_ups": _follow_ups,
    "word_code": lambda t, flag, e, pr: t.code(e.get("word") or ""),  # as the rule matched it
    "additions": lambda t, flag, e, pr: pr["additions"],
    "deletions": lambda t, flag, e, pr: pr["deletions"],
    "changed_files": lambda t, flag, e, pr: t.n("n_files", pr["changed_files"]),
    "more": lambda t, flag, e, pr: _more(t, flag, e),
    **{key: _quoted(key) for key in ("word", "box", "sentence", "note")},
    **{key: _counted(key) for key in COUNT_FORMS},
}


def values(
    t: Translator, flag: str, evidence: dict, pr: dict, used: frozenset[str] | None = None
) -> dict[str, Any]:
    """The placeholders a reason's form may use (with `used`, only those), from the evidence
    and the PR: a report words thousands of reasons, most of them with a value or two."""
    if used is None:
        return {k: make(t, flag, evidence, pr) for k, make in _MAKERS.items()}
    return {k: _MAKERS[k](t, flag, evidence, pr) for k in used if k in _MAKERS}


def reason(t: Translator, flag: str, item: dict) -> str:
    """A risk's reason in the report's language; the stored English one for an unknown form."""
    template = t.s["flag_reasons"].get(flag, {}).get(item.get("reason_key") or "")
    if template is None:
        return t.esc(item["reason"])
    used = fields_of(template)
    return t.fill(template, **values(t, flag, item.get("evidence") or {}, item["pr"], used))


def claim(t: Translator, found: dict) -> str:
    """One measured impact claim quoted as written, its figure in bold."""
    sentence = rich(t, found.get("sentence") or "")
    # the figure escaped as it reads inside a line, found again in the escaped sentence
    figure = str(t.esc("x " + str(found.get("figure") or "")))[2:]
    at = str(sentence).find(figure) if figure else -1
    if at < 0:
        return quote(t, sentence)
    text = str(sentence)
    bold = t.strong(t.safe(figure))
    return quote(t, t.safe(f"{text[:at]}{bold}{text[at + len(figure) :]}"))


def claims(t: Translator, pr: dict) -> str:
    """The PR's impact claims, as many as a key change quotes."""
    found = pr.get("impact_claims") or []
    return t.join([claim(t, c) for c in found[:MAX_CLAIMS]], sep=t.s["watch_sep"])
