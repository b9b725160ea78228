"""The body's rule-built sentences: what happened, each story's facts, the risk lines and the
footer, worded in the report's language from the view (the marts' facts) alone.

A Chinese body composes only Chinese: facts that exist only in English (a description's
sentence) are named through the zh vocabulary here and quoted as written in the appendix; a
caveat is worded from its detail (caveats.py). An English body quotes the change sentence.
"""

from __future__ import annotations

from typing import Any

from orchestration.report import caveats as caveat_words
from orchestration.report import evidence
from orchestration.report.notes import WeekNotes
from orchestration.report.translator import fields_of
from orchestration.report.view import MAX_RISK_REASONS, ReportView, RiskLine, Story

MAX_NAMED_PRS = 4  # PRs linked for a story named in passing


def headline(pr: dict) -> dict | None:
    """The PR's headline measured claim (`headline_claim`, else its first impact claim)."""
    claim = pr.get("headline_claim")
    if claim:
        return claim
    claims = pr.get("impact_claims") or []
    return claims[0] if claims else None


def caveats(pr: dict) -> list[dict]:
    return caveat_words.of(pr)


def type_phrase(t: Any, pr: dict, consequence: bool = True) -> str:
    """`area` 模块的新功能 / a feature in `area` (with the consequence a fix names)."""
    consequence = pr.get("severity_consequence") if consequence else None
    name = t.s["consequence_names"].get(consequence) if consequence else None
    key = "story_type_fix" if name and pr["change_type"] == "fix" else "story_type"
    return t(key, area=t.code(pr["primary_area"]), type=t.type_name(pr["change_type"]),
             consequence=name or "")  # fmt: skip


def size_phrase(t: Any, pr: dict) -> str:
    return t(
        "story_size",
        additions=pr["additions"],
        deletions=pr["deletions"],
        files=t.n("n_files", pr["changed_files"]),
    )


def figure_phrase(t: Any, pr: dict, with_condition: bool = True) -> str | None:
    """The headline figure with its metric and condition: 加速 **1.679×**（`M=8`）."""
    claim = headline(pr)
    if not claim or not claim.get("figure"):
        return None
    metric = t.s["metric_names"].get(str(claim.get("metric") or "").strip().lower())
    condition = claim.get("condition")
    figure = str(claim["figure"])
    # a percentage says which way it went unless its sign does (`~15.3%` lower, `-40.45%`)
    direction = claim.get("direction") if claim.get("unit") == "%" else None
    signed = figure.lstrip("~≈约 ")[:1] in "+-−"
    said = t.s["directions"].get(direction) if direction and not signed else None
    if metric and said:
        metric = t("metric_direction", metric=metric, direction=said)
    values = {
        "figure": t.strong(figure),
        "metric": metric or "",
        "condition": t("story_condition", condition=t.code(condition))
        if condition and with_condition
        else "",
    }
    return t("story_figure" if metric else "story_figure_plain", **values)


def pr_facts(t: Any, pr: dict, lead_in: str | None = None) -> str:
    """One sentence of a PR's facts: what it is and its size, its release, the figure that
    matters and its caveats (in English also the change sentence as the description says it)."""
    breaking = t("story_breaking") if pr.get("is_breaking") else ""
    first = t("story_meta", what=type_phrase(t, pr), size=size_phrase(t, pr), breaking=breaking)
    if pr.get("is_release") and pr.get("release_version"):  # a release says so first
        version = t("story_release", version=t.code(pr["release_version"]))
        first = t.safe(f"{version}{t.s['colon']}{first}")
    clauses = [first if lead_in is None else t.safe(f"{lead_in}{first}")]
    if t.lang == "en" and pr.get("summary"):
        clauses.append(evidence.rich(t, pr["summary"]))
    if figure := figure_phrase(t, pr):
        clauses.append(figure)
    if caveat := caveat_words.caveat_phrase(t, pr):
        clauses.append(caveat)
    return t.sentence(clauses)


