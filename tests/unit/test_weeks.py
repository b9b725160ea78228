from datetime import UTC, date, datetime

import pytest

from orchestration.config import UsageError, validate_repo
from orchestration.weeks import check_week_ended, iso_label, parse_week, week_window, weeks_between


@pytest.mark.parametrize(
    ("text", "monday"),
    [
        ("2026-W30", date(2026, 7, 20)),
        ("2026w30", date(2026, 7, 20)),
        ("2026-07-20", date(2026, 7, 20)),
        ("2026-07-26", date(2026, 7, 20)),
        ("2026-07-22", date(2026, 7, 20)),
        ("2020-W53", date(2020, 12, 28)),
    ],
)
def test_parse_week_accepts_dates_and_iso_weeks(text: str, monday: date) -> None:
    assert parse_week(text) == monday
    assert iso_label(monday).startswith(text[:4])


@pytest.mark.parametrize("text", ["", "2026-W54", "last week", "2026-13-01", "2026-W"])
def test_parse_week_rejects_nonsense_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(UsageError, match="2026-W30"):
        parse_week(text)


def test_week_window_is_half_open_monday_to_monday_utc() -> None:
    start, end = week_window(date(2026, 7, 20))
    assert start == datetime(2026, 7, 20, tzinfo=UTC)
    assert end == datetime(2026, 7, 27, tzinfo=UTC)


def test_a_week_in_progress_is_refused() -> None:
    now = datetime(2026, 7, 26, 23, 59, tzinfo=UTC)
    with pytest.raises(UsageError, match="has not ended yet"):
        check_week_ended(date(2026, 7, 20), now=now)
    check_week_ended(date(2026, 7, 20), now=datetime(2026, 7, 27, tzinfo=UTC))


def test_weeks_between_is_inclusive_and_ordered() -> None:
    weeks = weeks_between(date(2026, 6, 29), date(2026, 7, 20))
    assert weeks == [date(2026, 6, 29), date(2026, 7, 6), date(2026, 7, 13), date(2026, 7, 20)]
    with pytest.raises(UsageError):
        weeks_between(date(2026, 7, 20), date(2026, 6, 29))


@pytest.mark.parametrize(
    "repo", ["verl", "a/b/c", "../etc", "a/..", "o'x/y", "own er/name", "/a/b", "a//b", ""]
)
def test_repositories_must_be_owner_slash_name(repo: str) -> None:
    with pytest.raises(UsageError, match="owner/name"):
        validate_repo(repo)


def test_valid_repositories_pass() -> None:
    for repo in ["verl-project/verl", "a/b", "Org-1/repo.name_x"]:
        assert validate_repo(repo) == repo
