"""Crafted PRs with known answers for what descriptions say, the flags and importance built on it.

One week of `acme/evidence` (2026-W10) is built once through the model runner; each test reads
the warehouse, and the last ones render the week's report in both languages.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import duckdb
import pytest

from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from tests.unit.test_facts_support import (
    build_models,
    english_in_risk_reasons,
    pr,
    query,
    rows_by_number,
)

REPO = "acme/evidence"
WEEK = date(2026, 3, 2)
A, M = "ADDED", "MODIFIED"

# verl's template, hard-wrapped as GitHub's editor leaves it
UNCHECKED_BOX = (
    "- [ ] Add unit or end-to-end test(s) to [the CI\n"
    "workflow](https://github.com/acme/evidence/tree/main/.github/workflows)\n"
    "to cover all the code. If not feasible, explain why: ..."
)
BOX_TEXT = "Add unit or end-to-end test(s) to the CI workflow to cover all the code."
TEMPLATE = (
    "### What does this PR do?\n\n> Add **concise** overview of what this PR aims to achieve or\n"
    "accomplish. Say whether it runs on NPU.\n\n"
    "- If this PR breaks any API (CLI arguments, config, function signature,\n"
    "etc.), add `[BREAKING]` to the beginning of the title.\n\n"
    "### Checklist Before Submitting\n\n- [x] Read the guide.\n"
)
RESULTS = (
    "### Results\n\n| Config | GPUs | Result |\n|---|---|---|\n| Baseline | 16 | 6.5 h |\n"
    "| **Dynamic** | 16 | **5.4 h**,\nreduce **~15.3%** wall-clock time |\n\n"
    "| model | delta | nccl |\nspeedup |\n|---|---|---|---|\n| 7B | 3.9 s | 5.5 s | ~1.3× |\n\n"
    "The new path is 2x faster than before. Tested on 8x H100 with memory util 0.75.\n\n"
    "Latency: bootstrap 95% CI.\n"
)


def at(hour: int) -> str:
    return f"2026-03-0{2 + hour // 24}T{hour % 24:02d}:00:00Z"


def nodes() -> list[dict]:
    code = [("pkg/engine/step.py", 5, M)]
    return [
        # the test plan the author declared, beside the paths
        pr(1, "[engine] fix: guard buffer reuse", at(1), code, body=TEMPLATE + UNCHECKED_BOX),
        pr(2, "[engine] feat: adaptive throttle", at(2), [("pkg/engine/throttle.py", 120, A)],
           body="Adds a throttle.\n\n- [x] Add unit or end-to-end test(s) to the CI workflow"),
        pr(3, "[doc] fix: typo in guide", at(3), [("docs/guide.md", 4, M)],
           body=UNCHECKED_BOX),
        pr(4, "[engine] fix: off by one", at(4),
           [*code, ("tests/engine/test_step.py", 9, M)], body=UNCHECKED_BOX),
        pr(5, "[engine] fix: retry on timeout", at(5), code,
           body="Retries.\n\n### Test\n\nNo tests were added: the timeout is hard to reproduce."),
        pr(6, "[engine] fix: handle empty batch", at(6), code, body="### Testing\n\nN/A\n"),
        # generated files are never hotspots; a 3-line change is not a core change
        *(
            pr(n, f"[engine] refactor: loop step {n}", at(n), [
                ("pkg/engine/loop.py", 15, M), ("pkg/engine/_generated_ops.py", 40, M),
                ("Cargo.lock", 20, M), ("web/__snapshots__/page.snap", 8, M),
                ("tests/engine/test_loop.py", 5, M)])
            for n in (7, 8, 9, 10)
        ),
        pr(11, "[engine] refactor: rename loop variable", at(11),
           [("pkg/engine/loop.py", 3, M), ("tests/engine/test_loop.py", 1, M)]),
        # dependencies: a manifest edit alone is not one, a bump is
        pr(12, "[build] chore: enable simd feature", at(12), [("crates/core/Cargo.toml", 2, M)]),
        pr(13, "Bump numpy to 2.1", at(13), [("pyproject.toml", 2, M)]),
        # hardware, as whole words, never for docs and examples alone, never from template text
        pr(14, "[doc] docs: update Ascend guide", at(14), [("docs/ascend.md", 30, M)]),
        pr(15, "[engine] fix: alarm on farm64 hosts", at(15), code),
        pr(16, "[engine] fix: skip offload", at(16), [("pkg/engine/offload.py", 6, M)],
           body=TEMPLATE + "\nSkip the offload on Ascend NPU 910B, where saving crashes.\n"),
        pr(17, "[ops] feat: fused kernels", at(17),
           [("pkg/ops/npu_kernels.py", 40, A), ("tests/ops/test_kernels.py", 9, A)]),
        pr(18, "[examples] feat: add run script for NPU", at(18), [("examples/run_npu.sh", 9, A)]),
        pr(27, "[engine] fix: tidy imports", at(27), code,
           body="<!-- Tested on NPU? -->\n> Say whether it runs on Ascend\n\nTidy imports."),
        # measured impact: a table row (hard-wrapped), a table's speed-up column, `2x faster`;
        # not `8x H100`, not `95% CI`
        pr(19, "[perf] perf: overlap weight sync", at(19),
           [("pkg/sync/overlap.py", 200, M), ("tests/sync/test_overlap.py", 20, M)],
           body=RESULTS),
        # consequence outranks size
        pr(20, "[sglang] fix: prevent NCCL buffer race", at(20), [("pkg/sglang/utils.py", 4, M)]),
        pr(21, "[model] fix: support new attention", at(21),
           [("pkg/model/attention.py", 600, M), ("tests/model/test_attention.py", 40, M)]),
        pr(22, "[engine] feat: crash reporter", at(22),
           [("pkg/engine/report.py", 50, A), ("tests/engine/test_report.py", 9, A)]),
        pr(23, "[parser] fix: quoted fields", at(23), [("pkg/parser/csv.py", 8, M)],
           body="Handles quotes. Adds a regression test for the parser. No crashes seen."),
        # breaking notes, not the template's instruction or a denial
        pr(24, "[api] refactor: rename client", at(24), [("pkg/api/client.py", 20, M)],
           body="This is a breaking change: Client.connect is now Client.open."),
        pr(25, "[api] refactor: tidy client", at(25), [("pkg/api/client.py", 12, M)],
           body=TEMPLATE + "\nNo breaking changes."),
        pr(26, "[api] fix: close sockets", at(26), [("pkg/api/socket.py", 12, M)],
           body="Fixes #1200, closes acme/other#7 and resolves "
           "https://github.com/acme/evidence/issues/900."),
        # the other reason forms, for the report's languages
        pr(28, "[engine] fix: threads left open", at(28), code, reviews=["COMMENTED"],
           threads=[True, False]),
        pr(29, "[data] feat: giant loader", at(29),
           [(f"pkg/data/part{i:02d}.py", 20, A) for i in range(60)]),
        pr(30, 'Revert "[engine] feat: adaptive throttle"', at(30),
           [("pkg/engine/throttle.py", 120, M)]),
        pr(31, "[engine] fix: follow-up to the offload skip", at(31), code, body="Follows #16."),
        pr(32, "[BREAKING][api] refactor: drop v1", at(32), [("pkg/api/v1.py", 30, M)]),
        # breaking is key whatever the chore dampener says; a control row alone is no claim;
        # a squash body of only co-authors says nothing
        pr(33, "[BREAKING][engine] chore: make the new backend default", at(33),
           [("pkg/engine/config.py", 6, M)], body="Make the new backend the default backend."),
        pr(34, "[engine] perf: defer sync", at(34), code,
           body="| M | speedup |\n|---|---|\n| 1 | 1.003x |\n"),
        pr(35, "[engine] fix: close the pool", at(35), code,
           body="Co-authored-by: a <a@example.com>\nCo-authored-by: b <b@example.com>\n"),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The week built once through the model runner; tests only read it."""
    home = tmp_path_factory.mktemp("evidence")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        return build_models(home, {REPO: nodes()})