def story_parts(t: Any, v: ReportView, story: Story) -> tuple[list[str], str, list[str]]:
    """A story's rule-built sentences around its lead's facts: before them who leads a story
    of several PRs (its title says what joins them) or the earlier PR it follows up; after
    them what became of its other PRs (a member reverted since)."""
    facts = pr_facts(t, story.lead)
    if story.is_single:
        return [], facts, []
    notes = member_notes(t, v, story)
    if story.headed_by_lead:  # PRs linked by a PR's number: the heading names its lead
        if not story.earlier:  # the PRs of the week name each other
            return [], facts, notes
        earlier = t.join([t.safe(f"#{int(n)}") for n in story.earlier])
        return [t("story_follows", prs=earlier)], facts, notes
    lead = t("story_lead", pr=t.link(story.lead))
    if story.earlier:  # PRs of other weeks are named, not linked
        prs = t.join([t.safe(f"#{int(n)}") for n in story.earlier])
        lead = t.safe(f"{lead}{t.s['space']}{t('story_earlier', prs=prs)}")
    return [lead], facts, notes


def story_sentences(t: Any, v: ReportView, story: Story) -> list[str]:
    """The rule-built sentences of a story (story_parts, in order)."""
    before, facts, after = story_parts(t, v, story)
    return [*before, facts, *after]


NOTED_FLAGS = ("revert", "breaking_change")  # what a story says of its other PRs


def member_notes(t: Any, v: ReportView, story: Story) -> list[str]:
    """A sentence for each PR of the story but its lead that was reverted or breaks something:
    `其中 #5599 已被 #7173 回滚。`"""
    out: list[str] = []
    if story.kind == "revert_reland":  # its title says who reverted what
        return out
    for pr in story.prs[1:]:
        line = next((r for r in v.all_risk_lines if r.pr is pr), None)
        items = [(f, i) for f, i in (line.items if line else []) if f in NOTED_FLAGS]
        if items:
            flag, item = items[0]
            out.append(t("story_member", pr=t.link(pr), note=risk_problem(t, flag, item)))
    return out


def story_title(t: Any, story: Story) -> str | None:
    """The mart's title of a story of several PRs in this language; None for a single PR."""
    if story.is_single:
        return None
    title = story.title_zh if t.lang == "zh" else story.title_en
    title = title or story.title_en or story.title_zh or story.story_id
    name = story.evidence or ""
    if name and name not in title:  # a file the title names by its base name
        name = name.rsplit("/", 1)[-1]
    if not name or name not in title or name.startswith("#"):
        return t.esc(title)
    # the story's name (a model family, a platform, a tag, a file) set as the name it is
    before, after = title.split(name, 1)
    gap_before = " " if before.endswith(" ") else ""
    gap_after = " " if after.startswith(" ") else ""
    parts = [t.esc(before) if before.strip() else "", gap_before, t.code(name), gap_after]
    return t.safe("".join(str(p) for p in [*parts, t.esc(after) if after.strip() else ""]))


def named_stories(t: Any, v: ReportView) -> str:
    """The week's other stories in one sentence: each title with its PRs."""
    items = [
        t("sum_story_more", label=story_title(t, story),
          prs=t.join([t.link(pr) for pr in story.prs[:MAX_NAMED_PRS]]))
        for story in v.named_stories
    ]  # fmt: skip
    return t("named_stories", items=t.join(items, sep=t.s["watch_sep"])) if items else t.safe("")


def story_label(t: Any, story: Story, titles: dict[int, str]) -> str:
    """A story named inside the summary's sentence, with its PRs: a story of several PRs by
    its title, a PR alone by the model's Chinese title or its own as written, with its figure."""
    refs = t.join([t.link(pr) for pr in story.prs[:3]])
    if not story.headed_by_lead:
        return t("sum_story_more", label=story_title(t, story), prs=refs)
    pr = story.lead
    if pr["number"] in titles:
        return t("sum_story_more", label=titles[pr["number"]], prs=refs)
    figure = figure_phrase(t, pr, with_condition=False)
    return t(
        "sum_story_title",
        prs=refs,
        # a Chinese sentence names the PR by its title as written, an English one by its gist
        title=t(
            "action_title", title=pr["title"] if t.lang == "zh" else evidence.short(pr["title"])
        ),
        figure=t("sum_story_figure", figure=figure) if figure else "",
    )


