"""The github source gets every PR of a window, and only those, in as few requests as it can."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from github_fakes import REPO, FakeClock, make_pr, source_for, week_of_prs

from orchestration.extract.sources import WeekCount
from orchestration.extract.sources.github import split_window
from orchestration.extract.sources.github_counts import Counted, week_counts
from orchestration.extract.sources.github_errors import GitHubIncompleteError, GitHubResponseError
from orchestration.extract.sources.nodes import to_row
from orchestration.testing.github_emulator import Emulator, Fault

MONDAY = datetime(2026, 7, 20, tzinfo=UTC)
NEXT = MONDAY + timedelta(days=7)


def fetch(nodes, start=MONDAY, end=NEXT, **options):
    clock = FakeClock()
    with Emulator(nodes, clock=clock.time) as emu:
        source = source_for(emu, clock, **options)
        got = list(source.fetch(REPO, start, end))
        bodies = [json.loads(r["body"]) for r in emu.requests]
    return got, source.stats(), bodies


def test_search_cursor_pages_through_a_busy_week():
    nodes = week_of_prs(MONDAY, 250)
    got, stats, bodies = fetch(nodes)
    assert [n["number"] for n in got] == list(range(1, 251))
    assert stats["requests"] == 3
    assert [b["variables"]["after"] is None for b in bodies] == [True, False, False]
    assert stats["rate_limit_points"] > 0 and 0 < stats["rate_limit_remaining"] < 5000


def test_nodes_come_back_in_the_dataset_shape():
    nodes = week_of_prs(MONDAY, 3)
    got, _, _ = fetch(nodes)
    for mine, theirs in zip(got, nodes, strict=True):
        for key in ("title", "body", "url", "mergedAt", "createdAt", "author", "mergedBy"):
            assert mine[key] == theirs[key]
        for key in ("files", "labels", "reviews", "reviewThreads"):
            assert mine[key]["nodes"] == theirs[key]["nodes"]
        assert mine["comments"] == theirs["comments"]
        assert to_row(mine, REPO) == to_row(theirs, REPO)


def test_long_nested_lists_are_completed_for_that_pr_only():
    nodes = week_of_prs(MONDAY, 30)
    big = make_pr(99, MONDAY + timedelta(days=3), files=250, labels=130, reviews=101, threads=45)
    got, stats, bodies = fetch([*nodes, big])
    mine = next(n for n in got if n["number"] == 99)
    assert len(mine["files"]["nodes"]) == 250 and mine["files"]["totalCount"] == 250
    assert len(mine["labels"]["nodes"]) == 130
    assert len(mine["reviews"]["nodes"]) == 101
    assert [t["comments"]["nodes"][0]["body"] for t in mine["reviewThreads"]["nodes"]] == [
        f"nit {i}" for i in range(45)
    ]
    follow_ups = bodies[1:]
    # files: 2 more pages, labels 1, reviews 1, threads (20 a page): 2
    assert len(follow_ups) == stats["requests"] - 1 == 6
    assert {b["variables"]["number"] for b in follow_ups} == {99}
    assert all(len(n["files"]["nodes"]) == 2 for n in got if n["number"] != 99)


def test_only_prs_merged_inside_the_window_are_kept():
    edge_cases = [
        make_pr(1, MONDAY - timedelta(seconds=1)),
        make_pr(2, MONDAY),
        make_pr(3, NEXT - timedelta(seconds=1)),
        make_pr(4, NEXT),
    ]
    got, _, bodies = fetch(edge_cases)
    assert [n["number"] for n in got] == [2, 3]
    assert "merged:2026-07-20T00:00:00Z..2026-07-26T23:59:59Z" in bodies[0]["variables"]["query"]


def test_a_week_past_the_1000_result_cap_is_split_into_days_without_duplicates():
    nodes = week_of_prs(MONDAY, 1500)
    got, stats, bodies = fetch(nodes)
    assert [n["number"] for n in got] == list(range(1, 1501))
    queries = [b["variables"]["query"] for b in bodies]
    assert sum("merged:2026-07-22T00:00:00Z..2026-07-22T23:59:59Z" in q for q in queries) >= 1
    # one probe of the week, then each day (~215 PRs) in 3 pages
    assert stats["requests"] == 1 + 7 * 3


def test_a_day_past_the_cap_is_split_into_hours():
    step = timedelta(days=1) / 1201
    nodes = [make_pr(i + 1, MONDAY + step * i, files=1) for i in range(1200)]
    got, _stats, bodies = fetch(nodes)
    assert len(got) == 1200
    assert any("T05:00:00Z..2026-07-20T05:59:59Z" in b["variables"]["query"] for b in bodies)


def test_a_long_range_is_halved_at_week_boundaries_only_when_needed():
    weeks = [
        week_of_prs(MONDAY + timedelta(weeks=w), 120, first_number=1 + 200 * w) for w in range(12)
    ]
    nodes = [n for week in weeks for n in week]
    got, stats, bodies = fetch(nodes, end=MONDAY + timedelta(weeks=12))
    assert len(got) == 1440 == len({n["number"] for n in got})
    starts = {b["variables"]["query"].split("merged:")[1][:20] for b in bodies}
    assert all(s.startswith(("2026-07-20", "2026-08-31")) for s in starts), starts
    assert stats["requests"] <= 1 + 2 * 8  # one probe, then two halves of 720 PRs


def test_quiet_range_is_one_request():
    nodes = [make_pr(i, MONDAY + timedelta(weeks=i, hours=3)) for i in range(1, 9)]
    got, stats, _ = fetch(nodes, end=MONDAY + timedelta(weeks=10))
    assert len(got) == 8 and stats["requests"] == 1


def test_split_window_units():
    start = MONDAY
    assert split_window(start, start + timedelta(weeks=5)) == [
        (start, start + timedelta(weeks=2)),
        (start + timedelta(weeks=2), start + timedelta(weeks=5)),
    ]
    assert len(split_window(start, start + timedelta(weeks=1))) == 7
    assert len(split_window(start, start + timedelta(days=1))) == 24
    assert len(split_window(start, start + timedelta(hours=1))) == 60
    assert split_window(start, start + timedelta(minutes=1)) == []


@pytest.mark.parametrize("page_size", [100, 30])
def test_page_size_is_honoured(page_size):
    got, _stats, bodies = fetch(week_of_prs(MONDAY, 90), page_size=page_size)
    assert len(got) == 90
    assert {b["variables"]["first"] for b in bodies} == {page_size}


def shifting_source(nodes, logs: list[str] | None = None):
    """An emulator serving `nodes` and a source reading it, on fake time."""
    clock = FakeClock()
    emulator = Emulator(nodes, clock=clock.time).start()
    source = source_for(emulator, clock, log=(logs if logs is not None else []).append)
    return emulator, source


@pytest.mark.parametrize(
    ("after", "lost"),
    [(0, 150), (1, 50)],  # the newest PR appears after page 1; an old one slips past page 2
)
def test_results_shifting_between_pages_are_read_again_until_whole(after, lost):
    logs: list[str] = []
    emulator, source = shifting_source(week_of_prs(MONDAY, 150), logs)
    try:
        emulator.faults.fail_next(Fault.SHIFT_PAGES, after=after)
        got = [n["number"] for n in source.fetch(REPO, MONDAY, NEXT)]
    finally:
        emulator.stop()
    assert lost in got and got == list(range(1, 151))
    assert source.stats()["requests"] == 4  # two pages that disagreed, then two that agree
    assert any("reading the window again" in line for line in logs), logs


def test_results_that_keep_shifting_fail_naming_repository_window_and_counts():
    emulator, source = shifting_source(week_of_prs(MONDAY, 150))
    try:
        for _ in range(3):  # every read of the window: page 1 early, page 2 up to date
            emulator.faults.fail_next(Fault.SHIFT_PAGES)
            emulator.faults.fail_next(Fault.SHIFT_PAGES, times=0, after=1)
        with pytest.raises(GitHubIncompleteError) as error:
            list(source.fetch(REPO, MONDAY, NEXT))
    finally:
        emulator.stop()
    message = str(error.value)
    assert REPO in message and "2026-07-20T00:00:00Z..2026-07-26T23:59:59Z" in message
    assert "GitHub counted 150" in message and "found 149" in message, message
    assert source.stats()["requests"] == 6


def test_a_search_node_without_merged_at_is_an_error_naming_the_pr():
    emulator, source = shifting_source(week_of_prs(MONDAY, 30))
    try:
        emulator.faults.fail_next(Fault.NULL_MERGED_AT)
        with pytest.raises(GitHubResponseError, match=rf"{REPO}#30 .*no mergedAt"):
            list(source.fetch(REPO, MONDAY, NEXT))
    finally:
        emulator.stop()


def test_github_count_of_each_week_is_kept_with_when_it_was_counted():
    quiet = [make_pr(i, MONDAY + timedelta(weeks=i % 3, hours=i)) for i in range(1, 8)]
    clock = FakeClock()
    with Emulator(quiet, clock=clock.time) as emu:
        source = source_for(emu, clock)
        got = list(source.fetch(REPO, MONDAY, MONDAY + timedelta(weeks=4)))
        counts = source.week_counts()
    assert len(got) == 7 and source.stats()["requests"] == 1  # one window for four weeks
    assert {week: count.merged for week, count in counts.items()} == {
        MONDAY.date(): 2,  # 3 and 6
        (MONDAY + timedelta(weeks=1)).date(): 3,  # 1, 4, 7
        (MONDAY + timedelta(weeks=2)).date(): 2,  # 2, 5
        (MONDAY + timedelta(weeks=3)).date(): 0,  # counted, and none merged
    }
    assert {count.counted_at.timestamp() for count in counts.values()} == {clock.now}
    assert counts[MONDAY.date()].metadata() == {
        "prweekly.github_issue_count": "2",
        "prweekly.github_counted_at": datetime.fromtimestamp(clock.now, UTC).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        ),
    }


def test_a_week_read_in_several_windows_sums_them_as_of_the_earliest():
    day = timedelta(days=1)
    at = [datetime(2026, 7, 27, 6, tzinfo=UTC) + timedelta(minutes=m) for m in (5, 0, 9)]
    windows = [  # a busy week read day by day; the last window reaches into the next week
        Counted(MONDAY, MONDAY + day, at[0], Counter({MONDAY.date(): 400})),
        Counted(MONDAY + day, NEXT - day, at[1], Counter({MONDAY.date(): 500})),
        Counted(NEXT - day, NEXT + day, at[2], Counter({MONDAY.date(): 90, NEXT.date(): 3})),
    ]
    counts = week_counts(windows)
    assert counts == {
        MONDAY.date(): WeekCount(990, at[1]),
        NEXT.date(): WeekCount(3, at[2]),
    }
