"""`prweekly publish --group NAME`: send a week's group edition to the group's targets by hand."""

from __future__ import annotations

from datetime import date

from orchestration.config import UsageError, load_settings
from orchestration.delivery.send import publish_by_hand
from orchestration.group.deliver import deliver_group_week
from orchestration.repositories.registry import load_groups


def publish_group(name: str, week: date, target: str | None, dry_run: bool) -> int:
    """Print one line per target; 1 if any target failed or the week has no group report. As
    for a repository, a held correction is sent by hand even with send_corrections: false."""
    settings = load_settings()
    groups = load_groups(settings.home)
    group = next((g for g in groups if g.name == name.lower()), None)
    if group is None:
        known = ", ".join(g.name for g in groups) or "none"
        raise UsageError(f"no group {name} in repositories.yml (groups: {known})")
    if not group.delivery().targets:
        raise UsageError(f"group {group.name} has no deliver: targets in repositories.yml")

    return publish_by_hand(
        f"group {group.name}",
        week,
        dry_run,
        lambda say: deliver_group_week(
            settings, group, week, only=target, dry_run=dry_run, by_hand=True, say=say
        ),
    )