def risk_problem(t: Any, flag: str, item: dict) -> str:
    """A flag's problem on a risk line: the short form, the evidence's values filled in."""
    template = t.s["risk_problems"].get(flag, {}).get(item.get("reason_key") or "")
    if template is None:
        return t.esc(item["reason"])
    e = item.get("evidence") or {}
    return t.fill(template, **evidence.values(t, flag, e, item["pr"], fields_of(template)))


def risk_line(t: Any, line: RiskLine) -> str:
    problems = [risk_problem(t, flag, item) for flag, item in line.items[:MAX_RISK_REASONS]]
    return t(
        "risk_line",
        pr=t.link(line.pr),
        what=type_phrase(t, line.pr, consequence=False),
        problems=t.join(problems, sep=t.s["risk_sep"]),
    )


def summary_sentences(t: Any, v: ReportView, titles: dict[int, str]) -> list[str]:
    """What happened, in 3–5 sentences: the count and its change, the releases, the stories
    that matter, the main open risk."""
    f, s = v.facts, v.facts.summary
    vs = t.safe("")
    if v.volume_direction:
        before = t.n("sum_before", f.trailing_weeks, avg=t.num(f.trailing_avg_prs, 1))
        vs = t.pick("sum_vs", v.volume_direction, pct=v.volume_change_pct or 0, before=before)
    key = len(f.key_prs)
    key_form = "none" if not key else t.share_form(key, len(f.prs))
    out = [
        t(
            "sum_volume",
            merged=t.n("n_prs", s["merged_prs"]),
            authors=t.n("n_authors", s.get("authors") or 0),
            new_authors=t.share("new_authors", s.get("first_time_authors"), s.get("authors") or 0),
            vs=vs,
            key=t.pick("sum_key", key_form, n=key, threshold=t.num(f.key_threshold, 1)),
        )
    ]
    if v.releases:
        items = [
            t("release_item", version=t.code(r.get("version") or r.get("title") or ""),
              pr=t.link(r["pr"]) if r.get("pr") else t.safe(f"#{int(r['number'])}"))
            for r in v.releases
        ]  # fmt: skip
        out.append(t("sum_releases", releases=t.join(items)))
    if v.summary_stories:
        labels = [story_label(t, story, titles) for story in v.summary_stories]
        out.append(t("sum_stories", items=t.join(labels)))
    if v.risk_lines:
        line = v.risk_lines[0]
        flag, item = line.items[0]
        out.append(t("sum_risk", pr=t.link(line.pr), problem=risk_problem(t, flag, item)))
    else:
        out.append(t.n("sum_no_risk", len(f.prs)))
    return out


def footer(t: Any, v: ReportView, notes: WeekNotes | None) -> str:
    """One line: the completeness stamp and, when the history does not reach the repository's
    first PR, the first-time-author caveat."""
    parts = []
    if notes is not None:
        if notes.count is None:
            parts.append(t("footer_unknown", merged=notes.merged))
        else:
            parts.append(
                t(
                    "footer_counted",
                    merged=notes.merged,
                    counted=notes.count.merged,
                    time=notes.count.counted_at.strftime("%Y-%m-%d %H:%M UTC"),
                )
            )
    s = v.facts.summary
    if not s.get("history_complete", True) and s.get("history_since"):
        key = "footer_history_short" if s.get("volume_trend") == "unknown" else "footer_history"
        parts.append(t(key, since=t.week_label(s["history_since"]), weeks=v.facts.trailing_weeks))
    if not parts:
        return t.safe("")
    return t.sentence(parts, sep=t.s["footer_join"])
