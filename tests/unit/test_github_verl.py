"""The verl dataset through the emulator and the github source equals the file source.

Rows differ only in the columns the dataset lacks and GitHub's schema makes non-null:
`created_at` (answered as mergedAt), `comments_count` (0) and `review_threads` (empty).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from github_fakes import VERL, FakeClock, source_for

from orchestration.extract.sources.file import FileSource
from orchestration.extract.sources.nodes import to_row
from orchestration.testing.github_emulator import Emulator

REPO = "verl-project/verl"
START = datetime(2024, 10, 28, tzinfo=UTC)
END = datetime(2026, 8, 24, tzinfo=UTC)
ABSENT_BUT_NON_NULL = {"created_at", "comments_count", "review_threads"}


def rows(nodes):
    out = {}
    for node in nodes:
        out[node["number"]] = to_row(node, REPO)
    return out


@pytest.fixture(scope="module")
def both():
    if not VERL.is_file():
        pytest.skip("the verl dataset is not at ../shared/datasets/verl-project__verl/")
    clock = FakeClock()
    with Emulator(VERL, clock=clock.time) as emu:
        source = source_for(emu, clock, token=None)
        from_github = rows(source.fetch(REPO, START, END))
    return from_github, rows(FileSource(VERL).fetch(REPO, START, END)), source.stats()


def test_same_pull_requests(both):
    github, file, _ = both
    assert len(github) == 2883
    assert sorted(github) == sorted(file)


def test_same_rows_except_fields_the_dataset_lacks(both):
    github, file, _ = both
    differing = {
        column
        for number, row in github.items()
        for column, value in row.items()
        if file[number][column] != value
    }
    assert differing == ABSENT_BUT_NON_NULL
    sample = next(iter(github.values()))
    assert sample["labels"] is None and sample["reviews"] is None and sample["merged_by"] is None
    assert sample["created_at"] == sample["merged_at"]


def test_whole_history_in_under_three_requests_per_hundred_prs(both):
    github, _, stats = both
    assert stats["requests"] / len(github) * 100 <= 3
