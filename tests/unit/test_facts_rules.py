"""Crafted weeks with known answers for every weekly-facts rule.

One dataset of `acme/crafted` over six ISO weeks (2026-W10 to W15, the last one empty) is built
once through the real pipeline; each test reads the marts it pins.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.unit.test_facts_support import (
    UNKNOWN,
    build,
    pr,
    query,
    rows_by_number,
    write_dataset,
)

W1, W2, W3, W4, W5, W6 = (date(2026, 3, 2) + timedelta(weeks=i) for i in range(6))
A = "ADDED"
M = "MODIFIED"
D = "DELETED"


def crafted_nodes() -> list[dict]:
    core = ("crafted/engine/core.py", 12, M)
    nodes = [
        # week 1: title conventions; crafted/engine/core.py becomes a hotspot (4 PRs)
        pr(
            1,
            "[engine, sim] feat: add thrust model",
            "2026-03-02T10:00:00Z",
            [
                ("crafted/engine/thrust.py", 200, A),
                ("crafted/sim/hook.py", 20, M),
                ("tests/engine/test_thrust.py", 80, A),
            ],
            author="bob",
        ),
        pr(
            2,
            "[BREAKING][engine] refactor: rename burn api",
            "2026-03-02T11:00:00Z",
            [("crafted/engine/core.py", 60, M)],
        ),
        pr(
            3,
            "feat(api)!: drop legacy endpoints",
            "2026-03-03T10:00:00Z",
            [("crafted/api/routes.py", 40, M), core, ("tests/api/test_routes.py", 10, M)],
        ),
        pr(4, "fix(io): handle empty frames", "2026-03-03T11:00:00Z", [core]),
        pr(
            5,
            "[Bugfix] guard against nan",
            "2026-03-04T10:00:00Z",
            [("crafted/sim/guard.py", 40, M)],
            reviews=["COMMENTED"],
        ),
        pr(
            6,
            "[Perf] faster integrator",
            "2026-03-04T11:00:00Z",
            [("crafted/engine/core.py", 100, M), ("tests/engine/test_core.py", 20, M)],
        ),
        pr(7, "[Doc] explain thrust model", "2026-03-05T10:00:00Z", [("docs/thrust.md", 30, M)]),
        pr(8, "[CI] cache wheels", "2026-03-05T11:00:00Z", [(".github/workflows/ci.yml", 9, M)]),
        pr(9, "[Misc] tidy imports", "2026-03-06T10:00:00Z", [("crafted/util/imports.py", 8, M)]),
        pr(10, "Update contributor guide", "2026-03-06T11:00:00Z", [("CONTRIBUTING.md", 14, M)]),
        # week 2: path fallbacks, labels, revert, dependency, hardware, large, threads
        pr(
            11,
            "Cover abort edge cases",
            "2026-03-09T10:00:00Z",
            [("tests/engine/test_abort.py", 120, A)],
            author="carol",
        ),
        pr(
            12,
            "Tune nightly matrix",
            "2026-03-09T11:00:00Z",
            [(".github/workflows/nightly.yml", 6, M)],
        ),
        pr(
            13,
            "Refresh quarterly numbers",
            "2026-03-10T10:00:00Z",
            [("crafted/report/numbers.py", 6, M)],
        ),
        pr(
            14,
            "[sim] feat: turbulence presets",
            "2026-03-10T11:00:00Z",
            [("crafted/sim/presets.py", 95, A)],
        ),
        pr(
            15,
            "[engine] Add retry budget",
            "2026-03-11T10:00:00Z",
            [("crafted/engine/retry.py", 10, M)],
            labels=["bug"],
        ),
        pr(
            16,
            'Revert "[sim] feat: turbulence presets"',
            "2026-03-12T10:00:00Z",
            [("crafted/sim/presets.py", 95, D)],
            body="The presets broke replay.",
        ),
        pr(
            17,
            "Bump numpy to 2.1",
            "2026-03-12T11:00:00Z",
            [("requirements.txt", 2, M), ("uv.lock", 60, M)],
        ),
        pr(
            18,
            "[npu] fix: pin device order on Ascend",
            "2026-03-13T10:00:00Z",
            [("crafted/devices/order.py", 20, M)],
        ),
        pr(
            19,
            "[engine] fix: fallback kernel",
            "2026-03-13T11:00:00Z",
            [("crafted/engine/kernels/rocm_fallback.py", 10, M)],
        ),
        pr(
            20,
            "[data] feat: giant loader",
            "2026-03-14T10:00:00Z",
            [(f"crafted/data/part{i:02d}.py", 20, A) for i in range(60)],
        ),
        pr(
            21,
            "[engine] fix: threads left open",
            "2026-03-14T11:00:00Z",
            [("crafted/engine/x.py", 5, M)],
            threads=[True, False],
        ),
        # week 3: follow-ups and a source that lacks files, labels and reviews
        pr(
            22,
            "[telemetry] feat: export metrics",
            "2026-03-16T10:00:00Z",
            [("crafted/telemetry/otel.py", 50, A), ("tests/telemetry/test_otel.py", 20, A)],
            author="dave",
        ),
        pr(
            23,
            "[telemetry] fix: close exporter",
            "2026-03-18T09:00:00Z",
            [("crafted/telemetry/otel.py", 8, M)],
            body="Follow-up to #22: the exporter leaked.",
        ),
        pr(
            24,
            "[engine] fix: late follow-up to #1",
            "2026-03-17T10:00:00Z",
            [("crafted/engine/thrust.py", 4, M)],
        ),
        pr(
            25,
            "[engine] fix: mystery change",
            "2026-03-19T10:00:00Z",
            UNKNOWN,
            labels=UNKNOWN,
            reviews=UNKNOWN,
            threads=UNKNOWN,
        ),
        pr(
            26,
            "Upgrade torch on NPU",
            "2026-03-19T11:00:00Z",
            UNKNOWN,
            labels=UNKNOWN,
            reviews=UNKNOWN,
            threads=UNKNOWN,
        ),
    ]
    # trends: radar 2, 2, 2, 2, 6 PRs (new, steady, steady, steady, rising);
    # lidar 0, 0, 2, 2, 0 (new in W3, rising, falling)
    number = 100
    for week, radar, lidar in ((W1, 2, 0), (W2, 2, 0), (W3, 2, 2), (W4, 2, 2), (W5, 6, 0)):
        for area, count in (("radar", radar), ("lidar", lidar)):
            for i in range(count):
                number += 1
                nodes.append(
                    pr(
                        number,
                        f"[{area}] fix: tweak {number}",
                        f"{week.isoformat()}T0{i}:30:00Z",
                        [(f"crafted/{area}/r{number}.py", 5, M)],
                    )
                )
    # week 5: performance work beside the radar fixes
    for number in (201, 202):
        nodes.append(
            pr(
                number,
                f"[engine] perf: vectorise solver {number}",
                "2026-04-01T10:00:00Z",
                [
                    (f"crafted/engine/solver{number}.py", 300, M),
                    (f"tests/engine/test_solver{number}.py", 30, M),
                ],
            )
        )
    return nodes


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the six weeks once; tests only read the warehouse."""
    root = tmp_path_factory.mktemp("crafted")
    home = root / "home"
    # one PR after W15, so that the file covers W15 and it is a quiet week, not an unknown one
    later = pr(
        900, "[docs] docs: note the quiet week", "2026-04-14T10:00:00Z", [("README.md", 2, M)]
    )
    dataset = write_dataset(root / "crafted.jsonl", [*crafted_nodes(), later])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRWEEKLY_HOME", str(home))
        for name in ("PRWEEKLY_SOURCE", "GITHUB_TOKEN", "DAGSTER_HOME"):
            mp.delenv(name, raising=False)
        build("acme/crafted", "2026-W10", "2026-W15", dataset)
    return home


