"""Reports rendered from crafted warehouses: empty, one PR, hostile text, 300 PRs."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from orchestration.config import SQL_DIR
from orchestration.report.queries import load_week
from orchestration.report.render import render_week
from orchestration.report.text import pr_summary
from orchestration.report.write import write_week
from tests.unit.test_facts_support import FLAGS

REPO = "acme/rocket"
WEEK = date(2026, 7, 20)
HOSTILE_TITLE = "[core] fix: <script>alert(1)</script> a|b\nnext `tick` \x07bell 🚀 **bold** [x](y)"
BIG_BODY = (
    "## What does this PR do?\n\nStops the <b>engine</b> | from stalling.\n\n" + "x" * 1_000_000
)

KEY_THRESHOLD = 5.0
SCHEMA = f"""
create schema marts;
create table marts.dim_importance_weights (factor varchar, weight double, description varchar);
create table marts.dim_risk_flags as
    select * from read_csv('{SQL_DIR / "seeds" / "risk_flags.csv"}', header = true);
create table marts.fct_pull_requests (
    repo varchar, number integer, week_start date, merged_at timestamp, title varchar,
    url varchar, author varchar, change_type varchar, change_type_signal varchar,
    primary_area varchar, areas varchar[], is_breaking boolean, additions integer,
    deletions integer, changed_files integer, touches_tests boolean, importance double,
    importance_size double, importance_breadth double, importance_type double,
    importance_breaking double, risk_flags varchar[], summary varchar, is_key boolean);
create table marts.fct_weekly_summary (
    repo varchar, week_start date, iso_year integer, iso_week integer, merged_prs integer,
    key_prs integer, authors integer, first_time_authors integer, additions integer,
    deletions integer, theme varchar, theme_zh varchar, key_threshold double,
    trailing_weeks integer, trailing_avg_prs double, volume_trend varchar);
create table marts.fct_weekly_area_trends (
    repo varchar, week_start date, area varchar, pr_count integer, importance_sum double,
    trailing_avg double, trailing_importance_avg double, trend varchar);
create table marts.fct_weekly_risks (
    repo varchar, week_start date, risk_flag varchar, number integer, reason varchar,
    reason_key varchar, evidence json);
insert into marts.dim_importance_weights values
    ('size', 1.3, ''), ('size_cap', 4.0, ''), ('area_breadth', 0.6, ''),
    ('file_breadth', 0.1, ''), ('breaking', 2.0, ''), ('type_feat', 2.0, ''),
    ('type_fix', 1.5, ''), ('type_docs', 0.2, ''), ('key_threshold', {KEY_THRESHOLD}, '');
