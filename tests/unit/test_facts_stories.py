"""Stories, releases and key PRs of crafted weeks, built once through the model runner.

- `acme/stories`: a week of filler history, then weeks holding a release, a revert and its
  re-land, a series by title tag and one by `[i/N]` marker, a file removed, restored and
  guarded, PRs that name each other and PRs sharing a name (one of them also in a series);
- `acme/quiet`: weeks of small docs PRs that never reach the usual key threshold, and a
  breaking one;
- `acme/busy`: a week of many important PRs and a small breaking change;
- `acme/plain`: release titles of other conventions;
- `acme/trends`: areas that come back, start, rise from little and fade to almost nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_facts_support import build_models, pr, query

STORIES, QUIET, BUSY, PLAIN, TRENDS, THEME = (
    "acme/stories",
    "acme/quiet",
    "acme/busy",
    "acme/plain",
    "acme/trends",
    "acme/theme",
)
# release titles of other conventions: (title, version when it is a release)
RELEASES = [
    ("🔖 Release version 0.141.1", "0.141.1"),
    ("Python Plain 1.43.2", "1.43.2"),
    ("Rust release 0.55.x", "0.55.x"),
    ("chore(release): 2.1.0", "2.1.0"),
    ("Bump version to 0.12.5", "0.12.5"),
    ("Release 2.0.0rc1", None),
    ("[misc] chore: bump version to 0.10.0.dev", None),
    ("chore: bump Go to v1.25", None),
    ("chore(deps): bump typescript to 5.6", None),
    ("Bump plain-utils to 1.2", None),
    # a release tag or a version tag, whatever else the title says; `bump version to X`
    ("[release] feat: first release version on pypi v0.1.1", "v0.1.1"),
    ("[python 0.6.7] undo performance regression on large no. of threads", "0.6.7"),
    ("Bump version to 0.7.0 and write changelog", "0.7.0"),
    ("Add release notes and bump version for 0.8.0", "0.8.0"),
    ('Revert "Bump version to 0.2.14 (#4431)"', None),
    ("Bump cargo-dist version to 0.28.0", None),  # a dependency's version
    ("[release] chore: bump version to 0.5.0.dev", None),
    # ... only when the files bump a version (a manifest, a version file, a changelog)
    ("[release] ci: fix the publish workflow for 1.2.0", None),
    ("[2.1] fix: the cache on Windows", None),
]
# the files of the titles above that change no version
NO_VERSION_FILES = {
    "[release] ci: fix the publish workflow for 1.2.0": [
        (".github/workflows/publish.yml", 4, "MODIFIED")
    ],
    "[2.1] fix: the cache on Windows": [("plain/cache.py", 4, "MODIFIED")],
}
M = "MODIFIED"


def at(day: str, hour: int) -> str:
    return f"2026-03-{day}T{hour:02d}:00:00Z"


def deleting(node: dict, lines: int) -> dict:
    """The node's first file loses `lines` lines and gains none."""
    file = node["files"]["nodes"][0]
    file["additions"], file["deletions"] = 0, lines
    node["additions"], node["deletions"] = 0, lines
    return node