def test_title_conventions_labels_and_path_fallbacks(crafted: Path) -> None:
    facts = rows_by_number(
        crafted, "change_type, change_type_signal, primary_area, areas, is_breaking"
    )
    assert facts[1] == ("feat", "title_type", "engine", ["engine", "sim"], False)
    assert facts[2] == ("refactor", "title_type", "engine", ["engine"], True)  # [BREAKING]
    assert facts[3] == ("feat", "title_type", "api", ["api"], True)  # type(scope)!:
    # a conventional scope that names no code the PR changes is no area: its files place it
    assert facts[4][:3] == ("fix", "title_type", "engine")
    assert facts[5][:3] == ("fix", "title_tag", "sim")  # [Bugfix]; area from the path
    assert facts[6][:3] == ("perf", "title_tag", "engine")  # [Perf]
    assert facts[7][:3] == ("docs", "paths", "docs")  # [Doc], and docs-only paths
    assert facts[8][:3] == ("ci", "paths", "ci")  # [CI], and CI-only paths
    # [Misc]: no type, no area; a catch-all folder (util/) is named after what it holds
    assert facts[9][:3] == ("refactor", "title_verb", "imports")
    assert facts[10][:3] == ("docs", "paths", "docs")  # docs-only paths beat the verb
    assert facts[11][:3] == ("test", "paths", "engine")  # tests/engine/ counts for engine
    assert facts[12][:3] == ("ci", "paths", "ci")
    assert facts[13][:3] == ("feat", "paths_fallback", "report")  # only added lines; own layout
    assert facts[15][:2] == ("fix", "label")  # a `bug` label beats the title's verb
    assert facts[16][:2] == ("revert", "title_revert")
    assert facts[17][:2] == ("chore", "title_bump")  # Bump numpy to 2.1
    assert facts[25][:3] == ("fix", "title_type", "engine")  # files unknown


