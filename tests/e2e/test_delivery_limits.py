"""Deliveries within each target's limits, and through each way a target fails.

Every target is real and on loopback: the GitHub emulator (which refuses what GitHub refuses:
a body over 65,536 characters, a title over 256, `addComment` on a discussion), a Slack-style
webhook receiver that can answer 429, 500 or late, an SMTP server with a size limit and one
that drops the connection after accepting. No build: each test sends a crafted edition.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest
from delivery_receivers import DroppingSmtpServer, SlackReceiver, SmtpReceiver
from github_fakes import make_pr

from orchestration.config import Settings
from orchestration.delivery import send, transport
from orchestration.delivery.edition import Edition
from orchestration.delivery.ledger import Sent
from orchestration.delivery.limits import GITHUB_BODY_CHARS, fit_markdown
from orchestration.repositories.targets import (
    DeliverySettings,
    EmailTarget,
    GitHubTarget,
    SlackTarget,
)
from orchestration.retry import Backoff
from orchestration.testing.github_emulator import Emulator
from orchestration.testing.github_emulator.faults import Fault

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
REPO, WEEK = "acme/rocket", date(2024, 6, 3)
SITE = "https://reports.example.com/acme__rocket/2024-06-03.en.html"


def long_report(chars: int = 67_212) -> str:
    """A report as long as polars 2024-W23's English Markdown: the appendix is most of it."""
    head = (
        "# acme/rocket · Week 23 of 2024\n\n- Merged PRs: 180\n\n## Summary\n\nA busy week.\n\n"
        "## Key changes\n\n### 1. [#1](https://github.com/acme/rocket/pull/1) Speed up joins\n\n"
        "## Risks\n\nNone.\n\n## Appendix\n\n| PR | title |\n| :--- | :--- |\n"
    )
    rows, n = [], 0
    while len(head) + sum(map(len, rows)) < chars - 200:
        n += 1
        rows.append(f"| [#{n}](https://github.com/acme/rocket/pull/{n}) | fix: change {n} |\n")
    return head + "".join(rows) + "\n### Method\n\nScores.\n"


def edition(markdown: str = "# r\n\n## Summary\n\nok\n", link: str = SITE, **more) -> Edition:
    return Edition(REPO, WEEK, "en", markdown, "<p>ok</p>", more.pop("id", "e" * 64), link,
                   merged_prs=3, theme="speed", **more)  # fmt: skip


class Book:
    """The ledger's part `_deliver` uses, in memory."""

    def __init__(self) -> None:
        self.repo, self.sent, self.failures = REPO, [], []

    def sent_to(self, week: date, target: str) -> list[Sent]:
        return [s for s in self.sent if (s.week_start, s.target) == (week, target)]

    def record(self, entry: Sent) -> None:
        self.sent.append(entry)

    def record_failure(self, week, target, edition_id, attempts, error) -> None:
        self.failures.append((target, attempts, error))


def deliver(settings: Settings, target, made: Edition, book: Book, said: list | None = None):
    return send._deliver(
        settings, DeliverySettings((target,), True), book, target, WEEK, made, False, False,
        (said if said is not None else []).append,
    )  # fmt: skip


@pytest.fixture
def github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(send, "RETRY", Backoff(attempts=3, base=0.01, cap=0.02))
    with Emulator([make_pr(7, datetime(2024, 6, 3, 10, tzinfo=UTC), repo=REPO)]) as emu:
        yield emu, Settings(tmp_path, "github", "ghp_test", emu.url)


def test_a_report_over_githubs_limit_goes_out_shortened_with_a_link(github) -> None:
    emu, settings = github
    markdown = long_report()
    assert len(markdown) > GITHUB_BODY_CHARS  # as polars 2024-W23's was: 67,212
    book = Book()
    outcome = deliver(settings, GitHubTarget("Announcements", None, "en"), edition(markdown), book)
    assert outcome.status == send.SENT, outcome.detail  # refused as "Body is too long" before
    (post,) = emu.posts.of_kind("Discussion", REPO)
    assert len(post.body) <= GITHUB_BODY_CHARS
    shown, note, sign = post.body.rsplit("\n\n", 2)
    assert markdown.startswith(shown.removesuffix("\n\n---"))  # whole sections, from the top
    assert "## Risks" in shown and "| [#40](" in shown and "### Method" not in shown
    assert note == f"*This report was shortened to fit one GitHub post; the full report: <{SITE}>*"
    assert sign == "<!-- prweekly edition " + "e" * 64 + " -->\n"
    # a correction in the thread is fitted too, with its heading; without a site, the file
    book.sent[0] = Sent(REPO, WEEK, "github", "en", "old", False, book.sent[0].sent_at,
                        book.sent[0].provider_id, book.sent[0].thread_id)  # fmt: skip
    local = edition(markdown, link="/srv/reports/acme__rocket/2024-06-03.en.html", id="f" * 64)
    assert (
        deliver(settings, GitHubTarget("Announcements", None, "en"), local, book).status == "sent"
    )
    (comment,) = emu.posts.of_kind("DiscussionComment")  # addComment is for issues only
    assert comment.body.startswith("## Corrected edition\n\n# acme/rocket")
    assert len(comment.body) <= GITHUB_BODY_CHARS
    assert (
        "the full report: `acme__rocket/2024-06-03.en.html` in prweekly's reports*" in comment.body
    )