def stories_nodes() -> list[dict]:
    def p(number: int, title: str, when: str, files=None, **kw) -> dict:
        files = files or [(f"crafted/misc/m{number}.py", 12, M)]
        return pr(number, title, when, files, repo=STORIES, **kw)

    patch = "crafted/patches/npu_patch.py"
    nodes = [
        # week 1 (2026-03-02): history; Megatron is in a third of it
        *(
            p(
                n,
                f"[engine] fix: tweak {'Megatron ' if n % 3 == 0 else ''}step {n}",
                at("03", n % 20),
            )
            for n in range(101, 131)
        ),
        # week 2 (2026-03-09)
        *(
            p(20 + n, f"[Widget refactor] Move the {part} out of the base class", at("09", n))
            for n, part in ((1, "knob"), (2, "dial"), (3, "lever"))
        ),
        p(24, "Add Qwen9.5 support to the loader", at("09", 10)),
        p(25, "Fix Qwen9.5 rotary embedding", at("09", 11)),
        p(26, "[Widget refactor] Support Qwen9.5 widgets", at("09", 12)),
        p(27, "[engine] fix: compute world size", at("10", 9)),
        p(28, 'Revert "[engine] fix: compute world size"', at("10", 10), body="Reverts #27"),
        p(29, "[engine] fix: correctly compute world size", at("11", 9), body="Lands #27 again."),
        deleting(p(30, "[ci] chore: remove npu patch", at("11", 10), [(patch, 120, M)]), 120),
        p(31, "[engine] fix: restore npu patch", at("12", 9), [(patch, 8, M)]),
        p(32, "Release: v1.9", at("13", 9), [("VERSION", 1, M)]),
        p(33, "⬆️ Bump dev version", at("13", 10), [("VERSION", 1, M)]),
        p(34, "Bump numpy to 2.1", at("13", 11), [("requirements.txt", 1, M)]),
        p(35, "Refactor CLI [1/N]: extract the parser", at("13", 12)),
        p(36, "Refactor CLI [2/N]: move the commands", at("13", 13)),
        p(37, "Fix Megatron loader", at("13", 14)),
        p(38, "Speed up Megatron save", at("13", 15)),
        # week 3 (2026-03-16)
        p(40, "[engine] fix: guard npu patch", at("16", 9), [(patch, 10, M)]),
        p(41, "[Widget refactor] Drop the old base", at("16", 10)),
        p(44, "[Widget refactor] Rename the widget hooks", at("16", 11)),
        p(42, "[sim] feat: sharded export", at("17", 9), [("crafted/sim/export.py", 30, M)]),
        p(43, "[sim] feat: sharded import", at("17", 10), body="Builds on #42."),
        p(45, "[ci] fix: update Ascend nightly", at("18", 9), [(".github/workflows/a.yml", 3, M)]),
        p(46, "[doc] fix: repair the Ascend links", at("18", 10), [("docs/ascend.md", 3, M)]),
        p(
            47,
            "[ci] chore: move the Ascend image",
            at("18", 11),
            [(".github/workflows/b.yml", 2, M)],
        ),
        # the NPU is the Ascend platform, however written; a language and its version
        p(
            48,
            "[ci] fix: trigger npu ci on the release branch",
            at("18", 12),
            [(".github/c.yml", 2, M)],
        ),
        p(49, "ci: Start testing on Go 1.17, drop 1.15", at("23", 9), [(".github/d.yml", 4, M)]),
        p(50, "chore: Update quic-go for go 1.17 support", at("23", 10), [("go.mod", 2, M)]),
        # a topic of a few words before a colon is a series tag
        p(51, "New defaults: log every 10 steps", at("24", 9)),
        p(52, "New defaults: a warm-up ratio of 0.1", at("24", 10)),
    ]
    return nodes


def quiet_nodes() -> list[dict]:
    nodes = []
    for week, day in enumerate(("02", "09", "16")):
        for i in range(6):
            number = 10 * week + i + 1
            nodes.append(
                pr(
                    number,
                    f"Update guide {number}",
                    at(day, i + 1),
                    [(f"docs/guide{number}.md", 5 + 10 * i, M)],
                    repo=QUIET,
                )
            )
    nodes.append(
        pr(
            99,
            "[BREAKING] docs: drop the v1 guide",
            at("10", 12),
            [("docs/v1.md", 3, M)],
            repo=QUIET,
        )
    )
    return nodes


def busy_nodes() -> list[dict]:
    nodes = [
        pr(
            n,
            f"[engine, sim] feat: add gadget {n}",
            at("03", n),
            [
                (f"crafted/engine/gadget{n}.py", 200, "ADDED"),
                (f"crafted/sim/gadget{n}.py", 60, M),
                (f"tests/test_gadget{n}.py", 40, "ADDED"),
            ],
            repo=BUSY,
        )
        for n in range(1, 13)
    ]
    nodes.append(
        pr(
            13,
            "[BREAKING][engine] refactor: rename the gadget api",
            at("04", 9),
            [("crafted/engine/api.py", 2, M)],
            repo=BUSY,
        )
    )
    return nodes


