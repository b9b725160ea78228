"""The two-minute body from crafted facts: stories told once, releases first, the figure with its
condition and caveats in the reader's language, the model's slots, and clean HTML."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from tests.unit.test_report_render import REPO, WEEK, build_warehouse, history, pr_row

NEW_COLUMNS = """
alter table marts.fct_pull_requests add column headline_claim struct(
    metric varchar, value double, unit varchar, direction varchar, condition varchar,
    header varchar, figure varchar, sentence varchar);
alter table marts.fct_pull_requests add column caveats struct(kind varchar, sentence varchar)[];
alter table marts.fct_pull_requests add column severity_consequence varchar;
alter table marts.fct_pull_requests add column is_release boolean;
alter table marts.fct_pull_requests add column release_version varchar;
alter table marts.fct_weekly_summary add column releases
    struct(number bigint, version varchar, title varchar)[];
create table marts.fct_weekly_stories (
    repo varchar, week_start date, story_id varchar, kind varchar, title_en varchar,
    title_zh varchar, numbers bigint[], lead_number bigint, importance double, evidence varchar);
"""


def link(n: int) -> str:
    return f"[#{n}](https://github.com/{REPO}/pull/{n})"


def warehouse(tmp_path: Path, prs: list[dict], sql: str = "", risks: list[tuple] = ()) -> Path:
    path = build_warehouse(tmp_path / "w.duckdb", {**history(), WEEK: prs}, risks)
    with duckdb.connect(str(path)) as conn:
        conn.execute(NEW_COLUMNS)
        if sql:
            conn.execute(sql)
    return path


def files_of(path: Path, narrative: object = None) -> dict[str, str]:
    with duckdb.connect(str(path), read_only=True) as conn:
        facts = load_week(conn, REPO, WEEK)
    facts.narrative = narrative
    return render_week(facts)


def body(text: str) -> str:
    return re.split(r"^## .*(附录|Appendix)", text, maxsplit=1, flags=re.M)[0]


def three_prs() -> list[dict]:
    return [
        pr_row(1, WEEK, importance=7.0, title="[engine] feat: adaptive throttle"),
        pr_row(
            2,
            WEEK,
            importance=6.0,
            title="[model] fix: Qwen3.5 attention",
            change_type="fix",
            primary_area="model",
            areas=["model"],
        ),
        pr_row(
            3,
            WEEK,
            importance=3.0,
            title="[megatron] fix: Qwen3.5 LoRA",
            change_type="fix",
            primary_area="megatron",
            areas=["megatron"],
        ),
    ]


STORY = (
    f"insert into marts.fct_weekly_stories values ('{REPO}', '{WEEK}', 'qwen35', 'shared_name', "
    "'Qwen3.5 support', 'Qwen3.5 支持', [2, 3], 2, 6.5, 'Qwen3.5')"
)


def test_a_story_of_related_prs_is_told_once_led_by_its_most_important(tmp_path: Path) -> None:
    files = files_of(warehouse(tmp_path, three_prs(), STORY))
    zh, en = body(files[f"{WEEK}.zh.md"]), body(files[f"{WEEK}.en.md"])
    stories = zh.split("## 重点故事")[1].split("## 风险")[0]
    headings = re.findall(r"^### (.*)$", stories, re.M)
    assert headings == [f"1. {link(1)} \\[engine\\] feat: adaptive throttle", "2. `Qwen3.5` 支持"]
    qwen = stories.split("### 2. `Qwen3.5` 支持")[1]
    assert f"\n\n以 {link(2)} 为主。`model` 模块" in qwen  # its title says what joins them
    assert f"- {link(2)} \\[model\\] fix: Qwen3.5 attention\n- {link(3)} " in qwen
    assert stories.count(link(2)) == 2  # the lead sentence and its line, never a story of its own
    assert f"`Qwen3.5` 支持（{link(2)} 和 {link(3)}）" in zh.split("## 重点故事")[0]
    assert "### 2. `Qwen3.5` support" in en and f"\n\n{link(2)} leads it. Fix in `model`" in en


def test_a_release_opens_the_summary_and_leads_the_stories(tmp_path: Path) -> None:
    prs = [*three_prs(), pr_row(5, WEEK, importance=2.0, title="chore: release v1.2.0")]
    sql = (
        f"update marts.fct_weekly_summary set releases = [{{'number': 5, 'version': 'v1.2.0', "
        f"'title': 'chore: release v1.2.0'}}] where week_start = '{WEEK}';"
        f"update marts.fct_pull_requests set is_release = true, release_version = 'v1.2.0' "
        f"where number = 5;"
        f"insert into marts.fct_weekly_stories values ('{REPO}', '{WEEK}', 'release-v1.2.0', "
        "'release', 'Release v1.2.0', '发布 v1.2.0', [5], 5, 2.0, 'v1.2.0')"
    )
    files = files_of(warehouse(tmp_path, prs, sql))
    zh, en = body(files[f"{WEEK}.zh.md"]), body(files[f"{WEEK}.en.md"])
    summary = zh.split("## 本周概要")[1].split("## 重点故事")[0]
    assert summary.split("。")[1] == f"本周发布了 `v1.2.0`（{link(5)}）"
    assert re.findall(r"^### (.*)$", zh, re.M)[0] == "1. 发布 `v1.2.0`"
    assert f"`v1.2.0` ({link(5)}) came out this week." in en


HEADLINE = """
update marts.fct_pull_requests set
    headline_claim = {'metric': 'latency', 'value': -40.45, 'unit': '%', 'direction': 'lower',
        'condition': 'M=8', 'header': 'M | base | new', 'figure': '-40.45%',
        'sentence': 'M=8 | 215.9 ms | 128.6 ms | -40.45%'},
    caveats = [{'kind': 'trade_off', 'sentence': 'It can increase peak **memory**.'},
               {'kind': 'default', 'sentence': 'Off by default (`use_no_sync`, \\*beta\\*).'}]