def risks(home: Path) -> dict[tuple[int, str], tuple[str, str, dict]]:
    return {
        (number, flag): (reason, key, json.loads(evidence))
        for number, flag, reason, key, evidence in query(
            home,
            "select number, risk_flag, reason, reason_key, evidence from marts.fct_weekly_risks",
        )
    }


def test_the_declared_test_plan_decides_missing_tests(home: Path) -> None:
    found = risks(home)
    described = rows_by_number(
        home,
        "test_box_state, test_box_text, test_section, no_test_sentence",
        "intermediate.int_pull_request_descriptions",
    )
    assert described[1] == ("unchecked", BOX_TEXT, "absent", None)
    assert found[(1, "missing_tests")] == (
        f'the author left "{BOX_TEXT}" unchecked',
        "box_unchecked",
        {"box": BOX_TEXT, "type": "fix"},
    )  # a five-line fix, below missing_tests_min_lines
    assert described[2][0] == "checked" and (2, "missing_tests") not in found  # 120 lines
    assert (3, "missing_tests") not in found  # documentation only
    assert (4, "missing_tests") not in found  # a test changed
    sentence = "No tests were added: the timeout is hard to reproduce."
    assert described[5][2:] == ("written", sentence)
    assert found[(5, "missing_tests")][1:] == (
        "no_test_said",
        {"sentence": sentence, "type": "fix"},
    )
    assert described[6][2:] == ("written", "N/A")
    assert found[(6, "missing_tests")][1] == "no_test_said"
    assert (18, "missing_tests") not in found  # an example script is not code tests cover


