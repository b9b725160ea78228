"""Low-level text of a report: per-language strings, escaping, numbers, dates, lists, links.

`Translator` looks up the strings in `reports/i18n/<lang>.yml` and escapes every value it fills
in for the output format (Markdown or HTML), unless the value was produced as safe markup by the
translator itself. Sentence assembly lives in `prose.py`.
"""

from __future__ import annotations

import re
from datetime import date
from functools import cache, lru_cache
from string import Formatter
from typing import Any

import yaml
from markupsafe import Markup, _escape_inner, escape

from orchestration.config import I18N_DIR
from orchestration.escaping import MdText, md_code, md_text
from orchestration.escaping.text import http_url
from orchestration.report.text import clean_text, short_title
from orchestration.report.view import MAX_REC_PRS

# libyaml's loader where PyYAML has it: the same values, a tenth of the time (20 ms a file)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def strings(lang: str) -> dict[str, Any]:
    return yaml.load((I18N_DIR / f"{lang}.yml").read_text(encoding="utf-8"), Loader=_LOADER)


# Text safe in a Markdown paragraph or table cell: one line, no markup, no HTML, no mention
# (the escaping layer's `md_text` itself: templates call it thousands of times a report)
md_inline = md_cell = md_text


LONG_WORD = 20  # a word this long (a path, an identifier) may break inside; shorter ones never
_LONG_TOKEN = re.compile(rf"\S{{{LONG_WORD},}}")


def _soft_breaks(piece: str) -> list[str]:
    """A long piece cut after `_ . : = ,`, and runs still too long cut every LONG_WORD chars."""
    out = []
    for part in re.split(r"(?<=[_.:=,])", piece):
        out += [part[i : i + LONG_WORD] for i in range(0, len(part), LONG_WORD)] or [""]
    return out


def breakable(text: Any) -> Markup:
    """HTML text where tokens of LONG_WORD characters or more may wrap (<wbr> after `/`, `-`,
    then inside long pieces), so a table column need not be as wide as a path; shorter words
    stay whole."""
    text = clean_text(text)
    if not _LONG_TOKEN.search(text):  # no token to break: each escaped alone is the whole
        return escape(text)
    parts = []
    for token in re.split(r"(\s+)", text):
        if len(token) < LONG_WORD:
            parts.append(escape(token))
            continue
        pieces = []
        for piece in re.split(r"(?<=[/-])", token):
            pieces += _soft_breaks(piece) if len(piece) >= LONG_WORD else [piece]
        parts.append(Markup("<wbr>").join(escape(p) for p in pieces if p))
    return Markup("").join(parts)


def safe_url(url: Any) -> str | None:
    """A PR link only when it is an http(s) URL; quoted so it cannot break the markup."""
    return http_url(url)


_new_str = str.__new__


def html_text(text: str) -> Markup:
    """`escape(text)` for a str, without `Markup.__new__`'s look for `__html__`."""
    return _new_str(Markup, _escape_inner(text)) if type(text) is str else escape(text)


@lru_cache(maxsize=4096)
def _escaped(template: str) -> str:
    """A vocabulary string as HTML (a report fills thousands of them)."""
    return str(escape(template))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].islower() else text