def trends_nodes() -> list[dict]:
    """Eight weeks from 2026-03-02; a `base` PR each week. lidar: W1 and W7 (and a PR that
    touches sonar too); sonar: W1 only; tide: 1 in W1, 2 in W4; radar: from W5."""
    weeks = ["03-02", "03-09", "03-16", "03-23", "03-30", "04-06", "04-13", "04-20"]
    plan = {1: ["lidar", "sonar", "tide"], 4: ["tide", "tide"], 5: ["radar"], 7: ["lidar"]}
    nodes, number = [], 0
    for w, day in enumerate(weeks, start=1):
        for i, area in enumerate(["base", *plan.get(w, [])]):
            number += 1
            files, tags = [(f"crafted/{area}/f{number}.py", 10, M)], area
            if area == "lidar" and w == 7:
                files, tags = [*files, (f"crafted/sonar/f{number}.py", 4, M)], "lidar, sonar"
            nodes.append(
                pr(
                    number,
                    f"[{tags}] fix: step {number}",
                    f"2026-{day}T{i + 8:02d}:00:00Z",
                    files,
                    repo=TRENDS,
                )
            )
    return nodes


def theme_nodes() -> list[dict]:
    """A week of filler, then three small PRs that name `Ascend`, three that share the word
    `total`, written as a name (`TOTAL`) in one title only, and the week's key PR."""
    titles = [
        "[ci] fix: update Ascend nightly",
        "[doc] fix: repair the Ascend links",
        "[docker] chore: move the Ascend image",
        "fix(sql): return NULL from the TOTAL aggregate",
        "fix: total order of floats in sort",
        "fix: use total comparison of literals",
    ]
    nodes = [
        pr(
            n,
            f"[engine] fix: tweak step {n}",
            at("03", n % 20),
            [(f"src/e{n}.py", 4, M)],
            repo=THEME,
        )
        for n in range(101, 121)
    ]
    nodes += [
        pr(n, title, at("10", n), [(f"src/t{n}.py", 2, M)], repo=THEME)
        for n, title in enumerate(titles, start=1)
    ]
    files = [(f"src/engine/s{i}.py", 80, M) for i in range(8)]  # the week's key PR
    nodes.append(pr(7, "[engine] feat: a new scheduler", at("11", 9), files, repo=THEME))
    return nodes


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    plain = [
        pr(n, title, at("04", n), NO_VERSION_FILES.get(title, [("VERSION", 1, M)]), repo=PLAIN)
        for n, (title, _) in enumerate(RELEASES, start=1)
    ]
    nodes = {
        STORIES: stories_nodes(),
        QUIET: quiet_nodes(),
        BUSY: busy_nodes(),
        PLAIN: plain,
        TRENDS: trends_nodes(),
        THEME: theme_nodes(),
    }
    return build_models(tmp_path_factory.mktemp("stories"), nodes)


def stories(home: Path, week: str) -> dict[str, tuple]:
    rows = query(
        home,
        "select story_id, kind, title_en, title_zh, numbers, earlier_numbers, lead_number, "
        "evidence from marts.fct_weekly_stories where repo = ? and week_start = ?",
        [STORIES, week],
    )
    return {r[0]: r[1:] for r in rows}


def test_related_prs_of_a_week_are_one_story_each(built: Path) -> None:
    week = stories(built, "2026-03-09")
    assert set(week) == {
        "release:v1.9",
        "revert_reland:27",
        "series:widget refactor",
        "series:refactor cli",
        "file_churn:crafted/patches/npu_patch.py",
        "shared_name:qwen9.5",
    }
    assert week["release:v1.9"][:4] == ("release", "Release v1.9", "发布 v1.9", [32, 33])
    assert week["release:v1.9"][5] == 32  # led by the release, not the dev-version bump
    assert week["revert_reland:27"][:4] == (
        "revert_reland",
        "#27 reverted (#28) and re-landed (#29)",
        "#27 被回退（#28）后重新合并（#29）",
        [27, 28, 29],
    )
    # a PR that carries the series tag and the shared name is in the series alone
    assert week["series:widget refactor"][1:4] == (
        "The Widget refactor series (4 PRs this week)",
        "Widget refactor 系列（本周 4 个 PR）",
        [21, 22, 23, 26],
    )
    assert week["shared_name:qwen9.5"][1:4] == (
        "Qwen9.5: 2 PRs",
        "Qwen9.5 相关的 2 个 PR",
        [24, 25],
    )
    assert week["series:refactor cli"][1] == "The Refactor CLI series (2 PRs this week)"
    assert week["file_churn:crafted/patches/npu_patch.py"][1:4] == (
        "npu_patch.py removed and restored",
        "npu_patch.py 被删除后又恢复",
        [30, 31],
    )
    # Megatron is in a third of the history: sharing it makes no story; nor does filler
    assert stories(built, "2026-03-02") == {}