def test_generated_files_are_never_hotspots_and_small_core_changes_do_not_count(
    home: Path,
) -> None:
    generated = dict(
        query(home, "select path, is_generated from intermediate.int_pull_request_files")
    )
    assert generated["pkg/engine/_generated_ops.py"] and generated["Cargo.lock"]
    assert generated["web/__snapshots__/page.snap"] and not generated["pkg/engine/loop.py"]
    hotspots = {p for (p,) in query(home, "select path from intermediate.int_hotspots")}
    assert "pkg/engine/loop.py" in hotspots and not hotspots & set(generated) - {
        p for p, is_generated in generated.items() if not is_generated
    }
    found = risks(home)
    assert found[(7, "core_path")][0] == (
        "changes pkg/engine/loop.py (changed by 5 PRs in 12 weeks)"
    )
    assert found[(7, "core_path")][2]["lines"] == 15
    assert (11, "core_path") not in found  # 3 lines < core_path_min_lines


def test_dependency_changes_need_a_lock_requirements_or_a_bump(home: Path) -> None:
    found = risks(home)
    assert found[(7, "dependency_change")][2] == {
        "files": ["Cargo.lock"],
        "more": 0,
        "package": None,
    }
    assert (12, "dependency_change") not in found  # a manifest edit alone
    assert found[(13, "dependency_change")][0] == 'changes pyproject.toml (the title names "numpy")'


def test_hardware_needs_code_or_words_for_it_and_never_docs_alone(home: Path) -> None:
    found = risks(home)
    hardware = {n: v for (n, f), v in found.items() if f == "hardware_specific"}
    assert sorted(hardware) == [16, 17]  # not 14 (docs), 15 (farm64), 18 (example), 27 (quote)
    assert hardware[16][1:] == (
        "description",
        {
            "word": "ascend",
            "sentence": "Skip the offload on Ascend NPU 910B, where saving crashes.",
        },
    )
    assert hardware[17][1:] == ("path", {"word": "npu", "path": "pkg/ops/npu_kernels.py"})


def test_measured_impact_claims_keep_figure_metric_and_sentence(home: Path) -> None:
    ((claims, head, impact),) = query(
        home,
        "select impact_claims, headline_claim, importance_impact from marts.fct_pull_requests "
        "where number = 19",
    )
    # the headline (the largest effect) first; table rows read with their header and key cells
    assert [(c["figure"], c["unit"], c["metric"], c["value"]) for c in claims] == [
        ("2x", "x", "speed-up", 2.0),
        ("~1.3×", "x", "speed-up", 1.3),
        ("~15.3%", "%", "wall-clock", -15.3),
    ]
    assert head == claims[0] and head["sentence"] == "The new path is 2x faster than before."
    assert (
        claims[1]["condition"] == "model=7B"
        and claims[1]["header"] == "model | delta | nccl | speedup"
    )
    assert (
        claims[2]["sentence"]
        == "Config=Dynamic, GPUs=16: Result 5.4 h, reduce ~15.3% wall-clock time"
    )
    assert claims[2]["direction"] == "lower"
    assert impact == 1.0