"""
TRAILING_WEEKS = 4


def pr_row(number: int, week: date, **over) -> dict:
    row = {
        "repo": REPO,
        "number": number,
        "week_start": week,
        "merged_at": datetime.combine(week, datetime.min.time()) + timedelta(hours=number % 100),
        "title": f"[engine] feat: change number {number}",
        "url": f"https://github.com/{REPO}/pull/{number}",
        "author": f"dev{number % 7}",
        "change_type": "feat",
        "change_type_signal": "title_type",
        "primary_area": "engine",
        "areas": ["engine"],
        "is_breaking": False,
        "additions": 120,
        "deletions": 30,
        "changed_files": 4,
        "touches_tests": True,
        "importance": 6.0,
        "importance_size": 2.8,
        "importance_breadth": 0.4,
        "importance_type": 2.0,
        "importance_breaking": 0.0,
        "risk_flags": [],
        "body": f"Adds change {number} to the engine.",
    }
    row.update(over)
    return row


def build_warehouse(
    path: Path, weeks: dict[date, list[dict]], risks: list[tuple] = (), trailing: float = 2.0
) -> Path:
    """A warehouse with the marts' columns, filled from PR rows; summaries (the PR's by the
    marts' own function), trailing averages and trends derived."""
    conn = duckdb.connect(str(path))
    conn.execute(SCHEMA)
    for week, prs in sorted(weeks.items()):
        for pr in prs:
            pr["summary"] = pr_summary(pr.pop("body"), None)
            pr["is_key"] = pr["importance"] >= KEY_THRESHOLD
            conn.execute(
                f"insert into marts.fct_pull_requests ({', '.join(pr)}) "
                f"values ({', '.join('?' for _ in pr)})",
                list(pr.values()),
            )
        year, iso_week, _ = week.isocalendar()
        before = [
            len(weeks[w]) for w in weeks if week - timedelta(weeks=TRAILING_WEEKS) <= w < week
        ]
        trailing_avg = sum(before) / len(before) if before else None
        conn.execute(
            "insert into marts.fct_weekly_summary "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                REPO,
                week,
                year,
                iso_week,
                len(prs),
                sum(1 for p in prs if p["is_key"]),
                len({p["author"] for p in prs}),
                1 if prs else 0,
                sum(p["additions"] for p in prs),
                sum(p["deletions"] for p in prs),
                "new capabilities" if prs else None,
                "新功能建设" if prs else None,
                KEY_THRESHOLD,
                TRAILING_WEEKS,
                trailing_avg,
                "unknown" if trailing_avg is None else "steady",
            ],
        )
        areas: dict[str, list[dict]] = {}
        for pr in prs:
            for area in pr["areas"]:
                areas.setdefault(area, []).append(pr)
        for area, members in areas.items():
            conn.execute(
                "insert into marts.fct_weekly_area_trends values (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    REPO,
                    week,
                    area,
                    len(members),
                    round(sum(p["importance"] for p in members), 1),
                    trailing,
                    trailing * 5,
                    "rising" if len(members) > trailing else "steady",
                ],
            )
    for flag, number, reason, week, *key_and_evidence in risks:
        key, evidence = key_and_evidence or (None, None)
        conn.execute(
            "insert into marts.fct_weekly_risks values (?, ?, ?, ?, ?, ?, ?)",
            [REPO, week, flag, number, reason, key, json.dumps(evidence) if evidence else None],
        )
    conn.close()
    return path


def render(path: Path, week: date = WEEK) -> dict[str, str]:
    with duckdb.connect(str(path), read_only=True) as conn:
        return render_week(load_week(conn, REPO, week))


def history(n: int = 4) -> dict[date, list[dict]]:
    """A few earlier weeks so the chart and the trailing average have something to show."""
    return {
        WEEK - timedelta(weeks=k): [pr_row(10 * k + i, WEEK - timedelta(weeks=k)) for i in range(2)]
        for k in range(1, n + 1)
    }


def test_an_empty_week_is_a_short_report_not_an_error(tmp_path: Path) -> None:
    files = render(build_warehouse(tmp_path / "w.duckdb", {**history(), WEEK: []}))
    assert sorted(files) == [
        f"{WEEK}.{lang}.{fmt}" for lang in ("en", "zh") for fmt in ("html", "md")
    ]
    en, zh = files[f"{WEEK}.en.md"], files[f"{WEEK}.zh.md"]
    assert "Nothing merged in acme/rocket during Week 30 of 2026 (July 20–26, 2026)." in en
    assert "The previous 4 weeks averaged 2.0 merged PRs a week." in en
    assert "本周（2026 年 7 月 20 日至 26 日）没有合并任何 PR。" in zh
    assert "此前 4 周平均每周合并 2.0 个。" in zh
    for text in files.values():
        assert "Key stories" not in text and "重点故事" not in text
        assert "areas.svg" not in text
    for name in (f"{WEEK}.en.md", f"{WEEK}.zh.md"):  # the appendix holds the method only
        appendix = re.split(r"^## .*(?:Appendix|附录)", files[name], flags=re.M)[1]
        assert appendix.count("\n### ") == 1 and "| [#" not in appendix
    assert "没有合并任何 PR" in files[f"{WEEK}.zh.html"]
    assert len(en) < 3000


