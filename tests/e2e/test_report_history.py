"""The two-minute read over every week of both shared histories (verl and polars), as written
by their builds: each body within its length rule, each Chinese body Chinese (Latin letters
under 15% of its letters once URLs, code spans and PR titles are left out) and in the term
list's words, no Markdown escape shown on GitHub or in the HTML; and no weekly boilerplate over
four verl weeks.

The length rule, by the week's size: the body (everything before the appendix, link targets
not counted) of a week with no merged PR is at most 800 characters in Chinese and 1,000 in
English; with 1 to 4 PRs 2,500 and 3,500; with 5 to 19, 4,000 and 6,000; with 20 or more,
5,000 and 8,000. The body's lists are capped (seven stories, five risks, five actions, ten key
PRs), so a busier week does not make it longer than that.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from markupsafe import escape

from orchestration.config import repo_slug
from orchestration.report.text import short_title
from orchestration.report.translator import md_inline
from tests.conftest import SHARED
from tests.markdown_check import shown_text
from tests.unit.test_report_terms import misspelt

REPOS = {"verl": "verl-project/verl", "polars": "pola-rs/polars"}
LATIN_LIMIT = 15.0
TOOLS = SHARED / "tools"
BOILERPLATE_WEEKS = ["2026-05-04", "2026-06-15", "2026-07-13", "2026-07-20"]  # W19 W25 W29 W30


# (fewest merged PRs of the band, Chinese limit, English limit), smallest band first
LENGTH_RULE = ((0, 800, 1_000), (1, 2_500, 3_500), (5, 4_000, 6_000), (20, 5_000, 8_000))


def length_limit(lang: str, merged: int) -> int:
    _, zh, en = [band for band in LENGTH_RULE if merged >= band[0]][-1]
    return zh if lang == "zh" else en


def body_of(markdown: str) -> str:
    """The body as the issue measures it: before the appendix, link targets left out."""
    body = re.split(r"^## .*(附录|Appendix)", markdown, maxsplit=1, flags=re.M)[0]
    return re.sub(r"\]\([^)]*\)", "]", body)


def latin_share(body: str, titles: list[str]) -> float:
    """Latin letters among letters, URLs, code spans and the week's PR titles (as written or as
    the report escapes them) left out."""
    for title in sorted(titles, key=len, reverse=True):
        for form in {title, md_inline(title)}:
            body = body.replace(form, " ")
    plain = re.sub(r"https?://\S+|(?<!\\)`[^`]*(?<!\\)`", " ", body)
    latin = len(re.findall(r"[A-Za-z]", plain))
    cjk = len(re.findall(r"[\u4e00-\u9fff]", plain))
    return 100 * latin / max(1, latin + cjk)


def _weeks(home: Path, repo: str) -> dict[str, tuple[int, int, list[str]]]:
    """Per week: merged PRs, key PRs and the titles of its PRs."""
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "select s.week_start::varchar, s.merged_prs, s.key_prs, list(p.title) filter "
            "(where p.title is not null) from marts.fct_weekly_summary s left join "
            "marts.fct_pull_requests p using (repo, week_start) where s.repo = ? group by all",
            [repo],
        ).fetchall()
    return {week: (merged, key, titles or []) for week, merged, key, titles in rows}


def problems_of(home: Path, repo: str) -> dict[str, list]:
    """What breaks the two-minute read in any week of `repo` built in `home`."""
    folder = home / "reports" / repo_slug(repo)
    problems: dict[str, list] = {"length": [], "latin": [], "terms": [], "escapes": []}
    for week, (merged, _, titles) in sorted(_weeks(home, repo).items()):
        for lang in ("zh", "en"):
            markdown = (folder / f"{week}.{lang}.md").read_text(encoding="utf-8")
            body = body_of(markdown)
            if len(body) > length_limit(lang, merged):
                problems["length"].append((week, lang, len(body), length_limit(lang, merged)))
            if lang == "zh" and (share := latin_share(body, titles)) >= LATIN_LIMIT:
                problems["latin"].append((week, round(share, 1)))
            if lang == "zh" and (words := misspelt(markdown, "zh")):
                problems["terms"].append((week, words))
            # the Markdown as GitHub shows it: no escape left as a character (but in titles)
            shown = "".join(shown_text(markdown))
            for title in titles:
                shown = shown.replace(title, "").replace(short_title(title), "")
            if found := re.findall(r".{20}\\[*|_].{10}", shown):
                problems["escapes"].append((week, lang, "md", found[:2]))
            html = (folder / f"{week}.{lang}.html").read_text(encoding="utf-8")
            # code and titles show what their authors wrote (a title may hold a backslash)
            text = re.sub(r"<code>.*?</code>", "", html.replace("<wbr>", ""))
            for title in titles:
                for form in (title, short_title(title)):
                    text = text.replace(str(escape(form)), "")
            if found := re.findall(r".{20}\\[*|_].{10}", text):
                problems["escapes"].append((week, lang, "html", found[:2]))
    return problems


@pytest.mark.parametrize("name", list(REPOS))
def test_every_week_reads_in_two_minutes_in_its_language(
    request: pytest.FixtureRequest, name: str
) -> None:
    home = request.getfixturevalue(f"{name}_history_home")
    assert len(_weeks(home, REPOS[name])) == {"verl": 95, "polars": 308}[name]
    assert problems_of(home, REPOS[name]) == {"length": [], "latin": [], "terms": [], "escapes": []}


def _tool(name: str, *args: Path | str) -> str:
    if not (TOOLS / name).exists():
        pytest.skip(f"the shared measuring tools are not beside the clone ({name})")
    run = subprocess.run(
        [sys.executable, str(TOOLS / name), *map(str, args)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_sentence_of_four_verl_weeks_is_boilerplate(verl_history_home: Path, lang: str) -> None:
    """No body sentence in all of W19, W25, W29 and W30; no action in two of them, PR numbers
    and figures left out (the issue's own tool)."""
    folder = verl_history_home / "reports" / "verl-project__verl"
    files = [folder / f"{week}.{lang}.md" for week in BOILERPLATE_WEEKS]
    out = _tool("repeated_sentences.py", *files)
    assert out.splitlines()[0] == "0 0", out


def test_verl_week_30_measured_as_the_issue_measures_it(verl_history_home: Path) -> None:
    folder = verl_history_home / "reports" / "verl-project__verl"
    dataset = SHARED / "datasets" / "verl-project__verl" / "pull_requests.jsonl.gz"
    zh_chars, zh_latin = _tool("report_measure.py", folder / "2026-07-20.zh.md", dataset,
                               "2026-07-20").split()  # fmt: skip
    en = _tool("report_measure.py", folder / "2026-07-20.en.md", dataset, "2026-07-20")
    assert int(zh_chars) <= 5_000 and float(zh_latin) < LATIN_LIMIT
    assert int(en.split()[0]) <= 8_000
    zh = body_of((folder / "2026-07-20.zh.md").read_text(encoding="utf-8"))
    assert "**\\~15.3%**" in zh  # #6556's figure
    stories = re.findall(r"^### \d\. (.*)$", zh, re.M)  # the stories, told as stories
    assert "`Qwen3.5` 相关的 2 个 PR" in stories and "`Ascend` 相关的 5 个 PR" in stories
    seventy = re.split(r"### \d\. \[#7095\]", zh)[1].split("###")[0]  # figure at M=8, trade-off
    assert "**1.679x**（`FSDP=1, Accumulation=8`）" in seventy
    assert "注意：可能增加峰值内存；默认关闭。" in seventy
    actions = zh.split("## 后续建议")[1].split("## ")[0]
    items = re.findall(r"^\d+\. (.*)$", actions, re.M)
    assert 1 <= len(items) <= 5
    for item in items:  # each on a PR of the week, with a concrete fact of it
        assert re.search(r"\[#\d+\]", item) and re.search(r"`[^`]+`|\d", item), item


def test_the_escape_check_sees_what_github_shows() -> None:
    """An escape GitHub resolves is no problem; one left as a character (inside a code span
    it is code, not shown as text) is seen, in prose and in a table cell."""
    markdown = "a \\_b\\_ `c\\_d` [e\\*](https://x)\n\n| h |\n|---|\n| f\\|g \\\\_ |\n"
    shown = "".join(shown_text(markdown))
    assert shown == "a _b_  hf|g \\_"  # the header cell `h` too
