"""Fuzz: 1,000 generated hostile PRs through one build and its deliveries, read as each target.

Titles, bodies, file paths, logins and labels are drawn (from a fixed seed) from the markup of
every target (Markdown, HTML, XML, Slack mrkdwn), mentions and broadcasts, URLs, controls,
bidi and format characters, noncharacters, lone surrogates and invalid UTF-8, and code points
of every Unicode plane. One build of two weeks writes the reports and delivers them to Slack,
email and GitHub (all on loopback). Then:

- every Markdown report and GitHub post renders with a CommonMark renderer to HTML whose every
  element and link comes from prweekly's template (PR links, the chart, the site), with no
  text GitHub would make a mention or a link;
- every feed and chart parses as XML, and no report holds a character XML forbids;
- every Slack message carries no live mention or broadcast (GitHub posts: no mention, above),
  and no post is over GitHub's limit.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from delivery_receivers import SlackReceiver, SmtpReceiver
from markdown_check import BROADCAST, MENTION, render_markdown

from orchestration.delivery import send
from orchestration.delivery.limits import GITHUB_BODY_CHARS
from orchestration.escaping.markup import xml_forbidden
from orchestration.retry import Backoff
from orchestration.service.cli import main
from orchestration.testing.github_emulator import Emulator

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
REPO, SITE = "acme/fuzz", "https://reports.example.com"
WEEKS = (datetime(2026, 7, 13, tzinfo=UTC), datetime(2026, 7, 20, tzinfo=UTC))
PRS = 1_000
MARKUP = [
    # Markdown and GitHub's extensions
    "**bold**", "_em_", "`code`", "``", "```", "~~~", "| a | b |", "|", "\\", "# h", "1. ", "- ",
    "---", "===", "> q", "[x](javascript:alert(1))", "![i](https://evil.example/i.png)",
    "[ref]: https://evil.example", "<https://evil.example>", "$x^2$", "~~s~~", "[^1]", ":smile:",
    # HTML
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<a href=\"https://e.x\">a</a>",
    "<!-- c -->", "&amp;", "&#64;", "&lt;b&gt;", "<b>", "</td></tr>", "<svg onload=alert(1)>",
    # XML
    "]]>", "<?xml version='1.0'?>", "<![CDATA[x]]>", "&nbsp;", "&", "\"'",
    # Slack mrkdwn
    "<!channel>", "<!here>", "<!everyone>", "<@U024BE7LH>", "<!subteam^S0>",
    "<https://evil.example|click>", "*b*", "_i_", "~s~", ">quote",
    # mentions, addresses, bare links
    "@octocat", "@acme/everyone", "@here", "@channel", "a@b.co", "https://evil.example/x",
    "www.evil.example", "ftp://x.y",
    # what must not reach a reader: controls, bidi, format, noncharacters, surrogates
    "\x00", "\x07", "\x1b[31m", "\x1b]0;t\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\u061c",
    "\u200b", "\ufeff", "\U000e0041", "\ufffe", "\uffff", "\U0001fffe", "\ufdd0", "\ud800",
    "\udfff", "\r\n", "\t", "\v", "\f",
    # text that must stay
    "火箭", "👩\u200d👩\u200d👧", "می\u200cخواهم", "Ünïcødé", "1.5×", "-40%", "#12",
]  # fmt: skip


def hostile(rng: random.Random, words: int = 4) -> str:
    """Fragments of MARKUP, ordinary words and code points of every plane, joined."""
    parts = []
    for _ in range(rng.randint(1, words)):
        pick = rng.random()
        if pick < 0.55:
            parts.append(rng.choice(MARKUP))
        elif pick < 0.8:
            parts.append(rng.choice(["fix", "add", "speed", "rollout", "trainer", "the", "x"]))
        else:  # any code point, of any plane (surrogates too: written as invalid UTF-8)
            parts.append(chr(rng.randrange(0x110000)))
    return rng.choice(["", " ", ""]).join(parts)


def fuzz_nodes(seed: int = 27) -> list[dict]:
    rng = random.Random(seed)
    nodes = []
    for number in range(1, PRS + 1):
        week = WEEKS[number % 2]
        files = [
            f"src/{hostile(rng, 2)}/{hostile(rng, 2)}.py",  # under the configured core path
            f"{hostile(rng, 1)}/{rng.choice(['a', 'b', 'c'])}/mod.py",  # areas from the layout
            rng.choice(["tests/test_x.py", "docs/x.md", "pyproject.toml", "README.md"]),
        ]
        nodes.append({
            "number": number,
            "title": rng.choice(["", "[", "feat: ", "fix: ", "[core] perf: "]) + hostile(rng, 6),
            "body": "\n".join(hostile(rng, 8) for _ in range(rng.randint(0, 6))),
            "url": f"https://github.com/{REPO}/pull/{number}",
            "mergedAt": (week + timedelta(minutes=7 * number)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "author": {"login": hostile(rng, 2)},
            "additions": rng.randint(1, 4_000), "deletions": rng.randint(0, 900),
            "changedFiles": len(files),
            "files": {"totalCount": len(files),
                      "nodes": [{"path": p, "additions": rng.randint(5, 400),
                                 "deletions": rng.randint(0, 50)} for p in files]},
            "labels": {"nodes": [{"name": hostile(rng, 2)} for _ in range(rng.randint(0, 2))]},
        })  # fmt: skip
    return nodes


def write_dataset(path: Path, nodes: list[dict]) -> None:
    """JSON lines whose lone surrogates are written as the bytes a broken exporter writes."""
    text = "".join(json.dumps(n, ensure_ascii=False) + "\n" for n in nodes)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory):
    """One build of the two fuzzed weeks, delivered to Slack, email and GitHub."""
    root = tmp_path_factory.mktemp("fuzz")
    home, dataset = root / "home", root / "fuzz.jsonl"
    nodes = fuzz_nodes()
    write_dataset(dataset, nodes)
    slack, smtp = SlackReceiver("/services/T0/B0/fuzz"), SmtpReceiver("bot", "pw-fuzz-0123456")
    token = "ghp_fuzz_0123456789"
    with Emulator(nodes, token=token) as github, slack, smtp, pytest.MonkeyPatch.context() as mp:
        for name in ("PRWEEKLY_SOURCE", "DAGSTER_HOME", "PRWEEKLY_LLM_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        mp.setenv("GITHUB_TOKEN", token)
        mp.setenv("GITHUB_GRAPHQL_URL", github.url)
        mp.setenv("FUZZ_HOOK", slack.url)
        mp.setenv("FUZZ_SMTP_PASSWORD", "pw-fuzz-0123456")
        mp.setattr(send, "RETRY", Backoff(attempts=3, base=0.01, cap=0.02))
        deliver = {
            "site_url": SITE,
            "slack": {"webhook_url": "${FUZZ_HOOK}"},
            "email": {"to": ["team@example.com"], "smtp_url": f"smtp://bot@127.0.0.1:{smtp.port}",
                      "password_env": "FUZZ_SMTP_PASSWORD"},
            "github": {"discussion_category": "Announcements"},
        }  # fmt: skip
        home.mkdir()
        entry = {"name": REPO, "core_paths": ["src/"], "deliver": deliver}
        (home / "repositories.yml").write_text(yaml.safe_dump({"repositories": [entry]}))
        week, to = (f"{w.date()}" for w in WEEKS)
        args = ["build", "--repo", REPO, "--week", week, "--to", to, "--source", f"file:{dataset}"]
        assert main(args) == 0
    return home, slack.messages, smtp.messages, github.posts.items


ELEMENTS = {
    "h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "a", "img", "table",
    "thead", "tbody", "tr", "th", "td", "hr",
}  # fmt: skip
CHART = re.compile(rf"({re.escape(SITE)}/acme__fuzz/)?\d{{4}}-\d\d-\d\d\.areas\.(en|zh)\.svg")
OWN_LINK = re.compile(rf"https://github\.com/{REPO}/pull/\d+|{re.escape(SITE)}/\S+")


def assert_only_prweeklys_markup(markdown: str, name: str) -> None:
    shown = render_markdown(markdown)
    assert {t for t, _ in shown.tags} <= ELEMENTS, (name, {t for t, _ in shown.tags} - ELEMENTS)
    assert [h for h in shown.hrefs if not OWN_LINK.fullmatch(h)] == [], name
    assert [s for s in shown.srcs if not CHART.fullmatch(s)] == [], name
    links = [text for text in shown.autolinks() if not OWN_LINK.fullmatch(text.strip())]
    assert shown.mentions() == [] and links == [], (name, shown.mentions()[:3], links[:3])


def test_the_fuzz_reaches_every_kind_of_output(fuzzed) -> None:
    home, slack, mail, posts = fuzzed
    reports = home / "reports" / "acme__fuzz"
    assert len(list(reports.glob("*.md"))) == 4 and len(list(reports.glob("*.svg"))) >= 2
    assert (len(slack), len(mail)) == (2, 2)  # two weeks, in English, to Slack and email
    assert len([p for p in posts if p.kind == "Discussion"]) == 2
    shown = (reports / "2026-07-20.en.md").read_text(encoding="utf-8")
    assert shown.count("](https://github.com/acme/fuzz/pull/") > 400  # the titles are there
    assert "src/" in shown and "`" in shown  # and paths, as code


def test_every_markdown_report_and_post_has_only_prweeklys_elements_and_links(fuzzed) -> None:
    home, _slack, mail, posts = fuzzed
    for path in sorted((home / "reports").rglob("*.md")):
        assert_only_prweeklys_markup(path.read_text(encoding="utf-8"), path.name)
    for post in posts:
        assert len(post.body) <= GITHUB_BODY_CHARS and len(post.title) <= 256
        assert_only_prweeklys_markup(post.body, f"{post.kind} {post.title}")
    for _to, message in mail:
        text = message.get_body(("plain",)).get_content()
        assert_only_prweeklys_markup(text, message["Subject"])


def test_every_feed_and_chart_parses_as_xml_and_no_output_holds_what_xml_forbids(fuzzed):
    home = fuzzed[0]
    files = sorted(p for p in (home / "reports").rglob("*") if p.is_file())
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert xml_forbidden(text) == [], path.name
        assert not re.search(
            "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text
        )
        if path.suffix in (".xml", ".svg"):
            ET.fromstring(text.encode("utf-8"))  # raises on anything that is not XML


def test_no_slack_message_carries_a_live_mention_or_broadcast(fuzzed) -> None:
    slack = fuzzed[1]
    for message in slack:
        text = message["text"]
        assert not BROADCAST.search(text) and not MENTION.search(text), text[:300]
        assert not re.search("[\u202a-\u202e\u2066-\u2069\x00-\x1f]", text.replace("\n", ""))
        assert len(text) <= 3_000
