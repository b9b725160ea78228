"""Topics of each PR, topics per week and the week's theme, from crafted PRs with known answers.

`acme/topical` over five ISO weeks (2026-W10 to W14), built once through the model runner:
weeks 10 to 12 are mostly fixes, week 13 is performance work (some of it for NPUs), week 14
two fixes again.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from orchestration.report.queries import load_week
from orchestration.report.render import render
from tests.unit.test_facts_support import build_models, pr, query, rows_by_number

REPO = "acme/topical"
W10, W11, W12, W13, W14 = (date(2026, 3, 2) + timedelta(weeks=i) for i in range(5))


def at(week: date, number: int) -> str:
    return f"{week.isoformat()}T10:{number % 60:02d}:00Z"


def code(name: str) -> list[tuple[str, int, str]]:
    return [(f"topical/sched/{name}.py", 10, "MODIFIED")]


def topical() -> list[dict]:
    def p(number: int, title: str, week: date = W14, files=None, **kw) -> dict:
        return pr(number, title, at(week, number), files or code(f"m{number}"), **kw, repo=REPO)

    template = (
        "### Test\n\n> For changes such as new model support, show the training curves.\n\n"
        "### Checklist\n\n- [ ] Add model support to the docs\n- `{modules}` include `perf`,\n"
        "`hardware`, `model`\n"
    )
    nodes = [
        # one rule each (week 14)
        p(1, "perf: vectorise the scheduler"),
        p(2, "fix: deadlock in the scheduler"),
        p(3, "[sched] feat: adaptive batches", body="Cuts the wall-clock time by 15.3%."),
        p(4, "[sched] fix: keep the queue order", body=template),
        p(5, "[doc] fix: repair the tutorial links", files=[("docs/tutorial.md", 8, "MODIFIED")]),
        p(6, "[npu] feat: attention kernels for Ascend"),
        p(7, "feat: support Qwen3-VL"),
        p(8, "Monthly refresh", files=[("uv.lock", 80, "MODIFIED")]),
        p(9, "[ci] chore: cache wheels", files=[(".github/workflows/ci.yml", 6, "MODIFIED")]),
        p(10, "refactor: split the scheduler"),
        p(11, "feat: timers", files=[("topical/sched/profiling/a.py", 9, "ADDED"), *code("b")]),
        p(
            12,
            "feat: one timer",
            files=[("topical/sched/profiling/c.py", 9, "ADDED"), *code("d"), *code("e")],
        ),
        p(13, "fix: perform the cleanup on armature exit"),
        p(14, "Zebra crossing"),
        p(15, "[rollout] fix: guard the loader for vllm 0.9.1"),
        p(16, "topical 2.0.0", files=[("topical/_version.py", 2, "MODIFIED")]),
        p(
            17,
            "chore: tidy the scheduler",
            files=[("topical/sched/package.json", 2, "MODIFIED"), *code("f")],
        ),
    ]
    number = 100
    for week in (W10, W11, W12):
        for title in ("fix: a", "fix: b", "fix: c", "feat: d"):
            number += 1
            nodes.append(p(number, f"{title} {number}", week))
    for title in (
        "[npu] perf: e",
        "[npu] perf: f",
        "[npu] perf: g",
        "perf: h",
        "perf: i",
        "fix: j",
    ):
        number += 1
        nodes.append(p(number, f"{title} {number}", W13))
    return nodes


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_models(tmp_path_factory.mktemp("topics"), {REPO: topical()})


def test_each_rule_tags_its_topic_with_evidence(built: Path) -> None:
    topics = {n: t for n, (t,) in rows_by_number(built, "topics").items()}
    evidence = {
        (n, t): e
        for n, t, e in query(
            built, "select number, topic, evidence from intermediate.int_pull_request_topics"
        )
    }
    assert topics[1] == ["performance"]
    assert evidence[(1, "performance")] == "the change type is perf"
    assert topics[2] == ["correctness"]
    assert topics[3] == ["performance", "features"]
    assert evidence[(3, "performance")] == 'the description says "wall clock"'
    assert topics[4] == ["correctness"]  # the template's quote and check list say nothing
    assert topics[5] == ["devex"]  # a fix of documentation only is not about correctness
    assert evidence[(5, "devex")] == 'the title says "tutorial"'
    assert topics[6] == ["hardware", "features"]
    assert topics[7] == ["model_support", "features"]
    assert evidence[(7, "model_support")] == 'the title says "qwen3"'
    assert topics[8] == ["dependencies"]
    assert evidence[(8, "dependencies")] == "changes dependency files only"
    assert topics[9] == ["infrastructure"]
    assert topics[10] == ["devex"]
    assert evidence[(10, "devex")] == "the change type is refactor and nothing else named a topic"
    assert topics[11] == ["performance", "features"]  # profiling/ in half of the files
    assert evidence[(11, "performance")] == 'changes a path with "profiling"'
    assert topics[12] == ["features"]  # ... but not in a third of them
    assert topics[13] == [
        "correctness"
    ]  # whole words: "perform" is not "perf", nor "armature" "arm"
    assert topics[14] == ["features"]  # other, and nothing else named a topic
    assert topics[15] == ["correctness", "dependencies"]
    assert evidence[(15, "dependencies")] == "the title names version 0.9.1"
    assert topics[16] == ["infrastructure"]  # a release; its version names no dependency
    assert evidence[(16, "infrastructure")] == "the change type came from title_release"
    assert topics[17] == ["devex"]  # a chore; `package.json` has no word "json"


def test_weekly_topics_count_list_and_trend(built: Path) -> None:
    rows = {
        (topic, week): rest
        for topic, week, *rest in query(
            built,
            "select topic, week_start, pr_count, numbers, trend, topic_en, topic_zh, "
            "importance_share, baseline_share from marts.fct_weekly_topics",
        )
    }
    count, numbers, trend, name_en, name_zh, share, baseline = rows[("performance", W13)]
    assert (count, trend, name_en, name_zh, baseline) == (5, "new", "performance", "性能", 0.0)
    assert sorted(numbers) == [113, 114, 115, 116, 117] and 0.5 < share < 1
    importance = dict(rows_by_number(built, "importance"))
    assert [importance[n][0] for n in numbers] == sorted(
        (importance[n][0] for n in numbers), reverse=True
    )
    assert (rows[("correctness", W10)][0], rows[("correctness", W10)][2]) == (3, "new")
    assert rows[("correctness", W12)][2] == "steady"
    assert rows[("performance", W14)][0] == 3 and sorted(rows[("performance", W14)][1]) == [
        1,
        3,
        11,
    ]
    assert rows[("performance", W14)][2] == "rising"  # three against 1.25 a week before
    assert rows[("features", W13)][:3] == [0, [], "falling"]  # none after one a week


def test_the_theme_names_the_topics_that_stand_out(built: Path) -> None:
    weeks = {
        week: rest
        for week, *rest in query(
            built,
            "select week_start, theme, theme_zh, theme_topics, is_perf_theme "
            "from marts.fct_weekly_summary",
        )
    }
    assert weeks[W10] == ["stability", "稳定性", ["correctness"], False]
    assert weeks[W13] == [
        "performance and hardware",
        "性能优化与硬件适配",
        ["performance", "hardware"],
        True,
    ]


def test_the_report_gives_each_topic_its_count_trend_and_prs(built: Path) -> None:
    with duckdb.connect(str(built / "warehouse.duckdb"), read_only=True) as conn:
        facts = load_week(conn, REPO, W13)
    performance = next(t for t in facts.topics if t["topic"] == "performance")
    links = [f"[#{pr['number']}]({pr['url']})" for pr in performance["prs"]]
    en, zh = render(facts, "en", "md"), render(facts, "zh", "md")
    assert (
        f"By topic (a PR can serve several): **performance**, 5 PRs, new ({', '.join(links[:3])} "
        "and 2 more); **hardware and platforms**, 3 PRs, new (" in en
    )
    assert (
        f"按主题（一个 PR 可属于多个主题）：**性能** 5 个 PR，新出现（{'、'.join(links[:3])}" in zh
    )
    html = render(facts, "en", "html")
    assert (
        f'<strong>performance</strong>, 5 PRs, new (<a href="{performance["prs"][0]["url"]}">'
        in html
    )
