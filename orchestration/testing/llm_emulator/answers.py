"""The emulator's answers: schema-valid JSON built only from the facts in the prompt.

No claim is made about prose: the sentences are templates filled with the facts' own values
(areas, counts, figures, flags, PR numbers) and cite the facts they use, so an answer passes
every check unless a fault spoils it. `hostile_*` are the opposite: a good first sentence,
then schema-valid inventions (figures, events, links, mentions, a foreign PR) citing real
fact ids, which the checks must drop.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

from orchestration.narrative.figures import figures
from orchestration.report.text import short_title

FACTS_MARK = "FACTS (JSON):\n"  # as orchestration.narrative.prompt writes it
CLAIMS_MARK = "CLAIMS (JSON):\n"  # as orchestration.narrative.verify writes it
FOREIGN_OFFSET = 1_000_000  # a PR number no week holds
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
    "perf": "performance work",
    "refactor": "refactoring",
    "docs": "documentation",
    "test": "tests",
    "ci": "CI",
    "chore": "maintenance",
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


def facts_of(messages: list[dict], mark: str = FACTS_MARK) -> dict | list:
    """The facts (or claims) the first user message carries, as JSON."""
    for message in messages:
        content = message.get("content") or ""
        if message.get("role") == "user" and mark in content:
            return json.loads(content.split(mark, 1)[1])
    raise ValueError("no facts in the prompt")


def _area(value: str | None) -> str:
    return _REF.sub("", value or "other").strip() or "other"


def _without_figures(text: str) -> str:
    for figure in sorted(figures(text), key=lambda f: -f.start):
        text = text[: figure.start] + text[figure.start + len(figure.text) :]
    return " ".join(_REF.sub("", text).replace("`", "").split())


def _by_id(facts: dict) -> dict[str, dict]:
    return {f["id"]: f for f in facts.get("facts") or []}


def pr_answer(facts: dict) -> dict:
    number = facts["number"]
    pr = _by_id(facts).get(f"p{number}", {})
    kind, area = pr.get("change_type") or "other", _area(pr.get("primary_area"))
    files = pr.get("changed_files")
    title = _without_figures(short_title(pr.get("title") or "")) or "an untitled change"
    counted = f"，共修改 {files} 个文件" if files is not None else ""
    summary = [
        {
            "zh": f"该 PR 是 {area} 模块的{TYPE_ZH.get(kind, '改动')}{counted}。",
            "en": f"{title[:200]}{f', changing {files} files' if files is not None else ''}.",
            "facts": [f"p{number}"],
        }
    ]
    claim = _by_id(facts).get(f"p{number}.i1")
    if claim and claim.get("figure") and claim.get("metric"):
        figure, metric = claim["figure"].lstrip("+-−"), claim["metric"]
        summary.append(
            {
                "zh": f"作者实测 {metric} 为 {figure}。",
                "en": f"The author measured {figure} ({metric}).",
                "facts": [f"p{number}.i1"],
            }
        )
    return {
        "number": number,
        "title_zh": f"{area} 模块{TYPE_ZH.get(kind, '改动')}"[:40],
        "summary": summary,
        "value_zh": TYPE_ZH.get(kind, "改动")[:24],
        "value_en": TYPE_EN.get(kind, "change")[:60],
    }


def week_answer(facts: dict) -> dict:
    by_id = _by_id(facts)
    week = by_id.get("week", {})
    prs = [
        f
        for f in facts.get("facts") or []
        if f.get("kind", "pr") == "pr" and re.fullmatch(r"p\d+", f["id"])
    ]
    merged, key = week.get("merged_prs", len(prs)), week.get("key_prs")
    line = f"，其中重点 PR {key} 个" if key is not None else ""
    of_them = f", {key} of them key" if key is not None else ""
    summary = [
        {
            "zh": f"本周共合并 {merged} 个 PR{line}。",
            "en": f"{merged} pull requests merged this week{of_them}.",
            "facts": ["week"],
        }
    ]
    theme = None
    if week.get("theme") and week.get("theme_zh"):
        theme = {
            "zh": f"本周主题：{week['theme_zh']}。",
            "en": f"The week's theme: {week['theme']}.",
            "facts": ["week"],
        }
    by_area: dict[str, list[int]] = defaultdict(list)
    for pr in prs:
        by_area[_area(pr.get("primary_area"))].append(int(pr["id"][1:]))
    stories = []
    for area in sorted(by_area, key=lambda a: (-len(by_area[a]), a)):
        numbers = by_area[area][:8]  # a claim cites at most eight facts
        if len(numbers) < 2 or len(stories) == 4:
            continue
        refs_zh, refs_en = "、".join(f"#{n}" for n in numbers), ", ".join(f"#{n}" for n in numbers)
        stories.append(
            {
                "story": "",
                "title_zh": f"{area} 模块的改动"[:40],
                "title_en": f"Changes to {area}"[:100],
                "prs": numbers,
                "sentences": [
                    {
                        "zh": f"{area} 模块的相关改动：{refs_zh}。",
                        "en": f"Related changes to {area}: {refs_en}.",
                        "facts": [f"p{n}" for n in numbers[:8]],
                    }
                ],
            }
        )
    by_flag: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for fact in facts.get("facts") or []:
        if fact["id"].startswith("risk"):
            by_flag[fact["flag"]] += [(number, fact["id"]) for number in fact.get("prs") or []]
    recommendations = []
    for flag, items in sorted(by_flag.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:5]:
        shown = sorted(dict(items))[:3]
        ids = [i for n, i in items if n in shown]
        refs_zh, refs_en = "、".join(f"#{n}" for n in shown), ", ".join(f"#{n}" for n in shown)
        recommendations.append(
            {
                "zh": f"请复查 {refs_zh} 的{FLAG_ZH.get(flag, '风险')}问题。",
                "en": f"Review the {flag.replace('_', ' ')} of {refs_en}.",
                "facts": ids[:8],
                "prs": shown,
            }
        )
    return {
        "summary": summary,
        "theme": theme or summary[0],
        "stories": stories,
        "recommendations": recommendations,
    }


def verdicts(claims: list, supported: bool = True) -> dict:
    reason = "" if supported else "the cited facts do not say this"
    return {
        "verdicts": [
            {"index": c["index"], "supported": supported, "reason": reason} for c in claims
        ]
    }


HOSTILE_ZH = (
    "该 PR 删除了生产数据库，并将内存占用降低 2520%，"
    "详见 [公告](https://evil.example/x) @acme/everyone。",
    "本周丢失了 2026 行数据，训练速度提升三成，<img src=x onerror=alert(1)>。",
    "#{n} 存在 `ray.get()` 阻塞，另见 #{foreign}，修复了安全漏洞。",
    "该改动让所有用户的吞吐量翻倍，**立即**生效。",
)
HOSTILE_EN = (
    "This PR deletes the production database and cuts memory use by 2520%, "
    "see [the post](https://evil.example/x) @acme/everyone.",
    "Losing 2026 rows this week, training three times faster <img src=x onerror=alert(1)>.",
    "#{n} has a blocking `ray.get()` call, see also #{foreign}; it fixes a security hole.",
    "It doubles throughput for every user, **effective immediately**.",
)


def _hostile_claims(number: int, ids: list[str], count: int) -> list[dict]:
    return [
        {
            "zh": HOSTILE_ZH[i % 4].format(n=number, foreign=number + FOREIGN_OFFSET),
            "en": HOSTILE_EN[i % 4].format(n=number, foreign=number + FOREIGN_OFFSET),
            "facts": ids,
        }
        for i in range(count)
    ]


def hostile_pr_answer(facts: dict) -> dict:
    answer = pr_answer(facts)
    number = answer["number"]
    ids = list(_by_id(facts))[:3]
    answer["summary"] = answer["summary"][:1] + _hostile_claims(number, ids, 2)
    answer["title_zh"] = "删除生产数据库 @acme/everyone"
    answer["value_en"] = "security fix <img src=x onerror=alert(1)>"
    return answer


def hostile_week_answer(facts: dict) -> dict:
    answer = week_answer(facts)
    numbers = [int(f["id"][1:]) for f in facts.get("facts") or [] if re.fullmatch(r"p\d+", f["id"])]
    number = numbers[0] if numbers else 1
    ids = ["week", f"p{number}"]
    answer["summary"] = answer["summary"][:1] + _hostile_claims(number, ids, 4)
    answer["theme"] = _hostile_claims(number, ids, 1)[0]
    answer["recommendations"] = [
        {
            "zh": f"立即回退 #{number} 并通知 @org/team，详见 https://evil.example/advice。",
            "en": f"Revert #{number} at once and tell @org/team, see https://evil.example/advice.",
            "facts": ids,
            "prs": [number],
        },
        *answer["recommendations"][:2],
    ]
    if answer["stories"]:
        answer["stories"][0]["sentences"] = _hostile_claims(number, ids, 1)
    return answer
