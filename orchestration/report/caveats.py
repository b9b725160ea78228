"""A PR's caveats as the body states them: chosen, deduplicated and worded in the report's
language from their structured detail (`subject`, `effect`: caveat_details.py), never by
quoting the description's English inside a Chinese sentence.

A trade-off's subject is a key the vocabularies word (`peak_memory` 峰值内存); a default's
setting, an omission's subject and an unverified platform are names, shown as code. A caveat
without a detail is named by its kind (in English quoted as written, as the appendix does);
one that is no caveat at all (`improves`: "reduces memory overhead", `unchanged`: "existing
behaviour remains unchanged") is left to the appendix.
"""

from __future__ import annotations

from typing import Any

from orchestration.report import evidence

MAX_STATED = 2  # caveats a story states; the appendix quotes them all
# which caveats a story states first: what breaks, what it costs, how it is switched on
ORDER = ("breaking", "trade_off", "default", "unverified", "omission")
NOT_CAVEATS = ("improves", "unchanged")
# of a PR's default caveats, the one a reader needs most
DEFAULT_ORDER = ("now_default", "on_by_default", "off_by_default", "opt_in", "changed_default")


def of(pr: dict) -> list[dict]:
    """Every caveat of the PR that has a kind."""
    return [c for c in pr.get("caveats") or [] if c and c.get("kind")]


def _specific(c: dict) -> tuple:
    """How much a caveat says: an effect and a subject first; for defaults DEFAULT_ORDER."""
    effect = c.get("effect")
    rank = DEFAULT_ORDER.index(effect) if c["kind"] == "default" and effect in DEFAULT_ORDER else 0
    return (effect is None, rank, c.get("subject") is None)


def stated(pr: dict) -> list[dict]:
    """The caveats the body states: one per kind (the one that says most), no non-caveat, in
    ORDER, at most MAX_STATED."""
    best: dict[str, dict] = {}
    for c in of(pr):
        if c.get("effect") in NOT_CAVEATS:
            continue
        kind = c["kind"]
        if kind not in best or _specific(c) < _specific(best[kind]):
            best[kind] = c
    ranked = sorted(best.values(), key=lambda c: ORDER.index(c["kind"]) if c["kind"] in ORDER
                    else len(ORDER))  # fmt: skip
    return ranked[:MAX_STATED]


def first(pr: dict, kind: str) -> dict | None:
    return next((c for c in stated(pr) + of(pr) if c["kind"] == kind), None)


def subject(t: Any, c: dict) -> str | None:
    """The caveat's subject in this language: a trade-off's by its key, other kinds' as code."""
    value = c.get("subject")
    if not value:
        return None
    if c["kind"] == "trade_off":
        named = t.s["caveat_subjects"].get(value)
        return t.esc(named) if named else None
    return t.code(value)


def phrase(t: Any, c: dict) -> str | None:
    """One caveat in a few words of this language, from its detail; None without one."""
    forms = t.s["caveat_details"].get(c["kind"]) or {}
    effect = c.get("effect") or "none"
    named = subject(t, c)
    template = forms.get(f"{effect}_named") if named is not None else None
    if template is not None:
        return t.fill(template, subject=named)
    template = forms.get(effect)
    return t.fill(template) if template is not None and "{" not in template else None


def caveat_phrase(t: Any, pr: dict) -> str | None:
    """`注意：可能增加峰值内存；默认关闭` / `Caveat: may increase peak memory; off by default`:
    each stated caveat by its detail, else by its kind (English quotes the sentence)."""
    found = stated(pr)
    if not found:
        return None
    parts: list[str] = []
    for c in found:
        worded = phrase(t, c)
        if worded is None and t.lang == "zh":
            worded = t.esc(t.s["caveat_names"].get(c["kind"], c["kind"]))
        elif worded is None:
            worded = evidence.quote(t, evidence.rich(t, c.get("sentence") or ""))
        if str(worded) not in {str(p) for p in parts}:
            parts.append(worded)
    return t("story_caveats", caveats=t.join(parts, sep=t.s["watch_sep"]))
