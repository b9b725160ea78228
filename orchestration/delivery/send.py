"""Send one week's edition to each of a repository's targets: once, retried, never blocking.

Per target: the edition it already has is not sent again; a changed edition of a week it
already had is a correction, sent only when `send_corrections` says so (or by hand); a send
that fails is tried again with backoff, and after the last attempt recorded as failed, so the
next run tries again. One target's failure never stops the others.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from orchestration.config import Settings, UsageError, load_settings
from orchestration.database import connect
from orchestration.delivery import github_post, ledger, mail, slack
from orchestration.delivery.edition import Edition, load_edition
from orchestration.repositories.registry import Repository, find, load_repositories
from orchestration.repositories.targets import (
    VARIABLE,
    DeliverySettings,
    EmailTarget,
    GitHubTarget,
    MissingSecret,
    SlackTarget,
    Target,
    parse_deliver,
)
from orchestration.retry import Backoff
from orchestration.weeks import iso_label

RETRY = Backoff(attempts=3, base=2.0, cap=8.0, factor=4.0)  # waits 2 s, then 8 s
MAX_RETRY_AFTER_SECONDS = 60.0  # the most a target's Retry-After makes a run wait

SENT, ALREADY, HELD, NO_REPORT, FAILED, WOULD_SEND = (
    "sent", "already sent", "held", "no report", "failed", "would send",
)  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    repo: str
    week: date
    target: str
    status: str
    detail: str = ""
    attempts: int = 0


def delivery_of(entry: Repository) -> DeliverySettings:
    return parse_deliver(entry.deliver, entry.name)


def secrets_of(settings: Settings, target: Target) -> list[str]:
    """Every secret value `target` may use, to blank out of any message about it."""
    values = [settings.github_token or ""]
    for text in (getattr(target, "webhook_url", ""), getattr(target, "smtp_url", "")):
        values += [os.environ.get(name, "") for name in VARIABLE.findall(text)]
        if not VARIABLE.search(text):
            values.append(text if isinstance(target, SlackTarget) else "")
    if isinstance(target, EmailTarget) and target.password_env:
        values.append(os.environ.get(target.password_env, ""))
    return sorted((v for v in values if len(v) >= 4), key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def _post(
    settings: Settings, target: Target, edition: Edition, thread: str | None, correction: bool
) -> tuple[str | None, str | None]:
    """(the provider's id, the thread's id) of one send."""
    if isinstance(target, SlackTarget):
        return slack.send(target, edition, correction), None
    if isinstance(target, EmailTarget):
        return mail.send(target, edition, correction), None
    assert isinstance(target, GitHubTarget)
    return github_post.send(settings, target, edition, thread, correction)


def deliver_week(
    settings: Settings,
    entry: Repository,
    week: date,
    *,
    only: str | None = None,
    dry_run: bool = False,
    by_hand: bool = False,
    say: Callable[[str], None] = print,
    known: ledger.Ledger | None = None,
) -> list[Outcome]:
    """Send `entry`'s edition of `week` to each target (or only the one named `only`);
    `known` is the repository's ledger, when the caller has read it already."""
    delivery = delivery_of(entry)
    return deliver_editions(
        settings,
        delivery,
        known or ledger.Ledger(settings, entry.repo, say),
        week,
        lambda lang: _current_edition(settings, entry.repo, week, lang, delivery.site_url, say),
        owner=entry.name,
        only=only,
        dry_run=dry_run,
        by_hand=by_hand,
        say=say,
    )


def deliver_editions(
    settings: Settings,
    delivery: DeliverySettings,
    known: ledger.Ledger,
    week: date,
    edition_in: Callable[[str], Edition | None],
    *,
    owner: str,
    only: str | None,
    dry_run: bool,
    by_hand: bool,
    say: Callable[[str], None],
) -> list[Outcome]:
    """Send the week's edition in each target's language (`edition_in`, read once per
    language) to each of `owner`'s targets, or only the one named `only`: a repository's or a
    group's, whose ledger `known` is."""
    targets = [t for t in delivery.targets if only in (None, t.kind)]
    if only and not targets:
        kinds = ", ".join(t.kind for t in delivery.targets) or "none"
        raise UsageError(f"{owner} has no {only} target in repositories.yml (it has: {kinds})")
    editions: dict[str, Edition | None] = {}
    outcomes = []
    for target in targets:
        if target.language not in editions:
            editions[target.language] = edition_in(target.language)
        edition = editions[target.language]
        outcome = _deliver(settings, delivery, known, target, week, edition, dry_run, by_hand,
                           say)  # fmt: skip
        outcomes.append(outcome)
    return outcomes


