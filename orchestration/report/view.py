"""A week's facts arranged the way the report reads, the same for every language and format.

Nothing here is worded: the templates and the per-language strings word it. Everything here is
derived from query results only, so the same warehouse always gives the same view.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from orchestration.report.queries import WeekFacts

# How much of each list a report shows; the appendix always lists every PR.
MAX_KEY_CHANGES = 8
MAX_GLANCE = 15
MAX_RISK_PRS = 8
MAX_REC_PRS = 5
MAX_AREAS = 5
MAX_AREA_PRS = 3
MAX_TREND_ROWS = 15
VOLUME_BAND = 0.10  # within ±10% of the trailing average counts as "in line"


def flag_rank(facts: WeekFacts, flag: str) -> tuple[int, str]:
    """How much attention a flag deserves (dim_risk_flags), most first; a flag the mart does
    not list comes last."""
    ranks = facts.flag_ranks
    return (ranks.get(flag, max(ranks.values(), default=0) + 1), flag)


@dataclass
class RiskGroup:
    flag: str
    items: list[dict]  # {"pr": pr, "reason": str, "reason_key": str, "evidence": dict}

    @property
    def prs(self) -> list[dict]:
        return [item["pr"] for item in self.items]

    @property
    def key_count(self) -> int:
        return sum(1 for pr in self.prs if pr["is_key"])


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
    headlines: list[dict]
    risk_groups: list[RiskGroup]
    main_risk: RiskGroup | None
    flagged_prs: int
    key_changes: list[dict]
    areas: list[AreaView]
    trends_by_kind: dict[str, list[str]]
    glance: list[dict]
    pr_flags: dict[int, list[str]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return not self.facts.prs

    @property
    def more_key_changes(self) -> int:
        return max(0, len(self.facts.key_prs) - len(self.key_changes))

    @property
    def more_glance(self) -> int:
        return max(0, len(self.facts.key_prs) - len(self.glance))

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


def build_view(facts: WeekFacts) -> ReportView:
    by_number = {pr["number"]: pr for pr in facts.prs}
    groups: dict[str, list[dict]] = {}
    pr_flags: dict[int, list[str]] = {}
    for risk in facts.risks:
        pr = by_number.get(risk["number"])
        if pr is None:
            continue
        groups.setdefault(risk["risk_flag"], []).append(
            {
                "pr": pr,
                "reason": risk["reason"],
                "reason_key": risk.get("reason_key"),
                "evidence": risk.get("evidence") or {},
            }
        )
        pr_flags.setdefault(pr["number"], []).append(risk["risk_flag"])
    for flags in pr_flags.values():
        flags.sort(key=lambda flag: flag_rank(facts, flag))
    risk_groups = [
        RiskGroup(
            flag,
            sorted(items, key=lambda i: (-i["pr"]["importance"], i["pr"]["number"])),
        )
        for flag, items in sorted(groups.items(), key=lambda kv: flag_rank(facts, kv[0]))
    ]
    # the main risk: the flag on most key PRs, then on most PRs, then the more serious one
    main_risk = min(
        risk_groups,
        key=lambda g: (-g.key_count, -len(g.items), flag_rank(facts, g.flag)),
        default=None,
    )

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

    headlines = (facts.key_prs or facts.prs)[:3]
    return ReportView(
        facts=facts,
        volume_direction=_volume(facts)[0],
        volume_change_pct=_volume(facts)[1],
        type_counts=type_counts,
        headlines=headlines,
        risk_groups=risk_groups,
        main_risk=main_risk,
        flagged_prs=len(pr_flags),
        key_changes=facts.key_prs[:MAX_KEY_CHANGES],
        areas=areas,
        trends_by_kind=trends_by_kind,
        glance=facts.key_prs[:MAX_GLANCE],
        pr_flags=pr_flags,
    )
