"""A week's facts arranged the way the report reads, the same for every language and format.

The body a maintainer reads in two minutes: what happened, the key stories (related PRs told
once, led by the most important), at most five risks (one line per PR, strongest first), at most
five actions and the table of key PRs; everything else goes to the appendix. Nothing here is
worded (the templates and the per-language strings word it), and everything is taken from query
results: which PR is key, its story, its headline figure, caveats and flags are mart columns.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from orchestration.report.queries import WeekFacts

# How much of each list the body shows; the appendix always lists every PR and every flag.
MAX_STORIES = 7
MIN_TOLD_ALONE = 2  # places the week's most important key PRs in no story always get
MAX_TOLD_ALONE = 5  # key PRs told alone, however few stories the week has
MAX_NAMED_STORIES = 6  # the other stories named in one line under the told ones
MAX_STORY_PRS = 4  # PRs named under one story; a longer series says how many more
MAX_RISKS = 5
MAX_RISK_REASONS = 2  # flags worded on one risk line, strongest first
MAX_ACTIONS = 5
MAX_GLANCE = 10
MAX_REC_PRS = 5
MAX_AREAS = 5
MAX_AREA_PRS = 3
MAX_TREND_ROWS = 15
MAX_SUMMARY_STORIES = 3
MAX_UNKEYED = 3  # in a week without key PRs, its most important PRs are told instead
VOLUME_BAND = 0.10  # within ±10% of the trailing average counts as "in line"


def flag_rank(facts: WeekFacts, flag: str) -> tuple[int, str]:
    """How much attention a flag deserves (dim_risk_flags.severity_rank), most first; a flag the
    mart does not list comes last."""
    ranks = facts.flag_ranks
    return (ranks.get(flag, max(ranks.values(), default=0) + 1), flag)


@dataclass
class RiskGroup:
    """Every PR carrying one flag (the appendix lists them all)."""

    flag: str
    items: list[dict]  # {"pr": pr, "reason": str, "reason_key": str, "evidence": dict}

    @property
    def prs(self) -> list[dict]:
        return [item["pr"] for item in self.items]

    @property
    def key_count(self) -> int:
        return sum(1 for pr in self.prs if pr["is_key"])


@dataclass
class RiskLine:
    """One line of the body's risks: a PR and its flags' evidence, strongest flag first."""

    pr: dict
    items: list[tuple[str, dict]]  # (flag, item as in RiskGroup.items)

    @property
    def flags(self) -> list[str]:
        return [flag for flag, _ in self.items]


@dataclass
class Story:
    """Related PRs told once (a mart story), or a key PR told alone (`kind` "single")."""

    story_id: str
    kind: str
    title_en: str | None
    title_zh: str | None
    prs: list[dict]  # the week's PRs of the story, the lead first, then by importance
    importance: float
    evidence: str | None = None
    more: int = 0  # members not named under the story (a long series)
    earlier: list[int] = field(default_factory=list)  # its PRs merged in earlier weeks
    is_key: bool = True  # a story the body tells (fct_weekly_stories.is_key); a key PR alone

    @property
    def lead(self) -> dict:
        return self.prs[0]

    @property
    def is_single(self) -> bool:
        return self.kind == "single"

    @property
    def headed_by_lead(self) -> bool:
        """Named after its lead PR: a PR told alone, or PRs whose only link is an earlier PR
        they name (the story's title would be a number)."""
        return self.is_single or (self.evidence or "").startswith("#")


@dataclass
class AreaView:
    area: str
    pr_count: int
    trailing_avg: float | None  # None: the weeks before are not in the warehouse
    trend: str
    importance_sum: float
    prs: list[dict]


@dataclass
class ReportView:
    facts: WeekFacts
    volume_direction: str | None  # more, fewer, same; None without earlier weeks
    volume_change_pct: int | None
    type_counts: list[tuple[str, int]]
    stories: list[Story]
    named_stories: list[Story]  # the week's other stories, named in one line
    releases: list[dict]  # {"number", "version", "title", "pr"}: the week's releases
    risk_groups: list[RiskGroup]
    all_risk_lines: list[RiskLine]  # every flagged PR, strongest first
    flagged_prs: int
    areas: list[AreaView]
    trends_by_kind: dict[str, list[str]]
    glance: list[dict]
    pr_flags: dict[int, list[str]] = field(default_factory=dict)
    story_of: dict[int, str] = field(default_factory=dict)  # PR number -> story told under

    @property
    def is_empty(self) -> bool:
        return not self.facts.prs

    @property
    def more_glance(self) -> int:
        return max(0, len(self.facts.key_prs) - len(self.glance))

    @property
    def no_key(self) -> bool:
        """A week with PRs but none key: the body tells its most important ones instead."""
        return bool(self.facts.prs) and not self.facts.key_prs

    @property
    def risk_lines(self) -> list[RiskLine]:
        return self.all_risk_lines[:MAX_RISKS]

    @property
    def summary_stories(self) -> list[Story]:
        return self.stories[:MAX_SUMMARY_STORIES]

    def main_flag(self, pr: dict) -> str | None:
        flags = self.pr_flags.get(pr["number"], [])
        return flags[0] if flags else None


def _volume(facts: WeekFacts) -> tuple[str | None, int | None]:
    avg = facts.trailing_avg_prs
    merged = facts.summary.get("merged_prs", len(facts.prs))
    if avg is None:
        return None, None
    if facts.volume_trend in ("more", "fewer", "same"):
        direction = facts.volume_trend
    elif merged > avg * (1 + VOLUME_BAND):
        direction = "more"
    elif merged < avg * (1 - VOLUME_BAND):
        direction = "fewer"
    else:
        direction = "same"
    pct = round(abs(merged - avg) / avg * 100) if avg else None
    return direction, pct


def _by_importance(pr: dict) -> tuple[float, int]:
    return (-float(pr["importance"] or 0), pr["number"])


def told_alone(facts: WeekFacts) -> list[dict]:
    """The PRs the body tells and tabulates: the key PRs, or in a week without any its most
    important few (the marts' importance order)."""
    return facts.key_prs or facts.prs[:MAX_UNKEYED]


def _rank(story: Story) -> tuple:
    """Releases first (a release story, or a release PR told alone), then by the importance of
    the story or of its lead, whichever is more (a story is worth at least its lead alone)."""
    worth = max(story.importance, float(story.lead["importance"] or 0))
    release = story.kind == "release" or bool(story.lead.get("is_release"))
    return (not release, -worth, story.lead["number"])


def _is_key(row: dict, members: list[dict]) -> bool:
    """The mart's `is_key`; for a warehouse built before it, a release or a story holding a key
    PR."""
    if row.get("is_key") is not None:
        return bool(row["is_key"])
    return row["kind"] == "release" or any(pr["is_key"] for pr in members)


def build_stories(facts: WeekFacts) -> tuple[list[Story], list[Story]]:
    """The week's stories as the body tells them, and the other stories it only names.

    A story of several PRs that matters (fct_weekly_stories.is_key: a release, a key PR among
    them, or a week's theme of 3 PRs or more) is told once, and the body's places go to those
    first: all of them, but for MIN_TOLD_ALONE places kept for the most important key PRs in no
    story; the other key PRs in no story fill the places left (at most MAX_STORIES, and at most
    MAX_TOLD_ALONE of them), by importance, and the rest are in the table. The stories are told
    releases first, then by importance (a story is worth at least its lead); those not told are
    named in one line."""
    by_number = {pr["number"]: pr for pr in facts.prs}
    told: set[int] = set()
    groups: list[Story] = []
    rows = sorted(
        facts.stories,
        key=lambda s: (s["kind"] != "release", -float(s["importance"] or 0), s["story_id"]),
    )
    for row in rows:
        members = [by_number[n] for n in row["numbers"] or [] if n in by_number]
        members = [pr for pr in members if pr["number"] not in told]
        earlier = [n for n in row.get("earlier_numbers") or [] if n not in by_number]
        if not members or (len(members) + len(earlier) < 2 and row["kind"] != "release"):
            continue  # what is left of it after an earlier story is one PR: told alone
        lead = by_number.get(row["lead_number"])
        lead = lead if lead in members else min(members, key=_by_importance)
        ordered = [lead, *sorted((p for p in members if p is not lead), key=_by_importance)]
        told.update(pr["number"] for pr in ordered)
        groups.append(
            Story(
                story_id=row["story_id"],
                kind=row["kind"],
                title_en=row.get("title_en"),
                title_zh=row.get("title_zh"),
                prs=ordered[:MAX_STORY_PRS],
                importance=float(row["importance"] or lead["importance"] or 0),
                evidence=row.get("evidence"),
                more=max(0, len(ordered) - MAX_STORY_PRS),
                earlier=earlier,
                is_key=_is_key(row, members),
            )
        )
    alone = [
        Story(f"pr-{pr['number']}", "single", None, None, [pr], float(pr["importance"]))
        for pr in told_alone(facts)
        if pr["number"] not in told
    ]
    keyed = sorted((g for g in groups if g.is_key), key=_rank)
    room = MAX_STORIES - min(MIN_TOLD_ALONE, len(alone))
    shown = keyed[:room]
    shown += sorted(alone, key=_rank)[: min(MAX_TOLD_ALONE, MAX_STORIES - len(shown))]
    shown.sort(key=_rank)
    named = sorted([g for g in groups if g not in shown], key=_rank)
    return shown, named[:MAX_NAMED_STORIES]


def _releases(facts: WeekFacts) -> list[dict]:
    by_number = {pr["number"]: pr for pr in facts.prs}
    out = []
    for row in facts.summary.get("releases") or []:
        out.append({**row, "pr": by_number.get(row.get("number"))})
    return out


def build_view(facts: WeekFacts) -> ReportView:
    by_number = {pr["number"]: pr for pr in facts.prs}
    groups: dict[str, list[dict]] = {}
    pr_flags: dict[int, list[str]] = {}
    pr_items: dict[int, list[tuple[str, dict]]] = {}
    for risk in facts.risks:
        pr = by_number.get(risk["number"])
        if pr is None:
            continue
        item = {
            "pr": pr,
            "reason": risk["reason"],
            "reason_key": risk.get("reason_key"),
            "evidence": risk.get("evidence") or {},
        }
        groups.setdefault(risk["risk_flag"], []).append(item)
        pr_flags.setdefault(pr["number"], []).append(risk["risk_flag"])
        pr_items.setdefault(pr["number"], []).append((risk["risk_flag"], item))
    for flags in pr_flags.values():
        flags.sort(key=lambda flag: flag_rank(facts, flag))
    risk_groups = [
        RiskGroup(flag, sorted(items, key=lambda i: _by_importance(i["pr"])))
        for flag, items in sorted(groups.items(), key=lambda kv: flag_rank(facts, kv[0]))
    ]
    # one line per flagged PR: its strongest flag's rank first, then the more important PR
    lines = [
        RiskLine(by_number[n], sorted(items, key=lambda fi: flag_rank(facts, fi[0])))
        for n, items in pr_items.items()
    ]
    lines.sort(key=lambda line: (flag_rank(facts, line.flags[0]), _by_importance(line.pr)))

    types = Counter(pr["change_type"] for pr in facts.prs)
    type_counts = sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))

    areas = []
    for row in facts.trends[:MAX_AREAS]:
        prs = [pr for pr in facts.prs if row["area"] in (pr.get("areas") or [pr["primary_area"]])]
        areas.append(
            AreaView(
                area=row["area"],
                pr_count=row["pr_count"],
                trailing_avg=None if row["trailing_avg"] is None else float(row["trailing_avg"]),
                trend=row["trend"],
                importance_sum=float(row["importance_sum"] or 0),
                prs=prs,
            )
        )
    trends_by_kind: dict[str, list[str]] = {}
    shown = {a.area for a in areas}
    for row in facts.trends:
        if row["area"] not in shown:
            trends_by_kind.setdefault(row["trend"], []).append(row["area"])

    stories, named = build_stories(facts)
    direction, pct = _volume(facts)
    return ReportView(
        facts=facts,
        volume_direction=direction,
        volume_change_pct=pct,
        type_counts=type_counts,
        stories=stories,
        named_stories=named,
        releases=_releases(facts),
        risk_groups=risk_groups,
        all_risk_lines=lines,
        flagged_prs=len(pr_flags),
        areas=areas,
        trends_by_kind=trends_by_kind,
        glance=told_alone(facts)[:MAX_GLANCE],
        pr_flags=pr_flags,
        story_of={pr["number"]: s.story_id for s in stories for pr in s.prs},
    )
