"""The body's rule-built actions: at most five, each on PRs of the week and a concrete fact of
them (a breaking change, a revert, an open thread, a caveat, a file, a figure).

What earns an action is a mart fact: a flag of `fct_weekly_risks` with its evidence, or a caveat
of `fct_pull_requests.caveats`. The flags' severity rank (`dim_risk_flags`) comes first, then
key PRs, then the PR's importance; each PR earns one action, each kind at most
MAX_PER_FORM, and PRs that changed the same hotspot share one. Each action names its PRs by
number and title as written, so no two weeks can share an action's sentence.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from orchestration.report import caveats as caveat_words
from orchestration.report import evidence
from orchestration.report.body import caveats, figure_phrase, risk_problem
from orchestration.report.translator import fields_of
from orchestration.report.view import MAX_ACTIONS, ReportView, flag_rank

MAX_GROUPED = 3  # PRs named in one action on a shared file
MAX_PER_FORM = 2  # actions of one kind, so that five are not five times the same advice
# the flags whose evidence makes an action, and the form that words it
FLAG_ACTIONS = {
    "breaking_change": "breaking",
    "unresolved_threads": "unresolved",
    "no_approval": "no_approval",
    "missing_tests": "missing_tests",
    "core_path": "core_path",
    "dependency_change": "dependency_change",
    "hardware_specific": "hardware_specific",
    "quick_follow_up": "quick_follow_up",
}
# caveats that make an action: a breaking or unverified one weighs like the strongest flag
CAVEAT_ACTIONS = ("breaking", "unverified", "trade_off", "default")
GROUPED = {"core_path": "path"}  # one action for the PRs that changed the same file


@dataclass
class Candidate:
    order: tuple
    form: str
    prs: list[dict]
    flag: str | None = None
    item: dict = field(default_factory=dict)

    @property
    def group(self) -> tuple:
        key = GROUPED.get(self.flag or "")
        value = (self.item.get("evidence") or {}).get(key) if key else None
        return (self.form, str(value)) if value else (self.form, self.prs[0]["number"])


def _form(flag: str, item: dict) -> str | None:
    if flag == "revert":
        e = item.get("evidence") or {}
        if e.get("reverted_by"):
            return "reverted_by"
        return "reverts" if e.get("reverts") is not None else None
    if flag == "core_path" and item.get("reason_key") == "configured":
        return "core_path_configured"
    return FLAG_ACTIONS.get(flag)


def refs(t: Any, prs: list[dict]) -> str:
    """The PRs an action concerns: each linked, with its title as written."""
    return t.join([t.safe(f"{t.link(pr)} {t('action_title', title=pr['title'])}") for pr in prs])


def _word(t: Any, c: Candidate) -> str:
    pr = c.prs[0]
    form, detail = _caveat_form(t, c, pr)
    template = t.s["actions"][form]
    if c.flag is not None:  # only the evidence's values the action's form names
        used = fields_of(template)
        values = evidence.values(t, c.flag, c.item.get("evidence") or {}, pr, used)
        values["detail"] = risk_problem(t, c.flag, c.item)
    else:
        figure = figure_phrase(t, pr)
        values = {"detail": t.safe(""), "figure": t("action_figure", figure=figure) if figure
                  else t.safe("")}  # fmt: skip
    values |= {"pr": refs(t, c.prs), "title": t.safe(""), "n": len(c.prs), **detail}
    return t.fill(template, **values)


def _caveat_form(t: Any, c: Candidate, pr: dict) -> tuple[str, dict]:
    """A caveat's action in the form that names its detail: where it was not verified, what
    it costs, how its default is set (`unverified_not_measured_named`, `trade_off_detail`)."""
    caveat = caveat_words.first(pr, c.form) if c.flag is None else None
    if caveat is None:
        return c.form, {}
    named = caveat_words.subject(t, caveat)
    worded = caveat_words.phrase(t, caveat)
    forms = t.s["actions"]
    for key, value in (
        (f"{c.form}_{caveat.get('effect')}_named", named),
        (f"{c.form}_named", named),
        (f"{c.form}_detail", worded),
    ):
        if value is not None and key in forms:
            return key, {"subject": named, "caveat": worded}
    return c.form, {}


def _candidates(v: ReportView) -> list[Candidate]:
    found = []
    for line in v.all_risk_lines:
        for flag, item in line.items:
            if (form := _form(flag, item)) is not None:
                order = (flag_rank(v.facts, flag), not line.pr["is_key"], -line.pr["importance"])
                found.append(Candidate(order, form, [line.pr], flag, item))
                break
    for pr in v.facts.key_prs:
        kinds = {c["kind"] for c in caveats(pr)}
        form = next((k for k in CAVEAT_ACTIONS if k in kinds), None)
        if form is not None:
            strong = form in ("breaking", "unverified")
            rank = (0, "") if strong else (max(v.facts.flag_ranks.values(), default=0) + 1, "")
            found.append(Candidate((rank, False, -pr["importance"]), form, [pr]))
    return sorted(found, key=lambda c: (c.order, c.prs[0]["number"]))


def rule_actions(t: Any, v: ReportView) -> list[str]:
    """The week's actions, strongest first."""
    chosen: dict[tuple, Candidate] = {}
    seen: set[int] = set()
    forms: Counter[str] = Counter()
    for c in _candidates(v):
        number = c.prs[0]["number"]
        if number in seen:
            continue
        if c.group in chosen:  # another PR that changed the same file: one action for both
            if len(chosen[c.group].prs) < MAX_GROUPED:
                chosen[c.group].prs.append(c.prs[0])
            seen.add(number)
            continue
        kind = c.flag or c.form
        if forms[kind] >= MAX_PER_FORM or len(chosen) >= MAX_ACTIONS:
            continue
        chosen[c.group] = c
        forms[kind] += 1
        seen.add(number)
    return [_word(t, c) for c in chosen.values()]
