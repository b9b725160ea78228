"""The one retry policy (orchestration/retry.py) and the figures each caller gives it."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from orchestration.delivery import send
from orchestration.extract.sources import github_http
from orchestration.narrative import client
from orchestration.retry import Backoff, retry_after


def test_each_caller_waits_as_it_did() -> None:
    assert [send.RETRY.wait(n) for n in (1, 2)] == [2.0, 8.0]
    assert send.RETRY.gives_up(3) and not send.RETRY.gives_up(2)
    assert [client.RETRY.wait(n) for n in (1, 2, 3, 9)] == [0.5, 1.0, 2.0, 8.0]
    u = random.Random(7).uniform(0.5, 1.0)  # the jitter a seeded client draws first
    waits = [github_http.RETRY.wait(n, random.Random(7)) for n in (1, 4, 9)]
    assert waits == [1.0 * u, 8.0 * u, 60.0 * u]
    assert github_http.RETRY.gives_up(8) and not github_http.RETRY.gives_up(7)


def test_jitter_stays_in_its_range() -> None:
    policy = Backoff(attempts=5, base=10.0, cap=100.0, jitter=(0.5, 1.0))
    rng = random.Random(1)
    assert all(5.0 <= policy.wait(1, rng) <= 10.0 for _ in range(50))


@pytest.mark.parametrize(
    ("raw", "unreadable", "expected"),
    [
        ("12", None, 12.0),
        ("-3", None, 0.0),
        (None, None, None),
        ("soon", 10.0, 10.0),
        ("", 1.0, 1.0),
    ],
)
def test_retry_after_reads_seconds(raw, unreadable, expected) -> None:
    assert retry_after(raw, unreadable) == expected


def test_retry_after_reads_an_http_date() -> None:
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    assert 100 < retry_after(later) <= 120