def test_a_week_reads_only_the_pr_columns_a_report_uses(tmp_path: Path) -> None:
    """The PR rows hold the columns the report reads and every importance factor, in the
    table's order; the columns other models read (when merged, whether tests changed) are
    left in the warehouse, and one a warehouse lacks is simply absent."""
    path = build_warehouse(tmp_path / "w.duckdb", {**history(1), WEEK: [pr_row(7, WEEK)]})
    with duckdb.connect(str(path), read_only=True) as conn:
        facts = load_week(conn, REPO, WEEK)
    (pr,) = facts.prs
    assert list(pr)[:14] == [
        *("number", "title", "url", "author", "change_type", "primary_area", "areas"),
        *("is_breaking", "additions", "deletions", "changed_files", "importance"),
        *("importance_size", "importance_breadth"),
    ]
    assert "merged_at" not in pr and "touches_tests" not in pr and "repo" not in pr
    assert pr["factors"] == {"size": 2.8, "breadth": 0.4, "type": 2.0, "breaking": 0.0}
    assert [week for week, _, _ in facts.history] == [WEEK - timedelta(weeks=1), WEEK]
    assert facts.summary["merged_prs"] == 1 and facts.summary["theme"] == "new capabilities"


def test_one_pr_week_has_every_section_in_both_languages(tmp_path: Path) -> None:
    pr = pr_row(
        7,
        WEEK,
        additions=1500,
        deletions=20,
        changed_files=3,
        importance=7.5,
        touches_tests=False,
        risk_flags=["large_change", "missing_tests"],
        body="### What does this PR do?\n\n> Add a concise overview.\n\n- [x] Search PRs\n\n"
        "Adds an adaptive throttle\ncontroller to the engine.\n\nCloses #3.",
    )
    risks = [
        ("large_change", 7, "1520 lines across 3 files", WEEK, "size", {"lines": 1520, "files": 3}),
        (
            *("missing_tests", 7, "feat change of 1500 lines of code with no test file changed"),
            *(WEEK, "no_test_file", {"type": "feat", "lines": 1500}),
        ),
    ]
    files = render(build_warehouse(tmp_path / "w.duckdb", {**history(), WEEK: [pr]}, risks))
    assert f"{WEEK}.areas.en.svg" in files and f"{WEEK}.areas.zh.svg" in files
    en, zh = files[f"{WEEK}.en.md"], files[f"{WEEK}.zh.md"]
    link = f"[#7](https://github.com/{REPO}/pull/7)"
    headings = re.findall(r"^## (.*)$", en, re.M)
    assert headings[:6] == [
        "What happened", "Key stories", "Risks", "What to do", "Key PRs",
        "Appendix: every PR, scores and method",
    ]  # fmt: skip
    assert re.findall(r"^## (.*)$", zh, re.M)[:6] == [
        "本周概要", "重点故事", "风险", "后续建议", "重点 PR 一览", "附录：全部 PR、计分与方法",
    ]  # fmt: skip
    body_en, appendix_en = en.split("## Appendix", 1)
    body_zh, appendix_zh = zh.split("## 附录", 1)
    assert (
        "1 pull request merged this week, by 1 author, a first-time contributor, 50% fewer "
        "than the previous 4 weeks' average of 2.0; it is a key PR." in body_en
    )
    assert f"The main open risk is {link}: 1,500 lines of code with no test file changed." in en
    assert f"### 1. {link} \\[engine\\] feat: change number 7\n\n" in body_en
    assert "Feature in `engine`, +1,500 −20 lines in 3 files. Adds an adaptive throttle" in en
    assert f"1. {link} (feature in `engine`): 1,500 lines of code with no test file changed; " in en
    assert (
        "1. Add tests for the 3 files (+1,500 −20 lines) changed without one: "
        f"{link} “\\[engine\\] feat: change number 7”." in en
    )
    assert f"![Bar chart of merged PRs per area]({WEEK}.areas.en.svg)" in body_en
    assert f"![各模块合并 PR 数柱状图]({WEEK}.areas.zh.svg)" in body_zh
    assert f"| {link} | \\[engine\\] feat: change number 7 | `engine` / feature | 7.5 |" in en
    assert (
        "本周合并 1 个 PR，来自 1 位作者（首次贡献），比此前 4 周的平均（每周 2.0 个）少 50%；"
        in zh
    )
    assert "`engine` 模块的新功能，+1500 −20 行、3 个文件。" in body_zh
    assert "Adds an adaptive throttle" not in body_zh  # the description's English: the appendix
    assert "**描述原文**：“Adds an adaptive throttle controller to the engine.”" in appendix_zh
    assert (
        "1. 补上测试（+1500 −20 行、3 个文件，没有一个是测试文件）："
        f"{link} “\\[engine\\] feat: change number 7”。" in body_zh
    )
    # the appendix keeps the scoring factors, the full reasons and the glossary
    assert "Importance 7.5/10" not in body_en
    assert f"{link} 7.5: size: 1,520 changed lines (+2.8)" in appendix_en
    assert "feature work of 1,500 lines of code with no test file changed" in appendix_en
    assert "**Code change without tests** (`missing_tests`)" in appendix_en
    html = files[f"{WEEK}.en.html"]
    assert '<a href="https://github.com/acme/rocket/pull/7">#7</a>' in html
    assert "<svg" in html and "<table" in html
    assert '<details id="appendix">' in html
    assert html.index('<details id="appendix">') > html.index('id="key-prs"')
    assert not re.search(r"<(link|script)\b|src=|@import|url\(", html)


