"""The escaping layer per target: Markdown (GitHub, email text), HTML, XML feeds, Slack.

Each test feeds the text that escaped a target before (a backtick in a path, a mention, U+FFFF,
a right-to-left override) through the code that writes that target, and reads the result as
the target does: Markdown rendered by a CommonMark renderer, feeds parsed as XML, Slack's text
as Slack reads it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from markdown_check import BROADCAST, render_markdown

from orchestration.delivery.edition import Edition
from orchestration.delivery.slack import message
from orchestration.escaping import md_code, md_text, slack_text, xml_text
from orchestration.escaping.markup import xml_forbidden
from orchestration.site.data import SiteRepo, SiteWeek
from orchestration.site.feeds import atom_feed
from tests.unit.test_report_render import REPO, WEEK, build_warehouse, history, pr_row
from tests.unit.test_report_render import render as render_files

EVIL_PATH = "x`<img src=x onerror=alert(1)>[x](javascript:alert(1)) @acme/everyone`.py"
MENTIONS = "fix: ping @octocat and @acme/everyone, mail a@example.com, see https://evil.example"
NONCHARACTER = "feat: speed up \uffff the \ufffe loop \U0001ffff"
BIDI = "fix: \u202eexe.txt\u202c <!channel> @here <@U024BE7LH> &"

TRICKY = [
    EVIL_PATH,
    "a`b",
    "``double``",
    "`leading",
    "trailing`",
    "```",
    "a | b | c",
    "back\\slash\\|pipe",
    " spaced ",
    "<!-- x --> &amp; &#64;",
]


@pytest.mark.parametrize("text", TRICKY)
def test_a_code_span_holds_any_text_exactly(text: str) -> None:
    inline = render_markdown(f"path {md_code(text)} end\n")
    assert inline.code_text == [text.strip()] and [t for t, _ in inline.tags] == ["p", "code"]
    cell = render_markdown(f"| a | b |\n|---|---|\n| {md_code(text, cell=True)} | z |\n")
    assert cell.code_text == [text.strip()]
    assert [t for t, _ in cell.tags].count("td") == 2  # the pipe did not split the cell


@pytest.mark.parametrize(
    "text",
    [*TRICKY, MENTIONS, "1. first", "# heading", "- item", "---", "===", "> quote", "$x^2$",
     "![img](https://x/y.png)", "<https://evil.example>", "~~gone~~", "www.evil.example"],
)  # fmt: skip
def test_markdown_text_is_text_and_pings_no_one(text: str) -> None:
    for line in (f"{md_text(text)}\n", f"intro\n{md_text(text)}\n", f"- {md_text(text)}\n"):
        shown = render_markdown(line)
        assert {t for t, _ in shown.tags} <= {"p", "ul", "li"}, (text, shown.tags)
        assert shown.mentions() == [] and shown.autolinks() == [], text
        assert (
            "".join(shown.live_text)
            .strip()
            .replace("\u200d", "")
            .endswith(" ".join(text.split())[-3:])
        )


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One week whose title, author and risk evidence carry each text that escaped before."""
    root = tmp_path_factory.mktemp("escaping")
    prs = [
        pr_row(1, WEEK, title=MENTIONS, author="octocat", body="Thanks @team!", importance=8),
        pr_row(2, WEEK, title=NONCHARACTER, body="Faster by 40% \uffff.", importance=7),
        pr_row(3, WEEK, title=BIDI, body=None, importance=6, author="@everyone"),
    ]
    evidence = {"path": EVIL_PATH, "prefix": "x", "more": 0}
    risks = [("core_path", 1, f"changes {EVIL_PATH}", WEEK, "configured", evidence)]
    return render_files(build_warehouse(root / "w.duckdb", {**history(), WEEK: prs}, risks))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_markdown_report_has_only_prweeklys_elements_and_no_live_mention(
    hostile_files: dict[str, str], lang: str
) -> None:
    shown = render_markdown(hostile_files[f"{WEEK}.{lang}.md"])
    assert EVIL_PATH in shown.code_text  # the whole path, in one code span
    assert {t for t, _ in shown.tags} <= {
        "h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "a", "img", "table",
        "thead", "tbody", "tr", "th", "td",
    }  # fmt: skip
    assert all(h.startswith(f"https://github.com/{REPO}/pull/") for h in shown.hrefs)
    assert shown.srcs in ([], [f"{WEEK}.areas.{lang}.svg"])
    assert shown.mentions() == [] and shown.autolinks() == []
    assert "octocat" in "".join(shown.live_text)  # the words stay, only inert


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_character_xml_forbids_reaches_a_report_or_its_chart(
    hostile_files: dict[str, str], lang: str
) -> None:
    for name in (f"{WEEK}.{lang}.md", f"{WEEK}.{lang}.html", f"{WEEK}.areas.{lang}.svg"):
        assert xml_forbidden(hostile_files[name]) == [], name
        assert "\u202e" not in hostile_files[name]
    ET.fromstring(hostile_files[f"{WEEK}.areas.{lang}.svg"])