def test_performance_is_recognised_whatever_the_area(crafted: Path) -> None:
    perf = {n for n, (p,) in rows_by_number(crafted, "is_performance").items() if p}
    assert perf == {6, 201, 202}


def test_importance_keeps_its_factors(crafted: Path) -> None:
    facts = rows_by_number(
        crafted,
        "importance, importance_size, importance_breadth, importance_core, importance_type, "
        "importance_breaking, importance_surface, importance_review, importance_dampener, "
        "importance_severity, importance_impact",
    )
    for number, (importance, *factors) in facts.items():
        total = sum(f or 0 for f in factors)
        assert abs(importance - min(10, max(0, total))) <= 0.1, number
    assert facts[2][5] == 2.0 and facts[1][5] == 0.0  # breaking
    assert facts[1][6] == 0.8  # adds crafted/engine/thrust.py
    assert facts[2][3] == 1.0 and facts[1][3] == 0.0  # core path
    assert facts[7][8] < 0 and facts[1][8] == 0  # docs are dampened
    assert facts[25][7] is None and facts[1][7] == 0.2  # review activity only when known
    assert max(facts.values())[0] <= 10


FLAG_COLUMNS = (
    "missing_tests, core_path, unresolved_threads, no_approval, dependency_change, "
    "breaking_change, hardware_specific, large_change, revert, quick_follow_up"
)


