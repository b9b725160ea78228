"""A group's report as editions: the facts each edition answers for, what a correction says.

A group's editions are rows of `publish.editions` like a repository's, under the group's key
(`group:<name>`, never a repository's name): a new number whenever the Markdown changes, and a
correction box when the facts it states (each repository's merged PRs, releases and key story,
the recurring risks) differ from an earlier edition's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from orchestration.group.queries import GroupWeek
from orchestration.group.text import GroupText
from orchestration.report.edition_book import Correction


def group_facts(g: GroupWeek) -> dict[str, dict]:
    """What an edition of the group's week states, per repository (and `risks:` for the
    recurring risks); compared with `group_changes`."""
    facts: dict[str, dict] = {}
    for row in g.repos:
        lead = g.lead_of(row["repo"])
        facts[row["display_name"]] = {
            "merged_prs": int(row["merged_prs"]),
            "releases": sorted(r["version"] or "" for r in row["releases"] or []),
            "lead": None if lead is None else f"#{lead['lead_number']} {lead['lead_title']}",
        }
    facts["risks:"] = {"subjects": [r["subject"] or r["risk_kind"] for r in g.risks]}
    return facts


def group_changes(old: dict[str, dict], new: dict[str, dict]) -> list[dict]:
    """What a reader of the old edition should learn, repository by repository."""
    changes: list[dict] = []
    for repo in [k for k in new if k != "risks:"] + [k for k in old if k not in new]:
        before, after = old.get(repo) or {}, new.get(repo) or {}
        if before.get("merged_prs", 0) != after.get("merged_prs", 0):
            changes.append(
                {
                    "repo": repo,
                    "kind": "merged",
                    "old": before.get("merged_prs", 0),
                    "new": after.get("merged_prs", 0),
                }
            )
        for version in sorted(set(after.get("releases", [])) - set(before.get("releases", []))):
            changes.append({"repo": repo, "kind": "release_added", "version": version})
        for version in sorted(set(before.get("releases", [])) - set(after.get("releases", []))):
            changes.append({"repo": repo, "kind": "release_removed", "version": version})
        if before.get("lead") != after.get("lead") and before.get("lead") and after.get("lead"):
            changes.append(
                {"repo": repo, "kind": "lead", "old": before["lead"], "new": after["lead"]}
            )
    was = (old.get("risks:") or {}).get("subjects", [])
    now = (new.get("risks:") or {}).get("subjects", [])
    changes += [{"kind": "risk_added", "subject": s} for s in now if s not in was]
    changes += [{"kind": "risk_removed", "subject": s} for s in was if s not in now]
    return changes


@dataclass(frozen=True)
class GroupNotes:
    """What the group's report says of itself: its correction box, the weeks beside it."""

    correction: Correction | None = None
    previous_week: date | None = None
    next_week: date | None = None
    earlier: list[Correction] = field(default_factory=list)


def change_text(t: GroupText, change: dict) -> str:
    kind = change["kind"]
    values = {k: v for k, v in change.items() if k != "kind"}
    return t(f"g_change_{kind}", **values)


def _time(moment: datetime) -> str:
    return moment.date().isoformat()


def notes_block(t: GroupText, notes: GroupNotes | None) -> str:
    """The correction box (a Markdown quote, or an aside in HTML); empty when uncorrected."""
    if notes is None or notes.correction is None:
        return t.safe("")
    box = notes.correction
    title = t("g_corrected_title", date=_time(box.since))
    items = [change_text(t, c) for c in box.changes] or [t("g_change_none")]
    if t.fmt == "html":
        lis = "".join(f"<li>{item}</li>" for item in items)
        return t.safe(
            f'<aside class="correction"><p><strong>{title}</strong> '
            f"{t('g_corrected_intro')}</p><ul>{lis}</ul></aside>"
        )
    lines = "\n".join(f"> - {item}" for item in items)
    return t.safe(f"> **{title}** {t('g_corrected_intro')}\n>\n{lines}")