class Translator:
    """Per-language strings, number and date forms, and escaping for one output format."""

    def __init__(self, lang: str, fmt: str) -> None:
        self.lang = lang
        self.fmt = fmt
        self.s = strings(lang)
        self._html = fmt == "html"
        self._safe_type = Markup if self._html else MdText  # what this format takes as done
        self._links: dict[tuple, str] = {}  # a PR's number linked, by (number, url)
        self._refs: dict[tuple, str] = {}  # and with its short title, by (number, url, title)

    # --- escaping -------------------------------------------------------------------------
    def safe(self, text: str) -> str:
        # a str made Markup (or MdText) without `Markup.__new__`'s look for `__html__` (a str
        # has none): a report makes about 10,000
        if type(text) is str:
            return _new_str(self._safe_type, text)
        return Markup(text) if self._html else MdText(text)

    def is_safe(self, value: Any) -> bool:
        return isinstance(value, self._safe_type)

    def esc(self, value: Any) -> str:
        if isinstance(value, self._safe_type):
            return value
        if self._html:
            return _new_str(Markup, _escape_inner(clean_text(value)))
        return md_text(value)

    def strong(self, value: Any) -> str:
        inner = self.esc(value)
        return self.safe(f"<strong>{inner}</strong>" if self.fmt == "html" else f"**{inner}**")

    def code(self, value: Any) -> str:
        inner = self.esc(value)
        return self.safe(f"<code>{inner}</code>") if self.fmt == "html" else md_code(value)

    def _value(self, value: Any) -> str:
        kind = type(value)  # the common kinds first, by type (a report fills 5,000 values)
        if kind is self._safe_type:
            return value
        if kind is str:
            return self.esc(value)
        if kind is int:
            return self.num(value)
        if self.is_safe(value):
            return value
        if isinstance(value, bool):
            return self.esc(str(value))
        if isinstance(value, int):
            return self.num(value)
        if isinstance(value, float):
            return self.num(value, 1)
        return self.esc(value)

    def fill(self, template: str, **values: Any) -> str:
        base = _escaped(template) if self._html else template
        value = self._value
        return _new_str(self._safe_type, base.format(**{k: value(v) for k, v in values.items()}))

    def __call__(self, _key: str, /, **values: Any) -> str:
        # `fill` spelt out: a call fewer for each of the thousands of strings a report fills
        template = self.s[_key]
        base = _escaped(template) if self._html else template
        value = self._value
        return _new_str(self._safe_type, base.format(**{k: value(v) for k, v in values.items()}))

    def pick(self, key: str, sub: str, **values: Any) -> str:
        return self.fill(self.s[key][sub], **values)

    def n(self, key: str, count: int, **values: Any) -> str:
        forms = self.s[key]
        form = forms["one"] if count == 1 else forms["other"]
        return self.fill(form, n=count, **values)

    @staticmethod
    def share_form(part: int, whole: int) -> str:
        """Which form of a "some of them" phrase fits: only, all, one or other."""
        if part >= whole:
            return "only" if whole == 1 else "all"
        return "one" if part == 1 else "other"

    def sentence(self, clauses: list[Any], sep: str | None = None) -> str:
        """Clauses (escaped or raw) as one sentence: joined by the language's clause separator
        (or `sep`), their own end marks dropped, the sentence's end mark once."""
        marks = ".。；;"
        parts = [str(self._value(c)).rstrip(marks + " ") for c in clauses if c]
        parts = [p for p in parts if p]
        if self.lang == "en":  # each sentence starts with a capital (a clause only the first)
            parts = [_capital(p) if i == 0 or sep is None else p for i, p in enumerate(parts)]
        joined = (self.s["clause_sep"] if sep is None else sep).join(parts)
        if not joined:
            return self.safe("")
        # a quotation that ends its own sentence ends this one too
        done = re.search(r"[.!?。！？][”」\"]$", joined)
        return self.safe(joined if done else joined + self.s["sentence_end"])

    def share(self, key: str, part: int | None, whole: int, **values: Any) -> str:
        """A "some of them" clause worded by how `part` relates to `whole`: `only` (the one
        there is), `all`, `one` or `other`; nothing when none, or when `part` is unknown."""
        if not part:
            return self.safe("")
        return self.fill(self.s[key][self.share_form(part, whole)], n=part, **values)

    # --- numbers and dates --------------------------------------------------------------
    def num(self, value: Any, decimals: int | None = None) -> str:
        kind = type(value)
        if kind is int and decimals is None:
            return _new_str(self._safe_type, f"{value:,}" if self.lang == "en" else str(value))
        if kind is float and decimals == 1:  # an importance, a trailing average
            return _new_str(
                self._safe_type, f"{value:,.1f}" if self.lang == "en" else f"{value:.1f}"
            )
        if value is None:
            return self.safe(self.s["none"])
        if decimals is None and float(value).is_integer():
            number = int(value)
            return self.safe(f"{number:,}" if self.lang == "en" else str(number))
        places = decimals or 1
        return self.safe(
            f"{float(value):,.{places}f}" if self.lang == "en" else f"{float(value):.{places}f}"
        )

    def week_label(self, day: date) -> str:
        year, week, _ = day.isocalendar()
        return self("week_label", year=str(year), week=str(week))

    def week_short(self, day: date) -> str:
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}"

    def date_range(self, start: date, end: date) -> str:
        months = self.s["months"]
        values = {
            "year": str(start.year),
            "year2": str(end.year),
            "month_name": months[start.month - 1],
            "month_name2": months[end.month - 1],
            "d1": str(start.day),
            "d2": str(end.day),
        }
        if start.year != end.year:
            return self("range_years", **values)
        if start.month != end.month:
            return self("range_year", **values)
        return self("range_month", **values)

    # --- lists and links ----------------------------------------------------------------
    def join(self, items: list[Any], sep: str | None = None) -> str:
        """`a, b and c` / `a、b 和 c`; with `sep`, every item joined by it alone."""
        parts = [self._value(i) for i in items]
        if len(parts) <= 1 or sep is not None:
            return self.safe((sep or "").join(parts))
        head = self.s["list_sep"].join(parts[:-1])
        return self.safe(self.spaced(head, self.s["list_and"], parts[-1]))

    def spaced(self, left: str, word: str, right: str) -> str:
        """Join around a CJK word, with the space Chinese typesetting puts next to Latin text."""
        if self.lang != "zh":
            return f"{left}{word}{right}"
        latin = re.compile(r"[A-Za-z0-9)\]>*`_.%]")
        before = " " if left and latin.match(left[-1]) else ""
        after = " " if right and re.match(r"[A-Za-z0-9(\[<*`#+-]", right[0]) else ""
        return f"{left}{before}{word}{after}{right}"

    def link(self, pr: dict, text: Any = None) -> str:
        if text is None:  # each PR's number is linked a dozen times a file
            key = (pr["number"], pr.get("url"))
            done = self._links.get(key)
            if done is None:
                done = self._links[key] = self._link(pr, None)
            return done
        return self._link(pr, text)

    def _link(self, pr: dict, text: Any) -> str:
        label = self.esc(text) if text is not None else self.safe(f"#{int(pr['number'])}")
        url = safe_url(pr.get("url"))
        if url is None:
            return label
        if self.fmt == "html":
            return self.safe(f'<a href="{escape(url)}">{label}</a>')
        return self.safe(f"[{label}]({url})")

    def links(self, prs: list[dict], limit: int = MAX_REC_PRS) -> str:
        shown = [self.link(pr) for pr in prs[:limit]]
        if len(prs) > limit:
            more = len(prs) - limit
            return self.n("rec_more", more, prs=self.safe(self.s["list_sep"].join(shown)))
        return self.join(shown)

    def pr_ref(self, pr: dict) -> str:
        """`#123 short title`, the number linked (once per file, as `link`)."""
        key = (pr["number"], pr.get("url"), pr["title"])
        done = self._refs.get(key)
        if done is None:
            done = self._refs[key] = self.safe(
                f"{self.link(pr)} {self.esc(short_title(pr['title']))}"
            )
        return done

    # --- vocabulary -----------------------------------------------------------------------
    def flag(self, flag: str) -> str:
        return self.s["flag_names"].get(flag, flag)

    def flag_inline(self, flag: str) -> str:
        """The flag's name inside a sentence (lower case in English unless an acronym)."""
        name = self.flag(flag)
        if self.lang == "en" and len(name) > 1 and not name[1].isupper():
            return name[0].lower() + name[1:]
        return name

    def flag_description(self, flag: str) -> str:
        return self.s["flag_descriptions"].get(flag, "")

    def trend(self, trend: str) -> str:
        return self.s["trend_names"].get(trend, trend)

    def type_short(self, change_type: str) -> str:
        return self.s["type_short"].get(change_type, change_type)

    def type_count(self, change_type: str, count: int) -> str:
        names = self.s["type_names"].get(change_type, {"one": change_type, "other": change_type})
        name = names["one"] if count == 1 else names["other"]
        return self("summary_mix_item", n=count, type=name)

    def type_name(self, change_type: str) -> str:
        """The change type's name for one PR told in a story (feature, fix; 新功能、缺陷修复)."""
        return self.s["type_story"].get(change_type, change_type)

    def type_label(self, change_type: str) -> str:
        return self.s["type_names"].get(change_type, {}).get("label", change_type)


@lru_cache(maxsize=1024)
def fields_of(template: str) -> frozenset[str]:
    """The names `template` fills (`{x.y}` and `{x[0]}` fill `x`)."""
    fields = (field for _, field, _, _ in Formatter().parse(template) if field)
    return frozenset(re.split(r"[.\[]", field, maxsplit=1)[0] for field in fields)
