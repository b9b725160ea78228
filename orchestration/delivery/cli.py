"""`prweekly publish`: send a week's edition to a repository's targets by hand."""

from __future__ import annotations

import sys
from datetime import date

from orchestration.config import UsageError, load_settings
from orchestration.delivery.send import FAILED, NO_REPORT, deliver_week, delivery_of
from orchestration.repositories.registry import find, load_repositories
from orchestration.weeks import iso_label


def publish(repo: str, week: date, target: str | None, dry_run: bool) -> int:
    """Print one line per target; 1 if any target failed or the week has no report to send."""
    settings = load_settings()
    entry = find(load_repositories(settings.home), repo)
    if entry is None:
        raise UsageError(f"{repo} is not in repositories.yml (prweekly repo add {repo})")
    if not delivery_of(entry).targets:
        raise UsageError(f"{entry.name} has no deliver: targets in repositories.yml")

    def say(line: str) -> None:
        print(f"  {line}", file=sys.stderr, flush=True)

    verb = "would publish" if dry_run else "publishing"
    print(f"prweekly: {verb} {entry.name} {iso_label(week)}", flush=True)
    outcomes = deliver_week(
        settings, entry, week, only=target, dry_run=dry_run, by_hand=True, say=say
    )
    for outcome in outcomes:
        detail = f": {outcome.detail}" if outcome.detail else ""
        print(f"  {outcome.target}: {outcome.status}{detail}", flush=True)
    return 1 if any(o.status in (FAILED, NO_REPORT) for o in outcomes) else 0