def test_a_story_goes_on_with_the_prs_of_the_week_before(built: Path) -> None:
    week = stories(built, "2026-03-16")
    assert set(week) == {
        "file_churn:crafted/patches/npu_patch.py",
        "series:widget refactor",
        "series:#42",
        "shared_name:ascend",
    }
    churn = week["file_churn:crafted/patches/npu_patch.py"]
    assert churn[1] == "npu_patch.py removed and restored, then changed again"
    assert churn[3:6] == ([30, 31, 40], [30, 31], 40)
    assert week["series:widget refactor"][3:5] == ([21, 22, 23, 26, 41, 44], [21, 22, 23, 26])
    assert week["series:#42"][1:4] == ("#42 and 1 linked PR", "#42 及 1 个相关 PR", [42, 43])
    assert week["shared_name:ascend"][1:4] == (
        "Ascend: 4 PRs",
        "Ascend 相关的 4 个 PR",
        [45, 46, 47, 48],
    )
    week4 = stories(built, "2026-03-23")
    assert week4["shared_name:go 1.17"][1:4] == (
        "Go 1.17: 2 PRs",
        "Go 1.17 相关的 2 个 PR",
        [49, 50],
    )
    assert week4["series:new defaults"][3] == [51, 52]


def test_a_pr_is_in_one_story_of_its_week_and_stories_weigh_their_prs(built: Path) -> None:
    ((shared, worst),) = query(
        built,
        "select count(*) - count(distinct (week_start, n)), "
        "count(*) filter (where importance < 0 or importance > 10) "
        "from marts.fct_weekly_stories, unnest(numbers) as u(n)",
    )
    assert shared == 0 and worst == 0


def test_release_prs_are_facts_of_their_week(built: Path) -> None:
    releases = dict(
        query(
            built,
            "select number, (is_release, release_version) from marts.fct_pull_requests "
            "where repo = ? and number in (32, 33, 34)",
            [STORIES],
        )
    )
    assert releases == {32: (True, "v1.9"), 33: (False, None), 34: (False, None)}
    ((listed,),) = query(
        built,
        "select releases from marts.fct_weekly_summary "
        "where repo = ? and week_start = '2026-03-09'",
        [STORIES],
    )
    assert listed == [{"number": 32, "version": "v1.9", "title": "Release: v1.9"}]
    versions = query(
        built,
        "select title, release_version from marts.fct_pull_requests where repo = ? order by number",
        [PLAIN],
    )
    assert versions == RELEASES


def test_every_week_of_five_prs_has_a_key_pr_and_breaking_changes_always_are(built: Path) -> None:
    weeks = query(
        built,
        "select week_start, key_prs, key_threshold, key_threshold_rule "
        "from marts.fct_weekly_summary where repo = ? order by week_start",
        [QUIET],
    )
    # the docs PRs never reach the usual threshold: each week's most important one is key; in
    # the second week the breaking one, whose points the docs dampener leaves whole (2.4)
    assert [(k, t, rule) for _, k, t, rule in weeks] == [
        (1, 0.8, "week_top"),
        (1, 2.0, "floor"),
        (1, 0.8, "week_top"),
    ]
    keys = query(
        built,
        "select number, key_reason from marts.fct_pull_requests where repo = ? and is_key "
        "order by number",
        [QUIET],
    )
    assert keys == [(6, "importance"), (26, "importance"), (99, "breaking")]


def test_a_busy_week_keeps_a_short_list_and_its_breaking_change(built: Path) -> None:
    ((key, threshold, rule, important),) = query(
        built,
        "select s.key_prs, s.key_threshold, s.key_threshold_rule, "
        "count(*) filter (where p.importance >= s.key_threshold) "
        "from marts.fct_weekly_summary s join marts.fct_pull_requests p using (repo, week_start) "
        "where repo = ? group by all",
        [BUSY],
    )
    assert (threshold, rule) == (4.8, "ceiling") and important == 12
    assert key == 11  # the 10 most important, and the breaking change whatever its importance
    ((reason,),) = query(
        built,
        "select key_reason from marts.fct_pull_requests where repo = ? and number = 13",
        [BUSY],
    )
    assert reason == "breaking"