def test_every_risk_flag_with_its_reason(crafted: Path) -> None:
    risks = {
        (number, flag): reason
        for flag, number, reason in query(
            crafted, "select risk_flag, number, reason from marts.fct_weekly_risks"
        )
    }
    assert (
        risks[(2, "missing_tests")]
        == "refactor change of 60 lines of code with no test file changed"
    )
    assert (4, "missing_tests") not in risks  # 12 lines: below missing_tests_min_lines
    assert (1, "missing_tests") not in risks  # a test changed
    assert (
        risks[(2, "core_path")] == "changes crafted/engine/core.py (changed by 4 PRs in 12 weeks)"
    )
    assert {n for n, f in risks if f == "core_path"} == {2, 3, 4, 6}
    assert risks[(21, "unresolved_threads")] == "1 of 2 review threads unresolved at merge"
    assert risks[(5, "no_approval")] == "merged with no approving review among 1 review"
    assert risks[(17, "dependency_change")] == (
        'changes requirements.txt, uv.lock (the title names "numpy")'
    )
    assert risks[(26, "dependency_change")] == 'the title says "upgrade torch"'
    assert risks[(2, "breaking_change")] == "the title is tagged [BREAKING]"
    assert risks[(3, "breaking_change")] == "the title's type carries `!`"
    assert risks[(18, "hardware_specific")] == 'the title names "npu"'
    assert risks[(19, "hardware_specific")] == (
        'changes crafted/engine/kernels/rocm_fallback.py ("rocm")'
    )
    assert risks[(20, "large_change")] == "1200 lines across 60 files"
    assert risks[(16, "revert")] == "reverts #14"
    assert risks[(14, "revert")] == "reverted by #16"
    assert risks[(22, "quick_follow_up")] == "followed up by #23 within 2 days"
    assert (1, "quick_follow_up") not in risks  # #24 names #1 after more than 7 days
    links = rows_by_number(crafted, "reverts_number, reverted_by, followed_up_by, risk_flags")
    assert links[16][0] == 14 and links[14][1] == [16]
    assert links[22][2] == [23]
    assert links[2][3] == ["breaking_change", "core_path", "missing_tests"]


def test_flags_are_null_when_the_source_lacks_their_data(crafted: Path) -> None:
    flags = rows_by_number(crafted, FLAG_COLUMNS + ", touches_tests")
    # files, labels, reviews and threads unknown; the title says nothing about hardware
    assert flags[25] == (None, None, None, None, None, False, None, False, False, False, None)
    # the title alone raises what it can
    assert flags[26][4] is True and flags[26][6] is True and flags[26][0] is None
    # known and clear: False, not NULL
    assert flags[7] == (False,) * 10 + (False,)


def test_area_trends_reach_every_state(crafted: Path) -> None:
    trends = {
        (area, week): (count, avg, trend)
        for area, week, count, avg, trend in query(
            crafted,
            "select area, week_start, pr_count, trailing_avg, trend "
            "from marts.fct_weekly_area_trends where area in ('radar', 'lidar')",
        )
    }
    assert trends[("radar", W1)] == (2, 0, "new")
    assert trends[("radar", W4)] == (2, 2.0, "steady")
    assert trends[("radar", W5)] == (6, 2.0, "rising")
    assert trends[("radar", W6)] == (0, 3.0, "falling")
    assert ("lidar", W2) not in trends  # no PRs now or in the trailing weeks
    assert trends[("lidar", W3)] == (2, 0, "new")
    assert trends[("lidar", W4)] == (2, 0.67, "rising")  # 3x and more than one PR above
    assert trends[("lidar", W5)] == (0, 1.0, "falling")


def test_weekly_summary_volume_authors_and_theme(crafted: Path) -> None:
    weeks = {
        row[0]: row[1:]
        for row in query(
            crafted,
            "select week_start, merged_prs, trailing_avg_prs, volume_trend, first_time_authors, "
            "theme, theme_zh, is_perf_theme from marts.fct_weekly_summary",
        )
    }
    assert [weeks[w][0] for w in (W1, W2, W3, W4, W5, W6)] == [12, 13, 9, 4, 8, 0]
    assert weeks[W1][1:3] == (None, "new")
    assert weeks[W2][1:3] == (12.0, "steady")
    assert weeks[W4][1:3] == (11.33, "falling")
    assert weeks[W6][1:3] == (8.5, "falling")
    assert [weeks[w][3] for w in (W1, W2, W3, W4)] == [2, 1, 1, 0]  # alice+bob, carol, dave
    assert weeks[W5][4:] == ("performance and stability", "性能优化与稳定性", True)
    assert weeks[W2][4:] == ("stability and features", "稳定性与功能建设", False)
    assert weeks[W6][4] is None  # nothing merged