def test_a_502_after_github_made_the_post_makes_no_second_one(github) -> None:
    emu, settings = github
    emu.faults.fail_next(Fault.DONE_502, after=1)  # the categories answer, then the mutation's
    book = Book()
    outcome = deliver(settings, GitHubTarget("Announcements", None, "en"), edition(), book)
    (post,) = emu.posts.of_kind("Discussion", REPO)  # two before: the retry posted it again
    assert (outcome.status, outcome.attempts) == (send.SENT, 2)
    assert book.sent[0].provider_id == post.id == book.sent[0].thread_id
    emu.posts.labels[REPO] = ["weekly"]  # the same for an issue
    emu.faults.fail_next(Fault.DONE_502, after=1)
    issue = deliver(settings, GitHubTarget(None, "weekly", "en"), edition(id="a" * 64), Book())
    assert issue.status == send.SENT and len(emu.posts.of_kind("Issue", REPO)) == 1


def test_fit_markdown_keeps_whole_sections_and_cuts_one_too_long_at_a_line() -> None:
    text = "# t\n\n## A\n\n" + "a\n" * 50 + "## B\n\nb\n"
    fitted, cut = fit_markdown(text, 60, "*cut*")
    assert cut and fitted.endswith("\n\n---\n\n*cut*\n") and len(fitted) <= 60
    assert fitted.startswith("# t\n\n## A\n\na\na\n") and "## B" not in fitted
    assert fit_markdown(text, 1_000, "*cut*") == (text, False)


@pytest.fixture
def slack(monkeypatch: pytest.MonkeyPatch):
    receiver = SlackReceiver("/services/T0/B0/secret")
    monkeypatch.setenv("TEST_SLACK", receiver.url)
    monkeypatch.setattr(send, "RETRY", Backoff(attempts=3, base=0.01, cap=0.02))
    quick = httpx.Client(timeout=0.5)  # a "slow" Slack answers after this
    monkeypatch.setattr(transport, "http", lambda: quick)
    from orchestration.delivery import slack as slack_module

    monkeypatch.setattr(slack_module, "http", lambda: quick)
    with receiver:
        yield receiver
    quick.close()


def test_slack_answering_429_is_waited_for_as_it_asks_and_500_is_retried(
    slack, tmp_path: Path
) -> None:
    target, settings = SlackTarget("${TEST_SLACK}", "en"), Settings(tmp_path, "github", None, "")
    slack.answers = [(429, {"retry-after": "1"}, 0.0), (500, {}, 0.0)]
    said: list[str] = []
    started = time.monotonic()
    outcome = deliver(settings, target, edition(), Book(), said)
    assert (outcome.status, outcome.attempts, len(slack.messages)) == (send.SENT, 3, 1)
    assert time.monotonic() - started >= 1.0  # Retry-After: 1, not the 0.01 s backoff
    assert "trying again in 1s" in said[0] and "HTTP 429" in said[0]


def test_a_slack_that_answers_too_late_is_not_posted_twice_in_a_run(slack, tmp_path) -> None:
    """Slack kept the message but the answer came after the client stopped waiting: sending
    it again now would post it twice. The next run sends it: at most one duplicate."""
    target, settings = SlackTarget("${TEST_SLACK}", "en"), Settings(tmp_path, "github", None, "")
    slack.answers = [(200, {}, 1.0)]
    book = Book()
    said: list[str] = []
    outcome = deliver(settings, target, edition(), book, said)
    time.sleep(0.7)  # the receiver finishes keeping it
    assert (outcome.status, outcome.attempts, len(slack.messages)) == (send.FAILED, 1, 1)
    assert "may have posted the message; not sent again in this run" in said[-1]
    assert book.failures and deliver(settings, target, edition(), book).status == send.SENT
    assert len(slack.messages) == 2  # the next run: one duplicate, no more


def test_a_long_slack_message_stays_within_a_block(slack, tmp_path: Path) -> None:
    prs = [{"number": n, "title": "x" * 5_000, "url": f"https://github.com/a/b/pull/{n}",
            "importance": 9.0} for n in range(50)]  # fmt: skip
    made = edition(key_prs=prs)
    outcome = deliver(Settings(tmp_path, "github", None, ""), SlackTarget("${TEST_SLACK}", "en"),
                      made, Book())  # fmt: skip
    assert outcome.status == send.SENT and slack.problems == []
    (message,) = slack.messages
    assert len(message["text"]) <= 3_000 and message["text"].endswith("|Read the report>")