def test_trend_words_say_what_the_weeks_show(built: Path) -> None:
    rows = {
        (area, str(week)): rest
        for area, week, *rest in query(
            built,
            "select area, week_start, pr_count, primary_pr_count, trailing_avg, trailing_weeks, "
            "trend, weeks_since_last from marts.fct_weekly_area_trends where repo = ?",
            [TRENDS],
        )
    }
    # back after six weeks, not "new": it had a PR in the first week
    assert rows[("lidar", "2026-04-13")] == [1, 1, 0.0, 4, "back", 6]
    assert rows[("radar", "2026-03-30")][4] == "new"  # its first PR in the whole history
    # the average covers the weeks that exist: one before the second week
    assert rows[("sonar", "2026-03-09")][2:5] == [1.0, 1, "falling"]
    # 0 PRs against 0.25 is no fall; 2 against 0.33 (6x) is a rise
    assert rows[("sonar", "2026-03-30")][2:5] == [0.25, 4, "steady"]
    assert rows[("tide", "2026-03-23")][2:5] == [0.33, 3, "rising"]
    # a PR counts in each area it touches, and in its primary area's primary count only
    assert rows[("sonar", "2026-04-13")][:2] == [1, 0]
    summary = dict(
        query(
            built,
            "select week_start::varchar, (trailing_weeks, volume_trend) "
            "from marts.fct_weekly_summary where repo = ?",
            [TRENDS],
        )
    )
    assert summary["2026-03-02"] == (0, "new") and summary["2026-03-09"] == (1, "falling")
    assert summary["2026-03-30"] == (4, "steady")


def test_type_counts_add_up_and_the_theme_counts_its_own_prs(built: Path) -> None:
    rows = query(
        built,
        "select merged_prs, type_counts, theme_topics, theme_pr_count "
        "from marts.fct_weekly_summary where repo = ? and week_start = '2026-03-09'",
        [STORIES],
    )
    ((merged, types, topics, theme_prs),) = rows
    assert sum(t["pr_count"] for t in types) == merged == 18
    assert [t["pr_count"] for t in types] == sorted((t["pr_count"] for t in types), reverse=True)
    ((serving,),) = query(
        built,
        "select count(*) from marts.fct_pull_requests "
        "where repo = ? and week_start = '2026-03-09' and list_has_any(topics, ?)",
        [STORIES, topics],
    )
    assert theme_prs == serving > 0


def test_a_story_that_matters_is_key_and_worth_at_least_its_lead(built: Path) -> None:
    rows = query(
        built,
        "select s.story_id, s.is_key, s.key_reason, s.importance, max(p.importance), "
        "bool_or(p.is_key) from marts.fct_weekly_stories s, unnest(s.numbers) as u(n) "
        "join marts.fct_pull_requests p on p.repo = s.repo and p.number = u.n "
        "and p.week_start = s.week_start where s.repo = ? "
        "group by all order by all",
        [STORIES],
    )
    for story_id, is_key, reason, importance, lead, holds_key in rows:
        assert importance >= lead, story_id  # never worth less than its lead alone
        assert is_key == (reason is not None)
        assert (reason == "key_pr") == (holds_key and reason != "release"), story_id
    reasons = {r[0]: r[2] for r in rows}
    assert reasons["release:v1.9"] == "release"
    # three small CI and docs PRs on one platform: the week's theme, though none is key
    assert reasons["shared_name:ascend"] == "size"
    assert not any(r[5] for r in rows if r[0] == "shared_name:ascend")
    themes = query(
        built,
        "select story_id, len(numbers), is_key, key_reason from marts.fct_weekly_stories "
        "where repo = ? order by story_id",
        [THEME],
    )
    # `total` in two titles and `TOTAL` in one: a word they share, no theme of the week
    assert themes == [
        ("shared_name:ascend", 3, True, "size"),
        ("shared_name:total", 3, False, None),
    ]