where number = 1;
update marts.fct_pull_requests set severity_consequence = 'crash' where number = 2;
"""


def test_the_figure_its_condition_and_its_caveats_in_each_language(tmp_path: Path) -> None:
    files = files_of(warehouse(tmp_path, three_prs(), HEADLINE))
    zh, en = files[f"{WEEK}.zh.md"], files[f"{WEEK}.en.md"]
    assert (
        "`engine` 模块的新功能，+120 −30 行、4 个文件；实测延迟 **-40.45%**（`M=8`）；"
        "注意：有代价或取舍；涉及默认开关。" in body(zh)
    )
    assert "`model` 模块的缺陷修复（崩溃）" in body(zh)
    assert "peak" not in body(zh)  # the caveat's English words: quoted in the appendix only
    quoted = "“It can increase peak memory.”；“Off by default (`use_no_sync`, \\*beta\\*).”"
    assert f"**注意事项**：{quoted}" in zh
    assert (
        "Measured: **-40.45%** latency at `M=8`. Caveat: “It can increase peak memory.”; "
        "“Off by default (`use_no_sync`, \\*beta\\*).”" in body(en)
    )
    assert "Fix of a crash in `model`" in body(en)
    actions = body(zh).split("## 后续建议")[1]
    assert (
        f"推广之前先量清作者提到的代价：{link(1)} “\\[engine\\] feat: adaptive throttle”"
        "（实测延迟 **-40.45%**（`M=8`））。" in actions
    )
    for lang in ("en", "zh"):  # the author's Markdown reads as text in the HTML
        html = files[f"{WEEK}.{lang}.html"]
        assert not re.search(r"\\[*|_]", html), re.findall(r".{30}\\[*|_].{10}", html)
        assert "Off by default (<code>use_no_sync</code>, *beta*)." in html and "**" not in html


@dataclass
class Narrative:
    """What the narrative step hands the report: the checked answers, by part."""

    model: str = "test-model"
    prs: dict = field(default_factory=dict)
    week: dict | None = None
    groups: list = field(default_factory=list)

    def note(self, t) -> str:
        return t.esc(f"written by {self.model}")


def claim(zh: str, en: str = "") -> dict:
    return {"zh": zh, "en": en, "facts": ["pr1"]}


def test_the_model_fills_each_slot_and_names_each_pr_once(tmp_path: Path) -> None:
    story = {"story": "qwen35", "title_zh": "Qwen3.5", "title_en": "Qwen3.5", "prs": [2, 3]}
    story["sentences"] = [claim("#2 修复注意力，#3 修复 LoRA。")]
    narrative = Narrative(
        prs={1: {"title_zh": "自适应节流", "summary": [claim("节流控制器按负载调节`thrust`。")]}},
        week={
            "theme": claim("发动机与模型支持"),
            "summary": [claim("本周 #1 引入自适应节流；"), claim("#2 和 #3 修复 Qwen3.5。")],
            "stories": [story],
            "recommendations": [{"zh": "为 #1 补一个负载突变的测试。", "en": "", "prs": [1, 2]}],
        },
    )
    files = files_of(warehouse(tmp_path, three_prs(), STORY), narrative)
    zh = body(files[f"{WEEK}.zh.md"])
    summary = zh.split("## 本周概要")[1].split("## 重点故事")[0]
    assert f"本周 {link(1)} 引入自适应节流；{link(2)} 和 {link(3)} 修复 Qwen3.5。" in summary
    assert "主题" not in zh.split("## ")[0]  # the model's summary says the theme, once
    assert f"### 1. {link(1)} 自适应节流 · \\[engine\\] feat: adaptive throttle" in zh
    assert "节流控制器按负载调节`thrust`。" in zh
    assert f"{link(2)} 修复注意力，{link(3)} 修复 LoRA。" in zh
    assert f"1. 为 {link(1)} 补一个负载突变的测试。（{link(2)}）" in zh  # #1 not named twice
    assert f"| {link(1)} | 自适应节流 · \\[engine\\] feat: adaptive throttle |" in zh
    # the English edition keeps the rule-built text where the model wrote no English
    en = body(files[f"{WEEK}.en.md"])
    assert "The main stories:" in en and "自适应节流" not in en


def test_risks_are_one_line_per_pr_strongest_first_and_at_most_five(tmp_path: Path) -> None:
    prs = [pr_row(n, WEEK, importance=3.0 if n == 6 else 9.0 - n / 2) for n in range(1, 9)]
    risks = [("large_change", n, "big", WEEK, "size", {"lines": 2000, "files": 30})
             for n in range(1, 9)]  # fmt: skip
    risks += [
        ("revert", 6, "reverts #4", WEEK, "reverts", {"reverts": 4}),
        ("missing_tests", 1, "no tests", WEEK, "no_test_file", {"type": "feat", "lines": 300}),
    ]
    files = files_of(warehouse(tmp_path, prs, risks=risks))
    en = body(files[f"{WEEK}.en.md"])
    lines = re.findall(r"^\d+\. (.*)$", en.split("## Risks")[1].split("## What to do")[0], re.M)
    assert len(lines) == 5
    assert lines[0].startswith(f"{link(6)} (feature in `engine`): reverts #4; a very large change")
    assert lines[1].startswith(f"{link(1)} (feature in `engine`): 300 lines of code")
    actions = en.split("## What to do")[1].split("## Key PRs")[0]
    assert actions.index(f"{link(6)} “") < actions.index(f"{link(1)} “")  # the revert first
    assert (
        "Find what went wrong with the reverted #4 and add a regression test before it lands "
        f"again: {link(6)} “\\[engine\\] feat: change number 6”." in actions
    )
    assert json.dumps(en).count(link(6)) >= 3


def test_the_weeks_stories_are_told_before_key_prs_told_alone(tmp_path: Path) -> None:
    """Five key PRs alone outrank a model family's story and a platform's three small PRs, yet
    the body tells both stories (and the two most important key PRs), each once."""
    prs = [
        pr_row(10 + n, WEEK, importance=9.0 - n / 10, title=f"[engine] feat: gadget {n}")
        for n in range(5)
    ]
    prs += [
        pr_row(21, WEEK, importance=4.9, title="[model] fix: Qwen3.5 attention"),
        pr_row(22, WEEK, importance=4.7, title="[megatron] fix: Qwen3.5 LoRA"),
        *(
            pr_row(30 + n, WEEK, importance=0.5, title=f"[ci] fix: Ascend job {n}")
            for n in range(3)
        ),
    ]
    sql = (
        "alter table marts.fct_weekly_stories add column is_key boolean;"
        f"insert into marts.fct_weekly_stories values ('{REPO}', '{WEEK}', 'shared_name:qwen3.5', "
        "'shared_name', 'Qwen3.5: 2 PRs', 'Qwen3.5 相关的 2 个 PR', [21, 22], 21, 5.3, 'Qwen3.5', "
        "true),"
        f"('{REPO}', '{WEEK}', 'shared_name:ascend', 'shared_name', 'Ascend: 3 PRs', "
        "'Ascend 相关的 3 个 PR', [30, 31, 32], 30, 1.3, 'Ascend', true);"
        "update marts.fct_pull_requests set is_key = number < 22;"
    )
    files = files_of(warehouse(tmp_path, prs, sql))
    zh = body(files[f"{WEEK}.zh.md"])
    stories = zh.split("## 重点故事")[1].split("## 风险")[0]
    headings = re.findall(r"^### (.*)$", stories, re.M)
    assert "`Qwen3.5` 相关的 2 个 PR" in headings[-2] and "`Ascend` 相关的 3 个 PR" in headings[-1]
    assert len(headings) == 7 and sum(f"{link(n)} " in stories for n in (10, 11, 12, 13, 14)) == 5
    assert "其他相关改动" not in stories


def test_prs_naming_each_other_follow_up_nothing_and_a_revert_is_said_once(
    tmp_path: Path,
) -> None:
    """A story of this week's PRs that name each other is headed by its lead, and follows up
    no earlier PR; a revert and re-land story's title says who reverted what, its body not
    again."""
    prs = [
        pr_row(1, WEEK, importance=7.0, title="[worker] feat: tinker primitives"),
        pr_row(2, WEEK, importance=3.0, title="[worker] feat: optimizer overrides"),
        pr_row(3, WEEK, importance=6.0, title="[reward] fix: world size"),
        pr_row(4, WEEK, importance=1.0, title='Revert "[reward] fix: world size"'),
    ]
    sql = (
        f"insert into marts.fct_weekly_stories values ('{REPO}', '{WEEK}', 'series:#1', "
        "'series', '#1 and 1 linked PR', '#1 及 1 个相关 PR', [1, 2], 1, 7.0, '#1'),"
        f"('{REPO}', '{WEEK}', 'revert_reland:3', 'revert_reland', '#3 reverted (#4)', "
        "'#3 被回退（#4）', [3, 4], 3, 6.0, 'world size');"
    )
    risks = [("revert", 3, "reverted by #4", WEEK), ("revert", 4, "reverts #3", WEEK)]
    zh = body(files_of(warehouse(tmp_path, prs, sql, risks))[f"{WEEK}.zh.md"])
    assert "延续此前合并的" not in zh
    assert f"### 1. {link(1)} \\[worker\\] feat: tinker primitives\n\n`engine` 模块" in zh
    story = zh.split("#3 被回退（#4）")[1].split("###")[0]
    assert "回滚" not in story.split("\n- ")[0]
