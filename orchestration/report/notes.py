"""What a report says about itself: how complete its week is, what it corrects, and which earlier
weeks were corrected since last week's report; worded for one language and format."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from orchestration.report.completeness import GitHubCount
from orchestration.report.edition_book import Correction
from orchestration.report.translator import Translator


@dataclass(frozen=True)
class WeekNotes:
    """Everything the report asset knows of a week beyond its facts in the marts."""

    merged: int
    count: GitHubCount | None  # None: GitHub did not count this week (it was read from a file)
    correction: Correction | None = None
    earlier: list[Correction] = field(default_factory=list)
    previous_week: date | None = None  # the reported weeks beside this one, for the page's links
    next_week: date | None = None


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _pr(t: Translator, change: dict) -> str:
    return t.safe(f"#{int(change['number'])} {t.esc(change['title'])}")


def _flags(t: Translator, flags: list[str]) -> str:
    return t.join([t.flag_inline(f) for f in flags])


def change_text(t: Translator, change: dict) -> str:
    """One PR's change since the corrected edition, in a sentence fragment."""
    if change["kind"] in ("added", "removed"):
        return t(f"change_{change['kind']}", pr=_pr(t, change))
    parts = []
    if "retitled" in change:
        parts.append(t("change_title", old=change["retitled"]))
    if "importance" in change:
        old, new = change["importance"]
        parts.append(t("change_importance", old=t.num(old, 1), new=t.num(new, 1)))
    if change.get("flags_added"):
        parts.append(t("change_flags_added", flags=_flags(t, change["flags_added"])))
    if change.get("flags_removed"):
        parts.append(t("change_flags_removed", flags=_flags(t, change["flags_removed"])))
    if "reverted_by" in change:
        prs = t.join([t.safe(f"#{int(n)}") for n in change["reverted_by"]])
        parts.append(t("change_reverted", prs=prs) if prs else t("change_not_reverted"))
    return t("change_line", pr=_pr(t, change), what=t.join(parts, sep=t.s["watch_sep"]))


def stamp(t: Translator, notes: WeekNotes) -> str:
    if notes.count is None:
        return t("stamp_unknown", merged=notes.merged)
    return t(
        "stamp_counted",
        merged=notes.merged,
        counted=notes.count.merged,
        time=_time(notes.count.counted_at),
    )


def _report_link(t: Translator, week: date) -> str:
    label = t.week_label(week)
    href = f"{week}.{t.lang}.{t.fmt}"
    if t.fmt == "html":
        return t.safe(f'<a href="{href}">{label}</a>')
    return t.safe(f"[{label}]({href})")


def stamp_block(t: Translator, notes: WeekNotes | None) -> str:
    """The completeness stamp in full, as the appendix's method gives it."""
    if notes is None:
        return t.safe("")
    if t.fmt == "html":
        return t.safe(f'<p class="stamp">{stamp(t, notes)}</p>')
    return stamp(t, notes)


def notes_block(t: Translator, notes: WeekNotes | None) -> str:
    """The correction box and the earlier weeks' corrections, as one block (nothing in a week
    that corrects nothing)."""
    if notes is None:
        return t.safe("")
    html = t.fmt == "html"
    out: list[str] = []
    if box := notes.correction:
        title = t("corrected_title", date=box.since.date().isoformat())
        items = [change_text(t, c) for c in box.changes] or [t("change_none")]
        if html:
            lis = "".join(f"<li>{item}</li>" for item in items)
            out.append(
                f'<aside class="correction"><p><strong>{title}</strong> '
                f"{t('corrected_intro')}</p><ul>{lis}</ul></aside>"
            )
        else:
            lines = "\n".join(f"> - {item}" for item in items)
            out.append(f"> **{title}** {t('corrected_intro')}\n>\n{lines}")
    if notes.earlier:
        heading = t("earlier_title")
        items = []
        for c in notes.earlier:
            head = t(
                "earlier_item",
                week=_report_link(t, c.week_start),
                at=c.corrected_at.date().isoformat(),
                since=c.since.date().isoformat(),
            )
            what = t.join([change_text(t, change) for change in c.changes], sep=t.s["watch_sep"])
            items.append(t.safe(f"{head}{t.s['colon']}{what}"))
        if html:
            lis = "".join(f"<li>{item}</li>" for item in items)
            out.append(f'<aside class="corrections"><p><strong>{heading}</strong></p>'
                       f"<ul>{lis}</ul></aside>")  # fmt: skip
        else:
            out.append(f"**{heading}**\n\n" + "\n".join(f"- {item}" for item in items))
    return t.safe(("\n" if html else "\n\n").join(out))