def test_a_control_row_alone_is_no_claim_and_co_authors_say_nothing(home: Path) -> None:
    facts = rows_by_number(home, "impact_claims, headline_claim, importance_impact, summary")
    assert facts[34][:3] == ([], None, 0.0)
    assert facts[35][3] is None


def test_a_breaking_change_is_key_whatever_its_type(home: Path) -> None:
    facts = rows_by_number(
        home, "is_key, key_reason, importance, importance_breaking, importance_dampener, caveats"
    )
    key, reason, importance, breaking, dampener, caveats = facts[33]
    assert key and reason == "breaking" and importance < 4.8
    assert breaking == 2.0 and dampener > -importance  # the breaking points are not dampened
    assert [c["kind"] for c in caveats] == ["breaking", "default"]


def test_a_fix_of_a_serious_consequence_outranks_a_large_plain_fix(home: Path) -> None:
    facts = rows_by_number(
        home, "importance, importance_severity, severity_word, is_breaking, risk_flags"
    )
    assert facts[20][1:3] == (3.5, "race") and facts[20][0] > facts[21][0]
    assert facts[16][1:3] == (3.5, "crashes")  # from the description
    assert facts[22][1:3] == (0.0, "crash")  # a feature: the word is kept, no points
    assert facts[23][1:3] == (0.0, None)  # "regression test", "No crashes"
    assert facts[24][3] and not facts[25][3] and facts[32][3]
    found = risks(home)
    assert found[(24, "breaking_change")][1:] == (
        "description",
        {"note": "This is a breaking change: Client.connect is now Client.open."},
    )
    assert found[(32, "breaking_change")][1] == "title_tag"


def test_closing_keywords_link_issues(home: Path) -> None:
    ((linked,),) = query(
        home,
        "select linked_issues from intermediate.int_pull_request_descriptions where number = 26",
    )
    assert linked == ["#1200", "acme/other#7", "acme/evidence#900"]


@pytest.fixture(scope="module")
def report(home: Path) -> dict[str, str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return render_week(load_week(conn, REPO, WEEK))


def test_every_risk_reason_of_the_chinese_report_is_chinese(report: dict[str, str]) -> None:
    zh = report[f"{WEEK}.zh.md"]
    section = zh.split("### 风险标记明细")[1].split("### 指标计算方式")[0]
    reasons = [line for line in section.splitlines() if line.startswith("- [#")]
    assert len(reasons) >= 12 and english_in_risk_reasons(zh) == []
    for expected in (
        f"作者未勾选“{BOX_TEXT}”",
        "作者写明“N/A”",
        "改动了 `pkg/engine/loop.py`（近 12 周内被 5 个 PR 改动过）",
        "合并时 2 个评审讨论中仍有 1 个未解决",
        "合并前的 1 次评审中没有批准",
        "描述中提到“ascend”：“Skip the offload on Ascend NPU 910B, where saving crashes.”",
        "回滚了 #2",
        "被 #30 回滚",
        "被 #31（1 天内）跟进修复",
        "标题带有“[BREAKING]”标记",
        "60 个文件，共 1200 行改动",
    ):
        assert expected in section, expected


def test_key_changes_quote_impact_claims_with_the_figure_in_bold(report: dict[str, str]) -> None:
    en = report[f"{WEEK}.en.md"]
    quotes = en.split("### What the key PRs' descriptions say")[1].split("\n### ")[0]
    entry = quotes.split("/pull/19): ")[1].split("\n")[0]
    assert (
        "**Measured impact**: “The new path is **2x** faster than before.”; "
        "“model=7B: delta 3.9 s, nccl 5.5 s, speedup **\\~1.3×**”; "
        "“Config=Dynamic, GPUs=16: Result 5.4 h, reduce **\\~15.3%** wall-clock time”"
    ) in entry
    assert "measured impact 2x (+1.0)" in en.split("## Appendix")[1]
    zh_html = report[f"{WEEK}.zh.html"]
    assert "<strong>实测效果</strong>" in zh_html and "<strong>~15.3%</strong>" in zh_html
    method = en.split("### How the figures are computed")[1]
    for factor in ("size", "breadth", "type", "severity", "impact", "breaking", "dampener"):
        assert f"| `{factor}` |" in method
    assert "fixes “race” (+3.5)" in method  # each PR's factors
