"""Risk reasons and impact claims worded in the report's language from the marts' evidence.

`marts.fct_weekly_risks` stores each reason as data: `reason_key` names the sentence's form and
`evidence` holds its values (a word, a file, the text of an unchecked box, counts, PR numbers).
The sentence itself comes from `flag_reasons` in `reports/i18n/<lang>.yml`; text quoted from a
PR (a box, a sentence, a note) stays as its author wrote it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestration.report.translator import Translator

MAX_CLAIMS = 3  # impact claims quoted in one key change


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


def _values(t: Translator, flag: str, evidence: dict, pr: dict) -> dict[str, Any]:
    """Every placeholder a reason's form may use, from the evidence (and the PR's type)."""
    e = evidence
    values: dict[str, Any] = {
        "type": t.type_label(e.get("type") or pr["change_type"]),
        "path": t.code(e.get("path") or ""),
        "prefix": t.code(e.get("prefix") or ""),
        "reverts": _prs(t, [e["reverts"]] if e.get("reverts") is not None else []),
        "reverted_by": _prs(t, e.get("reverted_by")),
        "unresolved": int(e.get("unresolved") or 0),
        "follow_ups": t.join(
            [
                t.n("follow_up_item", item["days"], pr=t.safe(f"#{int(item['number'])}"))
                for item in e.get("follow_ups") or []
            ]
        ),
    }
    for key in ("word", "box", "sentence", "note"):
        values[key] = quote(t, e.get(key) or "")
    for key, form in COUNT_FORMS.items():
        if key == "lines" and flag == "missing_tests":
            form = "n_code_lines"
        value = e.get(key)
        if isinstance(value, list):  # files by name
            values[key] = t.join([t.code(v) for v in value])
        else:
            values[key] = t.n(form, int(value or 0))
    more = int(e.get("more") or 0)
    values["more"] = t.n(f"{flag}_more", more) if more and f"{flag}_more" in t.s else t.safe("")
    return values


def reason(t: Translator, flag: str, item: dict) -> str:
    """A risk's reason in the report's language; the stored English one for an unknown form."""
    template = t.s["flag_reasons"].get(flag, {}).get(item.get("reason_key") or "")
    if template is None:
        return t.esc(item["reason"])
    return t.fill(template, **_values(t, flag, item.get("evidence") or {}, item["pr"]))


def claim(t: Translator, found: dict) -> str:
    """One measured impact claim quoted as written, its figure in bold."""
    sentence = t.esc(found.get("sentence") or "")
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
