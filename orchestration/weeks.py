"""ISO weeks in UTC: parsing what users type and the window each week covers."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from orchestration.config import UsageError

FIRST_WEEK = date(2020, 1, 6)  # earliest partition Dagster offers; a Monday
_ISO_WEEK = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def parse_week(text: str) -> date:
    """Accept `2026-W30` or any date inside the week (`2026-07-22`); return its Monday."""
    text = (text or "").strip()
    iso = _ISO_WEEK.match(text)
    try:
        if iso:
            return date.fromisocalendar(int(iso.group(1)), int(iso.group(2)), 1)
        return monday_of(date.fromisoformat(text))
    except ValueError:
        pass
    raise UsageError(f"week {text!r} is neither a date (2026-07-22) nor an ISO week (2026-W30)")


def week_window(monday: date) -> tuple[datetime, datetime]:
    """The half-open UTC window [Monday 00:00, next Monday 00:00) of a week."""
    start = datetime(monday.year, monday.month, monday.day, tzinfo=UTC)
    return start, start + timedelta(days=7)


def weeks_between(first: date, last: date) -> list[date]:
    """Every Monday from `first` to `last`, both included."""
    if last < first:
        raise UsageError(f"--to week {last} comes before --week {first}")
    count = (last - first).days // 7 + 1
    return [first + timedelta(weeks=i) for i in range(count)]


def check_week_ended(monday: date, now: datetime | None = None) -> None:
    """A report of a week still in progress would change under the reader: refuse it."""
    now = now or datetime.now(UTC)
    _, end = week_window(monday)
    if end > now:
        raise UsageError(
            f"week {iso_label(monday)} ({monday}) has not ended yet; "
            f"the latest complete week starts {monday_of(now.date()) - timedelta(days=7)}"
        )
    if monday < FIRST_WEEK:
        raise UsageError(f"week {monday} is before {FIRST_WEEK}, the first week prweekly covers")


def iso_label(monday: date) -> str:
    year, week, _ = monday.isocalendar()
    return f"{year}-W{week:02d}"