def test_hostile_titles_and_bodies_are_text_everywhere(tmp_path: Path) -> None:
    prs = [
        pr_row(1, WEEK, title=HOSTILE_TITLE, body=BIG_BODY, importance=8.0, areas=["a|b"]),
        pr_row(
            2,
            WEEK,
            title="docs: `x` | <img src=x onerror=alert(2)>",
            author="<b>mallory</b>",
            primary_area="<svg>",
            areas=["<svg>"],
            url="javascript:alert(3)",
            body="\x00\x1b[31m" + "<!-- hidden -->\n\n```\ncode\n```\n",
            importance=1.0,
        ),
    ]
    risks = [("large_change", 1, "<script>x</script> | reason", WEEK)]
    path = build_warehouse(tmp_path / "w.duckdb", {**history(), WEEK: prs}, risks)
    files = render(path)
    for name in (f"{WEEK}.en.html", f"{WEEK}.zh.html"):
        html = files[name]
        assert "<script>" not in html and "<img" not in html and "<b>mallory" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "javascript:" not in html
        assert "\x07" not in html and "\x1b" not in html and "\x00" not in html
        assert "🚀" in html
        assert html.count("<svg") == 1  # only the chart; the area named <svg> is text
    for name in (f"{WEEK}.en.md", f"{WEEK}.zh.md"):
        md = files[name]
        assert not re.search(r"(?<!\\)<(script|img|svg|b>)", md)  # every < is escaped
        assert "\\<script\\>alert(1)\\</script\\>" in md
        assert "\x07" not in md
        # every table row keeps its column count: pipes escaped, no line breaks in cells
        for line in md.splitlines():
            if line.startswith("| [#1]"):
                assert len(re.findall(r"(?<!\\)\|", line)) in (6, 9)
        assert "Stops the engine \\| from stalling." in md
        assert len(md) < 50_000  # the 1 MB body does not leak into the report
    svg = files[f"{WEEK}.areas.en.svg"]
    assert "<svg>" not in svg.replace("<svg xmlns", "") and "&lt;svg&gt;" in svg


