"""A fetched repository's labelled rows are held against its dataset where the bench reads it
(`bench.labelled_rows`, run by `bench.facts_labelled`): CI has no such dataset, so the check is
tested here on a crafted one."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bench.agreement import sample
from bench.labelled_rows import LabelsDoNotMatch, check_fetched

REPO = "astral-sh/uv"  # one of the fetched repositories: drawn with a whole week
BODY = "Adds a cache for lookups.\n\nThe rest of the description."


def _prs() -> dict[int, dict]:
    """Twelve PRs in one week (the whole week the draw takes), one a week for thirty weeks."""
    busy = [(date(2024, 3, 4) + timedelta(days=n % 5), n) for n in range(1, 13)]
    quiet = [(date(2023, 1, 2) + timedelta(weeks=w), 100 + w) for w in range(30)]
    return {
        number: {"number": number, "mergedAt": f"{day.isoformat()}T10:00:00Z", "body": BODY}
        for day, number in busy + quiet
    }


def _labels(prs: dict[int, dict]) -> list[dict]:
    drawn = sample.draw_from({REPO: list(prs.values())})
    located = f"@0-25:{sample.digest(BODY[:25])}"
    return [
        {"repo": repo, "number": number, "sample": kind, "change_sentence": located}
        for repo, number, kind in drawn
    ]


def test_the_seeded_rows_with_sentences_that_resolve_pass() -> None:
    prs = _prs()
    labels = _labels(prs)
    assert {label["sample"] for label in labels} == {"week", "random"}
    check_fetched(REPO, labels, prs)


def test_a_row_the_draw_does_not_give_stops_the_bench() -> None:
    prs = _prs()
    labels = _labels(prs)[1:]
    with pytest.raises(LabelsDoNotMatch, match=r"astral-sh/uv: .* not the seeded sample"):
        check_fetched(REPO, labels, prs)


def test_a_sentence_that_no_longer_resolves_stops_the_bench() -> None:
    prs = _prs()
    labels = _labels(prs)
    number = labels[0]["number"]
    prs[number] = {**prs[number], "body": "Another description, written since."}
    with pytest.raises(LabelsDoNotMatch, match=rf"astral-sh/uv#{number}: @0-25:"):
        check_fetched(REPO, labels, prs)