def _current_edition(
    settings: Settings, repo: str, week: date, language: str, site: str | None, say: Callable
) -> Edition | None:
    """The week's edition as its report files hold it, with the headline from the marts."""
    if not settings.warehouse_path.exists():
        return load_edition(settings.reports_dir, None, repo, week, language, site)
    with connect(settings.warehouse_path, read_only=True, on_wait=say) as conn:
        return load_edition(settings.reports_dir, conn, repo, week, language, site)


def _deliver(
    settings: Settings,
    delivery: DeliverySettings,
    known: ledger.Ledger,
    target: Target,
    week: date,
    edition: Edition | None,
    dry_run: bool,
    by_hand: bool,
    say: Callable[[str], None],
) -> Outcome:
    repo = known.repo

    def outcome(status: str, detail: str = "", attempts: int = 0) -> Outcome:
        return Outcome(repo, week, target.kind, status, detail, attempts)

    if edition is None:
        return outcome(NO_REPORT, "the week has no report to send")
    history = known.sent_to(week, target.kind)
    if any(sent.edition == edition.id for sent in history):
        return outcome(ALREADY, f"edition {edition.id[:12]}")
    correction = bool(history)
    if correction and not (delivery.send_corrections or by_hand):
        return outcome(HELD, f"corrected edition {edition.id[:12]} (send_corrections: false)")
    kind = "corrected edition" if correction else "edition"
    if dry_run:
        return outcome(WOULD_SEND, f"{kind} {edition.id[:12]} to {target.describe()}")
    thread = next((s.thread_id for s in history if s.thread_id), None)
    secrets = secrets_of(settings, target)
    error = ""
    for attempt in range(1, RETRY.attempts + 1):
        try:
            provider_id, thread_id = _post(settings, target, edition, thread, correction)
        except (MissingSecret, UsageError) as exc:  # trying again cannot help
            error = redact(str(exc), secrets)
            break
        except Exception as exc:
            error = redact(f"{exc}", secrets) or type(exc).__name__
            if getattr(exc, "uncertain", False):  # it may be there: the next run sends it
                say(f"{repo} {week} {target.kind}: {error}; not sent again in this run")
                break
            if not RETRY.gives_up(attempt):
                wait = RETRY.wait(attempt)
                if getattr(exc, "retry_after", None) is not None:  # the target said how long
                    wait = min(exc.retry_after, MAX_RETRY_AFTER_SECONDS)
                say(f"{repo} {week} {target.kind}: attempt {attempt} failed ({error}); "
                    f"trying again in {wait:g}s")  # fmt: skip
                time.sleep(wait)
            continue
        known.record(
            ledger.Sent(repo, week, target.kind, edition.language, edition.id, correction,
                        ledger.now(), provider_id, thread_id)
        )  # fmt: skip
        return outcome(SENT, f"{kind} {edition.id[:12]} to {target.describe()}", attempt)
    known.record_failure(week, target.kind, edition.id, attempt, error)
    return outcome(FAILED, error, attempt)


def publish(repo: str, week: date, target: str | None, dry_run: bool) -> int:
    """Print one line per target; 1 if any target failed or the week has no report to send."""
    settings = load_settings()
    entry = find(load_repositories(settings.home), repo)
    if entry is None:
        raise UsageError(f"{repo} is not in repositories.yml (prweekly repo add {repo})")
    if not delivery_of(entry).targets:
        raise UsageError(f"{entry.name} has no deliver: targets in repositories.yml")

    return publish_by_hand(
        entry.name,
        week,
        dry_run,
        lambda say: deliver_week(
            settings, entry, week, only=target, dry_run=dry_run, by_hand=True, say=say
        ),
    )


def publish_by_hand(
    owner: str,
    week: date,
    dry_run: bool,
    send: Callable[[Callable[[str], None]], list[Outcome]],
) -> int:
    """`prweekly publish`'s lines for a repository's or a group's week (`send` given where to
    say its progress): one per target; 1 if any target failed or the week has no report."""

    def say(line: str) -> None:
        print(f"  {line}", file=sys.stderr, flush=True)

    verb = "would publish" if dry_run else "publishing"
    print(f"prweekly: {verb} {owner} {iso_label(week)}", flush=True)
    outcomes = send(say)
    for outcome in outcomes:
        detail = f": {outcome.detail}" if outcome.detail else ""
        print(f"  {outcome.target}: {outcome.status}{detail}", flush=True)
    return 1 if any(o.status in (FAILED, NO_REPORT) for o in outcomes) else 0