def test_a_feed_stays_xml_whatever_the_report_holds(hostile_files: dict[str, str]) -> None:
    week = SiteWeek(WEEK, 3, 3, 3, NONCHARACTER, None)
    site = SiteRepo(REPO, "acme/rocket\uffff", "acme__rocket", [week], [])
    for markdown in (hostile_files[f"{WEEK}.en.md"], f"## Summary\n\n{NONCHARACTER}\x0b\ud800\n"):
        feed = atom_feed(site, "en", {WEEK: markdown})
        root = ET.fromstring(feed)  # raised "not well-formed (invalid token)" before
        assert xml_forbidden(feed.decode()) == [] and root.tag.endswith("feed")


def test_slack_gets_no_live_mention_broadcast_or_bidi_character() -> None:
    edition = Edition(
        REPO, WEEK, "en", "", "", "id", "https://reports.example.com/x?a=1&b=<2>",
        merged_prs=3, theme="<!here> theme @channel",
        key_prs=[{"number": 3, "title": BIDI * 40, "url": "https://github.com/a/b/pull/3>|x",
                  "importance": 6.0}],
    )  # fmt: skip
    text = message(edition, correction=False)["text"]
    assert "\u202e" not in text and "\u202c" not in text
    assert not BROADCAST.search(text)
    assert "@here" not in text and "@channel" not in text  # a joiner follows each @
    assert "<https://github.com/a/b/pull/3%3E%7Cx|#3>" in text
    assert "<https://reports.example.com/x?a=1&amp;b=%3C2%3E|Read the report>" in text
    assert len(text) < 1_000  # the long title is cut


def test_each_target_keeps_plain_words_as_they_are() -> None:
    words = "feat(rollout): 40% faster on H100 — 火箭 🚀 👩‍👩‍👧 1.5×"
    assert md_text(words) == slack_text(words) == xml_text(words) == words
    assert md_text("-40% latency") == "-40% latency"


def test_the_templates_call_the_layer_for_every_code_span() -> None:
    """A template that writes its own backticks around a value bypasses md_code."""
    import re

    from orchestration.config import TEMPLATES_DIR

    for template in TEMPLATES_DIR.rglob("*.md.j2"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"`\{\{", text), template.name


def test_the_layer_sits_below_everything_that_writes() -> None:
    """Every writer may import the escaping layer; the layer imports only the unsafe
    characters' definitions (and itself), so no report, site or delivery code is below it."""
    from orchestration.config import PROJECT_DIR
    from tests.unit.test_import_layers import imports

    for path in (PROJECT_DIR / "orchestration" / "escaping").glob("*.py"):
        outside = {
            n
            for n in imports(path)
            if not n.startswith(("orchestration.escaping", "orchestration.text"))
        }
        assert outside == set(), (path.name, outside)
