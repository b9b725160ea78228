"""The emulator's answers: schema-valid JSON built only from the facts in the prompt.

No claim is made about prose: the sentences are templates filled with the facts' own values
(areas, counts, flags, PR numbers), so an answer passes every check unless a fault spoils it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

from orchestration.report.text import short_title

FACTS_MARK = "FACTS (JSON):\n"  # as orchestration.narrative.prompt writes it
_REF = re.compile(r"(?:#|\bPR\s*#?\s*|\bpull request\s*#?\s*)\d+", re.IGNORECASE)

TYPE_ZH = {
    "feat": "新功能",
    "fix": "缺陷修复",
    "perf": "性能优化",
    "refactor": "重构",
    "docs": "文档更新",
    "test": "测试改进",
    "ci": "持续集成调整",
    "chore": "日常维护",
    "revert": "回退",
}
TYPE_EN = {
    "feat": "new feature",
    "fix": "bug fix",
    "perf": "performance improvement",
    "refactor": "refactoring",
    "docs": "documentation change",
    "test": "test improvement",
    "ci": "CI change",
    "chore": "maintenance change",
    "revert": "revert",
}
FLAG_ZH = {
    "breaking_change": "破坏性变更",
    "revert": "回退",
    "unresolved_threads": "未解决的评审讨论",
    "no_approval": "未经批准合并",
    "missing_tests": "缺少测试",
    "core_path": "核心路径改动",
    "dependency_change": "依赖变更",
    "quick_follow_up": "快速跟进修复",
    "hardware_specific": "硬件相关改动",
    "large_change": "超大改动",
}


def facts_of(messages: list[dict]) -> dict:
    """The facts the first user message carries, as JSON."""
    for message in messages:
        content = message.get("content") or ""
        if message.get("role") == "user" and FACTS_MARK in content:
            return json.loads(content.split(FACTS_MARK, 1)[1])
    raise ValueError("no facts in the prompt")


def _area(value: str | None) -> str:
    return _REF.sub("", value or "other").strip() or "other"


def pr_answer(facts: dict) -> dict:
    size = facts.get("size") or {}
    kind = facts.get("change_type") or "other"
    area = _area(facts.get("primary_area"))
    files = size.get("changed_files")
    summary_zh = f"该 PR 是 {area} 模块的{TYPE_ZH.get(kind, '改动')}"
    summary_zh += f"，共修改 {files} 个文件。" if files is not None else "。"
    claims = facts.get("impact_claims") or []
    if claims and claims[0].get("figure"):
        summary_zh += f"作者实测效果为 {claims[0]['figure']}。"
    title = re.sub(r"\(\s*\)", "", _REF.sub("", short_title(facts.get("title") or "")))
    title = " ".join(title.split())[:200] or "an untitled change"
    return {
        "number": facts["number"],
        "summary_zh": summary_zh[:160],
        "summary_en": f"A {TYPE_EN.get(kind, 'change')} in the {area} area: {title}."[:400],
        "value_zh": TYPE_ZH.get(kind, "改动")[:24],
        "value_en": TYPE_EN.get(kind, "change")[:60],
    }


def week_answer(facts: dict) -> dict:
    prs = facts.get("pull_requests") or []
    by_area: dict[str, list[dict]] = defaultdict(list)
    for pr in prs:
        by_area[_area(pr.get("primary_area"))].append(pr)
    busiest = sorted(by_area, key=lambda a: (-len(by_area[a]), a))
    merged = facts.get("merged_prs") or len(prs)
    top = busiest[:2]
    groups = [
        {
            "title_zh": f"{area} 模块的改动"[:40],
            "title_en": f"Changes to {area}"[:100],
            "prs": [p["number"] for p in by_area[area][:12]],
        }
        for area in busiest
        if len(by_area[area]) >= 2
    ][:4]
    by_flag: dict[str, list[int]] = defaultdict(list)
    for risk in facts.get("risks") or []:
        by_flag[risk["flag"]].append(risk["number"])
    recommendations = []
    for flag, numbers in sorted(by_flag.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:5]:
        shown = sorted(set(numbers))[:8]
        refs = "、".join(f"#{n}" for n in shown[:3])
        recommendations.append(
            {
                "text_zh": f"请复查 {refs} 等改动的{FLAG_ZH.get(flag, '风险')}问题，"
                "并在合并后补充验证。",
                "text_en": f"Review the {flag.replace('_', ' ')} risk of "
                f"{', '.join(f'#{n}' for n in shown[:3])} and verify them after merging.",
                "prs": shown,
            }
        )
    return {
        "theme_zh": f"本周共合并 {merged} 个 PR，主要集中在 {'、'.join(top) or '各'} 模块。",
        "theme_en": f"{merged} pull requests merged this week, mostly in "
        f"{' and '.join(top) or 'several areas'}.",
        "groups": groups,
        "recommendations": recommendations,
    }
