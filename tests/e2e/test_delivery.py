"""Delivery through real receivers: a Slack webhook, an SMTP server and the GitHub emulator.

Each week reaches each target once, whatever the number of builds; a target that keeps failing
is tried again by the next run while the others go on; a corrected edition waits for
`send_corrections` or a hand; no secret is left anywhere.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import duckdb
import pytest
import yaml
from delivery_receivers import SlackReceiver, SmtpReceiver

from orchestration.config import UsageError, load_settings
from orchestration.delivery import send
from orchestration.repositories.targets import parse_deliver
from orchestration.retry import Backoff
from orchestration.service.cli import main
from orchestration.service.instance import get_instance
from orchestration.testing.github_emulator import Emulator
from tests.conftest import SAMPLE_DATASET
from tests.e2e.test_reliability_secrets import event_log, everything_under

# the SMTP server takes a login without TLS on loopback, as the client allows only there
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
WEBHOOK_SECRET = "XoXsecretWEBHOOKpart0123456789"
SMTP_PASSWORD = "smtp-SECRET-pass-0123456789"
TOKEN = "ghp_FAKEdeliveryTOKEN_0123456789abcdef"
SITE = "https://reports.example.com"
REPO = "acme/rocket"


@pytest.fixture
def receivers(home: Path, monkeypatch: pytest.MonkeyPatch):
    slack = SlackReceiver(f"/services/T0ACME/B0ROCKET/{WEBHOOK_SECRET}")
    smtp = SmtpReceiver("bot", SMTP_PASSWORD)
    with Emulator(SAMPLE_DATASET, token=TOKEN) as github, slack, smtp:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", github.url)
        monkeypatch.setenv("TEST_SLACK_WEBHOOK", slack.url)
        monkeypatch.setenv("TEST_SMTP_PASSWORD", SMTP_PASSWORD)
        monkeypatch.setattr(send, "RETRY", Backoff(attempts=3, base=0.01, cap=0.02))
        yield slack, smtp, github


def configure(home: Path, smtp: SmtpReceiver, source: Path = SAMPLE_DATASET, **deliver) -> None:
    targets = {
        "slack": {"webhook_url": "${TEST_SLACK_WEBHOOK}"},
        "email": {
            "to": ["team@example.com", "lead@example.com"],
            "smtp_url": f"smtp://bot@127.0.0.1:{smtp.port}",
            "password_env": "TEST_SMTP_PASSWORD",
            "from": "prweekly@example.com",
        },
        "github": {"discussion_category": "Announcements"},
    }
    deliver = {"site_url": SITE, **targets, **deliver}
    entry = {"name": REPO, "source": f"file:{source}", "deliver": deliver}
    home.mkdir(exist_ok=True)
    (home / "repositories.yml").write_text(yaml.safe_dump({"repositories": [entry]}))


def ledger(home: Path) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        return conn.execute(
            "select target, week_start::varchar, correction from delivery.sent_editions "
            "order by all"
        ).fetchall()


def delivery_metadata(home: Path) -> dict:
    instance = get_instance(load_settings())
    result = instance.fetch_materializations(dg.AssetKey("delivered_reports"), limit=1)
    return result.records[0].asset_materialization.metadata


def report(home: Path, week: str, ext: str) -> str:
    return (home / "reports" / "acme__rocket" / f"{week}.en.{ext}").read_text()


def _with_late_pr(target: Path) -> Path:
    """The sample, plus a PR merged in 2026-W30 that the first build did not see."""
    lines = SAMPLE_DATASET.read_text().splitlines()
    late = json.loads(lines[-1])
    late.update(number=140, title="[engine] fix: igniter restart race", url=late["url"].replace(
        str(late["number"]), "140"), mergedAt="2026-07-24T09:00:00Z")  # fmt: skip
    target.write_text("\n".join([*lines, json.dumps(late)]) + "\n")
    return target


def test_each_week_reaches_each_target_once_and_corrections_wait(
    home: Path, receivers, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    slack, smtp, github = receivers
    dataset = tmp_path / "rocket.jsonl"
    dataset.write_text(SAMPLE_DATASET.read_text())
    configure(home, smtp, dataset)
    slack.fail_next = 3  # the first week's three attempts fail; the second week gets through

    assert main(["build", "--repo", REPO, "--week", "2026-W29", "--to", "2026-W30"]) == 0
    assert (slack.refused, len(slack.messages)) == (3, 1)
    assert len(smtp.messages) == 2 and smtp.logins == ["bot", "bot"]
    discussions = github.posts.of_kind("Discussion", REPO)
    assert [d.title for d in discussions] == [
        "acme/rocket weekly report 2026-W29",
        "acme/rocket weekly report 2026-W30",
    ]
    assert {d.category for d in discussions} == {"Announcements"}
    # GitHub gets the Markdown, its chart linked on the site (a relative link shows nothing)
    chart = "](2026-07-20.areas.en.svg)"
    assert chart in report(home, "2026-07-20", "md")
    shown, sign = discussions[1].body.rsplit("\n\n", 1)
    assert shown + "\n" == report(home, "2026-07-20", "md").replace(
        chart, f"]({SITE}/acme__rocket/2026-07-20.areas.en.svg)"
    )
    assert re.fullmatch(r"<!-- prweekly edition [0-9a-f]{64} -->\n", sign)  # hidden on GitHub
    failed = delivery_metadata(home)["failed_targets"].value
    assert [(f["target"], f["week"], f["attempts"]) for f in failed] == [("slack", "2026-07-13", 3)]
    text = slack.messages[0]["text"]
    assert text.startswith("*acme/rocket weekly report 2026-W30*")
    assert f"<{SITE}/acme__rocket/2026-07-20.en.html|Read the report>" in text
    assert "<https://github.com/acme/rocket/pull/133|#133>" in text  # a key PR, linked
    recipients, mail = smtp.messages[1]
    assert recipients == ["team@example.com", "lead@example.com"]
    assert mail["Subject"] == "acme/rocket weekly report 2026-W30"
    assert mail.get_content_type() == "multipart/alternative"
    plain, html = (part.get_content().replace("\r\n", "\n") for part in mail.iter_parts())
    assert html.strip() == report(home, "2026-07-20", "html").strip()
    assert plain.startswith(report(home, "2026-07-20", "md"))

    # the next run, of the second week only, after a PR turned up in it: the failed week goes
    # to Slack; the second week's corrected edition is held (send_corrections: false)
    _with_late_pr(dataset)
    assert main(["build", "--repo", REPO, "--week", "2026-W30"]) == 0
    assert len(slack.messages) == 2 and "2026-W29" in slack.messages[1]["text"]
    assert (len(smtp.messages), len(github.posts.items)) == (2, 2)
    metadata = delivery_metadata(home)
    assert metadata["failed"].value == 0
    assert metadata["deliveries"].value.count("| held |") == 3
    assert ledger(home) == [
        (target, week, False)
        for target in ("email", "github", "slack")
        for week in ("2026-07-13", "2026-07-20")
    ]

    # by hand: a dry run sends nothing; GitHub gets the correction in the week's discussion
    week = ["--repo", REPO, "--week", "2026-W30"]
    seen = [*capsys.readouterr()]  # the builds' output, scanned for secrets below
    assert main(["publish", *week, "--target", "github", "--dry-run"]) == 0
    seen += capsys.readouterr()
    assert "github: would send: corrected edition" in seen[-2]
    assert len(github.posts.items) == 2
    assert main(["publish", *week, "--target", "github"]) == 0
    (comment,) = github.posts.of_kind("DiscussionComment")
    assert comment.subject_id == discussions[1].id
    assert comment.body.startswith("## Corrected edition") and "#140" in comment.body
    assert main(["publish", *week]) == 0  # the others too; GitHub has it already
    seen += capsys.readouterr()
    assert "github: already sent" in seen[-2]
    assert slack.messages[2]["text"].startswith("*Corrected edition:* *acme/rocket")
    assert smtp.messages[2][1]["Subject"].startswith("[Corrected] ")
    assert len(github.posts.items) == 3
    assert [row for row in ledger(home) if row[2]] == [
        ("email", "2026-07-20", True),
        ("github", "2026-07-20", True),
        ("slack", "2026-07-20", True),
    ]
    assert slack.problems == []

    texts = [*seen, *capsys.readouterr(), *event_log(home), *everything_under(home)]
    for secret in (WEBHOOK_SECRET, SMTP_PASSWORD, TOKEN):
        assert not [t for t in texts if secret in t], secret


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"slack": {}}, "slack: needs webhook_url"),
        ({"slack": {"webhook_url": "hooks.slack.com/x"}}, "http(s) URL"),
        ({"email": {"to": ["a@b.c"], "smtp_url": "smtps://u:pw@host"}}, "must not hold a password"),
        ({"email": {"to": [], "smtp_url": "smtp://host"}}, "at least one address"),
        ({"email": {"to": ["a@b.c"], "smtp_url": "smtps://me@host"}}, "say in password_env"),
        ({"site_url": "reports.example.com"}, "site_url must be an http(s) URL"),
        ({"email": {"to": ["nobody"], "smtp_url": "smtp://host"}}, "not an address: nobody"),
        ({"github": {"discussion_category": "A", "issue_label": "b"}}, "either"),
        ({"github": {"discussion_categry": "A"}}, "did you mean discussion_category?"),
        ({"send_corrections": "yes"}, "true or false"),
        ({"language": "fr", "slack": {"webhook_url": "https://x"}}, "language must be one of"),
        ({"teams": {}}, "unknown key teams"),
    ],
)
def test_a_bad_deliver_block_is_refused_naming_the_repository(block, message) -> None:
    with pytest.raises(UsageError) as refused:
        parse_deliver(block, "repositories.yml: acme/rocket")
    assert str(refused.value).startswith("repositories.yml: acme/rocket: deliver: ")
    assert message in str(refused.value)


def test_repositories_yml_keeps_the_deliver_block_when_the_cli_rewrites_it(home: Path) -> None:
    home.mkdir()
    (home / "repositories.yml").write_text(
        "repositories:\n- name: acme/rocket\n  deliver:\n    github: {issue_label: weekly}\n"
    )
    assert main(["repo", "add", "acme/rocket", "--core-path", "rocket/engine/"]) == 0
    entry = yaml.safe_load((home / "repositories.yml").read_text())["repositories"][0]
    assert entry["deliver"] == {"github": {"issue_label": "weekly"}}
    (home / "repositories.yml").write_text(
        "repositories:\n- name: acme/rocket\n  deliver: {slack: {webhook_url: 3}}\n"
    )
    assert main(["repo", "list"]) == 2  # refused with one clear line


def test_a_scheduled_run_finds_a_pr_that_search_indexed_late(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Monday run reads the week before again; with send_corrections the corrected edition
    goes out."""
    from orchestration.service.definitions import defs

    now = [datetime(2026, 7, 20, 6, tzinfo=UTC).timestamp()]
    slack = SlackReceiver("/services/T0/B0/late")
    with Emulator(SAMPLE_DATASET, clock=lambda: now[0]) as github, slack:
        monkeypatch.setenv("GITHUB_GRAPHQL_URL", github.url)
        deliver = {"send_corrections": True, "slack": {"webhook_url": slack.url}}
        home.mkdir()
        (home / "repositories.yml").write_text(
            yaml.safe_dump({"repositories": [{"name": REPO, "deliver": deliver}]})
        )
        github.hide_from_search(REPO, 118, until=now[0] + 6 * 3600)  # merged on W29's Sunday
        assert main(["build", "--repo", REPO, "--week", "2026-W29", "--source", "github"]) == 0
        assert 118 not in prs_of(home, "2026-07-13")

        now[0] = datetime(2026, 7, 27, 6, tzinfo=UTC).timestamp()  # the next Monday's run
        instance = get_instance(load_settings())
        schedule = defs.resolve_schedule_def("weekly_report_schedule")
        context = dg.build_schedule_context(
            instance=instance,
            scheduled_execution_time=datetime(2026, 7, 27, 6, tzinfo=UTC),
            repository_def=defs.get_repository_def(),
        )
        (request,) = schedule.evaluate_tick(context).run_requests
        job = defs.resolve_job_def("weekly_report_job")
        result = job.execute_in_process(
            instance=instance, tags=request.tags, run_config=request.run_config
        )
        assert result.success
    assert 118 in prs_of(home, "2026-07-13")
    w29 = report(home, "2026-07-13", "md")
    box = w29.split("> **Corrected since the edition of ", 1)[1].split("\n\n", 1)[0]
    assert "#118" in box, box  # the corrected edition names the PR found late
    first, corrected, new = (m["text"] for m in slack.messages)
    assert "2026-W29" in first and "2026-W30" in new
    assert corrected.startswith("*Corrected edition:* *acme/rocket weekly report 2026-W29*")
    assert ledger(home) == [
        ("slack", "2026-07-13", False),
        ("slack", "2026-07-13", True),
        ("slack", "2026-07-20", False),
    ]


def prs_of(home: Path, week: str) -> list[int]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "select number from marts.fct_pull_requests where week_start = ?", [week]
        ).fetchall()
    return [n for (n,) in rows]


def test_a_github_post_without_a_site_leaves_the_chart_out() -> None:
    from orchestration.delivery.github_post import github_markdown

    markdown = "## Trends\n\nPRs per area:\n\n![Bar chart](2026-07-20.areas.en.svg)\n\n| a |\n"
    assert github_markdown(markdown, "/home/reports/acme__rocket/2026-07-20.en.html") == (
        "## Trends\n\nPRs per area:\n\n| a |\n"
    )
    assert github_markdown(markdown, f"{SITE}/acme__rocket/2026-07-20.en.html") == (
        markdown.replace("](2026", f"]({SITE}/acme__rocket/2026")
    )