def test_three_hundred_prs_stay_readable(tmp_path: Path) -> None:
    areas = [f"area{i:02d}" for i in range(20)]
    prs = []
    risks = []
    for n in range(1, 301):
        flags = [FLAGS[n % 10]] if n % 3 == 0 else (["mystery_flag"] if n % 50 == 1 else [])
        prs.append(
            pr_row(
                1000 + n,
                WEEK,
                title=f"[{areas[n % 20]}] fix: item {n}",
                primary_area=areas[n % 20],
                areas=[areas[n % 20]],
                importance=round(10 - (n % 97) / 10, 1),
                change_type=["feat", "fix", "docs"][n % 3],
                risk_flags=flags,
            )
        )
        risks += [(flag, 1000 + n, f"reason {n}", WEEK) for flag in flags]
    files = render(build_warehouse(tmp_path / "w.duckdb", {**history(), WEEK: prs}, risks))
    en, zh = files[f"{WEEK}.en.md"], files[f"{WEEK}.zh.md"]
    body, appendix = en.split("## Appendix", 1)
    stories = body.split("## Key stories")[1].split("## Risks")[0]
    assert stories.count("\n### ") == 5
    risks_md = body.split("## Risks")[1].split("## What to do")[0]
    assert len(re.findall(r"^\d+\. ", risks_md, re.M)) == 5
    actions = body.split("## What to do")[1].split("## Key PRs")[0]
    assert 1 <= len(re.findall(r"^\d+\. ", actions, re.M)) <= 5
    glance = body.split("## Key PRs")[1]
    assert glance.count("\n| [#") == 10
    assert "more key PRs are in the appendix." in glance
    assert len(body) < 8_000
    assert appendix.count("\n| [#") == 300
    assert zh.split("## 附录")[1].count("\n| [#") == 300
    assert "All 300 pull requests, by importance." in appendix
    flags = appendix.split("### Risk flags in full")[1].split("### How the figures")[0]
    assert "104 PRs carry at least one risk flag, in 11 classes." in flags
    assert flags.count("\n- [#") == 104  # every flagged PR, the unknown flag's too
    assert "reason 301" not in flags and "reason 150" in flags
    html = files[f"{WEEK}.en.html"]
    folded = html.split('<details id="appendix">')[1]
    assert folded.count('<tr><td class="pr"><a href=') == 300


def test_same_warehouse_gives_byte_identical_files(tmp_path: Path) -> None:
    prs = [pr_row(n, WEEK, importance=float(n)) for n in range(1, 9)]
    path = build_warehouse(tmp_path / "w.duckdb", {**history(), WEEK: prs})
    reports = tmp_path / "reports"
    with duckdb.connect(str(path), read_only=True) as conn:
        first = {
            n: p.read_bytes() for n, (p, _, _) in write_week(conn, reports, REPO, WEEK).items()
        }
        second = {
            n: p.read_bytes() for n, (p, _, _) in write_week(conn, reports, REPO, WEEK).items()
        }
    assert first == second
    assert len(first) == 6
    for data in first.values():
        assert b"2026-" in data or b"2026 " in data
        assert not re.search(rb"\d{2}:\d{2}:\d{2}", data)  # no wall-clock time anywhere


@pytest.mark.parametrize(
    ("start", "en", "zh"),
    [
        (date(2026, 6, 29), "June 29 – July 5, 2026", "2026 年 6 月 29 日至 7 月 5 日"),
        (
            date(2025, 12, 29),
            "December 29, 2025 – January 4, 2026",
            "2025 年 12 月 29 日至 2026 年 1 月 4 日",
        ),
    ],
)
def test_date_ranges_read_naturally(start: date, en: str, zh: str) -> None:
    from orchestration.report.render import Translator

    end = start + timedelta(days=6)
    assert Translator("en", "md").date_range(start, end) == en
    assert Translator("zh", "md").date_range(start, end) == zh