def email_target(port: int, user: bool = False) -> EmailTarget:
    url = f"smtp://bot@127.0.0.1:{port}" if user else f"smtp://127.0.0.1:{port}"
    return EmailTarget(("team@example.com",), url, "prweekly@example.com",
                       "TEST_SMTP_PASSWORD" if user else "", "en")  # fmt: skip


def test_an_smtp_server_that_drops_the_line_after_accepting_gets_the_message_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(send, "RETRY", Backoff(attempts=3, base=0.01, cap=0.02))
    settings = Settings(tmp_path, "github", None, "")
    with DroppingSmtpServer() as server:
        outcome = deliver(settings, email_target(server.port), edition(), Book())
        assert (outcome.status, len(server.messages)) == (send.SENT, 1)  # 3 before: retried
    with DroppingSmtpServer(drop_at_greeting=True) as server:
        book = Book()
        outcome = deliver(settings, email_target(server.port), edition(), book)
        assert (outcome.status, outcome.attempts, server.connections) == (send.FAILED, 3, 3)
        assert re.search(r"ConnectionResetError|SMTPServerDisconnected", book.failures[0][2])


def test_a_message_over_the_servers_size_goes_as_shortened_text_with_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_SMTP_PASSWORD", "pw-0123456789")
    made = Edition(REPO, WEEK, "en", long_report(), "<p>" + "h" * 400_000 + "</p>", "e" * 64,
                   SITE, merged_prs=3, theme="x")  # fmt: skip
    with SmtpReceiver("bot", "pw-0123456789", size=60_000) as smtp:
        outcome = deliver(Settings(tmp_path, "github", None, ""), email_target(smtp.port, True),
                          made, Book())  # fmt: skip
        assert outcome.status == send.SENT, outcome.detail  # 552 "too big" three times before
        ((_, mail),) = smtp.messages
    assert mail.get_content_type() == "text/plain"
    text = mail.get_content()
    assert text.startswith("# acme/rocket") and len(text.encode()) < 60_000
    assert f"the full report: {SITE}" in text.replace("\r\n", "\n")


def test_a_kill_between_acceptance_and_the_ledger_sends_at_most_one_duplicate(
    sample_home: Path, tmp_path: Path
) -> None:
    """`prweekly publish` SIGKILLed after Slack, then GitHub, took the edition and before the
    ledger was written: Slack gets it twice (the promised at most one duplicate), GitHub once
    (the next run finds its post by the hidden edition line)."""
    import os
    import shutil
    import signal
    import subprocess
    import sys

    import duckdb
    import yaml

    home = tmp_path / "home"
    shutil.copytree(sample_home, home)
    deliver = {"site_url": "https://reports.example.com", "slack": {"webhook_url": "${HOOK}"},
               "github": {"discussion_category": "Announcements"}}  # fmt: skip
    (home / "repositories.yml").write_text(
        yaml.safe_dump({"repositories": [{"name": "acme/rocket", "deliver": deliver}]})
    )
    dataset = Path(__file__).parents[2] / "orchestration" / "sample" / "acme__rocket.jsonl"
    slack = SlackReceiver("/services/T0/B0/kill")
    with Emulator(dataset, token="ghp_kill_test_0123") as github, slack:
        env = {**os.environ, "PRWEEKLY_HOME": str(home), "HOOK": slack.url,
               "GITHUB_TOKEN": "ghp_kill_test_0123", "GITHUB_GRAPHQL_URL": github.url}  # fmt: skip
        env.pop("DAGSTER_HOME", None)
        command = [str(Path(sys.executable).with_name("prweekly")), "publish", "--repo",
                   "acme/rocket", "--week", "2026-W30"]  # fmt: skip
        runs: list[subprocess.Popen] = []

        def kill_the_publisher(*_args) -> None:
            os.kill(runs[-1].pid, signal.SIGKILL)

        answer = github.answer

        def answer_then_kill(body: bytes, fault):
            result = answer(body, fault)
            if b"mutation" in body:  # the post is made; its answer never reaches the client
                kill_the_publisher()
            return result

        slack.on_message = kill_the_publisher  # run 1: killed once Slack has the message
        for run in range(3):
            if run == 1:
                slack.on_message = None
                github.answer = answer_then_kill  # run 2: killed once GitHub made the post
            if run == 2:
                github.answer = answer
            runs.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True))  # fmt: skip
            out = runs[-1].communicate(timeout=120)[0]
            assert runs[-1].returncode == (-signal.SIGKILL if run < 2 else 0), out
        assert "slack: already sent" in out and "github: sent" in out
        assert len(slack.messages) == 2  # one duplicate, no more
        assert len(github.posts.of_kind("Discussion", "acme/rocket")) == 1  # none
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "select target, count(*) from delivery.sent_editions group by all order by all"
        ).fetchall()
    assert rows == [("github", 1), ("slack", 1)]
