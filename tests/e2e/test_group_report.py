"""A group's week end to end: four repositories of `acme` (three crafted, one the sample) built
in one run, then their group's facts, its report in both languages, its pages and feeds, and
its delivery to Slack, email and a discussion in `acme/.github`, once per edition.

One build serves the module; the last test builds one repository again, so the group's week
gets a corrected edition that is held (send_corrections: false), then sent by hand.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pytest
import yaml
from delivery_receivers import SlackReceiver, SmtpReceiver
from group_crafted import GROUP, REPOS, nodes_of, write_crafted

from orchestration.delivery import send
from orchestration.escaping import md_text
from orchestration.report.text import short_title
from orchestration.retry import Backoff
from orchestration.service.cli import main
from orchestration.testing.github_emulator import Emulator
from tests.conftest import SAMPLE_DATASET
from tests.e2e.test_report_browser import pytestmark as needs_chromium
from tests.e2e.test_site_browser import HOMES, _crawl
from tests.unit.test_report_terms import misspelt

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
TOKEN = "ghp_FAKEgroupTOKEN_0123456789abcdef"
SMTP_PASSWORD = "smtp-group-pass-0123456789"
SITE = "https://reports.example.com"
WEEK = "2026-07-20"


@dataclass
class Built:
    home: Path
    data: Path
    slack: SlackReceiver
    smtp: SmtpReceiver
    github: Emulator

    def group_file(self, name: str) -> str:
        return (self.home / "reports" / "groups" / GROUP / name).read_text(encoding="utf-8")

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.home / "warehouse.duckdb"), read_only=True) as conn:
            return conn.execute(sql, params or []).fetchall()


def _registry(home: Path, files: dict[str, Path], smtp_port: int) -> None:
    deliver = {
        "site_url": SITE,
        "slack": {"webhook_url": "${TEST_GROUP_WEBHOOK}"},
        "email": {
            "to": ["oss@example.com"],
            "smtp_url": f"smtp://bot@127.0.0.1:{smtp_port}",
            "password_env": "TEST_GROUP_SMTP_PASSWORD",
        },
        "github": {"discussion_category": "Announcements", "language": "zh"},
    }
    doc = {
        "groups": [{"name": GROUP, "repositories": list(REPOS), "deliver": deliver}],
        "repositories": [{"name": r, "source": f"file:{files[r]}"} for r in REPOS],
    }
    home.mkdir(parents=True, exist_ok=True)
    (home / "repositories.yml").write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("group")
    files = {**write_crafted(root / "data"), "acme/rocket": SAMPLE_DATASET}
    home = root / "home"
    org_repo = {**nodes_of("acme/alpha")[0], "url": "https://github.com/acme/.github/pull/1"}
    slack = SlackReceiver("/services/T0ACME/B0GROUP/secretpart")
    smtp = SmtpReceiver("bot", SMTP_PASSWORD)
    with (
        pytest.MonkeyPatch.context() as mp,
        Emulator([org_repo], token=TOKEN) as github,
        slack,
        smtp,
    ):
        for name in ("PRWEEKLY_SOURCE", "DAGSTER_HOME"):
            mp.delenv(name, raising=False)
        mp.setenv("PRWEEKLY_HOME", str(home))
        mp.setenv("GITHUB_TOKEN", TOKEN)
        mp.setenv("GITHUB_GRAPHQL_URL", github.url)
        mp.setenv("TEST_GROUP_WEBHOOK", slack.url)
        mp.setenv("TEST_GROUP_SMTP_PASSWORD", SMTP_PASSWORD)
        mp.setattr(send, "RETRY", Backoff(attempts=3, base=0.01, cap=0.02))
        _registry(home, files, smtp.port)
        assert main(["build", "--all", "--week", "2026-W30"]) == 0
        yield Built(home, root / "data", slack, smtp, github)


def test_the_group_facts_add_up_the_repositories(built: Built) -> None:
    (row,) = built.query(
        "select repositories, active_repositories, merged_prs, releases, first_time_contributors, "
        "first_time_authors from marts.fct_weekly_group_summary where group_name = ? and "
        "week_start = ?",
        [GROUP, WEEK],
    )
    repos, active, merged, releases, newcomers, first_time = row
    (summed,) = built.query(
        "select sum(merged_prs) from marts.fct_weekly_summary where week_start = ?", [WEEK]
    )[0]
    assert (repos, active, merged) == (4, 3, summed)
    assert [(r["repo"], r["version"], r["number"]) for r in releases] == [
        ("acme/alpha", "2.0.0", 160)
    ]
    assert [n["author"] for n in newcomers] == ["newbie"] and first_time == 1
    quiet = built.query(
        "select repo from marts.fct_weekly_group_repositories where week_start = ? "
        "and is_newly_quiet",
        [WEEK],
    )
    assert quiet == [("acme/gamma",)]
    risks = built.query(
        "select risk_kind, subject, repos, [p.number for p in prs] from "
        "marts.fct_weekly_group_risks where week_start = ? order by rank",
        [WEEK],
    )
    assert risks[:2] == [
        ("dependency", "numpy", ["acme/alpha", "acme/beta"], [150, 250]),
        ("platform", "ascend", ["acme/alpha", "acme/beta"], [151, 251]),
    ]
    # each repository's stories on its own scale: the group's order follows the percentile
    ranked = built.query(
        "select importance_percentile from marts.fct_weekly_group_stories "
        "where week_start = ? order by group_rank",
        [WEEK],
    )
    assert [p for (p,) in ranked] == sorted((p for (p,) in ranked), reverse=True)


def latin_share(built: Built, text: str) -> float:
    """The share of Latin letters among the letters prweekly composed: PR titles (names, kept
    as written), repository names, link targets, the dependency and hardware named, and `PR`
    left out."""
    titles = [t for (t,) in built.query("select title from marts.fct_pull_requests")]
    for title in sorted({*titles, *map(short_title, titles)}, key=len, reverse=True):
        text = text.replace(md_text(title), "")
    text = re.sub(r"\]\([^)]*\)|acme/[a-z]+|acme-team|numpy|ascend|newbie|\bPR\b", "", text)
    latin = len(re.findall(r"[A-Za-z]", text))
    return latin / max(1, latin + len(re.findall(r"[\u4e00-\u9fff]", text)))


def _leads(built: Built) -> dict[str, tuple[int, str]]:
    rows = built.query(
        "select repo, lead_number, lead_title from marts.fct_weekly_group_stories "
        "where week_start = ? and is_repo_lead",
        [WEEK],
    )
    return {repo: (number, title) for repo, number, title in rows}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_names_each_key_story_the_release_and_the_recurring_risks(
    built: Built, lang: str
) -> None:
    markdown = built.group_file(f"{WEEK}.{lang}.md")
    lines = markdown.split("\n## ")
    every = next(s for s in lines if s.startswith(("Every repository", "各仓库一览")))
    leads = _leads(built)
    assert set(leads) == {"acme/alpha", "acme/beta", "acme/rocket"}  # gamma merged nothing
    for repo, (number, _title) in leads.items():
        line = next(li for li in every.splitlines() if li.startswith(f"- [{repo}]"))
        assert f"[#{number}](https://github.com/{repo}/pull/{number})" in line
        assert f"(../../{repo.replace('/', '__')}/{WEEK}.{lang}.md)" in line
    releases = next(s for s in lines if s.startswith(("Releases", "发布")))
    assert "**acme/alpha** 2.0.0" in releases and "pull/160" in releases
    risks = next(s for s in lines if s.startswith(("Recurring risks", "反复出现的风险")))
    assert "**numpy**" in risks.splitlines()[2] and "**ascend**" in risks.splitlines()[3]
    assert "pull/150" in risks and "pull/250" in risks
    # 26 PRs against 18.0: a steady trend, said as a change (beyond ±10%, as a repository's)
    change = {"en": ", 44% more than the average of the weeks before (18.0)"}
    assert change.get(lang, "，比前几周的平均值（18.0）多 44%") in markdown
    if lang == "zh":
        assert "合并" in markdown and misspelt(markdown, "zh") == []
        assert latin_share(built, markdown.split("## 附录")[0]) < 0.15
    html = built.group_file(f"{WEEK}.{lang}.html")
    assert f'<html lang="{"zh-CN" if lang == "zh" else "en"}">' in html
    assert "\\*" not in html and "\\_" not in html and "**" not in html and "<details" in html


def test_the_site_has_the_group_in_both_languages(built: Built) -> None:
    reports = built.home / "reports"
    for lang, index in (("en", "index.html"), ("zh", "index.zh.html")):
        page = (reports / "groups" / GROUP / index).read_text(encoding="utf-8")
        assert f'href="{WEEK}.{lang}.html"' in page
        assert ('<html lang="zh-CN">' in page) == (lang == "zh")
        feed = ET.fromstring((reports / "groups" / GROUP / f"feed.{lang}.xml").read_bytes())
        (entry,) = feed.findall("{http://www.w3.org/2005/Atom}entry")
        assert entry.find("{http://www.w3.org/2005/Atom}id").text == (
            f"tag:prweekly,2026:group/{GROUP}/{WEEK}/{lang}"
        )
        listing = (reports / "groups" / index).read_text(encoding="utf-8")
        assert f'href="{GROUP}/{index}"' in listing
    assert 'href="groups/index.html"' in (reports / "index.html").read_text(encoding="utf-8")
    assert 'href="groups/index.zh.html"' in (reports / "index.zh.html").read_text(encoding="utf-8")
    page = built.group_file(f"{WEEK}.zh.html")
    assert 'href="index.zh.html"' in page and f'href="{WEEK}.en.html"' in page
    assert 'href="../../index.zh.html"' in page


@needs_chromium
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chromium_reaches_the_group_pages_from_the_home_page_with_no_broken_link(
    built: Built, tmp_path: Path, lang: str
) -> None:
    reports = built.home / "reports"
    index = HOMES[lang]
    seen = _crawl(tmp_path, (reports / index).as_uri())
    pages = {Path(urlparse(u).path).relative_to(reports).as_posix() for u in seen}
    group = f"groups/{GROUP}"
    assert {f"groups/{index}", f"{group}/{index}", f"{group}/{WEEK}.{lang}.html"} <= pages
    assert {f"{r.replace('/', '__')}/{WEEK}.{lang}.html" for r in REPOS} <= pages
    tag = "zh-CN" if lang == "zh" else "en"
    assert {u: p.lang for u, p in seen.items() if p.lang != tag} == {}


def test_the_group_edition_reaches_each_target_once(built: Built) -> None:
    (message,) = built.slack.messages
    assert message["text"].startswith("*acme-team organisation weekly report 2026-W30*")
    assert f"<{SITE}/groups/{GROUP}/{WEEK}.en.html|Read the report>" in message["text"]
    assert "acme/alpha: " in message["text"]  # the key stories name their repository
    ((recipients, mail),) = built.smtp.messages
    assert recipients == ["oss@example.com"]
    assert mail["Subject"] == "acme-team organisation weekly report 2026-W30"
    (discussion,) = built.github.posts.of_kind("Discussion", "acme/.github")
    assert discussion.title == "acme-team 组织周报 2026-W30"  # the github target is zh
    # on GitHub the repositories' reports are linked on the site, not beside the file
    assert f"]({SITE}/acme__alpha/{WEEK}.zh.html)" in discussion.body
    assert "](../../" not in discussion.body
    rows = built.query(
        "select repo, target, correction from delivery.sent_editions where repo like 'group:%' "
        "order by target"
    )
    assert rows == [(f"group:{GROUP}", t, False) for t in ("email", "github", "slack")]
    (editions,) = built.query(
        "select count(*) from publish.editions where repo = ?", [f"group:{GROUP}"]
    )[0]
    assert editions == 2  # one per language


def test_group_report_materialised_alone_writes_every_group_s_latest_week(built: Built) -> None:
    """As from the Dagster UI: the asset alone, with no partition, reports the latest week."""
    import dagster as dg

    from orchestration.assets import PrweeklyResource
    from orchestration.group.asset import group_report
    from orchestration.warehouse.resource import WarehouseResource

    page = built.home / "reports" / "groups" / GROUP / f"{WEEK}.en.md"
    page.unlink()
    result = dg.materialize(
        [group_report],
        resources={
            "prweekly": PrweeklyResource(home=str(built.home)),
            "warehouse": WarehouseResource(),
        },
        instance=dg.DagsterInstance.ephemeral(),
    )
    assert result.success
    assert page.exists() and "**acme/alpha** 2.0.0" in page.read_text(encoding="utf-8")
    (count,) = built.query(
        "select count(*) from publish.editions where repo = ?", [f"group:{GROUP}"]
    )[0]
    assert count == 2  # the same text: no new edition


def test_a_corrected_group_week_is_held_from_the_targets_and_sent_by_hand(
    built: Built, capsys: pytest.CaptureFixture
) -> None:
    dataset = built.data / "acme__alpha.jsonl"
    late = {**json.loads(dataset.read_text().splitlines()[-1])}
    late.update(
        number=199,
        title="Fix the router of the alpha engine",
        mergedAt=f"{WEEK}T22:00:00Z",
        url="https://github.com/acme/alpha/pull/199",
    )
    dataset.write_text(dataset.read_text() + json.dumps(late) + "\n")
    assert main(["build", "--repo", "acme/alpha", "--week", "2026-W30"]) == 0
    markdown = built.group_file(f"{WEEK}.en.md")
    assert "**Corrected since the edition of" in markdown
    assert "acme/alpha: 7 → 8 merged PRs" in markdown
    editions = built.query(
        "select lang, edition, corrected_since is not null from publish.editions "
        "where repo = ? order by lang, edition",
        [f"group:{GROUP}"],
    )
    assert editions == [("en", 1, False), ("en", 2, True), ("zh", 1, False), ("zh", 2, True)]
    assert len(built.slack.messages) == 1 and len(built.smtp.messages) == 1  # held
    assert len(built.github.posts.of_kind("DiscussionComment")) == 0

    # by hand, as a repository's: a dry run sends nothing, then each target gets it once
    week = ["publish", "--group", GROUP, "--week", "2026-W30"]
    assert main([*week, "--dry-run"]) == 0
    assert "github: would send: corrected edition" in capsys.readouterr().out
    assert len(built.slack.messages) == 1
    assert main(week) == 0 and main(week) == 0
    assert "github: already sent" in capsys.readouterr().out
    assert built.slack.messages[1]["text"].startswith("*Corrected edition:* *acme-team")
    assert built.smtp.messages[1][1]["Subject"].startswith("[Corrected] acme-team")
    (discussion,) = built.github.posts.of_kind("Discussion", "acme/.github")
    (comment,) = built.github.posts.of_kind("DiscussionComment")
    assert comment.subject_id == discussion.id and "7 → 8" in comment.body
    assert (len(built.slack.messages), len(built.smtp.messages)) == (2, 2)
    rows = built.query(
        "select target, correction from delivery.sent_editions where repo = ? and correction",
        [f"group:{GROUP}"],
    )
    assert sorted(rows) == [("email", True), ("github", True), ("slack", True)]


def test_the_group_strings_use_the_term_list() -> None:
    from orchestration.group.text import group_strings
    from tests.unit.test_report_terms import _strings

    zh = _strings(group_strings("zh"))
    assert [s for s in zh if misspelt(s, "zh")] == []
    # a folded YAML line's break is a space: never between two Chinese characters or after
    # Chinese punctuation
    han = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
    assert [s for s in zh if re.search(f"{han} {han}|[，。；：、（）] ", s)] == []


def test_a_group_of_many_names_five_repositories_and_counts_the_rest() -> None:
    """A hundred repositories in a group: a risk in sixty of them names five."""
    from orchestration.group.queries import GroupWeek
    from orchestration.group.text import GroupText

    names = [f"o/r{i}" for i in range(12)]
    summary = dict(first_time_unknown=names, repositories=12, merged_prs=0, active_repositories=0)
    summary |= dict.fromkeys(("releases", "trailing_avg_prs", "active_trend", "volume_trend"))
    quiet = [{"display_name": n, "is_newly_quiet": True} for n in names]
    many = GroupWeek("g", date(2026, 7, 20), summary, quiet, [], [])
    for lang, said in (
        ("en", "12 repositories (o/r0, o/r1, o/r2, o/r3, o/r4 and 7 more)"),
        ("zh", "12 个仓库（o/r0、o/r1、o/r2、o/r3、o/r4 和另外 7 个）"),
    ):
        t = GroupText(lang, "md")
        unknown, quiet_line = str(t.newcomers_unknown(many)), t.summary(many)[-1]
        assert str(t.repos_n(names)) == said and said in unknown and said in quiet_line
        assert "） " not in unknown and "个 本" not in quiet_line
